/* Two threads on one big file (files/pair.c, relay.c, split.c): the
 * pair's state, the hand-overs between its two threads, and the two ways
 * they go through the file. files/reader.c makes a pair: the file's own
 * thread (runner 0, the thread of the part that took the file) reads and
 * hashes the first chunk alone, timing the read and each algorithm, starts
 * the second thread (runner 1) and goes on with it in whichever way those
 * timings say is faster:
 *
 * - in relay (relay.c): each thread reads every other chunk into its own
 *   buffer while the other hashes the chunk before, then takes the states
 *   and hashes its chunk with every algorithm.
 * - split (split.c): with several algorithms, the file's thread reads each
 *   chunk into a ring of buffers and feeds its share of the algorithms;
 *   the second thread feeds the rest from the same buffer.
 *
 * Either way every chunk is read once, by one thread, at its offset, and
 * every algorithm is fed the bytes of that read, in order, up to the first
 * read that comes short: the digests of one file are all of the same
 * bytes, whatever happens to the file meanwhile. The reads stop at the
 * size the open found.
 *
 * A thread waiting for the other's chunk polls, yielding its CPU, for about
 * as long as the other takes over a chunk, then sleeps; the file's thread,
 * if it is the calling one, answers keep_going while it sleeps (run.h).
 * The pair ends early for a failed read, an earlier file's failure or a
 * stop, and both threads see it at their next chunk. Plain C: no
 * Python.h. */
#ifndef FD_CORE_FILES_PAIR_H
#define FD_CORE_FILES_PAIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "files/run.h"
#include "files/system.h"
#include "platform/atomic.h"
#include "platform/parallel.h"

/* The buffers a split's chunks pass through: the second thread hashes one
 * while the file's thread reads the next into another, and the third lets
 * either run a chunk ahead, so that a thread held up for a moment (by the
 * scheduler) does not hold up the other at once. */
#define FD_SPLIT_BUFFERS 3
_Static_assert(FD_SPLIT_BUFFERS >= 2, "a split's ring holds the chunk read and the chunk hashed");

/* A thread polls for the other's chunk for about as long as the other
 * takes over a chunk, as timed, plus this fraction: waking a thread that
 * slept costs too much to pay at every chunk (a tenth of a chunk's hashing
 * or more, on a virtual machine), while a wait that takes longer than that
 * (the other thread waits for a disk) is worth sleeping through. */
#define FD_POLL_SLACK_DIVISOR 2

/* The pair's count of chunks passed on once it is over: the end in relay,
 * a read that failed, or a stop. */
#define FD_PAIR_OVER SIZE_MAX

/* The conditions of the pair's monitor. */
enum {
    FD_PAIR_PASSED,       /* a count of chunks changed, or the pair is over */
    FD_PAIR_SECOND_ENDED, /* the second thread returned */
};

typedef struct fd_files_pair {
    const fd_file_hashing *h;
    fd_open_file *file;
    size_t chunk_len;
    /* Relay: the file's thread's buffer and the second thread's; split:
     * the ring the chunks pass through, chunk c in c % FD_SPLIT_BUFFERS. */
    uint8_t *buffers[FD_SPLIT_BUFFERS];
    size_t lens[FD_SPLIT_BUFFERS]; /* split: the bytes read into each buffer */
    const uint8_t *shares;         /* split: which thread feeds each algorithm; relay: NULL */
    uint64_t poll_ns[2];           /* how long each thread polls before it sleeps */
    fd_parallel_monitor *monitor;
    /* The chunks passed on, or FD_PAIR_OVER: in relay those hashed, in
     * order, which hands the states to the thread whose turn it is; in a
     * split those read, which hands each chunk to the second thread. Stored
     * under the lock, a release; loaded with or without it. */
    fd_published_size passed;
    /* Split: the chunks the second thread has hashed, which hands their
     * buffers back to the file's thread. As passed. */
    fd_published_size second_hashed;
    /* Under the lock, set with FD_PAIR_OVER: */
    fd_file_result result;
    unsigned long error;
    /* Under the lock: */
    bool second_running;
} fd_files_pair;

static inline bool fd_pair_over(fd_files_pair *p)
{
    return fd_published_size_load(&p->passed) == FD_PAIR_OVER;
}

/* Whether runner is the calling thread, which answers keep_going. */
static inline bool fd_pair_answers(const fd_files_pair *p, size_t runner)
{
    return runner == 0 && p->h->part == 0;
}

/* Ends the pair with its result, unless it is over already, and wakes the
 * other thread. */
void fd_pair_end(fd_files_pair *p, fd_file_result result, unsigned long error);

/* Ends the pair after a read of fd_pair_read's that gave no bytes to hash:
 * failed (FD_IO_FAILED, with the system's error code), or abandoned
 * (FD_IO_INTERRUPTED: keep_going said to stop). */
void fd_pair_end_after_read(fd_files_pair *p, fd_io_result read, unsigned long error);

/* After a full chunk, for either thread: whether to go on with the file;
 * ends the pair (abandoned) when not. Only the file's own thread may answer
 * for the calling thread. */
bool fd_pair_goes_on(fd_files_pair *p, size_t runner);

/* Waits until count (passed, or a split's second_hashed) reaches at_least
 * (true) or the pair is over (false). */
bool fd_pair_wait_for_count(fd_files_pair *p, fd_published_size *count, size_t at_least,
                            size_t runner);

/* Stores a count that the other thread waits for, unless the pair is over
 * (FD_PAIR_OVER stays), and wakes it. */
void fd_pair_pass_on(fd_files_pair *p, fd_published_size *count, size_t value);

/* Reads chunk `chunk` of the file into buffer: chunk_len bytes, or fewer
 * where the file ends (at the size the open found, or earlier where a read
 * finds its end), retrying short reads: FD_IO_OK with *got less than
 * chunk_len means the file ends there. FD_IO_FAILED with the system's
 * *error; FD_IO_INTERRUPTED only when runner answers for the calling
 * thread and keep_going, asked after a signal, says to stop (any other
 * thread retries). */
fd_io_result fd_pair_read(fd_files_pair *p, size_t runner, uint8_t *buffer, size_t chunk,
                          size_t *got, unsigned long *error);

/* The ways (relay.c, split.c): runner's part of the file from the second
 * chunk on. Each returns when the file is hashed or the pair is over. */
void fd_pair_relay(fd_files_pair *p, size_t runner);
void fd_pair_split(fd_files_pair *p, size_t runner);

#endif /* FD_CORE_FILES_PAIR_H */
