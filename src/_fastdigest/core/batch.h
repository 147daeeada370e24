/* Batch hashing: many independent messages in one call (digest_many).
 *
 * A single message is bound by the latency of its compression's dependency
 * chain; independent messages are not. A multi-buffer kernel runs the
 * compressions of several messages side by side, in separate SIMD lanes
 * (AVX2: 8 MD5, SHA-1 or SHA-256 lanes, 4 SHA-512 lanes; AVX-512: 16 MD5,
 * SHA-1 or SHA-256 lanes, 8 SHA-512 lanes) or interleaved two at a time through the SHA extensions,
 * whose round instructions leave one stream waiting on their latency (SHA-1,
 * SHA-256). The batch driver (batch.c) feeds the lanes of the family's
 * active multi-buffer kernel (dispatch/dispatch.h) and hashes what is left
 * with its single-stream kernel. Plain C: no Python.h. */
#ifndef FD_CORE_BATCH_H
#define FD_CORE_BATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/algorithms.h"
#include "dispatch/dispatch.h"

/* One message of a batch: len bytes at data (data may be NULL when len is
 * 0), and where its digest goes (fd_algorithms[id].digest_len bytes). */
typedef struct fd_message {
    const uint8_t *data;
    size_t len;
    uint8_t *digest;
} fd_message;

/* Writes the digest of every messages[i], i < count, to messages[i].digest,
 * with the multi-buffer kernel of fd_active_multi_kernels and the
 * single-stream kernel of fd_active_kernels. Cannot fail; allocates nothing;
 * safe to call from many threads at once once the kernels are selected. */
void fd_hash_many(enum fd_algorithm_id id, const fd_message *messages, size_t count);

/* fd_hash_many with the given multi-buffer kernel of the algorithm's family
 * instead of the active one, or with none (NULL: the single-stream kernel
 * alone), changing no global state: benchmarks compare the two. The caller
 * guarantees the CPU has multi->required_features. */
void fd_hash_many_using(const fd_multi_kernel *multi, enum fd_algorithm_id id,
                        const fd_message *messages, size_t count);

#endif /* FD_CORE_BATCH_H */
