/* What the threads of one fd_hash_files call share (files/run.c), and the
 * questions each of them asks of it between files and reads: the next file
 * to take, whether the file it reads is still wanted (no earlier file
 * failed, no stop), the first failure in order; and the calling thread's
 * own question, keep_going (files.h), which it alone asks, at most every
 * keep_going_ms, also while it waits for another thread. A stop it learns
 * is seen by every thread at its next read.
 *
 * And a file being hashed (fd_file_hashing): the thread's states of the
 * call's algorithms, which every read is fed to, in the order of the
 * reads. Plain C: no Python.h. */
#ifndef FD_CORE_FILES_RUN_H
#define FD_CORE_FILES_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dispatch/dispatch.h"
#include "files/request.h"
#include "hash/algorithms.h"
#include "platform/parallel.h"

/* How a run's files go through lanes (file_lanes.h): the multi-buffer
 * kernel, NULL for none, the files each thread holds at once, each one's
 * stripe, and the parts they run on. */
typedef struct fd_files_lane_plan {
    const fd_multi_kernel *multi;
    unsigned lanes;
    size_t stripe_len;
    size_t parts;
} fd_files_lane_plan;

typedef struct fd_files_run {
    const fd_files_request *request;
    size_t digests_len;
    size_t chunk_len;
    fd_hash_state *states; /* algorithm_count per part */
    uint8_t *buffers;      /* chunk_len per part */
    fd_parallel_monitor *monitor;
    /* The lanes (file_lanes.h), and the same on multi's narrower kernel
     * while the calling thread has yet to choose between the two, on more
     * parts: narrower.multi NULL when there is no choice, or once it is
     * made. */
    fd_files_lane_plan plan;
    fd_files_lane_plan narrower;
    /* The threads of parts 1 and on, each running part_task (files.c):
     * room for every part the run may start, and how many it started. */
    fd_parallel_task *part_task;
    fd_parallel_thread **threads;
    size_t started;
    /* Under the monitor's lock: */
    size_t next;   /* the first file not yet taken */
    size_t failed; /* the first file in order that failed so far, or count */
    unsigned long error;
    bool stopped;         /* keep_going said to stop; set by the calling thread alone */
    size_t idle_threads;  /* of the request's threads, those no part or pair runs on */
    size_t running_parts; /* the parts on threads of their own that have not returned */
    size_t relayed;       /* files hashed by two threads in relay */
    size_t split;         /* files whose algorithms two threads split */
    size_t laned;         /* files hashed in lanes */
    size_t lane_threads;  /* threads that hashed a file in lanes */
    /* The calling thread's alone: when it last asked keep_going. */
    uint64_t last_asked_ms;
} fd_files_run;

/* Starts parts 1 to parts - 1 on threads of their own, each counted in
 * running_parts while it runs; a thread that cannot be made leaves its
 * part's files to the others, which take files as they go. Called by the
 * calling thread alone, once. */
void fd_files_start_parts(fd_files_run *run, size_t parts);

/* The next file for a thread, if there is one still worth reading: files
 * after one that failed are not. When there is none, the thread's part
 * ends, and the thread counts as idle: a big file may take it. */
bool fd_files_take_file(fd_files_run *run, size_t *index);

/* Whether file index, being read, is still worth finishing. */
bool fd_files_still_wanted(fd_files_run *run, size_t index);

/* Records that file index could not be read, with the system's error
 * code, if no earlier file failed. */
void fd_files_record_failure(fd_files_run *run, size_t index, unsigned long error);

/* For the calling thread (part 0), which alone may ask keep_going: asks
 * when keep_going_ms have passed since it last asked, or at once when
 * forced (a signal interrupted a system call); never again once it said
 * stop. Any other part goes on. Returns false once the run is to stop, for
 * every thread. */
bool fd_files_calling_thread_goes_on(fd_files_run *run, size_t part, bool forced);

/* For a thread that waits, with the monitor's lock held, for a condition
 * another thread signals: sleeps until it is signalled (or spuriously:
 * callers wait in a loop). The calling thread (answers) sleeps at most
 * keep_going_ms at a time and asks keep_going after it, without the lock,
 * so that it answers Ctrl-C while another thread reads or hashes. Returns
 * false once the run is to stop. */
bool fd_files_wait_answering(fd_files_run *run, fd_parallel_monitor *monitor, unsigned condition,
                             bool answers);

/* What became of a file: hashed to its end, failed (the system's error
 * code says why), or abandoned (an earlier file failed, or the run
 * stopped). */
typedef enum fd_file_result {
    FD_FILE_HASHED,
    FD_FILE_FAILED,
    FD_FILE_ABANDONED,
} fd_file_result;

/* A file being hashed by the thread of a part: its index, and the part's
 * states of the call's algorithms. */
typedef struct fd_file_hashing {
    fd_files_run *run;
    size_t part;
    size_t index;
    fd_hash_state *states;
} fd_file_hashing;

/* Feeds data to the algorithms whose share is runner's (every one when
 * shares is NULL): shares[k] says which of two threads feeds algorithm k. */
void fd_files_feed(const fd_file_hashing *h, const uint8_t *shares, size_t runner,
                   const uint8_t *data, size_t len);

/* After a read that did not end the file: whether to go on with it (still
 * wanted, and keep_going did not say stop if this is the calling thread). */
bool fd_files_between_reads(const fd_file_hashing *h);

#endif /* FD_CORE_FILES_RUN_H */
