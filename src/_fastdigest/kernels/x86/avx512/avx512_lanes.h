/* What the AVX-512 multi-buffer kernels share: the transpose that turns
 * sixteen lanes' blocks into vectors of one word of every lane (the MD5,
 * SHA-1 and SHA-256 sixteen-lane kernels), and the truth tables of the SHA
 * round functions for vpternlogd/vpternlogq (also the SHA-512 eight-lane
 * kernel). Included only by those files, after <immintrin.h>, inside their
 * FD_HAVE_AVX512_MULTI guards. */
#ifndef FD_KERNELS_X86_AVX512_LANES_H
#define FD_KERNELS_X86_AVX512_LANES_H

/* Truth tables for vpternlog(x, y, z), x, y, z standing for 0xf0, 0xcc and
 * 0xaa. */
enum {
    TERNARY_XOR3 = 0x96,   /* x ^ y ^ z: SHA-1's parity, SHA-2's sigmas */
    TERNARY_CHOOSE = 0xca, /* Ch: x ? y : z, bit by bit */
    TERNARY_MAJORITY = 0xe8,
};

/* Rows r[0..15] (lane l's sixteen words in r[l]) become columns: x[k] holds
 * word k of every lane, lane l in 32-bit element l. */
FD_TARGET_AVX512
static FD_ALWAYS_INLINE void transpose16(const __m512i r[16], __m512i x[16])
{
    __m512i t[16], u[16];

    /* Within each 128-bit chunk c: rows 2i, 2i+1 interleaved, words 4c,
     * 4c+1 in t[2i] and 4c+2, 4c+3 in t[2i+1]. */
    for (int i = 0; i < 8; i++) {
        t[2 * i] = _mm512_unpacklo_epi32(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm512_unpackhi_epi32(r[2 * i], r[2 * i + 1]);
    }
    /* u[4j+k], chunk c: word 4c+k of rows 4j..4j+3. */
    for (int j = 0; j < 4; j++) {
        u[4 * j] = _mm512_unpacklo_epi64(t[4 * j], t[4 * j + 2]);
        u[4 * j + 1] = _mm512_unpackhi_epi64(t[4 * j], t[4 * j + 2]);
        u[4 * j + 2] = _mm512_unpacklo_epi64(t[4 * j + 1], t[4 * j + 3]);
        u[4 * j + 3] = _mm512_unpackhi_epi64(t[4 * j + 1], t[4 * j + 3]);
    }
    /* x[4c+k], chunk j = u[4j+k], chunk c: a 4x4 transpose of chunks. */
    for (int k = 0; k < 4; k++) {
        __m512i v0 = _mm512_shuffle_i32x4(u[k], u[4 + k], 0x44); /* u0.c0 u0.c1 u4.c0 u4.c1 */
        __m512i v1 = _mm512_shuffle_i32x4(u[k], u[4 + k], 0xee); /* u0.c2 u0.c3 u4.c2 u4.c3 */
        __m512i v2 = _mm512_shuffle_i32x4(u[8 + k], u[12 + k], 0x44);
        __m512i v3 = _mm512_shuffle_i32x4(u[8 + k], u[12 + k], 0xee);
        x[k] = _mm512_shuffle_i32x4(v0, v2, 0x88);      /* chunks c0 of u0, u4, u8, u12 */
        x[4 + k] = _mm512_shuffle_i32x4(v0, v2, 0xdd);  /* chunks c1 */
        x[8 + k] = _mm512_shuffle_i32x4(v1, v3, 0x88);  /* chunks c2 */
        x[12 + k] = _mm512_shuffle_i32x4(v1, v3, 0xdd); /* chunks c3 */
    }
}

#endif /* FD_KERNELS_X86_AVX512_LANES_H */
