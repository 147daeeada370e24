/* Many files read and hashed in one call (digest_files): each file opened,
 * read to its end and hashed with one or several algorithms, on several
 * threads at once, none of which needs the interpreter.
 *
 * Each thread takes the next file not yet taken, reads it whole in chunks
 * into a buffer of its own and feeds every chunk to each algorithm before
 * the next read, so that the reads of one thread (the kernel copying from
 * the page cache) run beside the hashing of the others, and a file is read
 * once whatever the number of algorithms. A big file taken while one of the
 * request's threads has nothing left to do is hashed by both: in relay,
 * each reading the chunk after the one the other hashes, so that the copy
 * out of the page cache overlaps with the hashing, or with its algorithms
 * split between them, fed from one read. Either way each byte is read once
 * and every algorithm fed the bytes of that read, in order, to the first
 * read that comes short and, for a regular file, no further than the size
 * the open found: the digests of one file are of the same bytes even when
 * it changes meanwhile (a prefix of it when it is cut short). The files
 * are taken in order, so a failure stops the threads from starting files
 * after it, and every file before it is still read: the caller learns the
 * first file in order that failed, whichever thread failed first.
 *
 * POSIX open/fstat/read, or Windows' CreateFileW/ReadFile, behind the same
 * interface; a path is a C string of the file system's bytes on POSIX, a
 * UTF-16 string on Windows. Plain C: no Python.h.
 *
 * The reader's files, each calling only those below it: files.c, the
 * parts of a call and their threads; reader.h, one file; pair.h, a big file
 * on two threads, in relay (relay.c) or split (split.c); run.h, what the
 * threads of a call share and ask; system.h, the system's files and
 * clock. */
#ifndef FD_CORE_FILES_H
#define FD_CORE_FILES_H

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
} fd_files_outcome;

/* The sum of the digest lengths of algorithms[0..count): the bytes each file
 * takes in a request's digests. */
size_t fd_files_digests_len(const enum fd_algorithm_id *algorithms, size_t count);

/* Reads and hashes request->paths[0..count) on min(threads, count) threads
 * (see the top of this file) and returns FD_FILES_DONE with *outcome set
 * once it went through them. Blocks as the system's open and read do: a
 * FIFO waits for a writer and then for its end, a terminal for its end of
 * file. Safe to run beside itself once the kernels are selected. */
fd_files_status fd_hash_files(const fd_files_request *request, fd_files_outcome *outcome);

#endif /* FD_CORE_FILES_H */
