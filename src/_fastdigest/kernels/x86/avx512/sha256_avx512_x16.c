/* SHA-256 compression of sixteen messages at once, one per 32-bit lane of
 * AVX-512.
 *
 * The SHA extensions (sha256_shani_x2.c) are one unit per core: with two
 * messages interleaved they reach its throughput, and short messages get
 * little more than one stream does, as the out-of-order core already
 * overlaps the next message's rounds with the last one's. The vector units
 * are separate and wider: here each working variable a..h is a zmm register
 * holding that variable of sixteen messages, and FIPS 180-4's round and
 * message schedule run unchanged on whole vectors, with what AVX-512 adds:
 * vprord rotates in one instruction, and vpternlogd computes Ch, Maj and
 * each three-way xor of the sigma functions in one. About twenty-three
 * vector instructions per round and lane group, schedule included.
 *
 * The message words arrive as sixteen 64-byte blocks, one per lane: the
 * 16x16 transpose of md5_avx512_x16.c and a byte swap (vpshufb, AVX-512BW)
 * give W[t] of every lane in one vector. The schedule's sixteen words live
 * in a ring beside the rounds, and the state rotates by role, as in
 * sha512_avx2_x4.c. */
#include "kernels/x86/avx512/avx512.h"

#ifdef FD_HAVE_AVX512_MULTI

#include <immintrin.h>

#include "kernels/x86/avx512/avx512_lanes.h"

/* Rotates take their count from a vector, so that the count need not be an
 * immediate (vprorvd is as fast as vprord). */
FD_TARGET_AVX512
static FD_ALWAYS_INLINE __m512i rotr(__m512i x, int n)
{
    return _mm512_rorv_epi32(x, _mm512_set1_epi32(n));
}

FD_TARGET_AVX512
static FD_ALWAYS_INLINE __m512i xor3(__m512i x, __m512i y, __m512i z)
{
    return _mm512_ternarylogic_epi32(x, y, z, TERNARY_XOR3);
}

/* sigma0(x) = rotr(x, 7) ^ rotr(x, 18) ^ (x >> 3); sigma1(x) = rotr(x, 17) ^
 * rotr(x, 19) ^ (x >> 10). */
FD_TARGET_AVX512
static FD_ALWAYS_INLINE __m512i small_sigma0(__m512i x)
{
    return xor3(rotr(x, 7), rotr(x, 18), _mm512_srli_epi32(x, 3));
}

FD_TARGET_AVX512
static FD_ALWAYS_INLINE __m512i small_sigma1(__m512i x)
{
    return xor3(rotr(x, 17), rotr(x, 19), _mm512_srli_epi32(x, 10));
}

/* Round t on s, which holds a..h in s[0..7] at every multiple of eight
 * rounds: a is s[-t mod 8], b s[1-t mod 8], and so on. */
FD_TARGET_AVX512
static FD_ALWAYS_INLINE void round_t(__m512i s[8], int t, __m512i w)
{
    __m512i a = s[(8 - t) & 7], b = s[(9 - t) & 7], c = s[(10 - t) & 7];
    __m512i e = s[(12 - t) & 7], f = s[(13 - t) & 7], g = s[(14 - t) & 7];
    __m512i *d = &s[(11 - t) & 7], *h = &s[(15 - t) & 7];

    __m512i k = _mm512_set1_epi32((int)fd_sha256_round_constants[t]);
    __m512i big_sigma1 = xor3(rotr(e, 6), rotr(e, 11), rotr(e, 25));
    __m512i choice = _mm512_ternarylogic_epi32(e, f, g, TERNARY_CHOOSE);
    __m512i t1 = _mm512_add_epi32(_mm512_add_epi32(*h, _mm512_add_epi32(w, k)),
                                  _mm512_add_epi32(big_sigma1, choice));
    __m512i big_sigma0 = xor3(rotr(a, 2), rotr(a, 13), rotr(a, 22));
    __m512i majority = _mm512_ternarylogic_epi32(a, b, c, TERNARY_MAJORITY);

    *d = _mm512_add_epi32(*d, t1);
    *h = _mm512_add_epi32(t1, _mm512_add_epi32(big_sigma0, majority));
}

FD_TARGET_AVX512
void fd_sha256_blocks_avx512_x16(fd_sha256_chain *chains, const uint8_t *const *blocks,
                                 size_t nblocks)
{
    const __m512i swap_bytes_in_words = _mm512_set4_epi32(0x0c0d0e0f, 0x08090a0b, 0x04050607,
                                                          0x00010203);
    /* Word i of lane l is chains[l].words[i], 8 * l + i words from the start. */
    const __m512i lane_words = _mm512_setr_epi32(0, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96,
                                                 104, 112, 120);
    const void *base = chains;
    __m512i s[8];

    for (int i = 0; i < 8; i++)
        s[i] = _mm512_i32gather_epi32(_mm512_add_epi32(lane_words, _mm512_set1_epi32(i)), base, 4);

    for (size_t offset = 0; nblocks != 0; nblocks--, offset += FD_SHA256_BLOCK_LEN) {
        __m512i s_in[8], w[16], rows[16];

        for (int i = 0; i < 8; i++)
            s_in[i] = s[i];
        for (int lane = 0; lane < 16; lane++)
            rows[lane] = _mm512_loadu_si512((const void *)(blocks[lane] + offset));
        /* Sixteen streams at once are more than the hardware prefetcher
         * follows: ask for each lane's block after next while this one is
         * hashed (measured faster on kilobyte messages; the next block
         * alone comes too late to help). */
        if (nblocks > 2) {
            for (int lane = 0; lane < 16; lane++)
                _mm_prefetch((const char *)(blocks[lane] + offset + 2 * FD_SHA256_BLOCK_LEN),
                             _MM_HINT_T0);
        }
        transpose16(rows, w);
        for (int t = 0; t < 16; t++)
            w[t] = _mm512_shuffle_epi8(w[t], swap_bytes_in_words);

        FD_UNROLL(16)
        for (int t = 0; t < 16; t++)
            round_t(s, t, w[t]);
        /* Rounds 16..63: W[t] replaces W[t-16] in the ring. */
        for (int base_t = 16; base_t < 64; base_t += 16) {
            FD_UNROLL(16)
            for (int i = 0; i < 16; i++) {
                w[i] = _mm512_add_epi32(
                    _mm512_add_epi32(w[i], small_sigma0(w[(i + 1) & 15])),
                    _mm512_add_epi32(w[(i + 9) & 15], small_sigma1(w[(i + 14) & 15])));
                round_t(s, base_t + i, w[i]);
            }
        }

        for (int i = 0; i < 8; i++)
            s[i] = _mm512_add_epi32(s[i], s_in[i]);
    }

    void *out = chains;
    for (int i = 0; i < 8; i++)
        _mm512_i32scatter_epi32(out, _mm512_add_epi32(lane_words, _mm512_set1_epi32(i)), s[i], 4);
}

#endif /* FD_HAVE_AVX512_MULTI */
