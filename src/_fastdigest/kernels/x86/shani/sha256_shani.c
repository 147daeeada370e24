/* SHA-256 compression with the Intel SHA extensions (SHA-NI).
 *
 * Instruction facts from Intel's white paper "Intel SHA Extensions" (2013)
 * and the sequence in Linux's arch/x86/crypto/sha256_ni_asm.S:
 *   sha256rnds2 does two rounds. It holds the state as two vectors, ABEF and
 *     CDGH (a in the top lane), takes W+K for its two rounds from the low two
 *     lanes of a third operand, and returns the new ABEF; the old ABEF is the
 *     new CDGH, so the two state vectors swap roles on every call.
 *   sha256msg1 adds sigma0 of the next words, sha256msg2 the sigma1 terms,
 *     which depend on words of the same group and so need their own
 *     instruction; the W[t-7] term comes from an alignr of two groups.
 *
 * One round's result feeds the next, so a single message is bound by the
 * latency of sha256rnds2 (32 in a row per block); everything else (loads,
 * byte swaps, constant adds, the message schedule) runs beside that chain.
 * The state stays in the ABEF/CDGH layout for all blocks of a call. */
#include "kernels/x86/shani/shani.h"

#ifdef FD_HAVE_SHANI

#include <immintrin.h>
#include <string.h>

#include "kernels/x86/shani/sha256_shani_steps.h"

/* Rounds 4j..4j+3 with the message words of group j. */
FD_TARGET_SHANI
static inline void rounds4(__m128i *abef, __m128i *cdgh, __m128i words, int j)
{
    const __m128i k = _mm_loadu_si128(
        (const __m128i *)(const void *)&fd_sha256_round_constants[4 * j]);
    __m128i w_plus_k = _mm_add_epi32(words, k);

    *cdgh = _mm_sha256rnds2_epu32(*cdgh, *abef, w_plus_k); /* now holds ABEF */
    /* The second pair of rounds takes its W+K from the low lanes too. */
    w_plus_k = _mm_shuffle_epi32(w_plus_k, 0x0e);
    *abef = _mm_sha256rnds2_epu32(*abef, *cdgh, w_plus_k);
}

/* Compresses one block, given as its first four word groups, into the state
 * (abef, cdgh): 64 rounds and the feed-forward. */
FD_TARGET_SHANI
static FD_ALWAYS_INLINE void compress_block(__m128i *abef, __m128i *cdgh, __m128i w0, __m128i w1,
                                            __m128i w2, __m128i w3)
{
    const __m128i abef_in = *abef, cdgh_in = *cdgh;

    /* w0..w3 hold a sliding window of four groups: group j lives in
     * w(j mod 4). While group j is used, group j+1 is finished and group
     * j+3 started, which gives each step a group of slack. */
    rounds4(abef, cdgh, w0, 0);
    rounds4(abef, cdgh, w1, 1);
    w0 = _mm_sha256msg1_epu32(w0, w1);
    rounds4(abef, cdgh, w2, 2);
    w1 = _mm_sha256msg1_epu32(w1, w2);
    rounds4(abef, cdgh, w3, 3);
    w0 = next_word_group(w0, w2, w3);
    w2 = _mm_sha256msg1_epu32(w2, w3);

    /* Groups 4..11: the steady state, four groups per iteration so that
     * the window's names stay fixed. Group 12 starts the last group. */
    for (int j = 4; j < 12; j += 4) {
        rounds4(abef, cdgh, w0, j);
        w1 = next_word_group(w1, w3, w0);
        w3 = _mm_sha256msg1_epu32(w3, w0);
        rounds4(abef, cdgh, w1, j + 1);
        w2 = next_word_group(w2, w0, w1);
        w0 = _mm_sha256msg1_epu32(w0, w1);
        rounds4(abef, cdgh, w2, j + 2);
        w3 = next_word_group(w3, w1, w2);
        w1 = _mm_sha256msg1_epu32(w1, w2);
        rounds4(abef, cdgh, w3, j + 3);
        w0 = next_word_group(w0, w2, w3);
        w2 = _mm_sha256msg1_epu32(w2, w3);
    }
    rounds4(abef, cdgh, w0, 12);
    w1 = next_word_group(w1, w3, w0);
    w3 = _mm_sha256msg1_epu32(w3, w0);

    /* Groups 13..15: the schedule ends with group 15. */
    rounds4(abef, cdgh, w1, 13);
    w2 = next_word_group(w2, w0, w1);
    rounds4(abef, cdgh, w2, 14);
    w3 = next_word_group(w3, w1, w2);
    rounds4(abef, cdgh, w3, 15);

    *abef = _mm_add_epi32(*abef, abef_in);
    *cdgh = _mm_add_epi32(*cdgh, cdgh_in);
}

/* Compresses nblocks consecutive blocks from memory (any alignment). */
FD_TARGET_SHANI
static FD_ALWAYS_INLINE void compress_blocks(__m128i *abef, __m128i *cdgh, const uint8_t *blocks,
                                             size_t nblocks)
{
    for (; nblocks != 0; nblocks--, blocks += FD_SHA256_BLOCK_LEN)
        compress_block(abef, cdgh, load_word_group(blocks), load_word_group(blocks + 16),
                       load_word_group(blocks + 32), load_word_group(blocks + 48));
}

FD_TARGET_SHANI
void fd_sha256_blocks_shani(fd_sha256_chain *chain, const uint8_t *blocks, size_t nblocks)
{
    __m128i abef, cdgh;

    chain_to_state(chain, &abef, &cdgh);
    compress_blocks(&abef, &cdgh, blocks, nblocks);
    state_to_chain(abef, cdgh, chain);
}

/* ---- HMAC and PBKDF2 ----------------------------------------------------
 *
 * The outer hash of an HMAC, and both hashes of a PBKDF2 iteration from U_2
 * on, compress a block made of one digest and fixed padding (hash/hmac.c explains
 * why). Here the digest never leaves the registers: the state after one
 * compression becomes the first two word groups of the next block by two
 * shuffles each, and the padding groups are constants. hash/hmac.c's generic code
 * instead stores the chain, writes the digest big-endian into a block and
 * reloads and byte-swaps it, with stalls where the narrow stores meet the
 * wide loads: a sizeable part of a short HMAC's time. */

/* The PBKDF2 loop for a digest of digest_words words (a constant after
 * inlining); T is accumulated in word groups. */
FD_TARGET_SHANI
static FD_ALWAYS_INLINE void pbkdf2_iterate(const fd_sha256_chain *inner_chain,
                                            const fd_sha256_chain *outer_chain, size_t digest_words,
                                            fd_sha256_chain *words, uint32_t iterations_left)
{
    const digest_block_padding padding = padding_after_digest(digest_words);
    __m128i inner_abef, inner_cdgh, outer_abef, outer_cdgh;
    __m128i u0 = _mm_loadu_si128((const __m128i *)(const void *)words->words);
    __m128i u1 = mark_digest_end(
        &padding, _mm_loadu_si128((const __m128i *)(const void *)(words->words + 4)));

    chain_to_state(inner_chain, &inner_abef, &inner_cdgh);
    chain_to_state(outer_chain, &outer_abef, &outer_cdgh);
    __m128i t0 = u0, t1 = u1;

    for (; iterations_left != 0; iterations_left--) {
        __m128i abef = inner_abef, cdgh = inner_cdgh;
        compress_block(&abef, &cdgh, u0, u1, padding.group2, padding.group3);
        state_to_groups(abef, cdgh, &u0, &u1);
        u1 = mark_digest_end(&padding, u1);

        abef = outer_abef;
        cdgh = outer_cdgh;
        compress_block(&abef, &cdgh, u0, u1, padding.group2, padding.group3);
        state_to_groups(abef, cdgh, &u0, &u1);
        u1 = mark_digest_end(&padding, u1);
        t0 = _mm_xor_si128(t0, u0);
        t1 = _mm_xor_si128(t1, u1);
    }

    _mm_storeu_si128((__m128i *)(void *)words->words, t0);
    if (padding.truncated) {
        words->words[4] = (uint32_t)_mm_cvtsi128_si32(t1);
        words->words[5] = (uint32_t)_mm_extract_epi32(t1, 1);
        words->words[6] = (uint32_t)_mm_extract_epi32(t1, 2);
    }
    else {
        _mm_storeu_si128((__m128i *)(void *)(words->words + 4), t1);
    }
}

FD_TARGET_SHANI
void fd_sha256_pbkdf2_shani(const fd_sha256_chain *inner_chain, const fd_sha256_chain *outer_chain,
                            size_t digest_len, fd_sha256_chain *words, uint32_t iterations_left)
{
    if (digest_len == FD_SHA224_DIGEST_LEN)
        pbkdf2_iterate(inner_chain, outer_chain, 7, words, iterations_left);
    else
        pbkdf2_iterate(inner_chain, outer_chain, 8, words, iterations_left);
}

FD_TARGET_SHANI
void fd_sha256_hmac_finish_shani(const fd_sha256_chain *inner_chain, const uint8_t *tail,
                                 size_t tail_blocks, const fd_sha256_chain *outer_chain,
                                 size_t digest_len, uint8_t *out)
{
    const digest_block_padding padding = padding_after_digest(digest_len / 4);
    const __m128i swap_bytes_in_words = _mm_set_epi8(12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1,
                                                     2, 3);
    __m128i abef, cdgh, outer_abef, outer_cdgh, w0, w1;

    chain_to_state(inner_chain, &abef, &cdgh);
    chain_to_state(outer_chain, &outer_abef, &outer_cdgh);
    compress_blocks(&abef, &cdgh, tail, tail_blocks);
    state_to_groups(abef, cdgh, &w0, &w1);
    compress_block(&outer_abef, &outer_cdgh, w0, mark_digest_end(&padding, w1), padding.group2,
                   padding.group3);
    state_to_groups(outer_abef, outer_cdgh, &w0, &w1);

    /* The digest, big-endian: 32 bytes, or SHA-224's first 28. */
    uint8_t digest[FD_SHA256_DIGEST_LEN];
    _mm_storeu_si128((__m128i *)(void *)digest, _mm_shuffle_epi8(w0, swap_bytes_in_words));
    _mm_storeu_si128((__m128i *)(void *)(digest + 16), _mm_shuffle_epi8(w1, swap_bytes_in_words));
    memcpy(out, digest, digest_len);
}

#endif /* FD_HAVE_SHANI */