/* The import of Arrow columns of any type: a producer's schema read into a
 * type tree (arrow_schema.c), and each of its arrays into a tree of the
 * same shape whose every buffer and child was checked, before anything
 * reads a byte of its data, against everything the C interface lets a
 * producer get wrong (data/arrow.h). What reads the values, digest_array's
 * and digest_rows' encoding (arrow_encode.h) or any other, goes through the
 * checked trees and the accessors at the end of this header, and reads
 * nothing else. Plain C: no Python.h. */
#ifndef FD_CORE_ARROW_IMPORT_H
#define FD_CORE_ARROW_IMPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "data/arrow.h"
#include "kernels/compiler.h"

/* What went wrong, for the binding to raise: a type that is not imported
 * (TypeError), buffers or structs that contradict themselves (ValueError),
 * or no memory for the trees (MemoryError). */
enum fd_arrow_status {
    FD_ARROW_OK,
    FD_ARROW_BAD_TYPE,
    FD_ARROW_BAD_DATA,
    FD_ARROW_NO_MEMORY,
};

typedef struct fd_arrow_error {
    enum fd_arrow_status status;
    char message[256];
} fd_arrow_error;

/* Writes the message into error, sets its status and returns false, for
 * `return fd_arrow_fail(...)` in the import's checks; fd_arrow_no_memory
 * with NO_MEMORY's message. */
FD_PRINTF_LIKE(3, 4)
bool fd_arrow_fail(fd_arrow_error *error, enum fd_arrow_status status, const char *format, ...);
bool fd_arrow_no_memory(fd_arrow_error *error);

/* ---- types ------------------------------------------------------------------ */

/* One per layout of the C Data Interface's format strings (the format in
 * the comment). Extension types arrive as their storage type: their name
 * is metadata, which the import does not read. Unions ("+ud:", "+us:") are
 * refused. */
enum fd_arrow_type_id {
    FD_ARROW_NULL,            /* n */
    FD_ARROW_BOOL,            /* b: one bit a value */
    FD_ARROW_INT,             /* c C s S i I l L */
    FD_ARROW_FLOAT,           /* e f g */
    FD_ARROW_DECIMAL,         /* d:P,S and d:P,S,W (W 32, 64, 128 or 256) */
    FD_ARROW_DATE,            /* tdD (int32 days), tdm (int64 milliseconds) */
    FD_ARROW_TIME,            /* tts ttm (int32), ttu ttn (int64) */
    FD_ARROW_TIMESTAMP,       /* tss:ZONE tsm: tsu: tsn: (int64) */
    FD_ARROW_DURATION,        /* tDs tDm tDu tDn (int64) */
    FD_ARROW_INTERVAL,        /* tiM tiD tin */
    FD_ARROW_FIXED_BINARY,    /* w:N */
    FD_ARROW_BINARY,          /* z u: int32 offsets into one data buffer */
    FD_ARROW_LARGE_BINARY,    /* Z U: int64 offsets */
    FD_ARROW_BINARY_VIEW,     /* vz vu: 16-byte views */
    FD_ARROW_LIST,            /* +l: int32 offsets into the child */
    FD_ARROW_LARGE_LIST,      /* +L */
    FD_ARROW_LIST_VIEW,       /* +vl: int32 offsets and sizes */
    FD_ARROW_LARGE_LIST_VIEW, /* +vL */
    FD_ARROW_FIXED_LIST,      /* +w:N */
    FD_ARROW_STRUCT,          /* +s */
    FD_ARROW_MAP,             /* +m: a list of a two-field struct */
    FD_ARROW_RUN_END,         /* +r: run ends (int16/32/64) and values */
    FD_ARROW_DICTIONARY,      /* an integer format with a dictionary */
};

/* The unit of dates, times, timestamps and durations; an interval's kind. */
enum fd_arrow_unit {
    FD_ARROW_SECONDS,
    FD_ARROW_MILLISECONDS,
    FD_ARROW_MICROSECONDS,
    FD_ARROW_NANOSECONDS,
    FD_ARROW_DAYS,           /* date32 */
    FD_ARROW_MONTHS,         /* interval: int32 months */
    FD_ARROW_DAY_TIME,       /* interval: int32 days, int32 milliseconds */
    FD_ARROW_MONTH_DAY_NANO, /* interval: int32 months, int32 days, int64 nanoseconds */
};

/* A node of a type tree: one field of a schema. */
typedef struct fd_arrow_type {
    enum fd_arrow_type_id id;
    /* Bytes a value of the fixed-width types (INT to INTERVAL, and the N of
     * FIXED_BINARY; 0 for BOOL, which has bits); the width of the offsets
     * (and sizes) of the binary, list and list-view types, 4 or 8, and 16
     * for BINARY_VIEW's views; the width of a dictionary's indices. */
    uint32_t width;
    bool is_signed; /* INT and a DICTIONARY's indices */
    bool is_text;   /* the utf8 formats u, U and vu */
    enum fd_arrow_unit unit;
    int32_t precision, scale; /* DECIMAL */
    int64_t list_size;        /* FIXED_LIST's N */
    /* Point into the schema, which must outlive the tree: the format
     * string, the field's name (NULL if none) and a timestamp's zone (""
     * when it has none). */
    const char *format;
    const char *name;
    const char *timezone;
    /* The child types (a struct's fields; a list's, map's and fixed-size
     * list's element, a map's being a two-field struct; a run-end type's run
     * ends and values), contiguous. */
    struct fd_arrow_type *children;
    size_t n_children;
    /* Which of the parent array's children this node reads: its position
     * among them, but for the fields a root struct keeps (fd_arrow_import_type). */
    size_t source_index;
    /* How many children the schema, and so each array, has: n_children,
     * but for a root struct that keeps some of its fields. */
    size_t source_children;
    struct fd_arrow_type *dictionary; /* DICTIONARY: the values' type */
    size_t node_index;                /* this node's place in its tree's nodes */
    size_t node_count;                /* the root: how many nodes the tree has */
} fd_arrow_type;

/* Nesting deeper than this is refused (BAD_TYPE): the checks and the
 * encoders recurse once a level, and a schema could otherwise loop. */
#define FD_ARROW_MAX_DEPTH 64

/* Reads schema into a new type tree (free it with fd_arrow_type_free), or
 * returns NULL with error set: BAD_TYPE naming the format string of a type
 * that is not imported; BAD_DATA for a schema that is released or
 * malformed (no format, a missing child, the wrong number of children, a
 * dictionary on a format that is no integer, run ends that are no int16,
 * int32 or int64); NO_MEMORY.
 *
 * With fields (field_count of them), schema must be a struct (BAD_TYPE
 * otherwise), and the root keeps only those of its fields, in that order,
 * each given as its position among the schema's children (a position may
 * repeat; each must be below schema->n_children): the fields of a table
 * that digest_rows hashes. A field not kept is never read, so its type
 * needs no import. With fields NULL, every field is kept. */
fd_arrow_type *fd_arrow_import_type(const struct ArrowSchema *schema, const size_t *fields,
                                    size_t field_count, fd_arrow_error *error);
void fd_arrow_type_free(fd_arrow_type *root);

/* ---- arrays ----------------------------------------------------------------- */

/* A node of a checked array: the buffers of one ArrowArray, as its type
 * reads them. Value i (0 <= i < length) is in slot offset + i of every
 * buffer. Children are indexed as arrays of their own (their offsets
 * apply): a struct's value i is value offset + i of each child; a list's
 * the child's values over fd_arrow_list_range; a dictionary's the
 * dictionary's value at the index; a run-end array's the values child's
 * value of the run that covers slot offset + i. */
typedef struct fd_arrow_array {
    const fd_arrow_type *type;
    int64_t length;
    int64_t offset;
    const uint8_t *validity; /* bit per slot, LSB first; NULL: no nulls */
    /* The fixed-width types' values (BOOL's bits); the offsets of the
     * binary, list and map types; the views of BINARY_VIEW; the offsets of
     * the list-view types; a dictionary's indices. */
    const uint8_t *values;
    const uint8_t *sizes;          /* the list-view types' sizes */
    const uint8_t *data;           /* BINARY's and LARGE_BINARY's data; may be NULL
                           * when every value read is empty */
    const void *const *variadic;   /* BINARY_VIEW's data buffers */
    const uint8_t *variadic_sizes; /* and their sizes, int64 each */
    size_t variadic_count;
    struct fd_arrow_array *children; /* as the type's, contiguous */
    struct fd_arrow_array *dictionary;
} fd_arrow_array;

/* Imports array as root's type (fd_arrow_import_type) into a new checked
 * tree (free it with fd_arrow_array_free; it points into array, which must
 * outlive it), or returns NULL with error set: BAD_DATA with a message on
 * the first thing that fails, NO_MEMORY. Reads the offsets, sizes, views,
 * run ends and dictionary indices, and no other data. Checked, for every
 * node:
 *
 * - the array is not released; its length and offset are not negative,
 *   and slots up to their sum, times the widest a slot is, fit the address
 *   space; n_buffers and n_children are its type's, the children and a
 *   dictionary are there (and only where the type has them);
 * - where values are read, each buffer they are read from is not NULL;
 * - offsets (binary, list, map) start at 0 or more and never decrease
 *   (the format requires it of null slots too), a list's end within its
 *   child; each non-null list view's offset and size are not negative and
 *   end within its child; each non-null binary view as digest_array has
 *   always checked it (a length not negative, beyond 12 bytes a buffer
 *   index and a range within the data buffers' sizes); a fixed-size list's
 *   child holds N values a slot; a struct's children hold its slots;
 *   run ends are positive, strictly increasing and cover the array, with a
 *   values child as long as the run ends and no null run end; each
 *   non-null dictionary index is at least 0 and below the dictionary's
 *   length;
 * - and each child (and dictionary) over the range of it that those
 *   reach, recursively.
 *
 * A validity bitmap of NULL, or a null_count of 0, means no nulls. What
 * cannot be checked is the producer's promise that each buffer is as long
 * as the lengths and offsets say. */
fd_arrow_array *fd_arrow_import_array(const struct ArrowArray *array, const fd_arrow_type *root,
                                      fd_arrow_error *error);
void fd_arrow_array_free(fd_arrow_array *root);

/* What fd_arrow_import_array checks of every array before its length and
 * offset are used, for a reader of one array's own struct (arrow_flat.c's
 * fixed-width columns): it is not released; length and offset are not
 * negative; slots up to offset + length, plus one, of up to 16 bytes fit
 * the address space; a positive n_buffers has its buffers array. what
 * names the array in the message ("column", "struct"). */
bool fd_arrow_check_extent(const struct ArrowArray *array, const char *what, fd_arrow_error *error);

/* ---- reading values of a checked array ----------------------------------------- */

/* Whether value i of a has its own validity bit set (a NULL-type array's
 * values are all null, and a dictionary's or run-end array's nullness is
 * that of the value it leads to: fd_arrow_resolve tells). */
static inline bool fd_arrow_slot_is_valid(const fd_arrow_array *a, int64_t i)
{
    return a->validity == NULL || fd_arrow_bit_is_set(a->validity, (size_t)(a->offset + i));
}

/* The array holding value *index of a once dictionaries and run ends are
 * followed (a itself for other types), with *index set to the value's
 * index in it; NULL when the value is null at any level. */
const fd_arrow_array *fd_arrow_resolve(const fd_arrow_array *a, int64_t *index);

/* The integer in slot `slot` of a buffer of width-byte integers. */
static inline int64_t fd_arrow_load_signed(const uint8_t *buffer, size_t slot, uint32_t width)
{
    switch (width) {
    case 1:
        return (int8_t)buffer[slot];
    case 2: {
        int16_t value;
        memcpy(&value, buffer + 2 * slot, 2);
        return value;
    }
    case 4:
        return fd_arrow_load_int32(buffer + 4 * slot);
    default:
        return fd_arrow_load_int64(buffer + 8 * slot);
    }
}

static inline uint64_t fd_arrow_load_unsigned(const uint8_t *buffer, size_t slot, uint32_t width)
{
    switch (width) {
    case 1:
        return buffer[slot];
    case 2: {
        uint16_t value;
        memcpy(&value, buffer + 2 * slot, 2);
        return value;
    }
    case 4: {
        uint32_t value;
        memcpy(&value, buffer + 4 * slot, 4);
        return value;
    }
    default: {
        uint64_t value;
        memcpy(&value, buffer + 8 * slot, 8);
        return value;
    }
    }
}

/* Value i of an INT array (its values read as is: a uint64 above INT64_MAX
 * comes back as its bits), or of a DATE, TIME, TIMESTAMP or DURATION
 * array (the count of its unit). */
static inline int64_t fd_arrow_int_value(const fd_arrow_array *a, int64_t i)
{
    const size_t slot = (size_t)(a->offset + i);
    if (a->type->id == FD_ARROW_INT && !a->type->is_signed)
        return (int64_t)fd_arrow_load_unsigned(a->values, slot, a->type->width);
    return fd_arrow_load_signed(a->values, slot, a->type->width);
}

/* The bytes of value i of a FIXED_BINARY, BINARY, LARGE_BINARY or
 * BINARY_VIEW array (a string's UTF-8). *data may be NULL when *len is 0. */
static inline void fd_arrow_bytes_value(const fd_arrow_array *a, int64_t i, const uint8_t **data,
                                        size_t *len)
{
    const size_t slot = (size_t)(a->offset + i);
    switch (a->type->id) {
    case FD_ARROW_FIXED_BINARY:
        *len = a->type->width;
        *data = *len != 0 ? a->values + slot * a->type->width : NULL;
        return;
    case FD_ARROW_BINARY_VIEW: {
        const uint8_t *view = a->values + 16 * slot;
        *len = (size_t)fd_arrow_load_int32(view);
        if (*len <= 12)
            *data = view + 4;
        else
            *data = (const uint8_t *)a->variadic[fd_arrow_load_int32(view + 8)] +
                    fd_arrow_load_int32(view + 12);
        return;
    }
    default: {
        const bool large = a->type->id == FD_ARROW_LARGE_BINARY;
        const int64_t start = large ? fd_arrow_load_int64(a->values + 8 * slot)
                                    : fd_arrow_load_int32(a->values + 4 * slot);
        const int64_t end = large ? fd_arrow_load_int64(a->values + 8 * slot + 8)
                                  : fd_arrow_load_int32(a->values + 4 * slot + 4);
        *len = (size_t)(end - start);
        /* No arithmetic on a null data buffer (allowed under empty values). */
        *data = *len != 0 ? a->data + start : NULL;
        return;
    }
    }
}

/* The child range [*start, *end) of value i of a LIST, LARGE_LIST, MAP,
 * LIST_VIEW, LARGE_LIST_VIEW or FIXED_LIST array. */
static inline void fd_arrow_list_range(const fd_arrow_array *a, int64_t i, int64_t *start,
                                       int64_t *end)
{
    const size_t slot = (size_t)(a->offset + i);
    switch (a->type->id) {
    case FD_ARROW_FIXED_LIST:
        *start = (int64_t)slot * a->type->list_size;
        *end = *start + a->type->list_size;
        return;
    case FD_ARROW_LIST_VIEW:
    case FD_ARROW_LARGE_LIST_VIEW:
        *start = fd_arrow_load_signed(a->values, slot, a->type->width);
        *end = *start + fd_arrow_load_signed(a->sizes, slot, a->type->width);
        return;
    default:
        *start = fd_arrow_load_signed(a->values, slot, a->type->width);
        *end = fd_arrow_load_signed(a->values, slot + 1, a->type->width);
        return;
    }
}

#endif /* FD_CORE_ARROW_IMPORT_H */
