/* The one-lane steps of the SHA-NI SHA-1 kernels, shared by the
 * single-stream kernel (sha1_shani.c, which explains the instructions) and
 * the two-stream one (sha1_shani_x2.c). Included only by those files, after
 * <immintrin.h>, inside their FD_HAVE_SHANI guards. */
#ifndef FD_SHA1_SHANI_STEPS_H
#define FD_SHA1_SHANI_STEPS_H

/* A group of four message words W[4g..4g+3] with W[4g] in the top lane, the
 * order sha1rnds4 takes: the block is big-endian, so reversing all 16 bytes
 * swaps the bytes of each word and the order of the words in one shuffle.
 * _mm_loadu_si128 is the intrinsic for an address of any alignment. */
FD_TARGET_SHANI
static FD_ALWAYS_INLINE __m128i load_word_group(const uint8_t *p)
{
    const __m128i reverse_bytes = _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14,
                                               15);

    return _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(const void *)p), reverse_bytes);
}

/* sha1rnds4 needs its immediate as a constant: each call site passes a
 * literal group number, so after inlining the switch disappears. */
FD_TARGET_SHANI
static FD_ALWAYS_INLINE __m128i sha1rnds4(__m128i abcd, __m128i e_plus_words, int group)
{
    switch (group / 5) {
    case 0:
        return _mm_sha1rnds4_epu32(abcd, e_plus_words, 0);
    case 1:
        return _mm_sha1rnds4_epu32(abcd, e_plus_words, 1);
    case 2:
        return _mm_sha1rnds4_epu32(abcd, e_plus_words, 2);
    default:
        return _mm_sha1rnds4_epu32(abcd, e_plus_words, 3);
    }
}

/* The chain (FIPS order) as the kernels hold it: a in the top lane of abcd;
 * e alone in the top lane of its own vector, the other lanes zero so that
 * adding it to the first words adds only e. */
FD_TARGET_SHANI
static FD_ALWAYS_INLINE void chain_to_state(const fd_sha1_chain *chain, __m128i *abcd, __m128i *e)
{
    *abcd = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)(const void *)chain->words), 0x1b);
    *e = _mm_insert_epi32(_mm_setzero_si128(), (int)chain->words[4], 3);
}

/* And back to FIPS order. */
FD_TARGET_SHANI
static FD_ALWAYS_INLINE void state_to_chain(__m128i abcd, __m128i e, fd_sha1_chain *chain)
{
    _mm_storeu_si128((__m128i *)(void *)chain->words, _mm_shuffle_epi32(abcd, 0x1b));
    chain->words[4] = (uint32_t)_mm_extract_epi32(e, 3);
}

#endif /* FD_SHA1_SHANI_STEPS_H */
