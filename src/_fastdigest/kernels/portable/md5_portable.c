/* MD5 (RFC 1321, 3.4): the textbook compression, the portable kernel every other MD5 kernel is
 * tested against. */
#include "kernels/portable/portable.h"

#include "kernels/endian.h"
#include "kernels/md5_steps.h"

/* The four round functions of RFC 1321, 3.4. F selects c or d by b; the
 * d ^ (b & (c ^ d)) form saves a NOT, and G is F with the roles rotated. */
static inline uint32_t md5_f(uint32_t b, uint32_t c, uint32_t d)
{
    return d ^ (b & (c ^ d));
}
static inline uint32_t md5_g(uint32_t b, uint32_t c, uint32_t d)
{
    return c ^ (d & (b ^ c));
}
static inline uint32_t md5_h(uint32_t b, uint32_t c, uint32_t d)
{
    return b ^ c ^ d;
}
static inline uint32_t md5_i(uint32_t b, uint32_t c, uint32_t d)
{
    return c ^ (b | ~d);
}

/* One step: b + rotl(a + round_function(b, c, d) + x + t, s). */
static inline uint32_t md5_step(uint32_t a, uint32_t b, uint32_t round_value, uint32_t x,
                                uint32_t t, unsigned s)
{
    return fd_rotl32(a + round_value + x + t, s) + b;
}

void fd_md5_blocks_portable(fd_md5_chain *chain, const uint8_t *blocks, size_t nblocks)
{
    uint32_t a = chain->words[0], b = chain->words[1], c = chain->words[2], d = chain->words[3];

    for (; nblocks != 0; nblocks--, blocks += FD_MD5_BLOCK_LEN) {
        uint32_t x[16];
        for (int i = 0; i < 16; i++)
            x[i] = fd_load_le32(blocks + 4 * i);

        const uint32_t a0 = a, b0 = b, c0 = c, d0 = d;

        /* The 64 steps of RFC 1321, 3.4 (md5_steps.h). */
#define MD5_STEP(f, a, b, c, d, k, t, s) a = md5_step(a, b, md5_##f(b, c, d), x[k], t, s);
        FD_MD5_ROUND1(MD5_STEP)
        FD_MD5_ROUND2(MD5_STEP)
        FD_MD5_ROUND3(MD5_STEP)
        FD_MD5_ROUND4(MD5_STEP)
#undef MD5_STEP

        a += a0;
        b += b0;
        c += c0;
        d += d0;
    }
    chain->words[0] = a;
    chain->words[1] = b;
    chain->words[2] = c;
    chain->words[3] = d;
}
