/* SHA-512 compression of eight messages at once, one per 64-bit lane of
 * AVX-512.
 *
 * The same lane-parallel SHA-512 as sha512_avx2_x4.c, with what AVX-512
 * adds: vprorq rotates in one instruction (AVX2 needs two shifts and an
 * xor), and vpternlogq computes any function of three inputs in one, so
 * Ch, Maj and each three-way xor of the sigma functions are one instruction
 * apiece. A round is then about fifteen vector instructions instead of
 * thirty-six. Eight lanes fill a zmm register; Zen 4 runs a 512-bit
 * operation as two 256-bit halves, so per message this is what four ymm
 * lanes with the same instructions would give, on twice the messages per
 * call.
 *
 * The message words arrive as eight 128-byte blocks, one per lane: an 8x8
 * transpose of 64-bit words (unpack, then two rounds of 128-bit shuffles)
 * per half block, and a byte swap (vpshufb, AVX-512BW), give W[t] of every
 * lane in one vector. The schedule's sixteen words live in a ring beside
 * the rounds, and the state rotates by role, as in sha512_avx2_x4.c. */
#include "kernels/x86/avx512/avx512.h"

#ifdef FD_HAVE_AVX512_MULTI

#include <immintrin.h>

#include "kernels/x86/avx512/avx512_lanes.h"

/* Rotates take their count from a vector, so that the count need not be an
 * immediate (vprorvq is as fast as vprorq). */
FD_TARGET_AVX512
static FD_ALWAYS_INLINE __m512i rotr(__m512i x, long long n)
{
    return _mm512_rorv_epi64(x, _mm512_set1_epi64(n));
}

FD_TARGET_AVX512
static FD_ALWAYS_INLINE __m512i xor3(__m512i x, __m512i y, __m512i z)
{
    return _mm512_ternarylogic_epi64(x, y, z, TERNARY_XOR3);
}

/* sigma0(x) = rotr(x, 1) ^ rotr(x, 8) ^ (x >> 7); sigma1(x) = rotr(x, 19) ^
 * rotr(x, 61) ^ (x >> 6). */
FD_TARGET_AVX512
static FD_ALWAYS_INLINE __m512i small_sigma0(__m512i x)
{
    return xor3(rotr(x, 1), rotr(x, 8), _mm512_srli_epi64(x, 7));
}

FD_TARGET_AVX512
static FD_ALWAYS_INLINE __m512i small_sigma1(__m512i x)
{
    return xor3(rotr(x, 19), rotr(x, 61), _mm512_srli_epi64(x, 6));
}

/* Rows r[0..7] (lane l's words 8h..8h+7 in r[l]) become columns, byte-
 * swapped: w[k] holds word 8h+k of every lane, lane l in element l. */
FD_TARGET_AVX512
static FD_ALWAYS_INLINE void transpose8(const __m512i r[8], __m512i w[8])
{
    const __m512i swap_bytes_in_words = _mm512_set4_epi32(0x08090a0b, 0x0c0d0e0f, 0x00010203,
                                                          0x04050607);
    __m512i t[8];

    /* Within each 128-bit chunk c: word 2c of rows 2i, 2i+1 in t[2i], word
     * 2c+1 in t[2i+1]. */
    for (int i = 0; i < 4; i++) {
        t[2 * i] = _mm512_unpacklo_epi64(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm512_unpackhi_epi64(r[2 * i], r[2 * i + 1]);
    }
    /* w[2c+k], chunk i = t[2i+k], chunk c: a 4x4 transpose of chunks. */
    for (int k = 0; k < 2; k++) {
        __m512i v0 = _mm512_shuffle_i64x2(t[k], t[2 + k], 0x44); /* t0.c0 t0.c1 t2.c0 t2.c1 */
        __m512i v1 = _mm512_shuffle_i64x2(t[k], t[2 + k], 0xee); /* t0.c2 t0.c3 t2.c2 t2.c3 */
        __m512i v2 = _mm512_shuffle_i64x2(t[4 + k], t[6 + k], 0x44);
        __m512i v3 = _mm512_shuffle_i64x2(t[4 + k], t[6 + k], 0xee);
        w[k] = _mm512_shuffle_i64x2(v0, v2, 0x88);     /* chunks c0 of t0, t2, t4, t6 */
        w[2 + k] = _mm512_shuffle_i64x2(v0, v2, 0xdd); /* chunks c1 */
        w[4 + k] = _mm512_shuffle_i64x2(v1, v3, 0x88); /* chunks c2 */
        w[6 + k] = _mm512_shuffle_i64x2(v1, v3, 0xdd); /* chunks c3 */
    }
    for (int k = 0; k < 8; k++)
        w[k] = _mm512_shuffle_epi8(w[k], swap_bytes_in_words);
}

/* Round t on s, which holds a..h in s[0..7] at every multiple of eight
 * rounds: a is s[-t mod 8], b s[1-t mod 8], and so on. */
FD_TARGET_AVX512
static FD_ALWAYS_INLINE void round_t(__m512i s[8], int t, __m512i w)
{
    __m512i a = s[(8 - t) & 7], b = s[(9 - t) & 7], c = s[(10 - t) & 7];
    __m512i e = s[(12 - t) & 7], f = s[(13 - t) & 7], g = s[(14 - t) & 7];
    __m512i *d = &s[(11 - t) & 7], *h = &s[(15 - t) & 7];

    __m512i k = _mm512_set1_epi64((long long)fd_sha512_round_constants[t]);
    __m512i big_sigma1 = xor3(rotr(e, 14), rotr(e, 18), rotr(e, 41));
    __m512i choice = _mm512_ternarylogic_epi64(e, f, g, TERNARY_CHOOSE);
    __m512i t1 = _mm512_add_epi64(_mm512_add_epi64(*h, _mm512_add_epi64(w, k)),
                                  _mm512_add_epi64(big_sigma1, choice));
    __m512i big_sigma0 = xor3(rotr(a, 28), rotr(a, 34), rotr(a, 39));
    __m512i majority = _mm512_ternarylogic_epi64(a, b, c, TERNARY_MAJORITY);

    *d = _mm512_add_epi64(*d, t1);
    *h = _mm512_add_epi64(t1, _mm512_add_epi64(big_sigma0, majority));
}

FD_TARGET_AVX512
void fd_sha512_blocks_avx512_x8(fd_sha512_chain *chains, const uint8_t *const *blocks,
                                size_t nblocks)
{
    /* Word i of lane l is chains[l].words[i], 8 * l + i words from the start. */
    const __m512i lane_words = _mm512_setr_epi64(0, 8, 16, 24, 32, 40, 48, 56);
    const void *base = chains;
    __m512i s[8];

    for (int i = 0; i < 8; i++)
        s[i] = _mm512_i64gather_epi64(_mm512_add_epi64(lane_words, _mm512_set1_epi64(i)), base, 8);

    for (size_t offset = 0; nblocks != 0; nblocks--, offset += FD_SHA512_BLOCK_LEN) {
        __m512i s_in[8], w[16], rows[8];

        for (int i = 0; i < 8; i++)
            s_in[i] = s[i];
        for (int half = 0; half < 2; half++) {
            for (int lane = 0; lane < 8; lane++)
                rows[lane] = _mm512_loadu_si512((const void *)(blocks[lane] + offset + 64 * half));
            transpose8(rows, &w[8 * half]);
        }
        /* Ask for each lane's block after next while this one is hashed:
         * eight streams at once are more than the hardware prefetcher
         * follows. */
        if (nblocks > 2) {
            for (int lane = 0; lane < 8; lane++) {
                const uint8_t *next = blocks[lane] + offset + 2 * FD_SHA512_BLOCK_LEN;
                _mm_prefetch((const char *)next, _MM_HINT_T0);
                _mm_prefetch((const char *)(next + 64), _MM_HINT_T0);
            }
        }

        FD_UNROLL(16)
        for (int t = 0; t < 16; t++)
            round_t(s, t, w[t]);
        /* Rounds 16..79: W[t] replaces W[t-16] in the ring. */
        for (int base_t = 16; base_t < 80; base_t += 16) {
            FD_UNROLL(16)
            for (int i = 0; i < 16; i++) {
                w[i] = _mm512_add_epi64(
                    _mm512_add_epi64(w[i], small_sigma0(w[(i + 1) & 15])),
                    _mm512_add_epi64(w[(i + 9) & 15], small_sigma1(w[(i + 14) & 15])));
                round_t(s, base_t + i, w[i]);
            }
        }

        for (int i = 0; i < 8; i++)
            s[i] = _mm512_add_epi64(s[i], s_in[i]);
    }

    void *out = chains;
    for (int i = 0; i < 8; i++)
        _mm512_i64scatter_epi64(out, _mm512_add_epi64(lane_words, _mm512_set1_epi64(i)), s[i], 8);
}

#endif /* FD_HAVE_AVX512_MULTI */
