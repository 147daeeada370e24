/* MD5 (RFC 1321): the portable compression and the buffered interface. */
#include "md5.h"

#include "buffer.h"
#include "cpu.h"
#include "endian.h"

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

        /* The sine-derived constants and shift amounts of RFC 1321, 3.4. */
        a = md5_step(a, b, md5_f(b, c, d), x[0], 0xd76aa478, 7);
        d = md5_step(d, a, md5_f(a, b, c), x[1], 0xe8c7b756, 12);
        c = md5_step(c, d, md5_f(d, a, b), x[2], 0x242070db, 17);
        b = md5_step(b, c, md5_f(c, d, a), x[3], 0xc1bdceee, 22);
        a = md5_step(a, b, md5_f(b, c, d), x[4], 0xf57c0faf, 7);
        d = md5_step(d, a, md5_f(a, b, c), x[5], 0x4787c62a, 12);
        c = md5_step(c, d, md5_f(d, a, b), x[6], 0xa8304613, 17);
        b = md5_step(b, c, md5_f(c, d, a), x[7], 0xfd469501, 22);
        a = md5_step(a, b, md5_f(b, c, d), x[8], 0x698098d8, 7);
        d = md5_step(d, a, md5_f(a, b, c), x[9], 0x8b44f7af, 12);
        c = md5_step(c, d, md5_f(d, a, b), x[10], 0xffff5bb1, 17);
        b = md5_step(b, c, md5_f(c, d, a), x[11], 0x895cd7be, 22);
        a = md5_step(a, b, md5_f(b, c, d), x[12], 0x6b901122, 7);
        d = md5_step(d, a, md5_f(a, b, c), x[13], 0xfd987193, 12);
        c = md5_step(c, d, md5_f(d, a, b), x[14], 0xa679438e, 17);
        b = md5_step(b, c, md5_f(c, d, a), x[15], 0x49b40821, 22);

        a = md5_step(a, b, md5_g(b, c, d), x[1], 0xf61e2562, 5);
        d = md5_step(d, a, md5_g(a, b, c), x[6], 0xc040b340, 9);
        c = md5_step(c, d, md5_g(d, a, b), x[11], 0x265e5a51, 14);
        b = md5_step(b, c, md5_g(c, d, a), x[0], 0xe9b6c7aa, 20);
        a = md5_step(a, b, md5_g(b, c, d), x[5], 0xd62f105d, 5);
        d = md5_step(d, a, md5_g(a, b, c), x[10], 0x02441453, 9);
        c = md5_step(c, d, md5_g(d, a, b), x[15], 0xd8a1e681, 14);
        b = md5_step(b, c, md5_g(c, d, a), x[4], 0xe7d3fbc8, 20);
        a = md5_step(a, b, md5_g(b, c, d), x[9], 0x21e1cde6, 5);
        d = md5_step(d, a, md5_g(a, b, c), x[14], 0xc33707d6, 9);
        c = md5_step(c, d, md5_g(d, a, b), x[3], 0xf4d50d87, 14);
        b = md5_step(b, c, md5_g(c, d, a), x[8], 0x455a14ed, 20);
        a = md5_step(a, b, md5_g(b, c, d), x[13], 0xa9e3e905, 5);
        d = md5_step(d, a, md5_g(a, b, c), x[2], 0xfcefa3f8, 9);
        c = md5_step(c, d, md5_g(d, a, b), x[7], 0x676f02d9, 14);
        b = md5_step(b, c, md5_g(c, d, a), x[12], 0x8d2a4c8a, 20);

        a = md5_step(a, b, md5_h(b, c, d), x[5], 0xfffa3942, 4);
        d = md5_step(d, a, md5_h(a, b, c), x[8], 0x8771f681, 11);
        c = md5_step(c, d, md5_h(d, a, b), x[11], 0x6d9d6122, 16);
        b = md5_step(b, c, md5_h(c, d, a), x[14], 0xfde5380c, 23);
        a = md5_step(a, b, md5_h(b, c, d), x[1], 0xa4beea44, 4);
        d = md5_step(d, a, md5_h(a, b, c), x[4], 0x4bdecfa9, 11);
        c = md5_step(c, d, md5_h(d, a, b), x[7], 0xf6bb4b60, 16);
        b = md5_step(b, c, md5_h(c, d, a), x[10], 0xbebfbc70, 23);
        a = md5_step(a, b, md5_h(b, c, d), x[13], 0x289b7ec6, 4);
        d = md5_step(d, a, md5_h(a, b, c), x[0], 0xeaa127fa, 11);
        c = md5_step(c, d, md5_h(d, a, b), x[3], 0xd4ef3085, 16);
        b = md5_step(b, c, md5_h(c, d, a), x[6], 0x04881d05, 23);
        a = md5_step(a, b, md5_h(b, c, d), x[9], 0xd9d4d039, 4);
        d = md5_step(d, a, md5_h(a, b, c), x[12], 0xe6db99e5, 11);
        c = md5_step(c, d, md5_h(d, a, b), x[15], 0x1fa27cf8, 16);
        b = md5_step(b, c, md5_h(c, d, a), x[2], 0xc4ac5665, 23);

        a = md5_step(a, b, md5_i(b, c, d), x[0], 0xf4292244, 6);
        d = md5_step(d, a, md5_i(a, b, c), x[7], 0x432aff97, 10);
        c = md5_step(c, d, md5_i(d, a, b), x[14], 0xab9423a7, 15);
        b = md5_step(b, c, md5_i(c, d, a), x[5], 0xfc93a039, 21);
        a = md5_step(a, b, md5_i(b, c, d), x[12], 0x655b59c3, 6);
        d = md5_step(d, a, md5_i(a, b, c), x[3], 0x8f0ccc92, 10);
        c = md5_step(c, d, md5_i(d, a, b), x[10], 0xffeff47d, 15);
        b = md5_step(b, c, md5_i(c, d, a), x[1], 0x85845dd1, 21);
        a = md5_step(a, b, md5_i(b, c, d), x[8], 0x6fa87e4f, 6);
        d = md5_step(d, a, md5_i(a, b, c), x[15], 0xfe2ce6e0, 10);
        c = md5_step(c, d, md5_i(d, a, b), x[6], 0xa3014314, 15);
        b = md5_step(b, c, md5_i(c, d, a), x[13], 0x4e0811a1, 21);
        a = md5_step(a, b, md5_i(b, c, d), x[4], 0xf7537e82, 6);
        d = md5_step(d, a, md5_i(a, b, c), x[11], 0xbd3af235, 10);
        c = md5_step(c, d, md5_i(d, a, b), x[2], 0x2ad7d2bb, 15);
        b = md5_step(b, c, md5_i(c, d, a), x[9], 0xeb86d391, 21);

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
