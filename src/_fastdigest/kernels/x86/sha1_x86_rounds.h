/* The scalar half of the x86-64 SHA-1 kernels without SHA-NI (avx2/sha1_avx2.c,
 * ssse3/sha1_ssse3.c): their rounds run in general-purpose registers beside a
 * message schedule in vectors, and differ only in the vector width of that
 * schedule. Plain C: the steps inline into each kernel's target, and GCC
 * picks rorx and andn where the kernel's target has BMI1/BMI2. Included
 * only by those files, inside their FD_HAVE_* guards. */
#ifndef FD_KERNELS_X86_SHA1_X86_ROUNDS_H
#define FD_KERNELS_X86_SHA1_X86_ROUNDS_H

#include <stdbool.h>
#include <stdint.h>

#include "kernels/compiler.h"
#include "kernels/endian.h"

/* FIPS 180-4, 4.2.1: K of rounds 0-19, 20-39, 40-59 and 60-79. */
static const uint32_t fd_sha1_x86_round_constants[4] = {0x5a827999, 0x6ed9eba1, 0x8f1bbcdc,
                                                        0xca62c1d6};

/* The working variables a..e, passed by address to the inlined steps; GCC
 * keeps them in registers. */
typedef struct fd_sha1_vars {
    uint32_t a, b, c, d, e;
} fd_sha1_vars;

static FD_ALWAYS_INLINE fd_sha1_vars fd_sha1_vars_from_chain(const fd_sha1_chain *chain)
{
    fd_sha1_vars v = {chain->words[0], chain->words[1], chain->words[2], chain->words[3],
                      chain->words[4]};
    return v;
}

/* One round with the working variables named by position: the caller
 * rotates the names instead of moving five values, so only b and e are
 * written (e becomes the new a, b is rotated into the new c).
 *   Ch(b, c, d) is (b & c) + (~b & d) where the kernel has BMI1's andn
 *     (with_andn): the halves share no bit, and each waits one operation
 *     for b. Without andn, d ^ (b & (c ^ d)) is one operation shorter. (In
 *     the AVX2 kernel the andn form measured faster on long messages, the
 *     other faster for one block.)
 *   Maj(b, c, d) is (c & d) + (b & (c ^ d)): the halves share no bit, and
 *     c ^ d and c & d are ready a round before b is.
 *   Each term is added to e on its own, so the sum waits for a (the
 *     previous round's result) only at its last addition: a round's
 *     critical path is a rotation and one add. */
static FD_ALWAYS_INLINE void fd_sha1_round(bool with_andn, int t, uint32_t a, uint32_t *b,
                                           uint32_t c, uint32_t d, uint32_t *e, uint32_t w_plus_k)
{
    *e += w_plus_k;
    switch (t / 20) {
    case 0:
        if (with_andn) {
            *e += *b & c;
            *e += ~*b & d;
        }
        else {
            *e += d ^ (*b & (c ^ d));
        }
        break;
    case 2:
        *e += c & d;
        *e += *b & (c ^ d);
        break;
    default:
        *e += *b ^ (c ^ d);
        break;
    }
    *e += fd_rotl32(a, 5);
    *b = fd_rotl32(*b, 30);
}

#endif /* FD_KERNELS_X86_SHA1_X86_ROUNDS_H */
