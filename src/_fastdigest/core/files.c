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

#ifdef _WIN32
typedef struct open_file {
    HANDLE handle;
} open_file;

/* As the C runtime's _wopen opens for open() (share modes, an existing
 * file), with the hint of a sequential read. A directory fails here with
 * ERROR_ACCESS_DENIED, as it does for open(): it takes
 * FILE_FLAG_BACKUP_SEMANTICS to open one. */
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

/* Windows gives no size to stop at: the end is the read that returns 0. */
static bool known_end(const open_file *file, uint64_t total)
{
    (void)file;
    (void)total;
    return false;
}

static void close_file(open_file *file)
{
    CloseHandle(file->handle);
}
#else
typedef struct open_file {
    int descriptor;
    bool regular;  /* a regular file, whose size fstat told */
    uint64_t size; /* its size then */
} open_file;

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
    if (fstat(descriptor, &status) != 0) {
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

/* After a read that returned less than it asked for: whether the file has
 * surely ended, which spares the read that would return 0 (a system call
 * per file, which counts among small files). A regular file read to the
 * size fstat gave has: a file that grows meanwhile may or may not have its
 * new bytes hashed, as with any reader, and one whose size says nothing
 * (/proc's, of size 0) never reaches it and is read to the read that
 * returns 0. */
static bool known_end(const open_file *file, uint64_t total)
{
    return file->regular && total == file->size;
}

/* A descriptor open for reading loses nothing when its close fails. */
static void close_file(open_file *file)
{
    close(file->descriptor);
}
#endif

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
    bool stopped; /* keep_going said to stop */
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

/* Reads file `index` to its end into the part's buffer, feeding every
 * chunk to each algorithm's state, and writes its digests. */
static file_result hash_file(files_run *run, size_t part, size_t index, unsigned long *error)
{
    const fd_files_request *request = run->request;
    fd_hash_state *states = run->states + part * request->algorithm_count;
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
        fd_algorithms[request->algorithms[k]].init(&states[k]);
    uint64_t total = 0;
    for (;;) {
        size_t got = 0;
        const io_result read = read_chunk(&file, buffer, run->chunk_len, &got, error);
        if (read == IO_END)
            break;
        if (read == IO_FAILED) {
            close_file(&file);
            return FILE_FAILED;
        }
        if (read == IO_INTERRUPTED) {
            if (!calling_thread_goes_on(run, part, true)) {
                close_file(&file);
                return FILE_ABANDONED;
            }
            continue;
        }
        for (size_t k = 0; k < request->algorithm_count; k++)
            fd_algorithms[request->algorithms[k]].update(&states[k], buffer, got);
        total += got;
        if (got < run->chunk_len && known_end(&file, total))
            break;
        if (got == run->chunk_len &&
            (!still_wanted(run, index) || !calling_thread_goes_on(run, part, false))) {
            close_file(&file);
            return FILE_ABANDONED;
        }
    }
    close_file(&file);

    uint8_t *out = request->digests + index * run->digests_len;
    for (size_t k = 0; k < request->algorithm_count; k++) {
        const fd_algorithm *algorithm = &fd_algorithms[request->algorithms[k]];
        algorithm->final(&states[k], out);
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
    if (request->count == 0)
        return FD_FILES_DONE;

    files_run run = {
        .request = request,
        .digests_len = fd_files_digests_len(request->algorithms, request->algorithm_count),
        .chunk_len = request->chunk_len != 0 ? request->chunk_len : FD_FILES_CHUNK_LEN,
        .failed = request->count,
        .last_asked_ms = request->keep_going_ms != 0 ? monotonic_ms() : 0,
    };
    size_t parts = request->threads != 0 ? request->threads : 1;
    if (parts > request->count)
        parts = request->count;

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
    return FD_FILES_DONE;
}
