/* MD5 compression of several messages at once, one per 32-bit lane of
 * AVX-512, written once for both widths (avx512_width.h): sixteen lanes of
 * zmm (md5_avx512_x16.c) and eight of ymm (md5_avx512_x8.c). The includer
 * defines FD_AVX512_LANES and MD5_BLOCKS_FUNCTION, the kernel's name, and
 * includes this after <immintrin.h> and kernels/md5_steps.h, inside its
 * FD_HAVE_AVX512_MULTI guard.
 *
 * The same lane-parallel MD5 as md5_avx2_x8.c, with what AVX-512F adds:
 *   vprold rotates in one instruction (AVX2 needs two shifts and an or);
 *   vpternlogd computes any function of three inputs in one instruction,
 *     so each round function F, G, H, I is one instruction, its truth table
 *     the immediate (b, c, d as the first, second and third operand).
 * A step's dependency chain through b is then four one-cycle instructions
 * (ternary logic, add, rotate, add), which bounds one group of lanes more
 * than the instruction count does: sixteen lanes of zmm run the chain for
 * twice the messages of eight of ymm, in less than twice their time.
 *
 * The message words arrive as one 64-byte block per lane, transposed into
 * vectors of one word of every lane (avx512_width.h). */
#ifndef MD5_BLOCKS_FUNCTION
#error "define MD5_BLOCKS_FUNCTION before including md5_avx512_xn.h"
#endif

#include "kernels/x86/avx512/avx512_width.h"

/* Truth tables of the round functions for vpternlogd(b, c, d): with b, c, d
 * standing for 0xf0, 0xcc and 0xaa, each is its function of those bytes. */
enum {
    TERNARY_F = 0xca, /* (b & c) | (~b & d) */
    TERNARY_G = 0xe4, /* (b & d) | (c & ~d) */
    TERNARY_H = 0x96, /* b ^ c ^ d */
    TERNARY_I = 0x39, /* c ^ (b | ~d) */
};

/* b + rotl(a + f(b, c, d) + X[k] + T, s), f given by its truth table. */
#define FD_MD5_STEP(name, table)                                                                \
    FD_TARGET_AVX512                                                                            \
    static FD_ALWAYS_INLINE vec32 name(vec32 a, vec32 b, vec32 c, vec32 d, vec32 x, uint32_t t, \
                                       int s)                                                   \
    {                                                                                           \
        vec32 sum = vec32_add(vec32_add(x, vec32_set1(t)), a);                                  \
        sum = vec32_add(sum, vec32_ternary(b, c, d, table));                                    \
        return vec32_add(b, vec32_rotl(sum, s));                                                \
    }

FD_MD5_STEP(step_f, TERNARY_F)
FD_MD5_STEP(step_g, TERNARY_G)
FD_MD5_STEP(step_h, TERNARY_H)
FD_MD5_STEP(step_i, TERNARY_I)

#undef FD_MD5_STEP

FD_TARGET_AVX512
void MD5_BLOCKS_FUNCTION(fd_md5_chain *chains, const uint8_t *const *blocks, size_t nblocks)
{
    /* Word w of lane l is chains[l].words[w], 4 * l + w words from the start. */
    void *base = chains;
    vec32 a = vec32_load_chain_word(base, 4, 0);
    vec32 b = vec32_load_chain_word(base, 4, 1);
    vec32 c = vec32_load_chain_word(base, 4, 2);
    vec32 d = vec32_load_chain_word(base, 4, 3);

    for (size_t offset = 0; nblocks != 0; nblocks--, offset += FD_MD5_BLOCK_LEN) {
        const vec32 a0 = a, b0 = b, c0 = c, d0 = d;
        vec32 x[16];

        /* Many streams at once are more than the hardware prefetcher
         * follows: ask for each lane's block after next while this one is
         * hashed (measured faster on kilobyte messages; the next block
         * alone comes too late to help). */
        if (nblocks > 2) {
            for (int lane = 0; lane < FD_AVX512_LANES; lane++)
                _mm_prefetch((const char *)(blocks[lane] + offset + 2 * FD_MD5_BLOCK_LEN),
                             _MM_HINT_T0);
        }
        vec32_load_block_words(blocks, offset, x);

        /* The 64 steps of RFC 1321, 3.4 (md5_steps.h). */
#define MD5_STEP(f, a, b, c, d, k, t, s) a = step_##f(a, b, c, d, x[k], t, s);
        FD_MD5_ROUND1(MD5_STEP)
        FD_MD5_ROUND2(MD5_STEP)
        FD_MD5_ROUND3(MD5_STEP)
        FD_MD5_ROUND4(MD5_STEP)
#undef MD5_STEP

        a = vec32_add(a, a0);
        b = vec32_add(b, b0);
        c = vec32_add(c, c0);
        d = vec32_add(d, d0);
    }

    vec32_store_chain_word(base, 4, 0, a);
    vec32_store_chain_word(base, 4, 1, b);
    vec32_store_chain_word(base, 4, 2, c);
    vec32_store_chain_word(base, 4, 3, d);
}
