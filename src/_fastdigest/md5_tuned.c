/* MD5 compression (RFC 1321) arranged for the critical path, in plain C11.
 *
 * MD5 is one long dependency chain: each step's result is the next step's b,
 * and b must pass through the round function, the add into a, the rotate
 * and the final add before the next step can start. Everything that does
 * not wait for b (the message word, the constant, a, the parts of the round
 * function made of c and d alone) is computed beside that chain. So each
 * round function is written to touch b as late as possible. The tricks are
 * those described in animetosho's "MD5 Optimisation Tricks: Beating
 * OpenSSL's Hand-tuned Assembly" (github.com/animetosho/md5-optimisation):
 *   F  d ^ (b & (c ^ d)): b waits for two operations (and, xor) before the
 *      add, the fewest a bit-select allows without a select instruction.
 *   G  (d & b) + (~d & c): the two halves share no bit, so the or may be an
 *      add, and then ~d & c joins the sum before b is ready; b waits for one
 *      and. This makes G one cycle shorter than the select form c ^ (d &
 *      (b ^ c)), whose b passes an xor, an and and an xor.
 *   H  b ^ (c ^ d): b waits for one xor. c ^ d of a step is b ^ c of the
 *      step before, which that step gets from its own result as h ^ d; on
 *      x86 this saves the move that recomputing c ^ d needs.
 *   I  c ^ (b | ~d): b waits for or and xor; ~d is ready early.
 * So a step costs five operations of latency in F and I and four in G and H
 * (4.5 per byte), against 4.75 for the textbook forms.
 *
 * None of this needs a particular instruction set. With BMI1 (andn), ~d & c
 * becomes one instruction instead of a not and an and, and ~d in I can be
 * formed without a move; neither is on the critical path, and compiling this
 * file for BMI1 measured no faster (4.52 cycles per byte either way on Zen 4).
 *
 * The order of the additions is the whole point, and compilers reassociate
 * integer sums freely. GCC 12 keeps a good order by itself; Clang 14 moves
 * the constant t after the term that waits for b and folds G's two halves
 * back into the select form, which costs a cycle a step (5.5 cycles per byte
 * instead of 4.5). sum_barrier() stops both: an empty asm statement that the
 * compiler must assume changes its operand, so the sum before it is computed
 * as a whole and nothing moves across it. It emits no instruction. */
#include "md5.h"

#include "endian.h"

static inline uint32_t sum_barrier(uint32_t v)
{
#if defined(__GNUC__) /* also Clang */
    __asm__("" : "+r"(v));
#endif
    return v;
}

/* The message word x and the sine constant t are summed into a first, as
 * they do not depend on the chain at all. */
static inline uint32_t step_f(uint32_t a, uint32_t b, uint32_t c, uint32_t d, uint32_t x,
                              uint32_t t, unsigned s)
{
    a = sum_barrier(a + x + t);
    a += d ^ (b & (c ^ d));
    return fd_rotl32(a, s) + b;
}

static inline uint32_t step_g(uint32_t a, uint32_t b, uint32_t c, uint32_t d, uint32_t x,
                              uint32_t t, unsigned s)
{
    a = sum_barrier(a + x + t + (~d & c));
    a += d & b;
    return fd_rotl32(a, s) + b;
}

/* c_xor_d holds c ^ d on entry and b ^ c on return, which is the next H
 * step's c ^ d. */
static inline uint32_t step_h(uint32_t a, uint32_t b, uint32_t *c_xor_d, uint32_t d, uint32_t x,
                              uint32_t t, unsigned s)
{
    uint32_t h = b ^ *c_xor_d;

    *c_xor_d = h ^ d;
    a = sum_barrier(a + x + t);
    a += h;
    return fd_rotl32(a, s) + b;
}

static inline uint32_t step_i(uint32_t a, uint32_t b, uint32_t c, uint32_t d, uint32_t x,
                              uint32_t t, unsigned s)
{
    a = sum_barrier(a + x + t);
    a += c ^ (b | ~d);
    return fd_rotl32(a, s) + b;
}

void fd_md5_blocks_tuned(uint32_t chain[4], const uint8_t *blocks, size_t nblocks)
{
    uint32_t a = chain[0], b = chain[1], c = chain[2], d = chain[3];

    for (; nblocks != 0; nblocks--, blocks += FD_MD5_BLOCK_LEN) {
        /* Word k of the block, read where it is used so that the compiler
         * can fold the load into the add. */
        const uint8_t *x = blocks;
#define X(k) fd_load_le32(x + 4 * (k))
        const uint32_t a0 = a, b0 = b, c0 = c, d0 = d;
        uint32_t c_xor_d;

        /* The sine-derived constants and shift amounts of RFC 1321, 3.4. */
        a = step_f(a, b, c, d, X(0), 0xd76aa478, 7);
        d = step_f(d, a, b, c, X(1), 0xe8c7b756, 12);
        c = step_f(c, d, a, b, X(2), 0x242070db, 17);
        b = step_f(b, c, d, a, X(3), 0xc1bdceee, 22);
        a = step_f(a, b, c, d, X(4), 0xf57c0faf, 7);
        d = step_f(d, a, b, c, X(5), 0x4787c62a, 12);
        c = step_f(c, d, a, b, X(6), 0xa8304613, 17);
        b = step_f(b, c, d, a, X(7), 0xfd469501, 22);
        a = step_f(a, b, c, d, X(8), 0x698098d8, 7);
        d = step_f(d, a, b, c, X(9), 0x8b44f7af, 12);
        c = step_f(c, d, a, b, X(10), 0xffff5bb1, 17);
        b = step_f(b, c, d, a, X(11), 0x895cd7be, 22);
        a = step_f(a, b, c, d, X(12), 0x6b901122, 7);
        d = step_f(d, a, b, c, X(13), 0xfd987193, 12);
        c = step_f(c, d, a, b, X(14), 0xa679438e, 17);
        b = step_f(b, c, d, a, X(15), 0x49b40821, 22);

        a = step_g(a, b, c, d, X(1), 0xf61e2562, 5);
        d = step_g(d, a, b, c, X(6), 0xc040b340, 9);
        c = step_g(c, d, a, b, X(11), 0x265e5a51, 14);
        b = step_g(b, c, d, a, X(0), 0xe9b6c7aa, 20);
        a = step_g(a, b, c, d, X(5), 0xd62f105d, 5);
        d = step_g(d, a, b, c, X(10), 0x02441453, 9);
        c = step_g(c, d, a, b, X(15), 0xd8a1e681, 14);
        b = step_g(b, c, d, a, X(4), 0xe7d3fbc8, 20);
        a = step_g(a, b, c, d, X(9), 0x21e1cde6, 5);
        d = step_g(d, a, b, c, X(14), 0xc33707d6, 9);
        c = step_g(c, d, a, b, X(3), 0xf4d50d87, 14);
        b = step_g(b, c, d, a, X(8), 0x455a14ed, 20);
        a = step_g(a, b, c, d, X(13), 0xa9e3e905, 5);
        d = step_g(d, a, b, c, X(2), 0xfcefa3f8, 9);
        c = step_g(c, d, a, b, X(7), 0x676f02d9, 14);
        b = step_g(b, c, d, a, X(12), 0x8d2a4c8a, 20);

        c_xor_d = c ^ d;
        a = step_h(a, b, &c_xor_d, d, X(5), 0xfffa3942, 4);
        d = step_h(d, a, &c_xor_d, c, X(8), 0x8771f681, 11);
        c = step_h(c, d, &c_xor_d, b, X(11), 0x6d9d6122, 16);
        b = step_h(b, c, &c_xor_d, a, X(14), 0xfde5380c, 23);
        a = step_h(a, b, &c_xor_d, d, X(1), 0xa4beea44, 4);
        d = step_h(d, a, &c_xor_d, c, X(4), 0x4bdecfa9, 11);
        c = step_h(c, d, &c_xor_d, b, X(7), 0xf6bb4b60, 16);
        b = step_h(b, c, &c_xor_d, a, X(10), 0xbebfbc70, 23);
        a = step_h(a, b, &c_xor_d, d, X(13), 0x289b7ec6, 4);
        d = step_h(d, a, &c_xor_d, c, X(0), 0xeaa127fa, 11);
        c = step_h(c, d, &c_xor_d, b, X(3), 0xd4ef3085, 16);
        b = step_h(b, c, &c_xor_d, a, X(6), 0x04881d05, 23);
        a = step_h(a, b, &c_xor_d, d, X(9), 0xd9d4d039, 4);
        d = step_h(d, a, &c_xor_d, c, X(12), 0xe6db99e5, 11);
        c = step_h(c, d, &c_xor_d, b, X(15), 0x1fa27cf8, 16);
        b = step_h(b, c, &c_xor_d, a, X(2), 0xc4ac5665, 23);

        a = step_i(a, b, c, d, X(0), 0xf4292244, 6);
        d = step_i(d, a, b, c, X(7), 0x432aff97, 10);
        c = step_i(c, d, a, b, X(14), 0xab9423a7, 15);
        b = step_i(b, c, d, a, X(5), 0xfc93a039, 21);
        a = step_i(a, b, c, d, X(12), 0x655b59c3, 6);
        d = step_i(d, a, b, c, X(3), 0x8f0ccc92, 10);
        c = step_i(c, d, a, b, X(10), 0xffeff47d, 15);
        b = step_i(b, c, d, a, X(1), 0x85845dd1, 21);
        a = step_i(a, b, c, d, X(8), 0x6fa87e4f, 6);
        d = step_i(d, a, b, c, X(15), 0xfe2ce6e0, 10);
        c = step_i(c, d, a, b, X(6), 0xa3014314, 15);
        b = step_i(b, c, d, a, X(13), 0x4e0811a1, 21);
        a = step_i(a, b, c, d, X(4), 0xf7537e82, 6);
        d = step_i(d, a, b, c, X(11), 0xbd3af235, 10);
        c = step_i(c, d, a, b, X(2), 0x2ad7d2bb, 15);
        b = step_i(b, c, d, a, X(9), 0xeb86d391, 21);
#undef X

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
