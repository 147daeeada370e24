/* Hashing Arrow columns in place: the importer, validator, hasher and
 * exporter behind digest_array (python/arrow.c).
 *
 * Arrow's C Data Interface is a C ABI (three structs and their release
 * callbacks), so reading a column that pyarrow, polars, DuckDB or pandas
 * export, and handing back a column they import without a copy, needs no
 * Arrow library. The structs below are the ones the specification defines
 * (arrow.apache.org/docs/format/CDataInterface.html and CStreamInterface.html),
 * under the include guards it prescribes, so that they coexist with any other
 * copy of them.
 *
 * The C interface carries no buffer lengths: an offsets buffer is as long as
 * the row count says, a data buffer as long as the last offset says, and the
 * data buffers of a view column as long as its last buffer (the variadic
 * buffer sizes, int64 each) says. Everything derived from those is checked
 * before a byte of data is read (fd_arrow_check_array); what cannot be
 * checked is the producer's promise that the buffers are that long.
 *
 * Plain C: no Python.h, so the whole path (check, hash, export, release) runs
 * under the fuzzer (tests/fuzz/fuzz_arrow.c). */
#ifndef FD_ARROW_H
#define FD_ARROW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/algorithms.h"

#ifndef ARROW_C_DATA_INTERFACE
#define ARROW_C_DATA_INTERFACE

#define ARROW_FLAG_DICTIONARY_ORDERED 1
#define ARROW_FLAG_NULLABLE 2
#define ARROW_FLAG_MAP_KEYS_SORTED 4

struct ArrowSchema {
    const char *format;
    const char *name;
    const char *metadata;
    int64_t flags;
    int64_t n_children;
    struct ArrowSchema **children;
    struct ArrowSchema *dictionary;
    void (*release)(struct ArrowSchema *);
    void *private_data;
};

struct ArrowArray {
    int64_t length;
    int64_t null_count;
    int64_t offset;
    int64_t n_buffers;
    int64_t n_children;
    const void **buffers;
    struct ArrowArray **children;
    struct ArrowArray *dictionary;
    void (*release)(struct ArrowArray *);
    void *private_data;
};

#endif /* ARROW_C_DATA_INTERFACE */

#ifndef ARROW_C_STREAM_INTERFACE
#define ARROW_C_STREAM_INTERFACE

struct ArrowArrayStream {
    int (*get_schema)(struct ArrowArrayStream *, struct ArrowSchema *out);
    int (*get_next)(struct ArrowArrayStream *, struct ArrowArray *out);
    const char *(*get_last_error)(struct ArrowArrayStream *);
    void (*release)(struct ArrowArrayStream *);
    void *private_data;
};

#endif /* ARROW_C_STREAM_INTERFACE */

/* ---- input ----------------------------------------------------------------- */

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
    size_t length;              /* rows */
    size_t first;               /* the first row's slot in positions and validity */
    const uint8_t *validity;    /* bit per slot, LSB first; NULL: no nulls */
    /* A struct's own validity: row i is null where either bitmap says so. */
    const uint8_t *parent_validity;
    size_t parent_first;        /* the first row's bit in parent_validity */
    const uint8_t *positions;   /* int32 or int64 offsets (length + 1), or views */
    const uint8_t *data;        /* the offsets layouts' data buffer; may be NULL
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

/* ---- output ------------------------------------------------------------------ */

/* The digests of one column: digest_len bytes a row (fixed_size_binary), or
 * with hex twice that in lowercase hex characters (utf8, or large_utf8 when
 * the characters pass 2**31 - 1 bytes); a null row is null, its slot zero
 * bytes (hex: '0' characters). Reference-counted (atomically: consumers
 * release from any thread), immutable once hashed, shared by every array
 * exported from it. */
typedef struct fd_digest_column fd_digest_column;

/* Allocates the digests of column's rows, hashes them with the batch driver
 * (fd_hash_many) and returns them with one reference, or NULL when memory
 * runs out. Reads only the rows fd_arrow_check_array checked; needs no
 * interpreter, so the binding runs it without the GIL. A hex column gets
 * int32 offsets where they suffice (fd_digest_hex_needs_large).
 *
 * threads is the most threads to hash on, the calling one included (1, or
 * 0: the calling thread alone). The rows are cut into contiguous ranges,
 * one a thread (core/parallel.h), of whole chunks of the batch driver and
 * each but the last of FD_ARROW_MIN_ROWS_PER_THREAD rows or more (arrow.c:
 * 16,384), so that smaller columns use fewer threads. The result is the
 * same for any threads. */
fd_digest_column *fd_digest_column_hash(enum fd_algorithm_id id, bool hex,
                                        const fd_arrow_column *column, size_t threads);

int64_t fd_digest_column_length(const fd_digest_column *digests);
int64_t fd_digest_column_null_count(const fd_digest_column *digests);

/* Whether a hex column of this many rows needs int64 offsets. */
bool fd_digest_hex_needs_large(enum fd_algorithm_id id, int64_t length);

/* Rewrites the offsets of a hex column (row i starts at i * 2 * digest_len)
 * as int64: every array of one stream has the same type, so one that needs
 * them gives them to all. Does nothing for binary digests or offsets that
 * are int64 already. Returns false when memory runs out (the column is
 * unchanged). Only before any array is exported from the column. */
bool fd_digest_column_widen_offsets(fd_digest_column *digests);

void fd_digest_column_ref(fd_digest_column *digests);
/* Drops a reference; the last frees the column. Any thread. */
void fd_digest_column_unref(fd_digest_column *digests);

/* Fills out with a new array over digests (one more reference, dropped by
 * out->release): no copy. Returns false when memory runs out. */
bool fd_digest_column_export(fd_digest_column *digests, struct ArrowArray *out);

/* Fills out with the schema of a digest column: fixed_size_binary
 * ("w:<digest_len>"), or utf8 "u" / large_utf8 "U" for hex; nullable; name
 * copied (NULL for none). Returns false when memory runs out. */
bool fd_digest_schema_export(enum fd_algorithm_id id, bool hex, bool large, const char *name,
                             struct ArrowSchema *out);

/* Fills out with a stream yielding an array over each of digests[0..count)
 * in turn, each of that schema (one more reference to each column, dropped
 * by out->release). Returns false when memory runs out. */
bool fd_digest_stream_export(fd_digest_column *const *digests, size_t count,
                             enum fd_algorithm_id id, bool hex, bool large, const char *name,
                             struct ArrowArrayStream *out);

#endif /* FD_ARROW_H */
