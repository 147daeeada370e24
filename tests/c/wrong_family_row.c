/* Must not compile with WRONG_ROW defined: a kernel of one family in a
 * dispatch row of another (tests/c/run.sh native compiles it once without
 * WRONG_ROW, which must succeed, and once for each WRONG_ROW below, which
 * must fail). Each family's kernels take its own chain type
 * (kernels/kernel.h's FD_FAMILIES), so the compiler refuses the pointer;
 * were the block-function types one type again (all of them once decayed
 * to uint32_t *), these rows would compile and run MD5 as SHA-1. */
#include "dispatch/dispatch.h"
#include "kernels/portable/portable.h"

#if !defined(WRONG_ROW)
/* The control: the same rows with the right kernels. */
static const fd_kernel single_row = {.name = "sha1", .blocks.sha1 = fd_sha1_blocks_portable};
#elif WRONG_ROW == 1
/* The MD5 kernel in a SHA-1 row. */
static const fd_kernel single_row = {.name = "md5 as sha1", .blocks.sha1 = fd_md5_blocks_portable};
#elif WRONG_ROW == 2
/* The SHA-256 kernel in a SHA-512 row (32- against 64-bit words). */
static const fd_kernel single_row = {.name = "sha256 as sha512",
                                     .blocks.sha512 = fd_sha256_blocks_portable};
#elif WRONG_ROW == 3
/* A SHA-1 kernel as a SHA-256 capability (both families had uint32_t
 * chains). */
static void sha1_pbkdf2(const fd_sha1_chain *inner_chain, const fd_sha1_chain *outer_chain,
                        size_t digest_len, fd_sha1_chain *words, uint32_t iterations_left)
{
    (void)inner_chain, (void)outer_chain, (void)digest_len, (void)words, (void)iterations_left;
}
static const fd_kernel single_row = {.name = "sha1 pbkdf2 as sha256",
                                     .blocks.sha256 = fd_sha256_blocks_portable,
                                     .pbkdf2.sha256 = sha1_pbkdf2};
#elif WRONG_ROW == 4
/* An MD5 multi-buffer kernel in a SHA-1 multi-buffer row. */
static void md5_blocks_x2(fd_md5_chain *chains, const uint8_t *const *blocks, size_t nblocks)
{
    (void)chains, (void)blocks, (void)nblocks;
}
static const fd_multi_kernel multi_row = {
    .name = "md5_x2 as sha1", .lanes = 2, .blocks.sha1 = md5_blocks_x2};
static const fd_kernel single_row = {.name = "sha1", .blocks.sha1 = fd_sha1_blocks_portable};
const fd_multi_kernel *wrong_family_multi_row(void);
const fd_multi_kernel *wrong_family_multi_row(void)
{
    return &multi_row;
}
#endif

const fd_kernel *wrong_family_row(void);
const fd_kernel *wrong_family_row(void)
{
    return &single_row;
}
