"""Threads: throughput and scaling of fastdigest against hashlib with 1, 2 and N threads.

    python benchmarks/bench_threads.py [--algorithm sha256] [--rounds 7] [--threads 1,2,4]

Two workloads, at 64 B, 4 KiB and 1 MiB messages:
  own     every thread makes its own objects from its own copy of the message: constructor with the
          message, then digest(), in a loop
          (the pattern of hashing many independent messages);
  shared  every thread updates one object shared by all of them (its lock orders the updates).

Each measurement runs the threads from a barrier until all have done a fixed amount of work. The
configurations run interleaved, one of each per round, and the figures are medians over the rounds, so
that drift of a shared machine spreads over all of them alike. Throughput is in messages per second
across all threads (and MB/s); scaling is the throughput with N threads over that with one.

On a GIL build only updates of at least get_gil_minsize() bytes run in parallel; on a free-threaded
build (3.13t) everything may, and the figures show what is left serial.
"""

import argparse
import hashlib
import itertools
import os
import platform
import statistics
import sys
import sysconfig
import threading
import time

import fastdigest

SIZES = {'64 B': 64, '4 KiB': 4096, '1 MiB': 1 << 20}
# Bytes each thread hashes per measurement: enough to dwarf the barrier and thread wake-ups, small enough
# for many rounds. Small messages are dominated by the per-call cost, so they get fewer bytes.
WORK_BYTES = {64: 4 << 20, 4096: 32 << 20, 1 << 20: 64 << 20}


def cpu_name():
    fields = {}
    try:
        with open('/proc/cpuinfo', encoding='ascii', errors='replace') as cpuinfo:
            for line in cpuinfo:
                key, _, value = line.partition(':')
                fields.setdefault(key.strip(), value.strip())
    except OSError:
        return platform.processor() or platform.machine()
    return f'{fields.get("model name", "?")} (family {fields.get("cpu family", "?")}, model {fields.get("model", "?")})'


def python_description():
    free_threaded = bool(sysconfig.get_config_var('Py_GIL_DISABLED'))
    gil = getattr(sys, '_is_gil_enabled', lambda: True)()
    build = 'free-threaded build' if free_threaded else 'GIL build'
    return f'{platform.python_implementation()} {platform.python_version()}, {build}, GIL {"on" if gil else "off"}'


def run_threads(thread_count, make_worker):
    """Seconds from the barrier until every thread has run its worker."""
    barrier = threading.Barrier(thread_count + 1)
    workers = [make_worker() for _ in range(thread_count)]
    errors = []

    def run(worker):
        barrier.wait()
        try:
            worker()
        except BaseException as error:  # noqa: BLE001 - re-raised below
            errors.append(error)

    threads = [threading.Thread(target=run, args=(worker,)) for worker in workers]
    for thread in threads:
        thread.start()
    barrier.wait()
    began = time.perf_counter()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - began
    if errors:
        raise errors[0]
    return elapsed


def own_objects(constructor, message, calls):
    def make_worker():
        # The thread's own copy of the message, as a thread hashing its own data has: on a
        # free-threaded build every call changes the reference count of the message, and one object
        # shared by all threads would make the threads contend for its cache line.
        own_message = bytes(bytearray(message))

        def worker():
            for _ in itertools.repeat(None, calls):
                constructor(own_message).digest()

        return worker

    return make_worker


def shared_object(constructor, message, calls):
    shared = constructor()

    def make_worker():
        update = shared.update

        def worker():
            for _ in itertools.repeat(None, calls):
                update(message)

        return worker

    return make_worker


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--algorithm', default='sha256', choices=sorted(fastdigest.algorithms_guaranteed))
    parser.add_argument('--rounds', type=int, default=7)
    cores = os.cpu_count() or 2
    parser.add_argument(
        '--threads',
        default=f'1,2,{max(4, 2 * cores)}',
        help='comma-separated thread counts (default 1, 2 and twice the cores, at least 4)',
    )
    parser.add_argument('--sizes', default=','.join(SIZES), help='comma-separated: ' + ', '.join(SIZES))
    parser.add_argument('--workloads', default='own,shared')
    arguments = parser.parse_args()

    thread_counts = [int(count) for count in arguments.threads.split(',')]
    sizes = {label: SIZES[label] for label in (part.strip() for part in arguments.sizes.split(','))}
    workloads = {'own': own_objects, 'shared': shared_object}
    workloads = {name: workloads[name] for name in arguments.workloads.split(',')}
    implementations = {
        'fastdigest': getattr(fastdigest, arguments.algorithm),
        'hashlib': getattr(hashlib, arguments.algorithm),
    }

    print(f'CPU: {cpu_name()}, {cores} logical CPUs')
    print(f'Python: {python_description()}')
    print(
        f'fastdigest {arguments.algorithm} kernel: {fastdigest.implementation[arguments.algorithm]}; '
        f'GIL threshold {fastdigest.get_gil_minsize()} B; {arguments.rounds} interleaved rounds, medians'
    )
    print()

    configurations = [
        (workload, label, implementation, threads)
        for workload in workloads
        for label in sizes
        for implementation in implementations
        for threads in thread_counts
    ]
    seconds = {configuration: [] for configuration in configurations}
    for _ in range(arguments.rounds):
        for configuration in configurations:
            workload, label, implementation, threads = configuration
            size = sizes[label]
            message = bytes(range(256)) * (size // 256) if size >= 256 else bytes(range(size))
            calls = max(WORK_BYTES[size] // size, 4)
            make_worker = workloads[workload](implementations[implementation], message, calls)
            seconds[configuration].append(run_threads(threads, make_worker) / calls)

    # Per configuration: median seconds per call and per thread -> messages per second for all threads.
    rate = {configuration: configuration[3] / statistics.median(samples) for configuration, samples in seconds.items()}
    columns = ['workload', 'size', 'threads']
    for name in implementations:
        columns += [f'{name} msg/s', 'MB/s', 'scaling']
    columns.append('fastdigest/hashlib')
    print('| ' + ' | '.join(columns) + ' |')
    print('|' + '---|' * len(columns))
    for workload in workloads:
        for label in sizes:
            for threads in thread_counts:
                cells = [workload, label, str(threads)]
                for implementation in implementations:
                    value = rate[(workload, label, implementation, threads)]
                    single = rate[(workload, label, implementation, thread_counts[0])]
                    cells += [f'{value:,.0f}', f'{value * sizes[label] / 1e6:,.0f}', f'{value / single:.2f}x']
                ratio = rate[(workload, label, 'fastdigest', threads)] / rate[(workload, label, 'hashlib', threads)]
                cells.append(f'{ratio:.2f}x')
                print('| ' + ' | '.join(cells) + ' |')
    print()

    if 'own' in workloads and 1 in thread_counts and 2 in thread_counts:
        print('Targets for 3.13t (own objects): two threads >= 1.8x one at every size; one thread 64 B >= 2.5x hashlib')
        for label in sizes:
            scaling = rate[('own', label, 'fastdigest', 2)] / rate[('own', label, 'fastdigest', 1)]
            print(f'  {label:>6}: fastdigest 2 threads / 1 thread = {scaling:.2f}x')
        if '64 B' in sizes:
            ratio = rate[('own', '64 B', 'fastdigest', 1)] / rate[('own', '64 B', 'hashlib', 1)]
            print(f'  64 B, one thread: fastdigest / hashlib = {ratio:.2f}x')


if __name__ == '__main__':
    main()
