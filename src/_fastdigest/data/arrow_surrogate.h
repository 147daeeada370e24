/* dbt's surrogate keys (arrow_surrogate.c), behind surrogate_key
 * (python/data_api/surrogate.c): for every row of a table, the hex digest of its
 * columns' texts (data/arrow_text.h) joined by a separator, a null written
 * as a token, which is what dbt_utils.generate_surrogate_key compiles to on
 * DuckDB, PostgreSQL and Spark:
 *
 *   md5(cast(coalesce(cast(a as TEXT), '_dbt_utils_surrogate_key_null_')
 *            || '-' || coalesce(cast(b as TEXT), '...') as TEXT))
 *
 * Rows are built in a buffer of each thread's own, FD_SURROGATE_TEXT_BYTES
 * long, and hashed many at a time by the batch driver; a row longer than
 * that buffer is hashed piece by piece from the columns' own bytes. So the
 * memory of a call is the result and a fixed working set per thread,
 * whatever the rows. Plain C: no Python.h. */
#ifndef FD_CORE_ARROW_SURROGATE_H
#define FD_CORE_ARROW_SURROGATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hash/algorithms.h"
#include "data/arrow_flat.h"
#include "data/arrow_hash.h"

/* The key of a call: the algorithm, the separator between columns and the
 * token for a null, both as bytes (UTF-8). */
typedef struct fd_surrogate_spec {
    enum fd_algorithm_id id;
    const uint8_t *separator;
    size_t separator_len;
    const uint8_t *null_token;
    size_t null_token_len;
} fd_surrogate_spec;

/* Why fd_surrogate_key_hash returned NULL. */
typedef struct fd_surrogate_failure {
    bool out_of_memory;
    /* Else a value without a text the engines agree on (a date outside
     * years 1 to 9999): its row and column (an index into columns). */
    size_t row;
    size_t column;
} fd_surrogate_failure;

/* Hashes the key of every row of columns[0..count) (count >= 1, every one
 * checked by fd_flat_check_field on one struct array, so of the same
 * length, and of a type fd_text_refusal accepts) into a hex digest column
 * of no nulls, with one reference; or returns NULL and fills failure. Reads
 * only the rows the checks accepted; needs no interpreter. threads as for
 * fd_digest_column_hash: the rows cut into the same parts, one a thread;
 * the keys are the same for any threads. When several rows cannot be
 * written, the failure names the first. */
fd_digest_column *fd_surrogate_key_hash(const fd_surrogate_spec *spec,
                                        const fd_flat_column *columns, size_t count, size_t threads,
                                        fd_surrogate_failure *failure);

#endif /* FD_CORE_ARROW_SURROGATE_H */
