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
#include "kernels_arm.h"

#ifdef FD_HAVE_ARM_SHA256

/* GCC 12 refuses to inline the SHA intrinsics into a function that gains
 * the feature through __attribute__((target)); a pragma before the header
 * gives the whole file the feature instead. */
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("sha2"))), apply_to = function)
#elif defined(__GNUC__)
#pragma GCC target("+crypto")
#endif

#include <arm_neon.h>

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
static inline uint32x4_t next_word_group(uint32x4_t w0, uint32x4_t w1, uint32x4_t w2,
                                         uint32x4_t w3)
{
    return vsha256su1q_u32(vsha256su0q_u32(w0, w1), w2, w3);
}

void fd_sha256_blocks_armv8(uint32_t chain[8], const uint8_t *blocks, size_t nblocks)
{
    uint32x4_t abcd = vld1q_u32(chain);
    uint32x4_t efgh = vld1q_u32(chain + 4);

    for (; nblocks != 0; nblocks--, blocks += FD_SHA256_BLOCK_LEN) {
        const uint32x4_t abcd_in = abcd, efgh_in = efgh;
        /* w0..w3 always hold the latest sixteen schedule words, oldest in
         * w0; each group is replaced by its successor once it is used. */
        uint32x4_t w0 = load_word_group(blocks);
        uint32x4_t w1 = load_word_group(blocks + 16);
        uint32x4_t w2 = load_word_group(blocks + 32);
        uint32x4_t w3 = load_word_group(blocks + 48);

        for (int t = 0; t < 48; t += 16) {
            four_rounds(&abcd, &efgh, w0, t);
            w0 = next_word_group(w0, w1, w2, w3);
            four_rounds(&abcd, &efgh, w1, t + 4);
            w1 = next_word_group(w1, w2, w3, w0);
            four_rounds(&abcd, &efgh, w2, t + 8);
            w2 = next_word_group(w2, w3, w0, w1);
            four_rounds(&abcd, &efgh, w3, t + 12);
            w3 = next_word_group(w3, w0, w1, w2);
        }
        /* Rounds 48..63 use the last words; no more schedule to compute. */
        four_rounds(&abcd, &efgh, w0, 48);
        four_rounds(&abcd, &efgh, w1, 52);
        four_rounds(&abcd, &efgh, w2, 56);
        four_rounds(&abcd, &efgh, w3, 60);

        abcd = vaddq_u32(abcd, abcd_in);
        efgh = vaddq_u32(efgh, efgh_in);
    }
    vst1q_u32(chain, abcd);
    vst1q_u32(chain + 4, efgh);
}

#if defined(__clang__)
#pragma clang attribute pop
#endif

#endif /* FD_HAVE_ARM_SHA256 */
