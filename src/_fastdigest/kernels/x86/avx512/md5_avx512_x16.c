/* MD5 compression of sixteen messages at once, one per 32-bit lane of a
 * zmm register: md5_avx512_xn.h at sixteen lanes, and PBKDF2-HMAC-MD5's
 * iterations for up to sixteen output blocks. On Zen 4, which splits a
 * 512-bit operation over two 256-bit halves, sixteen lanes still hash a
 * message in clearly less time than the eight of md5_avx512_x8.c on one
 * thread; on cores with full 512-bit units, in about half. */
#include "kernels/x86/avx512/avx512.h"

#ifdef FD_HAVE_AVX512_MULTI

#include <immintrin.h>

#include "kernels/md5_steps.h"

#define FD_AVX512_LANES 16
#define MD5_BLOCKS_FUNCTION fd_md5_blocks_avx512_x16
#include "kernels/x86/avx512/md5_avx512_xn.h"

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
