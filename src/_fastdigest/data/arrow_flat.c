/* The import of a table's flat columns (arrow_flat.h): a field's format
 * read as a flat type, and its array checked within its struct array. */
#include "data/arrow_flat.h"

#include <string.h>

/* ---- schema ------------------------------------------------------------------ */

/* A non-negative decimal number of at most 9 digits at *text, which moves
 * past it; false when there is none. */
static bool parse_count(const char **text, int *value)
{
    const char *p = *text;
    int digits = 0;
    *value = 0;
    while (*p >= '0' && *p <= '9' && digits < 9) {
        *value = *value * 10 + (*p - '0');
        p++;
        digits++;
    }
    if (digits == 0 || (*p >= '0' && *p <= '9'))
        return false;
    *text = p;
    return true;
}

/* "d:P,S" (128 bits) or "d:P,S,W", S possibly negative. */
static bool parse_decimal(const char *format, fd_flat_type *type)
{
    const char *p = format + 2;
    int precision, scale, bits = 128;
    bool negative = false;
    if (!parse_count(&p, &precision) || *p++ != ',')
        return false;
    if (*p == '-') {
        negative = true;
        p++;
    }
    if (!parse_count(&p, &scale))
        return false;
    if (*p == ',') {
        p++;
        if (!parse_count(&p, &bits))
            return false;
    }
    if (*p != '\0')
        return false;
    const int max_precision = bits == 32    ? 9
                              : bits == 64  ? 18
                              : bits == 128 ? 38
                              : bits == 256 ? 76
                                            : 0;
    if (precision < 1 || precision > max_precision)
        return false;
    type->kind = FD_FLAT_DECIMAL;
    type->width = (size_t)bits / 8;
    type->precision = precision;
    type->scale = negative ? -scale : scale;
    return true;
}

static bool read_format(const char *format, fd_flat_type *type)
{
    static const struct {
        const char *format;
        enum fd_flat_kind kind;
        size_t width;
    } fixed[] = {
        {"n", FD_FLAT_NULL, 0},     {"b", FD_FLAT_BOOL, 0},     {"c", FD_FLAT_SIGNED, 1},
        {"s", FD_FLAT_SIGNED, 2},   {"i", FD_FLAT_SIGNED, 4},   {"l", FD_FLAT_SIGNED, 8},
        {"C", FD_FLAT_UNSIGNED, 1}, {"S", FD_FLAT_UNSIGNED, 2}, {"I", FD_FLAT_UNSIGNED, 4},
        {"L", FD_FLAT_UNSIGNED, 8}, {"tdD", FD_FLAT_DATE32, 4}, {"tdm", FD_FLAT_DATE64, 8},
        {"u", FD_FLAT_STRING, 0},   {"U", FD_FLAT_STRING, 0},   {"vu", FD_FLAT_STRING, 0},
        {"z", FD_FLAT_BINARY, 0},   {"Z", FD_FLAT_BINARY, 0},   {"vz", FD_FLAT_BINARY, 0},
    };
    *type = (fd_flat_type){.kind = FD_FLAT_NULL};
    if (strncmp(format, "d:", 2) == 0)
        return parse_decimal(format, type);
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
        if (strcmp(format, fixed[i].format) == 0) {
            type->kind = fixed[i].kind;
            type->width = fixed[i].width;
            type->layout = format[0] == 'v'                       ? FD_ARROW_VIEWS
                           : format[0] == 'U' || format[0] == 'Z' ? FD_ARROW_OFFSETS64
                                                                  : FD_ARROW_OFFSETS32;
            return true;
        }
    }
    return false;
}

bool fd_flat_read_field(const struct ArrowSchema *field, fd_flat_type *type, fd_arrow_error *error)
{
    if (field->release == NULL)
        return fd_arrow_fail(error, FD_ARROW_BAD_DATA, "the Arrow schema is released");
    if (field->format == NULL)
        return fd_arrow_fail(error, FD_ARROW_BAD_DATA, "the Arrow schema has no format string");
    if (field->dictionary != NULL)
        return fd_arrow_fail(error, FD_ARROW_BAD_TYPE,
                             "a dictionary-encoded column (Arrow format '%.32s')", field->format);
    if (!read_format(field->format, type))
        return fd_arrow_fail(error, FD_ARROW_BAD_TYPE, "Arrow format '%.32s'", field->format);
    return true;
}

/* ---- arrays ------------------------------------------------------------------- */

bool fd_flat_check_struct(const struct ArrowArray *array, int64_t fields, fd_arrow_error *error)
{
    if (!fd_arrow_check_extent(array, "struct", error))
        return false;
    if (array->n_buffers != 1)
        return fd_arrow_fail(error, FD_ARROW_BAD_DATA, "a struct array has 1 buffer, not %lld",
                             (long long)array->n_buffers);
    if (array->n_children != fields || (fields > 0 && array->children == NULL))
        return fd_arrow_fail(error, FD_ARROW_BAD_DATA,
                             "the struct array has %lld children where its schema has %lld fields",
                             (long long)array->n_children, (long long)fields);
    for (int64_t i = 0; i < fields; i++) {
        if (array->children[i] == NULL)
            return fd_arrow_fail(error, FD_ARROW_BAD_DATA,
                                 "the struct array's child %lld is missing", (long long)i);
    }
    return true;
}

static void release_nothing(struct ArrowSchema *schema)
{
    (void)schema;
}

/* The string layouts: arrow_import.c's check of a struct of one child,
 * this field, with the struct's offset, rows and validity; the column's
 * rows then as the checked tree has them. */
static bool check_strings(const struct ArrowArray *parent, size_t index, const fd_flat_type *type,
                          fd_arrow_column *rows, fd_arrow_error *error)
{
    static const char *const formats[3] = {"z", "Z", "vz"};
    struct ArrowSchema field = {.format = formats[type->layout], .release = release_nothing};
    struct ArrowSchema *fields[1] = {&field};
    const struct ArrowSchema table = {
        .format = "+s", .n_children = 1, .children = fields, .release = release_nothing};
    fd_arrow_type *root = fd_arrow_import_type(&table, NULL, 0, error);
    if (root == NULL)
        return false;
    struct ArrowArray *children[1] = {parent->children[index]};
    struct ArrowArray one_field = *parent;
    one_field.n_children = 1;
    one_field.children = children;
    fd_arrow_array *checked = fd_arrow_import_array(&one_field, root, error);
    const bool valid = checked != NULL;
    if (valid) {
        const fd_arrow_array *column = &checked->children[0];
        *rows = (fd_arrow_column){
            .layout = type->layout,
            .length = (size_t)checked->length,
            .first = (size_t)(column->offset + checked->offset),
            .validity = column->validity,
            .parent_validity = checked->validity,
            .parent_first = (size_t)checked->offset,
            .positions = column->values,
            .data = column->data,
            .variadic = column->variadic,
            .variadic_count = column->variadic_count,
        };
    }
    fd_arrow_array_free(checked);
    fd_arrow_type_free(root);
    return valid;
}

bool fd_flat_check_field(const struct ArrowArray *parent, size_t index, const fd_flat_type *type,
                         fd_flat_column *column, fd_arrow_error *error)
{
    *column = (fd_flat_column){.type = *type};
    if (type->kind == FD_FLAT_STRING || type->kind == FD_FLAT_BINARY)
        return check_strings(parent, index, type, &column->rows, error);

    const struct ArrowArray *child = parent->children[index];
    if (!fd_arrow_check_extent(child, "column", error))
        return false;
    if (child->length < parent->offset + parent->length)
        return fd_arrow_fail(error, FD_ARROW_BAD_DATA,
                             "the struct array has %lld rows from %lld but its column only %lld",
                             (long long)parent->length, (long long)parent->offset,
                             (long long)child->length);
    /* fd_arrow_check_extent bounds slots for 16 bytes each; a decimal256's
     * are 32. */
    if (type->width > 16 && (uint64_t)(child->offset + child->length) > SIZE_MAX / type->width)
        return fd_arrow_fail(error, FD_ARROW_BAD_DATA,
                             "the column array's offset %lld plus length %lld is out of range",
                             (long long)child->offset, (long long)child->length);
    fd_arrow_column *rows = &column->rows;
    rows->length = (size_t)parent->length;
    rows->first = (size_t)(child->offset + parent->offset);
    rows->parent_first = (size_t)parent->offset;
    if (parent->length == 0 || type->kind == FD_FLAT_NULL)
        return true; /* nothing is read */
    if (parent->null_count != 0)
        rows->parent_validity = parent->buffers[0];
    if (child->n_buffers != 2)
        return fd_arrow_fail(error, FD_ARROW_BAD_DATA, "a %s column has 2 buffers, not %lld",
                             type->kind == FD_FLAT_BOOL ? "boolean" : "fixed-width",
                             (long long)child->n_buffers);
    if (child->null_count != 0)
        rows->validity = child->buffers[0];
    rows->positions = child->buffers[1];
    if (rows->positions == NULL)
        return fd_arrow_fail(error, FD_ARROW_BAD_DATA, "the values buffer is null under %lld rows",
                             (long long)parent->length);
    return true;
}
