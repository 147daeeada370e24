/* SHA-512 compression of four messages at once, one per 64-bit lane of
 * AVX2.
 *
 * The single-stream kernels (sha512_avx2.c, sha512_avx512.c) are bound by
 * one message's eighty dependent rounds of scalar 64-bit operations. Here
 * each working variable a..h is a ymm register holding that variable of
 * four messages, and FIPS 180-4's round and message schedule run unchanged
 * on whole vectors. AVX2 has no 64-bit rotate: a rotation is two shifts
 * joined with xor (the pieces never overlap, so xor joins them as or
 * would), except rotr by 8 in sigma0, which is one byte shuffle on another
 * port. The state rotates by role instead of by moves, as in sha512_avx2.c.
 *
 * The message words arrive as four 128-byte blocks, one per lane: a 4x4
 * transpose of 64-bit words (unpack, then permute of 128-bit halves) and a
 * byte swap give W[t] of every lane in one vector. The schedule's sixteen
 * words live in a ring on the stack beside the rounds. */
#include "kernels/x86/avx2/avx2.h"

#ifdef FD_HAVE_AVX2_MULTI

#include <immintrin.h>

FD_TARGET_AVX2
static FD_ALWAYS_INLINE __m256i rotr(__m256i x, int n)
{
    return _mm256_xor_si256(_mm256_srli_epi64(x, n), _mm256_slli_epi64(x, 64 - n));
}

FD_TARGET_AVX2
static FD_ALWAYS_INLINE __m256i big_sigma0(__m256i a)
{
    return _mm256_xor_si256(_mm256_xor_si256(rotr(a, 28), rotr(a, 34)), rotr(a, 39));
}

FD_TARGET_AVX2
static FD_ALWAYS_INLINE __m256i big_sigma1(__m256i e)
{
    return _mm256_xor_si256(_mm256_xor_si256(rotr(e, 14), rotr(e, 18)), rotr(e, 41));
}

/* sigma0(x) = rotr(x, 1) ^ rotr(x, 8) ^ (x >> 7). */
FD_TARGET_AVX2
static FD_ALWAYS_INLINE __m256i small_sigma0(__m256i x)
{
    const __m256i rotate_bytes_right = _mm256_set_epi8(8, 15, 14, 13, 12, 11, 10, 9, 0, 7, 6, 5, 4,
                                                       3, 2, 1, 8, 15, 14, 13, 12, 11, 10, 9, 0, 7,
                                                       6, 5, 4, 3, 2, 1);
    __m256i shifted = _mm256_xor_si256(rotr(x, 1), _mm256_srli_epi64(x, 7));
    return _mm256_xor_si256(shifted, _mm256_shuffle_epi8(x, rotate_bytes_right));
}

/* sigma1(x) = rotr(x, 19) ^ rotr(x, 61) ^ (x >> 6). */
FD_TARGET_AVX2
static FD_ALWAYS_INLINE __m256i small_sigma1(__m256i x)
{
    return _mm256_xor_si256(_mm256_xor_si256(rotr(x, 19), rotr(x, 61)), _mm256_srli_epi64(x, 6));
}

/* W[4g..4g+3] of the four lanes' blocks at offset: row l of the 4x4 matrix
 * is lane l's four words, and w[i] gets column i, byte-swapped. */
FD_TARGET_AVX2
static FD_ALWAYS_INLINE void load_words4(const uint8_t *const *blocks, size_t offset, __m256i w[4])
{
    const __m256i swap_bytes_in_words = _mm256_set_epi8(8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4,
                                                        5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1,
                                                        2, 3, 4, 5, 6, 7);
    __m256i r0 = _mm256_loadu_si256((const __m256i *)(const void *)(blocks[0] + offset));
    __m256i r1 = _mm256_loadu_si256((const __m256i *)(const void *)(blocks[1] + offset));
    __m256i r2 = _mm256_loadu_si256((const __m256i *)(const void *)(blocks[2] + offset));
    __m256i r3 = _mm256_loadu_si256((const __m256i *)(const void *)(blocks[3] + offset));
    __m256i lo01 = _mm256_unpacklo_epi64(r0, r1); /* r0w0 r1w0 | r0w2 r1w2 */
    __m256i hi01 = _mm256_unpackhi_epi64(r0, r1); /* r0w1 r1w1 | r0w3 r1w3 */
    __m256i lo23 = _mm256_unpacklo_epi64(r2, r3);
    __m256i hi23 = _mm256_unpackhi_epi64(r2, r3);

    w[0] = _mm256_shuffle_epi8(_mm256_permute2x128_si256(lo01, lo23, 0x20), swap_bytes_in_words);
    w[1] = _mm256_shuffle_epi8(_mm256_permute2x128_si256(hi01, hi23, 0x20), swap_bytes_in_words);
    w[2] = _mm256_shuffle_epi8(_mm256_permute2x128_si256(lo01, lo23, 0x31), swap_bytes_in_words);
    w[3] = _mm256_shuffle_epi8(_mm256_permute2x128_si256(hi01, hi23, 0x31), swap_bytes_in_words);
}

/* Round t on s, which holds a..h in s[0..7] at every multiple of eight
 * rounds: a is s[-t mod 8], b s[1-t mod 8], and so on, so that no round
 * moves the state. w is W[t] of every lane. */
FD_TARGET_AVX2
static FD_ALWAYS_INLINE void round_t(__m256i s[8], int t, __m256i w)
{
    __m256i a = s[(8 - t) & 7], b = s[(9 - t) & 7], c = s[(10 - t) & 7];
    __m256i e = s[(12 - t) & 7], f = s[(13 - t) & 7], g = s[(14 - t) & 7];
    __m256i *d = &s[(11 - t) & 7], *h = &s[(15 - t) & 7];

    __m256i k = _mm256_set1_epi64x((long long)fd_sha512_round_constants[t]);
    __m256i choice = _mm256_xor_si256(_mm256_and_si256(e, f), _mm256_andnot_si256(e, g));
    __m256i t1 = _mm256_add_epi64(_mm256_add_epi64(*h, _mm256_add_epi64(w, k)),
                                  _mm256_add_epi64(big_sigma1(e), choice));
    /* Maj(a, b, c) = b ^ ((a ^ b) & (b ^ c)). */
    __m256i majority = _mm256_xor_si256(
        b, _mm256_and_si256(_mm256_xor_si256(a, b), _mm256_xor_si256(b, c)));
    __m256i t2 = _mm256_add_epi64(big_sigma0(a), majority);

    *d = _mm256_add_epi64(*d, t1);
    *h = _mm256_add_epi64(t1, t2);
}

FD_TARGET_AVX2
void fd_sha512_blocks_avx2_x4(fd_sha512_chain *chains, const uint8_t *const *blocks, size_t nblocks)
{
    __m256i s[8];

    for (int i = 0; i < 8; i++)
        s[i] = _mm256_setr_epi64x((long long)chains[0].words[i], (long long)chains[1].words[i],
                                  (long long)chains[2].words[i], (long long)chains[3].words[i]);

    for (size_t offset = 0; nblocks != 0; nblocks--, offset += FD_SHA512_BLOCK_LEN) {
        __m256i s_in[8], w[16];

        for (int i = 0; i < 8; i++)
            s_in[i] = s[i];
        for (int g = 0; g < 4; g++)
            load_words4(blocks, offset + 32 * g, &w[4 * g]);
        /* Ask for each lane's block after next while this one is hashed. */
        if (nblocks > 2) {
            for (int lane = 0; lane < 4; lane++) {
                const uint8_t *next = blocks[lane] + offset + 2 * FD_SHA512_BLOCK_LEN;
                _mm_prefetch((const char *)next, _MM_HINT_T0);
                _mm_prefetch((const char *)(next + 64), _MM_HINT_T0);
            }
        }

        FD_UNROLL(16)
        for (int t = 0; t < 16; t++)
            round_t(s, t, w[t]);
        /* Rounds 16..79: W[t] replaces W[t-16] in the ring. */
        for (int base = 16; base < 80; base += 16) {
            FD_UNROLL(16)
            for (int i = 0; i < 16; i++) {
                w[i] = _mm256_add_epi64(
                    _mm256_add_epi64(w[i], small_sigma0(w[(i + 1) & 15])),
                    _mm256_add_epi64(w[(i + 9) & 15], small_sigma1(w[(i + 14) & 15])));
                round_t(s, base + i, w[i]);
            }
        }

        for (int i = 0; i < 8; i++)
            s[i] = _mm256_add_epi64(s[i], s_in[i]);
    }

    uint64_t words[8][4];
    for (int i = 0; i < 8; i++)
        _mm256_storeu_si256((__m256i *)(void *)words[i], s[i]);
    for (int lane = 0; lane < 4; lane++) {
        for (int i = 0; i < 8; i++)
            chains[lane].words[i] = words[i][lane];
    }
}

#endif /* FD_HAVE_AVX2_MULTI */
