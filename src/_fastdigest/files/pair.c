/* The hand-overs between the two threads of a big file (pair.h). */
#include "files/pair.h"

void fd_pair_end(fd_files_pair *p, fd_file_result result, unsigned long error)
{
    fd_parallel_lock(p->monitor);
    if (!fd_pair_over(p)) {
        p->result = result;
        p->error = error;
        fd_published_size_store(&p->passed, FD_PAIR_OVER);
        fd_parallel_wake_all(p->monitor, FD_PAIR_PASSED);
    }
    fd_parallel_unlock(p->monitor);
}

void fd_pair_end_after_read(fd_files_pair *p, fd_io_result read, unsigned long error)
{
    fd_pair_end(p, read == FD_IO_FAILED ? FD_FILE_FAILED : FD_FILE_ABANDONED, error);
}

bool fd_pair_goes_on(fd_files_pair *p, size_t runner)
{
    const bool go_on = runner == 0 ? fd_files_between_reads(p->h)
                                   : fd_files_still_wanted(p->h->run, p->h->index);
    if (!go_on)
        fd_pair_end(p, FD_FILE_ABANDONED, 0);
    return go_on && !fd_pair_over(p);
}

bool fd_pair_wait_for_count(fd_files_pair *p, fd_published_size *count, size_t at_least,
                            size_t runner)
{
    const uint64_t deadline = fd_monotonic_ns() + p->poll_ns[runner];
    do {
        if (fd_pair_over(p))
            return false;
        if (fd_published_size_load(count) >= at_least)
            return true;
        fd_parallel_yield();
    } while (fd_monotonic_ns() < deadline);
    fd_parallel_lock(p->monitor);
    bool go_on = true;
    while (go_on && !fd_pair_over(p) && fd_published_size_load(count) < at_least)
        go_on = fd_files_wait_answering(p->h->run, p->monitor, FD_PAIR_PASSED,
                                        fd_pair_answers(p, runner));
    fd_parallel_unlock(p->monitor);
    if (!go_on)
        fd_pair_end(p, FD_FILE_ABANDONED, 0);
    return go_on && !fd_pair_over(p);
}

void fd_pair_pass_on(fd_files_pair *p, fd_published_size *count, size_t value)
{
    fd_parallel_lock(p->monitor);
    if (!fd_pair_over(p))
        fd_published_size_store(count, value);
    fd_parallel_wake_all(p->monitor, FD_PAIR_PASSED);
    fd_parallel_unlock(p->monitor);
}

fd_io_result fd_pair_read(fd_files_pair *p, size_t runner, uint8_t *buffer, size_t chunk,
                          size_t *got, unsigned long *error)
{
    const uint64_t offset = (uint64_t)chunk * p->chunk_len;
    const uint64_t left = p->file->size > offset ? p->file->size - offset : 0;
    const size_t len = left < p->chunk_len ? (size_t)left : p->chunk_len;
    *got = 0;
    while (*got < len) {
        size_t count = 0;
        const fd_io_result read = fd_file_read_at(p->file, buffer + *got, len - *got, offset + *got,
                                                  &count, error);
        if (read == FD_IO_INTERRUPTED) {
            if (fd_pair_answers(p, runner) &&
                !fd_files_calling_thread_goes_on(p->h->run, p->h->part, true))
                return FD_IO_INTERRUPTED;
            continue;
        }
        if (read == FD_IO_END)
            break;
        if (read == FD_IO_FAILED)
            return FD_IO_FAILED;
        *got += count;
    }
    return FD_IO_OK;
}
