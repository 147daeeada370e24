/* SHA-1 compression with an SSSE3 message schedule, for x86-64 CPUs with
 * neither the SHA extensions nor AVX2 (x86-64-v2 machines, and virtual
 * machines that hide AVX).
 *
 * The method of sha1_avx2.c (read its header first) at a quarter of its
 * width: Locktyukhin's schedule of one block in 128-bit registers, four
 * words a step, running four steps (sixteen rounds) ahead of the block's
 * scalar rounds (sha1_x86_rounds.h) and storing W+K for them on the stack.
 * Without BMI the rounds rotate with rol, which overwrites its operand, so
 * rol(a, 5) costs a register copy, and Ch takes its xor form (the and/not
 * form measured slower).
 *
 * It runs as fast as OpenSSL 3.0's SSSE3 assembly on long messages and on
 * one block (benchmarks/kernel_cpb.c, with OPENSSL_ia32cap hiding AVX, AVX2
 * and SHA); the PBKDF2 loop here costs clearly less an iteration than
 * hmac.c's loop over fd_sha1_blocks_ssse3. */
#include "kernels/x86/ssse3/ssse3.h"

#ifdef FD_HAVE_SSSE3

#include "kernels/x86/sha1_x86_rounds.h"
#include "kernels/x86/ssse3/ssse3_words.h"

/* Four rounds a group, twenty groups a block; group g uses K[g / 5]. */
#define GROUPS 20

/* ---- the schedule ---------------------------------------------------------- */

FD_TARGET_SSSE3
static FD_ALWAYS_INLINE __m128i rotl_words(__m128i x, int n)
{
    return _mm_or_si128(_mm_slli_epi32(x, n), _mm_srli_epi32(x, 32 - n));
}

/* Group g (4..7) from groups g-4..g-1, by the recurrence with W[t-3] (see
 * words_16_to_31 in sha1_avx2.c). */
FD_TARGET_SSSE3
static FD_ALWAYS_INLINE __m128i words_16_to_31(__m128i back4, __m128i back3, __m128i back2,
                                               __m128i back1)
{
    __m128i x = _mm_xor_si128(_mm_alignr_epi8(back3, back4, 8), back4);
    x = _mm_xor_si128(x, back2);
    x = _mm_xor_si128(x, _mm_srli_si128(back1, 4));
    __m128i words = rotl_words(x, 1);
    /* The fourth word's missing term, rol(W[t], 1) = rol(x[0], 2). */
    return _mm_xor_si128(words, rotl_words(_mm_slli_si128(x, 12), 2));
}

/* Group g (8..19) from groups g-8, g-7, g-4, g-2 and g-1. */
FD_TARGET_SSSE3
static FD_ALWAYS_INLINE __m128i words_32_to_79(__m128i back8, __m128i back7, __m128i back4,
                                               __m128i back2, __m128i back1)
{
    __m128i x = _mm_xor_si128(_mm_alignr_epi8(back1, back2, 8), back4);
    x = _mm_xor_si128(x, _mm_xor_si128(back8, back7));
    return rotl_words(x, 2);
}

/* Adds group g's K and stores it at w_plus_k[4g..4g+3]. */
FD_TARGET_SSSE3
static FD_ALWAYS_INLINE void store_plus_constant(uint32_t *w_plus_k, __m128i words, int g)
{
    __m128i k = _mm_set1_epi32((int)fd_sha1_x86_round_constants[g / 5]);
    __m128i *slot = (__m128i *)(void *)&w_plus_k[4 * g];

    _mm_store_si128(slot, _mm_add_epi32(words, k));
    FD_STORED(slot);
}

/* Schedule step g (4..19): the group from the window words[0..g-1]. */
FD_TARGET_SSSE3
static FD_ALWAYS_INLINE void schedule_step(__m128i words[GROUPS], uint32_t *w_plus_k, int g)
{
    if (g < 8)
        words[g] = words_16_to_31(words[g - 4], words[g - 3], words[g - 2], words[g - 1]);
    else
        words[g] = words_32_to_79(words[g - 8], words[g - 7], words[g - 4], words[g - 2],
                                  words[g - 1]);
    store_plus_constant(w_plus_k, words[g], g);
}

/* ---- the rounds (sha1_x86_rounds.h) ------------------------------------ */

/* Round t; each group of rounds starts with the schedule step four groups
 * ahead. first_words, where not NULL, holds W[0..15] as scalars, from which
 * rounds 0-15 take W (and the stack holds W+K from round 16 on). */
FD_TARGET_SSSE3
static FD_ALWAYS_INLINE void scheduled_round(int t, uint32_t a, uint32_t *b, uint32_t c, uint32_t d,
                                             uint32_t *e, uint32_t *w_plus_k, __m128i *words,
                                             const uint32_t *first_words)
{
    if (t % 4 == 0 && t / 4 + 4 < GROUPS)
        schedule_step(words, w_plus_k, t / 4 + 4);
    if (first_words != NULL && t < 16)
        fd_sha1_round(false, t, a, b, c, d, e, first_words[t] + fd_sha1_x86_round_constants[0]);
    else
        fd_sha1_round(false, t, a, b, c, d, e, w_plus_k[t]);
}

/* The 80 rounds of one block onto v, and the feed-forward; words[0..3]
 * hold the block's first sixteen words. */
FD_TARGET_SSSE3
static FD_ALWAYS_INLINE void block_rounds(fd_sha1_vars *v, uint32_t *w_plus_k, __m128i *words,
                                          const uint32_t *first_words)
{
    uint32_t a = v->a, b = v->b, c = v->c, d = v->d, e = v->e;

    FD_UNROLL(16)
    for (int t = 0; t < 80; t += 5) {
        scheduled_round(t, a, &b, c, d, &e, w_plus_k, words, first_words);
        scheduled_round(t + 1, e, &a, b, c, &d, w_plus_k, words, first_words);
        scheduled_round(t + 2, d, &e, a, b, &c, w_plus_k, words, first_words);
        scheduled_round(t + 3, c, &d, e, a, &b, w_plus_k, words, first_words);
        scheduled_round(t + 4, b, &c, d, e, &a, w_plus_k, words, first_words);
    }
    v->a += a, v->b += b, v->c += c, v->d += d, v->e += e;
}

/* ---- the kernel ------------------------------------------------------------ */

FD_TARGET_SSSE3
void fd_sha1_blocks_ssse3(fd_sha1_chain *chain, const uint8_t *blocks, size_t nblocks)
{
    _Alignas(16) uint32_t w_plus_k[4 * GROUPS];
    fd_sha1_vars v = fd_sha1_vars_from_chain(chain);

    for (; nblocks != 0; nblocks--, blocks += FD_SHA1_BLOCK_LEN) {
        __m128i words[GROUPS];

        FD_UNROLL(16)
        for (int g = 0; g < 4; g++) {
            words[g] = load_word_group(blocks + 16 * g);
            store_plus_constant(w_plus_k, words[g], g);
        }
        block_rounds(&v, w_plus_k, words, NULL);
    }
    chain->words[0] = v.a, chain->words[1] = v.b, chain->words[2] = v.c, chain->words[3] = v.d;
    chain->words[4] = v.e;
}

/* ---- PBKDF2 (as in sha1_avx2.c) --------------------------------------------- */

/* Compresses the block made of digest and its padding onto v (see
 * compress_digest_block in sha1_avx2.c). */
FD_TARGET_SSSE3
static FD_ALWAYS_INLINE void compress_digest_block(fd_sha1_vars *v, const fd_sha1_vars *digest)
{
    const uint32_t first_words[16] = {
        digest->a, digest->b,  digest->c, digest->d,
        digest->e, 0x80000000, 0,         0,
        0,         0,          0,         0,
        0,         0,          0,         (FD_SHA1_BLOCK_LEN + FD_SHA1_DIGEST_LEN) * 8};
    _Alignas(16) uint32_t w_plus_k[4 * GROUPS];
    __m128i words[GROUPS];

    words[0] = _mm_setr_epi32((int)digest->a, (int)digest->b, (int)digest->c, (int)digest->d);
    words[1] = _mm_setr_epi32((int)digest->e, INT32_MIN, 0, 0);
    words[2] = _mm_setzero_si128();
    words[3] = _mm_setr_epi32(0, 0, 0, (int)first_words[15]);
    block_rounds(v, w_plus_k, words, first_words);
}

FD_TARGET_SSSE3
void fd_sha1_pbkdf2_ssse3(const fd_sha1_chain *inner_chain, const fd_sha1_chain *outer_chain,
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

#endif /* FD_HAVE_SSSE3 */
