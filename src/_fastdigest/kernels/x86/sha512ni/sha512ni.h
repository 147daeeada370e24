/* Intel's SHA512 instructions: VSHA512RNDS2 (two SHA-512 rounds),
 * VSHA512MSG1 and VSHA512MSG2 (the sigma terms of the message schedule),
 * VEX.256-encoded, on Intel Arrow Lake-S, Lunar Lake, Panther Lake,
 * Clearwater Forest and Diamond Rapids; no AMD CPU has them. CPUID reports
 * them in leaf 7 subleaf 1 (dispatch/features.c); the kernel also needs AVX2
 * for the loads, byte swaps and permutes around them.
 *
 * The compilers that know the intrinsics (target "sha512") are GCC 14 and
 * Clang 17 on; with an older compiler the kernel is left out, as
 * -DFD_NO_SHA512NI leaves it out. Apple's clang numbers its own versions,
 * ahead of LLVM's, and is held to the same 17, which may leave out an Apple
 * clang 16 that knows them. MSVC has not been tried and leaves the kernel
 * out.
 *
 * Clang assembles the instructions itself, GCC hands them to the system's
 * assembler, which may predate them (binutils 2.40, Debian 12's, refuses
 * them). So setup.py checks once that the compiler builds them, and
 * otherwise adds -DFD_NO_SHA512NI, or builds this folder with another
 * compiler (FASTDIGEST_SHA512NI_CC) and defines FD_SHA512NI_OTHER_COMPILER
 * for every file, so that the others see the kernel though their compiler
 * may not know the intrinsics.
 *
 * With FD_SHA512NI_MODEL defined, the kernel's source compiles with any
 * compiler that has the AVX2 intrinsics: the three instructions are then C
 * functions written from the SDM (sha512ni_model.h), and the kernel runs on
 * any AVX2 CPU. The C drivers build it that way beside the real kernel
 * (tests/c/model_kernels.c), and tests/bochs/ checks the model against the
 * instructions on the Bochs CPU. */
#ifndef FD_KERNELS_X86_SHA512NI_H
#define FD_KERNELS_X86_SHA512NI_H

#include "kernels/kernel.h"
#include "kernels/x86/x86.h"

#if defined(FD_COMPILER_CLANG)
#define FD_SHA512NI_COMPILER (FD_COMPILER_CLANG_MAJOR >= 17)
#elif defined(FD_COMPILER_GCC)
#define FD_SHA512NI_COMPILER (FD_COMPILER_GCC_MAJOR >= 14)
#else
#define FD_SHA512NI_COMPILER 0
#endif

#if defined(FD_X86_64) && !defined(FD_NO_SHA512NI)

#if defined(FD_SHA512NI_MODEL)
#define FD_HAVE_SHA512NI 1
#define FD_TARGET_SHA512NI FD_X86_TARGET("avx2")
#define FD_SHA512NI_FEATURES FD_CPU_AVX2
#elif FD_SHA512NI_COMPILER || defined(FD_SHA512NI_OTHER_COMPILER)
#define FD_HAVE_SHA512NI 1
#define FD_TARGET_SHA512NI FD_X86_TARGET("avx2,sha512")
#define FD_SHA512NI_FEATURES (FD_CPU_SHA512NI | FD_CPU_AVX2)
#endif

#ifdef FD_HAVE_SHA512NI
fd_sha512_blocks_fn fd_sha512_blocks_sha512ni; /* sha512_sha512ni.c */
#endif

#endif

#endif /* FD_KERNELS_X86_SHA512NI_H */
