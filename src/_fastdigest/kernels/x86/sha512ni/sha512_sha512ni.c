/* SHA-512 compression with Intel's SHA512 instructions, for SHA-384,
 * SHA-512, SHA-512/224 and SHA-512/256 alike.
 *
 * The instructions are those of Intel's SDM, volume 2 (VSHA512RNDS2,
 * VSHA512MSG1, VSHA512MSG2), and the sequence is the one of OpenSSL 3.6's
 * sha512-x86_64.pl (sha512_block_data_order_sha512ext, openssl/openssl pull
 * request 26147), which has the shape of the SHA-NI SHA-256 kernels
 * (sha256_shani.c) in 64-bit words and ymm registers:
 *   vsha512rnds2 does two rounds. It holds the state as two vectors, ABEF
 *     and CDGH (a in the top lane), takes W+K for its two rounds from the
 *     two lanes of an xmm operand, and returns the new ABEF; the old ABEF is
 *     the new CDGH, so the two state vectors swap roles on every call, and
 *     four rounds take the two halves of one group's W+K.
 *   A group is four message words W[4j..4j+3], W[4j] in the lowest lane.
 *     vsha512msg1 adds sigma0 of the next words (W[4j+4], the lowest of
 *     the next group, comes in an xmm operand), vsha512msg2 the sigma1
 *     terms, which depend on words of the same group; the W[t-7] term
 *     spans two groups across the 128-bit halves, which OpenSSL gathers
 *     with two vpermq and a vpblendd, and this kernel with a vperm2i128
 *     and a vpalignr.
 * One group's rounds wait for the previous group's, so a single message is
 * bound by the latency of vsha512rnds2 (40 in a row per block); the loads,
 * byte swaps, constant adds and the schedule run beside that chain.
 *
 * No CPU here has the instructions: the kernel has run on the Bochs CPU
 * (tests/bochs/) and, as its model build, on AVX2 CPUs (sha512ni.h); its
 * speed is unmeasured. */
#include "kernels/x86/sha512ni/sha512ni.h"

#ifdef FD_HAVE_SHA512NI

#include <immintrin.h>

/* The instructions, or their model (sha512ni.h). */
#ifdef FD_SHA512NI_MODEL
#include "kernels/x86/sha512ni/sha512ni_model.h"
#define SHA512RNDS2 fd_model_mm256_sha512rnds2_epi64
#define SHA512MSG1 fd_model_mm256_sha512msg1_epi64
#define SHA512MSG2 fd_model_mm256_sha512msg2_epi64
#else
#define SHA512RNDS2 _mm256_sha512rnds2_epi64
#define SHA512MSG1 _mm256_sha512msg1_epi64
#define SHA512MSG2 _mm256_sha512msg2_epi64
#endif

/* Group j of a block: the block is big-endian, so each 64-bit word's bytes
 * are reversed in place. _mm256_loadu_si256 is the intrinsic for an address
 * of any alignment. */
FD_TARGET_SHA512NI
static FD_ALWAYS_INLINE __m256i load_word_group(const uint8_t *block, int j)
{
    const __m256i swap_bytes_in_words = _mm256_set_epi8(8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4,
                                                        5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1,
                                                        2, 3, 4, 5, 6, 7);

    return _mm256_shuffle_epi8(_mm256_loadu_si256((const __m256i *)(const void *)(block + 32 * j)),
                               swap_bytes_in_words);
}

/* Rounds 4j..4j+3 with the message words of group j. */
FD_TARGET_SHA512NI
static FD_ALWAYS_INLINE void rounds4(__m256i *abef, __m256i *cdgh, __m256i words, int j)
{
    const __m256i k = _mm256_loadu_si256(
        (const __m256i *)(const void *)&fd_sha512_round_constants[4 * j]);
    const __m256i w_plus_k = _mm256_add_epi64(words, k);

    *cdgh = SHA512RNDS2(*cdgh, *abef, _mm256_castsi256_si128(w_plus_k)); /* now holds ABEF */
    *abef = SHA512RNDS2(*abef, *cdgh, _mm256_extracti128_si256(w_plus_k, 1));
}

/* Finishes group j+4 from `partial` = vsha512msg1(group j, group j+1), that
 * is W[t-16] + sigma0(W[t-15]), given groups j+2 and j+3: adds W[t-7] (the
 * top three words of group j+2 and the lowest of j+3), then the sigma1
 * terms. vpalignr shifts within 128-bit halves, so the middle two of those
 * words come from a swap of halves first. */
FD_TARGET_SHA512NI
static FD_ALWAYS_INLINE __m256i next_word_group(__m256i partial, __m256i group2, __m256i group3)
{
    const __m256i middle = _mm256_permute2x128_si256(group2, group3, 0x21); /* g2 high, g3 low */

    partial = _mm256_add_epi64(partial, _mm256_alignr_epi8(middle, group2, 8));
    return SHA512MSG2(partial, group3);
}

/* vsha512msg1 takes the next word from the low half of its second group. */
FD_TARGET_SHA512NI
static FD_ALWAYS_INLINE __m256i start_word_group(__m256i group0, __m256i group1)
{
    return SHA512MSG1(group0, _mm256_castsi256_si128(group1));
}

/* Compresses one block into the state (abef, cdgh): 80 rounds and the
 * feed-forward. */
FD_TARGET_SHA512NI
static FD_ALWAYS_INLINE void compress_block(__m256i *abef, __m256i *cdgh, const uint8_t *block)
{
    const __m256i abef_in = *abef, cdgh_in = *cdgh;
    __m256i w0 = load_word_group(block, 0), w1 = load_word_group(block, 1);
    __m256i w2 = load_word_group(block, 2), w3 = load_word_group(block, 3);

    /* w0..w3 hold a sliding window of four groups: group j lives in
     * w(j mod 4). While group j is used, group j+1 is finished and group
     * j+3 started, which gives each step a group of slack. */
    rounds4(abef, cdgh, w0, 0);
    rounds4(abef, cdgh, w1, 1);
    w0 = start_word_group(w0, w1);
    rounds4(abef, cdgh, w2, 2);
    w1 = start_word_group(w1, w2);
    rounds4(abef, cdgh, w3, 3);
    w0 = next_word_group(w0, w2, w3);
    w2 = start_word_group(w2, w3);

    /* Groups 4..15: the steady state, four groups per iteration so that
     * the window's names stay fixed. Group 16 starts the last group. */
    for (int j = 4; j < 16; j += 4) {
        rounds4(abef, cdgh, w0, j);
        w1 = next_word_group(w1, w3, w0);
        w3 = start_word_group(w3, w0);
        rounds4(abef, cdgh, w1, j + 1);
        w2 = next_word_group(w2, w0, w1);
        w0 = start_word_group(w0, w1);
        rounds4(abef, cdgh, w2, j + 2);
        w3 = next_word_group(w3, w1, w2);
        w1 = start_word_group(w1, w2);
        rounds4(abef, cdgh, w3, j + 3);
        w0 = next_word_group(w0, w2, w3);
        w2 = start_word_group(w2, w3);
    }
    rounds4(abef, cdgh, w0, 16);
    w1 = next_word_group(w1, w3, w0);
    w3 = start_word_group(w3, w0);

    /* Groups 17..19: the schedule ends with group 19. */
    rounds4(abef, cdgh, w1, 17);
    w2 = next_word_group(w2, w0, w1);
    rounds4(abef, cdgh, w2, 18);
    w3 = next_word_group(w3, w1, w2);
    rounds4(abef, cdgh, w3, 19);

    *abef = _mm256_add_epi64(*abef, abef_in);
    *cdgh = _mm256_add_epi64(*cdgh, cdgh_in);
}

/* FIPS order a..h to the layout of vsha512rnds2: ABEF = (f, e, b, a) and
 * CDGH = (h, g, d, c), lane 0 first. */
FD_TARGET_SHA512NI
static FD_ALWAYS_INLINE void chain_to_state(const uint64_t words[8], __m256i *abef, __m256i *cdgh)
{
    const __m256i abcd = _mm256_loadu_si256((const __m256i *)(const void *)words);
    const __m256i efgh = _mm256_loadu_si256((const __m256i *)(const void *)(words + 4));
    const __m256i dcba = _mm256_permute4x64_epi64(abcd, 0x1b);
    const __m256i hgfe = _mm256_permute4x64_epi64(efgh, 0x1b);

    *abef = _mm256_permute2x128_si256(dcba, hgfe, 0x13); /* f e b a */
    *cdgh = _mm256_permute2x128_si256(dcba, hgfe, 0x02); /* h g d c */
}

/* And back to FIPS order. */
FD_TARGET_SHA512NI
static FD_ALWAYS_INLINE void state_to_chain(__m256i abef, __m256i cdgh, uint64_t words[8])
{
    const __m256i dcba = _mm256_permute2x128_si256(abef, cdgh, 0x13);
    const __m256i hgfe = _mm256_permute2x128_si256(abef, cdgh, 0x02);

    _mm256_storeu_si256((__m256i *)(void *)words, _mm256_permute4x64_epi64(dcba, 0x1b));
    _mm256_storeu_si256((__m256i *)(void *)(words + 4), _mm256_permute4x64_epi64(hgfe, 0x1b));
}

FD_TARGET_SHA512NI
static FD_ALWAYS_INLINE void compress_blocks(uint64_t words[8], const uint8_t *blocks,
                                             size_t nblocks)
{
    __m256i abef, cdgh;

    chain_to_state(words, &abef, &cdgh);
    for (; nblocks != 0; nblocks--, blocks += FD_SHA512_BLOCK_LEN)
        compress_block(&abef, &cdgh, blocks);
    state_to_chain(abef, cdgh, words);
}

FD_TARGET_SHA512NI
void fd_sha512_blocks_sha512ni(fd_sha512_chain *chain, const uint8_t *blocks, size_t nblocks)
{
    compress_blocks(chain->words, blocks, nblocks);
}

#endif /* FD_HAVE_SHA512NI */
