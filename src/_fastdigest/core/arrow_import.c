/* The import of an Arrow column (arrow_import.h): a schema read as one of
 * the hashed types, and an array's extent, offsets or views and buffers
 * checked, each failure with its message. */
#include "core/arrow_import.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "kernels/compiler.h"

static FD_PRINTF_LIKE(3, 4) bool fail(fd_arrow_error *error, enum fd_arrow_status status,
                                      const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(error->message, sizeof error->message, format, args);
    va_end(args);
    error->status = status;
    return false;
}

/* ---- schema ------------------------------------------------------------------ */

static bool layout_of_format(const char *format, enum fd_arrow_layout *layout)
{
    if (strcmp(format, "z") == 0 || strcmp(format, "u") == 0)
        *layout = FD_ARROW_OFFSETS32;
    else if (strcmp(format, "Z") == 0 || strcmp(format, "U") == 0)
        *layout = FD_ARROW_OFFSETS64;
    else if (strcmp(format, "vz") == 0 || strcmp(format, "vu") == 0)
        *layout = FD_ARROW_VIEWS;
    else
        return false;
    return true;
}

#define HASHED_TYPES                                                               \
    "it hashes binary ('z'), large_binary ('Z'), binary_view ('vz'), utf8 ('u'), " \
    "large_utf8 ('U') and utf8_view ('vu')"

bool fd_arrow_check_schema(const struct ArrowSchema *schema, fd_arrow_input_type *type,
                           fd_arrow_error *error)
{
    if (schema->release == NULL)
        return fail(error, FD_ARROW_BAD_DATA, "the Arrow schema is released");
    if (schema->format == NULL)
        return fail(error, FD_ARROW_BAD_DATA, "the Arrow schema has no format string");

    const struct ArrowSchema *column = schema;
    type->in_struct = false;
    if (strcmp(schema->format, "+s") == 0) {
        if (schema->n_children != 1)
            return fail(error, FD_ARROW_BAD_TYPE,
                        "cannot hash a struct of %lld fields (Arrow format '+s'): pass one "
                        "column, or a table of exactly one column",
                        (long long)schema->n_children);
        if (schema->children == NULL || schema->children[0] == NULL ||
            schema->children[0]->format == NULL)
            return fail(error, FD_ARROW_BAD_DATA, "the Arrow struct schema lacks its field");
        column = schema->children[0];
        type->in_struct = true;
    }
    if (column->dictionary != NULL) {
        const char *values = column->dictionary->format;
        return fail(error, FD_ARROW_BAD_TYPE,
                    "cannot hash a dictionary-encoded column (Arrow format '%.32s', values "
                    "'%.32s'): decode it first; " HASHED_TYPES,
                    column->format, values != NULL ? values : "?");
    }
    if (!layout_of_format(column->format, &type->layout))
        return fail(error, FD_ARROW_BAD_TYPE, "cannot hash Arrow format '%.32s'; " HASHED_TYPES,
                    column->format);
    type->name = column->name;
    return true;
}

/* ---- array checks -------------------------------------------------------------- */

bool fd_arrow_check_extent(const struct ArrowArray *array, const char *what, fd_arrow_error *error)
{
    if (array->release == NULL)
        return fail(error, FD_ARROW_BAD_DATA, "the %s array is released", what);
    if (array->length < 0)
        return fail(error, FD_ARROW_BAD_DATA, "the %s array's length is negative (%lld)", what,
                    (long long)array->length);
    if (array->offset < 0)
        return fail(error, FD_ARROW_BAD_DATA, "the %s array's offset is negative (%lld)", what,
                    (long long)array->offset);
    if (array->offset > INT64_MAX - 1 - array->length ||
        (uint64_t)(array->offset + array->length + 1) > SIZE_MAX / 16)
        return fail(error, FD_ARROW_BAD_DATA,
                    "the %s array's offset %lld plus length %lld is out of range", what,
                    (long long)array->offset, (long long)array->length);
    if (array->n_buffers < 0 || (array->n_buffers > 0 && array->buffers == NULL))
        return fail(error, FD_ARROW_BAD_DATA, "the %s array's buffers are missing", what);
    return true;
}

static const char *layout_name(enum fd_arrow_layout layout)
{
    switch (layout) {
    case FD_ARROW_OFFSETS32:
        return "binary/utf8";
    case FD_ARROW_OFFSETS64:
        return "large_binary/large_utf8";
    case FD_ARROW_VIEWS:
        break;
    }
    return "binary_view/utf8_view";
}

static bool row_is_null(const fd_arrow_column *column, size_t row)
{
    return (column->validity != NULL &&
            !fd_arrow_bit_is_set(column->validity, column->first + row)) ||
           (column->parent_validity != NULL &&
            !fd_arrow_bit_is_set(column->parent_validity, column->parent_first + row));
}

/* Offsets of rows [0, length] from slot first on: at 0 or more, never
 * decreasing; the bytes under the rows need a data buffer. */
static bool check_offsets(const struct ArrowArray *array, fd_arrow_column *column,
                          fd_arrow_error *error)
{
    const size_t width = column->layout == FD_ARROW_OFFSETS32 ? 4 : 8;
    const uint8_t *offsets = column->positions + column->first * width;
    int64_t start = width == 4 ? fd_arrow_load_int32(offsets) : fd_arrow_load_int64(offsets);
    if (start < 0)
        return fail(error, FD_ARROW_BAD_DATA, "the offset of row 0 is negative (%lld)",
                    (long long)start);
    int64_t previous = start;
    for (size_t row = 0; row < column->length; row++) {
        const uint8_t *next_entry = offsets + (row + 1) * width;
        int64_t next = width == 4 ? fd_arrow_load_int32(next_entry)
                                  : fd_arrow_load_int64(next_entry);
        if (next < previous)
            return fail(error, FD_ARROW_BAD_DATA,
                        "inconsistent offsets: row %zu ends at %lld, before its start %lld", row,
                        (long long)next, (long long)previous);
        previous = next;
    }
    /* Row pointers are data + offset: the end must be an address. */
    if ((uint64_t)previous > (uint64_t)PTRDIFF_MAX)
        return fail(error, FD_ARROW_BAD_DATA, "offset %lld is beyond the address space",
                    (long long)previous);
    column->data = array->buffers[2];
    if (previous > start && column->data == NULL)
        return fail(error, FD_ARROW_BAD_DATA, "the data buffer is null under %lld bytes of rows",
                    (long long)(previous - start));
    return true;
}

/* The views of every non-null row, against the data buffers' sizes from the
 * last buffer. */
static bool check_views(const struct ArrowArray *array, fd_arrow_column *column,
                        fd_arrow_error *error)
{
    const uint8_t *sizes = array->buffers[array->n_buffers - 1];
    column->variadic = array->buffers + 2;
    column->variadic_count = (size_t)(array->n_buffers - 3);
    if (column->variadic_count > 0 && sizes == NULL)
        return fail(error, FD_ARROW_BAD_DATA,
                    "the view array's buffer sizes (its last buffer) are missing");
    for (size_t k = 0; k < column->variadic_count; k++) {
        int64_t size = fd_arrow_load_int64(sizes + 8 * k);
        if (size < 0)
            return fail(error, FD_ARROW_BAD_DATA, "data buffer %zu has a negative size (%lld)", k,
                        (long long)size);
        if (size > 0 && column->variadic[k] == NULL)
            return fail(error, FD_ARROW_BAD_DATA, "data buffer %zu of %lld bytes is null", k,
                        (long long)size);
    }
    const uint8_t *views = column->positions + column->first * 16;
    for (size_t row = 0; row < column->length; row++) {
        if (row_is_null(column, row))
            continue;
        const uint8_t *view = views + row * 16;
        int64_t len = fd_arrow_load_int32(view);
        if (len < 0)
            return fail(error, FD_ARROW_BAD_DATA, "row %zu: negative view length %lld", row,
                        (long long)len);
        if (len <= 12)
            continue; /* inline in the view */
        int64_t index = fd_arrow_load_int32(view + 8);
        int64_t offset = fd_arrow_load_int32(view + 12);
        if (index < 0 || (uint64_t)index >= column->variadic_count)
            return fail(error, FD_ARROW_BAD_DATA, "row %zu: view points to data buffer %lld of %zu",
                        row, (long long)index, column->variadic_count);
        int64_t size = fd_arrow_load_int64(sizes + 8 * (size_t)index);
        if (offset < 0 || offset + len > size)
            return fail(error, FD_ARROW_BAD_DATA,
                        "row %zu: view of %lld bytes at %lld is outside data buffer %lld "
                        "(%lld bytes)",
                        row, (long long)len, (long long)offset, (long long)index, (long long)size);
    }
    return true;
}

bool fd_arrow_check_array(const struct ArrowArray *array, const fd_arrow_input_type *type,
                          fd_arrow_column *column, fd_arrow_error *error)
{
    *column = (fd_arrow_column){.layout = type->layout};
    const struct ArrowArray *values = array;
    int64_t first_row = 0;
    int64_t rows = array->length;

    if (type->in_struct) {
        if (!fd_arrow_check_extent(array, "struct", error))
            return false;
        if (array->n_buffers != 1)
            return fail(error, FD_ARROW_BAD_DATA, "a struct array has 1 buffer, not %lld",
                        (long long)array->n_buffers);
        if (array->n_children != 1 || array->children == NULL || array->children[0] == NULL)
            return fail(error, FD_ARROW_BAD_DATA, "the struct array lacks its one child");
        values = array->children[0];
        first_row = array->offset;
        if (array->length > 0 && array->null_count != 0)
            column->parent_validity = array->buffers[0];
        column->parent_first = (size_t)array->offset;
    }
    if (!fd_arrow_check_extent(values, "column", error))
        return false;
    if (type->in_struct && values->length < array->offset + array->length)
        return fail(error, FD_ARROW_BAD_DATA,
                    "the struct array has %lld rows from %lld but its column only %lld",
                    (long long)array->length, (long long)array->offset, (long long)values->length);

    if (type->layout == FD_ARROW_VIEWS ? values->n_buffers < 3 : values->n_buffers != 3)
        return fail(error, FD_ARROW_BAD_DATA, "a %s array has %s3 buffers, not %lld",
                    layout_name(type->layout), type->layout == FD_ARROW_VIEWS ? "at least " : "",
                    (long long)values->n_buffers);

    column->length = (size_t)rows;
    column->first = (size_t)(values->offset + first_row);
    if (rows == 0) {
        column->parent_validity = NULL;
        return true; /* nothing is read */
    }
    if (values->null_count != 0)
        column->validity = values->buffers[0];
    column->positions = values->buffers[1];
    if (column->positions == NULL)
        return fail(error, FD_ARROW_BAD_DATA, "the %s buffer is null under %lld rows",
                    type->layout == FD_ARROW_VIEWS ? "views" : "offsets", (long long)rows);
    return type->layout == FD_ARROW_VIEWS ? check_views(values, column, error)
                                          : check_offsets(values, column, error);
}
