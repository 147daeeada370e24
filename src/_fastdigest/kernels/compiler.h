/* What the kernels need of the compiler beyond C11, each GCC/Clang-only
 * construct behind one macro with its MSVC spelling (or none). */
#ifndef FD_KERNELS_COMPILER_H
#define FD_KERNELS_COMPILER_H

/* For the steps a kernel is built from: a kernel's speed depends on its
 * whole round sequence being one function, with its state in registers, and
 * compilers decline to inline the larger steps by their own measure (GCC at
 * -O2 keeps a step called twice with different constants as one function). */
#if defined(__GNUC__) || defined(__clang__)
#define FD_ALWAYS_INLINE __attribute__((always_inline)) inline
#else
#define FD_ALWAYS_INLINE __forceinline
#endif

/* Unrolls the loop that follows n times (1: not at all), so that the
 * rotating roles of a state and a ring's indices resolve to registers and
 * constants. MSVC has no such pragma for C and unrolls by its own measure. */
#if defined(__GNUC__) || defined(__clang__)
#define FD_PRAGMA(text) _Pragma(#text)
#define FD_UNROLL(n) FD_PRAGMA(GCC unroll n)
#else
#define FD_UNROLL(n)
#endif

/* Makes the compiler treat v as changed at this point, so that the sum that
 * produced it is computed as written and nothing is moved across it; emits
 * no instruction. MSVC does not reassociate these sums, so there it is
 * nothing. */
#if defined(__GNUC__) || defined(__clang__)
#define FD_VALUE_BARRIER(v) __asm__("" : "+r"(v))
#else
#define FD_VALUE_BARRIER(v) ((void)0)
#endif

/* After a store of a value a kernel means to read back as a memory operand
 * (a W+K word the scalar rounds add): without it GCC keeps the vector and
 * feeds the rounds through (v)pextrd, two operations a word where a memory
 * operand costs none. The empty asm claims to change the stored bytes, and
 * nothing else; it emits no instruction. */
#if defined(__GNUC__) || defined(__clang__)
#define FD_STORED(p) __asm__("" : "+m"(*(p)))
#else
#define FD_STORED(p) ((void)(p))
#endif

/* Lets the compiler check a printf-style function's calls against its
 * format string (the core's error messages). */
#if defined(__GNUC__) || defined(__clang__)
#define FD_PRINTF_LIKE(format_index, first_arg) \
    __attribute__((format(printf, format_index, first_arg)))
#else
#define FD_PRINTF_LIKE(format_index, first_arg)
#endif

#endif /* FD_KERNELS_COMPILER_H */
