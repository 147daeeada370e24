/* The stream layer of every hash family: init, update and final over a
 * kernel of the family, with the one block-buffering routine.
 *
 * MD5, SHA-1 and SHA-2 are all Merkle-Damgard hashes over fixed-size blocks:
 * they differ only in block length, compression function and the width and
 * byte order of the length field in the padding, which their rows of
 * FD_FAMILIES (kernels/kernel.h) give. So the buffering and the padding live
 * here once, over the family's description (hash/family.h).
 *
 * The number of bytes waiting in the block buffer is never stored: it is
 * byte_count modulo the block length (a power of two), which keeps the state
 * one field smaller and makes an inconsistent state impossible to represent.
 *
 * Each function takes the family as a constant at every call site
 * (hash/algorithms.c's update and final of each family), so the compiler
 * inlines them per family with its block length and byte order built in,
 * and the indirect call of the kernel is the dispatch, nothing more. The
 * kernel is an argument: the descriptors' functions pass the family's
 * active kernel (its address a constant, read at the call as before), and
 * the known-answer checks and the self-test a kernel of their choosing,
 * without installing it where other threads hash. */
#ifndef FD_BUFFER_H
#define FD_BUFFER_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "hash/family.h"
#include "dispatch/dispatch.h"

/* Starts a state of the family from its initial chain (a chain of the
 * family: the algorithm's IV, iv_size bytes). The size comes from the
 * caller's typed IV rather than a switch on the family: unoptimized, GCC
 * checks every case of such a switch against the one IV and warns. */
static FD_ALWAYS_INLINE void fd_stream_init(enum fd_family family, fd_hash_state *state,
                                            const void *iv, size_t iv_size)
{
    memcpy(fd_state_chain(family, state), iv, iv_size);
    *fd_state_byte_count(family, state) = 0;
}

/* Absorbs len bytes of data with kernel, a kernel of the family. Whole
 * blocks are compressed straight from data, in one call; only a partial
 * block at either end is copied into the state's block buffer. data may be
 * NULL when len is 0. */
static FD_ALWAYS_INLINE void fd_stream_update(enum fd_family family, const fd_kernel *kernel,
                                              fd_hash_state *state, const uint8_t *data, size_t len)
{
    const size_t block_len = fd_family(family)->block_len;
    void *chain = fd_state_chain(family, state);
    uint8_t *block = fd_state_block(family, state);
    uint64_t *byte_count = fd_state_byte_count(family, state);
    size_t used = (size_t)(*byte_count & (block_len - 1));

    assert(data != NULL || len == 0);
    *byte_count += len;
    if (used != 0) {
        size_t room = block_len - used;
        if (len < room) {
            if (len != 0)
                memcpy(block + used, data, len);
            return;
        }
        memcpy(block + used, data, room);
        fd_call_blocks(family, kernel, chain, block, 1);
        data += room;
        len -= room;
    }
    size_t nblocks = len / block_len;
    if (nblocks != 0) {
        fd_call_blocks(family, kernel, chain, data, nblocks);
        data += nblocks * block_len;
        len -= nblocks * block_len;
    }
    if (len != 0)
        memcpy(block, data, len);
}

/* Pads the message (the 0x80 marker, zeros and the length field, FIPS
 * 180-4 5.1, RFC 1321 3.1-3.2), compresses its last block or two with
 * kernel and writes
 * the first digest_len bytes of the digest. Leaves the state padded:
 * finalize a copy to keep hashing. */
static FD_ALWAYS_INLINE void fd_stream_final(enum fd_family family, const fd_kernel *kernel,
                                             fd_hash_state *state, uint8_t *out, size_t digest_len)
{
    const fd_family_info *f = fd_family(family);
    const size_t block_len = f->block_len;
    void *chain = fd_state_chain(family, state);
    uint8_t *block = fd_state_block(family, state);
    const uint64_t byte_count = *fd_state_byte_count(family, state);
    size_t used = (size_t)(byte_count & (block_len - 1));

    assert(digest_len <= f->chain_len);
    block[used++] = 0x80;
    if (used > block_len - f->length_field_len) {
        memset(block + used, 0, block_len - used);
        fd_call_blocks(family, kernel, chain, block, 1);
        used = 0;
    }
    memset(block + used, 0, block_len - f->length_field_len - used);
    fd_store_length_field(family, block + block_len, byte_count);
    fd_call_blocks(family, kernel, chain, block, 1);
    fd_store_digest(family, out, chain, digest_len);
}

#endif /* FD_BUFFER_H */
