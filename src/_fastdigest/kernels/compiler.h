/* The one place that tells the compilers apart, and what the code needs of
 * them beyond C11: each GCC/Clang-only construct behind one macro with its
 * MSVC spelling (or none). Every other file tests the FD_COMPILER_* macros
 * below, never the compilers' own (_MSC_VER, __GNUC__, __clang__), so that
 * each difference is decided once, here. */
#ifndef FD_KERNELS_COMPILER_H
#define FD_KERNELS_COMPILER_H

/* ---- which compiler ------------------------------------------------------
 *
 * FD_COMPILER_GNU      GCC or Clang, clang-cl included: the GNU C extensions
 *                      (attributes, inline assembly, __builtin_*, GCC pragmas).
 * FD_COMPILER_GCC      GCC itself (not Clang, which also defines __GNUC__):
 *                      its own pragmas (#pragma GCC target) and versions.
 * FD_COMPILER_CLANG    Clang in any mode, clang-cl included: its own pragmas
 *                      (#pragma clang attribute) and versions.
 * FD_COMPILER_MSVC     Microsoft's C compiler itself, clang-cl excluded: no
 *                      GNU extensions, and C11 atomics only behind an
 *                      experimental switch (platform/atomic.h).
 * FD_COMPILER_MSVC_INTRINSICS
 *                      MSVC or clang-cl (both define _MSC_VER): Microsoft's
 *                      <intrin.h> and its declarations (__cpuidex, _xgetbv,
 *                      the Interlocked functions), which clang-cl provides
 *                      too. This one is about headers, not the compiler's
 *                      language: clang-cl has <intrin.h> and no <cpuid.h>. */
#if defined(__GNUC__) || defined(__clang__)
#define FD_COMPILER_GNU 1
#endif
#if defined(__GNUC__) && !defined(__clang__)
#define FD_COMPILER_GCC 1
#endif
#if defined(__clang__)
#define FD_COMPILER_CLANG 1
#endif
#if defined(_MSC_VER) && !defined(__clang__)
#define FD_COMPILER_MSVC 1
#endif
#if defined(_MSC_VER)
#define FD_COMPILER_MSVC_INTRINSICS 1
#endif

/* The major version of GCC and of Clang, 0 for the other compilers: what
 * each builds with its default flags differs by version
 * (kernels/arm/armv8.h). Apple numbers its clang by Xcode's version. */
#if defined(FD_COMPILER_GCC)
#define FD_COMPILER_GCC_MAJOR __GNUC__
#else
#define FD_COMPILER_GCC_MAJOR 0
#endif
#if defined(FD_COMPILER_CLANG)
#define FD_COMPILER_CLANG_MAJOR __clang_major__
#else
#define FD_COMPILER_CLANG_MAJOR 0
#endif

/* For the steps a kernel is built from: a kernel's speed depends on its
 * whole round sequence being one function, with its state in registers, and
 * compilers decline to inline the larger steps by their own measure (GCC at
 * -O2 keeps a step called twice with different constants as one function). */
#if defined(FD_COMPILER_GNU)
#define FD_ALWAYS_INLINE __attribute__((always_inline)) inline
#else
#define FD_ALWAYS_INLINE __forceinline
#endif

/* The opposite, for code run once (the known-answer checks at import):
 * each call of a family's inline helpers with a family known only at run
 * time expands into a case per family, and code that is run once costs its
 * size in cache misses, not its instructions. */
#if defined(FD_COMPILER_GNU)
#define FD_NOINLINE __attribute__((noinline))
#else
#define FD_NOINLINE __declspec(noinline)
#endif

/* Unrolls the loop that follows n times (1: not at all), so that the
 * rotating roles of a state and a ring's indices resolve to registers and
 * constants. MSVC has no such pragma for C and unrolls by its own measure. */
#if defined(FD_COMPILER_GNU)
#define FD_PRAGMA(text) _Pragma(#text)
#define FD_UNROLL(n) FD_PRAGMA(GCC unroll n)
#else
#define FD_UNROLL(n)
#endif

/* Makes the compiler treat v as changed at this point, so that the sum that
 * produced it is computed as written and nothing is moved across it; emits
 * no instruction. MSVC does not reassociate these sums, so there it is
 * nothing. */
#if defined(FD_COMPILER_GNU)
#define FD_VALUE_BARRIER(v) __asm__("" : "+r"(v))
#else
#define FD_VALUE_BARRIER(v) ((void)0)
#endif

/* After a store of a value a kernel means to read back as a memory operand
 * (a W+K word the scalar rounds add): without it GCC keeps the vector and
 * feeds the rounds through (v)pextrd, two operations a word where a memory
 * operand costs none. The empty asm claims to change the stored bytes, and
 * nothing else; it emits no instruction. */
#if defined(FD_COMPILER_GNU)
#define FD_STORED(p) __asm__("" : "+m"(*(p)))
#else
#define FD_STORED(p) ((void)(p))
#endif

/* Lets the compiler check a printf-style function's calls against its
 * format string (the core's error messages). */
#if defined(FD_COMPILER_GNU)
#define FD_PRINTF_LIKE(format_index, first_arg) \
    __attribute__((format(printf, format_index, first_arg)))
#else
#define FD_PRINTF_LIKE(format_index, first_arg)
#endif

/* Hints the CPU to load the cache line at p (a read, kept in all cache
 * levels); nothing where the compiler has no such builtin. */
#if defined(FD_COMPILER_GNU)
#define FD_PREFETCH(p) __builtin_prefetch(p)
#else
#define FD_PREFETCH(p) ((void)(p))
#endif

#endif /* FD_KERNELS_COMPILER_H */
