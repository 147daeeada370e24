/* SHA-1 compression with AVX2 for the message schedule and BMI1/BMI2 for
 * the rounds, for x86-64 CPUs without the SHA extensions.
 *
 * The method is Intel's, published by Max Locktyukhin in "Improving the
 * Performance of the Secure Hash Algorithm (SHA-1)" (Intel, 2010) and
 * widened to AVX2 in the AVX2 paths of OpenSSL's sha1-x86_64.pl and Linux's
 * sha1_avx2_x86_64_asm.S (this is C written from the method, not from their
 * code):
 *   The rounds are one dependency chain of 32-bit scalar operations, so they
 *     stay scalar: BMI2's rorx rotates without overwriting its source, and
 *     BMI1's andn computes ~b & d in one instruction.
 *   The message schedule is independent of the rounds and runs on the vector
 *     units beside them, four words a step. A 256-bit register holds four
 *     words of two blocks, one block per 128-bit lane, so every shuffle
 *     (vpalignr, vpshufb, vpsrldq) stays inside a lane and a step yields four
 *     words of both blocks. W+K goes to a stack buffer from which the rounds
 *     add it with one memory operand.
 *   W[16..31] follow FIPS 180-4's recurrence
 *       W[t] = rol(W[t-3] ^ W[t-8] ^ W[t-14] ^ W[t-16], 1),
 *     whose W[t-3] term makes the fourth word of a step need the step's own
 *     first: the step computes all four without it and then XORs the
 *     missing term into the fourth lane (rol(W[t], 1) = rol(X[t], 2), X[t]
 *     being the first word's XOR before its rotation).
 *   W[32..79] follow the equivalent recurrence Locktyukhin derives,
 *       W[t] = rol(W[t-6] ^ W[t-16] ^ W[t-28] ^ W[t-32], 2),
 *     whose nearest term is six words back: four words a step, no fix-up.
 * The schedule of a pair runs beside the first block's rounds, one step per
 * four rounds and four steps (sixteen rounds) ahead of them; the second
 * block's rounds then read their W+K from the stack with no vector work
 * beside them. An odd final block is paired with itself and its duplicate's
 * rounds are skipped, so one block costs one block's rounds, with its
 * schedule hidden beside them.
 *
 * The rounds bound this kernel: 7.75 integer operations a round on average
 * (8 with Ch, 7 with parity, 9 with Maj), two of them rotations, on four
 * ALUs of which two rotate (Zen 3), and a critical path of rorx and one add
 * a round. Built by GCC it runs within a few percent of OpenSSL 3.0's AVX2
 * assembly on long messages and as fast on one block
 * (benchmarks/kernel_cpb.c); the rounds alone, from a filled W+K buffer, run
 * hardly faster than the whole kernel. Tried and measured, so that it need
 * not be tried again:
 *   - the next pair's schedule spread over both blocks of this pair, one
 *     step per eight rounds (the Linux and OpenSSL arrangement): no faster,
 *     and a single block then waits for its whole schedule;
 *   - each round computing the next round's F, so that a is consumed and
 *     no register copies are needed (OpenSSL's register order; 124 moves
 *     instead of 200): no faster;
 *   - Ch as d ^ (b & (c ^ d)): the same; Maj as ((b ^ c) & (c ^ d)) ^ c,
 *     three operations deep after b: slower;
 *   - software prefetch 256 to 1024 bytes ahead: no change;
 *   - target tuning for znver3 or for skylake: slower;
 *   - Clang 14 builds it slower than GCC 12. */
#include "kernels/x86/avx2/avx2.h"

#ifdef FD_HAVE_AVX2

#include <immintrin.h>

#include "kernels/x86/sha1_x86_rounds.h"

/* Four rounds a group, twenty groups a block; group g uses K[g / 5]. */
#define GROUPS 20

/* W+K of two blocks: entries 8g..8g+3 hold rounds 4g..4g+3 of the first
 * block, 8g+4..8g+7 those of the second. */
#define PAIR_WORDS (8 * GROUPS)

/* ---- the schedule ---------------------------------------------------------- */

/* Words 4g..4g+3 of two blocks, first block in the low lane, each word's
 * bytes swapped from the big-endian input. _mm_loadu_si128 is the intrinsic
 * for an address of any alignment. */
FD_TARGET_AVX2
static FD_ALWAYS_INLINE __m256i load_word_group(const uint8_t *first, const uint8_t *second)
{
    const __m256i swap_bytes_in_words = _mm256_set_epi8(12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0,
                                                        1, 2, 3, 12, 13, 14, 15, 8, 9, 10, 11, 4, 5,
                                                        6, 7, 0, 1, 2, 3);
    __m128i low = _mm_loadu_si128((const __m128i *)(const void *)first);
    __m128i high = _mm_loadu_si128((const __m128i *)(const void *)second);

    return _mm256_shuffle_epi8(_mm256_inserti128_si256(_mm256_castsi128_si256(low), high, 1),
                               swap_bytes_in_words);
}

FD_TARGET_AVX2
static FD_ALWAYS_INLINE __m256i rotl_words(__m256i x, int n)
{
    return _mm256_or_si256(_mm256_slli_epi32(x, n), _mm256_srli_epi32(x, 32 - n));
}

/* Group g (4..7) from groups g-4..g-1, by the recurrence with W[t-3]:
 * W[t-16] is group g-4, W[t-14] the upper half of g-4 and the lower of
 * g-3, W[t-8] group g-2, and W[t-3..t-1] the top three words of g-1 (the
 * fourth lane gets zero, then the fix-up). */
FD_TARGET_AVX2
static FD_ALWAYS_INLINE __m256i words_16_to_31(__m256i back4, __m256i back3, __m256i back2,
                                               __m256i back1)
{
    __m256i x = _mm256_xor_si256(_mm256_alignr_epi8(back3, back4, 8), back4);
    x = _mm256_xor_si256(x, back2);
    x = _mm256_xor_si256(x, _mm256_srli_si256(back1, 4));
    __m256i words = rotl_words(x, 1);
    /* The fourth word's missing term, rol(W[t], 1) = rol(x[0], 2), moved
     * from the first lane to the fourth. */
    return _mm256_xor_si256(words, rotl_words(_mm256_slli_si256(x, 12), 2));
}

/* Group g (8..19) from groups g-8, g-7, g-4, g-2 and g-1: W[t-32], W[t-28],
 * W[t-16], and W[t-6..t-3], the upper half of g-2 and the lower of g-1. */
FD_TARGET_AVX2
static FD_ALWAYS_INLINE __m256i words_32_to_79(__m256i back8, __m256i back7, __m256i back4,
                                               __m256i back2, __m256i back1)
{
    __m256i x = _mm256_xor_si256(_mm256_alignr_epi8(back1, back2, 8), back4);
    x = _mm256_xor_si256(x, _mm256_xor_si256(back8, back7));
    return rotl_words(x, 2);
}

/* Adds group g's K to both lanes and stores it at w_plus_k[8g..8g+7]. */
FD_TARGET_AVX2
static FD_ALWAYS_INLINE void store_plus_constant(uint32_t *w_plus_k, __m256i words, int g)
{
    __m256i k = _mm256_set1_epi32((int)fd_sha1_x86_round_constants[g / 5]);
    __m256i *slot = (__m256i *)(void *)&w_plus_k[8 * g];

    _mm256_store_si256(slot, _mm256_add_epi32(words, k));
    FD_STORED(slot);
}

/* Schedule step g (4..19): the group from the window words[0..g-1]. */
FD_TARGET_AVX2
static FD_ALWAYS_INLINE void schedule_step(__m256i words[GROUPS], uint32_t *w_plus_k, int g)
{
    if (g < 8)
        words[g] = words_16_to_31(words[g - 4], words[g - 3], words[g - 2], words[g - 1]);
    else
        words[g] = words_32_to_79(words[g - 8], words[g - 7], words[g - 4], words[g - 2],
                                  words[g - 1]);
    store_plus_constant(w_plus_k, words[g], g);
}

/* ---- the rounds (sha1_x86_rounds.h) ------------------------------------ */

/* Round t of the first (lane 0) or second (lane 1) block of a pair. In the
 * first block, words is the pair's schedule window and each group of
 * rounds starts with the schedule step four groups ahead; in the second it
 * is NULL. first_words, where not NULL, holds W[0..15] as scalars, from
 * which rounds 0-15 take W (and the stack holds W+K from round 16 on). */
FD_TARGET_AVX2
static FD_ALWAYS_INLINE void scheduled_round(int t, uint32_t a, uint32_t *b, uint32_t c, uint32_t d,
                                             uint32_t *e, uint32_t *w_plus_k, int lane,
                                             __m256i *words, const uint32_t *first_words)
{
    if (words != NULL && t % 4 == 0 && t / 4 + 4 < GROUPS)
        schedule_step(words, w_plus_k, t / 4 + 4);
    if (first_words != NULL && t < 16)
        fd_sha1_round(true, t, a, b, c, d, e, first_words[t] + fd_sha1_x86_round_constants[0]);
    else
        fd_sha1_round(true, t, a, b, c, d, e, w_plus_k[8 * (t / 4) + 4 * lane + t % 4]);
}

/* The 80 rounds of one block onto v, and the feed-forward. Five rounds a
 * loop iteration, with the names rotated by hand (as in
 * portable/sha1_portable.c): the working variables stay scalars, which GCC
 * then keeps in registers. */
FD_TARGET_AVX2
static FD_ALWAYS_INLINE void block_rounds(fd_sha1_vars *v, uint32_t *w_plus_k, int lane,
                                          __m256i *words, const uint32_t *first_words)
{
    uint32_t a = v->a, b = v->b, c = v->c, d = v->d, e = v->e;

    FD_UNROLL(16)
    for (int t = 0; t < 80; t += 5) {
        scheduled_round(t, a, &b, c, d, &e, w_plus_k, lane, words, first_words);
        scheduled_round(t + 1, e, &a, b, c, &d, w_plus_k, lane, words, first_words);
        scheduled_round(t + 2, d, &e, a, b, &c, w_plus_k, lane, words, first_words);
        scheduled_round(t + 3, c, &d, e, a, &b, w_plus_k, lane, words, first_words);
        scheduled_round(t + 4, b, &c, d, e, &a, w_plus_k, lane, words, first_words);
    }
    v->a += a, v->b += b, v->c += c, v->d += d, v->e += e;
}

/* ---- the kernel ------------------------------------------------------------ */

/* Compresses nblocks blocks (any alignment) onto v, two at a time. */
FD_TARGET_AVX2
static FD_ALWAYS_INLINE void compress_blocks(fd_sha1_vars *v, const uint8_t *blocks, size_t nblocks)
{
    _Alignas(32) uint32_t w_plus_k[PAIR_WORDS];

    while (nblocks != 0) {
        const uint8_t *second = nblocks >= 2 ? blocks + FD_SHA1_BLOCK_LEN : blocks;
        __m256i words[GROUPS];

        FD_UNROLL(16)
        for (int g = 0; g < 4; g++) {
            words[g] = load_word_group(blocks + 16 * g, second + 16 * g);
            store_plus_constant(w_plus_k, words[g], g);
        }
        block_rounds(v, w_plus_k, 0, words, NULL);
        if (nblocks == 1)
            break;
        /* The second block, from the W+K already on the stack. */
        block_rounds(v, w_plus_k, 1, NULL, NULL);
        blocks += 2 * FD_SHA1_BLOCK_LEN;
        nblocks -= 2;
    }
}

FD_TARGET_AVX2
void fd_sha1_blocks_avx2(fd_sha1_chain *chain, const uint8_t *blocks, size_t nblocks)
{
    fd_sha1_vars v = fd_sha1_vars_from_chain(chain);

    compress_blocks(&v, blocks, nblocks);
    chain->words[0] = v.a, chain->words[1] = v.b, chain->words[2] = v.c, chain->words[3] = v.d;
    chain->words[4] = v.e;
}

/* ---- PBKDF2 ---------------------------------------------------------------
 *
 * As in sha1_shani.c: both hashes of a PBKDF2 iteration from U_2 on
 * compress a block made of one digest and fixed padding, and here the
 * digest goes from the rounds' registers into the next block without a trip
 * through bytes in memory. Its sixteen words are scalars, so rounds 0-15 add
 * them directly; the schedule from W[16] on runs in the vectors' first lane,
 * four groups ahead of the rounds as in compress_blocks. An iteration costs
 * clearly less than through hmac.c's loop over fd_sha1_blocks_avx2. The end
 * of an HMAC in the kernel (fd_sha1_hmac_finish_fn) was measured too and
 * gained nothing, so there is none. */

/* Compresses the block made of digest (a SHA-1 state's five words, the
 * block's W[0..4]) and its padding onto v: W[5] = 0x80000000, W[6..14] = 0,
 * W[15] = the bit length of the keyed block and the digest (FIPS 180-4,
 * 5.1.1). */
FD_TARGET_AVX2
static FD_ALWAYS_INLINE void compress_digest_block(fd_sha1_vars *v, const fd_sha1_vars *digest)
{
    const uint32_t first_words[16] = {
        digest->a, digest->b,  digest->c, digest->d,
        digest->e, 0x80000000, 0,         0,
        0,         0,          0,         0,
        0,         0,          0,         (FD_SHA1_BLOCK_LEN + FD_SHA1_DIGEST_LEN) * 8};
    _Alignas(32) uint32_t w_plus_k[PAIR_WORDS];
    __m256i words[GROUPS];

    words[0] = _mm256_zextsi128_si256(
        _mm_setr_epi32((int)digest->a, (int)digest->b, (int)digest->c, (int)digest->d));
    words[1] = _mm256_zextsi128_si256(_mm_setr_epi32((int)digest->e, INT32_MIN, 0, 0));
    words[2] = _mm256_setzero_si256();
    words[3] = _mm256_zextsi128_si256(_mm_setr_epi32(0, 0, 0, (int)first_words[15]));
    block_rounds(v, w_plus_k, 0, words, first_words);
}

FD_TARGET_AVX2
void fd_sha1_pbkdf2_avx2(const fd_sha1_chain *inner_chain, const fd_sha1_chain *outer_chain,
                         size_t digest_len, fd_sha1_chain *words, uint32_t iterations_left)
{
    (void)digest_len; /* SHA-1's */
    fd_sha1_vars u = fd_sha1_vars_from_chain(words), t = u;

    for (; iterations_left != 0; iterations_left--) {
        fd_sha1_vars inner = fd_sha1_vars_from_chain(inner_chain);
        compress_digest_block(&inner, &u);
        u = fd_sha1_vars_from_chain(outer_chain);
        compress_digest_block(&u, &inner);
        t.a ^= u.a, t.b ^= u.b, t.c ^= u.c, t.d ^= u.d, t.e ^= u.e;
    }
    words->words[0] = t.a, words->words[1] = t.b, words->words[2] = t.c, words->words[3] = t.d;
    words->words[4] = t.e;
}

#endif /* FD_HAVE_AVX2 */
