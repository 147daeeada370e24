/* One file hashed in parts of equal length (the last shorter), each part's
 * digest on its own, as an object store's multipart upload computes them
 * (S3's ETag and composite checksums, fastdigest/_s3.py).
 *
 * The parts are independent messages, so they go through the lanes of the
 * family's multi-buffer kernel side by side, on several threads: each
 * thread holds up to a kernel's lanes of parts at a time and, round after
 * round, reads the next stripe of each of them (pread at the part's own
 * offset) into a buffer of its own and hands the stripes to the kernel in
 * one call, so that each lane is a part fed chunk by chunk. Each byte is
 * read once, memory is a stripe per lane per thread whatever the size of
 * the file, and each thread starts with parts of its own, after which a
 * lane whose part is done takes the next part not yet taken. A thread with too few parts for the lanes to pay
 * (fd_batch_lanes_pay) hashes its stripes with the single-stream kernel.
 *
 * A part's digest is of the bytes the file held when it was opened: a read
 * that ends before the size the open found, or a size or modification time
 * that differs after the last read, makes the call fail with
 * FD_PARTS_CHANGED rather than give digests of a file that was never on
 * disk. Never mapped: a mapping of a file cut short meanwhile faults
 * (SIGBUS) where a read just comes short. Plain C: no Python.h. */
#ifndef FD_CORE_FILES_PARTS_H
#define FD_CORE_FILES_PARTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dispatch/dispatch.h"
#include "files/files.h"
#include "files/system.h"
#include "hash/algorithms.h"

/* A file open for fd_hash_parts, with its stamp at the open. */
typedef struct fd_parts_file {
    fd_open_file file;
    fd_file_stamp opened;
} fd_parts_file;

/* Opens path for reading (fd_file_open) and stamps it. On FD_IO_FAILED or
 * FD_IO_INTERRUPTED, *error is the system's code and nothing is open. A
 * file that is not regular opens (its parts cannot be known: see
 * file.regular). */
fd_io_result fd_parts_open(const fd_path_char *path, fd_parts_file *file, unsigned long *error);
void fd_parts_close(fd_parts_file *file);

typedef enum fd_parts_status {
    FD_PARTS_DONE,
    FD_PARTS_FAILED,    /* a read or the stamp failed: the error code says why */
    FD_PARTS_CHANGED,   /* the file ended early, or its stamp changed */
    FD_PARTS_NO_MEMORY, /* no buffers even for one thread */
    FD_PARTS_STOPPED,   /* keep_going said to stop */
} fd_parts_status;

typedef struct fd_parts_request {
    fd_parts_file *file;            /* regular, opened by fd_parts_open */
    enum fd_algorithm_id algorithm; /* each part's digest */
    /* Every part's length but the last's, which is what is left: parts
     * cover [0, file size); a file of 0 bytes is one part of 0 bytes. */
    uint64_t part_len;
    size_t part_count; /* the file's size in part_len, rounded up, at least 1 */
    /* The lanes (fd_batch_multi_kernel's); NULL: the single-stream kernel
     * alone, part after part (benchmarks compare the two). */
    const fd_multi_kernel *multi;
    size_t threads; /* at most this many, the calling one included; 0 as 1 */
    /* part_count digests of the algorithm, one after another in order. */
    uint8_t *digests;
    /* Asked by the calling thread alone, every keep_going_ms milliseconds
     * between rounds (files.h's fd_files_keep_going); NULL: never. */
    fd_files_keep_going *keep_going;
    void *keep_going_context;
    unsigned keep_going_ms;
} fd_parts_request;

/* Hashes every part of request->file into request->digests (see the top
 * of this file), and on FD_PARTS_DONE checks that the file's stamp is the
 * one of its open. *error is the system's code for FD_PARTS_FAILED.
 * Blocks as the system's reads do. Safe to run beside itself once the
 * kernels are selected. */
fd_parts_status fd_hash_parts(const fd_parts_request *request, unsigned long *error);

#endif /* FD_CORE_FILES_PARTS_H */
