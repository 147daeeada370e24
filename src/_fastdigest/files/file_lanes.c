/* The files of a call in the lanes of a multi-buffer kernel
 * (file_lanes.h). */
#include "files/file_lanes.h"

#include <assert.h>
#include <stdlib.h>

#include "files/lanes.h"
#include "files/reader.h"
#include "files/system.h"
#include "hash/batch.h"
#include "hash/family.h"

/* A file in a lane: its index, the open file, and how many of its bytes
 * (whole blocks) are in the lane's chain. */
typedef struct lane_file {
    fd_open_file file;
    size_t index;
    uint64_t hashed;
    bool busy;
} lane_file;

/* One thread's lanes. */
typedef struct lane_set {
    fd_files_run *run;
    size_t part;
    const fd_algorithm *algorithm;
    enum fd_family family;
    size_t block_len;
    fd_hash_state initial;
    const fd_multi_kernel *multi; /* the run's, once part 0 has chosen */
    unsigned width;               /* the lanes it fills: the run's, once chosen */
    size_t stripe_len;
    uint64_t taken_len; /* bytes of the files it took while it chooses */
    unsigned busy;      /* lanes with a file */
    bool files_left;    /* fd_files_take_file has not said none is left */
    bool stopped;       /* keep_going said to stop */
    size_t laned;       /* files hashed in lanes */
    uint8_t *stripes;   /* room for the lanes of either choice */
    fd_lane_chains chains;
    lane_file lanes[FD_BATCH_MAX_LANES];
} lane_set;

/* The lanes of multi for count files of algorithm on up to *parts
 * threads: no more threads than groups of lanes (file_lanes.h), and as
 * many lanes as the files give each, so that one thread does not take
 * every file into its lanes while another has none. False when they do
 * not pay. */
static bool plan_kernel(const fd_multi_kernel *multi, const fd_algorithm *algorithm, size_t count,
                        size_t chunk_len, size_t threads, fd_files_lane_plan *plan)
{
    const size_t groups = fd_batch_groups(count, multi->lanes);
    const size_t parts = groups < threads ? groups : threads;
    const size_t files_per_part = (count + parts - 1) / parts;
    const size_t laned = files_per_part < multi->lanes ? files_per_part : multi->lanes;
    if (!fd_batch_lanes_pay(multi, laned))
        return false;
    *plan = (fd_files_lane_plan){
        .multi = multi,
        .lanes = (unsigned)laned,
        .stripe_len = fd_lanes_stripe_len((unsigned)laned, algorithm->block_len, chunk_len),
        .parts = parts,
    };
    return true;
}

void fd_files_plan_lanes(fd_files_run *run, size_t *parts)
{
    const fd_files_request *request = run->request;
    run->plan = (fd_files_lane_plan){.lanes = 1, .stripe_len = run->chunk_len};
    run->narrower.multi = NULL;
    if (request->without_lanes || request->algorithm_count != 1 || request->git_type != NULL)
        return;
    const fd_algorithm *algorithm = &fd_algorithms[request->algorithms[0]];
    const fd_multi_kernel *multi = fd_batch_multi_kernel(algorithm->family);
    if (multi == NULL ||
        !plan_kernel(multi, algorithm, request->count, run->chunk_len, *parts, &run->plan))
        return;
    /* The narrower kernel, where the files leave a thread without a group
     * of multi's lanes and make no more groups of its own than threads:
     * part 0 chooses between the two once it knows its files' sizes. */
    const fd_multi_kernel *narrower = multi->narrower;
    if (narrower != NULL &&
        fd_batch_narrower_gives_each_thread_a_group(multi, request->count, *parts))
        plan_kernel(narrower, algorithm, request->count, run->chunk_len, *parts, &run->narrower);
    *parts = run->plan.parts;
}

static void drop(lane_set *set, unsigned i)
{
    fd_file_close(&set->lanes[i].file);
    set->lanes[i].busy = false;
    set->busy--;
}

static void stop(lane_set *set)
{
    set->stopped = true;
    for (unsigned i = 0; i < set->width; i++) {
        if (set->lanes[i].busy)
            drop(set, i);
    }
}

/* Reads up to len bytes at the file's position into buffer, as many reads
 * as it takes: len, or fewer when the file ended first. False when a read
 * failed (*error set) or the run stopped on a signal. */
static bool read_up_to(lane_set *set, lane_file *lane, uint8_t *buffer, size_t len, size_t *done,
                       unsigned long *error)
{
    *done = 0;
    while (*done < len) {
        size_t got = 0;
        const fd_io_result read = fd_file_read(&lane->file, buffer + *done, len - *done, &got,
                                               error);
        if (read == FD_IO_END)
            return true;
        if (read == FD_IO_FAILED)
            return false;
        if (read == FD_IO_INTERRUPTED) {
            if (!fd_files_calling_thread_goes_on(set->run, set->part, true)) {
                set->stopped = true;
                return false;
            }
            continue;
        }
        *done += got;
    }
    return true;
}

/* The file in lane i ends here: its chain, then len bytes of tail through
 * the stream layer; its digest written, its lane freed. */
static void finish(lane_set *set, unsigned i, const uint8_t *tail, size_t len)
{
    lane_file *lane = &set->lanes[i];
    fd_files_run *run = set->run;
    fd_lanes_finish(set->algorithm, &set->initial, &set->chains, i, lane->hashed, tail, len,
                    run->request->digests + lane->index * run->digests_len);
    set->laned++;
    drop(set, i);
}

/* A read of lane i's file failed, or the run stopped during it. */
static void fail(lane_set *set, unsigned i, unsigned long error)
{
    if (set->stopped) {
        stop(set);
        return;
    }
    fd_files_record_failure(set->run, set->lanes[i].index, error);
    drop(set, i);
}

/* Takes the next file into free lane i, or hashes it by itself when it
 * cannot go in a lane; an open that fails is recorded. */
static void take(lane_set *set, unsigned i)
{
    fd_files_run *run = set->run;
    size_t index;
    if (!fd_files_take_file(run, &index)) {
        set->files_left = false;
        return;
    }
    lane_file *lane = &set->lanes[i];
    unsigned long error = 0;
    fd_io_result opened;
    while ((opened = fd_file_open(run->request->paths[index], run->chunk_len, &lane->file,
                                  &error)) == FD_IO_INTERRUPTED) {
        if (!fd_files_calling_thread_goes_on(run, set->part, true)) {
            stop(set);
            return;
        }
    }
    if (opened == FD_IO_FAILED) {
        fd_files_record_failure(run, index, error);
        return;
    }
    /* Asked between every two files, as a thread without lanes asks. */
    if (!fd_files_calling_thread_goes_on(run, set->part, false)) {
        fd_file_close(&lane->file);
        stop(set);
        return;
    }
    if (!lane->file.regular || lane->file.size == 0) {
        if (fd_files_hash_open_file(run, set->part, index, &lane->file, &error) == FD_FILE_FAILED)
            fd_files_record_failure(run, index, error);
        return;
    }
    set->taken_len += lane->file.size;
    lane->index = index;
    lane->hashed = 0;
    lane->busy = true;
    set->busy++;
    fd_copy_chain(set->family, fd_lane_chain(set->family, &set->chains, i),
                  fd_state_const_chain(set->family, &set->initial));
}

/* Lane i, until it holds a file with a block or more left to the size its
 * open found, or no file is left: free, it takes the next file; holding a
 * file less than a block from that size, it reads those last bytes and
 * finishes it. */
static void fill(lane_set *set, unsigned i)
{
    uint8_t *stripe = set->stripes + (size_t)i * set->stripe_len;
    while (!set->stopped) {
        lane_file *lane = &set->lanes[i];
        if (!lane->busy) {
            if (!set->files_left)
                return;
            take(set, i);
            continue;
        }
        const uint64_t left = lane->file.size - lane->hashed;
        if (left >= set->block_len)
            return;
        size_t got = 0;
        unsigned long error = 0;
        if (read_up_to(set, lane, stripe, (size_t)left, &got, &error))
            finish(set, i, stripe, got);
        else
            fail(set, i, error);
    }
}

/* One round: every busy lane's next stripe read, all by the same number of
 * blocks (the fewest any lane has whole up to its size), and hashed in one
 * call. A read that comes short ends its file there: what it got is the
 * file's last bytes. */
static void hash_round(lane_set *set)
{
    const size_t block_len = set->block_len;
    size_t nblocks = set->stripe_len / block_len;
    const uint8_t *runs[FD_BATCH_MAX_LANES];
    bool full[FD_BATCH_MAX_LANES];
    unsigned full_count = 0;

    for (unsigned i = 0; i < set->width; i++) {
        const lane_file *lane = &set->lanes[i];
        if (!lane->busy)
            continue;
        const uint64_t whole = (lane->file.size - lane->hashed) / block_len;
        if (whole < nblocks)
            nblocks = (size_t)whole;
    }
    assert(nblocks != 0);
    const size_t len = nblocks * block_len;
    for (unsigned i = 0; i < set->width && !set->stopped; i++) {
        uint8_t *stripe = set->stripes + (size_t)i * set->stripe_len;
        runs[i] = stripe;
        full[i] = false;
        if (!set->lanes[i].busy)
            continue;
        size_t got = 0;
        unsigned long error = 0;
        if (!read_up_to(set, &set->lanes[i], stripe, len, &got, &error))
            fail(set, i, error);
        else if (got < len)
            finish(set, i, stripe, got);
        else {
            full[i] = true;
            full_count++;
        }
    }
    if (set->stopped || full_count == 0)
        return;
    fd_lanes_compress(set->family, set->multi, &set->chains, set->width, full, full_count, runs,
                      nblocks);
    for (unsigned i = 0; i < set->width; i++) {
        if (full[i])
            set->lanes[i].hashed += len;
    }
}

/* Part 0's choice made (file_lanes.h): the narrower kernel's plan the
 * run's, or the threads it would have had left idle; the other parts
 * started unless the run stopped. */
static void settle(fd_files_run *run, bool narrower, bool stopped)
{
    if (narrower) {
        run->plan = run->narrower;
    }
    else {
        fd_parallel_lock(run->monitor);
        run->idle_threads += run->narrower.parts - run->plan.parts;
        fd_parallel_unlock(run->monitor);
    }
    run->narrower.multi = NULL;
    if (!stopped)
        fd_files_start_parts(run, run->plan.parts);
}

/* Part 0 takes files into the narrower kernel's lanes until they hold a
 * narrowed thread's work (hash/batch.h), which the other threads' files
 * are then likely to hold too: the narrower kernel on every part. Short of
 * that when those lanes are full, or no file is left to give another
 * thread, the run's kernel, whose wider lanes one thread fills better. */
static void choose(lane_set *set)
{
    fd_files_run *run = set->run;
    set->width = run->narrower.lanes;
    for (unsigned i = 0;
         i < set->width && !set->stopped && set->taken_len < FD_BATCH_MIN_WORK_PER_NARROWED_THREAD;
         i++)
        fill(set, i);
    settle(run, set->files_left && set->taken_len >= FD_BATCH_MIN_WORK_PER_NARROWED_THREAD,
           set->stopped);
    set->multi = run->plan.multi;
    set->width = run->plan.lanes;
    set->stripe_len = run->plan.stripe_len;
}

bool fd_files_hash_in_lanes(fd_files_run *run, size_t part)
{
    assert(run->plan.multi != NULL && run->plan.lanes <= run->plan.multi->lanes);
    /* Room for the stripes of either choice part 0 may make. */
    size_t stripes_len = (size_t)run->plan.lanes * run->plan.stripe_len;
    if (run->narrower.multi != NULL &&
        (size_t)run->narrower.lanes * run->narrower.stripe_len > stripes_len)
        stripes_len = (size_t)run->narrower.lanes * run->narrower.stripe_len;
    lane_set *set = malloc(sizeof *set);
    uint8_t *stripes = set != NULL ? malloc(stripes_len) : NULL;
    if (stripes == NULL) {
        free(set);
        if (part == 0 && run->narrower.multi != NULL)
            settle(run, false, false);
        return false;
    }
    set->run = run;
    set->part = part;
    set->algorithm = &fd_algorithms[run->request->algorithms[0]];
    set->family = set->algorithm->family;
    set->block_len = set->algorithm->block_len;
    set->algorithm->init(&set->initial);
    set->multi = run->plan.multi;
    set->width = run->plan.lanes;
    set->stripe_len = run->plan.stripe_len;
    set->taken_len = 0;
    set->busy = 0;
    set->files_left = true;
    set->stopped = false;
    set->laned = 0;
    set->stripes = stripes;
    for (unsigned i = 0; i < FD_BATCH_MAX_LANES; i++)
        set->lanes[i].busy = false;
    /* Lanes beyond the files hash into chains nobody reads, given a value
     * all the same. */
    for (unsigned i = 0; i < FD_BATCH_MAX_LANES; i++)
        fd_copy_chain(set->family, fd_lane_chain(set->family, &set->chains, i),
                      fd_state_const_chain(set->family, &set->initial));

    if (part == 0 && run->narrower.multi != NULL)
        choose(set);
    for (;;) {
        for (unsigned i = 0; i < set->width && !set->stopped; i++)
            fill(set, i);
        if (set->stopped || set->busy == 0)
            break;
        /* Between rounds: files after one that failed are given up, and the
         * calling thread asks keep_going. */
        for (unsigned i = 0; i < set->width; i++) {
            if (set->lanes[i].busy && !fd_files_still_wanted(run, set->lanes[i].index))
                drop(set, i);
        }
        if (!fd_files_calling_thread_goes_on(run, part, false)) {
            stop(set);
            break;
        }
        if (set->busy != 0)
            hash_round(set);
    }

    fd_parallel_lock(run->monitor);
    run->laned += set->laned;
    run->lane_threads += set->laned != 0;
    fd_parallel_unlock(run->monitor);
    free(stripes);
    free(set);
    return true;
}
