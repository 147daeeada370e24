/* What the file reader asks of the system (files/system.c): a file opened
 * for reading, with what its type and size say of its end; reads at the
 * file's position or at an offset; its close; and a clock that only goes
 * forward. POSIX open/fstat/read/pread/close and clock_gettime, or Windows'
 * CreateFileW/ReadFile/CloseHandle and its tick counters, behind one
 * interface. A call that a signal interrupted says so (FD_IO_INTERRUPTED)
 * instead of retrying, so that the thread that answers for the caller can
 * ask keep_going (files.h) first. Plain C: no Python.h. */
#ifndef FD_CORE_FILES_SYSTEM_H
#define FD_CORE_FILES_SYSTEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "files/request.h"

typedef enum fd_io_result {
    FD_IO_OK,
    FD_IO_END,         /* a read: the end of the file */
    FD_IO_INTERRUPTED, /* a signal came first (EINTR): the caller may ask keep_going, then retry */
    FD_IO_FAILED,      /* the error code says what */
} fd_io_result;

/* An open file, and what its type and size say of its end. */
typedef struct fd_open_file {
#ifdef _WIN32
    void *handle; /* a HANDLE, without <windows.h> here */
#else
    int descriptor;
#endif
    bool regular;  /* a regular file, whose size the system told at the open */
    uint64_t size; /* its size then */
} fd_open_file;

/* Opens path for reading as open() opens it (a directory refused as open()
 * refuses it: EISDIR on POSIX, ERROR_ACCESS_DENIED on Windows), with the
 * hint of a sequential read for a regular file of a few chunks or more.
 * On FD_IO_FAILED or FD_IO_INTERRUPTED, *error is the system's code and
 * nothing is open. */
fd_io_result fd_file_open(const fd_path_char *path, size_t chunk_len, fd_open_file *file,
                          unsigned long *error);

/* Reads up to len bytes at the file's position into buffer: FD_IO_OK with
 * *got of them (a pipe may give fewer), or FD_IO_END at the end. */
fd_io_result fd_file_read(fd_open_file *file, uint8_t *buffer, size_t len, size_t *got,
                          unsigned long *error);

/* The same at an offset, without moving the file's position as another
 * thread sees it: for two threads reading one file. */
fd_io_result fd_file_read_at(fd_open_file *file, uint8_t *buffer, size_t len, uint64_t offset,
                             size_t *got, unsigned long *error);

/* What a file's size and modification time were at one moment: two equal
 * stamps, before and after its reads, say that it did not change in
 * between, as far as the system's clock tells (nanoseconds on Linux and
 * Windows' 100 ns, whole seconds elsewhere). */
typedef struct fd_file_stamp {
    uint64_t size;
    int64_t modified_seconds;
    int64_t modified_fraction;
} fd_file_stamp;

/* The file's size and modification time now, read from the open file.
 * false with *error the system's code where the system cannot tell. */
bool fd_file_stamp_of(const fd_open_file *file, fd_file_stamp *stamp, unsigned long *error);

/* A file open for reading loses nothing when its close fails. */
void fd_file_close(fd_open_file *file);

/* After total bytes read: whether the file has surely ended, which spares
 * the read that would return 0 (a system call per file, which counts among
 * small files). A regular file read to the size the open found has: bytes
 * written after that end meanwhile are not read, and one whose size says
 * nothing (/proc's, of size 0) never reaches it and is read to the read
 * that returns 0. */
static inline bool fd_file_known_end(const fd_open_file *file, uint64_t total)
{
    return file->regular && total == file->size;
}

/* Milliseconds and nanoseconds from some fixed moment, for the calling
 * thread's questions and the timings of a big file's first chunk: a few
 * nanoseconds a call (the vDSO on Linux). 0 when the clock fails, which
 * makes the timings 0 and the choice for a big file a relay. */
uint64_t fd_monotonic_ms(void);
uint64_t fd_monotonic_ns(void);

#endif /* FD_CORE_FILES_SYSTEM_H */
