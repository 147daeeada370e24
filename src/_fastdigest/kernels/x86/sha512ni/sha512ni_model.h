/* A model of the three SHA512 instructions in plain C, for the model build of
 * the SHA512-instruction kernel (FD_SHA512NI_MODEL, sha512ni.h). Each
 * function is the "Operation" of its instruction in Intel's SDM, volume 2
 * (VSHA512MSG1, VSHA512MSG2, VSHA512RNDS2), with the SDM's names, on a
 * 256-bit value of four 64-bit lanes (lane 0 is bits 63:0). The functions
 * with the intrinsics' signatures at the end convert to and from __m256i,
 * so the kernel calls either set through one macro.
 *
 * The operand order is the SDM's, VSHA512RNDS2 SRCDEST, SRC1, SRC2 with
 * SRCDEST the state (C, D, G, H) and SRC1 the state (A, B, E, F), which is
 * also the order of _mm256_sha512rnds2_epi64's arguments (as Rust's
 * core::arch documents them). Clang's sha512intrin.h restates the operation
 * with the first and third operands' names swapped; the Bochs CPU runs it
 * as the SDM has it (tests/bochs/ compares this model with the
 * instructions there). Included only by the kernel's file and the Bochs
 * harness, after <immintrin.h>, where FD_SHA512NI_MODEL is defined. */
#ifndef FD_KERNELS_X86_SHA512NI_MODEL_H
#define FD_KERNELS_X86_SHA512NI_MODEL_H

#include <stdint.h>

typedef struct fd_u64x4 {
    uint64_t qword[4];
} fd_u64x4;

typedef struct fd_u64x2 {
    uint64_t qword[2];
} fd_u64x2;

/* ROR64 and SHR64 of the SDM's definitions; n is 1..63 at every call. */
static inline uint64_t fd_model_ror64(uint64_t qword, unsigned n)
{
    return (qword >> n) | (qword << (64 - n));
}

/* The SDM's s0, s1 (FIPS 180-4's sigma0, sigma1) and S0, S1 (Sigma0,
 * Sigma1), Ch and Maj. */
static inline uint64_t fd_model_s0(uint64_t qword)
{
    return fd_model_ror64(qword, 1) ^ fd_model_ror64(qword, 8) ^ (qword >> 7);
}

static inline uint64_t fd_model_s1(uint64_t qword)
{
    return fd_model_ror64(qword, 19) ^ fd_model_ror64(qword, 61) ^ (qword >> 6);
}

static inline uint64_t fd_model_big_s0(uint64_t qword)
{
    return fd_model_ror64(qword, 28) ^ fd_model_ror64(qword, 34) ^ fd_model_ror64(qword, 39);
}

static inline uint64_t fd_model_big_s1(uint64_t qword)
{
    return fd_model_ror64(qword, 14) ^ fd_model_ror64(qword, 18) ^ fd_model_ror64(qword, 41);
}

static inline uint64_t fd_model_ch(uint64_t e, uint64_t f, uint64_t g)
{
    return (e & f) ^ (~e & g);
}

static inline uint64_t fd_model_maj(uint64_t a, uint64_t b, uint64_t c)
{
    return (a & b) ^ (a & c) ^ (b & c);
}

/* VSHA512MSG1 ymm1, xmm2: W[t-16] + s0(W[t-15]) for four words, from
 * W[0..3] in SRCDEST and W[4] in the low lane of SRC1. */
static inline fd_u64x4 fd_model_vsha512msg1(fd_u64x4 srcdest, fd_u64x2 src1)
{
    uint64_t w[5];
    w[4] = src1.qword[0];
    for (int i = 0; i < 4; i++)
        w[i] = srcdest.qword[i];
    fd_u64x4 dest;
    for (int i = 0; i < 4; i++)
        dest.qword[i] = w[i] + fd_model_s0(w[i + 1]);
    return dest;
}

/* VSHA512MSG2 ymm1, ymm2: adds s1(W[t-2]) to four partial words in
 * SRCDEST; W[14], W[15] are the high lanes of SRC1, and the last two words
 * take the first two this instruction makes. */
static inline fd_u64x4 fd_model_vsha512msg2(fd_u64x4 srcdest, fd_u64x4 src1)
{
    uint64_t w[20];
    w[14] = src1.qword[2];
    w[15] = src1.qword[3];
    w[16] = srcdest.qword[0] + fd_model_s1(w[14]);
    w[17] = srcdest.qword[1] + fd_model_s1(w[15]);
    w[18] = srcdest.qword[2] + fd_model_s1(w[16]);
    w[19] = srcdest.qword[3] + fd_model_s1(w[17]);
    fd_u64x4 dest = {{w[16], w[17], w[18], w[19]}};
    return dest;
}

/* VSHA512RNDS2 ymm1, ymm2, xmm3: two rounds on the state (C, D, G, H) in
 * SRCDEST and (A, B, E, F) in SRC1 (first letter in the top lane), with
 * W+K of the two rounds in SRC2's lanes 0 and 1; returns the new
 * (A, B, E, F). */
static inline fd_u64x4 fd_model_vsha512rnds2(fd_u64x4 srcdest, fd_u64x4 src1, fd_u64x2 src2)
{
    uint64_t a[3], b[3], c[3], d[3], e[3], f[3], g[3], h[3], wk[2];
    a[0] = src1.qword[3];
    b[0] = src1.qword[2];
    c[0] = srcdest.qword[3];
    d[0] = srcdest.qword[2];
    e[0] = src1.qword[1];
    f[0] = src1.qword[0];
    g[0] = srcdest.qword[1];
    h[0] = srcdest.qword[0];
    wk[0] = src2.qword[0];
    wk[1] = src2.qword[1];
    for (int i = 0; i <= 1; i++) {
        a[i + 1] = fd_model_ch(e[i], f[i], g[i]) + fd_model_big_s1(e[i]) + wk[i] + h[i] +
                   fd_model_maj(a[i], b[i], c[i]) + fd_model_big_s0(a[i]);
        b[i + 1] = a[i];
        c[i + 1] = b[i];
        d[i + 1] = c[i];
        e[i + 1] = fd_model_ch(e[i], f[i], g[i]) + fd_model_big_s1(e[i]) + wk[i] + h[i] + d[i];
        f[i + 1] = e[i];
        g[i + 1] = f[i];
        h[i + 1] = g[i];
    }
    fd_u64x4 dest = {{f[2], e[2], b[2], a[2]}};
    return dest;
}

/* ---- the intrinsics' signatures ------------------------------------------ */

FD_TARGET_SHA512NI
static inline fd_u64x4 fd_model_from_m256i(__m256i v)
{
    fd_u64x4 lanes;
    _mm256_storeu_si256((__m256i *)(void *)lanes.qword, v);
    return lanes;
}

FD_TARGET_SHA512NI
static inline fd_u64x2 fd_model_from_m128i(__m128i v)
{
    fd_u64x2 lanes;
    _mm_storeu_si128((__m128i *)(void *)lanes.qword, v);
    return lanes;
}

FD_TARGET_SHA512NI
static inline __m256i fd_model_to_m256i(fd_u64x4 lanes)
{
    return _mm256_loadu_si256((const __m256i *)(const void *)lanes.qword);
}

FD_TARGET_SHA512NI
static inline __m256i fd_model_mm256_sha512msg1_epi64(__m256i a, __m128i b)
{
    return fd_model_to_m256i(fd_model_vsha512msg1(fd_model_from_m256i(a), fd_model_from_m128i(b)));
}

FD_TARGET_SHA512NI
static inline __m256i fd_model_mm256_sha512msg2_epi64(__m256i a, __m256i b)
{
    return fd_model_to_m256i(fd_model_vsha512msg2(fd_model_from_m256i(a), fd_model_from_m256i(b)));
}

FD_TARGET_SHA512NI
static inline __m256i fd_model_mm256_sha512rnds2_epi64(__m256i a, __m256i b, __m128i c)
{
    return fd_model_to_m256i(fd_model_vsha512rnds2(fd_model_from_m256i(a), fd_model_from_m256i(b),
                                                   fd_model_from_m128i(c)));
}

#endif /* FD_KERNELS_X86_SHA512NI_MODEL_H */
