/* SHA-1 (FIPS 180-4, 6.1.2): the portable compression, the kernel every other SHA-1 kernel
 * is tested against. */
#include "kernels/portable/portable.h"

#include "kernels/endian.h"

/* The round function and constant of each group of 20 rounds (FIPS 180-4,
 * 4.1.1 and 4.2.1). Ch is written d ^ (b & (c ^ d)), one operation shorter;
 * Maj as (b & c) | (d & (b | c)). */
static const uint32_t sha1_round_constants[4] = {0x5a827999, 0x6ed9eba1, 0x8f1bbcdc, 0xca62c1d6};

static inline uint32_t sha1_f(int group, uint32_t b, uint32_t c, uint32_t d)
{
    switch (group) {
    case 0:
        return d ^ (b & (c ^ d));
    case 2:
        return (b & c) | (d & (b | c));
    default:
        return b ^ c ^ d;
    }
}

/* The message word of round t, from a 16-word window of the schedule. */
static inline uint32_t sha1_word(uint32_t w[16], int t)
{
    if (t >= 16)
        w[t & 15] = fd_rotl32(w[(t - 3) & 15] ^ w[(t - 8) & 15] ^ w[(t - 14) & 15] ^ w[t & 15], 1);
    return w[t & 15];
}

/* One round with the working variables named by position: the caller rotates
 * the names instead of moving five values, so only b and e are written. */
static inline void sha1_round(int t, uint32_t w[16], uint32_t a, uint32_t *b, uint32_t c,
                              uint32_t d, uint32_t *e)
{
    int group = t / 20;
    *e += fd_rotl32(a, 5) + sha1_f(group, *b, c, d) + sha1_round_constants[group] + sha1_word(w, t);
    *b = fd_rotl32(*b, 30);
}

void fd_sha1_blocks_portable(fd_sha1_chain *chain, const uint8_t *blocks, size_t nblocks)
{
    for (; nblocks != 0; nblocks--, blocks += FD_SHA1_BLOCK_LEN) {
        uint32_t w[16];
        for (int t = 0; t < 16; t++)
            w[t] = fd_load_be32(blocks + 4 * t);

        uint32_t a = chain->words[0], b = chain->words[1], c = chain->words[2], d = chain->words[3],
                 e = chain->words[4];
        for (int t = 0; t < 80; t += 5) {
            sha1_round(t, w, a, &b, c, d, &e);
            sha1_round(t + 1, w, e, &a, b, c, &d);
            sha1_round(t + 2, w, d, &e, a, b, &c);
            sha1_round(t + 3, w, c, &d, e, a, &b);
            sha1_round(t + 4, w, b, &c, d, e, &a);
        }
        chain->words[0] += a;
        chain->words[1] += b;
        chain->words[2] += c;
        chain->words[3] += d;
        chain->words[4] += e;
    }
}
