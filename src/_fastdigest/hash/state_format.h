/* The portable state format: a hash state as bytes that any build of
 * fastdigest, on any CPU, with any kernel and any Python, resumes exactly.
 *
 * Version 1, every integer big-endian:
 *
 *   offset  size  field
 *   0       4     magic: the ASCII bytes "FDST"
 *   4       1     format version: 1
 *   5       1     algorithm: its code, state_code in its row of FD_ALGORITHMS
 *                 (kernels/kernel.h), each listed in docs/state.md
 *   6       2     tail length T: the message bytes buffered, not yet compressed
 *   8       8     byte count N: the message bytes hashed so far
 *   16      C     the chaining words in the standard's order (MD5's A B C D,
 *                 SHA's H0 H1 ...), each big-endian: C is the bytes of the
 *                 family's chain, its chain_words words of its word_type
 *   16+C    T     the tail: the last T bytes of the message
 *
 * A blob is exactly 16 + C + T bytes. T must equal N mod the family's block
 * length, which the core never stores (buffer.h): the redundant field
 * makes a corrupted count or a cut tail detectable. Until a whole block has
 * been hashed (N < block length) the chaining words must be the algorithm's
 * initial values; N must be within the family's max_byte_count (SHA-1 and
 * SHA-224/256: N < 2^61, the standard's limit of 2^64 bits). There are no reserved or ignored bytes, so
 * an accepted blob is canonical: exporting the imported state gives it back.
 *
 * This file never includes Python.h: the C test driver runs it natively, under
 * sanitizers and on big-endian CPUs. */
#ifndef FD_STATE_FORMAT_H
#define FD_STATE_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "hash/algorithms.h"

#define FD_STATE_FORMAT_VERSION 1
#define FD_STATE_HEADER_LEN 16
/* The longest blob: the longest chain with a tail one byte short of the
 * longest block. */
#define FD_STATE_MAX_LEN (FD_STATE_HEADER_LEN + sizeof(fd_any_chain) + FD_MAX_BLOCK_LEN - 1)
/* Room for any reason fd_state_import writes. */
#define FD_STATE_REASON_LEN 256

/* Why a blob was refused; FD_STATE_OK (0) when it was not. */
enum fd_state_error {
    FD_STATE_OK,
    FD_STATE_BAD_MAGIC,         /* does not start with "FDST" */
    FD_STATE_SHORT_HEADER,      /* shorter than the 16-byte header */
    FD_STATE_UNKNOWN_VERSION,   /* a format version other than 1 */
    FD_STATE_UNKNOWN_ALGORITHM, /* a code no algorithm has */
    FD_STATE_TAIL_TOO_LONG,     /* T >= the block length */
    FD_STATE_TAIL_MISMATCH,     /* T != N mod the block length */
    FD_STATE_TRUNCATED,         /* fewer than 16 + C + T bytes */
    FD_STATE_PADDED,            /* more than 16 + C + T bytes */
    FD_STATE_COUNT_TOO_LARGE,   /* N past the family's max_byte_count */
    FD_STATE_CHAIN_NOT_INITIAL, /* N < block length, chain != the IV */
};

/* The blob's length for a state of this algorithm that has hashed byte_count
 * bytes. */
size_t fd_state_len(enum fd_algorithm_id id, uint64_t byte_count);

/* Writes the blob of a state of algorithm id (as the core's update left it:
 * not finalized) into out and returns its length. Only the buffered tail of
 * the state's block buffer is written: bytes beyond it, left over from
 * earlier blocks, never leave the state. Cannot fail. */
size_t fd_state_export(enum fd_algorithm_id id, const fd_hash_state *state,
                       uint8_t out[FD_STATE_MAX_LEN]);

/* Validates blob (len bytes, any alignment, may be NULL when len is 0) and,
 * when it is a valid state, writes its algorithm to *id and the state to
 * *state, with the block buffer's bytes beyond the tail zeroed, and returns
 * FD_STATE_OK: the core hashes on from such a state exactly as from the
 * state that was exported. Otherwise returns the first problem found, leaves
 * *id and *state unspecified, and writes a sentence saying what is wrong to
 * reason (NUL-terminated, at most reason_len bytes; reason may be NULL when
 * reason_len is 0). */
enum fd_state_error fd_state_import(const uint8_t *blob, size_t len, enum fd_algorithm_id *id,
                                    fd_hash_state *state, char *reason, size_t reason_len);

#endif /* FD_STATE_FORMAT_H */
