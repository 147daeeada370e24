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
#include "batch.h"

#ifdef FD_HAVE_AVX512_MULTI

#include <immintrin.h>

#include "avx512_lanes.h"

#if defined(__GNUC__) || defined(__clang__)
#define FD_TARGET_AVX512 __attribute__((target("avx512f")))
#else
#define FD_TARGET_AVX512 /* MSVC compiles intrinsics without target flags */
#endif

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
         * hashed (measured at 1 KiB messages on Zen 4: 15-25% faster; the
         * next block alone comes too late to help). */
        if (nblocks > 2) {
            for (int lane = 0; lane < 16; lane++)
                _mm_prefetch((const char *)(blocks[lane] + offset + 2 * FD_MD5_BLOCK_LEN), _MM_HINT_T0);
        }
        transpose16(rows, x);

        /* The sine-derived constants and shift amounts of RFC 1321, 3.4. */
        a = step_f(a, b, c, d, x[0], 0xd76aa478, 7);
        d = step_f(d, a, b, c, x[1], 0xe8c7b756, 12);
        c = step_f(c, d, a, b, x[2], 0x242070db, 17);
        b = step_f(b, c, d, a, x[3], 0xc1bdceee, 22);
        a = step_f(a, b, c, d, x[4], 0xf57c0faf, 7);
        d = step_f(d, a, b, c, x[5], 0x4787c62a, 12);
        c = step_f(c, d, a, b, x[6], 0xa8304613, 17);
        b = step_f(b, c, d, a, x[7], 0xfd469501, 22);
        a = step_f(a, b, c, d, x[8], 0x698098d8, 7);
        d = step_f(d, a, b, c, x[9], 0x8b44f7af, 12);
        c = step_f(c, d, a, b, x[10], 0xffff5bb1, 17);
        b = step_f(b, c, d, a, x[11], 0x895cd7be, 22);
        a = step_f(a, b, c, d, x[12], 0x6b901122, 7);
        d = step_f(d, a, b, c, x[13], 0xfd987193, 12);
        c = step_f(c, d, a, b, x[14], 0xa679438e, 17);
        b = step_f(b, c, d, a, x[15], 0x49b40821, 22);

        a = step_g(a, b, c, d, x[1], 0xf61e2562, 5);
        d = step_g(d, a, b, c, x[6], 0xc040b340, 9);
        c = step_g(c, d, a, b, x[11], 0x265e5a51, 14);
        b = step_g(b, c, d, a, x[0], 0xe9b6c7aa, 20);
        a = step_g(a, b, c, d, x[5], 0xd62f105d, 5);
        d = step_g(d, a, b, c, x[10], 0x02441453, 9);
        c = step_g(c, d, a, b, x[15], 0xd8a1e681, 14);
        b = step_g(b, c, d, a, x[4], 0xe7d3fbc8, 20);
        a = step_g(a, b, c, d, x[9], 0x21e1cde6, 5);
        d = step_g(d, a, b, c, x[14], 0xc33707d6, 9);
        c = step_g(c, d, a, b, x[3], 0xf4d50d87, 14);
        b = step_g(b, c, d, a, x[8], 0x455a14ed, 20);
        a = step_g(a, b, c, d, x[13], 0xa9e3e905, 5);
        d = step_g(d, a, b, c, x[2], 0xfcefa3f8, 9);
        c = step_g(c, d, a, b, x[7], 0x676f02d9, 14);
        b = step_g(b, c, d, a, x[12], 0x8d2a4c8a, 20);

        a = step_h(a, b, c, d, x[5], 0xfffa3942, 4);
        d = step_h(d, a, b, c, x[8], 0x8771f681, 11);
        c = step_h(c, d, a, b, x[11], 0x6d9d6122, 16);
        b = step_h(b, c, d, a, x[14], 0xfde5380c, 23);
        a = step_h(a, b, c, d, x[1], 0xa4beea44, 4);
        d = step_h(d, a, b, c, x[4], 0x4bdecfa9, 11);
        c = step_h(c, d, a, b, x[7], 0xf6bb4b60, 16);
        b = step_h(b, c, d, a, x[10], 0xbebfbc70, 23);
        a = step_h(a, b, c, d, x[13], 0x289b7ec6, 4);
        d = step_h(d, a, b, c, x[0], 0xeaa127fa, 11);
        c = step_h(c, d, a, b, x[3], 0xd4ef3085, 16);
        b = step_h(b, c, d, a, x[6], 0x04881d05, 23);
        a = step_h(a, b, c, d, x[9], 0xd9d4d039, 4);
        d = step_h(d, a, b, c, x[12], 0xe6db99e5, 11);
        c = step_h(c, d, a, b, x[15], 0x1fa27cf8, 16);
        b = step_h(b, c, d, a, x[2], 0xc4ac5665, 23);

        a = step_i(a, b, c, d, x[0], 0xf4292244, 6);
        d = step_i(d, a, b, c, x[7], 0x432aff97, 10);
        c = step_i(c, d, a, b, x[14], 0xab9423a7, 15);
        b = step_i(b, c, d, a, x[5], 0xfc93a039, 21);
        a = step_i(a, b, c, d, x[12], 0x655b59c3, 6);
        d = step_i(d, a, b, c, x[3], 0x8f0ccc92, 10);
        c = step_i(c, d, a, b, x[10], 0xffeff47d, 15);
        b = step_i(b, c, d, a, x[1], 0x85845dd1, 21);
        a = step_i(a, b, c, d, x[8], 0x6fa87e4f, 6);
        d = step_i(d, a, b, c, x[15], 0xfe2ce6e0, 10);
        c = step_i(c, d, a, b, x[6], 0xa3014314, 15);
        b = step_i(b, c, d, a, x[13], 0x4e0811a1, 21);
        a = step_i(a, b, c, d, x[4], 0xf7537e82, 6);
        d = step_i(d, a, b, c, x[11], 0xbd3af235, 10);
        c = step_i(c, d, a, b, x[2], 0x2ad7d2bb, 15);
        b = step_i(b, c, d, a, x[9], 0xeb86d391, 21);

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
