/* A file's parts through the lanes of the multi-buffer kernels, on threads
 * (parts.h). */

#include "files/parts.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "files/lanes.h"
#include "hash/batch.h"
#include "hash/family.h"
#include "platform/atomic.h"
#include "platform/parallel.h"

/* ---- the file's stamp ---------------------------------------------------- */

static bool same_stamp(const fd_file_stamp *a, const fd_file_stamp *b)
{
    return a->size == b->size && a->modified_seconds == b->modified_seconds &&
           a->modified_fraction == b->modified_fraction;
}

fd_io_result fd_parts_open(const fd_path_char *path, fd_parts_file *file, unsigned long *error)
{
    const fd_io_result opened = fd_file_open(path, FD_FILES_CHUNK_LEN, &file->file, error);
    if (opened != FD_IO_OK)
        return opened;
    if (!fd_file_stamp_of(&file->file, &file->opened, error)) {
        fd_file_close(&file->file);
        return FD_IO_FAILED;
    }
    return FD_IO_OK;
}

void fd_parts_close(fd_parts_file *file)
{
    fd_file_close(&file->file);
}

/* ---- a call's threads ------------------------------------------------------ */

typedef struct parts_call parts_call;

/* A part in a lane: where its next byte is, where it ends, and how many of
 * its bytes are in the lane's chain. */
typedef struct lane_part {
    size_t part;
    uint64_t next;
    uint64_t end;
    uint64_t hashed;
    bool busy;
} lane_part;

/* One thread's lanes, and what became of its work. */
typedef struct worker {
    parts_call *call;
    size_t thread;
    uint8_t *stripes; /* lanes * stripe_len */
    fd_lane_chains chains;
    lane_part lanes[FD_BATCH_MAX_LANES];
    uint64_t asked_ms; /* the calling thread: when it last asked keep_going */
    fd_parts_status status;
    unsigned long error;
} worker;

struct parts_call {
    const fd_parts_request *request;
    const fd_algorithm *algorithm;
    enum fd_family family;
    size_t block_len;
    size_t threads;
    unsigned lanes;    /* the parts a thread holds at once: 1 without lanes */
    size_t stripe_len; /* whole blocks */
    fd_hash_state initial;
    /* The parts after each thread's first lanes' worth, taken in turn. */
    fd_counter next_part;
    fd_relaxed_size stop; /* nonzero: every thread stops at its next round */
    worker *workers;      /* one per thread, by its part of fd_parallel_run */
};

static void fail(worker *w, fd_parts_status status, unsigned long error)
{
    w->status = status;
    w->error = error;
    fd_relaxed_store(&w->call->stop, 1);
}

/* Reads exactly len bytes at offset, or fails: a read that ends first
 * means the file is shorter than it was at the open. */
static bool read_exactly(worker *w, uint8_t *buffer, size_t len, uint64_t offset)
{
    fd_open_file *file = &w->call->request->file->file;
    size_t done = 0;

    while (done < len) {
        size_t got = 0;
        unsigned long error = 0;
        const fd_io_result result = fd_file_read_at(file, buffer + done, len - done, offset + done,
                                                    &got, &error);
        if (result == FD_IO_INTERRUPTED)
            continue;
        if (result == FD_IO_FAILED) {
            fail(w, FD_PARTS_FAILED, error);
            return false;
        }
        if (result == FD_IO_END) {
            fail(w, FD_PARTS_CHANGED, 0);
            return false;
        }
        done += got;
    }
    return true;
}

/* Gives lane `index` part `part`, or when there is no such part makes it
 * idle and returns false. */
static bool take_part(worker *w, unsigned index, size_t part)
{
    parts_call *call = w->call;
    const fd_parts_request *request = call->request;
    lane_part *lane = &w->lanes[index];

    if (part >= request->part_count) {
        lane->busy = false;
        return false;
    }
    const uint64_t size = request->file->opened.size;
    lane->part = part;
    lane->next = (uint64_t)part * request->part_len;
    lane->end = part + 1 == request->part_count ? size : lane->next + request->part_len;
    lane->hashed = 0;
    lane->busy = true;
    fd_copy_chain(call->family, fd_lane_chain(call->family, &w->chains, index),
                  fd_state_const_chain(call->family, &call->initial));
    return true;
}

/* The end of a lane's part, less than a block: read, padded by the stream
 * layer from the lane's chain, and the digest written. */
static bool finish_part(worker *w, unsigned index)
{
    parts_call *call = w->call;
    lane_part *lane = &w->lanes[index];
    const size_t left = (size_t)(lane->end - lane->next);
    uint8_t tail[FD_MAX_BLOCK_LEN];

    assert(left < call->block_len);
    if (left != 0 && !read_exactly(w, tail, left, lane->next))
        return false;
    fd_lanes_finish(call->algorithm, &call->initial, &w->chains, index, lane->hashed, tail, left,
                    call->request->digests + lane->part * call->algorithm->digest_len);
    lane->busy = false;
    return true;
}

/* The calling thread asks keep_going now and then; any thread stops once a
 * thread failed or was told to stop. */
static bool go_on(worker *w)
{
    const fd_parts_request *request = w->call->request;

    if (fd_relaxed_load(&w->call->stop) != 0)
        return false;
    if (w->thread != 0 || request->keep_going == NULL)
        return true;
    const uint64_t now = fd_monotonic_ms();
    if (now - w->asked_ms < request->keep_going_ms)
        return true;
    w->asked_ms = now;
    if (request->keep_going(request->keep_going_context))
        return true;
    fail(w, FD_PARTS_STOPPED, 0);
    return false;
}

/* One round: every busy lane's next stripe read and hashed, all lanes by
 * the same number of blocks (the fewest any lane has whole), in one call
 * of the multi-buffer kernel when enough lanes are busy for it to pay. */
static bool hash_round(worker *w, unsigned busy)
{
    parts_call *call = w->call;
    const size_t block_len = call->block_len;
    size_t nblocks = call->stripe_len / block_len;
    const uint8_t *runs[FD_BATCH_MAX_LANES];
    bool busy_lanes[FD_BATCH_MAX_LANES];

    for (unsigned i = 0; i < call->lanes; i++) {
        const lane_part *lane = &w->lanes[i];
        busy_lanes[i] = lane->busy;
        if (!lane->busy)
            continue;
        const uint64_t whole = (lane->end - lane->next) / block_len;
        if (whole < nblocks)
            nblocks = (size_t)whole;
    }
    assert(nblocks != 0 && busy != 0);
    const size_t len = nblocks * block_len;
    for (unsigned i = 0; i < call->lanes; i++) {
        runs[i] = w->stripes + (size_t)i * call->stripe_len;
        if (w->lanes[i].busy && !read_exactly(w, (uint8_t *)runs[i], len, w->lanes[i].next))
            return false;
    }
    fd_lanes_compress(call->family, call->request->multi, &w->chains, call->lanes, busy_lanes, busy,
                      runs, nblocks);
    for (unsigned i = 0; i < call->lanes; i++) {
        if (w->lanes[i].busy) {
            w->lanes[i].next += len;
            w->lanes[i].hashed += len;
        }
    }
    return true;
}

/* The part after every thread's first ones not yet taken. */
static size_t next_part(worker *w)
{
    return w->call->threads * w->call->lanes + fd_counter_take(&w->call->next_part);
}

/* One thread's work: parts taken into its lanes until none is left. Each
 * thread starts with parts of its own, so that the calling thread, which
 * answers keep_going, has parts to hash however late it starts. */
static void run_lanes(worker *w)
{
    parts_call *call = w->call;
    unsigned busy = 0;

    for (unsigned i = 0; i < call->lanes; i++)
        busy += take_part(w, i, w->thread * call->lanes + i);
    while (busy != 0 && go_on(w)) {
        /* A part with less than a block left is finished, and its lane
         * takes the next: a part of a block or less (a file's last) is
         * finished at once. */
        for (unsigned i = 0; i < call->lanes; i++) {
            while (w->lanes[i].busy && w->lanes[i].end - w->lanes[i].next < call->block_len) {
                if (!finish_part(w, i))
                    return;
                busy -= 1;
                busy += take_part(w, i, next_part(w));
            }
        }
        if (busy != 0 && !hash_round(w, busy))
            return;
    }
}

static bool run_thread(void *context, size_t thread)
{
    parts_call *call = context;
    run_lanes(&call->workers[thread]);
    return true;
}

/* The lanes each of `threads` threads holds, and their stripes: as many
 * lanes as the parts give each thread, so that one thread does not take
 * every part into its lanes while another has none. */
static void plan(parts_call *call, size_t threads)
{
    const fd_multi_kernel *multi = call->request->multi;
    const size_t parts_per_thread = (call->request->part_count + threads - 1) / threads;
    size_t lanes = multi != NULL ? multi->lanes : 1;

    if (lanes > parts_per_thread)
        lanes = parts_per_thread;
    if (multi != NULL && !fd_batch_lanes_pay(multi, lanes))
        lanes = 1;
    call->threads = threads;
    call->lanes = (unsigned)lanes;
    call->stripe_len = fd_lanes_stripe_len(call->lanes, call->block_len, SIZE_MAX);
}

fd_parts_status fd_hash_parts(const fd_parts_request *request, unsigned long *error)
{
    const fd_algorithm *algorithm = &fd_algorithms[request->algorithm];
    parts_call call;

    assert(request->file->file.regular);
    assert(request->part_count >= 1 && request->part_len > 0);
    assert(request->multi == NULL || request->multi->lanes <= FD_BATCH_MAX_LANES);
    *error = 0;
    call.request = request;
    call.algorithm = algorithm;
    call.family = algorithm->family;
    call.block_len = algorithm->block_len;
    algorithm->init(&call.initial);
    fd_counter_init(&call.next_part);
    fd_relaxed_store(&call.stop, 0);

    /* Every thread's memory before any starts, as each has parts of its
     * own: fewer threads when there is not enough for all. */
    size_t threads = request->threads != 0 ? request->threads : 1;
    if (threads > request->part_count)
        threads = request->part_count;
    uint8_t *stripes = NULL;
    for (;;) {
        plan(&call, threads);
        call.workers = malloc(threads * sizeof *call.workers);
        stripes = malloc(threads * call.lanes * call.stripe_len);
        if (call.workers != NULL && stripes != NULL)
            break;
        free(call.workers);
        free(stripes);
        if (threads == 1)
            return FD_PARTS_NO_MEMORY;
        threads = (threads + 1) / 2;
    }
    for (size_t t = 0; t < threads; t++) {
        worker *w = &call.workers[t];
        /* Lanes beyond the thread's hash into chains nobody reads, given
         * a value all the same. */
        memset(w, 0, sizeof *w);
        w->call = &call;
        w->thread = t;
        w->stripes = stripes + t * call.lanes * call.stripe_len;
        w->asked_ms = fd_monotonic_ms();
        w->status = FD_PARTS_DONE;
    }

    fd_parallel_run(threads, run_thread, &call);

    /* The first failure by thread: the calling thread's (a stop) first. */
    fd_parts_status status = FD_PARTS_DONE;
    for (size_t t = 0; t < threads && status == FD_PARTS_DONE; t++) {
        status = call.workers[t].status;
        *error = call.workers[t].error;
    }
    free(call.workers);
    free(stripes);
    if (status != FD_PARTS_DONE)
        return status;

    fd_file_stamp now;
    if (!fd_file_stamp_of(&request->file->file, &now, error))
        return FD_PARTS_FAILED;
    return same_stamp(&now, &request->file->opened) ? FD_PARTS_DONE : FD_PARTS_CHANGED;
}
