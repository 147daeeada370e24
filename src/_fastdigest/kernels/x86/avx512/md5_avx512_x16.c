/* MD5 compression of sixteen messages at once, one per 32-bit lane of
 * AVX-512.
 *
 * The same lane-parallel MD5 as md5_avx2_x8.c, with what AVX-512F adds:
 *   vprold rotates in one instruction (AVX2 needs two shifts and an or);
 *   vpternlogd computes any function of three inputs in one instruction,
 *     so each round function F, G, H, I is one instruction, its truth table
 *     the immediate (b, c, d as the first, second and third operand).
 * A step's dependency chain through b is then four one-cycle instructions
 * (ternary logic, add, rotate, add). The chain, not the instruction count,
 * bounds one group of lanes, so sixteen lanes (a zmm register) run the
 * chain for twice the messages of eight. On Zen 4, which splits a 512-bit
 * operation over two 256-bit halves, that still halves the time per message
 * against eight lanes; on cores with full 512-bit units it does more.
 *
 * The message words arrive as sixteen 64-byte blocks, one per lane: a 16x16
 * transpose of 32-bit words (unpack 32-bit, unpack 64-bit, then two rounds
 * of 128-bit shuffles) gives X[k] of every lane in vector k. */
#include "kernels/x86/avx512/avx512.h"

#ifdef FD_HAVE_AVX512_MULTI

#include <immintrin.h>

#include "kernels/md5_steps.h"

#include "kernels/x86/avx512/avx512_lanes.h"

/* Truth tables of the round functions for vpternlogd(b, c, d): with b, c, d
 * standing for 0xf0, 0xcc and 0xaa, each is its function of those bytes. */
enum {
    TERNARY_F = 0xca, /* (b & c) | (~b & d) */
    TERNARY_G = 0xe4, /* (b & d) | (c & ~d) */
    TERNARY_H = 0x96, /* b ^ c ^ d */
    TERNARY_I = 0x39, /* c ^ (b | ~d) */
};

/* b + rotl(a + f(b, c, d) + X[k] + T, s), f given by its truth table. The
 * rotate takes its count from a vector so that the count need not be an
 * immediate (vprolvd is as fast as vprold). */
#define FD_MD5_STEP(name, table)                                                                \
    FD_TARGET_AVX512                                                                            \
    static FD_ALWAYS_INLINE __m512i name(__m512i a, __m512i b, __m512i c, __m512i d, __m512i x, \
                                         uint32_t t, int s)                                     \
    {                                                                                           \
        __m512i sum = _mm512_add_epi32(_mm512_add_epi32(x, _mm512_set1_epi32((int)t)), a);      \
        sum = _mm512_add_epi32(sum, _mm512_ternarylogic_epi32(b, c, d, table));                 \
        return _mm512_add_epi32(b, _mm512_rolv_epi32(sum, _mm512_set1_epi32(s)));               \
    }

FD_MD5_STEP(step_f, TERNARY_F)
FD_MD5_STEP(step_g, TERNARY_G)
FD_MD5_STEP(step_h, TERNARY_H)
FD_MD5_STEP(step_i, TERNARY_I)

FD_TARGET_AVX512
void fd_md5_blocks_avx512_x16(fd_md5_chain *chains, const uint8_t *const *blocks, size_t nblocks)
{
    /* Word w of lane l is chains[l].words[w], 4 * l + w words from the start. */
    const __m512i lane_words = _mm512_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44, 48,
                                                 52, 56, 60);
    const void *base = chains;
    __m512i a = _mm512_i32gather_epi32(lane_words, base, 4);
    __m512i b = _mm512_i32gather_epi32(_mm512_add_epi32(lane_words, _mm512_set1_epi32(1)), base, 4);
    __m512i c = _mm512_i32gather_epi32(_mm512_add_epi32(lane_words, _mm512_set1_epi32(2)), base, 4);
    __m512i d = _mm512_i32gather_epi32(_mm512_add_epi32(lane_words, _mm512_set1_epi32(3)), base, 4);

    for (size_t offset = 0; nblocks != 0; nblocks--, offset += FD_MD5_BLOCK_LEN) {
        const __m512i a0 = a, b0 = b, c0 = c, d0 = d;
        __m512i rows[16], x[16];

        for (int lane = 0; lane < 16; lane++)
            rows[lane] = _mm512_loadu_si512((const void *)(blocks[lane] + offset));
        /* Sixteen streams at once are more than the hardware prefetcher
         * follows: ask for each lane's block after next while this one is
         * hashed (measured faster on kilobyte messages; the next block
         * alone comes too late to help). */
        if (nblocks > 2) {
            for (int lane = 0; lane < 16; lane++)
                _mm_prefetch((const char *)(blocks[lane] + offset + 2 * FD_MD5_BLOCK_LEN),
                             _MM_HINT_T0);
        }
        transpose16(rows, x);

        /* The 64 steps of RFC 1321, 3.4 (md5_steps.h). */
#define MD5_STEP(f, a, b, c, d, k, t, s) a = step_##f(a, b, c, d, x[k], t, s);
        FD_MD5_ROUND1(MD5_STEP)
        FD_MD5_ROUND2(MD5_STEP)
        FD_MD5_ROUND3(MD5_STEP)
        FD_MD5_ROUND4(MD5_STEP)
#undef MD5_STEP

        a = _mm512_add_epi32(a, a0);
        b = _mm512_add_epi32(b, b0);
        c = _mm512_add_epi32(c, c0);
        d = _mm512_add_epi32(d, d0);
    }

    void *out = chains;
    _mm512_i32scatter_epi32(out, lane_words, a, 4);
    _mm512_i32scatter_epi32(out, _mm512_add_epi32(lane_words, _mm512_set1_epi32(1)), b, 4);
    _mm512_i32scatter_epi32(out, _mm512_add_epi32(lane_words, _mm512_set1_epi32(2)), c, 4);
    _mm512_i32scatter_epi32(out, _mm512_add_epi32(lane_words, _mm512_set1_epi32(3)), d, 4);
}

/* ---- PBKDF2 -------------------------------------------------------------
 *
 * Up to sixteen output blocks of PBKDF2-HMAC-MD5 at once (hash/hmac.c): each
 * iteration compresses, onto the keyed inner and then outer chain, a block
 * made of the last digest (X[0..3], little-endian words as the digest's
 * bytes are) and fixed padding: X[4] = 0x80, X[14] = the bit length of the
 * keyed block and the digest, the other words zero (RFC 1321, 3.1-3.2). The
 * digests never leave the registers, and the constant words' adds fold into
 * the step constants. A step's chain is as long as the scalar kernel's, so
 * sixteen blocks cost little more than one costs there (on Zen 4, whose
 * 512-bit operations take two passes, more than eight lanes of ymm do). */

/* Compresses the block made of the digests u onto chain (the same in every
 * lane); u receives the result. */
FD_TARGET_AVX512
static FD_ALWAYS_INLINE void compress_digest_block(__m512i u[4], const __m512i chain[4])
{
    const __m512i zero = _mm512_setzero_si512();
    const __m512i x[16] = {
        u[0], u[1], u[2], u[3], _mm512_set1_epi32(0x80),
        zero, zero, zero, zero, zero,
        zero, zero, zero, zero, _mm512_set1_epi32((FD_MD5_BLOCK_LEN + FD_MD5_DIGEST_LEN) * 8),
        zero,
    };
    __m512i a = chain[0], b = chain[1], c = chain[2], d = chain[3];

#define MD5_STEP(f, a, b, c, d, k, t, s) a = step_##f(a, b, c, d, x[k], t, s);
    FD_MD5_ROUND1(MD5_STEP)
    FD_MD5_ROUND2(MD5_STEP)
    FD_MD5_ROUND3(MD5_STEP)
    FD_MD5_ROUND4(MD5_STEP)
#undef MD5_STEP

    u[0] = _mm512_add_epi32(a, chain[0]);
    u[1] = _mm512_add_epi32(b, chain[1]);
    u[2] = _mm512_add_epi32(c, chain[2]);
    u[3] = _mm512_add_epi32(d, chain[3]);
}

FD_TARGET_AVX512
void fd_md5_pbkdf2_avx512_x16(const fd_md5_chain *inner_chain, const fd_md5_chain *outer_chain,
                              size_t digest_len, fd_md5_chain *words, size_t count,
                              uint32_t iterations_left)
{
    (void)digest_len; /* MD5's */
    /* Word w of row l is 4 * l + w words from words[0]; lanes past count
     * read row 0 and are never stored. */
    const __mmask16 busy = (__mmask16)((1u << count) - 1);
    const __m512i row_words = _mm512_maskz_mov_epi32(
        busy, _mm512_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44, 48, 52, 56, 60));
    void *base = words;
    __m512i inner[4], outer[4], u[4], t[4];

    for (int w = 0; w < 4; w++) {
        inner[w] = _mm512_set1_epi32((int)inner_chain->words[w]);
        outer[w] = _mm512_set1_epi32((int)outer_chain->words[w]);
        u[w] = _mm512_i32gather_epi32(_mm512_add_epi32(row_words, _mm512_set1_epi32(w)), base, 4);
        t[w] = u[w];
    }
    for (; iterations_left != 0; iterations_left--) {
        compress_digest_block(u, inner);
        compress_digest_block(u, outer);
        for (int w = 0; w < 4; w++)
            t[w] = _mm512_xor_si512(t[w], u[w]);
    }
    for (int w = 0; w < 4; w++)
        _mm512_mask_i32scatter_epi32(base, busy, _mm512_add_epi32(row_words, _mm512_set1_epi32(w)),
                                     t[w], 4);
}

#endif /* FD_HAVE_AVX512_MULTI */
