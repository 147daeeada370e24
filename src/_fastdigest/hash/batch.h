/* Batch hashing: many independent messages in one call (digest_many).
 *
 * A single message is bound by the latency of its compression's dependency
 * chain; independent messages are not. A multi-buffer kernel runs the
 * compressions of several messages side by side, in separate SIMD lanes
 * (AVX2: 8 MD5, SHA-1 or SHA-256 lanes, 4 SHA-512 lanes; AVX-512: 16 MD5,
 * SHA-1 or SHA-256 lanes, 8 SHA-512 lanes) or interleaved two at a time
 * through the SHA extensions, whose round instructions leave one stream
 * waiting on their latency (SHA-1, SHA-256). The batch driver (batch.c)
 * feeds the lanes of the family's active multi-buffer kernel
 * (dispatch/dispatch.h) and hashes what is left with its single-stream
 * kernel. It computes HMACs too (fd_hmac_many_using): each lane starts from
 * the keyed inner state and goes on, once its message's inner hash is done,
 * with the outer hash of the inner digest. batch_threads.c runs the driver
 * on several threads (fd_hash_many_parallel, fd_hash_many_pipelined).
 * Plain C: no Python.h. */
#ifndef FD_CORE_BATCH_H
#define FD_CORE_BATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hash/algorithms.h"
#include "hash/hmac.h"
#include "dispatch/dispatch.h"

/* One message of a batch: len bytes at data (data may be NULL when len is
 * 0), and where its digest goes (fd_algorithms[id].digest_len bytes, or
 * twice as many hex digits for a job with hex). */
typedef struct fd_message {
    const uint8_t *data;
    size_t len;
    uint8_t *digest;
} fd_message;

/* Writes the digest of every messages[i], i < count, to messages[i].digest,
 * with the family's multi-buffer kernel (dispatch.h's fd_batch_multi_kernel,
 * which settles it first, so that no batch runs a kernel the extension's
 * selection has not checked) and the single-stream kernel of
 * fd_active_kernels. Cannot fail; allocates nothing;
 * safe to call from many threads at once once the kernels are selected. */
void fd_hash_many(enum fd_algorithm_id id, const fd_message *messages, size_t count);

/* Whether the multi-buffer kernel, idle lanes and all, beats its family's
 * single-stream kernel for `busy` messages side by side: from its
 * drain_min_busy on (sixteen lanes of MD5 in AVX-512 hash a block of each
 * in the time the single-stream kernel takes for about four). The driver
 * runs fewer messages than lanes on it from there on, at the end of a batch
 * and in a batch that small. */
static inline bool fd_batch_lanes_pay(const fd_multi_kernel *multi, size_t busy)
{
    return busy >= multi->drain_min_busy && busy >= 2;
}

/* The work each thread must have for a batch to take its kernel's narrower
 * kernel (fd_batch_kernel_for_threads): the narrower kernel saves a share
 * of the time one thread's lanes take, and that share must outweigh
 * starting and joining the threads (below it, sixteen short messages on two
 * threads of eight lanes ended later than on one thread of sixteen). */
#define FD_BATCH_MIN_WORK_PER_NARROWED_THREAD ((uint64_t)4 << 20)

/* The groups of `lanes` lanes that `count` messages fill, the last one
 * perhaps in part. */
static inline size_t fd_batch_groups(size_t count, size_t lanes)
{
    return (count + lanes - 1) / lanes;
}

/* Whether multi's narrower kernel (not NULL) gives each of `threads`
 * threads a group of its lanes for `count` messages where multi leaves a
 * thread without one: multi has fewer groups than threads, the narrower
 * kernel more groups than multi, yet no more than threads. The rule for a
 * narrower kernel whose groups do not share threads: a batch's
 * (fd_batch_kernel_for_threads) and digest_files' (files/file_lanes.c). */
static inline bool fd_batch_narrower_gives_each_thread_a_group(const fd_multi_kernel *multi,
                                                               size_t count, size_t threads)
{
    const size_t groups = fd_batch_groups(count, multi->lanes);
    const size_t narrow_groups = fd_batch_groups(count, multi->narrower->lanes);
    return groups < threads && narrow_groups > groups && narrow_groups <= threads;
}

/* The multi-buffer kernel for `count` messages of `work` bytes of work
 * (FD_BATCH_MIN_WORK_PER_THREAD says how it is counted) on `threads`
 * threads: multi's narrower kernel (dispatch.h) where multi has fewer
 * groups of lanes than threads, the narrower kernel more groups, and each
 * thread FD_BATCH_MIN_WORK_PER_NARROWED_THREAD of work; and the narrower
 * kernel's groups are no more than the threads, so that each thread holds
 * a group of its own, or, with multi->narrower_shares_threads, multi's
 * groups no more than half the threads. On any number of threads, the
 * narrower kernel too where the messages are fewer than multi's lanes and
 * its own lanes pay for them, and either fit in one group of its lanes
 * (which takes less time than a group of multi's: dispatch.h) or are too
 * few for multi's lanes to pay (it then beats hashing them one at a time:
 * SHA-1's few long messages as pairs of SHA-NI streams). multi otherwise
 * (batch_threads.c gives the reasons). multi may be NULL. */
static inline const fd_multi_kernel *fd_batch_kernel_for_threads(const fd_multi_kernel *multi,
                                                                 size_t count, uint64_t work,
                                                                 size_t threads)
{
    if (multi == NULL || multi->narrower == NULL)
        return multi;
    const fd_multi_kernel *narrower = multi->narrower;
    if (count < multi->lanes && (count <= narrower->lanes || !fd_batch_lanes_pay(multi, count)) &&
        fd_batch_lanes_pay(narrower, count < narrower->lanes ? count : narrower->lanes))
        return narrower;
    if (threads < 2 || work / FD_BATCH_MIN_WORK_PER_NARROWED_THREAD < threads)
        return multi;
    if (fd_batch_narrower_gives_each_thread_a_group(multi, count, threads))
        return narrower;
    /* Its groups share threads: that pays only where each costs less than
     * twice a message's time in multi's lanes, and multi leaves at least
     * half the threads idle. */
    const size_t groups = fd_batch_groups(count, multi->lanes);
    const size_t narrow_groups = fd_batch_groups(count, narrower->lanes);
    return multi->narrower_shares_threads && 2 * groups <= threads && narrow_groups > groups
               ? narrower
               : multi;
}

/* fd_hash_many with the given multi-buffer kernel of the algorithm's family
 * instead of the active one, or with none (NULL: the single-stream kernel
 * alone), changing no global state: benchmarks compare the two. The caller
 * guarantees the CPU has multi->required_features. */
void fd_hash_many_using(const fd_multi_kernel *multi, enum fd_algorithm_id id,
                        const fd_message *messages, size_t count);

/* Writes the HMAC (RFC 2104) of every messages[i], i < count, under the key
 * of `key` (fd_hmac_init, of any algorithm; read, never changed) to
 * messages[i].digest, as fd_hmac would: the key's two keyed blocks are not
 * compressed again. Each message goes through a lane from the keyed inner
 * chain, its length field counting the keyed block before it; when its
 * inner hash is done the lane goes on from the keyed outer chain with one
 * block, the inner digest padded, and then writes the MAC. Kernels as for
 * fd_hash_many_using (multi NULL: the single-stream kernel alone); cannot
 * fail, allocates nothing, and leaves no key-derived data on the stack. */
void fd_hmac_many_using(const fd_multi_kernel *multi, const fd_hmac_state *key,
                        const fd_message *messages, size_t count);

/* fd_hmac_many_using with the family's active multi-buffer kernel. */
void fd_hmac_many(const fd_hmac_state *key, const fd_message *messages, size_t count);

/* What a batch computes for each message, for the calls below that run it
 * on threads: its digest under algorithm id (hmac NULL), or its HMAC under
 * the keyed state hmac (whose algorithm is id); on the multi-buffer kernel
 * multi (NULL: the single-stream kernel alone), as fd_hash_many_using and
 * fd_hmac_many_using take them; written as bytes, or with hex as lowercase
 * hex digits (hash/hex.h), by the thread that hashed it. Read by every
 * thread, changed by none. */
typedef struct fd_batch_job {
    const fd_multi_kernel *multi;
    enum fd_algorithm_id id;
    const fd_hmac_state *hmac;
    bool hex;
} fd_batch_job;

/* The job's work for count messages on the calling thread:
 * fd_hash_many_using or fd_hmac_many_using. */
void fd_batch_run(const fd_batch_job *job, const fd_message *messages, size_t count);

/* The least work a message costs the job, in bytes of work beside its
 * length (FD_BATCH_MIN_WORK_PER_THREAD): a block for its padding, and for
 * an HMAC another for the outer hash. */
size_t fd_batch_message_overhead(const fd_batch_job *job);

/* The least work worth a thread of its own in fd_hash_many_parallel, in
 * bytes of work: a message counts its length plus one block (two for an
 * HMAC: fd_batch_message_overhead), since each costs at least one
 * compression (its padding) and the driver's fixed cost per message. Even
 * the fastest kernel needs a hundred microseconds or more for a megabyte
 * of that, several times the tens of microseconds a thread costs to start
 * and join (platform/parallel.h), so every thread made earns its cost; less
 * work stays on the calling thread. */
#define FD_BATCH_MIN_WORK_PER_THREAD ((size_t)1 << 20)

/* fd_batch_run on up to `threads` threads, the calling one included:
 * one thread per FD_BATCH_MIN_WORK_PER_THREAD of the batch's work, at most
 * `threads`, and never more than there are messages; with one, no thread is
 * made. The messages are cut into pieces of about equal work, several per
 * thread, which the threads take one at a time until none is left, so that
 * a thread slowed down (by other processes, or by a long message) takes
 * fewer. Returns once every message is hashed, with every digest visible
 * to the caller. Cannot fail: what no other thread took (a thread that
 * could not be made, no memory for the pieces) is hashed on the calling
 * thread. The digests are the same for any threads. */
void fd_hash_many_parallel(const fd_batch_job *job, const fd_message *messages, size_t count,
                           size_t threads);

/* Prepares chunk `chunk` of a pipelined batch (fd_hash_many_pipelined) in
 * slot `slot`, on the calling thread: stores where its messages are and
 * how many, and returns true; or returns false to stop the batch (an
 * error). When it is called for a slot, the slot's previous chunk is hashed
 * and no thread reads its messages again. */
typedef bool fd_chunk_producer(void *context, size_t chunk, size_t slot,
                               const fd_message **messages, size_t *count);

/* Runs job over a batch that the calling thread produces chunk by chunk,
 * chunks 0 to chunk_count - 1 in order, on up to `threads` threads, the
 * calling one included: the other threads hash the chunks as they come while the
 * calling thread produces the next, and the calling thread hashes chunks
 * itself whenever every one of `slots` slots (at least 1) holds a chunk not
 * yet hashed, and at the end. threads + 1 slots keep every thread busy.
 * Returns true when every chunk was produced and hashed; false when
 * produce stopped, once every chunk produced before is hashed. Either way
 * no thread reads a message after it returns, and every digest written is
 * visible to the caller. Cannot fail otherwise: without threads or memory
 * for its state, the calling thread does everything. */
bool fd_hash_many_pipelined(const fd_batch_job *job, size_t chunk_count, size_t slots,
                            size_t threads, fd_chunk_producer *produce, void *context);

#endif /* FD_CORE_BATCH_H */
