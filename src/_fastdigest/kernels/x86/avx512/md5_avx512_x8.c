/* MD5 compression of eight messages at once, one per 32-bit lane of a ymm
 * register (AVX-512VL): md5_avx512_xn.h at eight lanes, the narrower kernel
 * of md5_avx512_x16.c (dispatch.h). Where it hashes a block in clearly less
 * time than the sixteen lanes take (dispatch.c's narrower_kernel_cpus),
 * the batch driver runs it when a batch has too few messages to give each
 * of its threads a group of sixteen (hash/batch_threads.c). */
#include "kernels/x86/avx512/avx512.h"

#ifdef FD_HAVE_AVX512_MULTI

#include <immintrin.h>

#include "kernels/md5_steps.h"

#define FD_AVX512_LANES 8
#define MD5_BLOCKS_FUNCTION fd_md5_blocks_avx512_x8
#include "kernels/x86/avx512/md5_avx512_xn.h"

#endif /* FD_HAVE_AVX512_MULTI */
