/* What a call of fd_hash_files (files.h) asks and what becomes of it: the
 * paths, the algorithms and where their digests go, the threads, the stop,
 * and the outcome. A header of its own, below files.h, so that the parts of
 * the reader (run.h, system.h) read these types without including the
 * header of the file that drives them. Plain C: no Python.h. */
#ifndef FD_FILES_REQUEST_H
#define FD_FILES_REQUEST_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hash/algorithms.h"

#ifdef _WIN32
typedef wchar_t fd_path_char; /* <stddef.h>'s */
#else
typedef char fd_path_char;
#endif

/* The bytes each thread reads at a time into its buffer unless the request
 * says otherwise: hashlib.file_digest's buffer, a few system calls per
 * megabyte, and small enough to stay in a core's L2 cache between the read
 * that fills it and the hashing that reads it. */
#define FD_FILES_CHUNK_LEN ((size_t)1 << 18)

/* Called by the calling thread alone to ask whether to go on: at most every
 * keep_going_ms milliseconds between files and reads, and as often while
 * it waits for the other threads (its own files done, or the other thread
 * of a big file behind), and at once after a signal interrupted an open or
 * a read (EINTR: the read of a FIFO, say). Returning false stops every
 * thread at its next read, and fd_hash_files returns FD_FILES_STOPPED (the
 * caller knows why: an exception it keeps); it is not asked again. */
typedef bool fd_files_keep_going(void *context);

/* How often a binding asks whether a signal came (keep_going): Ctrl-C
 * stops a long call this soon, and asking, which may wait for the
 * interpreter's lock while another thread holds it, costs at most a few
 * percent of the time. */
#define FD_FILES_KEEP_GOING_MS 100

/* How two threads go through a big file (files/pair.h): in relay, or with
 * the algorithms split between them, as the first chunk's timings say
 * unless a test forces one. A split needs several algorithms. */
typedef enum fd_files_pairing {
    FD_FILES_PAIR_CHOSEN,
    FD_FILES_PAIR_RELAY,
    FD_FILES_PAIR_SPLIT,
} fd_files_pairing;

typedef struct fd_files_request {
    const fd_path_char *const *paths; /* count NUL-terminated paths */
    size_t count;
    const enum fd_algorithm_id *algorithms; /* algorithm_count, at least one */
    size_t algorithm_count;
    /* count * digests_len bytes: file i's digests at i * digests_len, one
     * after another in the order of algorithms, digests_len being the sum
     * of their digest lengths. Written only for files read to their end. */
    uint8_t *digests;
    size_t threads;                  /* at most this many, the calling one included; 0 as 1 */
    size_t chunk_len;                /* 0: FD_FILES_CHUNK_LEN */
    fd_files_keep_going *keep_going; /* NULL: never asked */
    void *keep_going_context;
    unsigned keep_going_ms; /* 0: between every two files and reads, every 1 ms while waiting */
    fd_files_pairing pairing;
    /* NULL, or a git object type ("blob"): each file is then hashed as git
     * hashes it as an object of that type, the header "TYPE SIZE\0" (SIZE in
     * decimal, the size the open found) fed before its content, which must
     * be exactly that size to its end (reader.c says how that end is
     * found). A file whose size changed meanwhile fails with
     * FD_FILES_ERROR_SIZE_CHANGED, one whose size the system does not tell
     * (a FIFO, a device) with FD_FILES_ERROR_NOT_REGULAR, since the header
     * comes before any byte read. Such files are read by one thread each. */
    const char *git_type;
    /* true: every file through the single-stream kernel, as when the
     * request cannot have lanes (files/file_lanes.h says when it can); for
     * tests and benchmarks, which compare the two. */
    bool without_lanes;
} fd_files_request;

/* The failures the reader finds itself, as fd_files_outcome.error: values
 * no errno and no Windows error code takes. */
#define FD_FILES_ERROR_SIZE_CHANGED ULONG_MAX
#define FD_FILES_ERROR_NOT_REGULAR (ULONG_MAX - 1)

/* The longest git_type the reader takes (git's own are at most "commit"). */
#define FD_FILES_GIT_TYPE_MAX 16

typedef enum fd_files_status {
    FD_FILES_DONE,      /* every file hashed, or one failed: see fd_files_outcome */
    FD_FILES_NO_MEMORY, /* no file touched */
    FD_FILES_STOPPED,   /* keep_going said to stop */
} fd_files_status;

/* What became of the files of a request that went through them. */
typedef struct fd_files_outcome {
    /* The first file in order that could not be read, or count when every
     * file was: every file before it has its digests. */
    size_t failed;
    /* The system's error code for that file (errno on POSIX, GetLastError()
     * on Windows) of what failed: the open, the read, or on POSIX EISDIR
     * for a directory, which opens but cannot be read; or one of the
     * FD_FILES_ERROR_ codes above. 0 when none failed. */
    unsigned long error;
    /* How many big files two threads hashed, in relay or with the
     * algorithms split between them (files/pair.h): for tests. */
    size_t relayed;
    size_t split;
    /* How many files went through the lanes of a multi-buffer kernel
     * (files/file_lanes.h), and on how many threads: for tests. */
    size_t laned;
    size_t lane_threads;
} fd_files_outcome;

#endif /* FD_FILES_REQUEST_H */
