/* The lane-feeding core of parts.c and file_lanes.c (lanes.h). */
#include "files/lanes.h"

#include <assert.h>
#include <string.h>

#include "hash/batch.h"
#include "hash/family.h"

/* The least stripe, so that sixteen lanes do not read in slivers. */
#define MIN_STRIPE_LEN ((size_t)1 << 16)

size_t fd_lanes_stripe_len(unsigned lanes, size_t block_len, size_t max_len)
{
    size_t len = FD_LANES_ROUND_LEN / lanes > MIN_STRIPE_LEN ? FD_LANES_ROUND_LEN / lanes
                                                             : MIN_STRIPE_LEN;
    if (len > max_len)
        len = max_len;
    len -= len % block_len;
    return len != 0 ? len : block_len;
}

void fd_lanes_compress(enum fd_family family, const fd_multi_kernel *multi, fd_lane_chains *chains,
                       unsigned lanes, const bool *busy, unsigned busy_count,
                       const uint8_t *const *runs, size_t nblocks)
{
    assert(busy_count != 0 && nblocks != 0);
    if (multi != NULL && fd_batch_lanes_pay(multi, busy_count)) {
        unsigned first_busy = 0;
        while (!busy[first_busy])
            first_busy++;
        const uint8_t *all_runs[FD_BATCH_MAX_LANES];
        for (unsigned i = 0; i < multi->lanes; i++)
            all_runs[i] = i < lanes && busy[i] ? runs[i] : runs[first_busy];
        fd_call_blocks_multi(family, multi, chains, all_runs, nblocks);
        return;
    }
    const fd_kernel *single = &fd_active_kernels[family];
    for (unsigned i = 0; i < lanes; i++) {
        if (busy[i])
            fd_call_blocks(family, single, fd_lane_chain(family, chains, i), runs[i], nblocks);
    }
}

void fd_lanes_finish(const fd_algorithm *algorithm, const fd_hash_state *initial,
                     fd_lane_chains *chains, unsigned lane, uint64_t hashed, const uint8_t *tail,
                     size_t len, uint8_t *digest)
{
    const enum fd_family family = algorithm->family;
    fd_hash_state state;

    memcpy(&state, initial, algorithm->state_len);
    fd_copy_chain(family, fd_state_chain(family, &state), fd_lane_chain(family, chains, lane));
    *fd_state_byte_count(family, &state) = hashed;
    algorithm->update(&state, tail, len);
    algorithm->final(&state, digest);
}
