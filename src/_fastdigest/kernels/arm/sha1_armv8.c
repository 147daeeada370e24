/* SHA-1 compression with the ARMv8 Cryptography Extensions.
 *
 * Instruction facts from the Arm Architecture Reference Manual (SHA1C,
 * SHA1P, SHA1M, SHA1H, SHA1SU0, SHA1SU1) and the ACLE intrinsics that map
 * to them:
 *   vsha1cq_u32 / vsha1pq_u32 / vsha1mq_u32 (abcd, e, wk) do four rounds
 *     with the choose, parity and majority functions of FIPS 180-4 and
 *     return the new a..d; a is lane 0, so the chain loads as it is.
 *   The e of the next four rounds is the a from before them rotated left by
 *     30, which vsha1h_u32 computes from the old lane 0.
 *   vsha1su0q_u32(w0_3, w4_7, w8_11) then vsha1su1q_u32(that, w12_15) give
 *     the next four schedule words. */
#include "kernels/endian.h"
#include "kernels/arm/armv8.h"

#ifdef FD_HAVE_ARM_SHA1

/* GCC 12 refuses to inline the SHA intrinsics into a function that gains
 * the feature through __attribute__((target)); a pragma before the header
 * gives the whole file the feature instead. */
#if defined(FD_COMPILER_CLANG)
#pragma clang attribute push(__attribute__((target("sha2"))), apply_to = function)
#elif defined(FD_COMPILER_GCC)
#pragma GCC target("+crypto")
#endif

#include <arm_neon.h>

/* The round constants of FIPS 180-4 section 4.2.1, one per twenty rounds. */
#define SHA1_K_CHOOSE 0x5a827999u
#define SHA1_K_PARITY_1 0x6ed9eba1u
#define SHA1_K_MAJORITY 0x8f1bbcdcu
#define SHA1_K_PARITY_2 0xca62c1d6u

enum sha1_round_function { CHOOSE, PARITY, MAJORITY };

static inline uint32x4_t load_word_group(const uint8_t *p)
{
    return vreinterpretq_u32_u8(vrev32q_u8(vld1q_u8(p)));
}

/* Four rounds. `function` is a constant at every call, so the switch folds
 * away once this is inlined. */
static inline void four_rounds(uint32x4_t *abcd, uint32_t *e, uint32x4_t w, uint32_t k,
                               enum sha1_round_function function)
{
    uint32x4_t wk = vaddq_u32(w, vdupq_n_u32(k));
    uint32_t next_e = vsha1h_u32(vgetq_lane_u32(*abcd, 0));
    switch (function) {
    case CHOOSE:
        *abcd = vsha1cq_u32(*abcd, *e, wk);
        break;
    case PARITY:
        *abcd = vsha1pq_u32(*abcd, *e, wk);
        break;
    case MAJORITY:
        *abcd = vsha1mq_u32(*abcd, *e, wk);
        break;
    }
    *e = next_e;
}

/* W[t+16..t+19] from W[t..t+15], given as four groups. */
static inline uint32x4_t next_word_group(uint32x4_t w0, uint32x4_t w1, uint32x4_t w2, uint32x4_t w3)
{
    return vsha1su1q_u32(vsha1su0q_u32(w0, w1, w2), w3);
}

/* Compresses one block, given as its four word groups, into the state:
 * 80 rounds and the feed-forward. */
static FD_ALWAYS_INLINE void compress_block(uint32x4_t *abcd, uint32_t *e, uint32x4_t w0,
                                            uint32x4_t w1, uint32x4_t w2, uint32x4_t w3)
{
    const uint32x4_t abcd_in = *abcd;
    const uint32_t e_in = *e;

    /* w0..w3 always hold the latest sixteen schedule words, oldest in w0;
     * each group is replaced by its successor once it is used. */

    /* Rounds 0..19. */
    four_rounds(abcd, e, w0, SHA1_K_CHOOSE, CHOOSE);
    w0 = next_word_group(w0, w1, w2, w3);
    four_rounds(abcd, e, w1, SHA1_K_CHOOSE, CHOOSE);
    w1 = next_word_group(w1, w2, w3, w0);
    four_rounds(abcd, e, w2, SHA1_K_CHOOSE, CHOOSE);
    w2 = next_word_group(w2, w3, w0, w1);
    four_rounds(abcd, e, w3, SHA1_K_CHOOSE, CHOOSE);
    w3 = next_word_group(w3, w0, w1, w2);
    four_rounds(abcd, e, w0, SHA1_K_CHOOSE, CHOOSE);
    w0 = next_word_group(w0, w1, w2, w3);

    /* Rounds 20..39. */
    four_rounds(abcd, e, w1, SHA1_K_PARITY_1, PARITY);
    w1 = next_word_group(w1, w2, w3, w0);
    four_rounds(abcd, e, w2, SHA1_K_PARITY_1, PARITY);
    w2 = next_word_group(w2, w3, w0, w1);
    four_rounds(abcd, e, w3, SHA1_K_PARITY_1, PARITY);
    w3 = next_word_group(w3, w0, w1, w2);
    four_rounds(abcd, e, w0, SHA1_K_PARITY_1, PARITY);
    w0 = next_word_group(w0, w1, w2, w3);
    four_rounds(abcd, e, w1, SHA1_K_PARITY_1, PARITY);
    w1 = next_word_group(w1, w2, w3, w0);

    /* Rounds 40..59. */
    four_rounds(abcd, e, w2, SHA1_K_MAJORITY, MAJORITY);
    w2 = next_word_group(w2, w3, w0, w1);
    four_rounds(abcd, e, w3, SHA1_K_MAJORITY, MAJORITY);
    w3 = next_word_group(w3, w0, w1, w2);
    four_rounds(abcd, e, w0, SHA1_K_MAJORITY, MAJORITY);
    w0 = next_word_group(w0, w1, w2, w3);
    four_rounds(abcd, e, w1, SHA1_K_MAJORITY, MAJORITY);
    w1 = next_word_group(w1, w2, w3, w0);
    four_rounds(abcd, e, w2, SHA1_K_MAJORITY, MAJORITY);
    w2 = next_word_group(w2, w3, w0, w1);

    /* Rounds 60..79: the last four groups (W[64..79]) need no
     * successors. */
    four_rounds(abcd, e, w3, SHA1_K_PARITY_2, PARITY);
    w3 = next_word_group(w3, w0, w1, w2);
    four_rounds(abcd, e, w0, SHA1_K_PARITY_2, PARITY);
    four_rounds(abcd, e, w1, SHA1_K_PARITY_2, PARITY);
    four_rounds(abcd, e, w2, SHA1_K_PARITY_2, PARITY);
    four_rounds(abcd, e, w3, SHA1_K_PARITY_2, PARITY);

    *abcd = vaddq_u32(*abcd, abcd_in);
    *e += e_in;
}

/* Compresses nblocks consecutive blocks from memory (any alignment). */
static FD_ALWAYS_INLINE void compress_blocks(uint32x4_t *abcd, uint32_t *e, const uint8_t *blocks,
                                             size_t nblocks)
{
    for (; nblocks != 0; nblocks--, blocks += FD_SHA1_BLOCK_LEN)
        compress_block(abcd, e, load_word_group(blocks), load_word_group(blocks + 16),
                       load_word_group(blocks + 32), load_word_group(blocks + 48));
}

void fd_sha1_blocks_armv8(fd_sha1_chain *chain, const uint8_t *blocks, size_t nblocks)
{
    uint32x4_t abcd = vld1q_u32(chain->words);
    uint32_t e = chain->words[4];

    compress_blocks(&abcd, &e, blocks, nblocks);
    vst1q_u32(chain->words, abcd);
    chain->words[4] = e;
}

/* ---- HMAC and PBKDF2 (see kernels/kernel.h and sha1_shani.c) ---------------------
 *
 * A state's a..d are the first word group of the block that holds its
 * digest as they are; its e, the 0x80 marker and zeros are the second. */

/* Compresses the block made of the digest (abcd, e) and its padding onto
 * (chain_abcd, chain_e): W[5] = 0x80000000, W[6..14] = 0, W[15] = the bit
 * length of the keyed block and the digest (FIPS 180-4, 5.1.1). */
static FD_ALWAYS_INLINE void compress_digest_block(uint32x4_t *chain_abcd, uint32_t *chain_e,
                                                   uint32x4_t abcd, uint32_t e)
{
    const uint32_t group1_words[4] = {e, 0x80000000u, 0, 0};
    const uint32_t group3_words[4] = {0, 0, 0, (FD_SHA1_BLOCK_LEN + 20) * 8};

    compress_block(chain_abcd, chain_e, abcd, vld1q_u32(group1_words), vdupq_n_u32(0),
                   vld1q_u32(group3_words));
}

void fd_sha1_pbkdf2_armv8(const fd_sha1_chain *inner_chain, const fd_sha1_chain *outer_chain,
                          size_t digest_len, fd_sha1_chain *words, uint32_t iterations_left)
{
    const uint32x4_t inner_abcd = vld1q_u32(inner_chain->words);
    const uint32x4_t outer_abcd = vld1q_u32(outer_chain->words);
    uint32x4_t u_abcd = vld1q_u32(words->words), t_abcd = u_abcd;
    uint32_t u_e = words->words[4], t_e = u_e;

    (void)digest_len; /* SHA-1's */

    for (; iterations_left != 0; iterations_left--) {
        uint32x4_t abcd = inner_abcd;
        uint32_t e = inner_chain->words[4];
        compress_digest_block(&abcd, &e, u_abcd, u_e);
        u_abcd = outer_abcd;
        u_e = outer_chain->words[4];
        compress_digest_block(&u_abcd, &u_e, abcd, e);
        t_abcd = veorq_u32(t_abcd, u_abcd);
        t_e ^= u_e;
    }
    vst1q_u32(words->words, t_abcd);
    words->words[4] = t_e;
}

void fd_sha1_hmac_finish_armv8(const fd_sha1_chain *inner_chain, const uint8_t *tail,
                               size_t tail_blocks, const fd_sha1_chain *outer_chain,
                               size_t digest_len, uint8_t *out)
{
    uint32x4_t abcd = vld1q_u32(inner_chain->words), outer_abcd = vld1q_u32(outer_chain->words);
    uint32_t e = inner_chain->words[4], outer_e = outer_chain->words[4];

    (void)digest_len; /* SHA-1's */

    compress_blocks(&abcd, &e, tail, tail_blocks);
    compress_digest_block(&outer_abcd, &outer_e, abcd, e);
    vst1q_u8(out, vrev32q_u8(vreinterpretq_u8_u32(outer_abcd)));
    fd_store_be32(out + 16, outer_e);
}

#if defined(FD_COMPILER_CLANG)
#pragma clang attribute pop
#endif

#endif /* FD_HAVE_ARM_SHA1 */
