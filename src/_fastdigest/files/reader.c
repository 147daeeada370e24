/* One file read and hashed (reader.h): alone, or a big one by two threads,
 * which this file sets going (the first chunk, timed; relay or split; the
 * second thread started and waited for) and pair.h describes. */
#include "files/reader.h"

#include <stdlib.h>

#include "files/pair.h"
#include "files/system.h"

/* A regular file this many chunks long or more is hashed by two threads
 * when one of the request's threads is idle; making the second thread is
 * lost in the hashing of this many chunks. */
#define PAIR_MIN_CHUNKS 32

/* The file read and hashed by this thread alone, read after read, at its
 * position. A git object's header told the size the open found, so its
 * content must be that size exactly: it fails as soon as it is longer, or
 * when it ends shorter. It has that size when a read that asked for more
 * came short at it, as a regular file's read does only at its end, so that
 * a small file takes one read; a read that filled the buffer up to it is
 * followed by one more, which must find the end. */
static fd_file_result hash_alone(const fd_file_hashing *h, fd_open_file *file, uint8_t *buffer,
                                 unsigned long *error)
{
    const size_t chunk_len = h->run->chunk_len;
    const bool exact_size = h->run->request->git_type != NULL;
    uint64_t total = 0;
    for (;;) {
        size_t got = 0;
        const fd_io_result read = fd_file_read(file, buffer, chunk_len, &got, error);
        if (read == FD_IO_END) {
            if (exact_size && total != file->size) {
                *error = FD_FILES_ERROR_SIZE_CHANGED;
                return FD_FILE_FAILED;
            }
            return FD_FILE_HASHED;
        }
        if (read == FD_IO_FAILED)
            return FD_FILE_FAILED;
        if (read == FD_IO_INTERRUPTED) {
            if (!fd_files_calling_thread_goes_on(h->run, h->part, true))
                return FD_FILE_ABANDONED;
            continue;
        }
        if (exact_size && got > file->size - total) {
            *error = FD_FILES_ERROR_SIZE_CHANGED;
            return FD_FILE_FAILED;
        }
        fd_files_feed(h, NULL, 0, buffer, got);
        total += got;
        if (fd_file_known_end(file, total) && (!exact_size || got < chunk_len))
            return FD_FILE_HASHED;
        /* After every read, not only the full ones: a pipe gives less than
         * a chunk at a time, and may never end. */
        if (!fd_files_between_reads(h))
            return FD_FILE_ABANDONED;
    }
}

/* ---- a big file on two threads -------------------------------------------------- */

/* Takes an idle thread of the request's for a file of this size, if it is
 * worth one and there is one. */
static bool take_second_thread(fd_files_run *run, const fd_open_file *file)
{
    if (!file->regular || file->size < PAIR_MIN_CHUNKS * (uint64_t)run->chunk_len)
        return false;
    fd_parallel_lock(run->monitor);
    const bool taken = run->idle_threads > 0;
    if (taken)
        run->idle_threads--;
    fd_parallel_unlock(run->monitor);
    return taken;
}

static void give_back_second_thread(fd_files_run *run, fd_files_pairing used)
{
    fd_parallel_lock(run->monitor);
    run->idle_threads++;
    run->relayed += used == FD_FILES_PAIR_RELAY;
    run->split += used == FD_FILES_PAIR_SPLIT;
    fd_parallel_unlock(run->monitor);
}

static bool run_pair(void *context, size_t runner)
{
    fd_files_pair *p = context;
    if (p->shares == NULL)
        fd_pair_relay(p, runner);
    else
        fd_pair_split(p, runner);
    if (runner == 1) {
        fd_parallel_lock(p->monitor);
        p->second_running = false;
        fd_parallel_wake_all(p->monitor, FD_PAIR_SECOND_ENDED);
        fd_parallel_unlock(p->monitor);
    }
    return true;
}

/* For the file's thread, its own part done: waits for the second thread
 * to return, still answering keep_going if it is the calling thread (the
 * second may have chunks left), then joins it. */
static void wait_for_second(fd_files_pair *p, fd_parallel_thread *second)
{
    bool answers = fd_pair_answers(p, 0);
    fd_parallel_lock(p->monitor);
    while (p->second_running) {
        if (!fd_files_wait_answering(p->h->run, p->monitor, FD_PAIR_SECOND_ENDED, answers)) {
            fd_parallel_unlock(p->monitor);
            fd_pair_end(p, FD_FILE_ABANDONED, 0);
            fd_parallel_lock(p->monitor);
            answers = false; /* asked and answered: the second stops within a chunk */
        }
    }
    fd_parallel_unlock(p->monitor);
    fd_parallel_join(second);
}

/* The file's thread alone after all (no second thread could be made),
 * from the second chunk: every algorithm. */
static void hash_rest_alone(fd_files_pair *p)
{
    for (size_t chunk = 1;; chunk++) {
        size_t got = 0;
        unsigned long error = 0;
        const fd_io_result read = fd_pair_read(p, 0, p->buffers[0], chunk, &got, &error);
        if (read != FD_IO_OK) {
            fd_pair_end_after_read(p, read, error);
            return;
        }
        fd_files_feed(p->h, NULL, 0, p->buffers[0], got);
        if (got < p->chunk_len || !fd_pair_goes_on(p, 0))
            return;
    }
}

/* Shares out the algorithms between the two threads of a split by their
 * times over the first chunk: the file's thread starts with the read's
 * time, which is its alone, then the slowest algorithm goes first, each to
 * the thread with less so far. Sets each thread's load; returns the
 * larger. */
static uint64_t share_out(const uint64_t *times, size_t count, uint64_t read_ns, uint8_t *shares,
                          uint64_t loads[2])
{
    loads[0] = read_ns;
    loads[1] = 0;
    for (size_t k = 0; k < count; k++)
        shares[k] = UINT8_MAX;
    for (size_t n = 0; n < count; n++) {
        size_t slowest = count;
        for (size_t k = 0; k < count; k++) {
            if (shares[k] == UINT8_MAX && (slowest == count || times[k] > times[slowest]))
                slowest = k;
        }
        const uint8_t runner = loads[1] < loads[0];
        shares[slowest] = runner;
        loads[runner] += times[slowest];
    }
    return loads[0] > loads[1] ? loads[0] : loads[1];
}

/* The file hashed by this thread and a second one: the first chunk here,
 * then the rest in relay or split (*used), or by this thread alone when the
 * thread cannot be made (*used is FD_FILES_PAIR_CHOSEN). Returns false,
 * with nothing read, when the memory cannot be had: then the caller reads
 * the file alone. */
static bool hash_in_pair(const fd_file_hashing *h, fd_open_file *file, uint8_t *buffer,
                         fd_file_result *result, unsigned long *error, fd_files_pairing *used)
{
    const fd_files_request *request = h->run->request;
    const size_t count = request->algorithm_count;
    fd_files_pair p = {.h = h, .file = file, .chunk_len = h->run->chunk_len, .buffers = {buffer}};
    fd_published_size_store(&p.passed, 1);
    fd_published_size_store(&p.second_hashed, 1);
    /* Each algorithm's time and share, and the second thread's buffer (a
     * split's others come once it is chosen). */
    uint64_t *times = malloc(count * (sizeof(uint64_t) + 1));
    p.buffers[1] = times != NULL ? malloc(p.chunk_len) : NULL;
    p.monitor = p.buffers[1] != NULL ? fd_parallel_monitor_new() : NULL;
    if (p.monitor == NULL) {
        free(p.buffers[1]);
        free(times);
        return false;
    }
    uint8_t *shares = (uint8_t *)(times + count);

    size_t got = 0;
    const uint64_t read_began = fd_monotonic_ns();
    const fd_io_result read = fd_pair_read(&p, 0, buffer, 0, &got, error);
    const uint64_t read_ns = fd_monotonic_ns() - read_began;
    uint64_t all_ns = 0;
    for (size_t k = 0; read == FD_IO_OK && k < count; k++) {
        const uint64_t began = fd_monotonic_ns();
        fd_algorithms[request->algorithms[k]].update(&h->states[k], buffer, got);
        times[k] = fd_monotonic_ns() - began;
        all_ns += times[k];
    }
    *result = read == FD_IO_OK       ? FD_FILE_HASHED
              : read == FD_IO_FAILED ? FD_FILE_FAILED
                                     : FD_FILE_ABANDONED;
    *used = FD_FILES_PAIR_CHOSEN;
    if (read == FD_IO_OK && got == p.chunk_len && !fd_files_between_reads(h)) {
        *result = FD_FILE_ABANDONED;
    }
    else if (read == FD_IO_OK && got == p.chunk_len) {
        uint64_t loads[2] = {0, 0};
        const uint64_t busier_ns = count > 1 ? share_out(times, count, read_ns, shares, loads) : 0;
        bool split = count > 1 && (request->pairing == FD_FILES_PAIR_CHOSEN
                                       ? busier_ns < all_ns
                                       : request->pairing == FD_FILES_PAIR_SPLIT);
        /* Without the memory for its ring, a relay. */
        for (size_t b = 2; split && b < FD_SPLIT_BUFFERS; b++) {
            p.buffers[b] = malloc(p.chunk_len);
            split = p.buffers[b] != NULL;
        }
        p.shares = split ? shares : NULL;
        /* Each thread waits for the other's part of a chunk: in relay all
         * of the hashing, in a split the other's load. */
        for (size_t runner = 0; runner < 2; runner++) {
            const uint64_t other_ns = split ? loads[1 - runner] : all_ns;
            p.poll_ns[runner] = other_ns + other_ns / FD_POLL_SLACK_DIVISOR;
        }
        p.second_running = true;
        fd_parallel_thread *second = fd_parallel_start(run_pair, &p, 1);
        if (second != NULL) {
            *used = split ? FD_FILES_PAIR_SPLIT : FD_FILES_PAIR_RELAY;
            run_pair(&p, 0);
            wait_for_second(&p, second);
        }
        else {
            hash_rest_alone(&p);
        }
        *result = fd_pair_over(&p) ? p.result : FD_FILE_HASHED;
        if (*result == FD_FILE_FAILED)
            *error = p.error;
    }
    fd_parallel_monitor_free(p.monitor);
    for (size_t b = 1; b < FD_SPLIT_BUFFERS; b++)
        free(p.buffers[b]);
    free(times);
    return true;
}

/* ---- one file ------------------------------------------------------------------- */

/* Feeds git's object header, "TYPE SIZE\0", for a file of the size the open
 * found: the size in decimal, without leading zeros. */
static void feed_git_header(const fd_file_hashing *h, const char *type, uint64_t size)
{
    char header[FD_FILES_GIT_TYPE_MAX + 1 + 20 + 1]; /* the type, a space, 2^64 - 1, NUL */
    size_t len = 0;
    while (type[len] != '\0' && len < FD_FILES_GIT_TYPE_MAX) {
        header[len] = type[len];
        len++;
    }
    header[len++] = ' ';
    char digits[20];
    size_t count = 0;
    do {
        digits[count++] = (char)('0' + size % 10);
        size /= 10;
    } while (size != 0);
    while (count > 0)
        header[len++] = digits[--count];
    header[len++] = '\0';
    fd_files_feed(h, NULL, 0, (const uint8_t *)header, len);
}

fd_file_result fd_files_hash_file(fd_files_run *run, size_t part, size_t index,
                                  unsigned long *error)
{
    fd_open_file file;
    fd_io_result opened;

    while ((opened = fd_file_open(run->request->paths[index], run->chunk_len, &file, error)) ==
           FD_IO_INTERRUPTED) {
        if (!fd_files_calling_thread_goes_on(run, part, true))
            return FD_FILE_ABANDONED;
    }
    if (opened == FD_IO_FAILED)
        return FD_FILE_FAILED;
    if (!fd_files_calling_thread_goes_on(run, part, false)) {
        fd_file_close(&file);
        return FD_FILE_ABANDONED;
    }
    return fd_files_hash_open_file(run, part, index, &file, error);
}

fd_file_result fd_files_hash_open_file(fd_files_run *run, size_t part, size_t index,
                                       fd_open_file *open_file, unsigned long *error)
{
    const fd_files_request *request = run->request;
    const fd_file_hashing h = {
        .run = run,
        .part = part,
        .index = index,
        .states = run->states + part * request->algorithm_count,
    };
    uint8_t *buffer = run->buffers + part * run->chunk_len;
    fd_open_file file = *open_file;

    if (request->git_type != NULL && !file.regular) {
        fd_file_close(&file);
        *error = FD_FILES_ERROR_NOT_REGULAR;
        return FD_FILE_FAILED;
    }
    for (size_t k = 0; k < request->algorithm_count; k++)
        fd_algorithms[request->algorithms[k]].init(&h.states[k]);
    if (request->git_type != NULL)
        feed_git_header(&h, request->git_type, file.size);
    fd_file_result result;
    /* A git object's file stays with this thread: the pair reads no
     * further than the size the open found, and its size must be checked
     * against the end of the file. */
    if (request->git_type == NULL && take_second_thread(run, &file)) {
        fd_files_pairing used = FD_FILES_PAIR_CHOSEN;
        const bool paired = hash_in_pair(&h, &file, buffer, &result, error, &used);
        give_back_second_thread(run, used);
        if (!paired)
            result = hash_alone(&h, &file, buffer, error);
    }
    else {
        result = hash_alone(&h, &file, buffer, error);
    }
    fd_file_close(&file);
    if (result != FD_FILE_HASHED)
        return result;

    uint8_t *out = request->digests + index * run->digests_len;
    for (size_t k = 0; k < request->algorithm_count; k++) {
        const fd_algorithm *algorithm = &fd_algorithms[request->algorithms[k]];
        algorithm->final(&h.states[k], out);
        out += algorithm->digest_len;
    }
    return FD_FILE_HASHED;
}
