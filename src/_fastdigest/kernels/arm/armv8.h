/* Compress kernels for the ARMv8 Cryptography Extensions (AArch64).
 *
 * SHA-1 and SHA-256 use the ARMv8.0 SHA1 and SHA2 instructions; SHA-512 uses
 * the ARMv8.2 SHA512 instructions, which many ARMv8 cores lack (Cortex-A72,
 * for one) while having the others. Each kernel lives in its own .c file, the
 * only files that include <arm_neon.h>; they enable the instructions for
 * themselves with a target pragma, so the package builds with default
 * compiler flags, and the dispatcher lists a kernel only under its FD_HAVE_* macro and
 * runs it only after the CPU reports its feature:
 *
 *   kernel                    requires             opt-out macro
 *   fd_sha1_blocks_armv8      FD_CPU_ARM_SHA1      FD_NO_ARM_SHA1
 *   fd_sha256_blocks_armv8    FD_CPU_ARM_SHA2      FD_NO_ARM_SHA2
 *   fd_sha512_blocks_armv8    FD_CPU_ARM_SHA512    FD_NO_ARM_SHA512
 *
 * Defining an opt-out macro leaves that kernel out of the build. A compiler
 * that cannot build a kernel with default flags leaves it out by itself:
 * GCC needs version 6 for the SHA-1/SHA-256 intrinsics and 8 for SHA-512;
 * Clang before 16 declares the intrinsics only when the flags already enable
 * the instructions (as Apple's defaults for arm64 do; checked with clang 14
 * and 16, and zig cc's aarch64-macos target defines __ARM_FEATURE_SHA2 and
 * __ARM_FEATURE_SHA512 by default; Apple clang numbers its versions by Xcode,
 * so either test may be the one that holds there). MSVC, which defines
 * _M_ARM64 but not __aarch64__, builds none of them and runs the portable C:
 * its NEON intrinsics have not been tried here (clang-cl defines __aarch64__
 * and builds them). Big-endian AArch64 is left to the portable C: the
 * kernels' byte reversal of the message words assumes little-endian lanes.
 * Every kernel takes and returns the chain in FIPS order. */
#ifndef FD_KERNELS_ARM_ARMV8_H
#define FD_KERNELS_ARM_ARMV8_H

#include "kernels/kernel.h"

#if defined(__aarch64__) && !defined(__AARCH64EB__)

/* Whether this compiler builds the kernels with default flags (see above). */
#if defined(FD_COMPILER_CLANG)
#if FD_COMPILER_CLANG_MAJOR >= 16 || defined(__ARM_FEATURE_SHA2)
#define FD_ARM_CAN_BUILD_SHA2 1
#endif
#if FD_COMPILER_CLANG_MAJOR >= 16 || defined(__ARM_FEATURE_SHA512)
#define FD_ARM_CAN_BUILD_SHA512 1
#endif
#elif defined(FD_COMPILER_GCC)
#if FD_COMPILER_GCC_MAJOR >= 6
#define FD_ARM_CAN_BUILD_SHA2 1
#endif
#if FD_COMPILER_GCC_MAJOR >= 8
#define FD_ARM_CAN_BUILD_SHA512 1
#endif
#endif

#if defined(FD_ARM_CAN_BUILD_SHA2) && !defined(FD_NO_ARM_SHA1)
#define FD_HAVE_ARM_SHA1 1
#define FD_ARM_SHA1_FEATURES FD_CPU_ARM_SHA1
fd_sha1_blocks_fn fd_sha1_blocks_armv8;           /* sha1_armv8.c */
fd_sha1_pbkdf2_fn fd_sha1_pbkdf2_armv8;           /* sha1_armv8.c */
fd_sha1_hmac_finish_fn fd_sha1_hmac_finish_armv8; /* sha1_armv8.c */
#endif

#if defined(FD_ARM_CAN_BUILD_SHA2) && !defined(FD_NO_ARM_SHA2)
#define FD_HAVE_ARM_SHA256 1
#define FD_ARM_SHA256_FEATURES FD_CPU_ARM_SHA2
fd_sha256_blocks_fn fd_sha256_blocks_armv8;           /* sha256_armv8.c */
fd_sha256_pbkdf2_fn fd_sha256_pbkdf2_armv8;           /* sha256_armv8.c */
fd_sha256_hmac_finish_fn fd_sha256_hmac_finish_armv8; /* sha256_armv8.c */
#endif

#if defined(FD_ARM_CAN_BUILD_SHA512) && !defined(FD_NO_ARM_SHA512)
#define FD_HAVE_ARM_SHA512 1
#define FD_ARM_SHA512_FEATURES FD_CPU_ARM_SHA512
fd_sha512_blocks_fn fd_sha512_blocks_armv8; /* sha512_armv8.c */
#endif

#endif /* __aarch64__, little-endian */

#endif /* FD_KERNELS_ARM_ARMV8_H */
