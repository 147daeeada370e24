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
 * file for BMI1 measured no faster.
 *
 * The order of the additions is the whole point, and compilers reassociate
 * integer sums freely. GCC 12 keeps a good order by itself; Clang 14 moves
 * the constant t after the term that waits for b and folds G's two halves
 * back into the select form, which costs a cycle a step (5.5 cycles per byte
 * instead of 4.5). sum_barrier() stops both: an empty asm statement that the
 * compiler must assume changes its operand, so the sum before it is computed
 * as a whole and nothing moves across it. It emits no instruction. */
#include "kernels/portable/portable.h"

#include "kernels/endian.h"
#include "kernels/md5_steps.h"

static inline uint32_t sum_barrier(uint32_t v)
{
    FD_VALUE_BARRIER(v);
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

void fd_md5_blocks_tuned(fd_md5_chain *chain, const uint8_t *blocks, size_t nblocks)
{
    uint32_t a = chain->words[0], b = chain->words[1], c = chain->words[2], d = chain->words[3];

    for (; nblocks != 0; nblocks--, blocks += FD_MD5_BLOCK_LEN) {
        /* Word k of the block, read where it is used so that the compiler
         * can fold the load into the add. */
        const uint8_t *x = blocks;
#define X(k) fd_load_le32(x + 4 * (k))
        const uint32_t a0 = a, b0 = b, c0 = c, d0 = d;
        uint32_t c_xor_d;

        /* The 64 steps of RFC 1321, 3.4 (md5_steps.h); the H steps carry
         * c ^ d from one to the next. */
#define MD5_STEP(f, a, b, c, d, k, t, s) a = step_##f(a, b, c, d, X(k), t, s);
#define MD5_STEP_H(f, a, b, c, d, k, t, s) a = step_h(a, b, &c_xor_d, d, X(k), t, s);
        FD_MD5_ROUND1(MD5_STEP)
        FD_MD5_ROUND2(MD5_STEP)
        c_xor_d = c ^ d;
        FD_MD5_ROUND3(MD5_STEP_H)
        FD_MD5_ROUND4(MD5_STEP)
#undef MD5_STEP
#undef MD5_STEP_H
#undef X

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
