/* What every x86-64 kernel shares: the one test for the architecture.
 *
 * Each instruction set has a folder here (shani/, avx2/, avx512/, sha512ni/, ssse3/) and one
 * header in it that defines, once, the target attribute its functions are
 * compiled with and the CPU features they require, and declares its
 * kernels, each under the instruction set's FD_HAVE_* macro. Kernels are
 * compiled with function-level target attributes, so the package builds
 * with default compiler flags and runs a kernel only after the dispatcher
 * has seen the CPU report its features. An opt-out macro (-DFD_NO_SHANI,
 * -DFD_NO_AVX2, -DFD_NO_AVX512, -DFD_NO_SHA512NI, -DFD_NO_SSSE3) leaves an
 * instruction set out of the build;
 * -DFD_NO_MULTI_BUFFER leaves out every multi-buffer kernel. MSVC compiles
 * intrinsics without target flags, so there the attributes are empty. */
#ifndef FD_KERNELS_X86_H
#define FD_KERNELS_X86_H

#include "kernels/compiler.h"

/* ARM64EC defines _M_X64 but has no SHA extensions or AVX-512. */
#if defined(__x86_64__) || (defined(_M_X64) && !defined(_M_ARM64EC))
#define FD_X86_64 1
#endif

/* A target attribute, for GCC and Clang; nothing for MSVC. */
#if defined(FD_COMPILER_GNU)
#define FD_X86_TARGET(features) __attribute__((target(features)))
#else
#define FD_X86_TARGET(features)
#endif

#endif /* FD_KERNELS_X86_H */
