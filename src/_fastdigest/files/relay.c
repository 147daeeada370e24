/* A big file on two threads in relay (pair.h): each thread reads every
 * other chunk, at its offset, into its own buffer while the other hashes
 * the chunk before, then takes the hash states and hashes its chunk with
 * every algorithm out of its own cache. The copy out of the page cache
 * overlaps with the hashing, and only the states cross between the cores:
 * the file takes its hashing's time. (A thread that read for the hashing
 * one instead made the hashing fetch every chunk from the other core's
 * cache, which cost more than the overlapped copy saved.)
 *
 * The chunks are hashed in order, each from its one read, and the first
 * that comes short ends the file: a chunk read after it is not hashed. */
#include "files/pair.h"

/* runner's chunks: 2, 4, ... for the file's thread, which hashed chunk 0,
 * and 1, 3, ... for the second. */
void fd_pair_relay(fd_files_pair *p, size_t runner)
{
    uint8_t *buffer = p->buffers[runner];
    for (size_t chunk = runner == 0 ? 2 : 1;; chunk += 2) {
        size_t got = 0;
        unsigned long error = 0;
        const fd_io_result read = fd_pair_read(p, runner, buffer, chunk, &got, &error);
        if (read == FD_IO_INTERRUPTED) {
            fd_pair_end(p, FD_FILE_ABANDONED, 0);
            return;
        }
        /* A failed read counts only if the chunks before it are hashed:
         * one of them may end the file first. */
        if (!fd_pair_wait_for_count(p, &p->passed, chunk, runner))
            return;
        if (read == FD_IO_FAILED) {
            fd_pair_end(p, FD_FILE_FAILED, error);
            return;
        }
        const uint64_t hashing_began = fd_monotonic_ns();
        fd_files_feed(p->h, NULL, runner, buffer, got);
        const uint64_t hashing_ns = fd_monotonic_ns() - hashing_began;
        /* The other thread's next chunk takes about as long as this one. */
        p->poll_ns[runner] = hashing_ns + hashing_ns / FD_POLL_SLACK_DIVISOR;
        if (got < p->chunk_len) {
            fd_pair_end(p, FD_FILE_HASHED, 0);
            return;
        }
        if (!fd_pair_goes_on(p, runner))
            return;
        fd_pair_pass_on(p, &p->passed, chunk + 1);
    }
}
