/* SHA-256 compression of eight messages at once, one per 32-bit lane of
 * AVX2.
 *
 * For CPUs without the SHA extensions and without AVX-512 (Intel before Ice
 * Lake, AMD before Zen), where digest_many would otherwise hash one message
 * at a time: one message's 64 rounds are a dependency chain that leaves most
 * of the vector units idle, eight independent ones fill them. Each working
 * variable a..h is a ymm register holding that variable of eight messages,
 * and FIPS 180-4's round and message schedule run unchanged on whole
 * vectors, as in sha256_avx512_x16.c with half the lanes and without its
 * rotate and three-input logic instructions: a rotation is two shifts joined
 * with xor (the pieces never overlap), each Sigma six shifts and five xors.
 * Maj(a, b, c) is b ^ ((a ^ b) & (b ^ c)), and this round's b ^ c is the
 * last round's a ^ b, so each round computes one xor of it, not two.
 *
 * The message words arrive as eight 64-byte blocks, one per lane: two 8x8
 * transposes and a byte swap (avx2_lanes.h) give W[t] of every lane in one
 * vector. The chaining values are an 8x8 matrix too, lane l's eight words
 * in row l, and the same transpose loads and stores them. The schedule's
 * sixteen words live in a ring beside the rounds, and the state rotates by
 * role, as in sha512_avx2_x4.c. */
#include "kernels/x86/avx2/avx2.h"

#ifdef FD_HAVE_AVX2_MULTI

#include <immintrin.h>

#include "kernels/x86/avx2/avx2_lanes.h"

FD_TARGET_AVX2
static FD_ALWAYS_INLINE __m256i rotr(__m256i x, int n)
{
    return _mm256_xor_si256(_mm256_srli_epi32(x, n), _mm256_slli_epi32(x, 32 - n));
}

FD_TARGET_AVX2
static FD_ALWAYS_INLINE __m256i xor3(__m256i x, __m256i y, __m256i z)
{
    return _mm256_xor_si256(_mm256_xor_si256(x, y), z);
}

/* sigma0(x) = rotr(x, 7) ^ rotr(x, 18) ^ (x >> 3); sigma1(x) = rotr(x, 17) ^
 * rotr(x, 19) ^ (x >> 10). */
FD_TARGET_AVX2
static FD_ALWAYS_INLINE __m256i small_sigma0(__m256i x)
{
    return xor3(rotr(x, 7), rotr(x, 18), _mm256_srli_epi32(x, 3));
}

FD_TARGET_AVX2
static FD_ALWAYS_INLINE __m256i small_sigma1(__m256i x)
{
    return xor3(rotr(x, 17), rotr(x, 19), _mm256_srli_epi32(x, 10));
}

/* Round t on s, which holds a..h in s[0..7] at every multiple of eight
 * rounds: a is s[-t mod 8], b s[1-t mod 8], and so on. b_xor_c holds this
 * round's b ^ c and is left holding a ^ b, the next round's. */
FD_TARGET_AVX2
static FD_ALWAYS_INLINE void round_t(__m256i s[8], int t, __m256i w, __m256i *b_xor_c)
{
    __m256i a = s[(8 - t) & 7], b = s[(9 - t) & 7];
    __m256i e = s[(12 - t) & 7], f = s[(13 - t) & 7], g = s[(14 - t) & 7];
    __m256i *d = &s[(11 - t) & 7], *h = &s[(15 - t) & 7];

    __m256i k = _mm256_set1_epi32((int)fd_sha256_round_constants[t]);
    __m256i big_sigma1 = xor3(rotr(e, 6), rotr(e, 11), rotr(e, 25));
    __m256i choice = _mm256_xor_si256(g, _mm256_and_si256(e, _mm256_xor_si256(f, g)));
    __m256i t1 = _mm256_add_epi32(_mm256_add_epi32(*h, _mm256_add_epi32(w, k)),
                                  _mm256_add_epi32(big_sigma1, choice));
    __m256i big_sigma0 = xor3(rotr(a, 2), rotr(a, 13), rotr(a, 22));
    __m256i a_xor_b = _mm256_xor_si256(a, b);
    __m256i majority = _mm256_xor_si256(b, _mm256_and_si256(a_xor_b, *b_xor_c));

    *b_xor_c = a_xor_b;
    *d = _mm256_add_epi32(*d, t1);
    *h = _mm256_add_epi32(t1, _mm256_add_epi32(big_sigma0, majority));
}

FD_TARGET_AVX2
void fd_sha256_blocks_avx2_x8(fd_sha256_chain *chains, const uint8_t *const *blocks, size_t nblocks)
{
    __m256i rows[8], s[8];

    for (int lane = 0; lane < 8; lane++)
        rows[lane] = _mm256_loadu_si256((const __m256i *)(const void *)chains[lane].words);
    transpose8(rows, s);

    for (size_t offset = 0; nblocks != 0; nblocks--, offset += FD_SHA256_BLOCK_LEN) {
        __m256i s_in[8], w[16];

        for (int i = 0; i < 8; i++)
            s_in[i] = s[i];
        load_be_words8(blocks, offset, w);
        if (nblocks > 2)
            prefetch_block_after_next8(blocks, offset, FD_SHA256_BLOCK_LEN);

        __m256i b_xor_c = _mm256_xor_si256(s[1], s[2]);
        FD_UNROLL(16)
        for (int t = 0; t < 16; t++)
            round_t(s, t, w[t], &b_xor_c);
        /* Rounds 16..63: W[t] replaces W[t-16] in the ring. */
        for (int base_t = 16; base_t < 64; base_t += 16) {
            FD_UNROLL(16)
            for (int i = 0; i < 16; i++) {
                w[i] = _mm256_add_epi32(
                    _mm256_add_epi32(w[i], small_sigma0(w[(i + 1) & 15])),
                    _mm256_add_epi32(w[(i + 9) & 15], small_sigma1(w[(i + 14) & 15])));
                round_t(s, base_t + i, w[i], &b_xor_c);
            }
        }

        for (int i = 0; i < 8; i++)
            s[i] = _mm256_add_epi32(s[i], s_in[i]);
    }

    transpose8(s, rows);
    for (int lane = 0; lane < 8; lane++)
        _mm256_storeu_si256((__m256i *)(void *)chains[lane].words, rows[lane]);
}

#endif /* FD_HAVE_AVX2_MULTI */
