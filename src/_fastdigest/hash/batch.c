/* The batch driver: many messages through the multi-buffer kernels' lanes.
 *
 * Lanes stay full the way Intel's multi-buffer hashing managers keep them
 * full (isa-l_crypto's *_mb_mgr): each lane holds one message, and a kernel
 * call advances every lane by the fewest blocks any lane has left in its
 * current run. A lane whose message is done takes the next message of the
 * batch at once, so messages of equal block count move through the lanes
 * in step, and messages of different lengths never leave a lane idle. This
 * needs no sorting, no scratch memory and no second pass, and it keeps the
 * batch's order. When no message is left to take, the messages still in
 * flight (at most lanes - 1) go on in the multi-buffer kernel while enough
 * lanes are busy for it to pay, the idle lanes hashing zeros, and are then
 * finished one at a time with the single-stream kernel (drain_lanes).
 *
 * A message is two runs of blocks: its whole blocks, compressed straight
 * from the caller's memory, then its tail (the last partial block, the 0x80
 * marker, zeros and the length field: one or two blocks) from a small buffer
 * in the lane. A short message is copied into that buffer whole, tail
 * included, and is one run. The padding is the same as buffer.h's
 * fd_block_pad; it is built here in one go because the whole message is at
 * hand.
 *
 * An HMAC batch (fd_hmac_many_using) runs the same lanes from the key's
 * inner state, whose keyed block comes before each message (its length
 * field counts that block). A lane whose inner hash is done does not emit
 * it: it goes on at once with a third run, the outer hash's one block (the
 * inner digest, padded) from the keyed outer chain, in the same kernel
 * calls as the other lanes' messages, so the outer hashes need no pass of
 * their own and the lanes stay full. The driver is instantiated once for
 * plain digests and once for HMACs (`keyed`, a constant like the family). */
#include "hash/batch.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "platform/atomic.h"
#include "platform/parallel.h"
#include "kernels/compiler.h"
#include "kernels/endian.h"

/* ---- the driver -------------------------------------------------------- */

/* A message whose padded length is at most this many blocks is copied into
 * its lane whole, so that it is one run and one kernel call, not two (its
 * whole blocks, then its tail). With the copies written out inline this is
 * as fast as reading the whole blocks in place, and reading them in place
 * from a message of one block, with two calls, was slower. */
#define SHORT_MESSAGE_BLOCKS 4
/* A lane's buffer holds a message's tail, one or two blocks, and a call
 * takes at most SHORT_MESSAGE_BLOCKS blocks of idle_lane_blocks. */
_Static_assert(SHORT_MESSAGE_BLOCKS >= 2, "a lane's buffer holds a two-block tail");

/* A lane's message in the driver. Where its current run is, is the
 * batch's (runs[], below). */
typedef struct lane {
    size_t run_blocks; /* blocks left in the current run, never 0 while busy */
    /* The blocks in `buffer`: the tail (1 or 2), or a short message whole
     * (up to SHORT_MESSAGE_BLOCKS). */
    size_t tail_blocks;
    uint8_t *digest;    /* where the lane's message's digest goes */
    bool in_tail;       /* the current run is the one in `buffer`, the last */
    bool in_outer_hash; /* an HMAC's lane, on its outer block (in `buffer`) */
    bool busy;
    uint8_t buffer[SHORT_MESSAGE_BLOCKS * FD_MAX_BLOCK_LEN];
} lane;

typedef struct batch {
    const fd_message *messages;
    size_t digest_len;
    fd_kernel single; /* fd_active_kernels[family], read once */
    /* Each lane's start: the algorithm's IV is its chain, or for an HMAC
     * batch the key's inner state after its keyed block. */
    fd_hash_state initial;
    const fd_hash_state *outer; /* an HMAC batch's keyed outer state */
    fd_lane_chains chains;
    /* The next block of each lane's current run, laid out as the kernel
     * takes them, so that a call passes this array as it is. Copied out of
     * the lanes before each call, as it once was, the pointers were loaded
     * 16 bytes at a time (GCC pairs two lanes), each load spanning a
     * pointer and the count beside it that had been stored separately:
     * store forwarding failed on every call, a large share of
     * digest_array's time for short rows with two SHA-NI streams. */
    const uint8_t *runs[FD_BATCH_MAX_LANES];
    lane lanes[FD_BATCH_MAX_LANES];
} batch;

/* Every function below takes the family (and `keyed`: an HMAC batch) as an
 * argument and is inlined into run_batch, which run_job calls with
 * constants: each family gets its own copy of the driver, in which block
 * lengths, padding and chain sizes (hash/family.h's description of the
 * family) are constants. That turns the division by the block length into a shift and
 * every copy and fill into a few fixed-size moves written out inline. The
 * driver written once for all families paid a 64-bit division and library
 * calls of memcpy and memset for every message, a large share of the time
 * of a short one. */
static FD_ALWAYS_INLINE size_t block_len_of(enum fd_family family)
{
    return fd_family(family)->block_len;
}

/* The block count of the padded tail of a len-byte message: the last
 * len % block_len bytes, 0x80 and the length field, rounded up to blocks. */
static FD_ALWAYS_INLINE size_t tail_block_count(enum fd_family family, size_t len)
{
    const size_t length_field_len = fd_family(family)->length_field_len;
    const size_t partial = len & (block_len_of(family) - 1);

    return partial + 1 + length_field_len <= block_len_of(family) ? 1 : 2;
}

/* Copies n bytes, 0 < n < 128, in pieces of fixed size (a copy of variable
 * length compiles to a library call): 16 bytes at a time and then one last
 * 16, 8, 4 or 2 that ends at n, overlapping what is already copied. */
static FD_ALWAYS_INLINE void copy_partial_block(uint8_t *dst, const uint8_t *src, size_t n)
{
    assert(n > 0 && n < FD_MAX_BLOCK_LEN);
    if (n >= 16) {
        for (size_t i = 0; i + 16 < n; i += 16)
            memcpy(dst + i, src + i, 16);
        memcpy(dst + n - 16, src + n - 16, 16);
    }
    else if (n >= 8) {
        memcpy(dst, src, 8);
        memcpy(dst + n - 8, src + n - 8, 8);
    }
    else if (n >= 4) {
        memcpy(dst, src, 4);
        memcpy(dst + n - 4, src + n - 4, 4);
    }
    else {
        dst[0] = src[0];
        if (n >= 2)
            memcpy(dst + n - 2, src + n - 2, 2);
    }
}

/* Writes the padded tail of a len-byte message into tail: the last
 * len % block_len bytes, 0x80, zeros, and the bit length of the message and
 * the prefix_len bytes hashed before it (an HMAC's keyed block, whole
 * blocks) in the family's length field, as buffer.h's fd_stream_final
 * pads. Returns its block count. */
static FD_ALWAYS_INLINE size_t build_tail(enum fd_family family, const uint8_t *data, size_t len,
                                          size_t prefix_len, uint8_t *tail)
{
    const size_t block_len = block_len_of(family);
    const size_t partial = len & (block_len - 1);
    const size_t blocks = tail_block_count(family, len);

    memset(tail, 0, block_len);
    if (blocks == 2)
        memset(tail + block_len, 0, block_len);
    if (partial != 0)
        copy_partial_block(tail, data + (len - partial), partial);
    tail[partial] = 0x80;
    fd_store_length_field(family, tail + blocks * block_len, (uint64_t)len + prefix_len);
    return blocks;
}

static FD_ALWAYS_INLINE void set_initial_chain(batch *b, enum fd_family family, unsigned index)
{
    fd_copy_chain(family, fd_lane_chain(family, &b->chains, index),
                  fd_state_const_chain(family, &b->initial));
}

static FD_ALWAYS_INLINE void start_lane(batch *b, enum fd_family family, bool keyed, unsigned index,
                                        const fd_message *m)
{
    const size_t block_len = block_len_of(family);
    const size_t prefix_len = keyed ? block_len : 0;
    lane *l = &b->lanes[index];
    size_t whole_blocks = m->len / block_len;

    assert(m->data != NULL || m->len == 0);
    assert(m->digest != NULL);
    set_initial_chain(b, family, index);
    l->digest = m->digest;
    l->in_outer_hash = false;
    l->busy = true;
    if (whole_blocks + tail_block_count(family, m->len) <= SHORT_MESSAGE_BLOCKS) {
        /* Short: copied whole, block by block, one run from the lane's
         * buffer. */
        for (size_t i = 0; i < whole_blocks; i++)
            memcpy(l->buffer + i * block_len, m->data + i * block_len, block_len);
        l->tail_blocks = whole_blocks + build_tail(family, m->data, m->len, prefix_len,
                                                   l->buffer + whole_blocks * block_len);
        whole_blocks = 0;
    }
    else {
        l->tail_blocks = build_tail(family, m->data, m->len, prefix_len, l->buffer);
    }
    if (whole_blocks != 0) {
        b->runs[index] = m->data;
        l->run_blocks = whole_blocks;
        l->in_tail = false;
    }
    else {
        b->runs[index] = l->buffer;
        l->run_blocks = l->tail_blocks;
        l->in_tail = true;
    }
}

/* An HMAC lane whose inner hash is done goes on with the outer hash: the
 * inner digest, padded as the message after the keyed outer block, is its
 * last run, one block in the lane's buffer, from the keyed outer chain. */
static FD_ALWAYS_INLINE void start_outer_hash(batch *b, enum fd_family family, unsigned index)
{
    const size_t digest_len = fd_family_digest_len(family, b->digest_len);
    lane *l = &b->lanes[index];
    void *chain = fd_lane_chain(family, &b->chains, index);

    fd_store_digest(family, l->buffer, chain, digest_len);
    fd_pad_one_digest_block(family, digest_len, l->buffer);
    fd_copy_chain(family, chain, fd_state_const_chain(family, b->outer));
    b->runs[index] = l->buffer;
    l->run_blocks = 1;
    l->in_outer_hash = true;
}

/* Moves a lane nblocks further; returns true when its message is done. */
static FD_ALWAYS_INLINE bool advance_lane(batch *b, enum fd_family family, bool keyed,
                                          unsigned index, size_t nblocks)
{
    lane *l = &b->lanes[index];
    b->runs[index] += nblocks * block_len_of(family);
    l->run_blocks -= nblocks;
    if (l->run_blocks != 0)
        return false;
    if (l->in_tail) {
        if (!keyed || l->in_outer_hash)
            return true;
        start_outer_hash(b, family, index);
        return false;
    }
    b->runs[index] = l->buffer;
    l->run_blocks = l->tail_blocks;
    l->in_tail = true;
    return false;
}

/* Writes the lane's digest straight to its destination, word by word: a
 * digest first composed on the stack and then copied was compiled into
 * narrow stores followed by a wide reload, which stalls on store
 * forwarding. sha224, sha384 and the SHA-512/t variants keep a prefix. */
static FD_ALWAYS_INLINE void emit_digest(batch *b, enum fd_family family, unsigned index)
{
    fd_store_digest(family, b->lanes[index].digest, fd_lane_chain(family, &b->chains, index),
                    fd_family_digest_len(family, b->digest_len));
    b->lanes[index].busy = false;
}

static FD_ALWAYS_INLINE void compress_single(batch *b, enum fd_family family, unsigned index,
                                             const uint8_t *blocks, size_t nblocks)
{
    fd_call_blocks(family, &b->single, fd_lane_chain(family, &b->chains, index), blocks, nblocks);
}

/* What the kernel reads in a lane that has no message, in the last rounds
 * of a batch (drain_lanes): zeros, as many blocks as a call then takes. */
static const uint8_t idle_lane_blocks[SHORT_MESSAGE_BLOCKS * FD_MAX_BLOCK_LEN];

/* One call of the multi-buffer kernel; lanes without a message (only
 * while draining, some_idle) read idle_lane_blocks. */
static FD_ALWAYS_INLINE void compress_lanes(batch *b, enum fd_family family,
                                            const fd_multi_kernel *kernel, size_t nblocks,
                                            bool some_idle)
{
    const uint8_t *idle_runs[FD_BATCH_MAX_LANES];
    const uint8_t *const *runs = b->runs;

    if (some_idle) {
        for (unsigned i = 0; i < kernel->lanes; i++)
            idle_runs[i] = b->lanes[i].busy ? b->runs[i] : idle_lane_blocks;
        runs = idle_runs;
    }
    fd_call_blocks_multi(family, kernel, &b->chains, runs, nblocks);
}

/* Finishes a lane's message with the single-stream kernel. */
static FD_ALWAYS_INLINE void finish_lane(batch *b, enum fd_family family, bool keyed,
                                         unsigned index)
{
    lane *l = &b->lanes[index];

    compress_single(b, family, index, b->runs[index], l->run_blocks);
    if (!l->in_tail)
        compress_single(b, family, index, l->buffer, l->tail_blocks);
    if (keyed && !l->in_outer_hash) {
        start_outer_hash(b, family, index);
        compress_single(b, family, index, l->buffer, 1);
    }
    emit_digest(b, family, index);
}

/* How far the driver reads ahead for kernels of few lanes. Two SHA-NI
 * streams read memory too slowly to wake the hardware prefetcher early
 * enough: kilobyte messages in a batch far larger than the caches hashed
 * markedly slower than the same batch in cache. Loading the first kilobyte
 * of the message that a lane will take next, while the current ones are
 * hashed, closes that gap; for kernels of 4 to 16 lanes it made things
 * slower (their own streams keep the memory busy, and the extra lines crowd
 * out the L1), so they are left alone. */
#define PREFETCH_MAX_LANES 2
#define PREFETCH_MAX_BYTES 1024

static FD_ALWAYS_INLINE void prefetch_message(const fd_message *m)
{
    const size_t len = m->len < PREFETCH_MAX_BYTES ? m->len : PREFETCH_MAX_BYTES;
    for (size_t offset = 0; offset < len; offset += 64)
        FD_PREFETCH(m->data + offset);
}

/* The end of a batch: no message is left to take, and some lanes are
 * idle. While enough lanes are busy (the kernel's drain_min_busy) the
 * multi-buffer kernel still beats the single-stream one, idle lanes and
 * all: sixteen lanes of MD5 in AVX-512 hash a block of each in the time the
 * single-stream kernel takes for about four, so a batch, or a chunk of
 * digest_many's, would otherwise end with up to fifteen messages at a
 * quarter of the speed. Idle lanes hash zeros (idle_lane_blocks) into
 * chains nobody reads, so a call takes at most SHORT_MESSAGE_BLOCKS blocks.
 * Below that many busy lanes, the messages left are finished one at a
 * time. */
static FD_ALWAYS_INLINE void drain_lanes(batch *b, enum fd_family family, bool keyed,
                                         const fd_multi_kernel *multi)
{
    const unsigned lanes = multi->lanes;
    unsigned busy = 0;

    for (unsigned i = 0; i < lanes; i++)
        busy += b->lanes[i].busy;
    while (busy >= multi->drain_min_busy && busy >= 2) {
        size_t nblocks = SHORT_MESSAGE_BLOCKS;
        for (unsigned i = 0; i < lanes; i++) {
            if (b->lanes[i].busy && b->lanes[i].run_blocks < nblocks)
                nblocks = b->lanes[i].run_blocks;
        }
        compress_lanes(b, family, multi, nblocks, true);
        for (unsigned i = 0; i < lanes; i++) {
            if (b->lanes[i].busy && advance_lane(b, family, keyed, i, nblocks)) {
                emit_digest(b, family, i);
                busy--;
            }
        }
    }
    for (unsigned i = 0; i < lanes; i++) {
        if (b->lanes[i].busy)
            finish_lane(b, family, keyed, i);
    }
}

/* The batch on the multi-buffer kernel while messages are left to take,
 * then on the single-stream kernel; returns the number of lanes used. */
static FD_ALWAYS_INLINE unsigned run_batch(batch *b, enum fd_family family, bool keyed,
                                           const fd_multi_kernel *multi, size_t count)
{
    const fd_message *const messages = b->messages;
    size_t next = 0;
    unsigned lanes_used = count != 0 ? 1 : 0;

    if (multi != NULL && count >= multi->lanes) {
        const unsigned lanes = multi->lanes;
        lanes_used = lanes;
        for (unsigned i = 0; i < lanes; i++)
            start_lane(b, family, keyed, i, &messages[next++]);
        bool all_busy = true;
        while (all_busy) {
            size_t nblocks = b->lanes[0].run_blocks;
            for (unsigned i = 1; i < lanes; i++) {
                if (b->lanes[i].run_blocks < nblocks)
                    nblocks = b->lanes[i].run_blocks;
            }
            compress_lanes(b, family, multi, nblocks, false);
            for (unsigned i = 0; i < lanes; i++) {
                if (!advance_lane(b, family, keyed, i, nblocks))
                    continue;
                emit_digest(b, family, i);
                if (next < count) {
                    /* The message this lane takes after this one. */
                    if (lanes <= PREFETCH_MAX_LANES && next + lanes < count)
                        prefetch_message(&messages[next + lanes]);
                    start_lane(b, family, keyed, i, &messages[next++]);
                }
                else {
                    all_busy = false;
                }
            }
        }
        drain_lanes(b, family, keyed, multi);
    }
    for (; next < count; next++) {
        start_lane(b, family, keyed, 0, &messages[next]);
        finish_lane(b, family, keyed, 0);
    }
    return lanes_used;
}

void fd_hash_many(enum fd_algorithm_id id, const fd_message *messages, size_t count)
{
    fd_hash_many_using(fd_batch_multi_kernel(fd_algorithms[id].family), id, messages, count);
}

/* The batch of fd_hash_many_using (key NULL) or fd_hmac_many_using. */
static void run_job(const fd_multi_kernel *multi, enum fd_algorithm_id id, const fd_hmac_state *key,
                    const fd_message *messages, size_t count)
{
    const fd_algorithm *algorithm = &fd_algorithms[id];
    batch b;
    unsigned lanes_used = 0;

    assert((unsigned)id < FD_ALGORITHM_COUNT);
    assert(messages != NULL || count == 0);
    /* The caller's guarantee, and what the lanes hold. */
    assert(multi == NULL || (multi->lanes >= 2 && multi->lanes <= FD_BATCH_MAX_LANES &&
                             (multi->required_features & ~fd_cpu_detected_features()) == 0));
    b.messages = messages;
    b.digest_len = algorithm->digest_len;
    b.single = fd_active_kernels[algorithm->family];
    if (key != NULL) {
        /* The lanes start after the keyed block, whose length their length
         * fields count (build_tail's prefix_len). */
        assert(key->algorithm == algorithm);
        assert(fd_state_count(algorithm->family, &key->inner) == algorithm->block_len);
        memcpy(&b.initial, &key->inner, algorithm->state_len);
        b.outer = &key->outer;
    }
    else {
        algorithm->init(&b.initial);
        b.outer = NULL;
    }

    switch (algorithm->family) {
#define RUN_BATCH_CASE(name, NAME, ...)                                                  \
    case FD_FAMILY_##NAME:                                                               \
        lanes_used = key != NULL ? run_batch(&b, FD_FAMILY_##NAME, true, multi, count)   \
                                 : run_batch(&b, FD_FAMILY_##NAME, false, multi, count); \
        break;
        FD_FAMILIES(RUN_BATCH_CASE)
#undef RUN_BATCH_CASE
    case FD_FAMILY_COUNT:
        break;
    }

    /* The lanes' buffers held message bytes, the chains message-derived
     * state (and the keyed chains, as good as the key): wiped as fd_hash
     * wipes its state, but only the lanes used (all sixteen are 9 KiB, more
     * work than a small batch's hashing). */
    fd_secure_zero(b.lanes, lanes_used * sizeof b.lanes[0]);
    fd_secure_zero(&b.chains, sizeof b.chains);
    if (key != NULL)
        fd_secure_zero(&b.initial, algorithm->state_len);
}

void fd_hash_many_using(const fd_multi_kernel *multi, enum fd_algorithm_id id,
                        const fd_message *messages, size_t count)
{
    run_job(multi, id, NULL, messages, count);
}

void fd_hmac_many_using(const fd_multi_kernel *multi, const fd_hmac_state *key,
                        const fd_message *messages, size_t count)
{
    run_job(multi, (enum fd_algorithm_id)(key->algorithm - fd_algorithms), key, messages, count);
}

void fd_hmac_many(const fd_hmac_state *key, const fd_message *messages, size_t count)
{
    fd_hmac_many_using(fd_batch_multi_kernel(key->algorithm->family), key, messages, count);
}

void fd_batch_run(const fd_batch_job *job, const fd_message *messages, size_t count)
{
    assert(job->hmac == NULL || job->hmac->algorithm == &fd_algorithms[job->id]);
    run_job(job->multi, job->id, job->hmac, messages, count);
}

size_t fd_batch_message_overhead(const fd_batch_job *job)
{
    return fd_algorithms[job->id].block_len * (job->hmac != NULL ? 2 : 1);
}

/* ---- many threads -------------------------------------------------------- */

/* Pieces per thread: enough that the threads end close together (a thread
 * that finds no piece left waits at most one piece for the others), few
 * enough that each piece is long next to the idle lanes that end every call
 * of the driver (drain_lanes). */
#define PIECES_PER_THREAD 32

/* A bound on the pieces, and so on the threads, of one call: far more than
 * any machine has CPUs, and small enough for any counter type. */
#define MAX_PIECES ((size_t)1 << 20)

/* The threads take pieces from a counter (platform/atomic.h). Only its own
 * value is shared: the messages are written before the threads start and
 * the digests read after they are joined, which fd_parallel_run orders.
 * Under MSVC the count is a long: it stops at most one number a thread past
 * the last piece, and there are at most MAX_PIECES pieces and threads. */
_Static_assert(2 * MAX_PIECES <= 0x7fffffff,
               "the piece counter, at most a number a piece and a thread, fits any long");

/* What the threads of one fd_hash_many_parallel share: fd_parallel_run's
 * context for hash_pieces. Piece p is messages [starts[p], starts[p + 1]). */
typedef struct parallel_batch {
    const fd_batch_job *job;
    const fd_message *messages;
    const size_t *starts;
    size_t piece_count;
    fd_counter next_piece;
} parallel_batch;

static bool hash_pieces(void *context, size_t part)
{
    parallel_batch *shared = context;

    (void)part;
    for (;;) {
        const size_t piece = fd_counter_take(&shared->next_piece);
        if (piece >= shared->piece_count)
            return true;
        const size_t first = shared->starts[piece];
        fd_batch_run(shared->job, shared->messages + first, shared->starts[piece + 1] - first);
    }
}

/* A message's work: its length plus the job's overhead (batch.h).
 * Saturating, so that no batch, however many times it names one huge
 * buffer, wraps around. */
static uint64_t add_work(uint64_t work, size_t len, size_t overhead)
{
    const uint64_t more = (uint64_t)len + overhead;
    return work > UINT64_MAX - more ? UINT64_MAX : work + more;
}

/* Cuts the messages into at most max_pieces pieces of about work /
 * max_pieces each (a message longer than that is a piece of its own, and
 * leaves fewer pieces), writing the piece starts and the end to starts
 * (max_pieces + 1 entries). Returns the number of pieces. */
static size_t cut_pieces(const fd_message *messages, size_t count, size_t overhead, uint64_t work,
                         size_t max_pieces, size_t *starts)
{
    const uint64_t piece_work = work / max_pieces;
    uint64_t done = 0, piece_end = piece_work;
    size_t pieces = 0;

    starts[0] = 0;
    for (size_t i = 0; i + 1 < count && pieces + 1 < max_pieces; i++) {
        done = add_work(done, messages[i].len, overhead);
        if (done >= piece_end) {
            starts[++pieces] = i + 1;
            piece_end = done > UINT64_MAX - piece_work ? UINT64_MAX : done + piece_work;
        }
    }
    starts[++pieces] = count;
    assert(pieces >= 1 && pieces <= max_pieces);
    return pieces;
}

void fd_hash_many_parallel(const fd_batch_job *job, const fd_message *messages, size_t count,
                           size_t threads)
{
    const size_t overhead = fd_batch_message_overhead(job);
    uint64_t work = 0;
    size_t parts = threads < count ? threads : count;
    if (parts > MAX_PIECES / PIECES_PER_THREAD)
        parts = MAX_PIECES / PIECES_PER_THREAD;

    if (parts > 1) {
        for (size_t i = 0; i < count; i++)
            work = add_work(work, messages[i].len, overhead);
        if (work / FD_BATCH_MIN_WORK_PER_THREAD < parts)
            parts = (size_t)(work / FD_BATCH_MIN_WORK_PER_THREAD);
    }
    /* parts <= count, so this does not overflow. */
    const size_t max_pieces = parts <= count / PIECES_PER_THREAD ? parts * PIECES_PER_THREAD
                                                                 : count;
    size_t *starts = parts > 1 ? malloc((max_pieces + 1) * sizeof *starts) : NULL;
    if (starts == NULL) {
        /* One thread's work, or no memory for the pieces. */
        fd_batch_run(job, messages, count);
        return;
    }

    parallel_batch shared = {
        .job = job,
        .messages = messages,
        .starts = starts,
    };
    shared.piece_count = cut_pieces(messages, count, overhead, work, max_pieces, starts);
    fd_counter_init(&shared.next_piece);
    /* Long messages may leave fewer pieces than threads. */
    (void)fd_parallel_run(parts < shared.piece_count ? parts : shared.piece_count, hash_pieces,
                          &shared);
    free(starts);
}

/* ---- a pipeline ---------------------------------------------------------- */

/* The conditions of a pipeline's monitor: a chunk was produced (or the
 * producing ended), which idle hashing threads wait for; a chunk was
 * hashed, which the producing thread waits for. */
enum { CHUNK_PRODUCED = 0, CHUNK_HASHED = 1 };

/* What the threads of one fd_hash_many_pipelined share: fd_parallel_run's
 * context for pipeline_part. Chunk c is in slot c % slots. */
typedef struct pipeline {
    const fd_batch_job *job;
    size_t chunk_count;
    size_t slots;
    fd_chunk_producer *produce;
    void *context;
    fd_parallel_monitor *monitor;
    /* The rest under the monitor's lock. */
    size_t produced; /* chunks [0, produced) are ready */
    size_t taken;    /* chunks [0, taken) are taken by a thread */
    bool producing;  /* more chunks may come */
    bool *slot_free; /* the slot's chunk is hashed, or it never had one */
    const fd_message **slot_messages;
    size_t *slot_counts;
} pipeline;

/* With the lock held and a chunk produced but not taken: takes the next,
 * hashes it without the lock and marks it hashed. */
static void hash_next_chunk(pipeline *p)
{
    const size_t slot = p->taken++ % p->slots;
    const fd_message *messages = p->slot_messages[slot];
    const size_t count = p->slot_counts[slot];

    fd_parallel_unlock(p->monitor);
    fd_batch_run(p->job, messages, count);
    fd_parallel_lock(p->monitor);
    p->slot_free[slot] = true;
    fd_parallel_wake_one(p->monitor, CHUNK_HASHED); /* only the producer waits for it */
}

/* The calling thread's part: produces every chunk, hashing chunks itself
 * while it waits for a free slot, then hashes what no thread has taken. */
static bool produce_chunks(pipeline *p)
{
    bool complete = true;

    fd_parallel_lock(p->monitor);
    for (size_t chunk = 0; chunk < p->chunk_count; chunk++) {
        const size_t slot = chunk % p->slots;
        while (!p->slot_free[slot]) {
            if (p->taken < p->produced)
                hash_next_chunk(p);
            else
                fd_parallel_wait(p->monitor, CHUNK_HASHED);
        }
        fd_parallel_unlock(p->monitor);
        const fd_message *messages = NULL;
        size_t count = 0;
        complete = p->produce(p->context, chunk, slot, &messages, &count);
        fd_parallel_lock(p->monitor);
        if (!complete)
            break;
        p->slot_messages[slot] = messages;
        p->slot_counts[slot] = count;
        p->slot_free[slot] = false;
        p->produced++;
        fd_parallel_wake_one(p->monitor, CHUNK_PRODUCED);
    }
    p->producing = false;
    fd_parallel_wake_all(p->monitor, CHUNK_PRODUCED);
    /* The chunks other threads are hashing are theirs to finish:
     * fd_parallel_run joins them. */
    while (p->taken < p->produced)
        hash_next_chunk(p);
    fd_parallel_unlock(p->monitor);
    return complete;
}

/* Part 0 produces; the others hash chunks until none is left and none
 * will come. A part that runs on the calling thread after part 0 (its
 * thread could not be made) finds nothing left. */
static bool pipeline_part(void *context, size_t part)
{
    pipeline *p = context;

    if (part == 0)
        return produce_chunks(p);
    fd_parallel_lock(p->monitor);
    for (;;) {
        if (p->taken < p->produced)
            hash_next_chunk(p);
        else if (p->producing)
            fd_parallel_wait(p->monitor, CHUNK_PRODUCED);
        else
            break;
    }
    fd_parallel_unlock(p->monitor);
    return true;
}

bool fd_hash_many_pipelined(const fd_batch_job *job, size_t chunk_count, size_t slots,
                            size_t threads, fd_chunk_producer *produce, void *context)
{
    pipeline p = {
        .job = job,
        .chunk_count = chunk_count,
        .slots = slots,
        .produce = produce,
        .context = context,
        .producing = true,
    };
    bool complete = true;

    assert(slots >= 1 && produce != NULL);

    if (threads > chunk_count)
        threads = chunk_count;
    if (threads > 1) {
        p.monitor = fd_parallel_monitor_new();
        p.slot_free = malloc(slots * sizeof *p.slot_free);
        p.slot_messages = malloc(slots * sizeof *p.slot_messages);
        p.slot_counts = malloc(slots * sizeof *p.slot_counts);
    }
    if (p.monitor != NULL && p.slot_free != NULL && p.slot_messages != NULL &&
        p.slot_counts != NULL) {
        for (size_t slot = 0; slot < slots; slot++)
            p.slot_free[slot] = true;
        complete = fd_parallel_run(threads, pipeline_part, &p);
    }
    else {
        /* One thread, or no memory for the threads' state: produced and
         * hashed one chunk after the other. */
        for (size_t chunk = 0; complete && chunk < chunk_count; chunk++) {
            const fd_message *messages = NULL;
            size_t count = 0;
            complete = produce(context, chunk, chunk % slots, &messages, &count);
            if (complete)
                fd_batch_run(job, messages, count);
        }
    }
    if (p.monitor != NULL)
        fd_parallel_monitor_free(p.monitor);
    free(p.slot_free);
    free(p.slot_messages);
    free(p.slot_counts);
    return complete;
}
