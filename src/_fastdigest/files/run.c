/* What the threads of one fd_hash_files call share (run.h): the counter of
 * files taken, the first failure, the stop, the calling thread's
 * questions, and the start of the other parts. */
#include "files/run.h"

#include "files/system.h"

void fd_files_start_parts(fd_files_run *run, size_t parts)
{
    if (run->threads == NULL)
        return;
    for (size_t part = 1; part < parts; part++) {
        fd_parallel_lock(run->monitor);
        run->running_parts++;
        fd_parallel_unlock(run->monitor);
        run->threads[run->started] = fd_parallel_start(run->part_task, run, part);
        if (run->threads[run->started] != NULL) {
            run->started++;
        }
        else {
            fd_parallel_lock(run->monitor);
            run->running_parts--;
            fd_parallel_unlock(run->monitor);
        }
    }
}

bool fd_files_take_file(fd_files_run *run, size_t *index)
{
    fd_parallel_lock(run->monitor);
    const bool taken = !run->stopped && run->next < run->failed;
    if (taken)
        *index = run->next++;
    else
        run->idle_threads++;
    fd_parallel_unlock(run->monitor);
    return taken;
}

bool fd_files_still_wanted(fd_files_run *run, size_t index)
{
    fd_parallel_lock(run->monitor);
    const bool wanted = !run->stopped && index < run->failed;
    fd_parallel_unlock(run->monitor);
    return wanted;
}

void fd_files_record_failure(fd_files_run *run, size_t index, unsigned long error)
{
    fd_parallel_lock(run->monitor);
    if (index < run->failed) {
        run->failed = index;
        run->error = error;
    }
    fd_parallel_unlock(run->monitor);
}

bool fd_files_calling_thread_goes_on(fd_files_run *run, size_t part, bool forced)
{
    const fd_files_request *request = run->request;
    if (part != 0 || request->keep_going == NULL)
        return true;
    /* Read without the lock: this thread is the only one that sets it. */
    if (run->stopped)
        return false;
    const uint64_t now = request->keep_going_ms != 0 ? fd_monotonic_ms() : 0;
    if (!forced && now - run->last_asked_ms < request->keep_going_ms)
        return true;
    run->last_asked_ms = now;
    if (request->keep_going(request->keep_going_context))
        return true;
    fd_parallel_lock(run->monitor);
    run->stopped = true;
    fd_parallel_unlock(run->monitor);
    return false;
}

bool fd_files_wait_answering(fd_files_run *run, fd_parallel_monitor *monitor, unsigned condition,
                             bool answers)
{
    const fd_files_request *request = run->request;
    if (!answers || request->keep_going == NULL) {
        fd_parallel_wait(monitor, condition);
        return true;
    }
    fd_parallel_wait_at_most(monitor, condition, request->keep_going_ms);
    fd_parallel_unlock(monitor);
    const bool go_on = fd_files_calling_thread_goes_on(run, 0, false);
    fd_parallel_lock(monitor);
    return go_on;
}

void fd_files_feed(const fd_file_hashing *h, const uint8_t *shares, size_t runner,
                   const uint8_t *data, size_t len)
{
    const fd_files_request *request = h->run->request;
    for (size_t k = 0; k < request->algorithm_count; k++) {
        if (shares == NULL || shares[k] == runner)
            fd_algorithms[request->algorithms[k]].update(&h->states[k], data, len);
    }
}

bool fd_files_between_reads(const fd_file_hashing *h)
{
    return fd_files_still_wanted(h->run, h->index) &&
           fd_files_calling_thread_goes_on(h->run, h->part, false);
}
