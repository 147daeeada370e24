/* SHA-256 and SHA-224 (FIPS 180-4, 6.2 and 6.3): the portable compression and
 * the buffered interface. */
#include "sha256.h"

#include "buffer.h"
#include "cpu.h"
#include "endian.h"

/* FIPS 180-4, 4.2.2: the first 32 bits of the fractional parts of the cube
 * roots of the first 64 primes. */
const uint32_t fd_sha256_round_constants[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

/* One round with the working variables named by position: the caller rotates
 * the names instead of moving eight values, so only d and h are written. */
static inline void sha256_round(uint32_t a, uint32_t b, uint32_t c, uint32_t *d, uint32_t e,
                                uint32_t f, uint32_t g, uint32_t *h, uint32_t k_plus_w)
{
    uint32_t sigma1 = fd_rotr32(e, 6) ^ fd_rotr32(e, 11) ^ fd_rotr32(e, 25);
    uint32_t choose = g ^ (e & (f ^ g));
    uint32_t t1 = *h + sigma1 + choose + k_plus_w;
    uint32_t sigma0 = fd_rotr32(a, 2) ^ fd_rotr32(a, 13) ^ fd_rotr32(a, 22);
    uint32_t majority = (a & b) | (c & (a | b));

    *d += t1;
    *h = t1 + sigma0 + majority;
}

void fd_sha256_blocks_portable(uint32_t chain[8], const uint8_t *blocks, size_t nblocks)
{
    const uint32_t *k = fd_sha256_round_constants;

    for (; nblocks != 0; nblocks--, blocks += FD_SHA256_BLOCK_LEN) {
        uint32_t w[64];
        for (int t = 0; t < 16; t++)
            w[t] = fd_load_be32(blocks + 4 * t);
        for (int t = 16; t < 64; t++) {
            uint32_t s0 = fd_rotr32(w[t - 15], 7) ^ fd_rotr32(w[t - 15], 18) ^ (w[t - 15] >> 3);
            uint32_t s1 = fd_rotr32(w[t - 2], 17) ^ fd_rotr32(w[t - 2], 19) ^ (w[t - 2] >> 10);
            w[t] = w[t - 16] + s0 + w[t - 7] + s1;
        }

        uint32_t a = chain[0], b = chain[1], c = chain[2], d = chain[3];
        uint32_t e = chain[4], f = chain[5], g = chain[6], h = chain[7];
        for (int t = 0; t < 64; t += 8) {
            sha256_round(a, b, c, &d, e, f, g, &h, k[t] + w[t]);
            sha256_round(h, a, b, &c, d, e, f, &g, k[t + 1] + w[t + 1]);
            sha256_round(g, h, a, &b, c, d, e, &f, k[t + 2] + w[t + 2]);
            sha256_round(f, g, h, &a, b, c, d, &e, k[t + 3] + w[t + 3]);
            sha256_round(e, f, g, &h, a, b, c, &d, k[t + 4] + w[t + 4]);
            sha256_round(d, e, f, &g, h, a, b, &c, k[t + 5] + w[t + 5]);
            sha256_round(c, d, e, &f, g, h, a, &b, k[t + 6] + w[t + 6]);
            sha256_round(b, c, d, &e, f, g, h, &a, k[t + 7] + w[t + 7]);
        }
        chain[0] += a;
        chain[1] += b;
        chain[2] += c;
        chain[3] += d;
        chain[4] += e;
        chain[5] += f;
        chain[6] += g;
        chain[7] += h;
    }
}

static void sha256_compress(void *chain, const uint8_t *blocks, size_t nblocks)
{
    fd_active_kernels[FD_FAMILY_SHA256].blocks.sha256(chain, blocks, nblocks);
}

void fd_sha256_init(fd_sha256_state *state)
{
    static const uint32_t iv[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

    memcpy(state->chain, iv, sizeof iv);
    state->byte_count = 0;
}

void fd_sha224_init(fd_sha256_state *state)
{
    static const uint32_t iv[8] = {0xc1059ed8, 0x367cd507, 0x3070dd17, 0xf70e5939,
                                   0xffc00b31, 0x68581511, 0x64f98fa7, 0xbefa4fa4};

    memcpy(state->chain, iv, sizeof iv);
    state->byte_count = 0;
}

void fd_sha256_update(fd_sha256_state *state, const uint8_t *data, size_t len)
{
    fd_block_update(state->chain, state->block, FD_SHA256_BLOCK_LEN, &state->byte_count,
                    sha256_compress, data, len);
}

void fd_sha256_final(fd_sha256_state *state, uint8_t *out, size_t digest_len)
{
    fd_block_pad(state->chain, state->block, FD_SHA256_BLOCK_LEN, state->byte_count, 8,
                 sha256_compress);
    fd_store_be64(state->block + FD_SHA256_BLOCK_LEN - 8, state->byte_count << 3);
    sha256_compress(state->chain, state->block, 1);
    /* Both digest lengths are whole words. */
    for (size_t i = 0; i < digest_len / 4; i++)
        fd_store_be32(out + 4 * i, state->chain[i]);
}
