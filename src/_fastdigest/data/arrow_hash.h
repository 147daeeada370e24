/* The hashing of rows (arrow_hash.c): the digest of every row of a
 * source, on one thread or several, into a digest column that the export
 * (arrow_export.h) hands out without a copy. A source says how many rows
 * there are, which are null, and what each row's bytes are: in place (a
 * string column's own buffers) or written by an encoder into a byte sink
 * (data/byte_sink.h) that the driver hashes as it fills. Plain C: no
 * Python.h. */
#ifndef FD_CORE_ARROW_HASH_H
#define FD_CORE_ARROW_HASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hash/algorithms.h"
#include "data/byte_sink.h"

/* The digests of one column: digest_len bytes a row (fixed_size_binary), or
 * with hex twice that in lowercase hex characters (utf8, or large_utf8 when
 * the characters pass 2**31 - 1 bytes); a null row is null, its slot zero
 * bytes (hex: '0' characters). Reference-counted (atomically: consumers
 * release from any thread), immutable once hashed, shared by every array
 * exported from it. */
typedef struct fd_digest_column fd_digest_column;

/* The rows to hash. The callbacks may run on several threads at once, each
 * thread on rows of its own, and must not fail: everything they read was
 * checked before. */
typedef struct fd_row_source {
    size_t length;
    const void *context;
    /* Clears bit i of validity (LSB first, (length + 7) / 8 bytes) for
     * every null row i, which gets no digest, and sets it for the others
     * (the bits past length are the driver's). NULL: no row is null. */
    void (*nulls)(const void *context, uint8_t *validity);
    /* The bytes of row `row`, not null: sets *data (NULL when *len is 0)
     * and *len to bytes that lie in place, and returns true; or writes
     * them to sink and returns false. */
    bool (*bytes)(const void *context, size_t row, fd_sink *sink, const uint8_t **data,
                  size_t *len);
} fd_row_source;

/* Allocates the digests of the rows of source, hashes them and returns them
 * with one reference, or NULL when memory runs out. Needs no interpreter,
 * so the binding runs it without the GIL. A hex column gets int32 offsets
 * where they suffice (fd_digest_hex_needs_large).
 *
 * Rows in place go to the batch driver (fd_hash_many) as they are; rows
 * written to the sink are gathered in a buffer of each thread's, of
 * FD_ARROW_SINK_BYTES, hashed by the batch driver whenever it fills, and a
 * row that outgrows the whole buffer is hashed as a stream while it is
 * written: a thread's working set is its buffer and FD_ARROW_CHUNK_ROWS
 * rows' messages (arrow_hash.c), whatever the rows.
 *
 * threads is the most threads to hash on, the calling one included (1, or
 * 0: the calling thread alone). The rows are cut into contiguous ranges,
 * one a thread (platform/parallel.h), of whole chunks of the batch driver and
 * each but the last of FD_ARROW_MIN_ROWS_PER_THREAD rows or more
 * (arrow_hash.c), so that smaller columns use fewer threads. The result is
 * the same for any threads. */
fd_digest_column *fd_digest_column_hash(enum fd_algorithm_id id, bool hex,
                                        const fd_row_source *source, size_t threads);

/* The parts of fd_digest_column_hash, for other hashings of rows into a
 * digest column (data/arrow_surrogate.h).
 *
 * A column of length rows and no nulls, with one reference, its digests
 * (and in hex its offsets) allocated but not written: each thread writes
 * its own rows after fd_digest_column_prepare_rows. NULL when memory runs
 * out. */
fd_digest_column *fd_digest_column_new(enum fd_algorithm_id id, bool hex, size_t length);

/* Readies rows [first, end) for one thread to write: their pages made
 * present at once (data/arrow_hash.c says why), and in hex their offsets
 * (and the end offset, when end is the last row) written. */
void fd_digest_column_prepare_rows(fd_digest_column *digests, size_t first, size_t end);

/* How many parts to hash length rows in, on at most threads threads (0 or
 * 1: one part), and the rows of each but the last, which has the rest: as
 * fd_digest_column_hash cuts them. */
size_t fd_arrow_split_rows(size_t length, size_t threads, size_t *part_rows);

int64_t fd_digest_column_length(const fd_digest_column *digests);
int64_t fd_digest_column_null_count(const fd_digest_column *digests);

/* Row `row`'s digest (0 <= row < length), as the export hands it out: its
 * digest_len bytes, or in hex its twice as many characters, with *len set
 * to that width; NULL for a null row. */
const uint8_t *fd_digest_column_row(const fd_digest_column *digests, int64_t row, size_t *len);

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

#endif /* FD_CORE_ARROW_HASH_H */
