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
 * first file in order that failed, whichever thread failed first. With one
 * algorithm whose family has a multi-buffer kernel, and files enough, each
 * thread instead holds several files open side by side in the kernel's
 * lanes, a stripe of each read and hashed per round (file_lanes.h), under
 * the same guarantees.
 *
 * POSIX open/fstat/read, or Windows' CreateFileW/ReadFile, behind the same
 * interface; a path is a C string of the file system's bytes on POSIX, a
 * UTF-16 string on Windows. Plain C: no Python.h.
 *
 * The reader's files, each calling only those below it: files.c, the
 * parts of a call and their threads; file_lanes.h, a thread's files in
 * lanes (on lanes.h, the lane-feeding core parts.h shares); reader.h, one
 * file; pair.h, a big file on two threads, in relay (relay.c) or split
 * (split.c); run.h, what the threads of a call share and ask; system.h, the system's files and
 * clock; request.h, the request and its outcome. */
#ifndef FD_CORE_FILES_H
#define FD_CORE_FILES_H

#include <stddef.h>

#include "files/request.h"
#include "hash/algorithms.h"

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
