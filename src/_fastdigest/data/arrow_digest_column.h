/* The layout of a digest column (arrow_hash.h), for the files that need
 * it: arrow_hash.c, which builds and frees it, arrow_surrogate.c, which
 * writes surrogate keys into one, and arrow_export.c, which hands its
 * buffers out. Everything else goes through arrow_hash.h's functions.
 * It completes arrow_hash.h's struct without including it, so that the
 * two stay one way round: arrow_hash.c includes this. Plain C: no
 * Python.h. */
#ifndef FD_CORE_ARROW_DIGEST_COLUMN_H
#define FD_CORE_ARROW_DIGEST_COLUMN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hash/algorithms.h"
#include "platform/atomic.h"

struct fd_digest_column {
    fd_refcount refs;
    enum fd_algorithm_id id;
    bool hex;
    bool large; /* hex: int64 offsets */
    int64_t length;
    int64_t null_count;
    size_t row_width;  /* digest_len, or twice that in hex */
    uint8_t *validity; /* NULL when no row is null */
    uint8_t *values;
    void *offsets; /* hex only */
};

#endif /* FD_CORE_ARROW_DIGEST_COLUMN_H */
