/* The import of Arrow arrays (arrow_import.h): an array read into a checked
 * tree of the shape of its type (arrow_schema.c): every node's extent,
 * buffers and children first, then, from the root down, what the values in
 * range read (offsets, sizes, views, run ends, dictionary indices) and the
 * range of each child that they reach; and the accessors that read values
 * afterwards. Each failure has its message. */
#include "data/arrow_import.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool fd_arrow_fail(fd_arrow_error *error, enum fd_arrow_status status, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(error->message, sizeof error->message, format, args);
    va_end(args);
    error->status = status;
    return false;
}

bool fd_arrow_no_memory(fd_arrow_error *error)
{
    return fd_arrow_fail(error, FD_ARROW_NO_MEMORY, "out of memory for the Arrow import");
}

/* ---- arrays: each node's own struct ------------------------------------------------- */

static const char *type_label(const fd_arrow_type *t)
{
    switch (t->id) {
    case FD_ARROW_NULL:
        return "null";
    case FD_ARROW_BOOL:
        return "bool";
    case FD_ARROW_INT:
        return "integer";
    case FD_ARROW_FLOAT:
        return "float";
    case FD_ARROW_DECIMAL:
        return "decimal";
    case FD_ARROW_DATE:
        return "date";
    case FD_ARROW_TIME:
        return "time";
    case FD_ARROW_TIMESTAMP:
        return "timestamp";
    case FD_ARROW_DURATION:
        return "duration";
    case FD_ARROW_INTERVAL:
        return "interval";
    case FD_ARROW_FIXED_BINARY:
        return "fixed_size_binary";
    case FD_ARROW_BINARY:
        return "binary/utf8";
    case FD_ARROW_LARGE_BINARY:
        return "large_binary/large_utf8";
    case FD_ARROW_BINARY_VIEW:
        return "binary_view/utf8_view";
    case FD_ARROW_LIST:
        return "list";
    case FD_ARROW_LARGE_LIST:
        return "large_list";
    case FD_ARROW_LIST_VIEW:
        return "list_view";
    case FD_ARROW_LARGE_LIST_VIEW:
        return "large_list_view";
    case FD_ARROW_FIXED_LIST:
        return "fixed_size_list";
    case FD_ARROW_STRUCT:
        return "struct";
    case FD_ARROW_MAP:
        return "map";
    case FD_ARROW_RUN_END:
        return "run_end_encoded";
    case FD_ARROW_DICTIONARY:
        break;
    }
    return "dictionary";
}

/* The bytes a slot of the type takes in its widest buffer. */
static uint64_t slot_bytes(const fd_arrow_type *t)
{
    switch (t->id) {
    case FD_ARROW_INT:
    case FD_ARROW_FLOAT:
    case FD_ARROW_DECIMAL:
    case FD_ARROW_DATE:
    case FD_ARROW_TIME:
    case FD_ARROW_TIMESTAMP:
    case FD_ARROW_DURATION:
    case FD_ARROW_INTERVAL:
    case FD_ARROW_FIXED_BINARY:
    case FD_ARROW_BINARY:
    case FD_ARROW_LARGE_BINARY:
    case FD_ARROW_BINARY_VIEW:
    case FD_ARROW_LIST:
    case FD_ARROW_LARGE_LIST:
    case FD_ARROW_LIST_VIEW:
    case FD_ARROW_LARGE_LIST_VIEW:
    case FD_ARROW_MAP:
    case FD_ARROW_DICTIONARY:
        return t->width > 0 ? t->width : 1;
    default:
        return 1;
    }
}

/* The buffers each type's arrays have: exactly, or for views at least
 * (the data buffers and their sizes follow). */
static int64_t buffer_count(const fd_arrow_type *t)
{
    switch (t->id) {
    case FD_ARROW_NULL:
    case FD_ARROW_RUN_END:
        return 0;
    case FD_ARROW_FIXED_LIST:
    case FD_ARROW_STRUCT:
        return 1;
    case FD_ARROW_BINARY:
    case FD_ARROW_LARGE_BINARY:
    case FD_ARROW_BINARY_VIEW:
    case FD_ARROW_LIST_VIEW:
    case FD_ARROW_LARGE_LIST_VIEW:
        return 3;
    default:
        return 2;
    }
}

/* What every array must satisfy before its length and offset are used:
 * slots up to offset + length, plus one (an offsets buffer has one more
 * entry than values), of slot_bytes each (and of 16, a view), fit the
 * address space. */
static bool check_extent_of(const struct ArrowArray *raw, const char *what, uint64_t slot_bytes,
                            fd_arrow_error *error)
{
    if (raw->release == NULL)
        return fd_arrow_fail(error, FD_ARROW_BAD_DATA, "the %s array is released", what);
    if (raw->length < 0)
        return fd_arrow_fail(error, FD_ARROW_BAD_DATA, "the %s array's length is negative (%lld)",
                             what, (long long)raw->length);
    if (raw->offset < 0)
        return fd_arrow_fail(error, FD_ARROW_BAD_DATA, "the %s array's offset is negative (%lld)",
                             what, (long long)raw->offset);
    if (raw->offset > INT64_MAX - 1 - raw->length ||
        (uint64_t)(raw->offset + raw->length + 1) > (uint64_t)PTRDIFF_MAX / 16 ||
        (uint64_t)(raw->offset + raw->length + 1) > (uint64_t)PTRDIFF_MAX / slot_bytes)
        return fd_arrow_fail(error, FD_ARROW_BAD_DATA,
                             "the %s array's offset %lld plus length %lld is out of range", what,
                             (long long)raw->offset, (long long)raw->length);
    if (raw->n_buffers < 0 || (raw->n_buffers > 0 && raw->buffers == NULL))
        return fd_arrow_fail(error, FD_ARROW_BAD_DATA, "the %s array's buffers are missing", what);
    return true;
}

static bool check_extent(const struct ArrowArray *raw, const fd_arrow_type *t,
                         fd_arrow_error *error)
{
    return check_extent_of(raw, type_label(t), slot_bytes(t), error);
}

bool fd_arrow_check_extent(const struct ArrowArray *array, const char *what, fd_arrow_error *error)
{
    return check_extent_of(array, what, 16, error);
}

static bool import_node(const struct ArrowArray *raw, const fd_arrow_type *t, fd_arrow_array *nodes,
                        fd_arrow_error *error)
{
    fd_arrow_array *a = &nodes[t->node_index];
    const char *what = type_label(t);
    if (!check_extent(raw, t, error))
        return false;
    const int64_t buffers = buffer_count(t);
    const bool views = t->id == FD_ARROW_BINARY_VIEW;
    if (views ? raw->n_buffers < buffers : raw->n_buffers != buffers)
        return fd_arrow_fail(error, FD_ARROW_BAD_DATA, "a %s array has %s%lld buffer%s, not %lld",
                             what, views ? "at least " : "", (long long)buffers,
                             buffers == 1 ? "" : "s", (long long)raw->n_buffers);
    const size_t children = t->id == FD_ARROW_DICTIONARY ? 0 : t->source_children;
    if (raw->n_children != (int64_t)children || (children > 0 && raw->children == NULL))
        return fd_arrow_fail(error, FD_ARROW_BAD_DATA, "a %s array has %zu child%s, not %lld", what,
                             children, children == 1 ? "" : "ren", (long long)raw->n_children);
    if ((raw->dictionary != NULL) != (t->id == FD_ARROW_DICTIONARY))
        return fd_arrow_fail(error, FD_ARROW_BAD_DATA, "the %s array %s a dictionary", what,
                             raw->dictionary != NULL ? "has" : "lacks");

    *a = (fd_arrow_array){.type = t, .length = raw->length, .offset = raw->offset};
    if (buffers > 0) {
        if (raw->null_count != 0 && t->id != FD_ARROW_NULL)
            a->validity = raw->buffers[0];
        if (buffers > 1)
            a->values = raw->buffers[1];
    }
    switch (t->id) {
    case FD_ARROW_BINARY:
    case FD_ARROW_LARGE_BINARY:
        a->data = raw->buffers[2];
        break;
    case FD_ARROW_LIST_VIEW:
    case FD_ARROW_LARGE_LIST_VIEW:
        a->sizes = raw->buffers[2];
        break;
    case FD_ARROW_BINARY_VIEW:
        a->variadic = raw->buffers + 2;
        a->variadic_count = (size_t)(raw->n_buffers - 3);
        a->variadic_sizes = raw->buffers[raw->n_buffers - 1];
        break;
    default:
        break;
    }
    if (t->n_children > 0)
        a->children = &nodes[t->children[0].node_index];
    for (size_t k = 0; k < t->n_children; k++) {
        const struct ArrowArray *child = raw->children[t->children[k].source_index];
        if (child == NULL)
            return fd_arrow_fail(error, FD_ARROW_BAD_DATA, "the %s array lacks child %zu", what,
                                 t->children[k].source_index);
        if (!import_node(child, &t->children[k], nodes, error))
            return false;
    }
    if (t->id == FD_ARROW_DICTIONARY) {
        a->dictionary = &nodes[t->dictionary->node_index];
        return import_node(raw->dictionary, t->dictionary, nodes, error);
    }
    return true;
}

/* ---- arrays: what values in a range read -------------------------------------------- */

/* The null rows of the structs an array is a field of, innermost first:
 * a value of a struct's field that lies under a null row of the struct is
 * hidden (the format lets it hold anything), so what is read only for
 * non-null values (views, list views, dictionary indices) is not read, or
 * checked, there. Value j of the field is under row j of the struct's
 * validity bitmap (NULL: no null rows), and under row j - offset of the
 * next struct out. */
typedef struct struct_mask {
    const uint8_t *validity;
    int64_t offset;
    const struct struct_mask *next;
} struct_mask;

/* Whether value j of a is null or hidden by a struct row. */
static bool skipped(const fd_arrow_array *a, int64_t j, const struct_mask *mask)
{
    if (!fd_arrow_slot_is_valid(a, j))
        return true;
    for (; mask != NULL; j -= mask->offset, mask = mask->next) {
        if (mask->validity != NULL && !fd_arrow_bit_is_set(mask->validity, (size_t)j))
            return true;
    }
    return false;
}

static bool check_range(const fd_arrow_array *a, int64_t lo, int64_t hi, const struct_mask *mask,
                        fd_arrow_error *error);

static bool need_buffer(const void *buffer, const fd_arrow_array *a, const char *buffer_name,
                        int64_t count, fd_arrow_error *error)
{
    if (buffer != NULL)
        return true;
    return fd_arrow_fail(error, FD_ARROW_BAD_DATA,
                         "the %s buffer is null under %lld rows (%s array)", buffer_name,
                         (long long)count, type_label(a->type));
}

/* Offsets of values [lo, hi], at 0 or more and never decreasing; their
 * first and last in *start and *end. */
static bool check_offsets(const fd_arrow_array *a, int64_t lo, int64_t hi, int64_t *start,
                          int64_t *end, fd_arrow_error *error)
{
    const uint32_t width = a->type->width;
    const size_t first = (size_t)(a->offset + lo);
    int64_t previous = fd_arrow_load_signed(a->values, first, width);
    if (previous < 0)
        return fd_arrow_fail(error, FD_ARROW_BAD_DATA, "the offset of row %lld is negative (%lld)",
                             (long long)lo, (long long)previous);
    *start = previous;
    for (int64_t row = lo; row < hi; row++) {
        int64_t next = fd_arrow_load_signed(a->values, first + (size_t)(row - lo) + 1, width);
        if (next < previous)
            return fd_arrow_fail(
                error, FD_ARROW_BAD_DATA,
                "inconsistent offsets: row %lld ends at %lld, before its start %lld",
                (long long)row, (long long)next, (long long)previous);
        previous = next;
    }
    *end = previous;
    return true;
}

/* The views of every non-null value, against the data buffers' sizes from
 * the last buffer. */
static bool check_views(const fd_arrow_array *a, int64_t lo, int64_t hi, const struct_mask *mask,
                        fd_arrow_error *error)
{
    if (a->variadic_count > 0 && a->variadic_sizes == NULL)
        return fd_arrow_fail(error, FD_ARROW_BAD_DATA,
                             "the view array's buffer sizes (its last buffer) are missing");
    for (size_t k = 0; k < a->variadic_count; k++) {
        int64_t size = fd_arrow_load_int64(a->variadic_sizes + 8 * k);
        if (size < 0)
            return fd_arrow_fail(error, FD_ARROW_BAD_DATA,
                                 "data buffer %zu has a negative size (%lld)", k, (long long)size);
        if (size > 0 && a->variadic[k] == NULL)
            return fd_arrow_fail(error, FD_ARROW_BAD_DATA, "data buffer %zu of %lld bytes is null",
                                 k, (long long)size);
    }
    for (int64_t row = lo; row < hi; row++) {
        if (skipped(a, row, mask))
            continue; /* a null value's view is never read */
        const uint8_t *view = a->values + 16 * (size_t)(a->offset + row);
        int64_t len = fd_arrow_load_int32(view);
        if (len < 0)
            return fd_arrow_fail(error, FD_ARROW_BAD_DATA, "row %lld: negative view length %lld",
                                 (long long)row, (long long)len);
        if (len <= 12)
            continue; /* inline in the view */
        int64_t index = fd_arrow_load_int32(view + 8);
        int64_t offset = fd_arrow_load_int32(view + 12);
        if (index < 0 || (uint64_t)index >= a->variadic_count)
            return fd_arrow_fail(error, FD_ARROW_BAD_DATA,
                                 "row %lld: view points to data buffer %lld of %zu", (long long)row,
                                 (long long)index, a->variadic_count);
        int64_t size = fd_arrow_load_int64(a->variadic_sizes + 8 * (size_t)index);
        if (offset < 0 || offset + len > size)
            return fd_arrow_fail(error, FD_ARROW_BAD_DATA,
                                 "row %lld: view of %lld bytes at %lld is outside data buffer %lld "
                                 "(%lld bytes)",
                                 (long long)row, (long long)len, (long long)offset,
                                 (long long)index, (long long)size);
    }
    return true;
}

static bool check_child_holds(const fd_arrow_array *a, const fd_arrow_array *child, int64_t end,
                              fd_arrow_error *error)
{
    if (end <= child->length)
        return true;
    return fd_arrow_fail(error, FD_ARROW_BAD_DATA,
                         "the %s array reaches value %lld of its child, which has %lld values",
                         type_label(a->type), (long long)end - 1, (long long)child->length);
}

static bool check_list(const fd_arrow_array *a, int64_t lo, int64_t hi, fd_arrow_error *error)
{
    int64_t start, end;
    if (!need_buffer(a->values, a, "offsets", hi - lo, error) ||
        !check_offsets(a, lo, hi, &start, &end, error) ||
        !check_child_holds(a, &a->children[0], end, error))
        return false;
    return check_range(&a->children[0], start, end, NULL, error);
}

/* Each non-null list view within the child; the child over the hull of
 * the views with elements. */
static bool check_list_views(const fd_arrow_array *a, int64_t lo, int64_t hi,
                             const struct_mask *mask, fd_arrow_error *error)
{
    if (!need_buffer(a->values, a, "offsets", hi - lo, error) ||
        !need_buffer(a->sizes, a, "sizes", hi - lo, error))
        return false;
    const fd_arrow_array *child = &a->children[0];
    int64_t low = INT64_MAX, high = 0;
    for (int64_t row = lo; row < hi; row++) {
        if (skipped(a, row, mask))
            continue;
        const size_t slot = (size_t)(a->offset + row);
        int64_t offset = fd_arrow_load_signed(a->values, slot, a->type->width);
        int64_t size = fd_arrow_load_signed(a->sizes, slot, a->type->width);
        if (offset < 0 || size < 0 || offset > child->length - size)
            return fd_arrow_fail(
                error, FD_ARROW_BAD_DATA,
                "row %lld: list view of %lld values at %lld is outside its child of "
                "%lld values",
                (long long)row, (long long)size, (long long)offset, (long long)child->length);
        if (size > 0) {
            low = offset < low ? offset : low;
            high = offset + size > high ? offset + size : high;
        }
    }
    return low >= high || check_range(child, low, high, NULL, error);
}

static bool check_fixed_list(const fd_arrow_array *a, int64_t lo, int64_t hi, fd_arrow_error *error)
{
    const int64_t n = a->type->list_size;
    const fd_arrow_array *child = &a->children[0];
    if (n == 0)
        return true;
    if (a->offset + hi > child->length / n)
        return fd_arrow_fail(
            error, FD_ARROW_BAD_DATA,
            "the fixed_size_list array's %lld values of %lld from %lld need %lld child "
            "values, not %lld",
            (long long)(hi - lo), (long long)n, (long long)a->offset,
            (long long)((a->offset + hi) > INT64_MAX / n ? INT64_MAX : (a->offset + hi) * n),
            (long long)child->length);
    return check_range(child, (a->offset + lo) * n, (a->offset + hi) * n, NULL, error);
}

static bool check_struct(const fd_arrow_array *a, int64_t lo, int64_t hi, const struct_mask *mask,
                         fd_arrow_error *error)
{
    const struct_mask fields_mask = {a->validity, a->offset, mask};
    for (size_t k = 0; k < a->type->n_children; k++) {
        const fd_arrow_array *child = &a->children[k];
        if (child->length < a->offset + hi)
            return fd_arrow_fail(
                error, FD_ARROW_BAD_DATA,
                "the struct array has %lld rows from %lld but its field %zu only %lld",
                (long long)a->length, (long long)a->offset, a->type->children[k].source_index,
                (long long)child->length);
        if (!check_range(child, a->offset + lo, a->offset + hi, &fields_mask, error))
            return false;
    }
    return true;
}

/* The index of the run covering slot `position` of a checked run-end array:
 * the first whose end is above it. */
static int64_t run_of(const fd_arrow_array *a, int64_t position)
{
    const fd_arrow_array *ends = &a->children[0];
    int64_t low = 0, high = ends->length - 1;
    while (low < high) {
        int64_t middle = low + (high - low) / 2;
        if (fd_arrow_load_signed(ends->values, (size_t)(ends->offset + middle), ends->type->width) >
            position)
            high = middle;
        else
            low = middle + 1;
    }
    return low;
}

/* Every run end positive and above the one before, the last covering the
 * whole array; the values child over the runs of [lo, hi). */
static bool check_run_ends(const fd_arrow_array *a, int64_t lo, int64_t hi, fd_arrow_error *error)
{
    const fd_arrow_array *ends = &a->children[0], *values = &a->children[1];
    if (ends->length == 0)
        return fd_arrow_fail(error, FD_ARROW_BAD_DATA,
                             "the run_end_encoded array has %lld rows but no runs",
                             (long long)a->length);
    if (!need_buffer(ends->values, ends, "values", ends->length, error))
        return false;
    if (ends->validity != NULL)
        for (int64_t j = 0; j < ends->length; j++) {
            if (!fd_arrow_slot_is_valid(ends, j))
                return fd_arrow_fail(error, FD_ARROW_BAD_DATA, "run end %lld is null",
                                     (long long)j);
        }
    int64_t previous = 0;
    for (int64_t j = 0; j < ends->length; j++) {
        int64_t end = fd_arrow_load_signed(ends->values, (size_t)(ends->offset + j),
                                           ends->type->width);
        if (end <= previous)
            return fd_arrow_fail(error, FD_ARROW_BAD_DATA,
                                 "run end %lld is %lld, not above the one before it (%lld)",
                                 (long long)j, (long long)end, (long long)previous);
        previous = end;
    }
    if (previous < a->offset + a->length)
        return fd_arrow_fail(
            error, FD_ARROW_BAD_DATA,
            "the runs end at %lld, before the array's offset %lld plus length %lld",
            (long long)previous, (long long)a->offset, (long long)a->length);
    if (values->length < ends->length)
        return fd_arrow_fail(error, FD_ARROW_BAD_DATA,
                             "the run_end_encoded array has %lld runs but %lld values",
                             (long long)ends->length, (long long)values->length);
    return check_range(values, run_of(a, a->offset + lo), run_of(a, a->offset + hi - 1) + 1, NULL,
                       error);
}

/* Each non-null index within the dictionary; the dictionary over the hull
 * of the indices. */
static bool check_dictionary(const fd_arrow_array *a, int64_t lo, int64_t hi,
                             const struct_mask *mask, fd_arrow_error *error)
{
    if (!need_buffer(a->values, a, "indices", hi - lo, error))
        return false;
    const fd_arrow_array *dictionary = a->dictionary;
    int64_t low = INT64_MAX, high = -1;
    for (int64_t row = lo; row < hi; row++) {
        if (skipped(a, row, mask))
            continue;
        const size_t slot = (size_t)(a->offset + row);
        bool in_range;
        int64_t index;
        if (a->type->is_signed) {
            index = fd_arrow_load_signed(a->values, slot, a->type->width);
            in_range = index >= 0 && index < dictionary->length;
        }
        else {
            uint64_t u = fd_arrow_load_unsigned(a->values, slot, a->type->width);
            in_range = u < (uint64_t)dictionary->length;
            index = in_range ? (int64_t)u : -1;
        }
        if (!in_range)
            return fd_arrow_fail(
                error, FD_ARROW_BAD_DATA,
                "row %lld: dictionary index %s%llu is outside the dictionary of %lld "
                "values",
                (long long)row, index < 0 && a->type->is_signed ? "-" : "",
                a->type->is_signed
                    ? (unsigned long long)(index < 0 ? 0 - (uint64_t)index : (uint64_t)index)
                    : (unsigned long long)fd_arrow_load_unsigned(a->values, slot, a->type->width),
                (long long)dictionary->length);
        low = index < low ? index : low;
        high = index > high ? index : high;
    }
    return low > high || check_range(dictionary, low, high + 1, NULL, error);
}

/* Everything that reading values [lo, hi) of a reads, 0 <= lo <= hi <=
 * a->length. */
static bool check_range(const fd_arrow_array *a, int64_t lo, int64_t hi, const struct_mask *mask,
                        fd_arrow_error *error)
{
    if (lo >= hi)
        return true; /* nothing is read */
    int64_t start, end;
    switch (a->type->id) {
    case FD_ARROW_NULL:
        return true;
    case FD_ARROW_BOOL:
    case FD_ARROW_INT:
    case FD_ARROW_FLOAT:
    case FD_ARROW_DECIMAL:
    case FD_ARROW_DATE:
    case FD_ARROW_TIME:
    case FD_ARROW_TIMESTAMP:
    case FD_ARROW_DURATION:
    case FD_ARROW_INTERVAL:
        return need_buffer(a->values, a, "values", hi - lo, error);
    case FD_ARROW_FIXED_BINARY:
        return a->type->width == 0 || need_buffer(a->values, a, "values", hi - lo, error);
    case FD_ARROW_BINARY:
    case FD_ARROW_LARGE_BINARY:
        if (!need_buffer(a->values, a, "offsets", hi - lo, error) ||
            !check_offsets(a, lo, hi, &start, &end, error))
            return false;
        /* Value pointers are data + offset: the end must be an address. */
        if ((uint64_t)end > (uint64_t)PTRDIFF_MAX)
            return fd_arrow_fail(error, FD_ARROW_BAD_DATA,
                                 "offset %lld is beyond the address space", (long long)end);
        if (end > start && a->data == NULL)
            return fd_arrow_fail(error, FD_ARROW_BAD_DATA,
                                 "the data buffer is null under %lld bytes of rows",
                                 (long long)(end - start));
        return true;
    case FD_ARROW_BINARY_VIEW:
        return need_buffer(a->values, a, "views", hi - lo, error) &&
               check_views(a, lo, hi, mask, error);
    case FD_ARROW_LIST:
    case FD_ARROW_LARGE_LIST:
    case FD_ARROW_MAP:
        return check_list(a, lo, hi, error);
    case FD_ARROW_LIST_VIEW:
    case FD_ARROW_LARGE_LIST_VIEW:
        return check_list_views(a, lo, hi, mask, error);
    case FD_ARROW_FIXED_LIST:
        return check_fixed_list(a, lo, hi, error);
    case FD_ARROW_STRUCT:
        return check_struct(a, lo, hi, mask, error);
    case FD_ARROW_RUN_END:
        return check_run_ends(a, lo, hi, error);
    case FD_ARROW_DICTIONARY:
        return check_dictionary(a, lo, hi, mask, error);
    }
    return true;
}

fd_arrow_array *fd_arrow_import_array(const struct ArrowArray *array, const fd_arrow_type *root,
                                      fd_arrow_error *error)
{
    fd_arrow_array *nodes = calloc(root->node_count, sizeof *nodes);
    if (nodes == NULL) {
        fd_arrow_no_memory(error);
        return NULL;
    }
    if (!import_node(array, root, nodes, error) ||
        !check_range(nodes, 0, nodes->length, NULL, error)) {
        free(nodes);
        return NULL;
    }
    return nodes;
}

void fd_arrow_array_free(fd_arrow_array *root)
{
    free(root); /* the first of the nodes */
}

/* ---- reading ----------------------------------------------------------------------- */

const fd_arrow_array *fd_arrow_resolve(const fd_arrow_array *a, int64_t *index)
{
    for (;;) {
        switch (a->type->id) {
        case FD_ARROW_NULL:
            return NULL;
        case FD_ARROW_DICTIONARY: {
            if (!fd_arrow_slot_is_valid(a, *index))
                return NULL;
            const size_t slot = (size_t)(a->offset + *index);
            *index = a->type->is_signed
                         ? fd_arrow_load_signed(a->values, slot, a->type->width)
                         : (int64_t)fd_arrow_load_unsigned(a->values, slot, a->type->width);
            a = a->dictionary;
            break;
        }
        case FD_ARROW_RUN_END:
            *index = run_of(a, a->offset + *index);
            a = &a->children[1];
            break;
        default:
            return fd_arrow_slot_is_valid(a, *index) ? a : NULL;
        }
    }
}
