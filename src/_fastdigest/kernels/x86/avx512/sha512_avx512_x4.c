/* PBKDF2-HMAC's iterations for up to four SHA-512-family output blocks at
 * once, one per 64-bit lane of a ymm register (AVX-512 VL).
 *
 * Each iteration of PBKDF2 is two compressions of a block made of the last
 * digest and fixed padding (hash/hmac.c explains why), and the output
 * blocks T_1, T_2, ... are independent chains over the same keyed states.
 * The single-stream kernels run one chain of eighty dependent scalar rounds;
 * here the round of sha512_avx512_x8.c (vprorq rotates, vpternlogq for Ch,
 * Maj and the three-way xors) runs on four chains at once in the vector
 * unit, a little slower than one scalar chain (so one block alone still
 * takes the scalar loop: dispatch.c's min_blocks). ymm rather than zmm: Zen 4
 * executes a 512-bit operation as two 256-bit halves, and most derivations
 * have one to four blocks, so eight lanes would double the work for idle
 * ones.
 *
 * The digest never leaves the registers: after a compression, the state's
 * words are the next block's first message words as they are, and the
 * padding words are constants. The state rotates by role, as in
 * sha512_avx512_x8.c. */
#include "kernels/x86/avx512/avx512.h"

#ifdef FD_HAVE_AVX512

#include <immintrin.h>

#include "kernels/x86/avx512/avx512_lanes.h"

#define LANES 4

/* Rotates take their count from a vector, so that the count need not be an
 * immediate (vprorvq is as fast as vprorq). */
FD_TARGET_AVX512
static FD_ALWAYS_INLINE __m256i rotr(__m256i x, long long n)
{
    return _mm256_rorv_epi64(x, _mm256_set1_epi64x(n));
}

FD_TARGET_AVX512
static FD_ALWAYS_INLINE __m256i xor3(__m256i x, __m256i y, __m256i z)
{
    return _mm256_ternarylogic_epi64(x, y, z, TERNARY_XOR3);
}

/* sigma0(x) = rotr(x, 1) ^ rotr(x, 8) ^ (x >> 7); sigma1(x) = rotr(x, 19) ^
 * rotr(x, 61) ^ (x >> 6). */
FD_TARGET_AVX512
static FD_ALWAYS_INLINE __m256i small_sigma0(__m256i x)
{
    return xor3(rotr(x, 1), rotr(x, 8), _mm256_srli_epi64(x, 7));
}

FD_TARGET_AVX512
static FD_ALWAYS_INLINE __m256i small_sigma1(__m256i x)
{
    return xor3(rotr(x, 19), rotr(x, 61), _mm256_srli_epi64(x, 6));
}

/* Round t on s, which holds a..h in s[0..7] at every multiple of eight
 * rounds: a is s[-t mod 8], b s[1-t mod 8], and so on. */
FD_TARGET_AVX512
static FD_ALWAYS_INLINE void round_t(__m256i s[8], int t, __m256i w)
{
    __m256i a = s[(8 - t) & 7], b = s[(9 - t) & 7], c = s[(10 - t) & 7];
    __m256i e = s[(12 - t) & 7], f = s[(13 - t) & 7], g = s[(14 - t) & 7];
    __m256i *d = &s[(11 - t) & 7], *h = &s[(15 - t) & 7];

    __m256i k = _mm256_set1_epi64x((long long)fd_sha512_round_constants[t]);
    __m256i big_sigma1 = xor3(rotr(e, 14), rotr(e, 18), rotr(e, 41));
    __m256i choice = _mm256_ternarylogic_epi64(e, f, g, TERNARY_CHOOSE);
    __m256i t1 = _mm256_add_epi64(_mm256_add_epi64(*h, _mm256_add_epi64(w, k)),
                                  _mm256_add_epi64(big_sigma1, choice));
    __m256i big_sigma0 = xor3(rotr(a, 28), rotr(a, 34), rotr(a, 39));
    __m256i majority = _mm256_ternarylogic_epi64(a, b, c, TERNARY_MAJORITY);

    *d = _mm256_add_epi64(*d, t1);
    *h = _mm256_add_epi64(t1, _mm256_add_epi64(big_sigma0, majority));
}

/* Compresses the block w (sixteen words of every lane) onto the keyed
 * chain, whose words are the same in every lane; s receives the result. */
FD_TARGET_AVX512
static FD_ALWAYS_INLINE void compress(__m256i s[8], const __m256i chain[8], __m256i w[16])
{
    for (int i = 0; i < 8; i++)
        s[i] = chain[i];
    FD_UNROLL(16)
    for (int t = 0; t < 16; t++)
        round_t(s, t, w[t]);
    /* Rounds 16..79: W[t] replaces W[t-16] in the ring. */
    for (int base_t = 16; base_t < 80; base_t += 16) {
        FD_UNROLL(16)
        for (int i = 0; i < 16; i++) {
            w[i] = _mm256_add_epi64(
                _mm256_add_epi64(w[i], small_sigma0(w[(i + 1) & 15])),
                _mm256_add_epi64(w[(i + 9) & 15], small_sigma1(w[(i + 14) & 15])));
            round_t(s, base_t + i, w[i]);
        }
    }
    for (int i = 0; i < 8; i++)
        s[i] = _mm256_add_epi64(s[i], chain[i]);
}

/* The block made of the digest in s (digest_len bytes) after one keyed
 * block: the digest words, the 0x80 marker, zeros and the bit length
 * (FIPS 180-4, 5.1.2). SHA-512/224's digest ends in the high half of its
 * fourth word, whose low half takes the marker. */
FD_TARGET_AVX512
static FD_ALWAYS_INLINE void digest_block(const __m256i s[8], size_t digest_len, __m256i w[16])
{
    const size_t whole = digest_len / 8;
    const __m256i high_half = _mm256_set1_epi64x((long long)0xffffffff00000000u);

    for (size_t i = 0; i < 15; i++) {
        if (i < whole)
            w[i] = s[i];
        else if (i == whole && digest_len % 8 != 0)
            w[i] = _mm256_or_si256(_mm256_and_si256(s[i], high_half),
                                   _mm256_set1_epi64x(0x80000000));
        else if (i == whole)
            w[i] = _mm256_set1_epi64x((long long)0x8000000000000000u);
        else
            w[i] = _mm256_setzero_si256();
    }
    w[15] = _mm256_set1_epi64x((long long)((FD_SHA512_BLOCK_LEN + digest_len) * 8));
}

/* Four rows of four words (row l at rows[l]) become four columns (word i of
 * every row in x[i], row l in element l); the same shuffle turns columns
 * back into rows. */
FD_TARGET_AVX512
static FD_ALWAYS_INLINE void transpose4(const __m256i r[4], __m256i x[4])
{
    __m256i lo01 = _mm256_unpacklo_epi64(r[0], r[1]); /* r0w0 r1w0 | r0w2 r1w2 */
    __m256i hi01 = _mm256_unpackhi_epi64(r[0], r[1]); /* r0w1 r1w1 | r0w3 r1w3 */
    __m256i lo23 = _mm256_unpacklo_epi64(r[2], r[3]);
    __m256i hi23 = _mm256_unpackhi_epi64(r[2], r[3]);

    x[0] = _mm256_permute2x128_si256(lo01, lo23, 0x20);
    x[1] = _mm256_permute2x128_si256(hi01, hi23, 0x20);
    x[2] = _mm256_permute2x128_si256(lo01, lo23, 0x31);
    x[3] = _mm256_permute2x128_si256(hi01, hi23, 0x31);
}

FD_TARGET_AVX512
static FD_ALWAYS_INLINE void pbkdf2_iterate(const fd_sha512_chain *inner_chain,
                                            const fd_sha512_chain *outer_chain, size_t digest_len,
                                            fd_sha512_chain *words, size_t count,
                                            uint32_t iterations_left)
{
    __m256i inner[8], outer[8], u[8], t[8], w[16], rows[LANES];

    for (int i = 0; i < 8; i++) {
        inner[i] = _mm256_set1_epi64x((long long)inner_chain->words[i]);
        outer[i] = _mm256_set1_epi64x((long long)outer_chain->words[i]);
    }
    /* Lanes past count repeat row 0; only rows below count are stored. */
    for (int half = 0; half < 2; half++) {
        for (size_t lane = 0; lane < LANES; lane++)
            rows[lane] = _mm256_loadu_si256(
                (const __m256i *)(const void *)(words[lane < count ? lane : 0].words + 4 * half));
        transpose4(rows, &u[4 * half]);
    }
    for (int i = 0; i < 8; i++)
        t[i] = u[i];

    for (; iterations_left != 0; iterations_left--) {
        digest_block(u, digest_len, w);
        compress(u, inner, w);
        digest_block(u, digest_len, w);
        compress(u, outer, w);
        for (int i = 0; i < 8; i++)
            t[i] = _mm256_xor_si256(t[i], u[i]);
    }

    for (int half = 0; half < 2; half++) {
        transpose4(&t[4 * half], rows);
        for (size_t lane = 0; lane < count; lane++)
            _mm256_storeu_si256((__m256i *)(void *)(words[lane].words + 4 * half), rows[lane]);
    }
}

/* Only the digest's words of each row are meaningful on return: the rest
 * of a row (and the low half of SHA-512/224's fourth word) is written with
 * whatever the lanes hold there. */
FD_TARGET_AVX512
void fd_sha512_pbkdf2_avx512_x4(const fd_sha512_chain *inner_chain,
                                const fd_sha512_chain *outer_chain, size_t digest_len,
                                fd_sha512_chain *words, size_t count, uint32_t iterations_left)
{
    /* Constant digest lengths, so that each copy of the loop builds its
     * padding words once. */
    switch (digest_len) {
    case FD_SHA384_DIGEST_LEN:
        pbkdf2_iterate(inner_chain, outer_chain, FD_SHA384_DIGEST_LEN, words, count,
                       iterations_left);
        break;
    case FD_SHA512_256_DIGEST_LEN:
        pbkdf2_iterate(inner_chain, outer_chain, FD_SHA512_256_DIGEST_LEN, words, count,
                       iterations_left);
        break;
    case FD_SHA512_224_DIGEST_LEN:
        pbkdf2_iterate(inner_chain, outer_chain, FD_SHA512_224_DIGEST_LEN, words, count,
                       iterations_left);
        break;
    default:
        pbkdf2_iterate(inner_chain, outer_chain, FD_SHA512_DIGEST_LEN, words, count,
                       iterations_left);
        break;
    }
}

#endif /* FD_HAVE_AVX512 */
