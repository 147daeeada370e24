/* SHA-512 compression with the ARMv8.2 SHA512 instructions.
 *
 * Instruction facts from the Arm Architecture Reference Manual (SHA512H,
 * SHA512H2, SHA512SU0, SHA512SU1), the ACLE intrinsics that map to them, and
 * the operand arrangement of Linux's arch/arm64/crypto/sha512-ce-core.S.
 * The state is four vectors of two words, {a,b} {c,d} {e,f} {g,h}, each
 * with the earlier letter in lane 0 (FIPS order in memory). For two rounds:
 *   vsha512hq_u64(x, {f,g}, {d,e}), with x = {g,h} + {W+K[t+1], W+K[t]}
 *     (note the swapped lanes), returns T1 of both rounds (h + Sigma1(e) +
 *     Ch(e,f,g) + K + W, FIPS 180-4 section 6.4.2); {c,d} plus that is the
 *     new {e,f};
 *   vsha512h2q_u64(T1s, {c,d}, {a,b}) adds the T2 terms (Sigma0, Maj):
 *     the new {a,b}.
 *   The old {a,b} becomes {c,d} and the old {e,f} becomes {g,h}.
 *   vsha512su0q_u64(w[t..t+1], w[t+2..t+3]) adds sigma0 terms and
 *     vsha512su1q_u64(that, w[t+14..t+15], w[t+9..t+10]) the sigma1 and
 *     W[t-7] terms: the schedule words t+16 and t+17. */
#include "kernels/arm/armv8.h"

#ifdef FD_HAVE_ARM_SHA512

/* GCC 12 refuses to inline the SHA intrinsics into a function that gains
 * the feature through __attribute__((target)); a pragma before the header
 * gives the whole file the feature instead. GCC and Clang file the SHA-512
 * instructions under "sha3". GCC's arm_neon.h defines them for
 * "arch=armv8.2-a+sha3" and inlines them only into code built for at least
 * that, so this file is; that is safe because the SHA512 instructions are an
 * ARMv8.2 extension: a CPU that has them implements ARMv8.2. */
#if defined(FD_COMPILER_CLANG)
#pragma clang attribute push(__attribute__((target("sha3"))), apply_to = function)
#elif defined(FD_COMPILER_GCC)
#pragma GCC target("arch=armv8.2-a+sha3")
#endif

#include <arm_neon.h>

typedef struct sha512_vector_state {
    uint64x2_t ab, cd, ef, gh;
} sha512_vector_state;

/* Two schedule words from 16 bytes of the big-endian block, any alignment. */
static inline uint64x2_t load_word_pair(const uint8_t *p)
{
    return vreinterpretq_u64_u8(vrev64q_u8(vld1q_u8(p)));
}

/* Rounds t and t+1, with w = W[t..t+1]. */
static inline void two_rounds(sha512_vector_state *s, uint64x2_t w, int t)
{
    uint64x2_t wk = vaddq_u64(w, vld1q_u64(&fd_sha512_round_constants[t]));
    uint64x2_t fg = vextq_u64(s->ef, s->gh, 1);
    uint64x2_t de = vextq_u64(s->cd, s->ef, 1);
    uint64x2_t sums = vaddq_u64(s->gh, vextq_u64(wk, wk, 1));

    sums = vsha512hq_u64(sums, fg, de);
    uint64x2_t new_ef = vaddq_u64(s->cd, sums);
    uint64x2_t new_ab = vsha512h2q_u64(sums, s->cd, s->ab);
    s->gh = s->ef;
    s->ef = new_ef;
    s->cd = s->ab;
    s->ab = new_ab;
}

/* W[t+16..t+17] from the pairs at t, t+2, t+8, t+10 and t+14. */
static inline uint64x2_t next_word_pair(uint64x2_t w0, uint64x2_t w1, uint64x2_t w4, uint64x2_t w5,
                                        uint64x2_t w7)
{
    return vsha512su1q_u64(vsha512su0q_u64(w0, w1), w7, vextq_u64(w4, w5, 1));
}

void fd_sha512_blocks_armv8(fd_sha512_chain *chain, const uint8_t *blocks, size_t nblocks)
{
    sha512_vector_state s = {
        vld1q_u64(chain->words),
        vld1q_u64(chain->words + 2),
        vld1q_u64(chain->words + 4),
        vld1q_u64(chain->words + 6),
    };

    for (; nblocks != 0; nblocks--, blocks += FD_SHA512_BLOCK_LEN) {
        const sha512_vector_state in = s;
        /* w0..w7 always hold the latest sixteen schedule words, two per
         * vector, oldest in w0; each pair is replaced by its successor once
         * it is used. */
        uint64x2_t w0 = load_word_pair(blocks);
        uint64x2_t w1 = load_word_pair(blocks + 16);
        uint64x2_t w2 = load_word_pair(blocks + 32);
        uint64x2_t w3 = load_word_pair(blocks + 48);
        uint64x2_t w4 = load_word_pair(blocks + 64);
        uint64x2_t w5 = load_word_pair(blocks + 80);
        uint64x2_t w6 = load_word_pair(blocks + 96);
        uint64x2_t w7 = load_word_pair(blocks + 112);

        for (int t = 0; t < 64; t += 16) {
            two_rounds(&s, w0, t);
            w0 = next_word_pair(w0, w1, w4, w5, w7);
            two_rounds(&s, w1, t + 2);
            w1 = next_word_pair(w1, w2, w5, w6, w0);
            two_rounds(&s, w2, t + 4);
            w2 = next_word_pair(w2, w3, w6, w7, w1);
            two_rounds(&s, w3, t + 6);
            w3 = next_word_pair(w3, w4, w7, w0, w2);
            two_rounds(&s, w4, t + 8);
            w4 = next_word_pair(w4, w5, w0, w1, w3);
            two_rounds(&s, w5, t + 10);
            w5 = next_word_pair(w5, w6, w1, w2, w4);
            two_rounds(&s, w6, t + 12);
            w6 = next_word_pair(w6, w7, w2, w3, w5);
            two_rounds(&s, w7, t + 14);
            w7 = next_word_pair(w7, w0, w3, w4, w6);
        }
        /* Rounds 64..79 use the last words; no more schedule to compute. */
        two_rounds(&s, w0, 64);
        two_rounds(&s, w1, 66);
        two_rounds(&s, w2, 68);
        two_rounds(&s, w3, 70);
        two_rounds(&s, w4, 72);
        two_rounds(&s, w5, 74);
        two_rounds(&s, w6, 76);
        two_rounds(&s, w7, 78);

        s.ab = vaddq_u64(s.ab, in.ab);
        s.cd = vaddq_u64(s.cd, in.cd);
        s.ef = vaddq_u64(s.ef, in.ef);
        s.gh = vaddq_u64(s.gh, in.gh);
    }
    vst1q_u64(chain->words, s.ab);
    vst1q_u64(chain->words + 2, s.cd);
    vst1q_u64(chain->words + 4, s.ef);
    vst1q_u64(chain->words + 6, s.gh);
}

#if defined(FD_COMPILER_CLANG)
#pragma clang attribute pop
#endif

#endif /* FD_HAVE_ARM_SHA512 */
