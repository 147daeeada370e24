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
#include "kernels_x86.h"

#ifdef FD_HAVE_SHANI

#include <immintrin.h>

/* A group of four message words W[4j..4j+3], W[4j] in the lowest lane: the
 * block is big-endian, so each 32-bit word's bytes are reversed in place.
 * _mm_loadu_si128 is the intrinsic for an address of any alignment. */
FD_TARGET_SHANI
static inline __m128i load_word_group(const uint8_t *p)
{
    const __m128i swap_bytes_in_words =
        _mm_set_epi8(12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3);

    return _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(const void *)p),
                            swap_bytes_in_words);
}

/* Rounds 4j..4j+3 with the message words of group j. */
FD_TARGET_SHANI
static inline void rounds4(__m128i *abef, __m128i *cdgh, __m128i words, int j)
{
    const __m128i k = _mm_loadu_si128((const __m128i *)(const void *)
                                      &fd_sha256_round_constants[4 * j]);
    __m128i w_plus_k = _mm_add_epi32(words, k);

    *cdgh = _mm_sha256rnds2_epu32(*cdgh, *abef, w_plus_k); /* now holds ABEF */
    /* The second pair of rounds takes its W+K from the low lanes too. */
    w_plus_k = _mm_shuffle_epi32(w_plus_k, 0x0e);
    *abef = _mm_sha256rnds2_epu32(*abef, *cdgh, w_plus_k);
}

/* Finishes group j+4 from `partial` = sha256msg1(group j, group j+1), that
 * is W[t-16] + sigma0(W[t-15]), given groups j+2 and j+3: adds W[t-7] (the
 * top three words of group j+2 and the lowest of j+3), then the sigma1
 * terms. */
FD_TARGET_SHANI
static inline __m128i next_word_group(__m128i partial, __m128i group2, __m128i group3)
{
    partial = _mm_add_epi32(partial, _mm_alignr_epi8(group3, group2, 4));
    return _mm_sha256msg2_epu32(partial, group3);
}

FD_TARGET_SHANI
void fd_sha256_blocks_shani(uint32_t chain[8], const uint8_t *blocks, size_t nblocks)
{
    /* FIPS order a..h to the layout of sha256rnds2, once per call:
     * ABEF = (a, b, e, f) and CDGH = (c, d, g, h), first letter in lane 3. */
    __m128i abcd = _mm_loadu_si128((const __m128i *)(const void *)chain);
    __m128i efgh = _mm_loadu_si128((const __m128i *)(const void *)(chain + 4));
    __m128i badc = _mm_shuffle_epi32(abcd, 0xb1); /* lanes 0..3: b a d c */
    __m128i hgfe = _mm_shuffle_epi32(efgh, 0x1b); /* lanes 0..3: h g f e */
    __m128i abef = _mm_alignr_epi8(badc, hgfe, 8); /* f e b a */
    __m128i cdgh = _mm_blend_epi16(hgfe, badc, 0xf0); /* h g d c */

    for (; nblocks != 0; nblocks--, blocks += FD_SHA256_BLOCK_LEN) {
        const __m128i abef_in = abef, cdgh_in = cdgh;
        /* w0..w3 hold a sliding window of four groups: group j lives in
         * w(j mod 4). While group j is used, group j+1 is finished and group
         * j+3 started, which gives each step a group of slack. */
        __m128i w0, w1, w2, w3;

        w0 = load_word_group(blocks);
        rounds4(&abef, &cdgh, w0, 0);
        w1 = load_word_group(blocks + 16);
        rounds4(&abef, &cdgh, w1, 1);
        w0 = _mm_sha256msg1_epu32(w0, w1);
        w2 = load_word_group(blocks + 32);
        rounds4(&abef, &cdgh, w2, 2);
        w1 = _mm_sha256msg1_epu32(w1, w2);
        w3 = load_word_group(blocks + 48);
        rounds4(&abef, &cdgh, w3, 3);
        w0 = next_word_group(w0, w2, w3);
        w2 = _mm_sha256msg1_epu32(w2, w3);

        /* Groups 4..11: the steady state, four groups per iteration so that
         * the window's names stay fixed. Group 12 starts the last group. */
        for (int j = 4; j < 12; j += 4) {
            rounds4(&abef, &cdgh, w0, j);
            w1 = next_word_group(w1, w3, w0);
            w3 = _mm_sha256msg1_epu32(w3, w0);
            rounds4(&abef, &cdgh, w1, j + 1);
            w2 = next_word_group(w2, w0, w1);
            w0 = _mm_sha256msg1_epu32(w0, w1);
            rounds4(&abef, &cdgh, w2, j + 2);
            w3 = next_word_group(w3, w1, w2);
            w1 = _mm_sha256msg1_epu32(w1, w2);
            rounds4(&abef, &cdgh, w3, j + 3);
            w0 = next_word_group(w0, w2, w3);
            w2 = _mm_sha256msg1_epu32(w2, w3);
        }
        rounds4(&abef, &cdgh, w0, 12);
        w1 = next_word_group(w1, w3, w0);
        w3 = _mm_sha256msg1_epu32(w3, w0);

        /* Groups 13..15: the schedule ends with group 15. */
        rounds4(&abef, &cdgh, w1, 13);
        w2 = next_word_group(w2, w0, w1);
        rounds4(&abef, &cdgh, w2, 14);
        w3 = next_word_group(w3, w1, w2);
        rounds4(&abef, &cdgh, w3, 15);

        abef = _mm_add_epi32(abef, abef_in);
        cdgh = _mm_add_epi32(cdgh, cdgh_in);
    }

    /* Back to FIPS order. */
    __m128i abfe = _mm_shuffle_epi32(abef, 0x1b); /* lanes 0..3: a b e f */
    __m128i ghcd = _mm_shuffle_epi32(cdgh, 0xb1); /* lanes 0..3: g h c d */
    abcd = _mm_blend_epi16(abfe, ghcd, 0xf0);
    efgh = _mm_alignr_epi8(ghcd, abfe, 8);
    _mm_storeu_si128((__m128i *)(void *)chain, abcd);
    _mm_storeu_si128((__m128i *)(void *)(chain + 4), efgh);
}

#endif /* FD_HAVE_SHANI */
