/* HMAC and PBKDF2-HMAC on the descriptor table and the active kernels. */
#include "core/hmac.h"

#include <stdbool.h>
#include <string.h>

#include "dispatch/dispatch.h"
#include "kernels/endian.h"

/* RFC 2104, section 2: the bytes XORed into the padded key for the inner and
 * the outer hash. */
#define HMAC_INNER_PAD 0x36
#define HMAC_OUTER_PAD 0x5c

/* The two keyed blocks are independent. A kernel with the hmac_key
 * capability (SHA-NI's two-stream form, sha*_shani_x2.c) compresses both in
 * about the time of one, straight from K' (the pads are XORed in
 * registers): a one-shot HMAC of a short message is otherwise five
 * compressions in a row, each waiting for the last. hmac's states are fresh
 * (init) on entry. Returns false where the active kernel has no such
 * capability. */
static bool key_both_at_once(const fd_algorithm *algorithm, fd_hmac_state *hmac,
                             const uint8_t *padded_key)
{
    const fd_kernel *kernel = &fd_active_kernels[algorithm->family];

    if (algorithm->family == FD_FAMILY_SHA256 && kernel->hmac_key.sha256 != NULL) {
        kernel->hmac_key.sha256(padded_key, hmac->inner.sha256.chain, hmac->outer.sha256.chain);
        hmac->inner.sha256.byte_count = hmac->outer.sha256.byte_count = FD_SHA256_BLOCK_LEN;
        return true;
    }
    if (algorithm->family == FD_FAMILY_SHA1 && kernel->hmac_key.sha1 != NULL) {
        kernel->hmac_key.sha1(padded_key, hmac->inner.sha1.chain, hmac->outer.sha1.chain);
        hmac->inner.sha1.byte_count = hmac->outer.sha1.byte_count = FD_SHA1_BLOCK_LEN;
        return true;
    }
    return false;
}

void fd_hmac_init(fd_hmac_state *hmac, enum fd_algorithm_id id, const uint8_t *key, size_t key_len)
{
    const fd_algorithm *algorithm = &fd_algorithms[id];
    size_t block_len = algorithm->block_len;
    /* K', then the blocks K' ^ ipad and K' ^ opad, side by side so that one
     * call wipes them all. */
    uint8_t keyed[3][FD_MAX_BLOCK_LEN];
    uint8_t *padded_key = keyed[0], *inner_block = keyed[1], *outer_block = keyed[2];

    hmac->algorithm = algorithm;
    /* K': the key zero-padded to a block. RFC 2104: a key longer than a
     * block is replaced by its hash. */
    if (key_len > block_len) {
        fd_hash(id, key, key_len, padded_key);
        key_len = algorithm->digest_len;
    }
    else if (key_len != 0) {
        memcpy(padded_key, key, key_len);
    }
    memset(padded_key + key_len, 0, block_len - key_len);

    algorithm->init(&hmac->inner);
    algorithm->init(&hmac->outer);
    if (key_both_at_once(algorithm, hmac, padded_key)) {
        fd_secure_zero(padded_key, block_len);
        return;
    }
    /* Eight bytes at a time: a byte-wise loop is most of the cost of keying
     * where the compiler does not vectorize it. Every byte of a pad word is
     * the same, so the words' byte order does not matter. */
    for (size_t i = 0; i < block_len; i += 8) {
        uint64_t key_word, inner_word, outer_word;
        memcpy(&key_word, padded_key + i, 8);
        inner_word = key_word ^ HMAC_INNER_PAD * UINT64_C(0x0101010101010101);
        outer_word = key_word ^ HMAC_OUTER_PAD * UINT64_C(0x0101010101010101);
        memcpy(inner_block + i, &inner_word, 8);
        memcpy(outer_block + i, &outer_word, 8);
    }
    /* Each keyed prefix is exactly one block, which update() compresses
     * straight from its buffer without copying it. */
    algorithm->update(&hmac->inner, inner_block, block_len);
    algorithm->update(&hmac->outer, outer_block, block_len);
    fd_secure_zero(keyed, sizeof keyed);
}

void fd_hmac_update(fd_hmac_state *hmac, const uint8_t *data, size_t len)
{
    hmac->algorithm->update(&hmac->inner, data, len);
}

/* ---- blocks made of one digest -------------------------------------------
 *
 * The outer hash of an HMAC, and both hashes of a PBKDF2 iteration from U_2
 * on, see a keyed block and then one digest: their last block is that digest
 * and padding that never changes, compressed without update()'s buffering
 * and final()'s padding. */

/* A compress kernel of the families with 32-bit words (MD5, SHA-1,
 * SHA-256); each family's own kernel type is this one, with its chain
 * length spelled in the parameter. */
typedef void compress32_fn(uint32_t *chain, const uint8_t *blocks, size_t nblocks);

/* Writes the padding of a message of block_len + digest_len bytes into the
 * block after its first digest_len bytes (the outer hash of every HMAC, and
 * each hash of a PBKDF2 iteration from U_2 on): the 0x80 marker, zeros, and the
 * length in bits in the family's field (FIPS 180-4, 5.1; RFC 1321, 3.1-3.2). */
static void pad_one_digest_block(const fd_algorithm *algorithm, uint8_t *block)
{
    size_t block_len = algorithm->block_len;
    uint64_t message_bits = (uint64_t)(block_len + algorithm->digest_len) * 8;

    memset(block, 0, block_len);
    block[algorithm->digest_len] = 0x80;
    if (algorithm->family == FD_FAMILY_MD5)
        fd_store_le64(block + block_len - 8, message_bits);
    else
        /* SHA-512's field is 128 bits; its high half stays zero. */
        fd_store_be64(block + block_len - 8, message_bits);
}

/* Word stores for the loop below. endian.h's byte-wise stores are the
 * portable form, but in this loop GCC leaves some of them as single-byte
 * shifts and stores, which then cost more than the conversion itself; where
 * the compiler tells the byte order, a word is stored with one (byte-swapped)
 * memcpy instead, which is as legal at any alignment. */
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
static inline void store_word_be32(uint8_t *p, uint32_t v)
{
    v = __builtin_bswap32(v);
    memcpy(p, &v, sizeof v);
}
static inline void store_word_le32(uint8_t *p, uint32_t v)
{
    memcpy(p, &v, sizeof v);
}
static inline void store_word_be64(uint8_t *p, uint64_t v)
{
    v = __builtin_bswap64(v);
    memcpy(p, &v, sizeof v);
}
#elif defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
static inline void store_word_be32(uint8_t *p, uint32_t v)
{
    memcpy(p, &v, sizeof v);
}
static inline void store_word_le32(uint8_t *p, uint32_t v)
{
    v = __builtin_bswap32(v);
    memcpy(p, &v, sizeof v);
}
static inline void store_word_be64(uint8_t *p, uint64_t v)
{
    memcpy(p, &v, sizeof v);
}
#else
static inline void store_word_be32(uint8_t *p, uint32_t v)
{
    fd_store_be32(p, v);
}
static inline void store_word_le32(uint8_t *p, uint32_t v)
{
    fd_store_le32(p, v);
}
static inline void store_word_be64(uint8_t *p, uint64_t v)
{
    fd_store_be64(p, v);
}
#endif

static inline void store_words32(uint8_t *out, const uint32_t *words, size_t count,
                                 bool little_endian)
{
    for (size_t i = 0; i < count; i++) {
        if (little_endian)
            store_word_le32(out + 4 * i, words[i]);
        else
            store_word_be32(out + 4 * i, words[i]);
    }
}

static inline void load_words32(uint32_t *words, const uint8_t *in, size_t count,
                                bool little_endian)
{
    for (size_t i = 0; i < count; i++)
        words[i] = little_endian ? fd_load_le32(in + 4 * i) : fd_load_be32(in + 4 * i);
}

/* SHA-512/224's digest ends in the high half of its fourth word: the store
 * writes that half only, so the 0x80 marker after the digest survives. */
static inline void store_digest64(uint8_t *out, const uint64_t *words, size_t digest_len)
{
    size_t whole = digest_len / 8;

    for (size_t i = 0; i < whole; i++)
        store_word_be64(out + 8 * i, words[i]);
    if (digest_len % 8 != 0)
        store_word_be32(out + 8 * whole, (uint32_t)(words[whole] >> 32));
}

static inline void load_digest64(uint64_t *words, const uint8_t *in, size_t digest_len)
{
    size_t whole = digest_len / 8;

    for (size_t i = 0; i < whole; i++)
        words[i] = fd_load_be64(in + 8 * i);
    if (digest_len % 8 != 0)
        words[whole] = (uint64_t)fd_load_be32(in + 8 * whole) << 32;
}

/* Compresses block (a digest, padded by pad_one_digest_block) onto a copy
 * of the keyed outer chain and writes the resulting digest to out. */
static void compress_outer(const fd_algorithm *algorithm, const fd_hash_state *outer,
                           const uint8_t *block, uint8_t *out)
{
    const fd_kernel *kernel = &fd_active_kernels[algorithm->family];
    uint32_t chain32[8];
    uint64_t chain64[8];

    switch (algorithm->family) {
    case FD_FAMILY_MD5:
        memcpy(chain32, outer->md5.chain, sizeof outer->md5.chain);
        kernel->blocks.md5(chain32, block, 1);
        store_words32(out, chain32, 4, true);
        break;
    case FD_FAMILY_SHA1:
        memcpy(chain32, outer->sha1.chain, sizeof outer->sha1.chain);
        kernel->blocks.sha1(chain32, block, 1);
        store_words32(out, chain32, 5, false);
        break;
    case FD_FAMILY_SHA256:
        memcpy(chain32, outer->sha256.chain, sizeof outer->sha256.chain);
        kernel->blocks.sha256(chain32, block, 1);
        store_words32(out, chain32, algorithm->digest_len / 4, false);
        break;
    case FD_FAMILY_SHA512:
        memcpy(chain64, outer->sha512.chain, sizeof outer->sha512.chain);
        kernel->blocks.sha512(chain64, block, 1);
        store_digest64(out, chain64, algorithm->digest_len);
        break;
    case FD_FAMILY_COUNT:
        break;
    }
    fd_secure_zero(chain32, sizeof chain32);
    fd_secure_zero(chain64, sizeof chain64);
}

/* The padded last blocks of a SHA-1 or SHA-256 state, written out for a
 * kernel's hmac_finish rather than compressed: the buffered bytes, 0x80,
 * zeros and the 64-bit big-endian bit length, as fd_block_pad pads them.
 * Returns the block count, 1 or 2. */
static size_t write_padded_tail(const uint8_t *buffered, uint64_t byte_count,
                                uint8_t tail[2 * FD_SHA256_BLOCK_LEN])
{
    size_t used = (size_t)(byte_count % FD_SHA256_BLOCK_LEN);
    size_t tail_len = used + 1 + 8 <= FD_SHA256_BLOCK_LEN ? FD_SHA256_BLOCK_LEN
                                                          : 2 * FD_SHA256_BLOCK_LEN;

    memset(tail, 0, tail_len);
    memcpy(tail, buffered, used);
    tail[used] = 0x80;
    fd_store_be64(tail + tail_len - 8, byte_count << 3);
    return tail_len / FD_SHA256_BLOCK_LEN;
}

/* Writes the MAC of an HMAC whose inner hash has had all its message;
 * inner and outer are left as they were. */
static void hmac_finish(const fd_algorithm *algorithm, const fd_hash_state *inner,
                        const fd_hash_state *outer, uint8_t *out)
{
    const fd_kernel *kernel = &fd_active_kernels[algorithm->family];
    uint8_t block[2 * FD_MAX_BLOCK_LEN];
    size_t blocks_written;

    if (algorithm->family == FD_FAMILY_SHA256 && kernel->hmac_finish.sha256 != NULL) {
        blocks_written = write_padded_tail(inner->sha256.block, inner->sha256.byte_count, block);
        kernel->hmac_finish.sha256(inner->sha256.chain, block, blocks_written, outer->sha256.chain,
                                   algorithm->digest_len / 4, out);
    }
    else if (algorithm->family == FD_FAMILY_SHA1 && kernel->hmac_finish.sha1 != NULL) {
        blocks_written = write_padded_tail(inner->sha1.block, inner->sha1.byte_count, block);
        kernel->hmac_finish.sha1(inner->sha1.chain, block, blocks_written, outer->sha1.chain, out);
    }
    else {
        /* The inner hash is finalized on a copy, its digest written into the
         * outer hash's padded block. */
        fd_hash_state inner_copy;
        memcpy(&inner_copy, inner, algorithm->state_len);
        pad_one_digest_block(algorithm, block);
        algorithm->final(&inner_copy, block);
        compress_outer(algorithm, outer, block, out);
        fd_secure_zero(&inner_copy, algorithm->state_len);
        blocks_written = 1;
    }
    fd_secure_zero(block, blocks_written * algorithm->block_len);
}

void fd_hmac_final(const fd_hmac_state *hmac, uint8_t *out)
{
    hmac_finish(hmac->algorithm, &hmac->inner, &hmac->outer, out);
}

void fd_hmac_wipe(fd_hmac_state *hmac)
{
    fd_secure_zero(&hmac->inner, hmac->algorithm->state_len);
    fd_secure_zero(&hmac->outer, hmac->algorithm->state_len);
}

void fd_hmac(enum fd_algorithm_id id, const uint8_t *key, size_t key_len, const uint8_t *data,
             size_t len, uint8_t *out)
{
    fd_hmac_state hmac;

    fd_hmac_init(&hmac, id, key, key_len);
    fd_hmac_update(&hmac, data, len);
    hmac_finish(hmac.algorithm, &hmac.inner, &hmac.outer, out);
    fd_hmac_wipe(&hmac);
}

/* ---- PBKDF2 -------------------------------------------------------------
 *
 * RFC 8018, 5.2: T_i = U_1 ^ U_2 ^ ... ^ U_c, with U_1 = PRF(P, S || INT(i))
 * and U_j = PRF(P, U_{j-1}). From U_2 on, every PRF message is one digest,
 * and so is the message of the outer hash: both hashes then see exactly
 * block_len + digest_len bytes (the keyed block, then one digest), which pads
 * to a single block whose padding never changes. That block is built once;
 * each iteration writes the inner hash's chain words into its first
 * digest_len bytes and compresses it onto a copy of the outer keyed chain,
 * then writes the result (U_j) there for the next iteration. T is
 * accumulated in chain words and turned into bytes once per output block.
 *
 * The compress functions take their input as bytes, in the algorithm's byte
 * order, so writing the chain into the block is a store per word (a
 * byte-swapping one for the SHA families on little-endian CPUs), and the
 * next compression loads it back. A kernel that can do better runs the whole
 * loop itself (fd_kernel.pbkdf2: the SHA-NI kernels keep the digest in
 * registers, which makes an iteration faster); the loops here serve the
 * others. Several output blocks are derived side by side where a kernel
 * allows (see "several output blocks side by side" below). */

/* Iterations 2..c of one output block of a 32-bit-word family. On entry
 * block holds U_1 and its padding, and t holds U_1 as words; on return t
 * holds T. digest_words is the digest length in words (7 for SHA-224). */
static inline void pbkdf2_iterate32(compress32_fn *compress, const uint32_t *inner_chain,
                                    const uint32_t *outer_chain, size_t chain_words,
                                    size_t digest_words, bool little_endian, uint8_t *block,
                                    uint32_t iterations_left, uint32_t *t)
{
    uint32_t chain[8];

    for (; iterations_left != 0; iterations_left--) {
        memcpy(chain, inner_chain, chain_words * sizeof chain[0]);
        compress(chain, block, 1);
        store_words32(block, chain, digest_words, little_endian);
        memcpy(chain, outer_chain, chain_words * sizeof chain[0]);
        compress(chain, block, 1);
        store_words32(block, chain, digest_words, little_endian);
        for (size_t i = 0; i < digest_words; i++)
            t[i] ^= chain[i];
    }
    fd_secure_zero(chain, sizeof chain);
}

/* The SHA-512 family's counterpart of pbkdf2_iterate32; t has
 * ceil(digest_len / 8) words, of which only digest_len bytes are read. */
static inline void pbkdf2_iterate64(fd_sha512_blocks_fn *compress, const uint64_t *inner_chain,
                                    const uint64_t *outer_chain, size_t digest_len, uint8_t *block,
                                    uint32_t iterations_left, uint64_t *t)
{
    uint64_t chain[8];
    size_t t_words = (digest_len + 7) / 8;

    for (; iterations_left != 0; iterations_left--) {
        memcpy(chain, inner_chain, sizeof chain);
        compress(chain, block, 1);
        store_digest64(block, chain, digest_len);
        memcpy(chain, outer_chain, sizeof chain);
        compress(chain, block, 1);
        store_digest64(block, chain, digest_len);
        for (size_t i = 0; i < t_words; i++)
            t[i] ^= chain[i];
    }
    fd_secure_zero(chain, sizeof chain);
}

/* Computes one output block T_i from block (U_1, padded) into t_bytes. The
 * kernel is read once here, never inside the loop; a kernel with a PBKDF2
 * loop of its own runs the whole loop. */
static void pbkdf2_output_block(enum fd_algorithm_id id, fd_hmac_state *keyed, uint8_t *block,
                                uint32_t iterations_left, uint8_t *t_bytes)
{
    const fd_algorithm *algorithm = &fd_algorithms[id];
    const fd_kernel *kernel = &fd_active_kernels[algorithm->family];
    size_t digest_len = algorithm->digest_len;
    uint32_t t32[8] = {0};
    uint64_t t64[8];

    switch (algorithm->family) {
    case FD_FAMILY_MD5:
        load_words32(t32, block, 4, true);
        pbkdf2_iterate32(kernel->blocks.md5, keyed->inner.md5.chain, keyed->outer.md5.chain, 4, 4,
                         true, block, iterations_left, t32);
        store_words32(t_bytes, t32, 4, true);
        break;
    case FD_FAMILY_SHA1:
        load_words32(t32, block, 5, false);
        if (kernel->pbkdf2.sha1 != NULL)
            kernel->pbkdf2.sha1(keyed->inner.sha1.chain, keyed->outer.sha1.chain, t32,
                                iterations_left);
        else
            pbkdf2_iterate32(kernel->blocks.sha1, keyed->inner.sha1.chain, keyed->outer.sha1.chain,
                             5, 5, false, block, iterations_left, t32);
        store_words32(t_bytes, t32, 5, false);
        break;
    case FD_FAMILY_SHA256:
        load_words32(t32, block, digest_len / 4, false);
        if (kernel->pbkdf2.sha256 != NULL)
            kernel->pbkdf2.sha256(keyed->inner.sha256.chain, keyed->outer.sha256.chain,
                                  digest_len / 4, t32, iterations_left);
        /* Separate calls with constant digest lengths let the compiler
         * unroll each copy of the loop. */
        else if (id == FD_SHA224)
            pbkdf2_iterate32(kernel->blocks.sha256, keyed->inner.sha256.chain,
                             keyed->outer.sha256.chain, 8, FD_SHA224_DIGEST_LEN / 4, false, block,
                             iterations_left, t32);
        else
            pbkdf2_iterate32(kernel->blocks.sha256, keyed->inner.sha256.chain,
                             keyed->outer.sha256.chain, 8, FD_SHA256_DIGEST_LEN / 4, false, block,
                             iterations_left, t32);
        store_words32(t_bytes, t32, digest_len / 4, false);
        break;
    case FD_FAMILY_SHA512:
        load_digest64(t64, block, digest_len);
        switch (id) {
        case FD_SHA384:
            pbkdf2_iterate64(kernel->blocks.sha512, keyed->inner.sha512.chain,
                             keyed->outer.sha512.chain, FD_SHA384_DIGEST_LEN, block,
                             iterations_left, t64);
            break;
        case FD_SHA512_224:
            pbkdf2_iterate64(kernel->blocks.sha512, keyed->inner.sha512.chain,
                             keyed->outer.sha512.chain, FD_SHA512_224_DIGEST_LEN, block,
                             iterations_left, t64);
            break;
        case FD_SHA512_256:
            pbkdf2_iterate64(kernel->blocks.sha512, keyed->inner.sha512.chain,
                             keyed->outer.sha512.chain, FD_SHA512_256_DIGEST_LEN, block,
                             iterations_left, t64);
            break;
        default:
            pbkdf2_iterate64(kernel->blocks.sha512, keyed->inner.sha512.chain,
                             keyed->outer.sha512.chain, FD_SHA512_DIGEST_LEN, block,
                             iterations_left, t64);
            break;
        }
        store_digest64(t_bytes, t64, digest_len);
        break;
    case FD_FAMILY_COUNT:
        break;
    }
    fd_secure_zero(t32, sizeof t32);
    fd_secure_zero(t64, sizeof t64);
}

/* ---- several output blocks side by side ---------------------------------
 *
 * The blocks T_1, T_2, ... are independent chains over the same keyed
 * states, and each chain is a row of dependent compressions that leaves
 * most of the core idle: derived side by side, two or more blocks cost
 * little more than one. A kernel with pbkdf2_lanes runs its own loop over
 * several blocks with the digests in registers (SHA-NI's two streams, the
 * SHA-512 family's AVX-512 lanes). For a family whose kernel has none, the
 * active multi-buffer kernel's lanes serve when enough blocks are left
 * (fd_multi_kernel.pbkdf2.min_blocks): through that kernel's own loop where
 * it has one (MD5's), or else the loop below, which moves each iteration's
 * digests through memory, as pbkdf2_iterate32 does. */

/* A round's output blocks: row i holds U (and its fixed padding) in the
 * algorithm's byte order for one block; t[i] accumulates that block's T as
 * bytes, where XOR is the same in any byte order. */
typedef struct pbkdf2_rows {
    uint8_t blocks[FD_BATCH_MAX_LANES][FD_MAX_BLOCK_LEN];
    uint8_t t[FD_BATCH_MAX_LANES][FD_MAX_DIGEST_LEN];
} pbkdf2_rows;

/* Sets every lane's chain to the keyed chain of state (one of the HMAC's
 * two) and compresses each lane's block onto it, then writes each busy
 * lane's digest over the start of its block, where the next compression
 * reads it. */
static void compress_digest_lanes(const fd_algorithm *algorithm, const fd_multi_kernel *multi,
                                  const fd_hash_state *state, fd_lane_chains *chains,
                                  const uint8_t *const *lane_blocks,
                                  uint8_t (*blocks)[FD_MAX_BLOCK_LEN], size_t count)
{
    const unsigned lanes = multi->lanes;

    switch (algorithm->family) {
    case FD_FAMILY_MD5:
        for (unsigned lane = 0; lane < lanes; lane++)
            memcpy(chains->md5[lane], state->md5.chain, sizeof chains->md5[lane]);
        multi->blocks.md5(chains->md5, lane_blocks, 1);
        for (size_t lane = 0; lane < count; lane++)
            store_words32(blocks[lane], chains->md5[lane], 4, true);
        break;
    case FD_FAMILY_SHA1:
        for (unsigned lane = 0; lane < lanes; lane++)
            memcpy(chains->sha1[lane], state->sha1.chain, sizeof chains->sha1[lane]);
        multi->blocks.sha1(chains->sha1, lane_blocks, 1);
        for (size_t lane = 0; lane < count; lane++)
            store_words32(blocks[lane], chains->sha1[lane], 5, false);
        break;
    case FD_FAMILY_SHA256:
        for (unsigned lane = 0; lane < lanes; lane++)
            memcpy(chains->sha256[lane], state->sha256.chain, sizeof chains->sha256[lane]);
        multi->blocks.sha256(chains->sha256, lane_blocks, 1);
        for (size_t lane = 0; lane < count; lane++)
            store_words32(blocks[lane], chains->sha256[lane], algorithm->digest_len / 4, false);
        break;
    case FD_FAMILY_SHA512:
        for (unsigned lane = 0; lane < lanes; lane++)
            memcpy(chains->sha512[lane], state->sha512.chain, sizeof chains->sha512[lane]);
        multi->blocks.sha512(chains->sha512, lane_blocks, 1);
        for (size_t lane = 0; lane < count; lane++)
            store_digest64(blocks[lane], chains->sha512[lane], algorithm->digest_len);
        break;
    case FD_FAMILY_COUNT:
        break;
    }
}

static void xor_digest(uint8_t *t, const uint8_t *u, size_t digest_len)
{
    /* Every digest length is a multiple of four bytes. */
    for (size_t i = 0; i < digest_len; i += 4) {
        uint32_t t_word, u_word;
        memcpy(&t_word, t + i, 4);
        memcpy(&u_word, u + i, 4);
        t_word ^= u_word;
        memcpy(t + i, &t_word, 4);
    }
}

/* Iterations 2..c of count blocks (rows) through the multi-buffer kernel's
 * lanes; lanes past count compress row 0's block again, and their results
 * are dropped. */
static void pbkdf2_iterate_lanes(const fd_algorithm *algorithm, const fd_multi_kernel *multi,
                                 const fd_hmac_state *keyed, pbkdf2_rows *rows, size_t count,
                                 uint32_t iterations_left)
{
    const uint8_t *lane_blocks[FD_BATCH_MAX_LANES];
    fd_lane_chains chains;

    for (unsigned lane = 0; lane < multi->lanes; lane++)
        lane_blocks[lane] = rows->blocks[lane < count ? lane : 0];
    for (; iterations_left != 0; iterations_left--) {
        compress_digest_lanes(algorithm, multi, &keyed->inner, &chains, lane_blocks, rows->blocks,
                              count);
        compress_digest_lanes(algorithm, multi, &keyed->outer, &chains, lane_blocks, rows->blocks,
                              count);
        for (size_t lane = 0; lane < count; lane++)
            xor_digest(rows->t[lane], rows->blocks[lane], algorithm->digest_len);
    }
    fd_secure_zero(&chains, sizeof chains);
}

/* Whether run has its family's loop. */
static bool has_lanes_run(enum fd_family family, const fd_pbkdf2_lanes_run *run)
{
    switch (family) {
    case FD_FAMILY_MD5:
        return run->md5 != NULL;
    case FD_FAMILY_SHA1:
        return run->sha1 != NULL;
    case FD_FAMILY_SHA256:
        return run->sha256 != NULL;
    case FD_FAMILY_SHA512:
        return run->sha512 != NULL;
    case FD_FAMILY_COUNT:
        break;
    }
    return false;
}

/* Iterations 2..c of count blocks (rows) through a kernel's own loop
 * (fd_kernel.pbkdf2_lanes, fd_multi_kernel.pbkdf2), which takes U_1 and
 * returns T as chain words. */
static void pbkdf2_run_kernel_lanes(const fd_algorithm *algorithm, const fd_pbkdf2_lanes_run *run,
                                    const fd_hmac_state *keyed, pbkdf2_rows *rows, size_t count,
                                    uint32_t iterations_left)
{
    const size_t digest_len = algorithm->digest_len;
    fd_lane_chains words;

    /* The words past a digest, which a kernel may load with it. */
    memset(&words, 0, sizeof words);

    switch (algorithm->family) {
    case FD_FAMILY_SHA1:
        for (size_t lane = 0; lane < count; lane++)
            load_words32(words.sha1[lane], rows->blocks[lane], 5, false);
        run->sha1(keyed->inner.sha1.chain, keyed->outer.sha1.chain, words.sha1, count,
                  iterations_left);
        for (size_t lane = 0; lane < count; lane++)
            store_words32(rows->t[lane], words.sha1[lane], 5, false);
        break;
    case FD_FAMILY_SHA256:
        for (size_t lane = 0; lane < count; lane++)
            load_words32(words.sha256[lane], rows->blocks[lane], digest_len / 4, false);
        run->sha256(keyed->inner.sha256.chain, keyed->outer.sha256.chain, digest_len / 4,
                    words.sha256, count, iterations_left);
        for (size_t lane = 0; lane < count; lane++)
            store_words32(rows->t[lane], words.sha256[lane], digest_len / 4, false);
        break;
    case FD_FAMILY_SHA512:
        for (size_t lane = 0; lane < count; lane++)
            load_digest64(words.sha512[lane], rows->blocks[lane], digest_len);
        run->sha512(keyed->inner.sha512.chain, keyed->outer.sha512.chain, digest_len, words.sha512,
                    count, iterations_left);
        for (size_t lane = 0; lane < count; lane++)
            store_digest64(rows->t[lane], words.sha512[lane], digest_len);
        break;
    case FD_FAMILY_MD5:
        for (size_t lane = 0; lane < count; lane++)
            load_words32(words.md5[lane], rows->blocks[lane], 4, true);
        run->md5(keyed->inner.md5.chain, keyed->outer.md5.chain, words.md5, count, iterations_left);
        for (size_t lane = 0; lane < count; lane++)
            store_words32(rows->t[lane], words.md5[lane], 4, true);
        break;
    case FD_FAMILY_COUNT:
        break;
    }
    fd_secure_zero(&words, sizeof words);
}

/* How the next round derives its blocks, and how many: the kernel's own
 * lanes where it has them, else the multi-buffer kernel's, else one block
 * alone; lanes only while at least their min_blocks are left, so that an
 * odd last block runs alone rather than beside idle lanes. */
enum pbkdf2_path { PBKDF2_ONE_BLOCK, PBKDF2_KERNEL_LANES, PBKDF2_MULTI_LANES };

static size_t next_round(const fd_kernel *kernel, const fd_multi_kernel *multi, size_t blocks_left,
                         enum pbkdf2_path *path)
{
    if (kernel->pbkdf2_lanes.lanes != 0) {
        if (blocks_left >= kernel->pbkdf2_lanes.min_blocks) {
            *path = PBKDF2_KERNEL_LANES;
            return blocks_left < kernel->pbkdf2_lanes.lanes ? blocks_left
                                                            : kernel->pbkdf2_lanes.lanes;
        }
    }
    else if (multi->pbkdf2.min_blocks != 0 && blocks_left >= multi->pbkdf2.min_blocks) {
        *path = PBKDF2_MULTI_LANES;
        return blocks_left < multi->lanes ? blocks_left : multi->lanes;
    }
    *path = PBKDF2_ONE_BLOCK;
    return 1;
}

void fd_pbkdf2_hmac(enum fd_algorithm_id id, const uint8_t *password, size_t password_len,
                    const uint8_t *salt, size_t salt_len, uint32_t iterations, uint8_t *out,
                    size_t out_len)
{
    const fd_algorithm *algorithm = &fd_algorithms[id];
    /* Read once: the kernels of every round of this derivation. */
    const fd_kernel *kernel = &fd_active_kernels[algorithm->family];
    const fd_multi_kernel *multi = &fd_active_multi_kernels[algorithm->family];
    size_t digest_len = algorithm->digest_len;
    size_t state_len = algorithm->state_len;
    size_t blocks_left = out_len / digest_len + (out_len % digest_len != 0);
    size_t rows_used = 0;
    uint32_t index = 1;
    fd_hmac_state keyed;
    fd_hash_state salted; /* the inner hash after the keyed block and the salt */
    fd_hash_state inner;
    pbkdf2_rows rows;

    fd_hmac_init(&keyed, id, password, password_len);
    memcpy(&salted, &keyed.inner, state_len);
    algorithm->update(&salted, salt, salt_len);

    while (blocks_left != 0) {
        enum pbkdf2_path path;
        size_t count = next_round(kernel, multi, blocks_left, &path);

        for (size_t row = 0; row < count; row++, index++) {
            /* U_1 = HMAC(P, S || INT(i)), written where the loops read U;
             * T starts as U_1. */
            uint8_t index_be[4];
            fd_store_be32(index_be, index);
            memcpy(&inner, &salted, state_len);
            algorithm->update(&inner, index_be, sizeof index_be);
            pad_one_digest_block(algorithm, rows.blocks[row]);
            hmac_finish(algorithm, &inner, &keyed.outer, rows.blocks[row]);
            memcpy(rows.t[row], rows.blocks[row], digest_len);
        }
        rows_used = count > rows_used ? count : rows_used;

        switch (path) {
        case PBKDF2_ONE_BLOCK:
            pbkdf2_output_block(id, &keyed, rows.blocks[0], iterations - 1, rows.t[0]);
            break;
        case PBKDF2_KERNEL_LANES:
            pbkdf2_run_kernel_lanes(algorithm, &kernel->pbkdf2_lanes.run, &keyed, &rows, count,
                                    iterations - 1);
            break;
        case PBKDF2_MULTI_LANES:
            if (has_lanes_run(algorithm->family, &multi->pbkdf2.run))
                pbkdf2_run_kernel_lanes(algorithm, &multi->pbkdf2.run, &keyed, &rows, count,
                                        iterations - 1);
            else
                pbkdf2_iterate_lanes(algorithm, multi, &keyed, &rows, count, iterations - 1);
            break;
        }

        for (size_t row = 0; row < count; row++) {
            size_t take = out_len < digest_len ? out_len : digest_len;
            memcpy(out, rows.t[row], take);
            out += take;
            out_len -= take;
        }
        blocks_left -= count;
    }

    fd_hmac_wipe(&keyed);
    fd_secure_zero(&salted, sizeof salted);
    fd_secure_zero(&inner, sizeof inner);
    fd_secure_zero(rows.blocks, rows_used * sizeof rows.blocks[0]);
    fd_secure_zero(rows.t, rows_used * sizeof rows.t[0]);
}
