/* Hashing Arrow columns in place, behind digest_array (python/data_api/arrow.c), in
 * three parts, each with its header: the import (arrow_import.h: a
 * producer's schema and arrays read and checked), the hashing of a column on
 * threads (arrow_hash.h) and the export of the digests (arrow_export.h).
 * This header holds what the three share: the C Data Interface's structs and
 * the reading of its buffers.
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
#ifndef FD_CORE_ARROW_H
#define FD_CORE_ARROW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

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

/* ---- reading the buffers ---------------------------------------------------- */

/* Buffers are read with memcpy: the specification asks producers for
 * aligned buffers, but a buffer sliced out of an IPC message or a file need
 * not be, and a misaligned int32_t * would be undefined behaviour. Arrow's
 * C interface data is in the machine's own byte order. */

static inline int64_t fd_arrow_load_int32(const uint8_t *p)
{
    int32_t value;
    memcpy(&value, p, sizeof value);
    return value;
}

static inline int64_t fd_arrow_load_int64(const uint8_t *p)
{
    int64_t value;
    memcpy(&value, p, sizeof value);
    return value;
}

/* Bit index of an Arrow bitmap (validity): least significant bit first. */
static inline bool fd_arrow_bit_is_set(const uint8_t *bitmap, size_t index)
{
    return (bitmap[index >> 3] >> (index & 7)) & 1;
}

#endif /* FD_CORE_ARROW_H */
