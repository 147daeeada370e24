/* The one-lane steps of the SHA-NI SHA-256 kernels, shared by the
 * single-stream kernel (sha256_shani.c, which explains the instructions and
 * the blocks made of one digest) and the two-stream one (sha256_shani_x2.c). Included only by those files, after
 * <immintrin.h>, inside their FD_HAVE_SHANI guards. */
#ifndef FD_SHA256_SHANI_STEPS_H
#define FD_SHA256_SHANI_STEPS_H

#include <stdbool.h>
#include <stdint.h>

/* A group of four message words W[4j..4j+3], W[4j] in the lowest lane: the
 * block is big-endian, so each 32-bit word's bytes are reversed in place.
 * _mm_loadu_si128 is the intrinsic for an address of any alignment. */
FD_TARGET_SHANI
static FD_ALWAYS_INLINE __m128i load_word_group(const uint8_t *p)
{
    const __m128i swap_bytes_in_words = _mm_set_epi8(12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1,
                                                     2, 3);

    return _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(const void *)p), swap_bytes_in_words);
}

/* Finishes group j+4 from `partial` = sha256msg1(group j, group j+1), that
 * is W[t-16] + sigma0(W[t-15]), given groups j+2 and j+3: adds W[t-7] (the
 * top three words of group j+2 and the lowest of j+3), then the sigma1
 * terms. */
FD_TARGET_SHANI
static FD_ALWAYS_INLINE __m128i next_word_group(__m128i partial, __m128i group2, __m128i group3)
{
    partial = _mm_add_epi32(partial, _mm_alignr_epi8(group3, group2, 4));
    return _mm_sha256msg2_epu32(partial, group3);
}

/* FIPS order a..h (two vectors, a in lane 0) to the layout of sha256rnds2:
 * ABEF = (a, b, e, f) and CDGH = (c, d, g, h), first letter in lane 3. */
FD_TARGET_SHANI
static FD_ALWAYS_INLINE void chain_to_state(const fd_sha256_chain *chain, __m128i *abef,
                                            __m128i *cdgh)
{
    __m128i abcd = _mm_loadu_si128((const __m128i *)(const void *)chain->words);
    __m128i efgh = _mm_loadu_si128((const __m128i *)(const void *)(chain->words + 4));
    __m128i badc = _mm_shuffle_epi32(abcd, 0xb1); /* lanes 0..3: b a d c */
    __m128i hgfe = _mm_shuffle_epi32(efgh, 0x1b); /* lanes 0..3: h g f e */

    *abef = _mm_alignr_epi8(badc, hgfe, 8);    /* f e b a */
    *cdgh = _mm_blend_epi16(hgfe, badc, 0xf0); /* h g d c */
}

/* And back to FIPS order. */
FD_TARGET_SHANI
static FD_ALWAYS_INLINE void state_to_chain(__m128i abef, __m128i cdgh, fd_sha256_chain *chain)
{
    __m128i abfe = _mm_shuffle_epi32(abef, 0x1b); /* lanes 0..3: a b e f */
    __m128i ghcd = _mm_shuffle_epi32(cdgh, 0xb1); /* lanes 0..3: g h c d */

    _mm_storeu_si128((__m128i *)(void *)chain->words, _mm_blend_epi16(abfe, ghcd, 0xf0));
    _mm_storeu_si128((__m128i *)(void *)(chain->words + 4), _mm_alignr_epi8(ghcd, abfe, 8));
}

/* ---- blocks made of one digest (HMAC's outer hash, PBKDF2's iterations) */

/* The first eight chain words of a state, as the word groups W[0..3] and
 * W[4..7] of a block that begins with them. */
FD_TARGET_SHANI
static inline void state_to_groups(__m128i abef, __m128i cdgh, __m128i *w0, __m128i *w1)
{
    *w0 = _mm_shuffle_epi32(_mm_unpackhi_epi64(cdgh, abef), 0x1b); /* d c b a, reversed */
    *w1 = _mm_shuffle_epi32(_mm_unpacklo_epi64(cdgh, abef), 0x1b); /* h g f e, reversed */
}

/* The rest of a block that holds one digest of digest_words words (8 for
 * SHA-256, 7 for SHA-224) after one keyed block: the 0x80 marker, zeros and
 * the bit length (FIPS 180-4, 5.1.1). For SHA-256 the marker opens group 2;
 * SHA-224's seven words leave it in the top lane of group 1, where
 * mark_digest_end puts it. INT32_MIN is the word 0x80000000. */
typedef struct digest_block_padding {
    bool truncated;
    __m128i group2, group3;
} digest_block_padding;

FD_TARGET_SHANI
static inline digest_block_padding padding_after_digest(size_t digest_words)
{
    const bool truncated = digest_words == 7;
    const digest_block_padding padding = {
        truncated,
        truncated ? _mm_setzero_si128() : _mm_set_epi32(0, 0, 0, INT32_MIN),
        _mm_set_epi32((int)((FD_SHA256_BLOCK_LEN + 4 * digest_words) * 8), 0, 0, 0),
    };
    return padding;
}

FD_TARGET_SHANI
static inline __m128i mark_digest_end(const digest_block_padding *padding, __m128i w1)
{
    const __m128i marker_in_top_lane = _mm_set_epi32(INT32_MIN, 0, 0, 0);
    return padding->truncated ? _mm_blend_epi16(w1, marker_in_top_lane, 0xc0) : w1;
}

#endif /* FD_SHA256_SHANI_STEPS_H */
