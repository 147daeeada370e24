/* The one block-buffering routine every hash family uses.
 *
 * MD5, SHA-1 and SHA-2 are all Merkle-Damgard hashes over fixed-size blocks:
 * they differ only in block length, compression function and the width and
 * byte order of the length field in the padding. So the buffering lives here
 * once, and each family supplies its compress function and block length.
 *
 * The number of bytes waiting in the block buffer is never stored: it is
 * byte_count modulo the block length (a power of two), which keeps the state
 * one field smaller and makes an inconsistent state impossible to represent.
 *
 * `compress` consumes whole blocks from a pointer of any alignment. It is
 * passed as a constant at every call site, so the compiler inlines these
 * routines per family and the indirect call is the dispatch, nothing more. */
#ifndef FD_BUFFER_H
#define FD_BUFFER_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef void fd_compress_fn(void *chain, const uint8_t *blocks, size_t nblocks);

/* Absorbs len bytes of data. Whole blocks are compressed straight from data,
 * in one call; only a partial block at either end is copied into `block`.
 * data may be NULL when len is 0. */
static inline void fd_block_update(void *chain, uint8_t *block, size_t block_len,
                                   uint64_t *byte_count, fd_compress_fn *compress,
                                   const uint8_t *data, size_t len)
{
    size_t used = (size_t)(*byte_count & (block_len - 1));

    *byte_count += len;
    if (used != 0) {
        size_t room = block_len - used;
        if (len < room) {
            if (len != 0)
                memcpy(block + used, data, len);
            return;
        }
        memcpy(block + used, data, room);
        compress(chain, block, 1);
        data += room;
        len -= room;
    }
    size_t nblocks = len / block_len;
    if (nblocks != 0) {
        compress(chain, data, nblocks);
        data += nblocks * block_len;
        len -= nblocks * block_len;
    }
    if (len != 0)
        memcpy(block, data, len);
}

/* Appends the 0x80 marker and zero bytes so that exactly length_field_len
 * bytes remain at the end of `block`, compressing one extra block first when
 * the buffered tail leaves no room for the length field. The caller writes
 * the message length there, in its family's byte order, and compresses. */
static inline void fd_block_pad(void *chain, uint8_t *block, size_t block_len, uint64_t byte_count,
                                size_t length_field_len, fd_compress_fn *compress)
{
    size_t used = (size_t)(byte_count & (block_len - 1));

    block[used++] = 0x80;
    if (used > block_len - length_field_len) {
        memset(block + used, 0, block_len - used);
        compress(chain, block, 1);
        used = 0;
    }
    memset(block + used, 0, block_len - length_field_len - used);
}

#endif /* FD_BUFFER_H */
