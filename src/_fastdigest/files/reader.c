/* Files read and hashed on threads (files.h): the threads' shared counter
 * of files taken and the first failure, each thread's loop over files, and
 * the system calls that open and read a file, POSIX's or Windows'. */

/* open's O_CLOEXEC and posix_fadvise are POSIX.1-2008, which -std=c11 does
 * not expose by itself; and a 32-bit build needs a 64-bit off_t, or fstat
 * fails with EOVERFLOW on a file of 2 GiB or more. Both before the first
 * system header. */
#ifndef _WIN32
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#ifndef _FILE_OFFSET_BITS
#define _FILE_OFFSET_BITS 64
#endif
#endif

#include "files/files.h"

#include <stdlib.h>

#include "platform/atomic.h"
#include "platform/parallel.h"

#ifdef _WIN32
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>
#else
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "platform/glibc_versions.h"
#endif

/* A regular file this many chunks long or longer is worth telling the
 * system that it is read from start to end (a larger read-ahead when it is
 * not in the page cache yet): one more system call, lost in the reading of
 * the file. */
#define SEQUENTIAL_HINT_CHUNKS 4

/* ---- the system's files ---------------------------------------------------- */

typedef enum io_result {
    IO_OK,
    IO_END,         /* read: end of file */
    IO_INTERRUPTED, /* a signal came first (EINTR): the caller may ask keep_going, then retry */
    IO_FAILED,      /* the error code says what */
} io_result;

/* An open file, and what its type and size say of its end. */
typedef struct open_file {
#ifdef _WIN32
    HANDLE handle;
#else
    int descriptor;
#endif
    bool regular;  /* a regular file, whose size the system told at the open */
    uint64_t size; /* its size then */
} open_file;

#ifdef _WIN32
/* As the C runtime's _wopen opens for open() (share modes, an existing
 * file), with the hint of a sequential read. A directory fails here with
 * ERROR_ACCESS_DENIED, as it does for open(): it takes
 * FILE_FLAG_BACKUP_SEMANTICS to open one. A file on disk has a size; a
 * pipe or a console does not. */
static io_result open_for_reading(const fd_path_char *path, size_t chunk_len, open_file *file,
                                  unsigned long *error)
{
    (void)chunk_len;
    file->handle = CreateFileW(path, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE, NULL,
                               OPEN_EXISTING, FILE_FLAG_SEQUENTIAL_SCAN, NULL);
    if (file->handle == INVALID_HANDLE_VALUE) {
        *error = GetLastError();
        return IO_FAILED;
    }
    LARGE_INTEGER size;
    file->regular = GetFileType(file->handle) == FILE_TYPE_DISK &&
                    GetFileSizeEx(file->handle, &size) && size.QuadPart >= 0;
    file->size = file->regular ? (uint64_t)size.QuadPart : 0;
    return IO_OK;
}

/* ReadFile takes a DWORD count; chunks are far smaller. The end of a pipe
 * whose writer closed it is ERROR_BROKEN_PIPE, which the C runtime's read
 * reports as the end of file too. */
static io_result read_chunk(open_file *file, uint8_t *buffer, size_t len, size_t *got,
                            unsigned long *error)
{
    DWORD count = 0;
    if (!ReadFile(file->handle, buffer, (DWORD)len, &count, NULL)) {
        DWORD code = GetLastError();
        if (code == ERROR_BROKEN_PIPE)
            return IO_END;
        *error = code;
        return IO_FAILED;
    }
    *got = count;
    return count == 0 ? IO_END : IO_OK;
}

/* A read at an offset, for two threads reading one file: on a handle
 * opened for synchronous reads, ReadFile reads at the OVERLAPPED's offset
 * and returns when it has. */
static io_result read_chunk_at(open_file *file, uint8_t *buffer, size_t len, uint64_t offset,
                               size_t *got, unsigned long *error)
{
    OVERLAPPED at = {0};
    at.Offset = (DWORD)offset;
    at.OffsetHigh = (DWORD)(offset >> 32);
    DWORD count = 0;
    if (!ReadFile(file->handle, buffer, (DWORD)len, &count, &at)) {
        DWORD code = GetLastError();
        if (code == ERROR_HANDLE_EOF)
            return IO_END;
        *error = code;
        return IO_FAILED;
    }
    *got = count;
    return count == 0 ? IO_END : IO_OK;
}

static void close_file(open_file *file)
{
    CloseHandle(file->handle);
}
#else
/* As open() opens for reading: O_RDONLY | O_CLOEXEC, and a directory,
 * which opens, refused with EISDIR after fstat, as open() refuses it. */
static io_result open_for_reading(const fd_path_char *path, size_t chunk_len, open_file *file,
                                  unsigned long *error)
{
    int descriptor = open(path, O_RDONLY | O_CLOEXEC);
    if (descriptor < 0) {
        *error = (unsigned long)errno;
        return errno == EINTR ? IO_INTERRUPTED : IO_FAILED;
    }
    struct stat status;
    if (fd_fstat(descriptor, &status) != 0) {
        *error = (unsigned long)errno;
        close(descriptor);
        return IO_FAILED;
    }
    if (S_ISDIR(status.st_mode)) {
        *error = EISDIR;
        close(descriptor);
        return IO_FAILED;
    }
    file->descriptor = descriptor;
    file->regular = S_ISREG(status.st_mode) && status.st_size >= 0;
    file->size = file->regular ? (uint64_t)status.st_size : 0;
#ifdef POSIX_FADV_SEQUENTIAL
    if (file->regular && file->size >= SEQUENTIAL_HINT_CHUNKS * (uint64_t)chunk_len)
        (void)posix_fadvise(descriptor, 0, 0, POSIX_FADV_SEQUENTIAL);
#else
    (void)chunk_len;
#endif
    return IO_OK;
}

static io_result read_chunk(open_file *file, uint8_t *buffer, size_t len, size_t *got,
                            unsigned long *error)
{
    ssize_t count = read(file->descriptor, buffer, len);
    if (count < 0) {
        *error = (unsigned long)errno;
        return errno == EINTR ? IO_INTERRUPTED : IO_FAILED;
    }
    *got = (size_t)count;
    return count == 0 ? IO_END : IO_OK;
}

/* A read at an offset, for two threads reading one file. */
static io_result read_chunk_at(open_file *file, uint8_t *buffer, size_t len, uint64_t offset,
                               size_t *got, unsigned long *error)
{
    ssize_t count = pread(file->descriptor, buffer, len, (off_t)offset);
    if (count < 0) {
        *error = (unsigned long)errno;
        return errno == EINTR ? IO_INTERRUPTED : IO_FAILED;
    }
    *got = (size_t)count;
    return count == 0 ? IO_END : IO_OK;
}

/* A descriptor open for reading loses nothing when its close fails. */
static void close_file(open_file *file)
{
    close(file->descriptor);
}
#endif

/* After a read: whether the file has surely ended, which spares the read
 * that would return 0 (a system call per file, which counts among small
 * files). A regular file read to the size the open found has: a file that
 * grows meanwhile may or may not have its new bytes hashed, as with any
 * reader, and one whose size says nothing (/proc's, of size 0) never
 * reaches it and is read to the read that returns 0. */
static bool known_end(const open_file *file, uint64_t total)
{
    return file->regular && total == file->size;
}

/* ---- the threads ------------------------------------------------------------- */

/* Milliseconds from some fixed moment, for the calling thread's questions:
 * a few nanoseconds a call (the vDSO on Linux). */
static uint64_t monotonic_ms(void)
{
#ifdef _WIN32
    return GetTickCount64();
#else
    struct timespec now;
    if (clock_gettime(CLOCK_MONOTONIC, &now) != 0)
        return 0;
    return (uint64_t)now.tv_sec * 1000u + (uint64_t)now.tv_nsec / 1000000u;
#endif
}

enum { PART_ENDED }; /* the run's condition: a part on a thread of its own returned */

typedef struct files_run {
    const fd_files_request *request;
    size_t digests_len;
    size_t chunk_len;
    fd_hash_state *states; /* algorithm_count per part */
    uint8_t *buffers;      /* chunk_len per part */
    fd_parallel_monitor *monitor;
    /* Under the monitor's lock: */
    size_t next;   /* the first file not yet taken */
    size_t failed; /* the first file in order that failed so far, or count */
    unsigned long error;
    bool stopped;         /* keep_going said to stop */
    size_t idle_threads;  /* of the request's threads, those no part or relay runs on */
    size_t running_parts; /* the parts on threads of their own that have not returned */
    size_t relayed;       /* files hashed by two threads in relay */
    size_t split;         /* files whose algorithms two threads split */
    /* The calling thread's alone: when it last asked keep_going. */
    uint64_t last_asked_ms;
} files_run;

/* The next file for a thread, if there is one still worth reading: files
 * after one that failed are not. */
static bool take_file(files_run *run, size_t *index)
{
    fd_parallel_lock(run->monitor);
    const bool taken = !run->stopped && run->next < run->failed;
    if (taken)
        *index = run->next++;
    else
        run->idle_threads++; /* the part ends: its thread may read for another */
    fd_parallel_unlock(run->monitor);
    return taken;
}

/* Whether a file being read is still worth finishing. */
static bool still_wanted(files_run *run, size_t index)
{
    fd_parallel_lock(run->monitor);
    const bool wanted = !run->stopped && index < run->failed;
    fd_parallel_unlock(run->monitor);
    return wanted;
}

static void record_failure(files_run *run, size_t index, unsigned long error)
{
    fd_parallel_lock(run->monitor);
    if (index < run->failed) {
        run->failed = index;
        run->error = error;
    }
    fd_parallel_unlock(run->monitor);
}

/* For the calling thread (part 0), which alone may ask keep_going: asks
 * when keep_going_ms have passed since it last asked, or at once when
 * forced (a signal interrupted a system call). Returns false once the run
 * is to stop, for every thread. */
static bool calling_thread_goes_on(files_run *run, size_t part, bool forced)
{
    const fd_files_request *request = run->request;
    if (part != 0 || request->keep_going == NULL)
        return true;
    /* Asked and answered: not again. Only this thread sets it. */
    if (run->stopped)
        return false;
    const uint64_t now = request->keep_going_ms != 0 ? monotonic_ms() : 0;
    if (!forced && now - run->last_asked_ms < request->keep_going_ms)
        return true;
    run->last_asked_ms = now;
    if (request->keep_going(request->keep_going_context))
        return true;
    fd_parallel_lock(run->monitor);
    run->stopped = true;
    fd_parallel_unlock(run->monitor);
    return false;
}

/* For a thread that waits, with the monitor's lock held, for a condition
 * another thread signals: sleeps until it is signalled (or spuriously).
 * The calling thread (answers) sleeps at most a slice at a time and asks
 * keep_going after it, without the lock, so that it answers Ctrl-C while
 * another thread reads or hashes: it never sleeps through a question.
 * Returns false once the run is to stop. */
static bool wait_answering(files_run *run, fd_parallel_monitor *monitor, unsigned condition,
                           bool answers)
{
    const fd_files_request *request = run->request;
    if (!answers || request->keep_going == NULL) {
        fd_parallel_wait(monitor, condition);
        return true;
    }
    fd_parallel_wait_at_most(monitor, condition, request->keep_going_ms);
    fd_parallel_unlock(monitor);
    const bool go_on = calling_thread_goes_on(run, 0, false);
    fd_parallel_lock(monitor);
    return go_on;
}

typedef enum file_result { FILE_HASHED, FILE_FAILED, FILE_ABANDONED } file_result;

/* A file being hashed: its index, and the part's states of its
 * algorithms. */
typedef struct file_hashing {
    files_run *run;
    size_t part;
    size_t index;
    fd_hash_state *states;
} file_hashing;

static void feed(const file_hashing *h, const uint8_t *data, size_t len)
{
    const fd_files_request *request = h->run->request;
    for (size_t k = 0; k < request->algorithm_count; k++)
        fd_algorithms[request->algorithms[k]].update(&h->states[k], data, len);
}

/* After a read that did not end the file: whether to go on with it (no
 * earlier file failed, keep_going did not say stop). */
static bool between_chunks(const file_hashing *h)
{
    return still_wanted(h->run, h->index) && calling_thread_goes_on(h->run, h->part, false);
}

/* The file read and hashed by one thread, chunk after chunk. */
static file_result hash_plainly(const file_hashing *h, open_file *file, uint8_t *buffer,
                                unsigned long *error)
{
    const size_t chunk_len = h->run->chunk_len;
    uint64_t total = 0;
    for (;;) {
        size_t got = 0;
        const io_result read = read_chunk(file, buffer, chunk_len, &got, error);
        if (read == IO_END)
            return FILE_HASHED;
        if (read == IO_FAILED)
            return FILE_FAILED;
        if (read == IO_INTERRUPTED) {
            if (!calling_thread_goes_on(h->run, h->part, true))
                return FILE_ABANDONED;
            continue;
        }
        feed(h, buffer, got);
        total += got;
        if (known_end(file, total))
            return FILE_HASHED;
        /* After every read, not only the full ones: a pipe gives less than
         * a chunk at a time, and may never end. */
        if (!between_chunks(h))
            return FILE_ABANDONED;
    }
}

/* ---- a big file on two threads -------------------------------------------------- */

/* A regular file this many chunks long or more is hashed by two threads
 * when one of the request's threads is idle; making the second thread is
 * lost in the hashing of this many chunks. The file's own thread reads and
 * hashes the first chunk alone, timing the read and each algorithm, and the
 * two threads go on in whichever of two ways those timings say is faster:
 *
 * - in relay: each thread reads every other chunk, at its offset, into its
 *   own buffer while the other hashes the chunk before, then takes the
 *   states and hashes its chunk out of its own cache. The copy out of the
 *   page cache overlaps with the hashing, and only the states cross between
 *   the cores. (A thread that read for the hashing one instead made the
 *   hashing fetch every chunk from the other core's cache, which cost more
 *   than the overlapped copy saved.) The file takes its hashing's time.
 * - split: with several algorithms, the file's thread reads each chunk
 *   into one of SPLIT_BUFFERS buffers and feeds its share of them, and the
 *   second thread feeds its share from the same buffer, shared out so that
 *   the busier thread is as little busy as it can be (the reads count to
 *   the file's thread). The file takes the busier thread's time: less than
 *   all the hashing when the algorithms share out evenly enough (MD5
 *   beside SHA-1 and SHA-256).
 *
 * Either way every chunk is read once, by one thread, and every algorithm
 * is fed the bytes of that read, in order, up to the first read that comes
 * short: the digests of one file are all of the same bytes, whatever
 * happens to the file meanwhile (files.h). The reads stop at the size the
 * open found. */
#define PAIR_MIN_CHUNKS 32

/* The buffers a split's chunks pass through: the second thread hashes one
 * while the file's thread reads the next into another, and the third lets
 * either run a chunk ahead, so that a thread held up for a moment (by the
 * scheduler) does not hold up the other at once. */
#define SPLIT_BUFFERS 3
_Static_assert(SPLIT_BUFFERS >= 2, "a split's ring holds the chunk read and the chunk hashed");

/* A thread that waits for the other's chunk polls for it, yielding its
 * CPU to any thread that wants it, for about as long as the other thread
 * takes over a chunk (as timed, plus half): waking a thread that slept
 * costs too much to pay at every chunk (a tenth of a chunk's hashing or
 * more, on a virtual machine), while a wait that takes longer than that
 * (the other thread waits for a disk) is worth sleeping through. */
#define POLL_SLACK_DIVISOR 2

/* The pair's count of chunks passed on once it is over: the end in relay,
 * a read that failed, or a stop. */
#define PAIR_OVER SIZE_MAX

enum {
    PASSED,       /* the pair's condition: a count of chunks changed */
    SECOND_ENDED, /* the second thread returned */
};

typedef struct pair {
    const file_hashing *h;
    open_file *file;
    size_t chunk_len;
    /* Relay: the file's thread's buffer and the second thread's; split:
     * the ring the chunks pass through, chunk c in c % SPLIT_BUFFERS. */
    uint8_t *buffers[SPLIT_BUFFERS];
    size_t lens[SPLIT_BUFFERS]; /* split: the bytes read into each buffer */
    const uint8_t *shares;      /* split: which thread feeds each algorithm; relay: NULL */
    uint64_t poll_ns[2];        /* how long each thread polls before it sleeps */
    fd_parallel_monitor *monitor;
    /* The chunks passed on, or PAIR_OVER: in relay those hashed, in order,
     * which hands the states to the thread whose turn it is; in a split
     * those read, which hands each chunk to the second thread. Stored under
     * the lock, a release; loaded with or without it. */
    fd_published_size passed;
    /* Split: the chunks the second thread has hashed, which hands their
     * buffers back to the file's thread. As passed. */
    fd_published_size second_hashed;
    /* Under the lock, set with PAIR_OVER: */
    file_result result;
    unsigned long error;
    /* Under the lock: */
    bool second_running;
} pair;

/* Nanoseconds from some fixed moment, for timings and deadlines; 0 when
 * the clock fails, which makes the timings 0 and the choice a relay. */
static uint64_t monotonic_ns(void)
{
#ifdef _WIN32
    LARGE_INTEGER frequency, now;
    if (!QueryPerformanceFrequency(&frequency) || !QueryPerformanceCounter(&now))
        return 0;
    const uint64_t ticks = (uint64_t)now.QuadPart, per_second = (uint64_t)frequency.QuadPart;
    return ticks / per_second * 1000000000u + ticks % per_second * 1000000000u / per_second;
#else
    struct timespec now;
    if (clock_gettime(CLOCK_MONOTONIC, &now) != 0)
        return 0;
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
#endif
}

/* Reads the chunk at offset, up to chunk_len bytes and not past the size
 * the open found, retrying short reads: *got less than chunk_len means the
 * file ends there. IO_INTERRUPTED only when this thread answers for the
 * calling thread (answers) and keep_going, asked after a signal, says to
 * stop; any other thread retries. */
static io_result read_whole_chunk(const file_hashing *h, bool answers, open_file *file,
                                  uint8_t *buffer, size_t chunk_len, uint64_t offset, size_t *got,
                                  unsigned long *error)
{
    const uint64_t left = file->size > offset ? file->size - offset : 0;
    const size_t len = left < chunk_len ? (size_t)left : chunk_len;
    *got = 0;
    while (*got < len) {
        size_t count = 0;
        const io_result read = read_chunk_at(file, buffer + *got, len - *got, offset + *got, &count,
                                             error);
        if (read == IO_INTERRUPTED) {
            if (answers && !calling_thread_goes_on(h->run, h->part, true))
                return IO_INTERRUPTED;
            continue;
        }
        if (read == IO_END)
            break;
        if (read == IO_FAILED)
            return IO_FAILED;
        *got += count;
    }
    return IO_OK;
}

/* Feeds the algorithms whose share is runner's (every one when shares is
 * NULL). */
static void feed_share(const file_hashing *h, const uint8_t *shares, size_t runner,
                       const uint8_t *data, size_t len)
{
    const fd_files_request *request = h->run->request;
    for (size_t k = 0; k < request->algorithm_count; k++) {
        if (shares == NULL || shares[k] == runner)
            fd_algorithms[request->algorithms[k]].update(&h->states[k], data, len);
    }
}

static bool pair_over(pair *p)
{
    return fd_published_size_load(&p->passed) == PAIR_OVER;
}

/* Ends the pair with its result, unless it is over already. */
static void end_pair(pair *p, file_result result, unsigned long error)
{
    fd_parallel_lock(p->monitor);
    if (!pair_over(p)) {
        p->result = result;
        p->error = error;
        fd_published_size_store(&p->passed, PAIR_OVER);
        fd_parallel_wake_all(p->monitor, PASSED);
    }
    fd_parallel_unlock(p->monitor);
}

/* Whether runner is the calling thread, which answers keep_going. */
static bool pair_answers(const pair *p, size_t runner)
{
    return runner == 0 && p->h->part == 0;
}

/* After a full chunk, for either thread: whether to go on with the file.
 * Only the file's own thread may answer for the calling thread. */
static bool pair_goes_on(pair *p, size_t runner)
{
    const bool go_on = runner == 0 ? between_chunks(p->h) : still_wanted(p->h->run, p->h->index);
    if (!go_on)
        end_pair(p, FILE_ABANDONED, 0);
    return go_on && !pair_over(p);
}

/* Waits until the count (passed, or a split's second_hashed) reaches
 * at_least (true) or the pair is over (false): polls, then sleeps,
 * answering keep_going if runner is the calling thread. */
static bool wait_for_count(pair *p, fd_published_size *count, size_t at_least, size_t runner)
{
    const uint64_t deadline = monotonic_ns() + p->poll_ns[runner];
    do {
        if (pair_over(p))
            return false;
        if (fd_published_size_load(count) >= at_least)
            return true;
        fd_parallel_yield();
    } while (monotonic_ns() < deadline);
    fd_parallel_lock(p->monitor);
    bool go_on = true;
    while (go_on && !pair_over(p) && fd_published_size_load(count) < at_least)
        go_on = wait_answering(p->h->run, p->monitor, PASSED, pair_answers(p, runner));
    fd_parallel_unlock(p->monitor);
    if (!go_on)
        end_pair(p, FILE_ABANDONED, 0);
    return go_on && !pair_over(p);
}

/* Stores a count that the other thread waits for, unless the pair is over
 * (PAIR_OVER stays), and wakes it. */
static void pass_on(pair *p, fd_published_size *count, size_t value)
{
    fd_parallel_lock(p->monitor);
    if (!pair_over(p))
        fd_published_size_store(count, value);
    fd_parallel_wake_all(p->monitor, PASSED);
    fd_parallel_unlock(p->monitor);
}

/* A failed or interrupted read ends the pair. */
static void end_pair_after_read(pair *p, io_result read, unsigned long error)
{
    end_pair(p, read == IO_FAILED ? FILE_FAILED : FILE_ABANDONED, error);
}

/* One thread's chunks in relay: runner + 2, runner + 4, ... for the file's
 * thread, which hashed chunk 0, and 1, 3, ... for the second. */
static void run_relay(pair *p, size_t runner)
{
    const file_hashing *h = p->h;
    uint8_t *buffer = p->buffers[runner];
    for (size_t chunk = runner == 0 ? 2 : 1;; chunk += 2) {
        size_t got = 0;
        unsigned long error = 0;
        const uint64_t offset = (uint64_t)chunk * p->chunk_len;
        const io_result read = read_whole_chunk(h, pair_answers(p, runner), p->file, buffer,
                                                p->chunk_len, offset, &got, &error);
        if (read == IO_INTERRUPTED) {
            end_pair(p, FILE_ABANDONED, 0);
            return;
        }
        /* A failed read counts only if the chunks before it are hashed. */
        if (!wait_for_count(p, &p->passed, chunk, runner))
            return;
        if (read == IO_FAILED) {
            end_pair(p, FILE_FAILED, error);
            return;
        }
        const uint64_t hashing_began = monotonic_ns();
        feed_share(h, NULL, runner, buffer, got);
        const uint64_t hashing_ns = monotonic_ns() - hashing_began;
        p->poll_ns[runner] = hashing_ns + hashing_ns / POLL_SLACK_DIVISOR;
        if (got < p->chunk_len) {
            end_pair(p, FILE_HASHED, 0);
            return;
        }
        if (!pair_goes_on(p, runner))
            return;
        pass_on(p, &p->passed, chunk + 1);
    }
}

/* The file's thread in a split: reads each chunk after the first into
 * the ring, once the second thread has handed its buffer back, passes it
 * on and feeds its share. The pair ends early only for a failure or a
 * stop. */
static void run_split_reader(pair *p)
{
    const file_hashing *h = p->h;
    for (size_t chunk = 1;; chunk++) {
        if (chunk >= SPLIT_BUFFERS &&
            !wait_for_count(p, &p->second_hashed, chunk - SPLIT_BUFFERS + 1, 0))
            return;
        uint8_t *buffer = p->buffers[chunk % SPLIT_BUFFERS];
        size_t got = 0;
        unsigned long error = 0;
        const io_result read = read_whole_chunk(h, pair_answers(p, 0), p->file, buffer, p->chunk_len,
                                                (uint64_t)chunk * p->chunk_len, &got, &error);
        if (read != IO_OK) {
            end_pair_after_read(p, read, error);
            return;
        }
        p->lens[chunk % SPLIT_BUFFERS] = got;
        pass_on(p, &p->passed, chunk + 1);
        feed_share(h, p->shares, 0, buffer, got);
        if (got < p->chunk_len || !pair_goes_on(p, 0))
            return;
    }
}

/* The second thread in a split: feeds its share of each chunk after the
 * first as the file's thread passes them on, to the short one that ends
 * the file. */
static void run_split_second(pair *p)
{
    for (size_t chunk = 1;; chunk++) {
        if (!wait_for_count(p, &p->passed, chunk + 1, 1))
            return;
        const size_t got = p->lens[chunk % SPLIT_BUFFERS];
        feed_share(p->h, p->shares, 1, p->buffers[chunk % SPLIT_BUFFERS], got);
        pass_on(p, &p->second_hashed, chunk + 1);
        if (got < p->chunk_len || !pair_goes_on(p, 1))
            return;
    }
}

/* The file's thread alone after all (no second thread could be made),
 * from the second chunk: every algorithm. */
static void run_alone(pair *p)
{
    for (size_t chunk = 1;; chunk++) {
        size_t got = 0;
        unsigned long error = 0;
        const io_result read = read_whole_chunk(p->h, pair_answers(p, 0), p->file, p->buffers[0],
                                                p->chunk_len, (uint64_t)chunk * p->chunk_len, &got,
                                                &error);
        if (read != IO_OK) {
            end_pair_after_read(p, read, error);
            return;
        }
        feed_share(p->h, NULL, 0, p->buffers[0], got);
        if (got < p->chunk_len || !pair_goes_on(p, 0))
            return;
    }
}

static bool run_pair(void *context, size_t runner)
{
    pair *p = context;
    if (p->shares == NULL)
        run_relay(p, runner);
    else if (runner == 0)
        run_split_reader(p);
    else
        run_split_second(p);
    if (runner == 1) {
        fd_parallel_lock(p->monitor);
        p->second_running = false;
        fd_parallel_wake_all(p->monitor, SECOND_ENDED);
        fd_parallel_unlock(p->monitor);
    }
    return true;
}

/* For the file's thread, its own part done: waits for the second thread
 * to return, still answering keep_going if it is the calling thread (the
 * second may have chunks left), then joins it. */
static void wait_for_second(pair *p, fd_parallel_thread *second)
{
    bool answers = pair_answers(p, 0);
    fd_parallel_lock(p->monitor);
    while (p->second_running) {
        if (!wait_answering(p->h->run, p->monitor, SECOND_ENDED, answers)) {
            fd_parallel_unlock(p->monitor);
            end_pair(p, FILE_ABANDONED, 0);
            fd_parallel_lock(p->monitor);
            answers = false; /* asked and answered: the second stops within a chunk */
        }
    }
    fd_parallel_unlock(p->monitor);
    fd_parallel_join(second);
}

/* Shares out the algorithms between the two threads by their times over
 * the first chunk: the file's thread starts with the read's time, which is
 * its alone, then the slowest algorithm goes first, each to the thread with
 * less so far. Sets each thread's load; returns the larger. */
static uint64_t share_out(const uint64_t *times, size_t count, uint64_t read_ns, uint8_t *shares,
                          uint64_t loads[2])
{
    loads[0] = read_ns;
    loads[1] = 0;
    for (size_t k = 0; k < count; k++)
        shares[k] = UINT8_MAX;
    for (size_t n = 0; n < count; n++) {
        size_t slowest = count;
        for (size_t k = 0; k < count; k++) {
            if (shares[k] == UINT8_MAX && (slowest == count || times[k] > times[slowest]))
                slowest = k;
        }
        const uint8_t runner = loads[1] < loads[0];
        shares[slowest] = runner;
        loads[runner] += times[slowest];
    }
    return loads[0] > loads[1] ? loads[0] : loads[1];
}

/* Takes an idle thread of the request's for a file of this size, if it is
 * worth one and there is one. */
static bool take_second_thread(files_run *run, const open_file *file)
{
    if (!file->regular || file->size < PAIR_MIN_CHUNKS * (uint64_t)run->chunk_len)
        return false;
    fd_parallel_lock(run->monitor);
    const bool taken = run->idle_threads > 0;
    if (taken)
        run->idle_threads--;
    fd_parallel_unlock(run->monitor);
    return taken;
}

static void give_back_second_thread(files_run *run, fd_files_pairing used)
{
    fd_parallel_lock(run->monitor);
    run->idle_threads++;
    run->relayed += used == FD_FILES_PAIR_RELAY;
    run->split += used == FD_FILES_PAIR_SPLIT;
    fd_parallel_unlock(run->monitor);
}

/* The file hashed by this thread and a second one: the first chunk here,
 * then the rest in relay or split (*used), or by this thread alone when the
 * thread cannot be made (*used is FD_FILES_PAIR_CHOSEN). Returns false,
 * with nothing read, when the memory cannot be had: then the caller reads
 * the file alone. */
static bool hash_in_pair(const file_hashing *h, open_file *file, uint8_t *buffer,
                         file_result *result, unsigned long *error, fd_files_pairing *used)
{
    const fd_files_request *request = h->run->request;
    const size_t count = request->algorithm_count;
    pair p = {.h = h, .file = file, .chunk_len = h->run->chunk_len, .buffers = {buffer}};
    fd_published_size_store(&p.passed, 1);
    fd_published_size_store(&p.second_hashed, 1);
    /* Each algorithm's time and share, and the second thread's buffer (a
     * split's others come once it is chosen). */
    uint64_t *times = malloc(count * (sizeof(uint64_t) + 1));
    p.buffers[1] = times != NULL ? malloc(p.chunk_len) : NULL;
    p.monitor = p.buffers[1] != NULL ? fd_parallel_monitor_new() : NULL;
    if (p.monitor == NULL) {
        free(p.buffers[1]);
        free(times);
        return false;
    }
    uint8_t *shares = (uint8_t *)(times + count);

    size_t got = 0;
    const uint64_t read_began = monotonic_ns();
    const io_result read = read_whole_chunk(h, true, file, buffer, p.chunk_len, 0, &got, error);
    const uint64_t read_ns = monotonic_ns() - read_began;
    uint64_t all_ns = 0;
    for (size_t k = 0; read == IO_OK && k < count; k++) {
        const uint64_t began = monotonic_ns();
        fd_algorithms[request->algorithms[k]].update(&h->states[k], buffer, got);
        times[k] = monotonic_ns() - began;
        all_ns += times[k];
    }
    *result = read == IO_OK ? FILE_HASHED : read == IO_FAILED ? FILE_FAILED : FILE_ABANDONED;
    *used = FD_FILES_PAIR_CHOSEN;
    if (read == IO_OK && got == p.chunk_len && !between_chunks(h)) {
        *result = FILE_ABANDONED;
    }
    else if (read == IO_OK && got == p.chunk_len) {
        uint64_t loads[2] = {0, 0};
        const uint64_t busier_ns = count > 1 ? share_out(times, count, read_ns, shares, loads) : 0;
        bool split = count > 1 && (request->pairing == FD_FILES_PAIR_CHOSEN
                                       ? busier_ns < all_ns
                                       : request->pairing == FD_FILES_PAIR_SPLIT);
        /* Without the memory for its ring, a relay. */
        for (size_t b = 2; split && b < SPLIT_BUFFERS; b++) {
            p.buffers[b] = malloc(p.chunk_len);
            split = p.buffers[b] != NULL;
        }
        p.shares = split ? shares : NULL;
        /* Each thread waits for the other's share of a chunk: in relay all
         * of the hashing, in a split the other's load. */
        for (size_t runner = 0; runner < 2; runner++) {
            const uint64_t other_ns = split ? loads[1 - runner] : all_ns;
            p.poll_ns[runner] = other_ns + other_ns / POLL_SLACK_DIVISOR;
        }
        p.second_running = true;
        fd_parallel_thread *second = fd_parallel_start(run_pair, &p, 1);
        if (second != NULL) {
            *used = split ? FD_FILES_PAIR_SPLIT : FD_FILES_PAIR_RELAY;
            run_pair(&p, 0);
            wait_for_second(&p, second);
        }
        else {
            run_alone(&p);
        }
        *result = pair_over(&p) ? p.result : FILE_HASHED;
        if (*result == FILE_FAILED)
            *error = p.error;
    }
    fd_parallel_monitor_free(p.monitor);
    for (size_t b = 1; b < SPLIT_BUFFERS; b++)
        free(p.buffers[b]);
    free(times);
    return true;
}

/* ---- one file, all files ------------------------------------------------------ */

/* Reads file `index` to its end into the part's buffer (and a second one
 * when a second thread helps), feeding every chunk to each algorithm, and writes
 * its digests. */
static file_result hash_file(files_run *run, size_t part, size_t index, unsigned long *error)
{
    const fd_files_request *request = run->request;
    const file_hashing h = {
        .run = run,
        .part = part,
        .index = index,
        .states = run->states + part * request->algorithm_count,
    };
    uint8_t *buffer = run->buffers + part * run->chunk_len;
    open_file file;
    io_result opened;

    while ((opened = open_for_reading(request->paths[index], run->chunk_len, &file, error)) ==
           IO_INTERRUPTED) {
        if (!calling_thread_goes_on(run, part, true))
            return FILE_ABANDONED;
    }
    if (opened == IO_FAILED)
        return FILE_FAILED;
    if (!calling_thread_goes_on(run, part, false)) {
        close_file(&file);
        return FILE_ABANDONED;
    }

    for (size_t k = 0; k < request->algorithm_count; k++)
        fd_algorithms[request->algorithms[k]].init(&h.states[k]);
    file_result result;
    if (take_second_thread(run, &file)) {
        fd_files_pairing used = FD_FILES_PAIR_CHOSEN;
        const bool paired = hash_in_pair(&h, &file, buffer, &result, error, &used);
        give_back_second_thread(run, used);
        if (!paired)
            result = hash_plainly(&h, &file, buffer, error);
    }
    else {
        result = hash_plainly(&h, &file, buffer, error);
    }
    close_file(&file);
    if (result != FILE_HASHED)
        return result;

    uint8_t *out = request->digests + index * run->digests_len;
    for (size_t k = 0; k < request->algorithm_count; k++) {
        const fd_algorithm *algorithm = &fd_algorithms[request->algorithms[k]];
        algorithm->final(&h.states[k], out);
        out += algorithm->digest_len;
    }
    return FILE_HASHED;
}

/* One thread's part: files, one at a time, until none is left to take. */
static bool run_part(void *context, size_t part)
{
    files_run *run = context;
    size_t index;
    while (take_file(run, &index)) {
        unsigned long error = 0;
        if (hash_file(run, part, index, &error) == FILE_FAILED)
            record_failure(run, index, error);
    }
    if (part != 0) {
        fd_parallel_lock(run->monitor);
        run->running_parts--;
        fd_parallel_wake_all(run->monitor, PART_ENDED);
        fd_parallel_unlock(run->monitor);
    }
    return true;
}

/* Runs the parts: part 0 on the calling thread, each other on a thread of
 * its own. A thread that cannot be made leaves its part's files to the
 * others, which take files as they go. The calling thread, its own files
 * done, waits for the others still answering keep_going: any of them may
 * read for long yet (a big file, a pipe), and stops at its next chunk once
 * the run is stopped. */
static void run_parts(files_run *run, size_t parts)
{
    fd_parallel_thread **threads = parts > 1 ? malloc((parts - 1) * sizeof *threads) : NULL;
    size_t started = 0;
    if (threads != NULL) {
        for (size_t part = 1; part < parts; part++) {
            fd_parallel_lock(run->monitor);
            run->running_parts++;
            fd_parallel_unlock(run->monitor);
            threads[started] = fd_parallel_start(run_part, run, part);
            if (threads[started] != NULL) {
                started++;
            }
            else {
                fd_parallel_lock(run->monitor);
                run->running_parts--;
                fd_parallel_unlock(run->monitor);
            }
        }
    }
    run_part(run, 0);

    bool answers = true;
    fd_parallel_lock(run->monitor);
    while (run->running_parts > 0)
        answers = wait_answering(run, run->monitor, PART_ENDED, answers) && answers;
    fd_parallel_unlock(run->monitor);
    for (size_t i = 0; i < started; i++)
        fd_parallel_join(threads[i]);
    free(threads);
}

size_t fd_files_digests_len(const enum fd_algorithm_id *algorithms, size_t count)
{
    size_t len = 0;
    for (size_t k = 0; k < count; k++)
        len += fd_algorithms[algorithms[k]].digest_len;
    return len;
}

fd_files_status fd_hash_files(const fd_files_request *request, fd_files_outcome *outcome)
{
    outcome->failed = request->count;
    outcome->error = 0;
    outcome->relayed = 0;
    outcome->split = 0;
    if (request->count == 0)
        return FD_FILES_DONE;

    const size_t threads = request->threads != 0 ? request->threads : 1;
    const size_t parts = threads < request->count ? threads : request->count;
    files_run run = {
        .request = request,
        .digests_len = fd_files_digests_len(request->algorithms, request->algorithm_count),
        .chunk_len = request->chunk_len != 0 ? request->chunk_len : FD_FILES_CHUNK_LEN,
        .failed = request->count,
        .idle_threads = threads - parts,
        .last_asked_ms = request->keep_going_ms != 0 ? monotonic_ms() : 0,
    };

    /* Each part's states, then each part's buffer, in one allocation; the
     * states' size is a multiple of their alignment, so the buffers that
     * follow are aligned as malloc aligns. */
    const size_t states_per_part = request->algorithm_count;
    if (states_per_part > SIZE_MAX / sizeof(fd_hash_state) / parts ||
        run.chunk_len > (SIZE_MAX - parts * states_per_part * sizeof(fd_hash_state)) / parts)
        return FD_FILES_NO_MEMORY;
    const size_t states_size = parts * states_per_part * sizeof(fd_hash_state);
    void *memory = malloc(states_size + parts * run.chunk_len);
    if (memory == NULL)
        return FD_FILES_NO_MEMORY;
    run.states = memory;
    run.buffers = (uint8_t *)memory + states_size;
    run.monitor = fd_parallel_monitor_new();
    if (run.monitor == NULL) {
        free(memory);
        return FD_FILES_NO_MEMORY;
    }

    run_parts(&run, parts);

    fd_parallel_monitor_free(run.monitor);
    free(memory);
    if (run.stopped)
        return FD_FILES_STOPPED;
    outcome->failed = run.failed;
    outcome->error = run.error;
    outcome->relayed = run.relayed;
    outcome->split = run.split;
    return FD_FILES_DONE;
}
