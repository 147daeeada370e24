/* SHA-1 compression of eight messages at once, one per 32-bit lane of AVX2.
 *
 * For CPUs without the SHA extensions and without AVX-512, where digest_many
 * would otherwise hash one message at a time: one message's 80 rounds are a
 * dependency chain, eight independent ones fill the vector units. Each
 * working variable a..e is a ymm register holding that variable of eight
 * messages, and FIPS 180-4's round and message schedule run unchanged on
 * whole vectors, as in sha1_avx512_x16.c with half the lanes and without its
 * rotate and three-input logic instructions: a rotation is two shifts joined
 * with xor (the pieces never overlap), the round functions two to four
 * logic instructions (Ch as d ^ (b & (c ^ d)), Maj as (b & c) | (d & (b | c))).
 *
 * The message words arrive as eight 64-byte blocks, one per lane: two 8x8
 * transposes and a byte swap (avx2_lanes.h) give W[t] of every lane in one
 * vector. The state rotates by role: a..e are s[-t mod 5], s[1-t mod 5],
 * ..., so no round moves the state; the eighty rounds are unrolled so that
 * roles and ring indices are constants. */
#include "kernels/x86/avx2/avx2.h"

#ifdef FD_HAVE_AVX2_MULTI

#include <immintrin.h>

#include "kernels/x86/avx2/avx2_lanes.h"

FD_TARGET_AVX2
static FD_ALWAYS_INLINE __m256i rotl(__m256i x, int n)
{
    return _mm256_xor_si256(_mm256_slli_epi32(x, n), _mm256_srli_epi32(x, 32 - n));
}

/* The round function of round t (FIPS 180-4, 4.1.1). */
FD_TARGET_AVX2
static FD_ALWAYS_INLINE __m256i round_function(int t, __m256i b, __m256i c, __m256i d)
{
    if (t < 20)
        return _mm256_xor_si256(d, _mm256_and_si256(b, _mm256_xor_si256(c, d)));
    if (t >= 40 && t < 60)
        return _mm256_or_si256(_mm256_and_si256(b, c), _mm256_and_si256(d, _mm256_or_si256(b, c)));
    return _mm256_xor_si256(_mm256_xor_si256(b, c), d);
}

/* The round constants (FIPS 180-4, 4.2.1). */
static inline uint32_t round_constant(int t)
{
    return t < 20 ? 0x5a827999 : t < 40 ? 0x6ed9eba1 : t < 60 ? 0x8f1bbcdc : 0xca62c1d6;
}

FD_TARGET_AVX2
void fd_sha1_blocks_avx2_x8(fd_sha1_chain *chains, const uint8_t *const *blocks, size_t nblocks)
{
    uint32_t words[5][8];
    __m256i s[5];

    for (int i = 0; i < 5; i++) {
        for (int lane = 0; lane < 8; lane++)
            words[i][lane] = chains[lane].words[i];
        s[i] = _mm256_loadu_si256((const __m256i *)(const void *)words[i]);
    }

    for (size_t offset = 0; nblocks != 0; nblocks--, offset += FD_SHA1_BLOCK_LEN) {
        __m256i s_in[5], w[16];

        for (int i = 0; i < 5; i++)
            s_in[i] = s[i];
        load_be_words8(blocks, offset, w);
        if (nblocks > 2)
            prefetch_block_after_next8(blocks, offset, FD_SHA1_BLOCK_LEN);

        FD_UNROLL(80)
        for (int t = 0; t < 80; t++) {
            const int i = t & 15;
            if (t >= 16) {
                /* W[t] = rotl(W[t-3] ^ W[t-8] ^ W[t-14] ^ W[t-16], 1),
                 * replacing W[t-16] in the ring. */
                __m256i x = _mm256_xor_si256(_mm256_xor_si256(w[(i + 13) & 15], w[(i + 8) & 15]),
                                             _mm256_xor_si256(w[(i + 2) & 15], w[i]));
                w[i] = rotl(x, 1);
            }
            __m256i *a = &s[(5 - t % 5) % 5], *b = &s[(6 - t % 5) % 5];
            __m256i c = s[(7 - t % 5) % 5], d = s[(8 - t % 5) % 5];
            __m256i *e = &s[(9 - t % 5) % 5];
            __m256i sum = _mm256_add_epi32(
                _mm256_add_epi32(*e,
                                 _mm256_add_epi32(w[i], _mm256_set1_epi32((int)round_constant(t)))),
                _mm256_add_epi32(rotl(*a, 5), round_function(t, *b, c, d)));
            /* The new a takes e's place, and b becomes rotl(b, 30) in its
             * own: the next round's a..e are then one place further on. */
            *b = rotl(*b, 30);
            *e = sum;
        }

        for (int i = 0; i < 5; i++)
            s[i] = _mm256_add_epi32(s[i], s_in[i]);
    }

    for (int i = 0; i < 5; i++)
        _mm256_storeu_si256((__m256i *)(void *)words[i], s[i]);
    for (int lane = 0; lane < 8; lane++) {
        for (int i = 0; i < 5; i++)
            chains[lane].words[i] = words[i][lane];
    }
}

#endif /* FD_HAVE_AVX2_MULTI */
