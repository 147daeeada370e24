/* MD5 compression of eight messages at once, one per 32-bit lane of AVX2.
 *
 * MD5 is one long dependency chain per message (see md5_tuned.c), so a
 * single message leaves most of the core idle; eight messages in the eight
 * lanes of a ymm register run the same 64 steps with one instruction each.
 * The step is RFC 1321's a = b + rotl(a + f(b, c, d) + X[k] + T[i], s) on
 * whole vectors. AVX2 has no rotate: rotl is two shifts and an or. The round
 * functions take the forms of md5_tuned.c where a vector instruction allows:
 *   F  d ^ (b & (c ^ d))
 *   G  (b & d) | (c & ~d), with vpandn for c & ~d
 *   H  b ^ c ^ d
 *   I  c ^ (b | ~d), with ~d as d ^ all-ones
 * The message words arrive as eight 64-byte blocks, one per lane; an 8x8
 * transpose of 32-bit words (unpack, unpack, permute of 128-bit halves)
 * turns each half block into eight vectors, X[k] of every lane in vector k
 * (avx2_lanes.h). */
#include "kernels/x86/avx2/avx2.h"

#ifdef FD_HAVE_AVX2_MULTI

#include <immintrin.h>

#include "kernels/x86/avx2/avx2_lanes.h"
#include "kernels/md5_steps.h"

FD_TARGET_AVX2
static FD_ALWAYS_INLINE __m256i rotl(__m256i x, int s)
{
    return _mm256_or_si256(_mm256_slli_epi32(x, s), _mm256_srli_epi32(x, 32 - s));
}

/* The end of every step: b + rotl(a + f + X[k] + T, s). */
FD_TARGET_AVX2
static FD_ALWAYS_INLINE __m256i step_end(__m256i a, __m256i b, __m256i f, __m256i x, uint32_t t,
                                         int s)
{
    __m256i sum = _mm256_add_epi32(_mm256_add_epi32(x, _mm256_set1_epi32((int)t)), a);
    return _mm256_add_epi32(b, rotl(_mm256_add_epi32(sum, f), s));
}

FD_TARGET_AVX2
static FD_ALWAYS_INLINE __m256i step_f(__m256i a, __m256i b, __m256i c, __m256i d, __m256i x,
                                       uint32_t t, int s)
{
    __m256i f = _mm256_xor_si256(d, _mm256_and_si256(b, _mm256_xor_si256(c, d)));
    return step_end(a, b, f, x, t, s);
}

FD_TARGET_AVX2
static FD_ALWAYS_INLINE __m256i step_g(__m256i a, __m256i b, __m256i c, __m256i d, __m256i x,
                                       uint32_t t, int s)
{
    __m256i g = _mm256_or_si256(_mm256_and_si256(b, d), _mm256_andnot_si256(d, c));
    return step_end(a, b, g, x, t, s);
}

FD_TARGET_AVX2
static FD_ALWAYS_INLINE __m256i step_h(__m256i a, __m256i b, __m256i c, __m256i d, __m256i x,
                                       uint32_t t, int s)
{
    __m256i h = _mm256_xor_si256(b, _mm256_xor_si256(c, d));
    return step_end(a, b, h, x, t, s);
}

FD_TARGET_AVX2
static FD_ALWAYS_INLINE __m256i step_i(__m256i a, __m256i b, __m256i c, __m256i d, __m256i x,
                                       uint32_t t, int s)
{
    __m256i not_d = _mm256_xor_si256(d, _mm256_set1_epi32(-1));
    __m256i i = _mm256_xor_si256(c, _mm256_or_si256(b, not_d));
    return step_end(a, b, i, x, t, s);
}

FD_TARGET_AVX2
void fd_md5_blocks_avx2_x8(fd_md5_chain *chains, const uint8_t *const *blocks, size_t nblocks)
{
    __m256i a = _mm256_setr_epi32((int)chains[0].words[0], (int)chains[1].words[0],
                                  (int)chains[2].words[0], (int)chains[3].words[0],
                                  (int)chains[4].words[0], (int)chains[5].words[0],
                                  (int)chains[6].words[0], (int)chains[7].words[0]);
    __m256i b = _mm256_setr_epi32((int)chains[0].words[1], (int)chains[1].words[1],
                                  (int)chains[2].words[1], (int)chains[3].words[1],
                                  (int)chains[4].words[1], (int)chains[5].words[1],
                                  (int)chains[6].words[1], (int)chains[7].words[1]);
    __m256i c = _mm256_setr_epi32((int)chains[0].words[2], (int)chains[1].words[2],
                                  (int)chains[2].words[2], (int)chains[3].words[2],
                                  (int)chains[4].words[2], (int)chains[5].words[2],
                                  (int)chains[6].words[2], (int)chains[7].words[2]);
    __m256i d = _mm256_setr_epi32((int)chains[0].words[3], (int)chains[1].words[3],
                                  (int)chains[2].words[3], (int)chains[3].words[3],
                                  (int)chains[4].words[3], (int)chains[5].words[3],
                                  (int)chains[6].words[3], (int)chains[7].words[3]);

    for (size_t offset = 0; nblocks != 0; nblocks--, offset += FD_MD5_BLOCK_LEN) {
        const __m256i a0 = a, b0 = b, c0 = c, d0 = d;
        __m256i rows[8], x[16];

        for (int half = 0; half < 2; half++) {
            for (int lane = 0; lane < 8; lane++)
                rows[lane] = _mm256_loadu_si256(
                    (const __m256i *)(const void *)(blocks[lane] + offset + 32 * half));
            transpose8(rows, x + 8 * half);
        }
        if (nblocks > 2)
            prefetch_block_after_next8(blocks, offset, FD_MD5_BLOCK_LEN);

            /* The 64 steps of RFC 1321, 3.4 (md5_steps.h). */
#define MD5_STEP(f, a, b, c, d, k, t, s) a = step_##f(a, b, c, d, x[k], t, s);
        FD_MD5_ROUND1(MD5_STEP)
        FD_MD5_ROUND2(MD5_STEP)
        FD_MD5_ROUND3(MD5_STEP)
        FD_MD5_ROUND4(MD5_STEP)
#undef MD5_STEP

        a = _mm256_add_epi32(a, a0);
        b = _mm256_add_epi32(b, b0);
        c = _mm256_add_epi32(c, c0);
        d = _mm256_add_epi32(d, d0);
    }

    uint32_t words[4][8];
    _mm256_storeu_si256((__m256i *)(void *)words[0], a);
    _mm256_storeu_si256((__m256i *)(void *)words[1], b);
    _mm256_storeu_si256((__m256i *)(void *)words[2], c);
    _mm256_storeu_si256((__m256i *)(void *)words[3], d);
    for (int lane = 0; lane < 8; lane++) {
        for (int w = 0; w < 4; w++)
            chains[lane].words[w] = words[w][lane];
    }
}

/* ---- PBKDF2 -------------------------------------------------------------
 *
 * Up to eight output blocks of PBKDF2-HMAC-MD5 at once, as
 * md5_avx512_x16.c's fd_md5_pbkdf2_avx512_x16 derives sixteen (see there):
 * the digests stay in the lanes, the padding words are constants. */

/* Compresses the block made of the digests u onto chain (the same in every
 * lane); u receives the result. */
FD_TARGET_AVX2
static FD_ALWAYS_INLINE void compress_digest_block(__m256i u[4], const __m256i chain[4])
{
    const __m256i zero = _mm256_setzero_si256();
    const __m256i x[16] = {
        u[0], u[1], u[2], u[3], _mm256_set1_epi32(0x80),
        zero, zero, zero, zero, zero,
        zero, zero, zero, zero, _mm256_set1_epi32((FD_MD5_BLOCK_LEN + FD_MD5_DIGEST_LEN) * 8),
        zero,
    };
    __m256i a = chain[0], b = chain[1], c = chain[2], d = chain[3];

#define MD5_STEP(f, a, b, c, d, k, t, s) a = step_##f(a, b, c, d, x[k], t, s);
    FD_MD5_ROUND1(MD5_STEP)
    FD_MD5_ROUND2(MD5_STEP)
    FD_MD5_ROUND3(MD5_STEP)
    FD_MD5_ROUND4(MD5_STEP)
#undef MD5_STEP

    u[0] = _mm256_add_epi32(a, chain[0]);
    u[1] = _mm256_add_epi32(b, chain[1]);
    u[2] = _mm256_add_epi32(c, chain[2]);
    u[3] = _mm256_add_epi32(d, chain[3]);
}

FD_TARGET_AVX2
void fd_md5_pbkdf2_avx2_x8(const fd_md5_chain *inner_chain, const fd_md5_chain *outer_chain,
                           size_t digest_len, fd_md5_chain *words, size_t count,
                           uint32_t iterations_left)
{
    (void)digest_len; /* MD5's */
    /* Word w of row l is 4 * l + w words from words[0]; lanes past count
     * read row 0 and are never stored. */
    int row_starts[8];
    for (size_t lane = 0; lane < 8; lane++)
        row_starts[lane] = lane < count ? (int)(4 * lane) : 0;
    const __m256i row_words = _mm256_loadu_si256((const __m256i *)(const void *)row_starts);
    const int *base = (const int *)(const void *)words;
    __m256i inner[4], outer[4], u[4], t[4];

    for (int w = 0; w < 4; w++) {
        inner[w] = _mm256_set1_epi32((int)inner_chain->words[w]);
        outer[w] = _mm256_set1_epi32((int)outer_chain->words[w]);
        u[w] = _mm256_i32gather_epi32(base, _mm256_add_epi32(row_words, _mm256_set1_epi32(w)), 4);
        t[w] = u[w];
    }
    for (; iterations_left != 0; iterations_left--) {
        compress_digest_block(u, inner);
        compress_digest_block(u, outer);
        for (int w = 0; w < 4; w++)
            t[w] = _mm256_xor_si256(t[w], u[w]);
    }

    /* Back to rows: lane l's four words in the 128-bit half l / 4 of
     * rows[l % 4]. */
    __m256i ab_low = _mm256_unpacklo_epi32(t[0], t[1]);  /* a0 b0 a1 b1 | a4 b4 a5 b5 */
    __m256i ab_high = _mm256_unpackhi_epi32(t[0], t[1]); /* a2 b2 a3 b3 | a6 b6 a7 b7 */
    __m256i cd_low = _mm256_unpacklo_epi32(t[2], t[3]);
    __m256i cd_high = _mm256_unpackhi_epi32(t[2], t[3]);
    const __m256i rows[4] = {
        _mm256_unpacklo_epi64(ab_low, cd_low),
        _mm256_unpackhi_epi64(ab_low, cd_low),
        _mm256_unpacklo_epi64(ab_high, cd_high),
        _mm256_unpackhi_epi64(ab_high, cd_high),
    };
    for (size_t lane = 0; lane < count; lane++) {
        __m128i row = lane < 4 ? _mm256_castsi256_si128(rows[lane])
                               : _mm256_extracti128_si256(rows[lane - 4], 1);
        _mm_storeu_si128((__m128i *)(void *)words[lane].words, row);
    }
}

#endif /* FD_HAVE_AVX2_MULTI */
