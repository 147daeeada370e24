/* The batch driver and the multi-buffer kernel tables.
 *
 * Lanes stay full the way Intel's multi-buffer hashing managers keep them
 * full (isa-l_crypto's *_mb_mgr): each lane holds one message, and a kernel
 * call advances every lane by the fewest blocks any lane has left in its
 * current run. A lane whose message is done takes the next message of the
 * batch at once, so messages of equal block count move through the lanes
 * in step, and messages of different lengths never leave a lane idle. This
 * needs no sorting, no scratch memory and no second pass, and it keeps the
 * batch's order. Only when no message is left to take are the messages
 * still in flight finished one at a time with the single-stream kernel: at
 * most lanes - 1 of them per batch.
 *
 * A message is two runs of blocks: its whole blocks, compressed straight
 * from the caller's memory, then its tail (the last partial block, the 0x80
 * marker, zeros and the length field: one or two blocks) from a small buffer
 * in the lane. A short message is copied into that buffer whole, tail
 * included, and is one run. The padding is the same as buffer.h's
 * fd_block_pad; it is built here in one go because the whole message is at
 * hand. */
#include "batch.h"

#include <string.h>

#include "endian.h"

/* ---- kernel tables ----------------------------------------------------- */

static const fd_multi_kernel md5_multi_kernels[] = {
#ifdef FD_HAVE_AVX512_MULTI
    {"avx512_x16", FD_CPU_AVX512F, 16, {.md5 = fd_md5_blocks_avx512_x16}},
#endif
#ifdef FD_HAVE_AVX2_MULTI
    {"avx2_x8", FD_CPU_AVX2, 8, {.md5 = fd_md5_blocks_avx2_x8}},
#endif
    {NULL, 0, 0, {NULL}},
};

static const fd_multi_kernel sha1_multi_kernels[] = {
#ifdef FD_HAVE_AVX512_MULTI
    {"avx512_x16", FD_CPU_AVX512F | FD_CPU_AVX512BW, 16, {.sha1 = fd_sha1_blocks_avx512_x16}},
#endif
#ifdef FD_HAVE_SHANI_X2
    {"shani_x2", FD_CPU_SHANI | FD_CPU_SSE41 | FD_CPU_SSSE3, 2,
     {.sha1 = fd_sha1_blocks_shani_x2}},
#endif
    {NULL, 0, 0, {NULL}},
};

/* SHA-NI first: on Zen 4 two SHA-NI streams and sixteen AVX-512 lanes hash
 * SHA-256 batches about equally fast (within 5% at 64 bytes and at 1 KiB),
 * and two streams need fewer messages to fill; for SHA-1, whose rounds are
 * cheaper in vector code, the sixteen lanes win (1.3x at 64 bytes, 1.6x at
 * 1 KiB). The AVX-512 kernel serves CPUs with AVX-512 and no SHA-NI. */
static const fd_multi_kernel sha256_multi_kernels[] = {
#ifdef FD_HAVE_SHANI_X2
    {"shani_x2", FD_CPU_SHANI | FD_CPU_SSE41 | FD_CPU_SSSE3, 2,
     {.sha256 = fd_sha256_blocks_shani_x2}},
#endif
#ifdef FD_HAVE_AVX512_MULTI
    {"avx512_x16", FD_CPU_AVX512F | FD_CPU_AVX512BW, 16,
     {.sha256 = fd_sha256_blocks_avx512_x16}},
#endif
    {NULL, 0, 0, {NULL}},
};

static const fd_multi_kernel sha512_multi_kernels[] = {
#ifdef FD_HAVE_AVX512_MULTI
    {"avx512_x8", FD_CPU_AVX512F | FD_CPU_AVX512BW, 8, {.sha512 = fd_sha512_blocks_avx512_x8}},
#endif
#ifdef FD_HAVE_AVX2_MULTI
    {"avx2_x4", FD_CPU_AVX2, 4, {.sha512 = fd_sha512_blocks_avx2_x4}},
#endif
    {NULL, 0, 0, {NULL}},
};

const fd_multi_kernel *const fd_multi_kernel_lists[FD_FAMILY_COUNT] = {
    [FD_FAMILY_MD5] = md5_multi_kernels,
    [FD_FAMILY_SHA1] = sha1_multi_kernels,
    [FD_FAMILY_SHA256] = sha256_multi_kernels,
    [FD_FAMILY_SHA512] = sha512_multi_kernels,
};

fd_multi_kernel fd_active_multi_kernels[FD_FAMILY_COUNT];

void fd_use_multi_kernel(enum fd_family family, const fd_multi_kernel *kernel)
{
    static const fd_multi_kernel none = {NULL, 0, 0, {NULL}};

    fd_active_multi_kernels[family] = kernel != NULL ? *kernel : none;
}

void fd_select_multi_kernels(bool single_stream_only)
{
    uint32_t features = fd_cpu_features();

    for (int family = 0; family < FD_FAMILY_COUNT; family++) {
        const fd_multi_kernel *kernel = fd_multi_kernel_lists[family];
        while (kernel->name != NULL && (kernel->required_features & ~features) != 0)
            kernel++;
        fd_use_multi_kernel((enum fd_family)family,
                            single_stream_only || kernel->name == NULL ? NULL : kernel);
    }
}

/* ---- the driver -------------------------------------------------------- */

/* The chaining values of the lanes, in the layout each family's kernels
 * take. */
typedef union lane_chains {
    uint32_t md5[FD_BATCH_MAX_LANES][4];
    uint32_t sha1[FD_BATCH_MAX_LANES][5];
    uint32_t sha256[FD_BATCH_MAX_LANES][8];
    uint64_t sha512[FD_BATCH_MAX_LANES][8];
} lane_chains;

/* A message whose padded length is at most this many blocks is copied into
 * its lane whole, so that it is one run and one kernel call, not two (its
 * whole blocks, then its tail). Measured on 64-byte messages: the
 * single-stream path 10-17% faster, the multi-buffer kernels a few percent;
 * the copy costs less than the call it saves. */
#define SHORT_MESSAGE_BLOCKS 4

typedef struct lane {
    const uint8_t *run; /* the next block of the current run */
    size_t run_blocks;  /* blocks left in the current run, never 0 while busy */
    bool in_tail;       /* the current run is the one in `buffer`, the last */
    bool busy;
    size_t message;     /* index of the lane's message in the batch */
    /* The blocks in `buffer`: the tail (1 or 2), or a short message whole
     * (up to SHORT_MESSAGE_BLOCKS). */
    size_t tail_blocks;
    uint8_t buffer[SHORT_MESSAGE_BLOCKS * FD_MAX_BLOCK_LEN];
} lane;

typedef struct batch {
    enum fd_family family;
    size_t block_len;
    size_t digest_len;
    const fd_message *messages;
    fd_kernel single;      /* fd_active_kernels[family], read once */
    fd_hash_state initial; /* the algorithm's IV is its chain */
    lane_chains chains;
    lane lanes[FD_BATCH_MAX_LANES];
} batch;

/* The block count of the padded tail of a len-byte message: the last
 * len % block_len bytes, 0x80 and the length field, rounded up to blocks. */
static size_t tail_block_count(const batch *b, size_t len)
{
    const size_t length_field_len = b->family == FD_FAMILY_SHA512 ? 16 : 8;
    const size_t partial = len & (b->block_len - 1);

    return partial + 1 + length_field_len <= b->block_len ? 1 : 2;
}

/* Writes the padded tail of a len-byte message into tail: the last
 * len % block_len bytes, 0x80, zeros, and the bit length (little-endian 64
 * bits for MD5, big-endian 64 bits for SHA-1 and SHA-256, big-endian 128
 * bits for SHA-512). Returns its block count. */
static size_t build_tail(const batch *b, const uint8_t *data, size_t len, uint8_t *tail)
{
    const size_t partial = len & (b->block_len - 1);
    const size_t tail_len = tail_block_count(b, len) * b->block_len;
    const uint64_t byte_count = (uint64_t)len;

    if (partial != 0)
        memcpy(tail, data + (len - partial), partial);
    tail[partial] = 0x80;
    memset(tail + partial + 1, 0, tail_len - partial - 1);
    if (b->family == FD_FAMILY_MD5) {
        fd_store_le64(tail + tail_len - 8, byte_count << 3);
    }
    else {
        fd_store_be64(tail + tail_len - 8, byte_count << 3);
        if (b->family == FD_FAMILY_SHA512)
            fd_store_be64(tail + tail_len - 16, byte_count >> 61);
    }
    return tail_len / b->block_len;
}

static void start_lane(batch *b, unsigned index, size_t message)
{
    lane *l = &b->lanes[index];
    const fd_message *m = &b->messages[message];
    size_t whole_blocks = m->len / b->block_len;

    switch (b->family) {
    case FD_FAMILY_MD5:
        memcpy(b->chains.md5[index], b->initial.md5.chain, sizeof b->chains.md5[index]);
        break;
    case FD_FAMILY_SHA1:
        memcpy(b->chains.sha1[index], b->initial.sha1.chain, sizeof b->chains.sha1[index]);
        break;
    case FD_FAMILY_SHA256:
        memcpy(b->chains.sha256[index], b->initial.sha256.chain,
               sizeof b->chains.sha256[index]);
        break;
    default:
        memcpy(b->chains.sha512[index], b->initial.sha512.chain,
               sizeof b->chains.sha512[index]);
        break;
    }
    l->message = message;
    l->busy = true;
    if (whole_blocks + tail_block_count(b, m->len) <= SHORT_MESSAGE_BLOCKS) {
        /* Short: copied whole, one run from the lane's buffer. */
        size_t whole_len = whole_blocks * b->block_len;
        if (whole_len != 0)
            memcpy(l->buffer, m->data, whole_len);
        l->tail_blocks = whole_blocks + build_tail(b, m->data, m->len, l->buffer + whole_len);
        whole_blocks = 0;
    }
    else {
        l->tail_blocks = build_tail(b, m->data, m->len, l->buffer);
    }
    if (whole_blocks != 0) {
        l->run = m->data;
        l->run_blocks = whole_blocks;
        l->in_tail = false;
    }
    else {
        l->run = l->buffer;
        l->run_blocks = l->tail_blocks;
        l->in_tail = true;
    }
}

/* Moves a lane nblocks further; returns true when its message is done. */
static bool advance_lane(const batch *b, lane *l, size_t nblocks)
{
    l->run += nblocks * b->block_len;
    l->run_blocks -= nblocks;
    if (l->run_blocks != 0)
        return false;
    if (l->in_tail)
        return true;
    l->run = l->buffer;
    l->run_blocks = l->tail_blocks;
    l->in_tail = true;
    return false;
}

/* Writes the lane's digest straight to its destination, word by word: a
 * digest first composed on the stack and then copied was compiled into
 * narrow stores followed by a wide reload, which stalls on store
 * forwarding. sha224, sha384 and the SHA-512/t variants keep a prefix. */
static void emit_digest(batch *b, unsigned index)
{
    uint8_t *out = b->messages[b->lanes[index].message].digest;
    const size_t len = b->digest_len;

    switch (b->family) {
    case FD_FAMILY_MD5:
        for (size_t w = 0; w < 4; w++)
            fd_store_le32(out + 4 * w, b->chains.md5[index][w]);
        break;
    case FD_FAMILY_SHA1:
        for (size_t w = 0; w < 5; w++)
            fd_store_be32(out + 4 * w, b->chains.sha1[index][w]);
        break;
    case FD_FAMILY_SHA256:
        for (size_t w = 0; w < len / 4; w++)
            fd_store_be32(out + 4 * w, b->chains.sha256[index][w]);
        break;
    default: {
        size_t w = 0;
        for (; 8 * (w + 1) <= len; w++)
            fd_store_be64(out + 8 * w, b->chains.sha512[index][w]);
        /* SHA-512/224 ends halfway through a word: its high half. */
        if (8 * w < len)
            fd_store_be32(out + 8 * w, (uint32_t)(b->chains.sha512[index][w] >> 32));
        break;
    }
    }
    b->lanes[index].busy = false;
}

static void compress_single(batch *b, unsigned index, const uint8_t *blocks, size_t nblocks)
{
    switch (b->family) {
    case FD_FAMILY_MD5:
        b->single.blocks.md5(b->chains.md5[index], blocks, nblocks);
        break;
    case FD_FAMILY_SHA1:
        b->single.blocks.sha1(b->chains.sha1[index], blocks, nblocks);
        break;
    case FD_FAMILY_SHA256:
        b->single.blocks.sha256(b->chains.sha256[index], blocks, nblocks);
        break;
    default:
        b->single.blocks.sha512(b->chains.sha512[index], blocks, nblocks);
        break;
    }
}

static void compress_lanes(batch *b, const fd_multi_kernel *kernel, size_t nblocks)
{
    const uint8_t *runs[FD_BATCH_MAX_LANES];

    for (unsigned i = 0; i < kernel->lanes; i++)
        runs[i] = b->lanes[i].run;
    switch (b->family) {
    case FD_FAMILY_MD5:
        kernel->blocks.md5(b->chains.md5, runs, nblocks);
        break;
    case FD_FAMILY_SHA1:
        kernel->blocks.sha1(b->chains.sha1, runs, nblocks);
        break;
    case FD_FAMILY_SHA256:
        kernel->blocks.sha256(b->chains.sha256, runs, nblocks);
        break;
    default:
        kernel->blocks.sha512(b->chains.sha512, runs, nblocks);
        break;
    }
}

/* Finishes a lane's message with the single-stream kernel. */
static void finish_lane(batch *b, unsigned index)
{
    lane *l = &b->lanes[index];

    compress_single(b, index, l->run, l->run_blocks);
    if (!l->in_tail)
        compress_single(b, index, l->buffer, l->tail_blocks);
    emit_digest(b, index);
}

void fd_hash_many(enum fd_algorithm_id id, const fd_message *messages, size_t count)
{
    const fd_multi_kernel *multi = &fd_active_multi_kernels[fd_algorithms[id].family];

    fd_hash_many_using(multi->name != NULL ? multi : NULL, id, messages, count);
}

void fd_hash_many_using(const fd_multi_kernel *multi, enum fd_algorithm_id id,
                        const fd_message *messages, size_t count)
{
    const fd_algorithm *algorithm = &fd_algorithms[id];
    batch b;
    size_t next = 0;
    unsigned lanes_used = count != 0 ? 1 : 0;

    b.family = algorithm->family;
    b.block_len = algorithm->block_len;
    b.digest_len = algorithm->digest_len;
    b.messages = messages;
    b.single = fd_active_kernels[algorithm->family];
    algorithm->init(&b.initial);

    if (multi != NULL && count >= multi->lanes) {
        lanes_used = multi->lanes;
        for (unsigned i = 0; i < multi->lanes; i++)
            start_lane(&b, i, next++);
        bool all_busy = true;
        while (all_busy) {
            size_t nblocks = b.lanes[0].run_blocks;
            for (unsigned i = 1; i < multi->lanes; i++) {
                if (b.lanes[i].run_blocks < nblocks)
                    nblocks = b.lanes[i].run_blocks;
            }
            compress_lanes(&b, multi, nblocks);
            for (unsigned i = 0; i < multi->lanes; i++) {
                if (!advance_lane(&b, &b.lanes[i], nblocks))
                    continue;
                emit_digest(&b, i);
                if (next < count)
                    start_lane(&b, i, next++);
                else
                    all_busy = false;
            }
        }
        /* No message is left to take: the ones in flight, fewer than the
         * lanes, are finished one at a time. */
        for (unsigned i = 0; i < multi->lanes; i++) {
            if (b.lanes[i].busy)
                finish_lane(&b, i);
        }
    }
    for (; next < count; next++) {
        start_lane(&b, 0, next);
        finish_lane(&b, 0);
    }

    /* The lanes' buffers held message bytes, the chains message-derived
     * state: wiped as fd_hash wipes its state, but only the lanes used (all
     * sixteen are 9 KiB, more work than a small batch's hashing). */
    fd_secure_zero(b.lanes, lanes_used * sizeof b.lanes[0]);
    fd_secure_zero(&b.chains, sizeof b.chains);
}
