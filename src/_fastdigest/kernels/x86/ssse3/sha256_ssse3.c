/* SHA-256 compression with SSSE3 for the message schedule, for x86-64 CPUs
 * without AVX2 or SHA-NI (and virtual machines that hide AVX).
 *
 * The SSSE3 form of the method sha256_avx2.c implements (read its header
 * first), after Intel's "Fast SHA-256 Implementations on Intel Architecture
 * Processors" (Guilford et al., 2012), whose SSSE3 form OpenSSL's
 * sha256-x86_64.pl and Linux's sha256-ssse3-asm.S implement:
 *   A 128-bit register holds four schedule words of one block; a step
 *     (four words, sigma1 in two halves) runs beside every four rounds.
 *   Without BMI the rounds have no three-operand rotate and no andn: the
 *     compiler copies a register before each ror, and Ch is
 *     g ^ (e & (f ^ g)) (three operations; (e & f) + (~e & g) would be four).
 * Built by GCC it runs as fast as OpenSSL 3.0's SSSE3 assembly
 * (benchmarks/kernel_cpb.c, with OPENSSL_ia32cap hiding SHA-NI, AVX2, AVX
 * and XOP), built by Clang a little slower. Tried and slower: the Sigmas
 * nested as rotr(x ^ rotr(x ^ rotr(x, a), b), c), OpenSSL's form, which
 * needs no copies but makes the chain two operations longer (with either
 * compiler, and for Sigma0 alone); Ch with not and and. */
#include "kernels/x86/ssse3/ssse3.h"

#ifdef FD_HAVE_SSSE3

#include "kernels/x86/ssse3/ssse3_words.h"

/* sigma0(x) = rotr(x, 7) ^ rotr(x, 18) ^ (x >> 3) on each word. */
FD_TARGET_SSSE3
static FD_ALWAYS_INLINE __m128i small_sigma0(__m128i x)
{
    __m128i right = _mm_xor_si128(_mm_srli_epi32(x, 7), _mm_srli_epi32(x, 18));
    __m128i left = _mm_xor_si128(_mm_slli_epi32(x, 25), _mm_slli_epi32(x, 14));
    return _mm_xor_si128(_mm_xor_si128(right, left), _mm_srli_epi32(x, 3));
}

/* sigma1 of {x0, x0, x1, x1} in words 0 and 2, as in sha256_avx2.c. */
FD_TARGET_SSSE3
static FD_ALWAYS_INLINE __m128i small_sigma1_doubled(__m128i doubled)
{
    __m128i rotations = _mm_xor_si128(_mm_srli_epi64(doubled, 17), _mm_srli_epi64(doubled, 19));
    return _mm_xor_si128(rotations, _mm_srli_epi32(doubled, 10));
}

/* Word group j from groups j-4..j-1, as in sha256_avx2.c. SSSE3 has no
 * vpblendd: vpshufb moves each half's two sigmas into place and zeroes
 * the other two words, so each half is one add. */
FD_TARGET_SSSE3
static FD_ALWAYS_INLINE __m128i next_word_group(__m128i back4, __m128i back3, __m128i back2,
                                                __m128i back1)
{
    const __m128i to_low = _mm_set_epi8(-1, -1, -1, -1, -1, -1, -1, -1, 11, 10, 9, 8, 3, 2, 1, 0);
    const __m128i to_high = _mm_set_epi8(11, 10, 9, 8, 3, 2, 1, 0, -1, -1, -1, -1, -1, -1, -1, -1);
    __m128i back15 = _mm_alignr_epi8(back3, back4, 4);
    __m128i back7 = _mm_alignr_epi8(back1, back2, 4);
    __m128i sum = _mm_add_epi32(_mm_add_epi32(back4, back7), small_sigma0(back15));
    __m128i sigma1 = small_sigma1_doubled(_mm_shuffle_epi32(back1, 0xfa));
    __m128i low = _mm_add_epi32(sum, _mm_shuffle_epi8(sigma1, to_low));
    sigma1 = small_sigma1_doubled(_mm_shuffle_epi32(low, 0x50));
    return _mm_add_epi32(low, _mm_shuffle_epi8(sigma1, to_high));
}

/* Adds K[4j..4j+3] to group j and stores it at w_plus_k[4j..4j+3]. */
FD_TARGET_SSSE3
static FD_ALWAYS_INLINE void store_plus_constants(uint32_t *w_plus_k, __m128i group, int j)
{
    __m128i k = _mm_loadu_si128((const __m128i *)(const void *)&fd_sha256_round_constants[4 * j]);
    _mm_store_si128((__m128i *)(void *)&w_plus_k[4 * j], _mm_add_epi32(group, k));
}

FD_TARGET_SSSE3
static FD_ALWAYS_INLINE uint32_t rotr32(uint32_t x, unsigned n)
{
    return (x >> n) | (x << (32 - n)); /* n is 1..31 at every call */
}

/* The working variables and what a round leaves for the next, as in
 * sha256_avx2.c. */
typedef struct round_state {
    uint32_t s[8];
    uint32_t b_xor_c, sigma0_pending;
} round_state;

/* One round, in sha256_avx2.c's order, with the BMI-free Ch. Both
 * FD_VALUE_BARRIER measured about even here with either compiler; kept as in
 * sha256_avx2.c. */
FD_TARGET_SSSE3
static FD_ALWAYS_INLINE void sha256_round(uint32_t *a, uint32_t b, uint32_t *b_xor_c, uint32_t *d,
                                          uint32_t e, uint32_t f, uint32_t g, uint32_t *h,
                                          uint32_t w_plus_k, uint32_t *sigma0_pending)
{
    uint32_t t1 = *h + w_plus_k;
    FD_VALUE_BARRIER(t1);
    uint32_t choose = ((f ^ g) & e) ^ g;
    uint32_t sigma1 = rotr32(e, 6) ^ rotr32(e, 11) ^ rotr32(e, 25);
    uint32_t a_full = *a + *sigma0_pending;
    FD_VALUE_BARRIER(a_full);
    t1 += choose;
    t1 += sigma1;
    uint32_t a_xor_b = a_full ^ b;
    uint32_t sigma0 = rotr32(a_full, 2) ^ rotr32(a_full, 13) ^ rotr32(a_full, 22);
    *d += t1;
    uint32_t majority = (*b_xor_c & a_xor_b) ^ b;
    t1 += majority;
    *a = a_full;
    *h = t1;
    *sigma0_pending = sigma0;
    *b_xor_c = a_xor_b;
}

FD_TARGET_SSSE3
static FD_ALWAYS_INLINE void round_t(round_state *r, int t, uint32_t w_plus_k)
{
    uint32_t *s = r->s;
    sha256_round(&s[(8 - t) & 7], s[(9 - t) & 7], &r->b_xor_c, &s[(11 - t) & 7], s[(12 - t) & 7],
                 s[(13 - t) & 7], s[(14 - t) & 7], &s[(15 - t) & 7], w_plus_k, &r->sigma0_pending);
}

/* Eight rounds from wk[0..7]. */
FD_TARGET_SSSE3
static FD_ALWAYS_INLINE void rounds8(round_state *r, const uint32_t *wk)
{
    round_t(r, 0, wk[0]);
    round_t(r, 1, wk[1]);
    round_t(r, 2, wk[2]);
    round_t(r, 3, wk[3]);
    round_t(r, 4, wk[4]);
    round_t(r, 5, wk[5]);
    round_t(r, 6, wk[6]);
    round_t(r, 7, wk[7]);
}

/* Sixteen rounds, 4j-16..4j-1, beside schedule steps j..j+3 on the
 * window w[0..3] (group j-4 in w[0]). */
FD_TARGET_SSSE3
static FD_ALWAYS_INLINE void rounds16_beside_schedule(round_state *r, __m128i w[4],
                                                      uint32_t *w_plus_k, int j)
{
    const uint32_t *wk = &w_plus_k[4 * (j - 4)];

    w[0] = next_word_group(w[0], w[1], w[2], w[3]);
    store_plus_constants(w_plus_k, w[0], j);
    round_t(r, 0, wk[0]);
    round_t(r, 1, wk[1]);
    round_t(r, 2, wk[2]);
    round_t(r, 3, wk[3]);
    w[1] = next_word_group(w[1], w[2], w[3], w[0]);
    store_plus_constants(w_plus_k, w[1], j + 1);
    round_t(r, 4, wk[4]);
    round_t(r, 5, wk[5]);
    round_t(r, 6, wk[6]);
    round_t(r, 7, wk[7]);
    w[2] = next_word_group(w[2], w[3], w[0], w[1]);
    store_plus_constants(w_plus_k, w[2], j + 2);
    round_t(r, 0, wk[8]);
    round_t(r, 1, wk[9]);
    round_t(r, 2, wk[10]);
    round_t(r, 3, wk[11]);
    w[3] = next_word_group(w[3], w[0], w[1], w[2]);
    store_plus_constants(w_plus_k, w[3], j + 3);
    round_t(r, 4, wk[12]);
    round_t(r, 5, wk[13]);
    round_t(r, 6, wk[14]);
    round_t(r, 7, wk[15]);
}

FD_TARGET_SSSE3
void fd_sha256_blocks_ssse3(fd_sha256_chain *chain, const uint8_t *blocks, size_t nblocks)
{
    _Alignas(16) uint32_t w_plus_k[64];
    round_state local, *r = &local;

    for (int i = 0; i < 8; i++)
        r->s[i] = chain->words[i];
    for (; nblocks != 0; nblocks--, blocks += FD_SHA256_BLOCK_LEN) {
        __m128i w[4];

        for (int i = 0; i < 4; i++) {
            w[i] = load_word_group(blocks + 16 * i);
            store_plus_constants(w_plus_k, w[i], i);
        }
        r->b_xor_c = r->s[1] ^ r->s[2];
        r->sigma0_pending = 0;
        for (int j = 4; j < 16; j += 4)
            rounds16_beside_schedule(r, w, w_plus_k, j);
        FD_UNROLL(8)
        for (int t = 48; t < 64; t += 8)
            rounds8(r, &w_plus_k[t]);
        r->s[0] += r->sigma0_pending;
        for (int i = 0; i < 8; i++) {
            r->s[i] += chain->words[i];
            chain->words[i] = r->s[i];
        }
    }
}

#endif /* FD_HAVE_SSSE3 */
