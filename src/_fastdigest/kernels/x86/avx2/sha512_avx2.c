/* SHA-512 compression with AVX2 for the message schedule and BMI1/BMI2 for
 * the rounds.
 *
 * The approach is the AVX2 path of OpenSSL's sha512-x86_64.pl, after Intel's
 * "Fast SHA-512 Implementations on Intel Architecture Processors" (2012):
 *   The eighty rounds are one dependency chain of 64-bit scalar operations,
 *     so they stay scalar; BMI2's rorx rotates without overwriting its source
 *     and BMI1's andn computes ~e & g in one instruction.
 *   The message schedule is independent of the rounds, so it runs on the
 *     vector units beside them. A 256-bit register holds two consecutive
 *     words of two blocks, one block per 128-bit lane: every shuffle the
 *     schedule needs (vpalignr, vpshufb) then stays inside a lane, and a
 *     step yields W[t] and W[t+1] of both blocks at once. Two words per
 *     step is also the most the recurrence allows without splitting sigma1,
 *     since W[t+2] needs W[t].
 *   The schedule writes W+K of both blocks to the stack while the first
 *     block's rounds run, one step per two rounds; the second block's rounds
 *     then read theirs from the stack with no vector work left to do.
 * An odd final block is paired with itself, and its duplicate's rounds are
 * skipped.
 *
 * The rounds, not the schedule, bound this kernel: 22 integer operations a
 * round, six of them rotations, which Zen 4 (like Intel cores since Haswell)
 * runs on two ports only. Built by GCC the kernel runs a few percent behind
 * OpenSSL 3.0's assembly (benchmarks/kernel_cpb.c), built by Clang further
 * behind. Tried and measured, so that it need not be tried again:
 *   - the schedule window in eight ymm registers, as OpenSSL keeps it: GCC
 *     spills and reloads them around every step; kept in a stack array, the
 *     window costs four loads a step and the kernel is faster;
 *   - four steps then eight rounds instead of one step then two rounds
 *     (which also puts eight steps between a W+K store and its load):
 *     slower;
 *   - spreading the next pair's schedule over the second block's rounds:
 *     slower, and a longer start for short messages;
 *   - the schedule with AVX-512VL rotates and vpternlogq: no faster;
 *   - fully unrolled loops: slower (code size);
 *   - a 160-entry table of K pairs instead of vbroadcasti128: slower;
 *   - OpenSSL's exact round order, with Sigma0(a) added to the new a only in
 *     the next round: slower here, though faster in sha512_avx512.c, whose
 *     rounds mostly run with no schedule beside them;
 *   - the schedule's statements interleaved with half rounds: slower; loop
 *     iterations of four steps and eight rounds: slower; the next pair's
 *     schedule spread over both blocks of this pair: slower;
 *   - target("tune=znver3"): slower.
 * What costs the difference to OpenSSL is the schedule beside the rounds:
 * with W+K precomputed, the same rounds run faster than OpenSSL's whole
 * kernel. sha512_avx512.c therefore schedules four blocks at once. */
#include "kernels/x86/avx2/avx2.h"

#ifdef FD_HAVE_AVX2

#include <immintrin.h>

/* Words 2j and 2j+1 of two blocks, first block in the low lane. The blocks
 * are big-endian, so each 64-bit word's bytes are reversed in place.
 * _mm_loadu_si128 is the intrinsic for an address of any alignment. */
FD_TARGET_AVX2
static FD_ALWAYS_INLINE __m256i load_word_pairs(const uint8_t *first, const uint8_t *second)
{
    const __m256i swap_bytes_in_words = _mm256_set_epi8(8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4,
                                                        5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1,
                                                        2, 3, 4, 5, 6, 7);
    __m128i low = _mm_loadu_si128((const __m128i *)(const void *)first);
    __m128i high = _mm_loadu_si128((const __m128i *)(const void *)second);

    return _mm256_shuffle_epi8(_mm256_inserti128_si256(_mm256_castsi128_si256(low), high, 1),
                               swap_bytes_in_words);
}

/* sigma0(x) = rotr(x, 1) ^ rotr(x, 8) ^ (x >> 7) on each 64-bit lane. AVX2
 * has no 64-bit rotate: rotr by 8 is a byte shuffle (a different port from
 * the shifts), rotr by 1 two shifts. The shifted pieces never overlap within
 * one rotation, so xor joins them as well as or would. */
FD_TARGET_AVX2
static FD_ALWAYS_INLINE __m256i small_sigma0(__m256i x)
{
    const __m256i rotate_bytes_right = _mm256_set_epi8(8, 15, 14, 13, 12, 11, 10, 9, 0, 7, 6, 5, 4,
                                                       3, 2, 1, 8, 15, 14, 13, 12, 11, 10, 9, 0, 7,
                                                       6, 5, 4, 3, 2, 1);
    __m256i shifted = _mm256_xor_si256(_mm256_srli_epi64(x, 1), _mm256_srli_epi64(x, 7));
    __m256i wrapped = _mm256_xor_si256(_mm256_slli_epi64(x, 63),
                                       _mm256_shuffle_epi8(x, rotate_bytes_right));
    return _mm256_xor_si256(shifted, wrapped);
}

/* sigma1(x) = rotr(x, 19) ^ rotr(x, 61) ^ (x >> 6) on each 64-bit lane. */
FD_TARGET_AVX2
static FD_ALWAYS_INLINE __m256i small_sigma1(__m256i x)
{
    __m256i right = _mm256_xor_si256(_mm256_srli_epi64(x, 19), _mm256_srli_epi64(x, 61));
    __m256i left = _mm256_xor_si256(_mm256_slli_epi64(x, 45), _mm256_slli_epi64(x, 3));
    return _mm256_xor_si256(_mm256_xor_si256(right, left), _mm256_srli_epi64(x, 6));
}

/* Word pair j (W[t], W[t+1] with t = 2j) from pairs j-8, j-7, j-4, j-3 and
 * j-1:
 *   W[t] = sigma1(W[t-2]) + W[t-7] + sigma0(W[t-15]) + W[t-16].
 * W[t-15], W[t-14] straddle pairs j-8 and j-7, and W[t-7], W[t-6] pairs
 * j-4 and j-3: vpalignr joins the high word of one with the low of the next,
 * in each lane. Only the sigma1 term waits for the previous step. */
FD_TARGET_AVX2
static FD_ALWAYS_INLINE __m256i next_word_pair(__m256i back8, __m256i back7, __m256i back4,
                                               __m256i back3, __m256i back1)
{
    __m256i back15 = _mm256_alignr_epi8(back7, back8, 8);
    __m256i back7_words = _mm256_alignr_epi8(back3, back4, 8);
    __m256i sum = _mm256_add_epi64(back8, back7_words);
    sum = _mm256_add_epi64(sum, small_sigma0(back15));
    return _mm256_add_epi64(sum, small_sigma1(back1));
}

/* Adds K[2j], K[2j+1] to both lanes of pair j and stores it at
 * w_plus_k[4j..4j+3]: the first block's two words, then the second's. */
FD_TARGET_AVX2
static FD_ALWAYS_INLINE void store_plus_constants(uint64_t *w_plus_k, __m256i pair, int j)
{
    __m256i k = _mm256_broadcastsi128_si256(
        _mm_loadu_si128((const __m128i *)(const void *)&fd_sha512_round_constants[2 * j]));
    _mm256_store_si256((__m256i *)(void *)&w_plus_k[4 * j], _mm256_add_epi64(pair, k));
}

FD_TARGET_AVX2
static FD_ALWAYS_INLINE uint64_t rotr64(uint64_t x, unsigned n)
{
    return (x >> n) | (x << (64 - n)); /* n is 1..63 at every call */
}

/* One round with the working variables named by position.
 *   Maj(a, b, c) is b ^ ((a ^ b) & (b ^ c)), and this round's b ^ c is the
 *     previous round's a ^ b, carried in *b_xor_c: one operation fewer per
 *     round. c itself is therefore not needed.
 *   Ch(e, f, g) is (e & f) + (~e & g): the halves share no bit, and as
 *     separate terms of the sum each waits one operation (and, andn) for e.
 * The statements follow the order of OpenSSL's AVX2 round: the sum that
 * makes the next e first, its three rotations before those of a. GCC keeps
 * roughly this order, and the out-of-order core, which issues oldest first,
 * then serves the critical path first; other orders measured slower. */
FD_TARGET_AVX2
static FD_ALWAYS_INLINE void sha512_round(uint64_t a, uint64_t b, uint64_t *b_xor_c, uint64_t *d,
                                          uint64_t e, uint64_t f, uint64_t g, uint64_t *h,
                                          uint64_t w_plus_k)
{
    uint64_t t1 = *h + w_plus_k;
    t1 += e & f;
    uint64_t sigma1 = rotr64(e, 41) ^ rotr64(e, 18);
    t1 += ~e & g;
    sigma1 ^= rotr64(e, 14);
    t1 += sigma1;
    uint64_t a_xor_b = a ^ b;
    uint64_t sigma0 = rotr64(a, 39) ^ rotr64(a, 34) ^ rotr64(a, 28);
    *d += t1;
    uint64_t majority = b ^ (*b_xor_c & a_xor_b);
    *h = t1 + majority + sigma0;
    *b_xor_c = a_xor_b;
}

/* Round t on the state s, which holds a..h in s[0..7] at every multiple of
 * eight rounds: instead of moving the eight words each round, the roles
 * rotate, a being s[-t mod 8], b s[1-t mod 8], and so on. */
FD_TARGET_AVX2
static FD_ALWAYS_INLINE void round_t(uint64_t s[8], uint64_t *b_xor_c, int t, uint64_t w_plus_k)
{
    sha512_round(s[(8 - t) & 7], s[(9 - t) & 7], b_xor_c, &s[(11 - t) & 7], s[(12 - t) & 7],
                 s[(13 - t) & 7], s[(14 - t) & 7], &s[(15 - t) & 7], w_plus_k);
}

/* Eight rounds; wk holds their W+K at wk[0], wk[1], wk[4], wk[5], ...: two
 * rounds per pair of the two-block layout. */
FD_TARGET_AVX2
static FD_ALWAYS_INLINE void rounds8(uint64_t s[8], uint64_t *b_xor_c, const uint64_t *wk)
{
    round_t(s, b_xor_c, 0, wk[0]);
    round_t(s, b_xor_c, 1, wk[1]);
    round_t(s, b_xor_c, 2, wk[4]);
    round_t(s, b_xor_c, 3, wk[5]);
    round_t(s, b_xor_c, 4, wk[8]);
    round_t(s, b_xor_c, 5, wk[9]);
    round_t(s, b_xor_c, 6, wk[12]);
    round_t(s, b_xor_c, 7, wk[13]);
}

FD_TARGET_AVX2
void fd_sha512_blocks_avx2(fd_sha512_chain *chain, const uint8_t *blocks, size_t nblocks)
{
    /* W[t] + K[t] of two blocks: entries 4j..4j+3 hold rounds 2j and 2j+1
     * of the first block, then of the second. */
    _Alignas(32) uint64_t w_plus_k[4 * 40];
    uint64_t s[8];

    for (int i = 0; i < 8; i++)
        s[i] = chain->words[i];

    while (nblocks != 0) {
        const uint8_t *second = nblocks >= 2 ? blocks + FD_SHA512_BLOCK_LEN : blocks;
        uint64_t s_in[8], b_xor_c;
        /* The schedule's word pairs, W without K; a step reads four of them
         * back from here and takes the fifth, the previous step's, in
         * `last`. */
        __m256i words[40], last;

        FD_UNROLL(8)
        for (int j = 0; j < 8; j++) {
            last = load_word_pairs(blocks + 16 * j, second + 16 * j);
            words[j] = last;
            store_plus_constants(w_plus_k, last, j);
        }

        /* The first block. Rounds 2j-16 and 2j-15 run beside step j, and
         * read a pair stored eight steps earlier. */
        for (int i = 0; i < 8; i++)
            s_in[i] = s[i];
        b_xor_c = s[1] ^ s[2];
        for (int j = 8; j < 40; j += 8) {
            FD_UNROLL(8)
            for (int i = 0; i < 8; i++) {
                last = next_word_pair(words[j + i - 8], words[j + i - 7], words[j + i - 4],
                                      words[j + i - 3], last);
                words[j + i] = last;
                store_plus_constants(w_plus_k, last, j + i);
                round_t(s, &b_xor_c, 2 * i, w_plus_k[4 * (j + i - 8)]);
                round_t(s, &b_xor_c, 2 * i + 1, w_plus_k[4 * (j + i - 8) + 1]);
            }
        }
        FD_UNROLL(8)
        for (int t = 64; t < 80; t += 8)
            rounds8(s, &b_xor_c, &w_plus_k[2 * t]);
        for (int i = 0; i < 8; i++)
            s[i] += s_in[i];

        if (nblocks == 1)
            break;

        /* The second block, from the W+K already on the stack. */
        for (int i = 0; i < 8; i++)
            s_in[i] = s[i];
        b_xor_c = s[1] ^ s[2];
        FD_UNROLL(1)
        for (int t = 0; t < 80; t += 8)
            rounds8(s, &b_xor_c, &w_plus_k[2 * t + 2]);
        for (int i = 0; i < 8; i++)
            s[i] += s_in[i];

        blocks += 2 * FD_SHA512_BLOCK_LEN;
        nblocks -= 2;
    }

    for (int i = 0; i < 8; i++)
        chain->words[i] = s[i];
}

#endif /* FD_HAVE_AVX2 */
