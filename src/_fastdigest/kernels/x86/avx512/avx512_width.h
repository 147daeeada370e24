/* Thirty-two-bit lanes of AVX-512 under one set of names at either width:
 * sixteen lanes in a zmm register or eight in a ymm register (AVX-512VL),
 * so that a multi-buffer kernel is written once and compiled at both
 * (md5_avx512_xn.h). The includer defines FD_AVX512_LANES to 16 or 8
 * and includes this after <immintrin.h>, inside its FD_HAVE_AVX512_MULTI
 * guard; one translation unit takes one width.
 *
 * Why two widths of the same instructions: where a 512-bit operation takes
 * two passes through 256-bit units (Zen 4), eight lanes of ymm hash a
 * block in clearly less time than sixteen of zmm, though in well over half
 * of it, as the dependency chain of a step bounds both. A batch with fewer
 * groups of sixteen messages than threads then runs in groups of eight, a
 * thread each (hash/batch_threads.c, dispatch.c's narrower_kernel_cpus). */
#ifndef FD_AVX512_LANES
#error "define FD_AVX512_LANES (16 or 8) before including avx512_width.h"
#endif

#include "kernels/x86/avx2/avx2_lanes.h" /* transpose8, at eight lanes */
#include "kernels/x86/avx512/avx512_lanes.h"

#if FD_AVX512_LANES == 16
typedef __m512i vec32;
#define VEC32(op) _mm512_##op
#elif FD_AVX512_LANES == 8
typedef __m256i vec32;
#define VEC32(op) _mm256_##op
#else
#error "FD_AVX512_LANES is 16 or 8"
#endif

/* vpternlogd: its truth table is an immediate, so a macro. */
#define vec32_ternary(x, y, z, table) VEC32(ternarylogic_epi32)(x, y, z, table)

FD_TARGET_AVX512
static FD_ALWAYS_INLINE vec32 vec32_add(vec32 x, vec32 y)
{
    return VEC32(add_epi32)(x, y);
}

FD_TARGET_AVX512
static FD_ALWAYS_INLINE vec32 vec32_set1(uint32_t x)
{
    return VEC32(set1_epi32)((int)x);
}

/* Rotates take their count from a vector, so that the count need not be an
 * immediate (vprolvd is as fast as vprold). */
FD_TARGET_AVX512
static FD_ALWAYS_INLINE vec32 vec32_rotl(vec32 x, int n)
{
    return VEC32(rolv_epi32)(x, VEC32(set1_epi32)(n));
}

/* Lane l's element: l * stride + word, the index of word `word` of lane
 * l's chain in an array of chains of `stride` words. */
FD_TARGET_AVX512
static FD_ALWAYS_INLINE vec32 vec32_chain_index(int stride, int word)
{
#if FD_AVX512_LANES == 16
    const vec32 lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
#else
    const vec32 lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
#endif
    return vec32_add(VEC32(mullo_epi32)(lane, vec32_set1((uint32_t)stride)),
                     vec32_set1((uint32_t)word));
}

/* Word `word` of every lane's chain, and back (chains of `stride` words,
 * one per lane, from base). */
FD_TARGET_AVX512
static FD_ALWAYS_INLINE vec32 vec32_load_chain_word(const void *base, int stride, int word)
{
#if FD_AVX512_LANES == 16
    return _mm512_i32gather_epi32(vec32_chain_index(stride, word), base, 4);
#else
    return _mm256_i32gather_epi32((const int *)base, vec32_chain_index(stride, word), 4);
#endif
}

FD_TARGET_AVX512
static FD_ALWAYS_INLINE void vec32_store_chain_word(void *base, int stride, int word, vec32 x)
{
    VEC32(i32scatter_epi32)(base, vec32_chain_index(stride, word), x, 4);
}

/* The sixteen message words of every lane's block `offset` bytes into its
 * run: x[k] holds word k (as loaded: little-endian) of every lane. */
FD_TARGET_AVX512
static FD_ALWAYS_INLINE void vec32_load_block_words(const uint8_t *const *blocks, size_t offset,
                                                    vec32 x[16])
{
#if FD_AVX512_LANES == 16
    __m512i rows[16];
    for (int lane = 0; lane < 16; lane++)
        rows[lane] = _mm512_loadu_si512((const void *)(blocks[lane] + offset));
    transpose16(rows, x);
#else
    /* Each lane's block is two ymm rows: words 0-7, then 8-15. */
    __m256i low[8], high[8];
    for (int lane = 0; lane < 8; lane++) {
        low[lane] = _mm256_loadu_si256((const void *)(blocks[lane] + offset));
        high[lane] = _mm256_loadu_si256((const void *)(blocks[lane] + offset + 32));
    }
    transpose8(low, x);
    transpose8(high, x + 8);
#endif
}
