/* The system's files and clock for the file reader (system.h): POSIX's or
 * Windows'. */

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

#include "files/system.h"

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

#ifdef _WIN32
/* As the C runtime's _wopen opens for open() (share modes, an existing
 * file), with the hint of a sequential read. A directory fails here with
 * ERROR_ACCESS_DENIED, as it does for open(): it takes
 * FILE_FLAG_BACKUP_SEMANTICS to open one. A file on disk has a size; a
 * pipe or a console does not. */
fd_io_result fd_file_open(const fd_path_char *path, size_t chunk_len, fd_open_file *file,
                          unsigned long *error)
{
    (void)chunk_len;
    HANDLE handle = CreateFileW(path, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE, NULL,
                                OPEN_EXISTING, FILE_FLAG_SEQUENTIAL_SCAN, NULL);
    if (handle == INVALID_HANDLE_VALUE) {
        *error = GetLastError();
        return FD_IO_FAILED;
    }
    file->handle = handle;
    LARGE_INTEGER size;
    file->regular = GetFileType(handle) == FILE_TYPE_DISK && GetFileSizeEx(handle, &size) &&
                    size.QuadPart >= 0;
    file->size = file->regular ? (uint64_t)size.QuadPart : 0;
    return FD_IO_OK;
}

/* ReadFile takes a DWORD count; chunks are far smaller. The end of a pipe
 * whose writer closed it is ERROR_BROKEN_PIPE, which the C runtime's read
 * reports as the end of file too. */
fd_io_result fd_file_read(fd_open_file *file, uint8_t *buffer, size_t len, size_t *got,
                          unsigned long *error)
{
    DWORD count = 0;
    if (!ReadFile(file->handle, buffer, (DWORD)len, &count, NULL)) {
        DWORD code = GetLastError();
        if (code == ERROR_BROKEN_PIPE)
            return FD_IO_END;
        *error = code;
        return FD_IO_FAILED;
    }
    *got = count;
    return count == 0 ? FD_IO_END : FD_IO_OK;
}

/* On a handle opened for synchronous reads, ReadFile reads at the
 * OVERLAPPED's offset and returns when it has. */
fd_io_result fd_file_read_at(fd_open_file *file, uint8_t *buffer, size_t len, uint64_t offset,
                             size_t *got, unsigned long *error)
{
    OVERLAPPED at = {0};
    at.Offset = (DWORD)offset;
    at.OffsetHigh = (DWORD)(offset >> 32);
    DWORD count = 0;
    if (!ReadFile(file->handle, buffer, (DWORD)len, &count, &at)) {
        DWORD code = GetLastError();
        if (code == ERROR_HANDLE_EOF)
            return FD_IO_END;
        *error = code;
        return FD_IO_FAILED;
    }
    *got = count;
    return count == 0 ? FD_IO_END : FD_IO_OK;
}

void fd_file_close(fd_open_file *file)
{
    CloseHandle(file->handle);
}

uint64_t fd_monotonic_ms(void)
{
    return GetTickCount64();
}

uint64_t fd_monotonic_ns(void)
{
    LARGE_INTEGER frequency, now;
    if (!QueryPerformanceFrequency(&frequency) || !QueryPerformanceCounter(&now))
        return 0;
    const uint64_t ticks = (uint64_t)now.QuadPart, per_second = (uint64_t)frequency.QuadPart;
    return ticks / per_second * 1000000000u + ticks % per_second * 1000000000u / per_second;
}
#else
/* As open() opens for reading: O_RDONLY | O_CLOEXEC, and a directory,
 * which opens, refused with EISDIR after fstat, as open() refuses it. */
fd_io_result fd_file_open(const fd_path_char *path, size_t chunk_len, fd_open_file *file,
                          unsigned long *error)
{
    int descriptor = open(path, O_RDONLY | O_CLOEXEC);
    if (descriptor < 0) {
        *error = (unsigned long)errno;
        return errno == EINTR ? FD_IO_INTERRUPTED : FD_IO_FAILED;
    }
    struct stat status;
    if (fd_fstat(descriptor, &status) != 0) {
        *error = (unsigned long)errno;
        close(descriptor);
        return FD_IO_FAILED;
    }
    if (S_ISDIR(status.st_mode)) {
        *error = EISDIR;
        close(descriptor);
        return FD_IO_FAILED;
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
    return FD_IO_OK;
}

fd_io_result fd_file_read(fd_open_file *file, uint8_t *buffer, size_t len, size_t *got,
                          unsigned long *error)
{
    ssize_t count = read(file->descriptor, buffer, len);
    if (count < 0) {
        *error = (unsigned long)errno;
        return errno == EINTR ? FD_IO_INTERRUPTED : FD_IO_FAILED;
    }
    *got = (size_t)count;
    return count == 0 ? FD_IO_END : FD_IO_OK;
}

fd_io_result fd_file_read_at(fd_open_file *file, uint8_t *buffer, size_t len, uint64_t offset,
                             size_t *got, unsigned long *error)
{
    ssize_t count = pread(file->descriptor, buffer, len, (off_t)offset);
    if (count < 0) {
        *error = (unsigned long)errno;
        return errno == EINTR ? FD_IO_INTERRUPTED : FD_IO_FAILED;
    }
    *got = (size_t)count;
    return count == 0 ? FD_IO_END : FD_IO_OK;
}

void fd_file_close(fd_open_file *file)
{
    close(file->descriptor);
}

uint64_t fd_monotonic_ms(void)
{
    struct timespec now;
    if (clock_gettime(CLOCK_MONOTONIC, &now) != 0)
        return 0;
    return (uint64_t)now.tv_sec * 1000u + (uint64_t)now.tv_nsec / 1000000u;
}

uint64_t fd_monotonic_ns(void)
{
    struct timespec now;
    if (clock_gettime(CLOCK_MONOTONIC, &now) != 0)
        return 0;
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}
#endif

bool fd_file_stamp_of(const fd_open_file *file, fd_file_stamp *stamp, unsigned long *error)
{
#ifdef _WIN32
    LARGE_INTEGER size;
    FILETIME written;
    if (!GetFileSizeEx(file->handle, &size) || !GetFileTime(file->handle, NULL, NULL, &written)) {
        *error = GetLastError();
        return false;
    }
    /* FILETIME counts 100 ns ticks. */
    const uint64_t ticks = ((uint64_t)written.dwHighDateTime << 32) | written.dwLowDateTime;
    stamp->size = (uint64_t)size.QuadPart;
    stamp->modified_seconds = (int64_t)(ticks / 10000000u);
    stamp->modified_fraction = (int64_t)(ticks % 10000000u * 100u);
#else
    struct stat status;
    if (fd_fstat(file->descriptor, &status) != 0) {
        *error = (unsigned long)errno;
        return false;
    }
    stamp->size = status.st_size >= 0 ? (uint64_t)status.st_size : 0;
    stamp->modified_seconds = (int64_t)status.st_mtime;
#if defined(__linux__)
    stamp->modified_fraction = (int64_t)status.st_mtim.tv_nsec;
#else
    /* Elsewhere the nanoseconds' field has another name per system. */
    stamp->modified_fraction = 0;
#endif
#endif
    return true;
}
