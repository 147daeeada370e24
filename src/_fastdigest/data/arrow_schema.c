/* The import of a producer's schema (arrow_import.h's fd_arrow_import_type):
 * its format strings parsed, its shape checked (children, dictionaries,
 * nesting), and the whole read into one allocation of type nodes, before
 * any array of it is looked at (arrow_import.c). Each failure has its
 * message. */
#include "data/arrow_import.h"

#include <stdlib.h>
#include <string.h>

/* ---- format strings ------------------------------------------------------------ */

/* A decimal number at *p, at most max, with a leading '-' where negative is
 * true; *p is moved past it. */
static bool parse_number(const char **p, bool negative, int64_t max, int64_t *out)
{
    const char *s = *p;
    bool minus = false;
    if (negative && *s == '-') {
        minus = true;
        s++;
    }
    if (*s < '0' || *s > '9')
        return false;
    int64_t value = 0;
    for (; *s >= '0' && *s <= '9'; s++) {
        if (value > (max - (*s - '0')) / 10)
            return false;
        value = value * 10 + (*s - '0');
    }
    *out = minus ? -value : value;
    *p = s;
    return true;
}

/* The integer formats: width and signedness. */
static bool parse_int_format(const char *format, uint32_t *width, bool *is_signed)
{
    static const char letters[] = "cCsSiIlL";
    if (format[0] == '\0' || format[1] != '\0')
        return false;
    for (unsigned index = 0; index < 8; index++) {
        if (letters[index] == format[0]) {
            *width = 1u << (index / 2);
            *is_signed = index % 2 == 0;
            return true;
        }
    }
    return false;
}

static bool parse_unit(char letter, enum fd_arrow_unit *unit)
{
    switch (letter) {
    case 's':
        *unit = FD_ARROW_SECONDS;
        return true;
    case 'm':
        *unit = FD_ARROW_MILLISECONDS;
        return true;
    case 'u':
        *unit = FD_ARROW_MICROSECONDS;
        return true;
    case 'n':
        *unit = FD_ARROW_NANOSECONDS;
        return true;
    default:
        return false;
    }
}

/* "d:P,S" or "d:P,S,W". */
static bool parse_decimal(const char *format, fd_arrow_type *t)
{
    const char *p = format + 2;
    int64_t precision, scale, bits = 128;
    if (!parse_number(&p, false, INT32_MAX, &precision) || *p++ != ',' ||
        !parse_number(&p, true, INT32_MAX, &scale))
        return false;
    if (*p == ',') {
        p++;
        if (!parse_number(&p, false, 256, &bits))
            return false;
    }
    if (*p != '\0' || (bits != 32 && bits != 64 && bits != 128 && bits != 256))
        return false;
    t->id = FD_ARROW_DECIMAL;
    t->precision = (int32_t)precision;
    t->scale = (int32_t)scale;
    t->width = (uint32_t)(bits / 8);
    return true;
}

/* Fills t's id and parameters from its format string; returns the number
 * of children the type has (-1: any, a struct), or -2 for a format that is
 * not imported. */
static int64_t parse_format(const char *format, fd_arrow_type *t)
{
    enum fd_arrow_unit unit;
    int64_t number;
    const char *p;
    if (parse_int_format(format, &t->width, &t->is_signed)) {
        t->id = FD_ARROW_INT;
        return 0;
    }
    switch (format[0]) {
    case 'n':
    case 'b':
    case 'e':
    case 'f':
    case 'g':
        if (format[1] != '\0')
            return -2;
        t->id = format[0] == 'n'   ? FD_ARROW_NULL
                : format[0] == 'b' ? FD_ARROW_BOOL
                                   : FD_ARROW_FLOAT;
        t->width = format[0] == 'e' ? 2 : format[0] == 'f' ? 4 : format[0] == 'g' ? 8 : 0;
        return 0;
    case 'z':
    case 'u':
    case 'Z':
    case 'U':
        if (format[1] != '\0')
            return -2;
        t->id = (format[0] == 'z' || format[0] == 'u') ? FD_ARROW_BINARY : FD_ARROW_LARGE_BINARY;
        t->width = t->id == FD_ARROW_BINARY ? 4 : 8;
        t->is_text = format[0] == 'u' || format[0] == 'U';
        return 0;
    case 'v':
        if ((format[1] != 'z' && format[1] != 'u') || format[2] != '\0')
            return -2;
        t->id = FD_ARROW_BINARY_VIEW;
        t->width = 16;
        t->is_text = format[1] == 'u';
        return 0;
    case 'd':
        return format[1] == ':' && parse_decimal(format, t) ? 0 : -2;
    case 'w':
        p = format + 2;
        if (format[1] != ':' || !parse_number(&p, false, INT32_MAX, &number) || *p != '\0')
            return -2;
        t->id = FD_ARROW_FIXED_BINARY;
        t->width = (uint32_t)number;
        return 0;
    case 't':
        break;
    case '+':
        switch (format[1]) {
        case 'l':
        case 'L':
            if (format[2] != '\0')
                return -2;
            t->id = format[1] == 'l' ? FD_ARROW_LIST : FD_ARROW_LARGE_LIST;
            t->width = format[1] == 'l' ? 4 : 8;
            return 1;
        case 'v':
            if ((format[2] != 'l' && format[2] != 'L') || format[3] != '\0')
                return -2;
            t->id = format[2] == 'l' ? FD_ARROW_LIST_VIEW : FD_ARROW_LARGE_LIST_VIEW;
            t->width = format[2] == 'l' ? 4 : 8;
            return 1;
        case 'w':
            p = format + 3;
            if (format[2] != ':' || !parse_number(&p, false, INT32_MAX, &number) || *p != '\0')
                return -2;
            t->id = FD_ARROW_FIXED_LIST;
            t->list_size = number;
            return 1;
        case 's':
            if (format[2] != '\0')
                return -2;
            t->id = FD_ARROW_STRUCT;
            return -1;
        case 'm':
            if (format[2] != '\0')
                return -2;
            t->id = FD_ARROW_MAP;
            t->width = 4;
            return 1;
        case 'r':
            if (format[2] != '\0')
                return -2;
            t->id = FD_ARROW_RUN_END;
            return 2;
        default:
            return -2;
        }
    default:
        return -2;
    }

    /* The temporal formats, "t" and two letters (a timestamp's zone after
     * a colon). */
    if (format[1] == '\0' || format[2] == '\0')
        return -2;
    const bool short_format = format[3] == '\0';
    switch (format[1]) {
    case 'd':
        if (!short_format || (format[2] != 'D' && format[2] != 'm'))
            return -2;
        t->id = FD_ARROW_DATE;
        t->unit = format[2] == 'D' ? FD_ARROW_DAYS : FD_ARROW_MILLISECONDS;
        t->width = format[2] == 'D' ? 4 : 8;
        return 0;
    case 't':
        if (!short_format || !parse_unit(format[2], &unit))
            return -2;
        t->id = FD_ARROW_TIME;
        t->unit = unit;
        t->width = unit <= FD_ARROW_MILLISECONDS ? 4 : 8;
        return 0;
    case 's':
        if (format[3] != ':' || !parse_unit(format[2], &unit))
            return -2;
        t->id = FD_ARROW_TIMESTAMP;
        t->unit = unit;
        t->width = 8;
        t->timezone = format + 4;
        return 0;
    case 'D':
        if (!short_format || !parse_unit(format[2], &unit))
            return -2;
        t->id = FD_ARROW_DURATION;
        t->unit = unit;
        t->width = 8;
        return 0;
    case 'i':
        if (!short_format || (format[2] != 'M' && format[2] != 'D' && format[2] != 'n'))
            return -2;
        t->id = FD_ARROW_INTERVAL;
        t->unit = format[2] == 'M'   ? FD_ARROW_MONTHS
                  : format[2] == 'D' ? FD_ARROW_DAY_TIME
                                     : FD_ARROW_MONTH_DAY_NANO;
        t->width = format[2] == 'M' ? 4 : format[2] == 'D' ? 8 : 16;
        return 0;
    default:
        return -2;
    }
}

/* ---- schemas --------------------------------------------------------------------- */

typedef struct type_pool {
    fd_arrow_type *nodes;
    size_t used;
    size_t count;
} type_pool;

/* The schema's shape, before anything is allocated for it: format, children
 * and dictionary present, nesting within FD_ARROW_MAX_DEPTH. Adds the nodes
 * its tree has to *count. */
static bool count_nodes(const struct ArrowSchema *schema, unsigned depth, size_t *count,
                        fd_arrow_error *error)
{
    if (depth > FD_ARROW_MAX_DEPTH)
        return fd_arrow_fail(error, FD_ARROW_BAD_TYPE,
                             "cannot hash a type nested more than %d levels deep",
                             FD_ARROW_MAX_DEPTH);
    if (schema->format == NULL)
        return fd_arrow_fail(error, FD_ARROW_BAD_DATA, "the Arrow schema has no format string");
    if (schema->n_children < 0 || (schema->n_children > 0 && schema->children == NULL))
        return fd_arrow_fail(error, FD_ARROW_BAD_DATA,
                             "the Arrow schema of format '%.32s' lacks its children",
                             schema->format);
    if ((uint64_t)schema->n_children > SIZE_MAX / sizeof(fd_arrow_type) - *count)
        return fd_arrow_no_memory(error);
    *count += 1;
    for (int64_t k = 0; k < schema->n_children; k++) {
        if (schema->children[k] == NULL)
            return fd_arrow_fail(error, FD_ARROW_BAD_DATA,
                                 "the Arrow schema of format '%.32s' lacks child %lld",
                                 schema->format, (long long)k);
        if (!count_nodes(schema->children[k], depth + 1, count, error))
            return false;
    }
    return schema->dictionary == NULL || count_nodes(schema->dictionary, depth + 1, count, error);
}

static bool refuse_format(const struct ArrowSchema *schema, fd_arrow_error *error)
{
    const char *format = schema->format;
    const char *what = "";
    /* "+ud:" and "+us:" and their type codes. */
    if (format[0] == '+' && format[1] == 'u' && (format[2] == 'd' || format[2] == 's') &&
        (format[3] == ':' || format[3] == '\0'))
        what = format[2] == 'd' ? " (a dense union)" : " (a sparse union)";
    if (schema->name != NULL && schema->name[0] != '\0')
        return fd_arrow_fail(error, FD_ARROW_BAD_TYPE,
                             "cannot hash Arrow format '%.32s'%s of field '%.64s'", format, what,
                             schema->name);
    return fd_arrow_fail(error, FD_ARROW_BAD_TYPE, "cannot hash Arrow format '%.32s'%s", format,
                         what);
}

static fd_arrow_type *take_nodes(type_pool *pool, size_t n)
{
    fd_arrow_type *nodes = pool->nodes + pool->used;
    for (size_t k = 0; k < n; k++)
        nodes[k].node_index = pool->used + k;
    pool->used += n;
    return nodes;
}

static bool fill_type(const struct ArrowSchema *schema, fd_arrow_type *t, type_pool *pool,
                      const size_t *fields, size_t field_count, fd_arrow_error *error);

/* The values' type of a dictionary-encoded field: t becomes the DICTIONARY
 * node over its indices. */
static bool fill_dictionary(const struct ArrowSchema *schema, fd_arrow_type *t, type_pool *pool,
                            fd_arrow_error *error)
{
    if (!parse_int_format(schema->format, &t->width, &t->is_signed))
        return fd_arrow_fail(
            error, FD_ARROW_BAD_DATA,
            "a dictionary-encoded field has indices of format '%.32s', not an integer",
            schema->format);
    if (schema->n_children != 0)
        return fd_arrow_fail(error, FD_ARROW_BAD_DATA,
                             "a dictionary-encoded field's schema has %lld children, not 0",
                             (long long)schema->n_children);
    t->id = FD_ARROW_DICTIONARY;
    t->dictionary = take_nodes(pool, 1);
    t->dictionary->source_index = 0;
    return fill_type(schema->dictionary, t->dictionary, pool, NULL, 0, error);
}

static bool fill_type(const struct ArrowSchema *schema, fd_arrow_type *t, type_pool *pool,
                      const size_t *fields, size_t field_count, fd_arrow_error *error)
{
    t->format = schema->format;
    t->name = schema->name;
    t->timezone = "";
    if (schema->dictionary != NULL)
        return fill_dictionary(schema, t, pool, error);

    const int64_t children = parse_format(schema->format, t);
    if (children == -2)
        return refuse_format(schema, error);
    if (children >= 0 && schema->n_children != children)
        return fd_arrow_fail(error, FD_ARROW_BAD_DATA,
                             "the Arrow schema of format '%.32s' has %lld children, not %lld",
                             schema->format, (long long)schema->n_children, (long long)children);
    t->source_children = (size_t)schema->n_children;
    t->n_children = fields != NULL ? field_count : (size_t)schema->n_children;
    t->children = take_nodes(pool, t->n_children);
    for (size_t k = 0; k < t->n_children; k++) {
        const size_t source = fields != NULL ? fields[k] : k;
        t->children[k].source_index = source;
        if (!fill_type(schema->children[source], &t->children[k], pool, NULL, 0, error))
            return false;
    }
    if (t->id == FD_ARROW_MAP &&
        (t->children[0].id != FD_ARROW_STRUCT || t->children[0].n_children != 2))
        return fd_arrow_fail(
            error, FD_ARROW_BAD_DATA,
            "a map's entries must be a struct of two fields, not Arrow format '%.32s'",
            t->children[0].format);
    if (t->id == FD_ARROW_RUN_END && (t->children[0].id != FD_ARROW_INT ||
                                      !t->children[0].is_signed || t->children[0].width == 1))
        return fd_arrow_fail(
            error, FD_ARROW_BAD_DATA,
            "the run ends of a run-end encoded field are int16, int32 or int64, not "
            "Arrow format '%.32s'",
            t->children[0].format);
    return true;
}

fd_arrow_type *fd_arrow_import_type(const struct ArrowSchema *schema, const size_t *fields,
                                    size_t field_count, fd_arrow_error *error)
{
    if (schema->release == NULL) {
        fd_arrow_fail(error, FD_ARROW_BAD_DATA, "the Arrow schema is released");
        return NULL;
    }
    size_t count = 0;
    if (fields == NULL) {
        if (!count_nodes(schema, 0, &count, error))
            return NULL;
    }
    else {
        if (schema->format == NULL || strcmp(schema->format, "+s") != 0 ||
            schema->dictionary != NULL) {
            fd_arrow_fail(error, FD_ARROW_BAD_TYPE,
                          "expected a table, record batch or struct (Arrow format '+s'), not Arrow "
                          "format '%.32s'",
                          schema->format != NULL ? schema->format : "?");
            return NULL;
        }
        if (schema->n_children < 0 || (schema->n_children > 0 && schema->children == NULL)) {
            fd_arrow_fail(error, FD_ARROW_BAD_DATA, "the Arrow struct schema lacks its fields");
            return NULL;
        }
        if (field_count > SIZE_MAX / sizeof(fd_arrow_type) / 2) {
            fd_arrow_no_memory(error);
            return NULL;
        }
        count = 1;
        for (size_t k = 0; k < field_count; k++) {
            if (fields[k] >= (uint64_t)schema->n_children || schema->children[fields[k]] == NULL) {
                fd_arrow_fail(error, FD_ARROW_BAD_DATA, "the Arrow struct schema lacks field %zu",
                              fields[k]);
                return NULL;
            }
            if (!count_nodes(schema->children[fields[k]], 1, &count, error))
                return NULL;
        }
    }

    type_pool pool = {calloc(count, sizeof(fd_arrow_type)), 0, count};
    if (pool.nodes == NULL) {
        fd_arrow_no_memory(error);
        return NULL;
    }
    fd_arrow_type *root = take_nodes(&pool, 1);
    if (!fill_type(schema, root, &pool, fields, field_count, error)) {
        free(pool.nodes);
        return NULL;
    }
    root->node_count = pool.used;
    return root;
}

void fd_arrow_type_free(fd_arrow_type *root)
{
    free(root); /* the pool's first node */
}
