/* The model build of the SHA512-instruction kernel (model_kernels.c) as a
 * kernel descriptor for the C drivers, where it is built: on x86-64, unless
 * the kernel is opted out (kernels/x86/sha512ni/sha512ni.h). */
#ifndef FD_TESTS_MODEL_KERNELS_H
#define FD_TESTS_MODEL_KERNELS_H

#include "dispatch/dispatch.h"
#include "kernels/x86/x86.h"

#if defined(FD_X86_64) && !defined(FD_NO_SHA512NI)
#define TEST_HAVE_SHA512NI_MODEL 1
extern const fd_kernel test_sha512ni_model_kernel;
#endif

#endif /* FD_TESTS_MODEL_KERNELS_H */
