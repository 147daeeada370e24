#!/usr/bin/env python3
"""Benchmark fastdigest.digest_many against Python loops, side by side in one process.

Usage:
    python benchmarks/bench_batch.py                 # 100,000 messages of 64 B and 1 KiB, 7 rounds
    python benchmarks/bench_batch.py --quick         # 2 rounds of 20,000 messages: a smoke run
    python benchmarks/bench_batch.py --algorithms md5,sha256 --rounds 11 --json
    python benchmarks/bench_batch.py --threads       # digest_many threads=None against threads=1:
                                                     # 1,000,000 messages of 64 B, wall clock,
                                                     # into a list and into out=
    python benchmarks/bench_batch.py --threads --rows --algorithms md5,sha1,sha256,sha512
                                                     # the same over the rows of a NumPy array
    python benchmarks/bench_batch.py --long          # long messages: 16 x 8 MiB, 64 x 256 KiB and
                                                     # 1,000 x 4 KiB, threads=1 and threads=None
                                                     # against a hashlib loop, wall clock

For each algorithm and message size, one batch of distinct random messages is hashed by:

  hashlib.new loop    [hashlib.new(name, m).digest() for m in messages]
  hashlib ctor loop   [hashlib.<name>(m).digest() for m in messages] (new() for sha512_224 and
                      sha512_256, which hashlib has no attribute for)
  fastdigest loop     [fastdigest.digest(name, m) for m in messages] (the one-shot)
  single-stream       fastdigest._digest_many_single_stream(name, messages): digest_many's own
                      path with the multi-buffer kernels switched off, every message through the
                      single-stream kernel
  digest_many         fastdigest.digest_many(name, messages)

Method: all five run in the same process in interleaved rounds (the order rotates every round), so
drift of the shared machine falls on all of them alike; the garbage collector is off while timing.
Time is the calling thread's CPU time by default (--clock thread): every case does all its work in
that thread (digest_many releases the GIL but hashes in the calling thread), and CPU time leaves out
the time slices that other processes of a busy shared machine take. --clock wall uses the wall clock.
--threads compares digest_many on every CPU this process may run on (threads=None) with digest_many on the
calling thread alone (threads=1), by the wall clock (CPU time would add up the threads' time), twice: returning a
list of bytes, and writing into a bytearray given as out= (no object per message, so the calling thread's share
no longer bounds the gain). The four calls alternate round by round, the order rotating; reported are the median
time of each call and the median over rounds of the per-round ratio threads=1 / threads=None (the speedup; the
target on two or more CPUs is 1.7x at 64 B with out=). --rows gives the messages as the rows of one NumPy
(n, size) array (read in place, no object per row; needs numpy) instead of a list of bytes. Only a machine with
nothing else running gives a figure to quote.

--long measures long messages, where the lanes of the multi-buffer kernels and the cores must multiply:
for each of 16 messages of 8 MiB, 16 of 128 KiB (the smallest batch that goes on two threads in MD5's
narrower lanes, where starting a thread weighs most), 64 of 256 KiB and 1,000 of 4 KiB (--shapes
COUNTxBYTES,... for others),
the hashlib.new loop, digest_many(threads=1) and digest_many(threads=None) alternate round by round, the order
rotating, by the wall clock; reported are the medians of the per-round ratios: each digest_many against the loop,
and threads=1 against threads=None (the default threads must never be slower: 1.00x or more, within noise). The
target on this project's Zen 4: 16 x 8 MiB MD5 at least 7x the loop with threads=1, and more with the default
threads on two CPUs or more.

Reported: the median time per message of each, and for each competitor the median over rounds of the
per-round ratio competitor / digest_many (above 1: digest_many is faster). "multi-buffer gain" is
single-stream / digest_many: what the multi-buffer kernels add, Python overhead included
(tests/c/test_batch.c --bench gives the same ratio without Python); the last lines give it in
aggregate, for the workload of every algorithm at one message size.
"""

from __future__ import annotations

import argparse
import functools
import gc
import hashlib
import json
import os
import platform
import random
import ssl
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

import fastdigest
from fastdigest import _fastdigest

ALGORITHMS = ('md5', 'sha1', 'sha224', 'sha256', 'sha384', 'sha512', 'sha512_224', 'sha512_256')
SIZES = (64, 1024)
DEFAULT_MESSAGES = 100_000
QUICK_MESSAGES = 20_000
DEFAULT_ROUNDS = 7
QUICK_ROUNDS = 2

# The targets at 64 bytes, against the hashlib.new loop.
TARGETS_64 = {'md5': 8.0, 'sha1': 6.0, 'sha256': 6.0, 'sha224': 6.0}
SHA512_FAMILY_TARGET = 3.5
# And of the multi-buffer kernels over the single-stream one, in aggregate, at 64 bytes.
AGGREGATE_GAIN_TARGET = 1.5


def read_cpu() -> dict[str, Any]:
    model, flags = platform.processor() or platform.machine(), set()
    try:
        with open('/proc/cpuinfo', encoding='utf-8', errors='replace') as cpuinfo:
            for line in cpuinfo:
                key, _, value = line.partition(':')
                key = key.strip()
                if key == 'model name':
                    model = value.strip()
                elif key in ('flags', 'Features'):
                    flags = set(value.split())
                elif not line.strip():
                    break
    except OSError:
        pass
    interesting = ('sha_ni', 'avx2', 'bmi2', 'avx512f', 'avx512vl', 'avx512bw', 'sha1', 'sha2', 'sha512')
    return {'cpu_model': model, 'cpu_flags': [f for f in interesting if f in flags], 'logical_cpus': os.cpu_count()}


def hashlib_constructor(name: str) -> Callable[[bytes], Any]:
    constructor = getattr(hashlib, name, None)
    if constructor is None:
        return lambda data: hashlib.new(name, data)
    return constructor


def make_cases(name: str) -> dict[str, Callable[[list[bytes]], Any]]:
    new = hashlib.new
    constructor = hashlib_constructor(name)
    one_shot = fastdigest.digest
    many = fastdigest.digest_many
    single_stream = _fastdigest._digest_many_single_stream

    def hashlib_new_loop(messages: list[bytes]) -> Any:
        return [new(name, m).digest() for m in messages]

    def hashlib_constructor_loop(messages: list[bytes]) -> Any:
        return [constructor(m).digest() for m in messages]

    def fastdigest_loop(messages: list[bytes]) -> Any:
        return [one_shot(name, m) for m in messages]

    return {
        'hashlib.new loop': hashlib_new_loop,
        'hashlib ctor loop': hashlib_constructor_loop,
        'fastdigest loop': fastdigest_loop,
        'single-stream': lambda messages: single_stream(name, messages),
        'digest_many': lambda messages: many(name, messages),
    }


def time_rounds(cases: dict[str, Callable[[], Any]], rounds: int, clock: Callable[[], int]) -> dict[str, list[int]]:
    """Each case's times by the clock, once a round, in an order that rotates every round (so that drift of the shared
    machine falls on all of them alike), with the garbage collector off and each result freed outside the timed
    region."""
    times: dict[str, list[int]] = {label: [] for label in cases}
    labels = list(cases)
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        for r in range(rounds):
            for label in labels[r % len(labels) :] + labels[: r % len(labels)]:
                start = clock()
                result = cases[label]()
                times[label].append(clock() - start)
                del result
    finally:
        if gc_was_enabled:
            gc.enable()
    return times


def run(
    algorithms: Sequence[str], sizes: Sequence[int], count: int, rounds: int, clock: Callable[[], int], progress
) -> list[dict[str, Any]]:
    rng = random.Random(2024)
    results = []
    for size in sizes:
        messages = [rng.randbytes(size) for _ in range(count)]
        for name in algorithms:
            cases = make_cases(name)
            # Every case must agree before any is timed.
            reference = cases['hashlib.new loop'](messages[:1000])
            for label, case in cases.items():
                if case(messages[:1000]) != reference:
                    raise SystemExit('%s %s: %s disagrees with hashlib' % (name, size, label))
            calls = {label: functools.partial(case, messages) for label, case in cases.items()}
            times = {
                label: [t / count for t in call_times]
                for label, call_times in time_rounds(calls, rounds, clock).items()
            }
            many = times['digest_many']
            result = {
                'algorithm': name,
                'size': size,
                'messages': count,
                'ns_per_message': {label: statistics.median(t) for label, t in times.items()},
                'ratio_to_digest_many': {
                    label: statistics.median(t[i] / many[i] for i in range(rounds))
                    for label, t in times.items()
                    if label != 'digest_many'
                },
            }
            results.append(result)
            progress('%s %d B done' % (name, size))
    return results


THREADS_MESSAGES = 1_000_000
THREADS_TARGET = 1.7

# --long: (count, size) of each batch of long messages.
LONG_SHAPES = ((16, 8 << 20), (16, 128 << 10), (64, 256 << 10), (1000, 4 << 10))
LONG_ALGORITHMS = ('md5', 'sha1', 'sha256', 'sha512')
LONG_QUICK_SHAPES = ((16, 256 << 10), (64, 16 << 10), (200, 4 << 10))
# 16 x 8 MiB MD5, against the hashlib.new loop: threads=1 at least this, and the default threads more.
LONG_MD5_TARGET = 7.0


def available_cpus() -> int:
    """The CPUs this process may run on, as digest_many(threads=None) counts them."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on every platform
        return os.cpu_count() or 1


# The calls --threads times: (threads, whether the digests go into out=).
THREADS_SETTINGS = {
    'threads=1': (1, False),
    'threads=None': (None, False),
    'threads=1, out=': (1, True),
    'threads=None, out=': (None, True),
}


def median_ratio(numerators: list[float], denominators: list[float]) -> float:
    """The median over rounds of the per-round ratio."""
    return statistics.median(a / b for a, b in zip(numerators, denominators, strict=True))


def make_messages(rng: random.Random, count: int, size: int, rows: bool) -> Any:
    """count random messages of size bytes: a list of bytes, or with rows the rows of one NumPy array."""
    if rows:
        import numpy  # the bench-columns extra

        return numpy.frombuffer(rng.randbytes(count * size), dtype=numpy.uint8).reshape(count, size)
    return [rng.randbytes(size) for _ in range(count)]


def run_threads(
    algorithms: Sequence[str], sizes: Sequence[int], count: int, rounds: int, rows: bool, progress
) -> list[dict[str, Any]]:
    rng = random.Random(2025)
    many = fastdigest.digest_many
    results = []
    for size in sizes:
        messages = make_messages(rng, count, size, rows)
        for name in algorithms:
            digest_size = hashlib.new(name).digest_size
            out = bytearray(count * digest_size)
            # A check, and a call of each untimed (first pages, first threads).
            want = [hashlib.new(name, m).digest() for m in messages[:1000]]
            for threads, into_out in THREADS_SETTINGS.values():
                result = many(name, messages, threads=threads, out=out if into_out else None)
                if into_out:
                    got = [bytes(out[i * digest_size : (i + 1) * digest_size]) for i in range(len(want))]
                else:
                    got = result[: len(want)]
                if got != want:
                    raise SystemExit('%s %s: digest_many disagrees with hashlib' % (name, size))
                del result
            calls = {
                label: functools.partial(many, name, messages, threads=threads, out=out if into_out else None)
                for label, (threads, into_out) in THREADS_SETTINGS.items()
            }
            times = time_rounds(calls, rounds, time.perf_counter_ns)
            results.append(
                {
                    'algorithm': name,
                    'size': size,
                    'messages': count,
                    'input': 'rows' if rows else 'list',
                    'ms_per_call': {label: statistics.median(t) / 1e6 for label, t in times.items()},
                    'speedup': median_ratio(times['threads=1'], times['threads=None']),
                    'speedup_out': median_ratio(times['threads=1, out='], times['threads=None, out=']),
                }
            )
            progress('%s %d B done' % (name, size))
    return results


def parse_shapes(text: str) -> list[tuple[int, int]]:
    """'16x8388608,64x262144' -> [(16, 8388608), (64, 262144)]."""
    shapes = []
    for item in text.split(','):
        count, _, size = item.strip().partition('x')
        shapes.append((int(count), int(size)))
    return shapes


def size_label(size: int) -> str:
    for unit, shift in (('MiB', 20), ('KiB', 10)):
        if size >= 1 << shift and size % (1 << shift) == 0:
            return '%d %s' % (size >> shift, unit)
    return '%d B' % size


# The calls --long times, besides the loop: the threads given to digest_many.
LONG_SETTINGS = {'threads=1': 1, 'threads=None': None}


def run_long(
    algorithms: Sequence[str], shapes: Sequence[tuple[int, int]], rounds: int, progress
) -> list[dict[str, Any]]:
    rng = random.Random(2026)
    many = fastdigest.digest_many
    new = hashlib.new
    results = []
    for count, size in shapes:
        # Distinct messages, cut from one random block so that making them stays quick.
        block = rng.randbytes(size + count)
        messages = [block[i : i + size] for i in range(count)]
        for name in algorithms:

            def loop(messages: list[bytes] = messages, name: str = name) -> Any:
                return [new(name, m).digest() for m in messages]

            cases: dict[str, Callable[[], Any]] = {'hashlib.new loop': loop}
            for label, threads in LONG_SETTINGS.items():
                cases[label] = functools.partial(many, name, messages, threads=threads)
            want = loop()
            for label, case in cases.items():
                if case() != want:
                    raise SystemExit('%s %d x %d: %s disagrees with hashlib' % (name, count, size, label))
            times = time_rounds(cases, rounds, time.perf_counter_ns)
            loop_times = times['hashlib.new loop']
            results.append(
                {
                    'algorithm': name,
                    'count': count,
                    'size': size,
                    'ms_per_call': {label: statistics.median(t) / 1e6 for label, t in times.items()},
                    'vs_loop': {label: median_ratio(loop_times, times[label]) for label in LONG_SETTINGS},
                    'threads_speedup': median_ratio(times['threads=1'], times['threads=None']),
                }
            )
            progress('%s %d x %s done' % (name, count, size_label(size)))
    return results


def markdown_long(results: list[dict[str, Any]], machine: dict[str, Any], rounds: int) -> str:
    cpus = available_cpus()
    lines = [
        'CPU: %s, %s logical CPUs (%d this process may run on), flags: %s'
        % (machine['cpu_model'], machine['logical_cpus'], cpus, ' '.join(machine['cpu_flags']) or '(none listed)'),
        'Python %s, %s; long messages: digest_many threads=1 and threads=None against a hashlib.new loop, '
        'medians of %d interleaved rounds, wall time' % (platform.python_version(), ssl.OPENSSL_VERSION, rounds),
        'batch kernels: %s' % ', '.join('%s=%s' % kv for kv in fastdigest.batch_implementation.items()),
        '',
        '| algorithm | messages | loop ms | threads=1 ms | threads=None ms | threads=1 vs loop '
        '| threads=None vs loop | threads=None vs threads=1 | target |',
        '|---|---|---:|---:|---:|---:|---:|---:|---|',
    ]
    for r in results:
        ms, vs = r['ms_per_call'], r['vs_loop']
        target = ''
        if r['algorithm'] == 'md5' and (r['count'], r['size']) == LONG_SHAPES[0]:
            met = vs['threads=1'] >= LONG_MD5_TARGET and (cpus < 2 or r['threads_speedup'] > 1.0)
            target = '>= %.0fx, more with threads=None: %s' % (LONG_MD5_TARGET, 'met' if met else 'NOT met')
        lines.append(
            '| %s | %d x %s | %.1f | %.1f | %.1f | %.2fx | %.2fx | %.2fx | %s |'
            % (
                r['algorithm'],
                r['count'],
                size_label(r['size']),
                ms['hashlib.new loop'],
                ms['threads=1'],
                ms['threads=None'],
                vs['threads=1'],
                vs['threads=None'],
                r['threads_speedup'],
                target,
            )
        )
    return '\n'.join(lines)


def markdown_threads(results: list[dict[str, Any]], machine: dict[str, Any], rounds: int) -> str:
    cpus = available_cpus()
    lines = [
        'CPU: %s, %s logical CPUs (%d this process may run on), flags: %s'
        % (machine['cpu_model'], machine['logical_cpus'], cpus, ' '.join(machine['cpu_flags']) or '(none listed)'),
        'Python %s; digest_many threads=None against threads=1, into a list and into out=, medians of %d '
        'interleaved rounds, wall time; messages: %s'
        % (
            platform.python_version(),
            rounds,
            'rows of a NumPy array' if results and results[0]['input'] == 'rows' else 'a list of bytes',
        ),
        'batch kernels: %s' % ', '.join('%s=%s' % kv for kv in fastdigest.batch_implementation.items()),
        '',
        '| algorithm | size | messages | threads=1 ms | threads=None ms | speedup | out=: threads=1 ms '
        '| out=: threads=None ms | out= speedup | target (out=) |',
        '|---|---:|---:|---:|---:|---:|---:|---:|---:|---|',
    ]
    for r in results:
        target = ''
        if r['size'] == 64 and cpus >= 2:
            target = '>= %.1fx: %s' % (THREADS_TARGET, 'met' if r['speedup_out'] >= THREADS_TARGET else 'NOT met')
        ms = r['ms_per_call']
        lines.append(
            '| %s | %d B | %d | %.1f | %.1f | %.2fx | %.1f | %.1f | %.2fx | %s |'
            % (
                r['algorithm'],
                r['size'],
                r['messages'],
                ms['threads=1'],
                ms['threads=None'],
                r['speedup'],
                ms['threads=1, out='],
                ms['threads=None, out='],
                r['speedup_out'],
                target,
            )
        )
    return '\n'.join(lines)


def markdown(results: list[dict[str, Any]], machine: dict[str, Any], rounds: int, clock: str) -> str:
    lines = [
        'CPU: %s, %s logical CPUs, flags: %s'
        % (machine['cpu_model'], machine['logical_cpus'], ' '.join(machine['cpu_flags']) or '(none listed)'),
        'Python %s, %s; medians of %d interleaved rounds, %s time'
        % (platform.python_version(), ssl.OPENSSL_VERSION, rounds, 'thread CPU' if clock == 'thread' else 'wall'),
        'batch kernels: %s' % ', '.join('%s=%s' % kv for kv in fastdigest.batch_implementation.items()),
        'single-stream kernels: %s' % ', '.join('%s=%s' % kv for kv in fastdigest.implementation.items()),
        '',
        '| algorithm | size | digest_many ns/msg | vs hashlib.new loop | vs hashlib ctor loop '
        '| vs fastdigest.digest loop | multi-buffer gain | target (64 B, vs hashlib.new loop) |',
        '|---|---:|---:|---:|---:|---:|---:|---|',
    ]
    for r in results:
        ratios = r['ratio_to_digest_many']
        target = ''
        if r['size'] == 64:
            goal = TARGETS_64.get(r['algorithm'], SHA512_FAMILY_TARGET)
            target = '>= %.1fx: %s' % (goal, 'met' if ratios['hashlib.new loop'] >= goal else 'NOT met')
        lines.append(
            '| %s | %d B | %.0f | %.2fx | %.2fx | %.2fx | %.2fx | %s |'
            % (
                r['algorithm'],
                r['size'],
                r['ns_per_message']['digest_many'],
                ratios['hashlib.new loop'],
                ratios['hashlib ctor loop'],
                ratios['fastdigest loop'],
                ratios['single-stream'],
                target,
            )
        )
    lines.append('')
    for size in sorted({r['size'] for r in results}):
        gain = aggregate_gain([r for r in results if r['size'] == size])
        lines.append(
            'multi-buffer gain in aggregate at %d B (every algorithm above: total single-stream time / total '
            'digest_many time): %.2fx%s'
            % (
                size,
                gain,
                ' (target >= 1.5x: %s)' % ('met' if gain >= AGGREGATE_GAIN_TARGET else 'NOT met') if size == 64 else '',
            )
        )
    return '\n'.join(lines)


def aggregate_gain(results: list[dict[str, Any]]) -> float:
    """The multi-buffer kernels' gain over the single-stream kernel for the whole workload: the
    single-stream path's total time over digest_many's, the medians summed over the algorithms."""
    single = sum(r['ns_per_message']['single-stream'] for r in results)
    many = sum(r['ns_per_message']['digest_many'] for r in results)
    return single / many


def print_wall_clock_results(
    as_json: bool, results: list[dict[str, Any]], machine: dict[str, Any], rounds: int, table
) -> None:
    """--threads' and --long's results, timed by the wall clock: as JSON, or as the table `table` makes of them."""
    if not as_json:
        print(table(results, machine, rounds))
        return
    json.dump(
        {
            'machine': machine,
            'available_cpus': available_cpus(),
            'rounds': rounds,
            'clock': 'wall',
            'results': results,
            'batch_implementation': fastdigest.batch_implementation,
        },
        sys.stdout,
        indent=1,
    )
    print()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--algorithms', default=','.join(ALGORITHMS))
    parser.add_argument('--sizes', default=','.join(map(str, SIZES)))
    parser.add_argument('--messages', type=int, default=None)
    parser.add_argument('--rounds', type=int, default=None)
    parser.add_argument('--quick', action='store_true')
    parser.add_argument('--json', action='store_true')
    parser.add_argument('--clock', choices=('thread', 'wall'), default='thread')
    parser.add_argument(
        '--threads',
        action='store_true',
        help='digest_many threads=None against threads=1, into a list and into out= (wall clock; 1,000,000 '
        'messages of 64 B unless --messages and --sizes say otherwise)',
    )
    parser.add_argument(
        '--rows', action='store_true', help='with --threads: the messages as the rows of a NumPy array (needs numpy)'
    )
    parser.add_argument(
        '--long',
        action='store_true',
        help='long messages: 16 x 8 MiB, 64 x 256 KiB and 1,000 x 4 KiB, digest_many threads=1 and threads=None '
        'against a hashlib.new loop (wall clock; md5, sha1, sha256, sha512 unless --algorithms says otherwise)',
    )
    parser.add_argument('--shapes', help='with --long: the batches, as COUNTxBYTES,... (16x8388608,64x262144)')
    args = parser.parse_args(argv)

    algorithms = [a.strip() for a in args.algorithms.split(',') if a.strip()]
    for name in algorithms:
        if name not in ALGORITHMS:
            parser.error('unknown algorithm %r' % name)
    sizes = [int(s) for s in args.sizes.split(',')]
    count = args.messages or (QUICK_MESSAGES if args.quick else DEFAULT_MESSAGES)
    rounds = args.rounds or (QUICK_ROUNDS if args.quick else DEFAULT_ROUNDS)

    def progress(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    machine = read_cpu()
    if args.long:
        if parser.get_default('algorithms') == args.algorithms:
            algorithms = list(LONG_ALGORITHMS)
        shapes = parse_shapes(args.shapes) if args.shapes else list(LONG_QUICK_SHAPES if args.quick else LONG_SHAPES)
        results = run_long(algorithms, shapes, rounds, progress)
        print_wall_clock_results(args.json, results, machine, rounds, markdown_long)
        return 0
    if args.threads:
        if parser.get_default('sizes') == args.sizes:
            sizes = [64]
        count = args.messages or (QUICK_MESSAGES if args.quick else THREADS_MESSAGES)
        results = run_threads(algorithms, sizes, count, rounds, args.rows, progress)
        print_wall_clock_results(args.json, results, machine, rounds, markdown_threads)
        return 0
    clock = time.thread_time_ns if args.clock == 'thread' else time.perf_counter_ns
    results = run(algorithms, sizes, count, rounds, clock, progress)
    if args.json:
        json.dump(
            {
                'machine': machine,
                'rounds': rounds,
                'clock': args.clock,
                'results': results,
                'batch_implementation': fastdigest.batch_implementation,
            },
            sys.stdout,
            indent=1,
        )
        print()
    else:
        print(markdown(results, machine, rounds, args.clock))
    return 0


if __name__ == '__main__':
    sys.exit(main())
