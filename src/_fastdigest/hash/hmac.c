/* HMAC and PBKDF2-HMAC on the descriptor table and a family's kernels (the
 * active ones, or those the known-answer checks and the self-test give),
 * written once for every family over its description (hash/family.h). The
 * parts that set the speed (the end of an HMAC, PBKDF2's loops) are
 * always-inlined functions of the family, instantiated per family (and
 * PBKDF2's loop of one block per algorithm) by a switch over FD_FAMILIES or
 * FD_ALGORITHMS, so that each copy has its block length, byte order and
 * digest length as constants. */
#include "hash/hmac.h"

#include <assert.h>
#include <stdbool.h>
#include <string.h>

#include "hash/buffer.h"
#include "hash/family.h"
#include "dispatch/dispatch.h"
#include "kernels/compiler.h"
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
 * (init) on entry. Returns false where the kernel has no such capability. */
static bool key_both_at_once(const fd_kernel *kernel, const fd_algorithm *algorithm,
                             fd_hmac_state *hmac, const uint8_t *padded_key)
{
    const enum fd_family family = algorithm->family;

    if (!fd_has_hmac_key(family, kernel))
        return false;
    fd_call_hmac_key(family, kernel, padded_key, fd_state_chain(family, &hmac->inner),
                     fd_state_chain(family, &hmac->outer));
    *fd_state_byte_count(family, &hmac->inner) = algorithm->block_len;
    *fd_state_byte_count(family, &hmac->outer) = algorithm->block_len;
    return true;
}

/* fd_hmac_init with kernel, a single-stream kernel of the algorithm's
 * family. */
static void hmac_init_with(const fd_kernel *kernel, fd_hmac_state *hmac, enum fd_algorithm_id id,
                           const uint8_t *key, size_t key_len)
{
    const fd_algorithm *algorithm = &fd_algorithms[id];
    size_t block_len = algorithm->block_len;
    /* K', then the blocks K' ^ ipad and K' ^ opad, side by side so that one
     * call wipes them all. */
    uint8_t keyed[3][FD_MAX_BLOCK_LEN];
    uint8_t *padded_key = keyed[0], *inner_block = keyed[1], *outer_block = keyed[2];

    assert(key != NULL || key_len == 0);
    hmac->algorithm = algorithm;
    /* K': the key zero-padded to a block. RFC 2104: a key longer than a
     * block is replaced by its hash. */
    if (key_len > block_len) {
        fd_hash_with(kernel, id, key, key_len, padded_key);
        key_len = algorithm->digest_len;
    }
    else if (key_len != 0) {
        memcpy(padded_key, key, key_len);
    }
    memset(padded_key + key_len, 0, block_len - key_len);

    algorithm->init(&hmac->inner);
    algorithm->init(&hmac->outer);
    if (key_both_at_once(kernel, algorithm, hmac, padded_key)) {
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
    fd_update_with(kernel, algorithm, &hmac->inner, inner_block, block_len);
    fd_update_with(kernel, algorithm, &hmac->outer, outer_block, block_len);
    fd_secure_zero(keyed, sizeof keyed);
}

void fd_hmac_init(fd_hmac_state *hmac, enum fd_algorithm_id id, const uint8_t *key, size_t key_len)
{
    hmac_init_with(&fd_active_kernels[fd_algorithms[id].family], hmac, id, key, key_len);
}

void fd_hmac_update(fd_hmac_state *hmac, const uint8_t *data, size_t len)
{
    assert(data != NULL || len == 0);
    hmac->algorithm->update(&hmac->inner, data, len);
}

/* ---- blocks made of one digest -------------------------------------------
 *
 * The outer hash of an HMAC, and both hashes of a PBKDF2 iteration from U_2
 * on, see a keyed block and then one digest: their last block is that digest
 * and padding that never changes, compressed without update()'s buffering
 * and final()'s padding. */

/* A block holds one digest, the 0x80 marker and the length field: a key
 * longer than a block hashes to a K' of one block, and a block made of one
 * digest is one block. */
#define DIGEST_FITS_ONE_BLOCK(algorithm, ALGORITHM, family, FAMILY, digest_len, ...)             \
    _Static_assert((digest_len) + 1 + FD_##FAMILY##_LENGTH_FIELD_LEN <= FD_##FAMILY##_BLOCK_LEN, \
                   #algorithm "'s digest and its padding fit one block");
FD_ALGORITHMS(DIGEST_FITS_ONE_BLOCK)
#undef DIGEST_FITS_ONE_BLOCK

/* Compresses block (a digest, padded by fd_pad_one_digest_block) onto a copy
 * of the keyed outer chain with kernel and writes the resulting digest to
 * out. */
static FD_ALWAYS_INLINE void compress_outer(enum fd_family family, const fd_kernel *kernel,
                                            size_t digest_len, const fd_hash_state *outer,
                                            const uint8_t *block, uint8_t *out)
{
    fd_any_chain chain;

    fd_copy_chain(family, &chain, fd_state_const_chain(family, outer));
    fd_call_blocks(family, kernel, &chain, block, 1);
    fd_store_digest_by_words(family, out, &chain, digest_len);
    fd_secure_zero(&chain, sizeof chain);
}

/* The padded last blocks of a state, written out for a kernel's
 * hmac_finish rather than compressed: the buffered bytes, 0x80, zeros and
 * the length field, as buffer.h's fd_stream_final pads them. Returns the
 * block count, 1 or 2. */
static FD_ALWAYS_INLINE size_t write_padded_tail(enum fd_family family, const fd_hash_state *state,
                                                 uint8_t *tail)
{
    const fd_family_info *f = fd_family(family);
    const uint64_t byte_count = fd_state_count(family, state);
    const size_t used = (size_t)(byte_count & (f->block_len - 1));
    const size_t tail_len = used + 1 + f->length_field_len <= f->block_len ? f->block_len
                                                                           : 2 * f->block_len;

    memset(tail, 0, tail_len);
    memcpy(tail, fd_state_const_block(family, state), used);
    tail[used] = 0x80;
    fd_store_length_field(family, tail + tail_len, byte_count);
    return tail_len / f->block_len;
}

/* Writes the MAC of an HMAC whose inner hash has had all its message, with
 * kernel; inner and outer are left as they were. */
static FD_ALWAYS_INLINE void hmac_finish_family(enum fd_family family, const fd_kernel *kernel,
                                                const fd_algorithm *algorithm,
                                                const fd_hash_state *inner,
                                                const fd_hash_state *outer, uint8_t *out)
{
    const fd_family_info *f = fd_family(family);
    const size_t digest_len = fd_family_digest_len(family, algorithm->digest_len);
    uint8_t block[2 * FD_MAX_BLOCK_LEN];
    size_t blocks_written;

    if (fd_has_hmac_finish(family, kernel)) {
        blocks_written = write_padded_tail(family, inner, block);
        fd_call_hmac_finish(family, kernel, fd_state_const_chain(family, inner), block,
                            blocks_written, fd_state_const_chain(family, outer), digest_len, out);
    }
    else {
        /* The inner hash is finalized on a copy, its digest written into the
         * outer hash's padded block. */
        fd_hash_state inner_copy;
        memcpy(&inner_copy, inner, f->state_len);
        fd_pad_one_digest_block(family, digest_len, block);
        fd_final_with(kernel, algorithm, &inner_copy, block);
        compress_outer(family, kernel, digest_len, outer, block, out);
        fd_secure_zero(&inner_copy, f->state_len);
        blocks_written = 1;
    }
    fd_secure_zero(block, blocks_written * f->block_len);
}

static void hmac_finish(const fd_kernel *kernel, const fd_algorithm *algorithm,
                        const fd_hash_state *inner, const fd_hash_state *outer, uint8_t *out)
{
    switch (algorithm->family) {
#define HMAC_FINISH_CASE(name, NAME, ...)                                           \
    case FD_FAMILY_##NAME:                                                          \
        hmac_finish_family(FD_FAMILY_##NAME, kernel, algorithm, inner, outer, out); \
        break;
        FD_FAMILIES(HMAC_FINISH_CASE)
#undef HMAC_FINISH_CASE
    case FD_FAMILY_COUNT:
        break;
    }
}

void fd_hmac_final(const fd_hmac_state *hmac, uint8_t *out)
{
    hmac_finish(&fd_active_kernels[hmac->algorithm->family], hmac->algorithm, &hmac->inner,
                &hmac->outer, out);
}

void fd_hmac_wipe(fd_hmac_state *hmac)
{
    fd_secure_zero(&hmac->inner, hmac->algorithm->state_len);
    fd_secure_zero(&hmac->outer, hmac->algorithm->state_len);
}

void fd_hmac_with(const fd_kernel *kernel, enum fd_algorithm_id id, const uint8_t *key,
                  size_t key_len, const uint8_t *data, size_t len, uint8_t *out)
{
    fd_hmac_state hmac;

    assert(data != NULL || len == 0);
    hmac_init_with(kernel, &hmac, id, key, key_len);
    fd_update_with(kernel, hmac.algorithm, &hmac.inner, data, len);
    hmac_finish(kernel, hmac.algorithm, &hmac.inner, &hmac.outer, out);
    fd_hmac_wipe(&hmac);
}

void fd_hmac(enum fd_algorithm_id id, const uint8_t *key, size_t key_len, const uint8_t *data,
             size_t len, uint8_t *out)
{
    fd_hmac_with(&fd_active_kernels[fd_algorithms[id].family], id, key, key_len, data, len, out);
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

/* T ^= U over the digest's words (words past it are left as they are). */
static FD_ALWAYS_INLINE void xor_words(enum fd_family family, size_t digest_len, void *t,
                                       const void *u)
{
    const size_t word_len = fd_family(family)->word_len;

    for (size_t i = 0; i < (digest_len + word_len - 1) / word_len; i++)
        fd_set_chain_word(family, t, i, fd_chain_word(family, t, i) ^ fd_chain_word(family, u, i));
}

/* Iterations 2..c of one output block. On entry block holds U_1 and its
 * padding, and t holds U_1 as chain words; on return t holds T (its words
 * past the digest mean nothing). The kernel's compress function is read
 * from the copy `kernel`, once, not from the global table in every
 * iteration. */
static FD_ALWAYS_INLINE void pbkdf2_iterate(enum fd_family family, size_t digest_len,
                                            const fd_kernel *kernel, const void *inner_chain,
                                            const void *outer_chain, uint8_t *block,
                                            uint32_t iterations_left, void *t)
{
    fd_any_chain chain;

    for (; iterations_left != 0; iterations_left--) {
        fd_copy_chain(family, &chain, inner_chain);
        fd_call_blocks(family, kernel, &chain, block, 1);
        fd_store_digest_by_words(family, block, &chain, digest_len);
        fd_copy_chain(family, &chain, outer_chain);
        fd_call_blocks(family, kernel, &chain, block, 1);
        fd_store_digest_by_words(family, block, &chain, digest_len);
        xor_words(family, digest_len, t, &chain);
    }
    fd_secure_zero(&chain, sizeof chain);
}

/* Computes one output block T_i from block (U_1, padded) into t_bytes with
 * kernel_in. The kernel is read once here, into a copy the loop's stores
 * cannot alias, never inside the loop; a kernel with a PBKDF2 loop of its
 * own runs the whole loop. */
static FD_ALWAYS_INLINE void pbkdf2_output_block_of(enum fd_family family, size_t digest_len,
                                                    const fd_kernel *kernel_in,
                                                    const fd_hmac_state *keyed, uint8_t *block,
                                                    uint32_t iterations_left, uint8_t *t_bytes)
{
    const fd_kernel kernel = *kernel_in;
    const void *inner_chain = fd_state_const_chain(family, &keyed->inner);
    const void *outer_chain = fd_state_const_chain(family, &keyed->outer);
    fd_any_chain t;

    memset(&t, 0, sizeof t);
    fd_load_digest(family, &t, block, digest_len);
    if (fd_has_pbkdf2(family, &kernel))
        fd_call_pbkdf2(family, &kernel, inner_chain, outer_chain, digest_len, &t, iterations_left);
    else
        pbkdf2_iterate(family, digest_len, &kernel, inner_chain, outer_chain, block,
                       iterations_left, &t);
    fd_store_digest_by_words(family, t_bytes, &t, digest_len);
    fd_secure_zero(&t, sizeof t);
}

/* One copy of the loop for each algorithm, with its digest length a
 * constant: the compiler then unrolls each copy's word loops. */
static void pbkdf2_output_block(enum fd_algorithm_id id, const fd_kernel *kernel,
                                const fd_hmac_state *keyed, uint8_t *block,
                                uint32_t iterations_left, uint8_t *t_bytes)
{
    switch (id) {
#define OUTPUT_BLOCK_CASE(algorithm, ALGORITHM, family, FAMILY, digest_len, ...)     \
    case FD_##ALGORITHM:                                                             \
        pbkdf2_output_block_of(FD_FAMILY_##FAMILY, digest_len, kernel, keyed, block, \
                               iterations_left, t_bytes);                            \
        break;
        FD_ALGORITHMS(OUTPUT_BLOCK_CASE)
#undef OUTPUT_BLOCK_CASE
    case FD_ALGORITHM_COUNT:
        break;
    }
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
static FD_ALWAYS_INLINE void
compress_digest_lanes(enum fd_family family, size_t digest_len, const fd_multi_kernel *multi,
                      const fd_hash_state *state, fd_lane_chains *chains,
                      const uint8_t *const *lane_blocks, uint8_t (*blocks)[FD_MAX_BLOCK_LEN],
                      size_t count)
{
    const void *keyed_chain = fd_state_const_chain(family, state);

    for (unsigned lane = 0; lane < multi->lanes; lane++)
        fd_copy_chain(family, fd_lane_chain(family, chains, lane), keyed_chain);
    fd_call_blocks_multi(family, multi, chains, lane_blocks, 1);
    for (size_t lane = 0; lane < count; lane++)
        fd_store_digest_by_words(family, blocks[lane], fd_lane_chain(family, chains, lane),
                                 digest_len);
}

/* Every digest length is a multiple of four bytes, so T ^= U goes a 32-bit
 * word at a time. */
#define DIGEST_IS_WORDS(algorithm, ALGORITHM, family, FAMILY, digest_len, ...) \
    _Static_assert((digest_len) % 4 == 0, #algorithm "'s digest is whole 32-bit words");
FD_ALGORITHMS(DIGEST_IS_WORDS)
#undef DIGEST_IS_WORDS

static FD_ALWAYS_INLINE void xor_digest(uint8_t *t, const uint8_t *u, size_t digest_len)
{
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
static FD_ALWAYS_INLINE void pbkdf2_iterate_lanes(enum fd_family family, size_t digest_len,
                                                  const fd_multi_kernel *multi,
                                                  const fd_hmac_state *keyed, pbkdf2_rows *rows,
                                                  size_t count, uint32_t iterations_left)
{
    const uint8_t *lane_blocks[FD_BATCH_MAX_LANES];
    fd_lane_chains chains;

    for (unsigned lane = 0; lane < multi->lanes; lane++)
        lane_blocks[lane] = rows->blocks[lane < count ? lane : 0];
    for (; iterations_left != 0; iterations_left--) {
        compress_digest_lanes(family, digest_len, multi, &keyed->inner, &chains, lane_blocks,
                              rows->blocks, count);
        compress_digest_lanes(family, digest_len, multi, &keyed->outer, &chains, lane_blocks,
                              rows->blocks, count);
        for (size_t lane = 0; lane < count; lane++)
            xor_digest(rows->t[lane], rows->blocks[lane], digest_len);
    }
    fd_secure_zero(&chains, sizeof chains);
}

/* Iterations 2..c of count blocks (rows) through a kernel's own loop
 * (fd_kernel.pbkdf2_lanes, fd_multi_kernel.pbkdf2), which takes U_1 and
 * returns T as chain words. */
static FD_ALWAYS_INLINE void pbkdf2_run_kernel_lanes(enum fd_family family, size_t digest_len,
                                                     const fd_pbkdf2_lanes_run *run,
                                                     const fd_hmac_state *keyed, pbkdf2_rows *rows,
                                                     size_t count, uint32_t iterations_left)
{
    fd_lane_chains words;

    /* The words past a digest, which a kernel may load with it. */
    memset(&words, 0, sizeof words);
    for (size_t lane = 0; lane < count; lane++)
        fd_load_digest(family, fd_lane_chain(family, &words, lane), rows->blocks[lane], digest_len);
    fd_call_pbkdf2_lanes(family, run, fd_state_const_chain(family, &keyed->inner),
                         fd_state_const_chain(family, &keyed->outer), digest_len, &words, count,
                         iterations_left);
    for (size_t lane = 0; lane < count; lane++)
        fd_store_digest_by_words(family, rows->t[lane], fd_lane_chain(family, &words, lane),
                                 digest_len);
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

/* Iterations 2..c of a round of count blocks through lanes (path is
 * PBKDF2_KERNEL_LANES or PBKDF2_MULTI_LANES). */
static FD_ALWAYS_INLINE void pbkdf2_lanes_round_of(enum fd_family family,
                                                   const fd_algorithm *algorithm,
                                                   enum pbkdf2_path path, const fd_kernel *kernel,
                                                   const fd_multi_kernel *multi,
                                                   const fd_hmac_state *keyed, pbkdf2_rows *rows,
                                                   size_t count, uint32_t iterations_left)
{
    const size_t digest_len = fd_family_digest_len(family, algorithm->digest_len);

    if (path == PBKDF2_KERNEL_LANES) {
        assert(count >= 1 && count <= kernel->pbkdf2_lanes.lanes);
        pbkdf2_run_kernel_lanes(family, digest_len, &kernel->pbkdf2_lanes.run, keyed, rows, count,
                                iterations_left);
        return;
    }
    assert(count >= 1 && count <= multi->lanes);
    if (fd_has_pbkdf2_lanes(family, &multi->pbkdf2.run))
        pbkdf2_run_kernel_lanes(family, digest_len, &multi->pbkdf2.run, keyed, rows, count,
                                iterations_left);
    else
        pbkdf2_iterate_lanes(family, digest_len, multi, keyed, rows, count, iterations_left);
}

static void pbkdf2_lanes_round(const fd_algorithm *algorithm, enum pbkdf2_path path,
                               const fd_kernel *kernel, const fd_multi_kernel *multi,
                               const fd_hmac_state *keyed, pbkdf2_rows *rows, size_t count,
                               uint32_t iterations_left)
{
    switch (algorithm->family) {
#define LANES_ROUND_CASE(name, NAME, ...)                                                    \
    case FD_FAMILY_##NAME:                                                                   \
        pbkdf2_lanes_round_of(FD_FAMILY_##NAME, algorithm, path, kernel, multi, keyed, rows, \
                              count, iterations_left);                                       \
        break;
        FD_FAMILIES(LANES_ROUND_CASE)
#undef LANES_ROUND_CASE
    case FD_FAMILY_COUNT:
        break;
    }
}

void fd_pbkdf2_hmac(enum fd_algorithm_id id, const uint8_t *password, size_t password_len,
                    const uint8_t *salt, size_t salt_len, uint32_t iterations, uint8_t *out,
                    size_t out_len)
{
    const enum fd_family family = fd_algorithms[id].family;

    fd_pbkdf2_hmac_with(&fd_active_kernels[family], fd_batch_multi_kernel(family), id, password,
                        password_len, salt, salt_len, iterations, out, out_len);
}

void fd_pbkdf2_hmac_with(const fd_kernel *kernel, const fd_multi_kernel *multi,
                         enum fd_algorithm_id id, const uint8_t *password, size_t password_len,
                         const uint8_t *salt, size_t salt_len, uint32_t iterations, uint8_t *out,
                         size_t out_len)
{
    /* What next_round reads of a family without a multi-buffer kernel. */
    static const fd_multi_kernel no_multi_kernel = {.name = NULL};
    const fd_algorithm *algorithm = &fd_algorithms[id];
    size_t digest_len = algorithm->digest_len;
    size_t state_len = algorithm->state_len;
    size_t blocks_left = out_len / digest_len + (out_len % digest_len != 0);
    size_t rows_used = 0;
    uint32_t index = 1;
    fd_hmac_state keyed;
    fd_hash_state salted; /* the inner hash after the keyed block and the salt */
    fd_hash_state inner;
    pbkdf2_rows rows;

    assert(iterations >= 1);
    assert(out_len >= 1 && (out_len - 1) / digest_len < UINT32_MAX);
    assert(salt != NULL || salt_len == 0);
    assert(multi == NULL || (multi->lanes >= 2 && multi->lanes <= FD_BATCH_MAX_LANES));
    if (multi == NULL)
        multi = &no_multi_kernel;
    hmac_init_with(kernel, &keyed, id, password, password_len);
    memcpy(&salted, &keyed.inner, state_len);
    fd_update_with(kernel, algorithm, &salted, salt, salt_len);

    while (blocks_left != 0) {
        enum pbkdf2_path path;
        size_t count = next_round(kernel, multi, blocks_left, &path);

        for (size_t row = 0; row < count; row++, index++) {
            /* U_1 = HMAC(P, S || INT(i)), written where the loops read U;
             * T starts as U_1. */
            uint8_t index_be[4];
            fd_store_be32(index_be, index);
            memcpy(&inner, &salted, state_len);
            fd_update_with(kernel, algorithm, &inner, index_be, sizeof index_be);
            fd_pad_one_digest_block(algorithm->family, digest_len, rows.blocks[row]);
            hmac_finish(kernel, algorithm, &inner, &keyed.outer, rows.blocks[row]);
            memcpy(rows.t[row], rows.blocks[row], digest_len);
        }
        rows_used = count > rows_used ? count : rows_used;

        if (path == PBKDF2_ONE_BLOCK)
            pbkdf2_output_block(id, kernel, &keyed, rows.blocks[0], iterations - 1, rows.t[0]);
        else
            pbkdf2_lanes_round(algorithm, path, kernel, multi, &keyed, &rows, count,
                               iterations - 1);

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
