/* The import of a table's flat columns (arrow_flat.c), for surrogate_key
 * (data/arrow_surrogate.h): a field of a struct schema (a table's or record
 * batch's) read as one of the flat types below, and that field's array,
 * one child of a struct array, checked before a byte of its values is read.
 * Flat: fixed-width values, bits or one of arrow_import.h's string layouts;
 * no children, no dictionary.
 *
 * This is all surrogate_key needs of an import, in the form its texts
 * (data/arrow_text.h) read: a column's rows as slots of one buffer, with
 * its own and its struct's validity. The string layouts are checked by
 * arrow_import.c's fd_arrow_import_array, and the fixed-width columns'
 * extents by its fd_arrow_check_extent. Plain C: no Python.h. */
#ifndef FD_CORE_ARROW_FLAT_H
#define FD_CORE_ARROW_FLAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "data/arrow.h"
#include "data/arrow_import.h"

/* How a string or binary column's rows are found. */
enum fd_arrow_layout {
    FD_ARROW_OFFSETS32, /* binary "z", utf8 "u": int32 offsets into one data buffer */
    FD_ARROW_OFFSETS64, /* large_binary "Z", large_utf8 "U": int64 offsets */
    FD_ARROW_VIEWS,     /* binary_view "vz", utf8_view "vu": 16-byte views */
};

/* The rows of one field of a struct array, checked: pointers into the
 * producer's buffers, which the producer keeps alive until the array is
 * released. */
typedef struct fd_arrow_column {
    enum fd_arrow_layout layout;
    size_t length;           /* rows */
    size_t first;            /* the first row's slot in positions and validity */
    const uint8_t *validity; /* bit per slot, LSB first; NULL: no nulls */
    /* A struct's own validity: row i is null where either bitmap says so. */
    const uint8_t *parent_validity;
    size_t parent_first;         /* the first row's bit in parent_validity */
    const uint8_t *positions;    /* values, or int32 or int64 offsets (length + 1), or views */
    const uint8_t *data;         /* the offsets layouts' data buffer; may be NULL
                                 * when every row is empty */
    const void *const *variadic; /* the views' data buffers */
    size_t variadic_count;
} fd_arrow_column;

/* Where row's bytes are, in a string column fd_flat_check_field accepted:
 * *data is NULL only when *len is 0. */
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

enum fd_flat_kind {
    FD_FLAT_NULL,     /* "n": every row null; no buffers are read */
    FD_FLAT_BOOL,     /* "b": one bit a value, least significant first */
    FD_FLAT_SIGNED,   /* "c" "s" "i" "l": int8 to int64 */
    FD_FLAT_UNSIGNED, /* "C" "S" "I" "L": uint8 to uint64 */
    FD_FLAT_DATE32,   /* "tdD": int32 days since 1970-01-01 */
    FD_FLAT_DATE64,   /* "tdm": int64 milliseconds since 1970-01-01 */
    FD_FLAT_DECIMAL,  /* "d:P,S" or "d:P,S,W": W-bit two's complement / 10^S */
    FD_FLAT_STRING,   /* "u" "U" "vu" */
    FD_FLAT_BINARY,   /* "z" "Z" "vz" */
};

typedef struct fd_flat_type {
    enum fd_flat_kind kind;
    size_t width;                /* bytes a value: integers, dates, decimals */
    enum fd_arrow_layout layout; /* strings and binaries */
    int precision, scale;        /* decimals: as the format says */
} fd_flat_type;

/* Reads field's format as a flat type. A format of another type is
 * FD_ARROW_BAD_TYPE with a message naming it, as is a dictionary-encoded
 * field and a decimal whose format does not parse or whose precision does
 * not fit its width (1-9 for 32 bits, 18 for 64, 38 for 128, 76 for 256);
 * a released schema or one without a format is FD_ARROW_BAD_DATA. */
bool fd_flat_read_field(const struct ArrowSchema *field, fd_flat_type *type, fd_arrow_error *error);

/* Checks a struct array (a record batch) before any of its fields: its
 * extent (fd_arrow_check_extent), 1 buffer (its validity) and fields
 * children, none of them NULL. */
bool fd_flat_check_struct(const struct ArrowArray *array, int64_t fields, fd_arrow_error *error);

/* The rows of one field of a struct array, checked: rows.length is the
 * struct's row count; a row is null where the field's or the struct's
 * validity says so (fd_flat_is_null). Fixed-width values and bits are read
 * at rows.positions, slot rows.first + row; strings as arrow_import.h
 * describes. */
typedef struct fd_flat_column {
    fd_flat_type type;
    fd_arrow_column rows;
} fd_flat_column;

/* Checks field index of a struct array that fd_flat_check_struct accepted,
 * of the type fd_flat_read_field read, and fills column. Checked: the
 * child's extent; that it has the struct's rows from the struct's offset
 * on; its buffer count (2 for fixed width and bits; strings as
 * fd_arrow_check_array requires, which checks their offsets or views); a
 * values buffer under any rows. What cannot be checked is the producer's
 * promise that a values buffer is as long as its rows. Returns false with
 * FD_ARROW_BAD_DATA and a message on the first failure. */
bool fd_flat_check_field(const struct ArrowArray *parent, size_t index, const fd_flat_type *type,
                         fd_flat_column *column, fd_arrow_error *error);

static inline bool fd_flat_is_null(const fd_flat_column *column, size_t row)
{
    const fd_arrow_column *rows = &column->rows;
    return column->type.kind == FD_FLAT_NULL ||
           (rows->validity != NULL && !fd_arrow_bit_is_set(rows->validity, rows->first + row)) ||
           (rows->parent_validity != NULL &&
            !fd_arrow_bit_is_set(rows->parent_validity, rows->parent_first + row));
}

#endif /* FD_CORE_ARROW_FLAT_H */
