/* A big file on two threads with its algorithms split between them
 * (pair.h): the file's thread reads each chunk into one of the ring's
 * FD_SPLIT_BUFFERS buffers, once the second thread has handed that buffer
 * back, passes it on and feeds its share of the algorithms; the second
 * thread feeds its share from the same buffer and hands it back. The
 * shares are made so that the busier thread, the reads counted to the
 * file's thread, is as little busy as it can be: the file takes that
 * thread's time, less than all the hashing when the algorithms share out
 * evenly enough (MD5 beside SHA-1 and SHA-256).
 *
 * One thread reads, so every algorithm is fed the bytes of the same reads,
 * to the same short one that ends the file. A buffer's bytes and length
 * pass with the count of chunks read (a release, under the pair's lock)
 * and come back with the count of chunks hashed. */
#include "files/pair.h"

/* The file's thread: every chunk after the first. */
static void read_and_feed(fd_files_pair *p)
{
    for (size_t chunk = 1;; chunk++) {
        const size_t slot = chunk % FD_SPLIT_BUFFERS;
        /* The slot is free once the second thread has hashed the chunk
         * FD_SPLIT_BUFFERS before: chunk 0 it never had. */
        if (chunk >= FD_SPLIT_BUFFERS &&
            !fd_pair_wait_for_count(p, &p->second_hashed, chunk - FD_SPLIT_BUFFERS + 1, 0))
            return;
        size_t got = 0;
        unsigned long error = 0;
        const fd_io_result read = fd_pair_read(p, 0, p->buffers[slot], chunk, &got, &error);
        if (read != FD_IO_OK) {
            fd_pair_end_after_read(p, read, error);
            return;
        }
        p->lens[slot] = got;
        fd_pair_pass_on(p, &p->passed, chunk + 1);
        fd_files_feed(p->h, p->shares, 0, p->buffers[slot], got);
        if (got < p->chunk_len || !fd_pair_goes_on(p, 0))
            return;
    }
}

/* The second thread: its share of every chunk after the first, as they
 * are passed on, to the short one that ends the file. */
static void feed_what_is_read(fd_files_pair *p)
{
    for (size_t chunk = 1;; chunk++) {
        if (!fd_pair_wait_for_count(p, &p->passed, chunk + 1, 1))
            return;
        const size_t slot = chunk % FD_SPLIT_BUFFERS;
        const size_t got = p->lens[slot];
        fd_files_feed(p->h, p->shares, 1, p->buffers[slot], got);
        fd_pair_pass_on(p, &p->second_hashed, chunk + 1);
        if (got < p->chunk_len || !fd_pair_goes_on(p, 1))
            return;
    }
}

void fd_pair_split(fd_files_pair *p, size_t runner)
{
    if (runner == 0)
        read_and_feed(p);
    else
        feed_what_is_read(p);
}
