/* Threads for the parts of one task (parallel.h): pthreads on POSIX
 * systems, the CRT's _beginthreadex on Windows, which has no pthreads. */

/* sched_getaffinity and CPU_COUNT are GNU extensions, which glibc and musl
 * declare only under _GNU_SOURCE, and -std=c11 does not define it. It must
 * come before the first system header. */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE
#endif

#include "platform/parallel.h"

#include <assert.h>
#include <stdint.h>
#include <stdlib.h>

#ifdef _WIN32
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>
#include <process.h>
#else
#include <pthread.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>
#endif

#include "platform/glibc_versions.h"

/* Bound to the thread calls' first glibc versions (glibc_versions.h). */
FD_GLIBC_BIND_THREADS();

/* One part on a thread of its own: the thread's handle, and the part's
 * result, written by that thread and read after the join. */
typedef struct worker {
    fd_parallel_task *task;
    void *context;
    size_t part;
    bool succeeded;
    bool started; /* false: the thread could not be made */
#ifdef _WIN32
    HANDLE thread;
#else
    pthread_t thread;
#endif
} worker;

/* _beginthreadex rather than CreateThread: a thread that calls the C
 * library (malloc) is to be started by the C library. */
#ifdef _WIN32
static unsigned __stdcall run_worker(void *argument)
{
    worker *w = argument;
    w->succeeded = w->task(w->context, w->part);
    return 0;
}

static bool start_worker(worker *w)
{
    uintptr_t thread = _beginthreadex(NULL, 0, run_worker, w, 0, NULL);
    w->thread = (HANDLE)thread;
    return thread != 0;
}

static void join_worker(worker *w)
{
    WaitForSingleObject(w->thread, INFINITE);
    CloseHandle(w->thread);
}
#else
static void *run_worker(void *argument)
{
    worker *w = argument;
    w->succeeded = w->task(w->context, w->part);
    return NULL;
}

static bool start_worker(worker *w)
{
    return pthread_create(&w->thread, NULL, run_worker, w) == 0;
}

static void join_worker(worker *w)
{
    pthread_join(w->thread, NULL);
}
#endif

bool fd_parallel_run(size_t parts, fd_parallel_task *task, void *context)
{
    assert(task != NULL);
    worker *workers = parts > 1 ? malloc((parts - 1) * sizeof *workers) : NULL;
    bool succeeded = true;
    if (workers == NULL) {
        /* One part, or no memory for the threads' slots: all of them here. */
        for (size_t part = 0; part < parts; part++)
            succeeded = task(context, part) && succeeded;
        return succeeded;
    }
    for (size_t i = 0; i < parts - 1; i++) {
        workers[i] = (worker){.task = task, .context = context, .part = i + 1};
        workers[i].started = start_worker(&workers[i]);
    }
    succeeded = task(context, 0);
    for (size_t i = 0; i < parts - 1; i++) {
        if (!workers[i].started)
            workers[i].succeeded = task(context, workers[i].part);
    }
    for (size_t i = 0; i < parts - 1; i++) {
        if (workers[i].started)
            join_worker(&workers[i]);
        succeeded = succeeded && workers[i].succeeded;
    }
    free(workers);
    return succeeded;
}

struct fd_parallel_thread {
    worker w;
};

fd_parallel_thread *fd_parallel_start(fd_parallel_task *task, void *context, size_t part)
{
    fd_parallel_thread *thread = malloc(sizeof *thread);
    if (thread == NULL)
        return NULL;
    thread->w = (worker){.task = task, .context = context, .part = part};
    if (!start_worker(&thread->w)) {
        free(thread);
        return NULL;
    }
    return thread;
}

bool fd_parallel_join(fd_parallel_thread *thread)
{
    join_worker(&thread->w);
    const bool succeeded = thread->w.succeeded;
    free(thread);
    return succeeded;
}

void fd_parallel_yield(void)
{
#ifdef _WIN32
    SwitchToThread();
#else
    sched_yield();
#endif
}

#ifdef _WIN32
struct fd_parallel_monitor {
    SRWLOCK lock;
    CONDITION_VARIABLE conditions[2];
};

fd_parallel_monitor *fd_parallel_monitor_new(void)
{
    fd_parallel_monitor *monitor = malloc(sizeof *monitor);
    if (monitor != NULL) {
        InitializeSRWLock(&monitor->lock);
        InitializeConditionVariable(&monitor->conditions[0]);
        InitializeConditionVariable(&monitor->conditions[1]);
    }
    return monitor;
}

/* Neither needs destroying. */
void fd_parallel_monitor_free(fd_parallel_monitor *monitor)
{
    free(monitor);
}

void fd_parallel_lock(fd_parallel_monitor *monitor)
{
    AcquireSRWLockExclusive(&monitor->lock);
}

void fd_parallel_unlock(fd_parallel_monitor *monitor)
{
    ReleaseSRWLockExclusive(&monitor->lock);
}

void fd_parallel_wait(fd_parallel_monitor *monitor, unsigned condition)
{
    assert(condition < sizeof monitor->conditions / sizeof monitor->conditions[0]);
    SleepConditionVariableSRW(&monitor->conditions[condition], &monitor->lock, INFINITE, 0);
}

void fd_parallel_wait_at_most(fd_parallel_monitor *monitor, unsigned condition,
                              unsigned milliseconds)
{
    assert(condition < sizeof monitor->conditions / sizeof monitor->conditions[0]);
    /* The wait is timed on the interrupt-time clock, which the system's
     * time does not move. */
    SleepConditionVariableSRW(&monitor->conditions[condition], &monitor->lock,
                              milliseconds != 0 ? milliseconds : 1, 0);
}

void fd_parallel_wake_one(fd_parallel_monitor *monitor, unsigned condition)
{
    assert(condition < sizeof monitor->conditions / sizeof monitor->conditions[0]);
    WakeConditionVariable(&monitor->conditions[condition]);
}

void fd_parallel_wake_all(fd_parallel_monitor *monitor, unsigned condition)
{
    assert(condition < sizeof monitor->conditions / sizeof monitor->conditions[0]);
    WakeAllConditionVariable(&monitor->conditions[condition]);
}
#else
struct fd_parallel_monitor {
    pthread_mutex_t lock;
    pthread_cond_t conditions[2];
};

/* fd_parallel_wait_at_most's clock: CLOCK_MONOTONIC, which the conditions
 * are made to be timed on (the default, CLOCK_REALTIME, moves with the
 * system's time: set back an hour, it would make a wait an hour long).
 * macOS cannot time a condition on it, but waits for a time relative to the
 * call instead. */
#ifdef __APPLE__
#define WAIT_ON_MONOTONIC_CLOCK 0
#else
#define WAIT_ON_MONOTONIC_CLOCK 1
#endif

fd_parallel_monitor *fd_parallel_monitor_new(void)
{
    fd_parallel_monitor *monitor = malloc(sizeof *monitor);
    if (monitor == NULL)
        return NULL;
    pthread_condattr_t attributes;
    if (pthread_condattr_init(&attributes) != 0)
        goto no_attributes;
#if WAIT_ON_MONOTONIC_CLOCK
    if (pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC) != 0)
        goto no_lock;
#endif
    if (pthread_mutex_init(&monitor->lock, NULL) != 0)
        goto no_lock;
    if (pthread_cond_init(&monitor->conditions[0], &attributes) != 0)
        goto no_conditions;
    if (pthread_cond_init(&monitor->conditions[1], &attributes) != 0)
        goto no_second_condition;
    pthread_condattr_destroy(&attributes);
    return monitor;

no_second_condition:
    pthread_cond_destroy(&monitor->conditions[0]);
no_conditions:
    pthread_mutex_destroy(&monitor->lock);
no_lock:
    pthread_condattr_destroy(&attributes);
no_attributes:
    free(monitor);
    return NULL;
}

void fd_parallel_monitor_free(fd_parallel_monitor *monitor)
{
    pthread_cond_destroy(&monitor->conditions[1]);
    pthread_cond_destroy(&monitor->conditions[0]);
    pthread_mutex_destroy(&monitor->lock);
    free(monitor);
}

/* These fail only on misuse (a lock not held, or deadlock detection that
 * default mutexes do not do). */
void fd_parallel_lock(fd_parallel_monitor *monitor)
{
    pthread_mutex_lock(&monitor->lock);
}

void fd_parallel_unlock(fd_parallel_monitor *monitor)
{
    pthread_mutex_unlock(&monitor->lock);
}

void fd_parallel_wait(fd_parallel_monitor *monitor, unsigned condition)
{
    assert(condition < sizeof monitor->conditions / sizeof monitor->conditions[0]);
    pthread_cond_wait(&monitor->conditions[condition], &monitor->lock);
}

void fd_parallel_wait_at_most(fd_parallel_monitor *monitor, unsigned condition,
                              unsigned milliseconds)
{
    assert(condition < sizeof monitor->conditions / sizeof monitor->conditions[0]);
    if (milliseconds == 0)
        milliseconds = 1;
    const long nanoseconds = (long)(milliseconds % 1000u) * 1000000L;
#if WAIT_ON_MONOTONIC_CLOCK
    struct timespec deadline;
    if (clock_gettime(CLOCK_MONOTONIC, &deadline) != 0)
        return; /* as a spurious wake-up, which callers take */
    deadline.tv_sec += (time_t)(milliseconds / 1000u);
    deadline.tv_nsec += nanoseconds;
    if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000L;
    }
    pthread_cond_timedwait(&monitor->conditions[condition], &monitor->lock, &deadline);
#else
    const struct timespec relative = {(time_t)(milliseconds / 1000u), nanoseconds};
    pthread_cond_timedwait_relative_np(&monitor->conditions[condition], &monitor->lock, &relative);
#endif
}

void fd_parallel_wake_one(fd_parallel_monitor *monitor, unsigned condition)
{
    assert(condition < sizeof monitor->conditions / sizeof monitor->conditions[0]);
    pthread_cond_signal(&monitor->conditions[condition]);
}

void fd_parallel_wake_all(fd_parallel_monitor *monitor, unsigned condition)
{
    assert(condition < sizeof monitor->conditions / sizeof monitor->conditions[0]);
    pthread_cond_broadcast(&monitor->conditions[condition]);
}
#endif

#ifdef _WIN32
static SRWLOCK process_lock = SRWLOCK_INIT;

void fd_parallel_lock_process(void)
{
    AcquireSRWLockExclusive(&process_lock);
}

void fd_parallel_unlock_process(void)
{
    ReleaseSRWLockExclusive(&process_lock);
}
#else
static pthread_mutex_t process_lock = PTHREAD_MUTEX_INITIALIZER;

void fd_parallel_lock_process(void)
{
    pthread_mutex_lock(&process_lock);
}

void fd_parallel_unlock_process(void)
{
    pthread_mutex_unlock(&process_lock);
}
#endif

size_t fd_available_cpus(void)
{
#ifdef _WIN32
    /* Every group's: since Windows 11 and Server 2022 a process's threads
     * run in all processor groups (before, in the one it started in, and
     * threads beyond its processors would only take turns: slower, never
     * wrong). */
    DWORD count = GetActiveProcessorCount(ALL_PROCESSOR_GROUPS);
    return count > 0 ? (size_t)count : 1;
#else
#ifdef __linux__
    /* Threads beyond the CPUs of the affinity mask would only take turns on
     * them. A kernel built for more than CPU_SETSIZE (1024) CPUs refuses a
     * set this small: then the CPUs online. */
    cpu_set_t cpus;
    if (sched_getaffinity(0, sizeof cpus, &cpus) == 0 && CPU_COUNT(&cpus) > 0)
        return (size_t)CPU_COUNT(&cpus);
#endif
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    return online > 0 ? (size_t)online : 1;
#endif
}
