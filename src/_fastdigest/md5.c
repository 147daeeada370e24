/* MD5 (RFC 1321): the portable compression and the buffered interface. */
#include "md5.h"

#include "buffer.h"
#include "cpu.h"
#include "endian.h"
#include "md5_steps.h"

/* The four round functions of RFC 1321, 3.4. F selects c or d by b; the
 * d ^ (b & (c ^ d)) form saves a NOT, and G is F with the roles rotated. */
static inline uint32_t md5_f(uint32_t b, uint32_t c, uint32_t d) { return d ^ (b & (c ^ d)); }
static inline uint32_t md5_g(uint32_t b, uint32_t c, uint32_t d) { return c ^ (d & (b ^ c)); }
static inline uint32_t md5_h(uint32_t b, uint32_t c, uint32_t d) { return b ^ c ^ d; }
static inline uint32_t md5_i(uint32_t b, uint32_t c, uint32_t d) { return c ^ (b | ~d); }

/* One step: b + rotl(a + round_function(b, c, d) + x + t, s). */
static inline uint32_t md5_step(uint32_t a, uint32_t b, uint32_t round_value, uint32_t x,
                                uint32_t t, unsigned s)
{
    return fd_rotl32(a + round_value + x + t, s) + b;
}

void fd_md5_blocks_portable(uint32_t chain[4], const uint8_t *blocks, size_t nblocks)
{
    uint32_t a = chain[0], b = chain[1], c = chain[2], d = chain[3];

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
    chain[0] = a;
    chain[1] = b;
    chain[2] = c;
    chain[3] = d;
}

static void md5_compress(void *chain, const uint8_t *blocks, size_t nblocks)
{
    fd_active_kernels[FD_FAMILY_MD5].blocks.md5(chain, blocks, nblocks);
}

void fd_md5_init(fd_md5_state *state)
{
    static const uint32_t iv[4] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476};

    memcpy(state->chain, iv, sizeof iv);
    state->byte_count = 0;
}

void fd_md5_update(fd_md5_state *state, const uint8_t *data, size_t len)
{
    fd_block_update(state->chain, state->block, FD_MD5_BLOCK_LEN, &state->byte_count,
                    md5_compress, data, len);
}

void fd_md5_final(fd_md5_state *state, uint8_t out[FD_MD5_DIGEST_LEN])
{
    fd_block_pad(state->chain, state->block, FD_MD5_BLOCK_LEN, state->byte_count, 8,
                 md5_compress);
    /* The bit length modulo 2^64, little-endian (RFC 1321, 3.2). */
    fd_store_le64(state->block + FD_MD5_BLOCK_LEN - 8, state->byte_count << 3);
    md5_compress(state->chain, state->block, 1);
    for (int i = 0; i < 4; i++)
        fd_store_le32(out + 4 * i, state->chain[i]);
}
