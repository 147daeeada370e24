/* What the readers that feed independent messages through the lanes of a
 * multi-buffer kernel share (files/lanes.c): the parts of one file
 * (parts.c) and the files of one digest_files call (file_lanes.c). Each
 * holds up to a kernel's lanes of messages, reads a stripe of each per
 * round into a buffer of its own, hashes the stripes' whole blocks in one
 * call, and finishes a message's last bytes through the stream layer from
 * its lane's chain. Plain C: no Python.h. */
#ifndef FD_CORE_FILES_LANES_H
#define FD_CORE_FILES_LANES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dispatch/dispatch.h"
#include "hash/algorithms.h"

/* The bytes a thread reads in one round, over all its lanes: a stripe of
 * each message it holds. Large enough that a read's system call is lost in
 * the copy it makes; the CPU time of an ETag or a SHA-256 composite hardly
 * moved for rounds from a quarter of this to four times it (Zen 4), so it
 * is chosen for memory: a megabyte a thread. */
#define FD_LANES_ROUND_LEN ((size_t)1 << 20)

/* The stripe of each of `lanes` lanes: the round shared out, but no less
 * than a size that keeps sixteen lanes from reading in slivers, no more
 * than max_len (a request's chunk), whole blocks, at least one. */
size_t fd_lanes_stripe_len(unsigned lanes, size_t block_len, size_t max_len);

/* nblocks blocks of runs[i] onto lane i's chain in chains, for each of the
 * `lanes` lanes with busy[i] (busy_count of them, at least one): in one
 * call of `multi` when it pays for that many (fd_batch_lanes_pay), its
 * idle lanes fed a busy lane's run into chains nobody reads until they are
 * set again; else lane by lane with the family's single-stream kernel.
 * multi NULL: the single-stream kernel alone. */
void fd_lanes_compress(enum fd_family family, const fd_multi_kernel *multi, fd_lane_chains *chains,
                       unsigned lanes, const bool *busy, unsigned busy_count,
                       const uint8_t *const *runs, size_t nblocks);

/* The digest of a message whose first `hashed` bytes (whole blocks) are in
 * lane `lane`'s chain and whose last len bytes are tail: the lane's chain
 * taken into a state of the algorithm (initial: the algorithm's initial
 * state), the tail fed through the stream layer, its padding and the
 * digest written to digest. */
void fd_lanes_finish(const fd_algorithm *algorithm, const fd_hash_state *initial,
                     fd_lane_chains *chains, unsigned lane, uint64_t hashed, const uint8_t *tail,
                     size_t len, uint8_t *digest);

#endif /* FD_CORE_FILES_LANES_H */
