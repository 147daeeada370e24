/* MD5 compression of sixteen messages at once, one per 32-bit lane of
 * AVX-512.
 *
 * The same lane-parallel MD5 as md5_avx2_x8.c, with what AVX-512F adds:
 *   vprold rotates in one instruction (AVX2 needs two shifts and an or);
 *   vpternlogd computes any function of three inputs in one instruction,
 *     so each round function F, G, H, I is one instruction, its truth table
 *     the immediate (b, c, d as the first, second and third operand).
 * A step's dependency chain through b is then four one-cycle instructions
 * (ternary logic, add, rotate, add). The chain, not the instruction count,
 * bounds one group of lanes, so sixteen lanes (a zmm register) run the
 * chain for twice the messages of eight. On Zen 4, which splits a 512-bit
 * operation over two 256-bit halves, that still halves the time per message
 * against eight lanes; on cores with full 512-bit units it does more.
 *
 * The message words arrive as sixteen 64-byte blocks, one per lane: a 16x16
 * transpose of 32-bit words (unpack 32-bit, unpack 64-bit, then two rounds
 * of 128-bit shuffles) gives X[k] of every lane in vector k. */
#include "kernels/x86/avx512/avx512.h"

#ifdef FD_HAVE_AVX512_MULTI

#include <immintrin.h>

#include "kernels/md5_steps.h"

#include "kernels/x86/avx512/avx512_lanes.h"

/* Truth tables of the round functions for vpternlogd(b, c, d): with b, c, d
 * standing for 0xf0, 0xcc and 0xaa, each is its function of those bytes. */
enum {
    TERNARY_F = 0xca, /* (b & c) | (~b & d) */
    TERNARY_G = 0xe4, /* (b & d) | (c & ~d) */
    TERNARY_H = 0x96, /* b ^ c ^ d */
    TERNARY_I = 0x39, /* c ^ (b | ~d) */
};

/* b + rotl(a + f(b, c, d) + X[k] + T, s), f given by its truth table. The
 * rotate takes its count from a vector so that the count need not be an
 * immediate (vprolvd is as fast as vprold). */
#define FD_MD5_STEP(name, table)                                                              \
    FD_TARGET_AVX512                                                                          \
    static FD_ALWAYS_INLINE __m512i name(__m512i a, __m512i b, __m512i c, __m512i d,          \
                                         __m512i x, uint32_t t, int s)                        \
    {                                                                                         \
        __m512i sum = _mm512_add_epi32(_mm512_add_epi32(x, _mm512_set1_epi32((int)t)), a);    \
        sum = _mm512_add_epi32(sum, _mm512_ternarylogic_epi32(b, c, d, table));               \
        return _mm512_add_epi32(b, _mm512_rolv_epi32(sum, _mm512_set1_epi32(s)));             \
    }

FD_MD5_STEP(step_f, TERNARY_F)
FD_MD5_STEP(step_g, TERNARY_G)
FD_MD5_STEP(step_h, TERNARY_H)
FD_MD5_STEP(step_i, TERNARY_I)

FD_TARGET_AVX512
void fd_md5_blocks_avx512_x16(uint32_t (*chains)[4], const uint8_t *const *blocks,
                              size_t nblocks)
{
    /* Word w of lane l is chains[l][w], 4 * l + w words from the start. */
    const __m512i lane_words = _mm512_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44,
                                                 48, 52, 56, 60);
    const void *base = chains;
    __m512i a = _mm512_i32gather_epi32(lane_words, base, 4);
    __m512i b = _mm512_i32gather_epi32(_mm512_add_epi32(lane_words, _mm512_set1_epi32(1)), base, 4);
    __m512i c = _mm512_i32gather_epi32(_mm512_add_epi32(lane_words, _mm512_set1_epi32(2)), base, 4);
    __m512i d = _mm512_i32gather_epi32(_mm512_add_epi32(lane_words, _mm512_set1_epi32(3)), base, 4);

    for (size_t offset = 0; nblocks != 0; nblocks--, offset += FD_MD5_BLOCK_LEN) {
        const __m512i a0 = a, b0 = b, c0 = c, d0 = d;
        __m512i rows[16], x[16];

        for (int lane = 0; lane < 16; lane++)
            rows[lane] = _mm512_loadu_si512((const void *)(blocks[lane] + offset));
        /* Sixteen streams at once are more than the hardware prefetcher
         * follows: ask for each lane's block after next while this one is
         * hashed (measured faster on kilobyte messages; the next block
         * alone comes too late to help). */
        if (nblocks > 2) {
            for (int lane = 0; lane < 16; lane++)
                _mm_prefetch((const char *)(blocks[lane] + offset + 2 * FD_MD5_BLOCK_LEN), _MM_HINT_T0);
        }
        transpose16(rows, x);

        /* The 64 steps of RFC 1321, 3.4 (md5_steps.h). */
#define MD5_STEP(f, a, b, c, d, k, t, s) a = step_##f(a, b, c, d, x[k], t, s);
        FD_MD5_ROUND1(MD5_STEP)
        FD_MD5_ROUND2(MD5_STEP)
        FD_MD5_ROUND3(MD5_STEP)
        FD_MD5_ROUND4(MD5_STEP)
#undef MD5_STEP

        a = _mm512_add_epi32(a, a0);
        b = _mm512_add_epi32(b, b0);
        c = _mm512_add_epi32(c, c0);
        d = _mm512_add_epi32(d, d0);
    }

    void *out = chains;
    _mm512_i32scatter_epi32(out, lane_words, a, 4);
    _mm512_i32scatter_epi32(out, _mm512_add_epi32(lane_words, _mm512_set1_epi32(1)), b, 4);
    _mm512_i32scatter_epi32(out, _mm512_add_epi32(lane_words, _mm512_set1_epi32(2)), c, 4);
    _mm512_i32scatter_epi32(out, _mm512_add_epi32(lane_words, _mm512_set1_epi32(3)), d, 4);
}

#endif /* FD_HAVE_AVX512_MULTI */
