/* What the kernels need of the compiler beyond C11. */
#ifndef FD_COMPILER_H
#define FD_COMPILER_H

/* For the steps a kernel is built from: a kernel's speed depends on its
 * whole round sequence being one function, with its state in registers, and
 * compilers decline to inline the larger steps by their own measure (GCC at
 * -O2 keeps a step called twice with different constants as one function). */
#if defined(__GNUC__) || defined(__clang__)
#define FD_ALWAYS_INLINE __attribute__((always_inline)) inline
#else
#define FD_ALWAYS_INLINE __forceinline
#endif

#endif /* FD_COMPILER_H */
