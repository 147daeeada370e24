/* SHA-1 compression of sixteen messages at once, one per 32-bit lane of
 * AVX-512.
 *
 * The SHA extensions (sha1_shani_x2.c) are one unit per core, and two
 * interleaved messages reach its throughput; the vector units are separate
 * and wider. Here each working variable a..e is a zmm register holding
 * that variable of sixteen messages, and FIPS 180-4's round and message
 * schedule run unchanged on whole vectors, with what AVX-512 adds: vprold
 * rotates in one instruction, and vpternlogd computes each round function
 * (Ch, parity, Maj) and the schedule's three-way xor in one. About ten
 * vector instructions per round and lane group, schedule included, against
 * the SHA extensions' one sha1rnds4 per four rounds and message, which
 * Zen 4 issues too rarely to keep up.
 *
 * The message words arrive as sixteen 64-byte blocks, one per lane: the
 * 16x16 transpose of md5_avx512_x16.c and a byte swap (vpshufb, AVX-512BW)
 * give W[t] of every lane in one vector. The state rotates by role: a..e
 * are s[-t mod 5], s[1-t mod 5], ..., so no round moves the state; the
 * eighty rounds are unrolled so that roles and ring indices are constants. */
#include "kernels/x86/avx512/avx512.h"

#ifdef FD_HAVE_AVX512_MULTI

#include <immintrin.h>

#include "kernels/x86/avx512/avx512_lanes.h"

/* Rotates take their count from a vector, so that the count need not be an
 * immediate (vprolvd is as fast as vprold). */
FD_TARGET_AVX512
static FD_ALWAYS_INLINE __m512i rotl(__m512i x, int n)
{
    return _mm512_rolv_epi32(x, _mm512_set1_epi32(n));
}

/* The round function and constant of round t (FIPS 180-4, 4.1.1 and
 * 4.2.1); each branch passes its immediate as a literal. */
FD_TARGET_AVX512
static FD_ALWAYS_INLINE __m512i round_function(int t, __m512i b, __m512i c, __m512i d)
{
    if (t < 20)
        return _mm512_ternarylogic_epi32(b, c, d, TERNARY_CHOOSE);
    if (t < 40)
        return _mm512_ternarylogic_epi32(b, c, d, TERNARY_XOR3);
    if (t < 60)
        return _mm512_ternarylogic_epi32(b, c, d, TERNARY_MAJORITY);
    return _mm512_ternarylogic_epi32(b, c, d, TERNARY_XOR3);
}

static inline uint32_t round_constant(int t)
{
    return t < 20 ? 0x5a827999 : t < 40 ? 0x6ed9eba1 : t < 60 ? 0x8f1bbcdc : 0xca62c1d6;
}

FD_TARGET_AVX512
void fd_sha1_blocks_avx512_x16(fd_sha1_chain *chains, const uint8_t *const *blocks, size_t nblocks)
{
    const __m512i swap_bytes_in_words = _mm512_set4_epi32(0x0c0d0e0f, 0x08090a0b, 0x04050607,
                                                          0x00010203);
    /* Word i of lane l is chains[l].words[i], 5 * l + i words from the start. */
    const __m512i lane_words = _mm512_setr_epi32(0, 5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 55, 60,
                                                 65, 70, 75);
    const void *base = chains;
    __m512i s[5];

    for (int i = 0; i < 5; i++)
        s[i] = _mm512_i32gather_epi32(_mm512_add_epi32(lane_words, _mm512_set1_epi32(i)), base, 4);

    for (size_t offset = 0; nblocks != 0; nblocks--, offset += FD_SHA1_BLOCK_LEN) {
        __m512i s_in[5], w[16], rows[16];

        for (int i = 0; i < 5; i++)
            s_in[i] = s[i];
        for (int lane = 0; lane < 16; lane++)
            rows[lane] = _mm512_loadu_si512((const void *)(blocks[lane] + offset));
        /* Sixteen streams at once are more than the hardware prefetcher
         * follows: ask for each lane's block after next while this one is
         * hashed (measured faster on kilobyte messages; the next block
         * alone comes too late to help). */
        if (nblocks > 2) {
            for (int lane = 0; lane < 16; lane++)
                _mm_prefetch((const char *)(blocks[lane] + offset + 2 * FD_SHA1_BLOCK_LEN),
                             _MM_HINT_T0);
        }
        transpose16(rows, w);
        for (int t = 0; t < 16; t++)
            w[t] = _mm512_shuffle_epi8(w[t], swap_bytes_in_words);

        FD_UNROLL(80)
        for (int t = 0; t < 80; t++) {
            const int i = t & 15;
            if (t >= 16) {
                /* W[t] = rotl(W[t-3] ^ W[t-8] ^ W[t-14] ^ W[t-16], 1),
                 * replacing W[t-16] in the ring. */
                __m512i x = _mm512_ternarylogic_epi32(w[(i + 13) & 15], w[(i + 8) & 15],
                                                      w[(i + 2) & 15], TERNARY_XOR3);
                w[i] = rotl(_mm512_xor_si512(x, w[i]), 1);
            }
            __m512i *a = &s[(5 - t % 5) % 5], *b = &s[(6 - t % 5) % 5];
            __m512i c = s[(7 - t % 5) % 5], d = s[(8 - t % 5) % 5];
            __m512i *e = &s[(9 - t % 5) % 5];
            __m512i sum = _mm512_add_epi32(
                _mm512_add_epi32(*e,
                                 _mm512_add_epi32(w[i], _mm512_set1_epi32((int)round_constant(t)))),
                _mm512_add_epi32(rotl(*a, 5), round_function(t, *b, c, d)));
            /* The new a takes e's place, and b becomes rotl(b, 30) in its
             * own: the next round's a..e are then one place further on. */
            *b = rotl(*b, 30);
            *e = sum;
        }

        for (int i = 0; i < 5; i++)
            s[i] = _mm512_add_epi32(s[i], s_in[i]);
    }

    void *out = chains;
    for (int i = 0; i < 5; i++)
        _mm512_i32scatter_epi32(out, _mm512_add_epi32(lane_words, _mm512_set1_epi32(i)), s[i], 4);
}

#endif /* FD_HAVE_AVX512_MULTI */
