/* The batch driver (batch.c) on several threads: a batch cut into pieces
 * that threads take in turn (fd_hash_many_parallel), and a batch whose
 * caller produces it chunk by chunk while other threads hash the chunks
 * already produced (fd_hash_many_pipelined, digest_many's pipeline).
 * hash/batch.h holds the contracts. Plain C: no Python.h. */
#include "hash/batch.h"

#include <assert.h>
#include <stdint.h>
#include <stdlib.h>

#include "platform/atomic.h"
#include "platform/parallel.h"

/* ---- pieces -------------------------------------------------------------- */

/* Pieces per thread: enough that the threads end close together (a thread
 * that finds no piece left waits at most one piece for the others), few
 * enough that each piece is long next to the idle lanes that end every call
 * of the driver (drain_lanes).
 *
 * A piece is run by the driver on one thread, so its messages are what
 * that thread's lanes hold: a piece of fewer messages than the kernel has
 * lanes leaves lanes idle however long its messages are. Pieces cut by
 * work alone made a long message a piece of its own, hashed on the
 * single-stream kernel: sixteen messages of 8 MiB on two threads ran as two
 * streams, a quarter of what one thread's sixteen lanes did with all of
 * them. So a piece holds whole groups of lanes (cut_pieces), and a batch
 * goes on no more threads than it has groups (fd_hash_many_parallel).
 *
 * That leaves threads idle where a batch has fewer groups than threads:
 * sixteen long messages are one group of sixteen lanes, on one thread.
 * A kernel's narrower kernel (dispatch.h: fewer lanes, installed where it
 * hashes a group in clearly less time than the wider one) then runs the
 * batch instead, where its groups are more: sixteen messages as two groups
 * of eight on two threads end sooner than sixteen in one thread's lanes.
 * A narrower kernel that hashes a group in well over half the wider one's
 * time (MD5's eight lanes) runs only where its groups are still no more
 * than the threads, so that each thread has a group of its own; one that
 * hashes a message in less than twice the wider one's time (SHA-1's two
 * SHA-NI streams: narrower_shares_threads) runs several groups a thread
 * where the wider kernel leaves half the threads idle or more. With as
 * many groups of the wider kernel as threads, or more, the wider kernel
 * keeps them: every thread then has lanes to fill. */
#define PIECES_PER_THREAD 32

/* A bound on the pieces, and so on the threads, of one call: far more than
 * any machine has CPUs, and small enough for any counter type. */
#define MAX_PIECES ((size_t)1 << 20)

/* The threads take pieces from a counter (platform/atomic.h). Only its own
 * value is shared: the messages are written before the threads start and
 * the digests read after they are joined, which fd_parallel_run orders.
 * Under MSVC the count is a long: it stops at most one number a thread past
 * the last piece, and there are at most MAX_PIECES pieces and threads. */
_Static_assert(2 * MAX_PIECES <= 0x7fffffff,
               "the piece counter, at most a number a piece and a thread, fits any long");

/* What the threads of one fd_hash_many_parallel share: fd_parallel_run's
 * context for hash_pieces. Piece p is messages [starts[p], starts[p + 1]). */
typedef struct parallel_batch {
    const fd_batch_job *job;
    const fd_message *messages;
    const size_t *starts;
    size_t piece_count;
    fd_counter next_piece;
} parallel_batch;

static bool hash_pieces(void *context, size_t part)
{
    parallel_batch *shared = context;

    (void)part;
    for (;;) {
        const size_t piece = fd_counter_take(&shared->next_piece);
        if (piece >= shared->piece_count)
            return true;
        const size_t first = shared->starts[piece];
        fd_batch_run(shared->job, shared->messages + first, shared->starts[piece + 1] - first);
    }
}

/* A message's work: its length plus the job's overhead (batch.h).
 * Saturating, so that no batch, however many times it names one huge
 * buffer, wraps around. */
static uint64_t add_work(uint64_t work, size_t len, size_t overhead)
{
    const uint64_t more = (uint64_t)len + overhead;
    return work > UINT64_MAX - more ? UINT64_MAX : work + more;
}

/* Cuts the messages into at most max_pieces pieces of about work /
 * max_pieces each, every piece but the last a multiple of `group` messages
 * (a piece with more work than that leaves fewer pieces), writing the
 * piece starts and the end to starts (max_pieces + 1 entries). Returns the
 * number of pieces. */
static size_t cut_pieces(const fd_message *messages, size_t count, size_t overhead, uint64_t work,
                         size_t max_pieces, size_t group, size_t *starts)
{
    const uint64_t piece_work = work / max_pieces;
    uint64_t done = 0, piece_end = piece_work;
    size_t pieces = 0;

    assert(group >= 1);
    starts[0] = 0;
    for (size_t i = 0; i + 1 < count && pieces + 1 < max_pieces; i++) {
        const size_t piece_len = i + 1 - starts[pieces];
        done = add_work(done, messages[i].len, overhead);
        if (done >= piece_end && piece_len % group == 0) {
            starts[++pieces] = i + 1;
            piece_end = done > UINT64_MAX - piece_work ? UINT64_MAX : done + piece_work;
        }
    }
    starts[++pieces] = count;
    assert(pieces >= 1 && pieces <= max_pieces);
    return pieces;
}

void fd_hash_many_parallel(const fd_batch_job *job, const fd_message *messages, size_t count,
                           size_t threads)
{
    const size_t overhead = fd_batch_message_overhead(job);
    uint64_t work = 0;
    size_t parts = threads < count ? threads : count;
    if (parts > MAX_PIECES / PIECES_PER_THREAD)
        parts = MAX_PIECES / PIECES_PER_THREAD;

    if (parts > 1) {
        for (size_t i = 0; i < count; i++)
            work = add_work(work, messages[i].len, overhead);
        if (work / FD_BATCH_MIN_WORK_PER_THREAD < parts)
            parts = (size_t)(work / FD_BATCH_MIN_WORK_PER_THREAD);
    }
    /* Fewer groups than threads, or too few messages for the lanes: the
     * narrower kernel where it pays (see PIECES_PER_THREAD). */
    fd_batch_job narrowed;
    if (fd_batch_kernel_for_threads(job->multi, count, work, parts) != job->multi) {
        narrowed = *job;
        narrowed.multi = job->multi->narrower;
        job = &narrowed;
    }
    /* Whole groups of lanes a piece, and no more threads than groups: a
     * group that would fill one thread's lanes, split between two, takes
     * each of them the round it takes one, so a thread is worth a group of
     * its own. Messages too few for the lanes to pay (fd_batch_lanes_pay)
     * run one at a time, and threads then share them message by message.
     * parts is at most MAX_PIECES / PIECES_PER_THREAD, so the product does
     * not overflow. */
    const size_t lanes = job->multi != NULL ? job->multi->lanes : 1;
    size_t groups = fd_batch_groups(count, lanes), group = lanes;
    if (count < lanes && !fd_batch_lanes_pay(job->multi, count)) {
        groups = count;
        group = 1;
    }
    if (parts > groups)
        parts = groups;
    if (parts <= 1) {
        fd_batch_run(job, messages, count);
        return;
    }
    const size_t max_pieces = groups < parts * PIECES_PER_THREAD ? groups
                                                                 : parts * PIECES_PER_THREAD;
    size_t *starts = malloc((max_pieces + 1) * sizeof *starts);
    if (starts == NULL) {
        /* No memory for the pieces: the calling thread does it all. */
        fd_batch_run(job, messages, count);
        return;
    }

    parallel_batch shared = {
        .job = job,
        .messages = messages,
        .starts = starts,
    };
    if (groups == parts) {
        /* A group a piece, so that each thread takes one: pieces cut by
         * work would join a group of short messages to the next. */
        for (size_t piece = 0; piece < groups; piece++)
            starts[piece] = piece * group;
        starts[groups] = count;
        shared.piece_count = groups;
    }
    else {
        shared.piece_count = cut_pieces(messages, count, overhead, work, max_pieces, group, starts);
    }
    fd_counter_init(&shared.next_piece);
    /* Long messages may leave fewer pieces than threads. */
    (void)fd_parallel_run(parts < shared.piece_count ? parts : shared.piece_count, hash_pieces,
                          &shared);
    free(starts);
}

/* ---- a pipeline ---------------------------------------------------------- */

/* The conditions of a pipeline's monitor: a chunk was produced (or the
 * producing ended), which idle hashing threads wait for; a chunk was
 * hashed, which the producing thread waits for. */
enum { CHUNK_PRODUCED = 0, CHUNK_HASHED = 1 };

/* What the threads of one fd_hash_many_pipelined share: fd_parallel_run's
 * context for pipeline_part. Chunk c is in slot c % slots. */
typedef struct pipeline {
    const fd_batch_job *job;
    size_t chunk_count;
    size_t slots;
    fd_chunk_producer *produce;
    void *context;
    fd_parallel_monitor *monitor;
    /* The rest under the monitor's lock. */
    size_t produced; /* chunks [0, produced) are ready */
    size_t taken;    /* chunks [0, taken) are taken by a thread */
    bool producing;  /* more chunks may come */
    bool *slot_free; /* the slot's chunk is hashed, or it never had one */
    const fd_message **slot_messages;
    size_t *slot_counts;
} pipeline;

/* With the lock held and a chunk produced but not taken: takes the next,
 * hashes it without the lock and marks it hashed. */
static void hash_next_chunk(pipeline *p)
{
    const size_t slot = p->taken++ % p->slots;
    const fd_message *messages = p->slot_messages[slot];
    const size_t count = p->slot_counts[slot];

    fd_parallel_unlock(p->monitor);
    fd_batch_run(p->job, messages, count);
    fd_parallel_lock(p->monitor);
    p->slot_free[slot] = true;
    fd_parallel_wake_one(p->monitor, CHUNK_HASHED); /* only the producer waits for it */
}

/* The calling thread's part: produces every chunk, hashing chunks itself
 * while it waits for a free slot, then hashes what no thread has taken. */
static bool produce_chunks(pipeline *p)
{
    bool complete = true;

    fd_parallel_lock(p->monitor);
    for (size_t chunk = 0; chunk < p->chunk_count; chunk++) {
        const size_t slot = chunk % p->slots;
        while (!p->slot_free[slot]) {
            if (p->taken < p->produced)
                hash_next_chunk(p);
            else
                fd_parallel_wait(p->monitor, CHUNK_HASHED);
        }
        fd_parallel_unlock(p->monitor);
        const fd_message *messages = NULL;
        size_t count = 0;
        complete = p->produce(p->context, chunk, slot, &messages, &count);
        fd_parallel_lock(p->monitor);
        if (!complete)
            break;
        p->slot_messages[slot] = messages;
        p->slot_counts[slot] = count;
        p->slot_free[slot] = false;
        p->produced++;
        fd_parallel_wake_one(p->monitor, CHUNK_PRODUCED);
    }
    p->producing = false;
    fd_parallel_wake_all(p->monitor, CHUNK_PRODUCED);
    /* The chunks other threads are hashing are theirs to finish:
     * fd_parallel_run joins them. */
    while (p->taken < p->produced)
        hash_next_chunk(p);
    fd_parallel_unlock(p->monitor);
    return complete;
}

/* Part 0 produces; the others hash chunks until none is left and none
 * will come. A part that runs on the calling thread after part 0 (its
 * thread could not be made) finds nothing left. */
static bool pipeline_part(void *context, size_t part)
{
    pipeline *p = context;

    if (part == 0)
        return produce_chunks(p);
    fd_parallel_lock(p->monitor);
    for (;;) {
        if (p->taken < p->produced)
            hash_next_chunk(p);
        else if (p->producing)
            fd_parallel_wait(p->monitor, CHUNK_PRODUCED);
        else
            break;
    }
    fd_parallel_unlock(p->monitor);
    return true;
}

bool fd_hash_many_pipelined(const fd_batch_job *job, size_t chunk_count, size_t slots,
                            size_t threads, fd_chunk_producer *produce, void *context)
{
    pipeline p = {
        .job = job,
        .chunk_count = chunk_count,
        .slots = slots,
        .produce = produce,
        .context = context,
        .producing = true,
    };
    bool complete = true;

    assert(slots >= 1 && produce != NULL);

    if (threads > chunk_count)
        threads = chunk_count;
    if (threads > 1) {
        p.monitor = fd_parallel_monitor_new();
        p.slot_free = malloc(slots * sizeof *p.slot_free);
        p.slot_messages = malloc(slots * sizeof *p.slot_messages);
        p.slot_counts = malloc(slots * sizeof *p.slot_counts);
    }
    if (p.monitor != NULL && p.slot_free != NULL && p.slot_messages != NULL &&
        p.slot_counts != NULL) {
        for (size_t slot = 0; slot < slots; slot++)
            p.slot_free[slot] = true;
        complete = fd_parallel_run(threads, pipeline_part, &p);
    }
    else {
        /* One thread, or no memory for the threads' state: produced and
         * hashed one chunk after the other. */
        for (size_t chunk = 0; complete && chunk < chunk_count; chunk++) {
            const fd_message *messages = NULL;
            size_t count = 0;
            complete = produce(context, chunk, chunk % slots, &messages, &count);
            if (complete)
                fd_batch_run(job, messages, count);
        }
    }
    if (p.monitor != NULL)
        fd_parallel_monitor_free(p.monitor);
    free(p.slot_free);
    free(p.slot_messages);
    free(p.slot_counts);
    return complete;
}
