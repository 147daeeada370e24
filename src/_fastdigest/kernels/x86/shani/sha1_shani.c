/* SHA-1 compression with the Intel SHA extensions (SHA-NI).
 *
 * Instruction facts from Intel's white paper "Intel SHA Extensions" (2013)
 * and the sequence in Linux's arch/x86/crypto/sha1_ni_asm.S:
 *   sha1rnds4 does four rounds on ABCD (a in the top lane) with the round
 *     function and constant chosen by an immediate (0..3, for rounds 0-19,
 *     20-39, 40-59, 60-79). Its second operand holds the four message words
 *     with E already added to the first, W[t] in the top lane.
 *   sha1nexte computes that E: four rounds after a state ABCD, e is that
 *     state's a rotated left by 30, so it takes the ABCD from before the
 *     previous four rounds and adds rotl(a, 30) to the top lane of the words.
 *   sha1msg1, a xor and sha1msg2 compute the next four schedule words from
 *     W[t-16], W[t-14], W[t-8] and W[t-3].
 *
 * A single message is bound by the chain of 20 sha1rnds4 per block; the
 * loads, byte swaps, sha1nexte and the schedule run beside it. The state stays
 * in vectors for all blocks of a call. */
#include "kernels/endian.h"
#include "kernels/x86/shani/shani.h"

#ifdef FD_HAVE_SHANI

#include <immintrin.h>

#include "kernels/x86/shani/sha1_shani_steps.h"

/* Rounds 4g..4g+3 for g >= 1. abcd_before holds the state from before rounds
 * 4g-4..4g-1, whose a gives this group's e; it is advanced to the state from
 * before these rounds for the next group. */
FD_TARGET_SHANI
static inline void rounds4(__m128i *abcd, __m128i *abcd_before, __m128i words, int group)
{
    __m128i e_plus_words = _mm_sha1nexte_epu32(*abcd_before, words);

    *abcd_before = *abcd;
    *abcd = sha1rnds4(*abcd, e_plus_words, group);
}

/* Compresses one block, given as its four word groups, into the state: a,
 * b, c, d in abcd (a in the top lane) and e in the top lane of e, whose
 * other lanes are zero and stay so. 80 rounds and the feed-forward. */
FD_TARGET_SHANI
static FD_ALWAYS_INLINE void compress_block(__m128i *abcd, __m128i *e, __m128i w0, __m128i w1,
                                            __m128i w2, __m128i w3)
{
    const __m128i abcd_in = *abcd, e_in = *e;
    __m128i abcd_before = *abcd;

    /* w0..w3 hold a sliding window of four groups: group g lives in
     * w(g mod 4). While group g is used, group g+1 is finished, group
     * g+2 gets its W[t-8] and group g+3 its W[t-16] ^ W[t-14]. */

    /* Rounds 0-19 */
    *abcd = sha1rnds4(*abcd, _mm_add_epi32(*e, w0), 0);
    rounds4(abcd, &abcd_before, w1, 1);
    w0 = _mm_sha1msg1_epu32(w0, w1);
    rounds4(abcd, &abcd_before, w2, 2);
    w1 = _mm_sha1msg1_epu32(w1, w2);
    w0 = _mm_xor_si128(w0, w2);
    rounds4(abcd, &abcd_before, w3, 3);
    w0 = _mm_sha1msg2_epu32(w0, w3);
    w2 = _mm_sha1msg1_epu32(w2, w3);
    w1 = _mm_xor_si128(w1, w3);
    rounds4(abcd, &abcd_before, w0, 4);
    w1 = _mm_sha1msg2_epu32(w1, w0);
    w3 = _mm_sha1msg1_epu32(w3, w0);
    w2 = _mm_xor_si128(w2, w0);

    /* Rounds 20-39 */
    rounds4(abcd, &abcd_before, w1, 5);
    w2 = _mm_sha1msg2_epu32(w2, w1);
    w0 = _mm_sha1msg1_epu32(w0, w1);
    w3 = _mm_xor_si128(w3, w1);
    rounds4(abcd, &abcd_before, w2, 6);
    w3 = _mm_sha1msg2_epu32(w3, w2);
    w1 = _mm_sha1msg1_epu32(w1, w2);
    w0 = _mm_xor_si128(w0, w2);
    rounds4(abcd, &abcd_before, w3, 7);
    w0 = _mm_sha1msg2_epu32(w0, w3);
    w2 = _mm_sha1msg1_epu32(w2, w3);
    w1 = _mm_xor_si128(w1, w3);
    rounds4(abcd, &abcd_before, w0, 8);
    w1 = _mm_sha1msg2_epu32(w1, w0);
    w3 = _mm_sha1msg1_epu32(w3, w0);
    w2 = _mm_xor_si128(w2, w0);
    rounds4(abcd, &abcd_before, w1, 9);
    w2 = _mm_sha1msg2_epu32(w2, w1);
    w0 = _mm_sha1msg1_epu32(w0, w1);
    w3 = _mm_xor_si128(w3, w1);

    /* Rounds 40-59 */
    rounds4(abcd, &abcd_before, w2, 10);
    w3 = _mm_sha1msg2_epu32(w3, w2);
    w1 = _mm_sha1msg1_epu32(w1, w2);
    w0 = _mm_xor_si128(w0, w2);
    rounds4(abcd, &abcd_before, w3, 11);
    w0 = _mm_sha1msg2_epu32(w0, w3);
    w2 = _mm_sha1msg1_epu32(w2, w3);
    w1 = _mm_xor_si128(w1, w3);
    rounds4(abcd, &abcd_before, w0, 12);
    w1 = _mm_sha1msg2_epu32(w1, w0);
    w3 = _mm_sha1msg1_epu32(w3, w0);
    w2 = _mm_xor_si128(w2, w0);
    rounds4(abcd, &abcd_before, w1, 13);
    w2 = _mm_sha1msg2_epu32(w2, w1);
    w0 = _mm_sha1msg1_epu32(w0, w1);
    w3 = _mm_xor_si128(w3, w1);
    rounds4(abcd, &abcd_before, w2, 14);
    w3 = _mm_sha1msg2_epu32(w3, w2);
    w1 = _mm_sha1msg1_epu32(w1, w2);
    w0 = _mm_xor_si128(w0, w2);

    /* Rounds 60-79: the schedule ends with group 19, so the steps that
     * would start groups 20 and up are left out. */
    rounds4(abcd, &abcd_before, w3, 15);
    w0 = _mm_sha1msg2_epu32(w0, w3);
    w2 = _mm_sha1msg1_epu32(w2, w3);
    w1 = _mm_xor_si128(w1, w3);
    rounds4(abcd, &abcd_before, w0, 16);
    w1 = _mm_sha1msg2_epu32(w1, w0);
    w3 = _mm_sha1msg1_epu32(w3, w0);
    w2 = _mm_xor_si128(w2, w0);
    rounds4(abcd, &abcd_before, w1, 17);
    w2 = _mm_sha1msg2_epu32(w2, w1);
    w3 = _mm_xor_si128(w3, w1);
    rounds4(abcd, &abcd_before, w2, 18);
    w3 = _mm_sha1msg2_epu32(w3, w2);
    rounds4(abcd, &abcd_before, w3, 19);

    /* The e after round 79 is rotl(a, 30) of the state before rounds
     * 76-79; sha1nexte adds it to e_in (whose lower lanes stay zero). */
    *e = _mm_sha1nexte_epu32(abcd_before, e_in);
    *abcd = _mm_add_epi32(*abcd, abcd_in);
}

/* Compresses nblocks consecutive blocks from memory (any alignment). */
FD_TARGET_SHANI
static FD_ALWAYS_INLINE void compress_blocks(__m128i *abcd, __m128i *e, const uint8_t *blocks,
                                             size_t nblocks)
{
    for (; nblocks != 0; nblocks--, blocks += FD_SHA1_BLOCK_LEN)
        compress_block(abcd, e, load_word_group(blocks), load_word_group(blocks + 16),
                       load_word_group(blocks + 32), load_word_group(blocks + 48));
}

FD_TARGET_SHANI
void fd_sha1_blocks_shani(fd_sha1_chain *chain, const uint8_t *blocks, size_t nblocks)
{
    __m128i abcd, e;

    chain_to_state(chain, &abcd, &e);
    compress_blocks(&abcd, &e, blocks, nblocks);
    state_to_chain(abcd, e, chain);
}

/* ---- HMAC and PBKDF2 ----------------------------------------------------
 *
 * As in sha256_shani.c: the outer hash of an HMAC, and both hashes of a
 * PBKDF2 iteration from U_2 on, compress a block made of one digest and
 * fixed padding, and here the digest stays in registers. SHA-1's layout
 * makes that cheap: a state's abcd is the block's first word group as it
 * is, and its e (alone in the top lane) with the 0x80 marker beside it is
 * the second. */

/* Compresses the block made of the digest (abcd, e) and its padding onto
 * (chain_abcd, chain_e): W[5] = 0x80000000 (INT32_MIN), W[6..14] = 0, W[15]
 * = the bit length of the keyed block and the digest (FIPS 180-4, 5.1.1). */
FD_TARGET_SHANI
static FD_ALWAYS_INLINE void compress_digest_block(__m128i *chain_abcd, __m128i *chain_e,
                                                   __m128i abcd, __m128i e)
{
    const __m128i marker = _mm_set_epi32(0, INT32_MIN, 0, 0);
    const __m128i group3 = _mm_set_epi32(0, 0, 0, (FD_SHA1_BLOCK_LEN + 20) * 8);

    compress_block(chain_abcd, chain_e, abcd, _mm_or_si128(e, marker), _mm_setzero_si128(), group3);
}

/* T is accumulated in the state's layout. */
FD_TARGET_SHANI
void fd_sha1_pbkdf2_shani(const fd_sha1_chain *inner_chain, const fd_sha1_chain *outer_chain,
                          size_t digest_len, fd_sha1_chain *words, uint32_t iterations_left)
{
    (void)digest_len; /* SHA-1's */
    __m128i inner_abcd, inner_e, outer_abcd, outer_e, u_abcd, u_e;

    chain_to_state(inner_chain, &inner_abcd, &inner_e);
    chain_to_state(outer_chain, &outer_abcd, &outer_e);
    chain_to_state(words, &u_abcd, &u_e);
    __m128i t_abcd = u_abcd, t_e = u_e;

    for (; iterations_left != 0; iterations_left--) {
        __m128i abcd = inner_abcd, e = inner_e;
        compress_digest_block(&abcd, &e, u_abcd, u_e);
        u_abcd = outer_abcd;
        u_e = outer_e;
        compress_digest_block(&u_abcd, &u_e, abcd, e);
        t_abcd = _mm_xor_si128(t_abcd, u_abcd);
        t_e = _mm_xor_si128(t_e, u_e);
    }
    state_to_chain(t_abcd, t_e, words);
}

FD_TARGET_SHANI
void fd_sha1_hmac_finish_shani(const fd_sha1_chain *inner_chain, const uint8_t *tail,
                               size_t tail_blocks, const fd_sha1_chain *outer_chain,
                               size_t digest_len, uint8_t *out)
{
    const __m128i reverse_bytes = _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14,
                                               15);
    __m128i abcd, e, outer_abcd, outer_e;

    (void)digest_len; /* SHA-1's */
    chain_to_state(inner_chain, &abcd, &e);
    chain_to_state(outer_chain, &outer_abcd, &outer_e);
    compress_blocks(&abcd, &e, tail, tail_blocks);
    compress_digest_block(&outer_abcd, &outer_e, abcd, e);

    /* a in the top lane: reversing all 16 bytes writes a..d big-endian. */
    _mm_storeu_si128((__m128i *)(void *)out, _mm_shuffle_epi8(outer_abcd, reverse_bytes));
    fd_store_be32(out + 16, (uint32_t)_mm_extract_epi32(outer_e, 3));
}

#endif /* FD_HAVE_SHANI */
