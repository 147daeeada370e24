/* The SHA512-instruction kernel (kernels/x86/sha512ni/sha512_sha512ni.c)
 * built on its model of the instructions (sha512ni.h, sha512ni_model.h):
 * the same source but for the three instructions, compiled by any compiler
 * that has the AVX2 intrinsics and run on any AVX2 CPU. The C drivers link
 * it beside the real kernel, and test_core.c tests it like a row of the
 * SHA-512 table. */
#define FD_SHA512NI_MODEL 1
#define fd_sha512_blocks_sha512ni fd_sha512_blocks_sha512ni_model
#include "kernels/x86/sha512ni/sha512_sha512ni.c"

#include "model_kernels.h"

#ifdef TEST_HAVE_SHA512NI_MODEL
const fd_kernel test_sha512ni_model_kernel = {
    .name = "sha512ni-model",
    .required_features = FD_SHA512NI_FEATURES,
    .blocks.sha512 = fd_sha512_blocks_sha512ni_model,
};
#endif
