/* The import of an Arrow column (arrow_import.c): a producer's schema read
 * as one of the six hashed types, and each of its arrays checked, before
 * the hashing reads a byte of it, against everything the C interface lets a
 * producer get wrong (core/arrow.h). Neither function allocates; each
 * reports what it refuses as false and a message in an fd_arrow_error.
 * Plain C: no Python.h. */
#ifndef FD_CORE_ARROW_IMPORT_H
#define FD_CORE_ARROW_IMPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/arrow.h"

/* How a column's rows are found. */
enum fd_arrow_layout {
    FD_ARROW_OFFSETS32, /* binary "z", utf8 "u": int32 offsets into one data buffer */
    FD_ARROW_OFFSETS64, /* large_binary "Z", large_utf8 "U": int64 offsets */
    FD_ARROW_VIEWS,     /* binary_view "vz", utf8_view "vu": 16-byte views */
};

/* What went wrong, for the binding to raise: a column of a type digest_array
 * does not hash (TypeError), or buffers that contradict themselves
 * (ValueError). */
enum fd_arrow_status {
    FD_ARROW_OK,
    FD_ARROW_BAD_TYPE,
    FD_ARROW_BAD_DATA,
};

typedef struct fd_arrow_error {
    enum fd_arrow_status status;
    char message[256];
} fd_arrow_error;

/* The input's type as its schema gives it. */
typedef struct fd_arrow_input_type {
    enum fd_arrow_layout layout;
    /* A struct with exactly one field (a one-column table or record batch):
     * its arrays are struct arrays whose one child is the column. */
    bool in_struct;
    /* The column's name (the field's in a struct), NULL if none; points into
     * the schema, which must outlive its use. */
    const char *name;
} fd_arrow_input_type;

/* Reads a schema: one of the six hashed types, bare or as the one field of a
 * struct. Anything else is FD_ARROW_BAD_TYPE with a message naming the
 * format string; a schema that is released or malformed (no format, a struct
 * without its child) is FD_ARROW_BAD_DATA. */
bool fd_arrow_check_schema(const struct ArrowSchema *schema, fd_arrow_input_type *type,
                           fd_arrow_error *error);

/* The rows of one input array, checked: pointers into the producer's buffers,
 * which the producer keeps alive until the array is released. */
typedef struct fd_arrow_column {
    enum fd_arrow_layout layout;
    size_t length;           /* rows */
    size_t first;            /* the first row's slot in positions and validity */
    const uint8_t *validity; /* bit per slot, LSB first; NULL: no nulls */
    /* A struct's own validity: row i is null where either bitmap says so. */
    const uint8_t *parent_validity;
    size_t parent_first;         /* the first row's bit in parent_validity */
    const uint8_t *positions;    /* int32 or int64 offsets (length + 1), or views */
    const uint8_t *data;         /* the offsets layouts' data buffer; may be NULL
                                 * when every row is empty */
    const void *const *variadic; /* the views' data buffers */
    size_t variadic_count;
} fd_arrow_column;

/* Checks an array of the given type (as fd_arrow_check_schema read it) and
 * fills column, reading the offsets or views but no data. Checked: the
 * array is not released; length and offset are not negative and their sum
 * plus one fits an int64 and the address space; n_buffers is the type's
 * (3, or for views 3 plus the data buffers); the offsets or views buffer is
 * there whenever rows are; offsets start at 0 or more and never decrease,
 * so that every row lies within the data buffer; a null data buffer only
 * under rows that are all empty; each view of a non-null row (a null row's
 * view is never read) has a non-negative length and, beyond 12 bytes, a
 * buffer index below the number of data buffers and an offset and length
 * within that buffer's size from the sizes buffer; a size is not negative,
 * and a data buffer of non-zero size is not null. For a struct: one buffer
 * (its validity) and one child, the child long enough for the struct's
 * rows. A validity bitmap of NULL, or a null_count of 0, means no nulls.
 * Returns false with FD_ARROW_BAD_DATA and a message on the first failure. */
bool fd_arrow_check_array(const struct ArrowArray *array, const fd_arrow_input_type *type,
                          fd_arrow_column *column, fd_arrow_error *error);

/* What every array must satisfy before its length and offset are used: it
 * is not released; length and offset are not negative; slots up to offset +
 * length, plus one (an offsets buffer has one more entry than rows), of up
 * to 16 bytes (a view) fit a size_t; a positive n_buffers has its buffers
 * array. what names the array in the message ("column", "struct"). */
bool fd_arrow_check_extent(const struct ArrowArray *array, const char *what, fd_arrow_error *error);

/* Where row's bytes are, in a column fd_arrow_check_array accepted: *data is
 * NULL only when *len is 0. */
static inline void fd_arrow_row_bytes(const fd_arrow_column *column, size_t row,
                                      const uint8_t **data, size_t *len)
{
    const size_t slot = column->first + row;
    int64_t start, end;
    switch (column->layout) {
    case FD_ARROW_OFFSETS32:
        start = fd_arrow_load_int32(column->positions + slot * 4);
        end = fd_arrow_load_int32(column->positions + slot * 4 + 4);
        break;
    case FD_ARROW_OFFSETS64:
        start = fd_arrow_load_int64(column->positions + slot * 8);
        end = fd_arrow_load_int64(column->positions + slot * 8 + 8);
        break;
    case FD_ARROW_VIEWS:
    default: {
        const uint8_t *view = column->positions + slot * 16;
        *len = (size_t)fd_arrow_load_int32(view);
        if (*len <= 12)
            *data = view + 4;
        else
            *data = (const uint8_t *)column->variadic[fd_arrow_load_int32(view + 8)] +
                    fd_arrow_load_int32(view + 12);
        return;
    }
    }
    *len = (size_t)(end - start);
    /* No arithmetic on a null data buffer (allowed under empty rows). */
    *data = *len != 0 ? column->data + start : NULL;
}

#endif /* FD_CORE_ARROW_IMPORT_H */
