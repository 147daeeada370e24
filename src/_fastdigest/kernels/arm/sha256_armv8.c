/* SHA-256 compression with the ARMv8 Cryptography Extensions.
 *
 * Instruction facts from the Arm Architecture Reference Manual (SHA256H,
 * SHA256H2, SHA256SU0, SHA256SU1) and the ACLE intrinsics that map to them:
 *   vsha256hq_u32(abcd, efgh, wk) does four rounds and returns the new a..d;
 *     vsha256h2q_u32(efgh, abcd, wk), given the a..d from BEFORE those
 *     rounds, returns the new e..h. Both take W+K for the four rounds.
 *   vsha256su0q_u32(w0_3, w4_7) adds sigma0 terms and
 *     vsha256su1q_u32(that, w8_11, w12_15) the W[t-7] and sigma1 terms,
 *     giving the next four schedule words.
 * Unlike x86's SHA-NI, the state vectors hold a..d and e..h with a in lane 0,
 * which is FIPS order in memory: the chain loads and stores as it is. */
#include "kernels/arm/armv8.h"

#ifdef FD_HAVE_ARM_SHA256

/* GCC 12 refuses to inline the SHA intrinsics into a function that gains
 * the feature through __attribute__((target)); a pragma before the header
 * gives the whole file the feature instead. */
#if defined(FD_COMPILER_CLANG)
#pragma clang attribute push(__attribute__((target("sha2"))), apply_to = function)
#elif defined(FD_COMPILER_GCC)
#pragma GCC target("+crypto")
#endif

#include <arm_neon.h>
#include <stdbool.h>
#include <string.h>

/* Four schedule words from 16 bytes of the big-endian block, at any
 * alignment (vld1q_u8 has no alignment requirement). */
static inline uint32x4_t load_word_group(const uint8_t *p)
{
    return vreinterpretq_u32_u8(vrev32q_u8(vld1q_u8(p)));
}

/* Four rounds with schedule words w (W[t..t+3]) and constants K[t..t+3]. */
static inline void four_rounds(uint32x4_t *abcd, uint32x4_t *efgh, uint32x4_t w, int t)
{
    uint32x4_t wk = vaddq_u32(w, vld1q_u32(&fd_sha256_round_constants[t]));
    uint32x4_t abcd_before = *abcd;
    *abcd = vsha256hq_u32(*abcd, *efgh, wk);
    *efgh = vsha256h2q_u32(*efgh, abcd_before, wk);
}

/* W[t+16..t+19] from W[t..t+15], given as four groups. */
static inline uint32x4_t next_word_group(uint32x4_t w0, uint32x4_t w1, uint32x4_t w2, uint32x4_t w3)
{
    return vsha256su1q_u32(vsha256su0q_u32(w0, w1), w2, w3);
}

/* Compresses one block, given as its four word groups, into the state:
 * 64 rounds and the feed-forward. */
static FD_ALWAYS_INLINE void compress_block(uint32x4_t *abcd, uint32x4_t *efgh, uint32x4_t w0,
                                            uint32x4_t w1, uint32x4_t w2, uint32x4_t w3)
{
    const uint32x4_t abcd_in = *abcd, efgh_in = *efgh;

    /* w0..w3 always hold the latest sixteen schedule words, oldest in w0;
     * each group is replaced by its successor once it is used. */
    for (int t = 0; t < 48; t += 16) {
        four_rounds(abcd, efgh, w0, t);
        w0 = next_word_group(w0, w1, w2, w3);
        four_rounds(abcd, efgh, w1, t + 4);
        w1 = next_word_group(w1, w2, w3, w0);
        four_rounds(abcd, efgh, w2, t + 8);
        w2 = next_word_group(w2, w3, w0, w1);
        four_rounds(abcd, efgh, w3, t + 12);
        w3 = next_word_group(w3, w0, w1, w2);
    }
    /* Rounds 48..63 use the last words; no more schedule to compute. */
    four_rounds(abcd, efgh, w0, 48);
    four_rounds(abcd, efgh, w1, 52);
    four_rounds(abcd, efgh, w2, 56);
    four_rounds(abcd, efgh, w3, 60);

    *abcd = vaddq_u32(*abcd, abcd_in);
    *efgh = vaddq_u32(*efgh, efgh_in);
}

/* Compresses nblocks consecutive blocks from memory (any alignment). */
static FD_ALWAYS_INLINE void compress_blocks(uint32x4_t *abcd, uint32x4_t *efgh,
                                             const uint8_t *blocks, size_t nblocks)
{
    for (; nblocks != 0; nblocks--, blocks += FD_SHA256_BLOCK_LEN)
        compress_block(abcd, efgh, load_word_group(blocks), load_word_group(blocks + 16),
                       load_word_group(blocks + 32), load_word_group(blocks + 48));
}

void fd_sha256_blocks_armv8(fd_sha256_chain *chain, const uint8_t *blocks, size_t nblocks)
{
    uint32x4_t abcd = vld1q_u32(chain->words);
    uint32x4_t efgh = vld1q_u32(chain->words + 4);

    compress_blocks(&abcd, &efgh, blocks, nblocks);
    vst1q_u32(chain->words, abcd);
    vst1q_u32(chain->words + 4, efgh);
}

/* ---- HMAC and PBKDF2 (see fd_sha256_pbkdf2_fn, fd_sha256_hmac_finish_fn
 * and sha256_shani.c) ---------------------------------------------------
 *
 * The state vectors hold the chain in FIPS order, which is also the order of
 * the message words, so a digest becomes the first two word groups of the
 * block that holds it as it is. */

/* The rest of a block that holds one digest of digest_words words (8 for
 * SHA-256, 7 for SHA-224) after one keyed block: the 0x80 marker, zeros and
 * the bit length (FIPS 180-4, 5.1.1). For SHA-256 the marker opens group 2;
 * SHA-224's seven words leave it in the top lane of group 1, where
 * mark_digest_end puts it. */
typedef struct digest_block_padding {
    bool truncated;
    uint32x4_t group2, group3;
} digest_block_padding;

static inline digest_block_padding padding_after_digest(size_t digest_words)
{
    const bool truncated = digest_words == 7;
    const uint32_t group2_words[4] = {truncated ? 0 : 0x80000000u, 0, 0, 0};
    const uint32_t group3_words[4] = {0, 0, 0,
                                      (uint32_t)(FD_SHA256_BLOCK_LEN + 4 * digest_words) * 8};
    const digest_block_padding padding = {truncated, vld1q_u32(group2_words),
                                          vld1q_u32(group3_words)};
    return padding;
}

static inline uint32x4_t mark_digest_end(const digest_block_padding *padding, uint32x4_t w1)
{
    return padding->truncated ? vsetq_lane_u32(0x80000000u, w1, 3) : w1;
}

static FD_ALWAYS_INLINE void pbkdf2_iterate(const uint32_t inner_chain[8],
                                            const uint32_t outer_chain[8], size_t digest_words,
                                            uint32_t words[8], uint32_t iterations_left)
{
    const digest_block_padding padding = padding_after_digest(digest_words);
    const uint32x4_t inner_abcd = vld1q_u32(inner_chain), inner_efgh = vld1q_u32(inner_chain + 4);
    const uint32x4_t outer_abcd = vld1q_u32(outer_chain), outer_efgh = vld1q_u32(outer_chain + 4);
    uint32x4_t u0 = vld1q_u32(words), u1 = mark_digest_end(&padding, vld1q_u32(words + 4));
    uint32x4_t t0 = u0, t1 = u1;

    for (; iterations_left != 0; iterations_left--) {
        uint32x4_t abcd = inner_abcd, efgh = inner_efgh;
        compress_block(&abcd, &efgh, u0, u1, padding.group2, padding.group3);
        u0 = outer_abcd;
        u1 = outer_efgh;
        compress_block(&u0, &u1, abcd, mark_digest_end(&padding, efgh), padding.group2,
                       padding.group3);
        u1 = mark_digest_end(&padding, u1);
        t0 = veorq_u32(t0, u0);
        t1 = veorq_u32(t1, u1);
    }

    vst1q_u32(words, t0);
    if (padding.truncated) {
        words[4] = vgetq_lane_u32(t1, 0);
        words[5] = vgetq_lane_u32(t1, 1);
        words[6] = vgetq_lane_u32(t1, 2);
    }
    else {
        vst1q_u32(words + 4, t1);
    }
}

void fd_sha256_pbkdf2_armv8(const fd_sha256_chain *inner_chain, const fd_sha256_chain *outer_chain,
                            size_t digest_len, fd_sha256_chain *words, uint32_t iterations_left)
{
    if (digest_len == FD_SHA224_DIGEST_LEN)
        pbkdf2_iterate(inner_chain->words, outer_chain->words, 7, words->words, iterations_left);
    else
        pbkdf2_iterate(inner_chain->words, outer_chain->words, 8, words->words, iterations_left);
}

void fd_sha256_hmac_finish_armv8(const fd_sha256_chain *inner_chain, const uint8_t *tail,
                                 size_t tail_blocks, const fd_sha256_chain *outer_chain,
                                 size_t digest_len, uint8_t *out)
{
    const digest_block_padding padding = padding_after_digest(digest_len / 4);
    uint32x4_t abcd = vld1q_u32(inner_chain->words), efgh = vld1q_u32(inner_chain->words + 4);
    uint32x4_t outer_abcd = vld1q_u32(outer_chain->words);
    uint32x4_t outer_efgh = vld1q_u32(outer_chain->words + 4);

    compress_blocks(&abcd, &efgh, tail, tail_blocks);
    compress_block(&outer_abcd, &outer_efgh, abcd, mark_digest_end(&padding, efgh), padding.group2,
                   padding.group3);

    /* The digest, big-endian: 32 bytes, or SHA-224's first 28. */
    uint8_t digest[FD_SHA256_DIGEST_LEN];
    vst1q_u8(digest, vrev32q_u8(vreinterpretq_u8_u32(outer_abcd)));
    vst1q_u8(digest + 16, vrev32q_u8(vreinterpretq_u8_u32(outer_efgh)));
    memcpy(out, digest, digest_len);
}

#if defined(FD_COMPILER_CLANG)
#pragma clang attribute pop
#endif

#endif /* FD_HAVE_ARM_SHA256 */
