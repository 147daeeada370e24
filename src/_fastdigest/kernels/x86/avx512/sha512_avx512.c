/* SHA-512 compression with an AVX-512 message schedule for four blocks at
 * once and BMI1/BMI2 rounds.
 *
 * The design is that of sha512_avx2.c (read its header first), widened:
 *   A 512-bit register holds two consecutive words of four blocks, one block
 *     per 128-bit lane. vpalignr and vpshufb work within lanes at this width
 *     too, so each schedule step is the AVX2 step, and yields W[t], W[t+1]
 *     of four blocks. AVX-512's rotate (vprorq) and three-input logic
 *     (vpternlogq) make sigma0 and sigma1 four instructions each instead of
 *     seven and nine.
 *   The schedule runs beside the first block's rounds and stores W+K of all
 *     four; the other three blocks' rounds read theirs from the stack with
 *     no vector work beside them. Those are the fast rounds: the AVX2
 *     kernel's rounds run faster with no schedule beside them, and here
 *     three blocks in four have none instead of one in two. (Zen 4
 *     executes a 512-bit operation as two 256-bit halves, so the first
 *     block carries twice the AVX2 schedule's execution time, but no more
 *     instructions.)
 *   A final group of fewer than four blocks repeats its last block in the
 *     empty lanes, and the duplicates' rounds are skipped.
 * The round follows OpenSSL's sha512-x86_64.pl (AVX2/BMI2 path) more closely
 * than the AVX2 kernel's does: Sigma0(a) of one round is added to the new a
 * only at the start of the next round, so the sum that makes the next a does
 * not wait for it. Here that order measured faster than the AVX2 kernel's
 * round; in sha512_avx2.c the same change measured slower, as GCC
 * schedules the rounds differently with other code around them.
 *
 * On long messages this kernel runs a little ahead of OpenSSL 3.0's AVX2
 * assembly, where the AVX2 kernel runs a little behind it
 * (benchmarks/kernel_cpb.c, and fastdigest.sha512 against hashlib.sha512);
 * one to four blocks cost the same as with the AVX2 kernel. CPUs that lower
 * their clock under 512-bit instructions (Intel Skylake-SP, Cascade Lake)
 * were not measured. */
#include "kernels/x86/avx512/avx512.h"

#ifdef FD_HAVE_AVX512

#include <immintrin.h>

/* Blocks hashed per schedule: one per 128-bit lane. */
#define GROUP_BLOCKS 4

/* Words 2j and 2j+1 of four blocks, block l in lane l, each 64-bit word's
 * bytes reversed from the big-endian input. _mm_loadu_si128 is the
 * intrinsic for an address of any alignment. */
FD_TARGET_AVX512
static FD_ALWAYS_INLINE __m512i load_word_pairs(const uint8_t *const block[GROUP_BLOCKS], int j)
{
    const __m512i swap_bytes_in_words = _mm512_broadcast_i32x4(
        _mm_set_epi8(8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7));
    __m512i pairs = _mm512_castsi128_si512(
        _mm_loadu_si128((const __m128i *)(const void *)(block[0] + 16 * j)));
    pairs = _mm512_inserti32x4(
        pairs, _mm_loadu_si128((const __m128i *)(const void *)(block[1] + 16 * j)), 1);
    pairs = _mm512_inserti32x4(
        pairs, _mm_loadu_si128((const __m128i *)(const void *)(block[2] + 16 * j)), 2);
    pairs = _mm512_inserti32x4(
        pairs, _mm_loadu_si128((const __m128i *)(const void *)(block[3] + 16 * j)), 3);
    return _mm512_shuffle_epi8(pairs, swap_bytes_in_words);
}

/* Word pair j from pairs j-8, j-7, j-4, j-3 and j-1, as in sha512_avx2.c:
 *   W[t] = sigma1(W[t-2]) + W[t-7] + sigma0(W[t-15]) + W[t-16],
 * with sigma0(x) = rotr(x, 1) ^ rotr(x, 8) ^ (x >> 7) and
 * sigma1(x) = rotr(x, 19) ^ rotr(x, 61) ^ (x >> 6); 0x96 is the truth table
 * of a three-input xor. */
FD_TARGET_AVX512
static FD_ALWAYS_INLINE __m512i next_word_pair(__m512i back8, __m512i back7, __m512i back4,
                                               __m512i back3, __m512i back1)
{
    __m512i back15 = _mm512_alignr_epi8(back7, back8, 8);
    __m512i back7_words = _mm512_alignr_epi8(back3, back4, 8);
    __m512i sigma0 = _mm512_ternarylogic_epi64(_mm512_ror_epi64(back15, 1),
                                               _mm512_ror_epi64(back15, 8),
                                               _mm512_srli_epi64(back15, 7), 0x96);
    __m512i sigma1 = _mm512_ternarylogic_epi64(_mm512_ror_epi64(back1, 19),
                                               _mm512_ror_epi64(back1, 61),
                                               _mm512_srli_epi64(back1, 6), 0x96);
    __m512i sum = _mm512_add_epi64(back8, back7_words);
    sum = _mm512_add_epi64(sum, sigma0);
    return _mm512_add_epi64(sum, sigma1);
}

/* Adds K[2j], K[2j+1] to every lane of pair j and stores it at
 * w_plus_k[8j..8j+7]: block l's two words at 8j + 2l. */
FD_TARGET_AVX512
static FD_ALWAYS_INLINE void store_plus_constants(uint64_t *w_plus_k, __m512i pair, int j)
{
    __m512i k = _mm512_broadcast_i32x4(
        _mm_loadu_si128((const __m128i *)(const void *)&fd_sha512_round_constants[2 * j]));
    _mm512_store_si512((void *)&w_plus_k[8 * j], _mm512_add_epi64(pair, k));
}

FD_TARGET_AVX512
static FD_ALWAYS_INLINE uint64_t rotr64(uint64_t x, unsigned n)
{
    return (x >> n) | (x << (64 - n)); /* n is 1..63 at every call */
}

/* One round with the working variables named by position, in the order of
 * OpenSSL's AVX2/BMI2 round.
 *   *a still lacks Sigma0 of the previous round's a, held in
 *     *sigma0_pending; it is added first, and this round's Sigma0 is left
 *     pending in turn. The sum that makes the new a (here *h) thus does not
 *     wait for the three rotations and two xors of Sigma0.
 *   Maj(a, b, c) is b ^ ((a ^ b) & (b ^ c)), where this round's b ^ c is the
 *     previous round's a ^ b, carried in *b_xor_c.
 *   Ch(e, f, g) is (e & f) + (~e & g): the halves share no bit, and as
 *     separate terms of the sum each waits one operation (and, andn) for e.
 * GCC keeps roughly this statement order, and the speed depends on it more
 * than it should: orders that look equivalent, and even keeping the pending
 * Sigma0 in a variable of its own rather than in s[8], measured slower.
 * Change this only with the benchmark at hand. */
FD_TARGET_AVX512
static FD_ALWAYS_INLINE void sha512_round(uint64_t *a, uint64_t b, uint64_t *b_xor_c, uint64_t *d,
                                          uint64_t e, uint64_t f, uint64_t g, uint64_t *h,
                                          uint64_t w_plus_k, uint64_t *sigma0_pending)
{
    uint64_t t1 = *h + w_plus_k;
    uint64_t e_and_f = f & e;
    uint64_t sigma1 = rotr64(e, 41);
    uint64_t sigma1_part = rotr64(e, 18);
    uint64_t a_full = *a + *sigma0_pending;
    t1 += e_and_f;
    uint64_t not_e_and_g = ~e & g;
    sigma1 ^= sigma1_part;
    sigma1_part = rotr64(e, 14);
    t1 += not_e_and_g;
    sigma1 ^= sigma1_part;
    uint64_t a_xor_b = a_full;
    uint64_t sigma0_part = rotr64(a_full, 39);
    t1 += sigma1;
    a_xor_b ^= b;
    uint64_t sigma0 = rotr64(a_full, 34);
    uint64_t sigma0_last = rotr64(a_full, 28);
    *d += t1;
    uint64_t majority = *b_xor_c & a_xor_b;
    sigma0 ^= sigma0_part;
    majority ^= b;
    sigma0 ^= sigma0_last;
    t1 += majority;
    *a = a_full;
    *h = t1;
    *sigma0_pending = sigma0;
    *b_xor_c = a_xor_b;
}

/* Round t on the state s, which holds a..h in s[0..7] at every multiple of
 * eight rounds, a lacking the pending Sigma0 in s[8]: instead of moving the
 * eight words each round, the roles rotate, a being s[-t mod 8], b
 * s[1-t mod 8], and so on. */
FD_TARGET_AVX512
static FD_ALWAYS_INLINE void round_t(uint64_t s[9], uint64_t *b_xor_c, int t, uint64_t w_plus_k)
{
    sha512_round(&s[(8 - t) & 7], s[(9 - t) & 7], b_xor_c, &s[(11 - t) & 7], s[(12 - t) & 7],
                 s[(13 - t) & 7], s[(14 - t) & 7], &s[(15 - t) & 7], w_plus_k, &s[8]);
}

/* Eight rounds of one block; wk holds their W+K at wk[0], wk[1], wk[8],
 * wk[9], ...: two rounds per pair of the four-block layout. */
FD_TARGET_AVX512
static FD_ALWAYS_INLINE void rounds8(uint64_t s[9], uint64_t *b_xor_c, const uint64_t *wk)
{
    round_t(s, b_xor_c, 0, wk[0]);
    round_t(s, b_xor_c, 1, wk[1]);
    round_t(s, b_xor_c, 2, wk[8]);
    round_t(s, b_xor_c, 3, wk[9]);
    round_t(s, b_xor_c, 4, wk[16]);
    round_t(s, b_xor_c, 5, wk[17]);
    round_t(s, b_xor_c, 6, wk[24]);
    round_t(s, b_xor_c, 7, wk[25]);
}

FD_TARGET_AVX512
void fd_sha512_blocks_avx512(fd_sha512_chain *chain, const uint8_t *blocks, size_t nblocks)
{
    /* W[t] + K[t] of four blocks: entries 8j..8j+7 hold rounds 2j and 2j+1
     * of the first block, then of the second, third and fourth. */
    _Alignas(64) uint64_t w_plus_k[2 * GROUP_BLOCKS * 40];
    uint64_t s[9];

    for (int i = 0; i < 8; i++)
        s[i] = chain->words[i];

    while (nblocks != 0) {
        size_t group = nblocks < GROUP_BLOCKS ? nblocks : GROUP_BLOCKS;
        const uint8_t *block[GROUP_BLOCKS];
        uint64_t s_in[8], b_xor_c;
        /* The last eight word pairs, pair j in window[j mod 8]; a step
         * replaces the oldest, and `last` is the newest. */
        __m512i window[8], last;

        for (size_t l = 0; l < GROUP_BLOCKS; l++)
            block[l] = blocks + FD_SHA512_BLOCK_LEN * (l < group ? l : group - 1);

        FD_UNROLL(8)
        for (int j = 0; j < 8; j++) {
            last = load_word_pairs(block, j);
            window[j] = last;
            store_plus_constants(w_plus_k, last, j);
        }

        /* The first block. Rounds 2j-16 and 2j-15 run beside step j, and
         * read a pair stored eight steps earlier. */
        for (int i = 0; i < 8; i++)
            s_in[i] = s[i];
        b_xor_c = s[1] ^ s[2];
        s[8] = 0;
        for (int j = 8; j < 40; j += 8) {
            FD_UNROLL(8)
            for (int i = 0; i < 8; i++) {
                last = next_word_pair(window[i], window[(i + 1) & 7], window[(i + 4) & 7],
                                      window[(i + 5) & 7], last);
                window[i] = last;
                store_plus_constants(w_plus_k, last, j + i);
                round_t(s, &b_xor_c, 2 * i, w_plus_k[8 * (j + i - 8)]);
                round_t(s, &b_xor_c, 2 * i + 1, w_plus_k[8 * (j + i - 8) + 1]);
            }
        }
        FD_UNROLL(8)
        for (int t = 64; t < 80; t += 8)
            rounds8(s, &b_xor_c, &w_plus_k[4 * t]);
        s[0] += s[8];
        for (int i = 0; i < 8; i++)
            s[i] += s_in[i];

        /* The other blocks, from the W+K already on the stack. */
        for (size_t l = 1; l < group; l++) {
            for (int i = 0; i < 8; i++)
                s_in[i] = s[i];
            b_xor_c = s[1] ^ s[2];
            s[8] = 0;
            FD_UNROLL(1)
            for (int t = 0; t < 80; t += 8)
                rounds8(s, &b_xor_c, &w_plus_k[4 * t + 2 * l]);
            s[0] += s[8];
            for (int i = 0; i < 8; i++)
                s[i] += s_in[i];
        }

        blocks += group * FD_SHA512_BLOCK_LEN;
        nblocks -= group;
    }

    for (int i = 0; i < 8; i++)
        chain->words[i] = s[i];
}

#endif /* FD_HAVE_AVX512 */
