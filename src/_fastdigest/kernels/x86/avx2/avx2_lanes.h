/* What the eight-lane multi-buffer kernels share (MD5, SHA-1 and SHA-256
 * on AVX2, and MD5's eight lanes of ymm on AVX-512: one 32-bit word of
 * eight messages per ymm register): the 8x8 transpose that turns eight
 * lanes' 32-byte rows into vectors of one word of every lane. Included
 * after <immintrin.h>, inside a multi-buffer guard. The helpers need AVX2
 * alone, so they are compiled for it (not FD_TARGET_AVX2, which a build
 * without the AVX2 kernels leaves undefined) and inline into any kernel
 * whose target includes AVX2. */
#ifndef FD_KERNELS_X86_AVX2_LANES_H
#define FD_KERNELS_X86_AVX2_LANES_H

#include "kernels/x86/x86.h"

#define FD_TARGET_AVX2_LANES FD_X86_TARGET("avx2")

/* Rows r[0..7] (lane l's words 8h..8h+7 in r[l]) become columns: x[k] holds
 * word 8h+k of every lane, lane l in 32-bit element l. The transpose is its
 * own inverse: columns given as rows come back as rows. */
FD_TARGET_AVX2_LANES
static FD_ALWAYS_INLINE void transpose8(const __m256i r[8], __m256i x[8])
{
    __m256i t[8], u[8];

    for (int i = 0; i < 4; i++) {
        /* Lanes 2i and 2i+1 interleaved: words 0,1 | 4,5 and 2,3 | 6,7. */
        t[2 * i] = _mm256_unpacklo_epi32(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm256_unpackhi_epi32(r[2 * i], r[2 * i + 1]);
    }
    for (int i = 0; i < 2; i++) {
        /* Lanes 4i..4i+3 of words 0|4, 1|5, 2|6, 3|7. */
        u[4 * i] = _mm256_unpacklo_epi64(t[4 * i], t[4 * i + 2]);
        u[4 * i + 1] = _mm256_unpackhi_epi64(t[4 * i], t[4 * i + 2]);
        u[4 * i + 2] = _mm256_unpacklo_epi64(t[4 * i + 1], t[4 * i + 3]);
        u[4 * i + 3] = _mm256_unpackhi_epi64(t[4 * i + 1], t[4 * i + 3]);
    }
    for (int k = 0; k < 4; k++) {
        x[k] = _mm256_permute2x128_si256(u[k], u[k + 4], 0x20);
        x[k + 4] = _mm256_permute2x128_si256(u[k], u[k + 4], 0x31);
    }
}

/* Eight lanes' 64-byte blocks at offset as sixteen vectors, w[t] holding
 * big-endian word t of every lane's block (SHA-1 and SHA-256 read their
 * words big-endian). */
FD_TARGET_AVX2_LANES
static FD_ALWAYS_INLINE void load_be_words8(const uint8_t *const *blocks, size_t offset,
                                            __m256i w[16])
{
    const __m256i swap_bytes_in_words = _mm256_setr_epi8(3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15,
                                                         14, 13, 12, 3, 2, 1, 0, 7, 6, 5, 4, 11, 10,
                                                         9, 8, 15, 14, 13, 12);
    __m256i rows[8];

    for (int half = 0; half < 2; half++) {
        for (int lane = 0; lane < 8; lane++)
            rows[lane] = _mm256_loadu_si256(
                (const __m256i *)(const void *)(blocks[lane] + offset + 32 * half));
        transpose8(rows, w + 8 * half);
    }
    for (int t = 0; t < 16; t++)
        w[t] = _mm256_shuffle_epi8(w[t], swap_bytes_in_words);
}

/* Asks for each lane's block after next while this one is hashed: eight
 * streams at once are more than the hardware prefetcher follows (the
 * sixteen-lane kernels measured the block after next as the distance that
 * helps, the next one as too late). */
FD_TARGET_AVX2_LANES
static FD_ALWAYS_INLINE void prefetch_block_after_next8(const uint8_t *const *blocks, size_t offset,
                                                        size_t block_len)
{
    for (int lane = 0; lane < 8; lane++)
        _mm_prefetch((const char *)(blocks[lane] + offset + 2 * block_len), _MM_HINT_T0);
}

#endif /* FD_KERNELS_X86_AVX2_LANES_H */
