/* The parts of one task on several threads at once, for work the caller
 * has already cut into independent parts (digest_array's row ranges,
 * data/arrow_hash.c), and the number of CPUs worth cutting it for.
 *
 * No pool: the threads are made for one call and joined before it returns,
 * which costs tens of microseconds a thread, so a caller gives each part
 * about a millisecond of work or more, and no state that outlives a call:
 * the one thing here that belongs to the whole process is its lock (below).
 * POSIX threads, or the Windows CRT's _beginthreadex. Plain C: no Python.h. */
#ifndef FD_CORE_PARALLEL_H
#define FD_CORE_PARALLEL_H

#include <stdbool.h>
#include <stddef.h>

/* One part of a task. Returns false when the part failed (say, an
 * allocation); what it failed at is the task's to record in context. */
typedef bool fd_parallel_task(void *context, size_t part);

/* Runs task(context, part) once for every part in [0, parts): part 0 on the
 * calling thread, each other part on a thread made for it, or on the calling
 * thread after part 0 when that thread cannot be made (the system's limit
 * on threads, or memory): a part is never lost and the call never fails for
 * want of threads. Every part runs, whether or not another failed. Parts may
 * run at the same time, so task must be safe to run beside itself on other
 * parts. Returns once every part has returned, with all that the parts
 * wrote visible to the caller; true when every part returned true (with
 * parts 0, at once). */
bool fd_parallel_run(size_t parts, fd_parallel_task *task, void *context);

/* One part on a thread of its own, for parts that wait for each other (a
 * file read on one thread while another hashes it, files/pair.h), which
 * fd_parallel_run's fallback, running a part after another on the calling
 * thread, would deadlock: fd_parallel_start makes the thread and runs
 * task(context, part) on it, or returns NULL, with nothing run, when the
 * thread cannot be made. fd_parallel_join waits for the part, frees the
 * handle and returns what the part returned. */
typedef struct fd_parallel_thread fd_parallel_thread;
fd_parallel_thread *fd_parallel_start(fd_parallel_task *task, void *context, size_t part);
bool fd_parallel_join(fd_parallel_thread *thread);

/* Offers the rest of the calling thread's time slice to another thread
 * ready to run on its CPU, and returns at once when there is none: the step
 * of a thread that waits briefly for another's store by polling, which then
 * never keeps the thread it waits for off a CPU they share. */
void fd_parallel_yield(void);

/* A lock with two conditions, for the threads of one task to wait for each
 * other's progress (digest_many's pipeline, hash/batch.c): a mutex and two
 * condition variables, pthreads' or Windows' (SRWLOCK and
 * CONDITION_VARIABLE). */
typedef struct fd_parallel_monitor fd_parallel_monitor;

/* A new monitor, or NULL when there is no memory or the system refuses. */
fd_parallel_monitor *fd_parallel_monitor_new(void);
void fd_parallel_monitor_free(fd_parallel_monitor *monitor);
void fd_parallel_lock(fd_parallel_monitor *monitor);
void fd_parallel_unlock(fd_parallel_monitor *monitor);
/* With the lock held: releases it until condition 0 or 1 is signalled (or
 * spuriously: callers wait in a loop on their predicate), then takes it
 * again. */
void fd_parallel_wait(fd_parallel_monitor *monitor, unsigned condition);
/* The same, but returns after about milliseconds (at least 1) if nothing
 * signals the condition before: for a thread that must do something else
 * now and then while it waits (the file reader's calling thread, which
 * answers Ctrl-C). Timed on a clock that no change of the system's time
 * moves. */
void fd_parallel_wait_at_most(fd_parallel_monitor *monitor, unsigned condition,
                              unsigned milliseconds);
/* Wakes one or every thread waiting on the condition; none is a no-op. */
void fd_parallel_wake_one(fd_parallel_monitor *monitor, unsigned condition);
void fd_parallel_wake_all(fd_parallel_monitor *monitor, unsigned condition);

/* The one lock of the whole process, for set-up that every interpreter
 * shares and whichever thread gets there first does (the binding's kernel
 * selection, python/module.c): interpreters with GILs of their own may reach
 * it at the same time. Statically initialised (PTHREAD_MUTEX_INITIALIZER,
 * SRWLOCK_INIT), so that nothing has to make it first, which would itself
 * race. Not recursive: the holder must not take it again. */
void fd_parallel_lock_process(void);
void fd_parallel_unlock_process(void);

/* The number of CPUs this process may run on, at least 1: on Linux those of
 * its affinity mask (what taskset or a cgroup cpuset leaves it, as Python's
 * os.process_cpu_count() counts them), else the CPUs online; on Windows the
 * active processors of every processor group. A CPU quota (a container's
 * --cpus) is not seen, as os.process_cpu_count() does not see it either. */
size_t fd_available_cpus(void);

#endif /* FD_CORE_PARALLEL_H */
