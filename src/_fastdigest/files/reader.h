/* One file of an fd_hash_files call read and hashed by the thread of the
 * part that took it (files/reader.c): opened, its algorithms started, read
 * to its end and fed to each of them, and its digests written into the
 * request's. A big regular file, when one of the call's threads is idle,
 * is read with that thread's help (files/pair.h); any other file is read
 * by this thread alone, at its position, each read fed to every algorithm
 * before the next, and a regular one only to the size the open found.
 * Plain C: no Python.h. */
#ifndef FD_CORE_FILES_READER_H
#define FD_CORE_FILES_READER_H

#include <stddef.h>

#include "files/run.h"
#include "files/system.h"

/* Hashes file index for part: FD_FILE_HASHED with its digests written,
 * FD_FILE_FAILED with the system's *error (of the open, a read, or EISDIR
 * for a directory on POSIX), or FD_FILE_ABANDONED. */
fd_file_result fd_files_hash_file(fd_files_run *run, size_t part, size_t index,
                                  unsigned long *error);

/* The same for a file the thread opened already (fd_file_open), which it
 * closes: from after the open. */
fd_file_result fd_files_hash_open_file(fd_files_run *run, size_t part, size_t index,
                                       fd_open_file *file, unsigned long *error);

#endif /* FD_CORE_FILES_READER_H */
