/* The file drivers' scratch files (test_files.c, test_parts.c): a folder of
 * their own, files written into it, and paths as the file reader takes
 * them. Static inline, for only the file drivers include it; Win32 or POSIX
 * calls as the platform has them. The includer defines _POSIX_C_SOURCE
 * before any header, as it needs other POSIX calls too. */
#ifndef FD_TESTS_SCRATCH_H
#define FD_TESTS_SCRATCH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "files/request.h"
#include "harness.h"

#ifdef _WIN32
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>
#else
#include <sys/stat.h>
#include <unistd.h>
#endif

/* A path as the file reader takes it: the bytes on POSIX, widened on
 * Windows (the tests' names are ASCII). Freed with free(). */
static inline fd_path_char *system_path(const char *path)
{
    const size_t len = strlen(path);
    fd_path_char *out = checked_malloc((len + 1) * sizeof *out);
    for (size_t i = 0; i <= len; i++)
        out[i] = (fd_path_char)(unsigned char)path[i];
    return out;
}

static inline bool write_file(const char *path, const uint8_t *data, size_t len)
{
    FILE *file = fopen(path, "wb");
    if (file == NULL)
        return false;
    const bool ok = fwrite(data, 1, len, file) == len;
    return fclose(file) == 0 && ok;
}

static inline bool make_folder(const char *path)
{
#ifdef _WIN32
    return CreateDirectoryA(path, NULL) != 0;
#else
    return mkdir(path, 0700) == 0;
#endif
}

static inline void remove_folder(const char *path)
{
#ifdef _WIN32
    RemoveDirectoryA(path);
#else
    rmdir(path);
#endif
}

/* Makes a new folder PARENT/PREFIX-N (out, of out_size bytes), beside any a
 * failed run left; false when none could be made. */
static inline bool make_scratch_folder(char *out, size_t out_size, const char *parent,
                                       const char *prefix)
{
    for (unsigned attempt = 0; attempt < 1000; attempt++) {
        const int len = snprintf(out, out_size, "%s/%s-%u", parent, prefix, attempt);
        if (len < 0 || (size_t)len >= out_size)
            return false;
        if (make_folder(out))
            return true;
    }
    return false;
}

#endif
