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
 * plain digests and once for HMACs (`keyed`, a constant like the family).
 *
 * batch_threads.c runs this driver on several threads. */
#include "hash/batch.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "hash/hex.h"
#include "kernels/compiler.h"
#include "kernels/endian.h"

/* ---- the driver -------------------------------------------------------- */

/* A message whose padded length is at most this many blocks is copied into
 * its lane whole, so that it is one run and one kernel call, not two (its
 * whole blocks, then its tail). With the copies written out inline this is
 * as fast as reading the whole blocks in place, and reading them in place
 * from a message of one block, with two calls, was slower. */
#define SHORT_MESSAGE_BLOCKS 4
/* A lane's buffer holds a message's tail, one or two blocks. */
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
    bool hex;         /* each digest written as its hex digits (fd_batch_job) */
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
 * forwarding. sha224, sha384 and the SHA-512/t variants keep a prefix.
 * Hex digits are written from the digest composed on the stack: the
 * encoding's own work dwarfs that stall. */
static FD_ALWAYS_INLINE void emit_digest(batch *b, enum fd_family family, unsigned index)
{
    const size_t digest_len = fd_family_digest_len(family, b->digest_len);
    const void *chain = fd_lane_chain(family, &b->chains, index);

    if (b->hex) {
        uint8_t digest[FD_MAX_DIGEST_LEN];
        fd_store_digest(family, digest, chain, digest_len);
        fd_hex_encode(digest, digest_len, (char *)b->lanes[index].digest);
    }
    else {
        fd_store_digest(family, b->lanes[index].digest, chain, digest_len);
    }
    b->lanes[index].busy = false;
}

static FD_ALWAYS_INLINE void compress_single(batch *b, enum fd_family family, unsigned index,
                                             const uint8_t *blocks, size_t nblocks)
{
    fd_call_blocks(family, &b->single, fd_lane_chain(family, &b->chains, index), blocks, nblocks);
}

/* One call of the multi-buffer kernel. A lane without a message (only
 * while draining, some_idle) reads the blocks of a busy one, `mirrored`,
 * into a chain nobody reads: a call takes no more blocks than any busy lane
 * has left, so those blocks are all there, and in the caches already. */
static FD_ALWAYS_INLINE void compress_lanes(batch *b, enum fd_family family,
                                            const fd_multi_kernel *kernel, size_t nblocks,
                                            bool some_idle, unsigned mirrored)
{
    const uint8_t *idle_runs[FD_BATCH_MAX_LANES];
    const uint8_t *const *runs = b->runs;

    if (some_idle) {
        assert(b->lanes[mirrored].busy && b->lanes[mirrored].run_blocks >= nblocks);
        for (unsigned i = 0; i < kernel->lanes; i++)
            idle_runs[i] = b->lanes[i].busy ? b->runs[i] : b->runs[mirrored];
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

/* The end of a batch, or a batch of fewer messages than lanes: no message
 * is left to take, and some lanes are idle. While enough lanes are busy
 * (fd_batch_lanes_pay), the multi-buffer kernel goes on, its idle lanes
 * reading a busy lane's blocks (compress_lanes), so that a batch, or a
 * chunk of digest_many's, or a thread's share of a few long messages, is
 * not hashed with up to fifteen messages at a quarter of the speed. Below
 * that many busy lanes, the messages left are finished one at a time. */
static FD_ALWAYS_INLINE void drain_lanes(batch *b, enum fd_family family, bool keyed,
                                         const fd_multi_kernel *multi)
{
    const unsigned lanes = multi->lanes;
    unsigned busy = 0;

    for (unsigned i = 0; i < lanes; i++)
        busy += b->lanes[i].busy;
    while (fd_batch_lanes_pay(multi, busy)) {
        size_t nblocks = SIZE_MAX;
        unsigned shortest = 0;
        for (unsigned i = 0; i < lanes; i++) {
            if (b->lanes[i].busy && b->lanes[i].run_blocks < nblocks) {
                nblocks = b->lanes[i].run_blocks;
                shortest = i;
            }
        }
        compress_lanes(b, family, multi, nblocks, true, shortest);
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
 * then on the single-stream kernel; returns the number of lanes used. A
 * batch of fewer messages than lanes runs on the multi-buffer kernel too
 * where that pays (fd_batch_lanes_pay), as the end of a longer one does:
 * a thread's share of a few long messages (batch_threads.c). */
static FD_ALWAYS_INLINE unsigned run_batch(batch *b, enum fd_family family, bool keyed,
                                           const fd_multi_kernel *multi, size_t count)
{
    const fd_message *const messages = b->messages;
    size_t next = 0;
    unsigned lanes_used = count != 0 ? 1 : 0;

    if (multi != NULL && count < multi->lanes && fd_batch_lanes_pay(multi, count)) {
        lanes_used = (unsigned)count;
        for (unsigned i = 0; i < multi->lanes; i++) {
            if (i < count) {
                start_lane(b, family, keyed, i, &messages[next++]);
            }
            else {
                /* Idle from the start: its chain gets the blocks it reads
                 * (compress_lanes), and is given a value first. */
                set_initial_chain(b, family, i);
                b->lanes[i].busy = false;
            }
        }
        drain_lanes(b, family, keyed, multi);
    }
    else if (multi != NULL && count >= multi->lanes) {
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
            compress_lanes(b, family, multi, nblocks, false, 0);
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

/* The batch of fd_hash_many_using (key NULL) or fd_hmac_many_using, or of
 * a job (fd_batch_run), whose digests may be hex. */
static void run_job(const fd_multi_kernel *multi, enum fd_algorithm_id id, const fd_hmac_state *key,
                    bool hex, const fd_message *messages, size_t count)
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
    b.hex = hex;
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
    run_job(multi, id, NULL, false, messages, count);
}

void fd_hmac_many_using(const fd_multi_kernel *multi, const fd_hmac_state *key,
                        const fd_message *messages, size_t count)
{
    run_job(multi, (enum fd_algorithm_id)(key->algorithm - fd_algorithms), key, false, messages,
            count);
}

void fd_hmac_many(const fd_hmac_state *key, const fd_message *messages, size_t count)
{
    fd_hmac_many_using(fd_batch_multi_kernel(key->algorithm->family), key, messages, count);
}

void fd_batch_run(const fd_batch_job *job, const fd_message *messages, size_t count)
{
    assert(job->hmac == NULL || job->hmac->algorithm == &fd_algorithms[job->id]);
    run_job(job->multi, job->id, job->hmac, job->hex, messages, count);
}

size_t fd_batch_message_overhead(const fd_batch_job *job)
{
    return fd_algorithms[job->id].block_len * (job->hmac != NULL ? 2 : 1);
}
