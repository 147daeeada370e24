/* digest_files' C call (files.h): the parts of a call, each a thread that
 * takes the next file not yet taken and hashes it (reader.h), until none is
 * left; the calling thread runs part 0 and then waits for the others,
 * answering keep_going; the first failure in order is the outcome. */
#include "files/files.h"

#include <stdlib.h>

#include "files/file_lanes.h"
#include "files/reader.h"
#include "files/run.h"
#include "files/system.h"
#include "platform/parallel.h"

enum { PART_ENDED }; /* the run's condition: a part on a thread of its own returned */

/* One thread's part: files in its lanes, or one at a time, until none is
 * left to take. */
static bool run_part(void *context, size_t part)
{
    fd_files_run *run = context;
    if (run->plan.multi == NULL || !fd_files_hash_in_lanes(run, part)) {
        size_t index;
        while (fd_files_take_file(run, &index)) {
            unsigned long error = 0;
            if (fd_files_hash_file(run, part, index, &error) == FD_FILE_FAILED)
                fd_files_record_failure(run, index, error);
        }
    }
    if (part != 0) {
        fd_parallel_lock(run->monitor);
        run->running_parts--;
        fd_parallel_wake_all(run->monitor, PART_ENDED);
        fd_parallel_unlock(run->monitor);
    }
    return true;
}

/* Runs the parts: part 0 on the calling thread, each other on a thread of
 * its own, started before part 0 runs or, while part 0 is to choose its
 * lanes, by part 0 once it has (file_lanes.h). The calling thread, its own
 * files done, waits for the others still answering keep_going: any of them
 * may read for long yet (a big file, a pipe), and stops at its next read
 * once the run is stopped. */
static void run_parts(fd_files_run *run, size_t parts)
{
    if (run->narrower.multi == NULL)
        fd_files_start_parts(run, parts);
    run_part(run, 0);

    bool answers = true;
    fd_parallel_lock(run->monitor);
    while (run->running_parts > 0)
        answers = fd_files_wait_answering(run, run->monitor, PART_ENDED, answers) && answers;
    fd_parallel_unlock(run->monitor);
    for (size_t i = 0; i < run->started; i++)
        fd_parallel_join(run->threads[i]);
}

size_t fd_files_digests_len(const enum fd_algorithm_id *algorithms, size_t count)
{
    size_t len = 0;
    for (size_t k = 0; k < count; k++)
        len += fd_algorithms[algorithms[k]].digest_len;
    return len;
}

fd_files_status fd_hash_files(const fd_files_request *request, fd_files_outcome *outcome)
{
    outcome->failed = request->count;
    outcome->error = 0;
    outcome->relayed = 0;
    outcome->split = 0;
    outcome->laned = 0;
    outcome->lane_threads = 0;
    if (request->count == 0)
        return FD_FILES_DONE;

    const size_t threads = request->threads != 0 ? request->threads : 1;
    size_t parts = threads < request->count ? threads : request->count;
    fd_files_run run = {
        .request = request,
        .digests_len = fd_files_digests_len(request->algorithms, request->algorithm_count),
        .chunk_len = request->chunk_len != 0 ? request->chunk_len : FD_FILES_CHUNK_LEN,
        .failed = request->count,
        .last_asked_ms = request->keep_going_ms != 0 ? fd_monotonic_ms() : 0,
        .part_task = run_part,
    };
    fd_files_plan_lanes(&run, &parts);
    /* The most parts the run may start: more when part 0 is to choose the
     * narrower kernel's lanes or not. Those it does not start stay idle. */
    if (run.narrower.multi != NULL)
        parts = run.narrower.parts;
    run.idle_threads = threads - parts;

    /* Each part's states, then each part's buffer, in one allocation; the
     * states' size is a multiple of their alignment, so the buffers that
     * follow are aligned as malloc aligns. */
    const size_t states_per_part = request->algorithm_count;
    if (states_per_part > SIZE_MAX / sizeof(fd_hash_state) / parts ||
        run.chunk_len > (SIZE_MAX - parts * states_per_part * sizeof(fd_hash_state)) / parts)
        return FD_FILES_NO_MEMORY;
    const size_t states_size = parts * states_per_part * sizeof(fd_hash_state);
    void *memory = malloc(states_size + parts * run.chunk_len);
    if (memory == NULL)
        return FD_FILES_NO_MEMORY;
    run.states = memory;
    run.buffers = (uint8_t *)memory + states_size;
    run.monitor = fd_parallel_monitor_new();
    if (run.monitor == NULL) {
        free(memory);
        return FD_FILES_NO_MEMORY;
    }
    /* Without room for the threads, part 0 alone goes through the files. */
    run.threads = parts > 1 ? malloc((parts - 1) * sizeof *run.threads) : NULL;

    run_parts(&run, parts);

    free(run.threads);
    fd_parallel_monitor_free(run.monitor);
    free(memory);
    if (run.stopped)
        return FD_FILES_STOPPED;
    outcome->failed = run.failed;
    outcome->error = run.error;
    outcome->relayed = run.relayed;
    outcome->split = run.split;
    outcome->laned = run.laned;
    outcome->lane_threads = run.lane_threads;
    return FD_FILES_DONE;
}
