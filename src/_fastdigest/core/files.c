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

#include "core/files.h"

#include <stdlib.h>

#include "core/parallel.h"

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

#include "core/glibc_versions.h"
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
    bool stopped;        /* keep_going said to stop */
    size_t idle_threads; /* of the request's threads, those no part or reader runs on */
    size_t read_ahead;   /* files read ahead by a second thread */
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

/* After a full chunk: whether to go on with the file (no earlier file
 * failed, keep_going did not say stop). */
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
        if (got == chunk_len && !between_chunks(h))
            return FILE_ABANDONED;
    }
}

/* ---- reading ahead -------------------------------------------------------------- */

/* A regular file this many chunks long or more is read by a second thread,
 * when one of the request's threads is idle, into one of two buffers while
 * this thread hashes the other: the copy out of the page cache then
 * overlaps with the hashing instead of adding to it. Making the thread is
 * lost in the hashing of this many chunks. */
#define READ_AHEAD_MIN_CHUNKS 32

/* The two buffers between the reading thread and the hashing one, under
 * the lock of their own monitor: condition FILLED is signalled when a
 * buffer was filled or the reader stopped, FREED when a buffer was hashed
 * or the reader is told to stop. Both go through the buffers in turn, 0, 1,
 * 0, ... */
enum { FILLED, FREED };

typedef struct read_ahead {
    open_file *file;
    size_t chunk_len;
    uint8_t *buffers[2];
    fd_parallel_monitor *monitor;
    /* Under the monitor's lock: */
    size_t counts[2]; /* the bytes in a filled buffer */
    bool filled[2];   /* read, not yet hashed */
    bool reader_done; /* the reader will fill no more: the end, or a failure */
    bool stop;        /* the hasher wants no more */
    bool failed;      /* a read failed, with error */
    unsigned long error;
} read_ahead;

/* The reading thread: fills the buffers in turn until the end, a failure,
 * or the hasher's stop. A signal only interrupts a read, which it retries:
 * the hashing thread is the one that asks keep_going. */
static bool read_ahead_reader(void *context, size_t part)
{
    read_ahead *ra = context;
    uint64_t total = 0;
    (void)part;
    for (size_t i = 0;; i ^= 1) {
        fd_parallel_lock(ra->monitor);
        while (ra->filled[i] && !ra->stop)
            fd_parallel_wait(ra->monitor, FREED);
        const bool stop = ra->stop;
        fd_parallel_unlock(ra->monitor);
        if (stop)
            break;
        size_t got = 0;
        unsigned long error = 0;
        io_result read;
        do
            read = read_chunk(ra->file, ra->buffers[i], ra->chunk_len, &got, &error);
        while (read == IO_INTERRUPTED);
        if (read != IO_OK) {
            fd_parallel_lock(ra->monitor);
            ra->failed = read == IO_FAILED;
            ra->error = error;
            fd_parallel_unlock(ra->monitor);
            break;
        }
        total += got;
        fd_parallel_lock(ra->monitor);
        ra->counts[i] = got;
        ra->filled[i] = true;
        fd_parallel_wake_one(ra->monitor, FILLED);
        fd_parallel_unlock(ra->monitor);
        if (known_end(ra->file, total))
            break;
    }
    fd_parallel_lock(ra->monitor);
    ra->reader_done = true;
    fd_parallel_wake_one(ra->monitor, FILLED);
    fd_parallel_unlock(ra->monitor);
    return true;
}

/* Takes an idle thread of the request's for a file of this size, if it is
 * worth one and there is one. */
static bool take_reading_thread(files_run *run, const open_file *file)
{
    if (!file->regular || file->size < READ_AHEAD_MIN_CHUNKS * (uint64_t)run->chunk_len)
        return false;
    fd_parallel_lock(run->monitor);
    const bool taken = run->idle_threads > 0;
    if (taken)
        run->idle_threads--;
    fd_parallel_unlock(run->monitor);
    return taken;
}

static void give_back_reading_thread(files_run *run, bool read_ahead)
{
    fd_parallel_lock(run->monitor);
    run->idle_threads++;
    run->read_ahead += read_ahead;
    fd_parallel_unlock(run->monitor);
}

/* The file hashed by this thread while another reads it into the buffers
 * in turn. Returns false, with nothing read, when the second buffer or the
 * thread cannot be had: then the caller reads the file itself. */
static bool hash_reading_ahead(const file_hashing *h, open_file *file, uint8_t *buffer,
                               file_result *result, unsigned long *error)
{
    read_ahead ra = {.file = file, .chunk_len = h->run->chunk_len, .buffers = {buffer, NULL}};
    ra.buffers[1] = malloc(ra.chunk_len);
    ra.monitor = ra.buffers[1] != NULL ? fd_parallel_monitor_new() : NULL;
    fd_parallel_thread *reader = ra.monitor != NULL ? fd_parallel_start(read_ahead_reader, &ra, 1)
                                                    : NULL;
    if (reader == NULL) {
        if (ra.monitor != NULL)
            fd_parallel_monitor_free(ra.monitor);
        free(ra.buffers[1]);
        return false;
    }

    *result = FILE_HASHED;
    for (size_t i = 0;; i ^= 1) {
        fd_parallel_lock(ra.monitor);
        while (!ra.filled[i] && !ra.reader_done)
            fd_parallel_wait(ra.monitor, FILLED);
        const bool have = ra.filled[i];
        const size_t count = ra.counts[i];
        fd_parallel_unlock(ra.monitor);
        if (!have)
            break; /* the reader is done, and every buffer it filled is hashed */
        feed(h, ra.buffers[i], count);
        fd_parallel_lock(ra.monitor);
        ra.filled[i] = false;
        fd_parallel_wake_one(ra.monitor, FREED);
        fd_parallel_unlock(ra.monitor);
        if (count == ra.chunk_len && !between_chunks(h)) {
            *result = FILE_ABANDONED;
            fd_parallel_lock(ra.monitor);
            ra.stop = true;
            fd_parallel_wake_one(ra.monitor, FREED);
            fd_parallel_unlock(ra.monitor);
            break;
        }
    }
    fd_parallel_join(reader);
    if (*result == FILE_HASHED && ra.failed) {
        *result = FILE_FAILED;
        *error = ra.error;
    }
    fd_parallel_monitor_free(ra.monitor);
    free(ra.buffers[1]);
    return true;
}

/* ---- one file, all files ------------------------------------------------------ */

/* Reads file `index` to its end into the part's buffer (and a second one
 * when it is read ahead), feeding every chunk to each algorithm, and writes
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
    if (take_reading_thread(run, &file)) {
        const bool read_ahead = hash_reading_ahead(&h, &file, buffer, &result, error);
        give_back_reading_thread(run, read_ahead);
        if (!read_ahead)
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
    return true;
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
    outcome->read_ahead = 0;
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

    fd_parallel_run(parts, run_part, &run);

    fd_parallel_monitor_free(run.monitor);
    free(memory);
    if (run.stopped)
        return FD_FILES_STOPPED;
    outcome->failed = run.failed;
    outcome->error = run.error;
    outcome->read_ahead = run.read_ahead;
    return FD_FILES_DONE;
}
