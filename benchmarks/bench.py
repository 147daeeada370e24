#!/usr/bin/env python3
"""Benchmark fastdigest against hashlib, side by side in one process.

Usage:
    python benchmarks/bench.py                  # full run, Markdown table (~1-2 min)
    python benchmarks/bench.py --quick          # a few rounds, for a CI smoke run
    python benchmarks/bench.py --algorithms sha256,sha512 --rounds 51 --json

Method (why the numbers can be compared at all):

* Both libraries run in the same process, in interleaved rounds: in round r every case
  is timed for hashlib and then for fastdigest, and the order flips on every other round,
  so slow drift of the shared machine (clock, neighbours, caches) falls on both sides
  equally. Comparing absolute times from different runs is not meaningful here.
* Each timed sample is one call of a loop whose count is calibrated once, up front, so
  that a sample lasts about --sample-ms milliseconds (2-10 ms by default). The 16 MiB
  case is one update() per sample, however long it takes.
* The loop functions are the same code for both sides; only the bound callables differ
  (methods are bound to locals before timing), so the per-iteration loop overhead is
  identical on both sides. It is included in the ns/call figures, not subtracted; the
  header prints what it costs so that short calls can be read with it in mind.
* The garbage collector is off while timing, as timeit does.
* Reported: the median over rounds of each side's time per call, and the median over
  rounds of the per-round ratio hashlib/fastdigest (> 1 means fastdigest is faster).
  A per-round ratio pairs two samples taken milliseconds apart, which makes it more
  robust to drift than a ratio of two medians.

Only the standard library is needed. Without the fastdigest extension the script can
still run with --candidate hashlib (hashlib against itself: every ratio should come
out near 1.0, which is a check of the method's own noise).
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import importlib
import json
import os
import platform
import ssl
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from itertools import repeat
from typing import Any

ALGORITHMS = (
    'md5',
    'sha1',
    'sha224',
    'sha256',
    'sha384',
    'sha512',
    'sha512_224',
    'sha512_256',
)

SHORT_INPUT_SIZES = (0, 64, 1024)
# fastdigest.digest(name, data) against hashlib.<name>(data).digest().
ONESHOT_INPUT_SIZES = (0, 64)
THROUGHPUT_SIZE = 16 * 1024 * 1024

DEFAULT_ROUNDS = 51
QUICK_ROUNDS = 3
DEFAULT_SAMPLE_MS = 5.0
QUICK_SAMPLE_MS = 1.0


# ---------------------------------------------------------------------------
# Timed loops. Each returns the elapsed nanoseconds of `count` calls. They are the
# same functions for both libraries, so the interpreter runs identical bytecode
# around each call; only the callables passed in differ.


def loop_new_digest(constructor: Callable[[bytes], Any], data: bytes, count: int) -> int:
    start = time.perf_counter_ns()
    for _ in repeat(None, count):
        constructor(data).digest()
    return time.perf_counter_ns() - start


def loop_new_by_name_digest(new: Callable[..., Any], name: str, data: bytes, count: int) -> int:
    start = time.perf_counter_ns()
    for _ in repeat(None, count):
        new(name, data).digest()
    return time.perf_counter_ns() - start


def loop_oneshot(oneshot: Callable[[Any, bytes], Any], name: Any, data: bytes, count: int) -> int:
    start = time.perf_counter_ns()
    for _ in repeat(None, count):
        oneshot(name, data)
    return time.perf_counter_ns() - start


def loop_oneshot_of(function: Callable[[Any], Any], argument: Any, count: int) -> int:
    start = time.perf_counter_ns()
    for _ in repeat(None, count):
        function(argument)
    return time.perf_counter_ns() - start


def loop_bound_method(method: Callable[[], Any], count: int) -> int:
    start = time.perf_counter_ns()
    for _ in repeat(None, count):
        method()
    return time.perf_counter_ns() - start


def loop_empty(count: int) -> int:
    start = time.perf_counter_ns()
    for _ in repeat(None, count):
        pass
    return time.perf_counter_ns() - start


def one_large_update(constructor: Callable[[], Any], buffer: memoryview) -> int:
    # A fresh object per sample, made outside the timed span: only the update is timed.
    hasher = constructor()
    update = hasher.update
    start = time.perf_counter_ns()
    update(buffer)
    return time.perf_counter_ns() - start


# ---------------------------------------------------------------------------
# Cases. A case knows how to time `count` calls for one library; the runner does the
# calibration and the interleaving.


class Case:
    def __init__(
        self,
        algorithm: str,
        label: str,
        bytes_per_call: int,
        make_timer: Callable[[Any], Callable[[int], int]],
        fixed_count: int | None = None,
    ) -> None:
        self.algorithm = algorithm
        self.label = label
        self.bytes_per_call = bytes_per_call
        self.make_timer = make_timer
        # Calls per sample when calibration must not change it (the 16 MiB case).
        self.fixed_count = fixed_count


def hasher_factory(module: Any, algorithm: str) -> Callable[..., Any]:
    """module.<algorithm>, or module.new(<algorithm>, ...) where there is no such name
    (hashlib has no sha512_224 or sha512_256 attribute)."""
    constructor = getattr(module, algorithm, None)
    if constructor is not None:
        return constructor  # type: ignore[no-any-return]
    new = module.new
    return lambda data=b'': new(algorithm, data)


def build_cases(algorithms: Sequence[str], large_buffer: memoryview) -> list[Case]:
    cases: list[Case] = []
    for algorithm in algorithms:
        # Where hashlib has no constructor of that name, both sides go through new(name),
        # as a user of hashlib would, and the label says so.
        by_name = not hasattr(hashlib, algorithm)
        for size in SHORT_INPUT_SIZES:
            data = bytes(range(256)) * (size // 256) + bytes(range(size % 256))

            def make_new_digest(
                module: Any, algorithm: str = algorithm, data: bytes = data, by_name: bool = by_name
            ) -> Callable[[int], int]:
                if by_name:
                    new = module.new
                    return lambda count: loop_new_by_name_digest(new, algorithm, data, count)
                constructor = getattr(module, algorithm)
                return lambda count: loop_new_digest(constructor, data, count)

            label = ('new(name, %d B)+digest()' if by_name else 'new(%d B)+digest()') % size
            cases.append(Case(algorithm, label, size, make_new_digest))

        for size in ONESHOT_INPUT_SIZES:
            data = bytes(range(size))

            def make_oneshot(
                module: Any, algorithm: str = algorithm, data: bytes = data, by_name: bool = by_name
            ) -> Callable[[int], int]:
                # The one-shot's counterpart in hashlib is the constructor call it replaces.
                if module is hashlib or not hasattr(module, 'digest'):
                    if by_name:
                        new = module.new
                        return lambda count: loop_new_by_name_digest(new, algorithm, data, count)
                    constructor = getattr(module, algorithm)
                    return lambda count: loop_new_digest(constructor, data, count)
                oneshot = module.digest
                return lambda count: loop_oneshot(oneshot, algorithm, data, count)

            cases.append(Case(algorithm, 'digest(name, %d B)' % size, size, make_oneshot))

        for method_name in ('copy', 'digest', 'hexdigest'):

            def make_method(
                module: Any, algorithm: str = algorithm, method_name: str = method_name
            ) -> Callable[[int], int]:
                # A state holding a short message: digest() then finalizes one block.
                hasher = hasher_factory(module, algorithm)(b'abc')
                method = getattr(hasher, method_name)
                return lambda count: loop_bound_method(method, count)

            cases.append(Case(algorithm, method_name + '()', 0, make_method))

        # Saving and restoring a state (fastdigest's state() and from_state()) has no hashlib
        # counterpart; hashlib's copy(), the nearest thing, is the baseline.
        for method_name in ('state', 'from_state'):

            def make_state_case(
                module: Any, algorithm: str = algorithm, method_name: str = method_name
            ) -> Callable[[int], int]:
                hasher = hasher_factory(module, algorithm)(b'abc')
                if not hasattr(hasher, 'state'):
                    method = hasher.copy
                    return lambda count: loop_bound_method(method, count)
                if method_name == 'state':
                    method = hasher.state
                    return lambda count: loop_bound_method(method, count)
                from_state, saved = module.from_state, hasher.state()
                return lambda count: loop_oneshot_of(from_state, saved, count)

            cases.append(Case(algorithm, method_name + '() vs hashlib copy()', 0, make_state_case))

        def make_throughput(module: Any, algorithm: str = algorithm) -> Callable[[int], int]:
            constructor = hasher_factory(module, algorithm)
            return lambda count: one_large_update(constructor, large_buffer)

        cases.append(Case(algorithm, 'update(16 MiB)', THROUGHPUT_SIZE, make_throughput, fixed_count=1))
    return cases


# ---------------------------------------------------------------------------
# Machine description.


def read_cpuinfo() -> dict[str, str]:
    """The first processor's fields from /proc/cpuinfo; empty where there is none."""
    fields: dict[str, str] = {}
    try:
        with open('/proc/cpuinfo', encoding='utf-8', errors='replace') as cpuinfo:
            for line in cpuinfo:
                if not line.strip():
                    break  # the end of the first processor's block
                key, _, value = line.partition(':')
                fields.setdefault(key.strip(), value.strip())
    except OSError:
        pass
    return fields


def describe_machine(cpuinfo: dict[str, str]) -> dict[str, Any]:
    flags = set(cpuinfo.get('flags', cpuinfo.get('Features', '')).split())
    interesting = ('sha_ni', 'avx512f', 'avx512vl', 'avx2', 'bmi2', 'ssse3', 'sse4_1', 'sha1', 'sha2', 'sha512')
    mhz: float | None
    try:
        mhz = float(cpuinfo['cpu MHz'])
    except (KeyError, ValueError):
        mhz = None
    return {
        'cpu_model': cpuinfo.get('model name') or platform.processor() or platform.machine(),
        'cpu_flags': [flag for flag in interesting if flag in flags],
        'cpu_mhz_nominal': mhz,
        'logical_cpus': os.cpu_count(),
        'python': sys.version.split()[0],
        'python_implementation': platform.python_implementation(),
        'openssl': ssl.OPENSSL_VERSION,
        'platform': platform.platform(),
    }


# ---------------------------------------------------------------------------
# The runner.


def median_ns_per_iteration_of_empty_loop(sample_ns: float) -> float:
    count = 1000
    while loop_empty(count) < sample_ns and count < 1 << 30:
        count *= 2
    return statistics.median(loop_empty(count) for _ in range(5)) / count


def calibrate(timers: Sequence[Callable[[int], int]], sample_ns: float) -> int:
    """Calls per sample such that the slower side's sample lasts about sample_ns."""
    slowest_per_call = 0.0
    for timer in timers:
        count = 1
        while True:
            elapsed = timer(count)
            if elapsed >= sample_ns / 8 or count >= 1 << 24:
                break
            count *= 4
        # A second measurement at the found count, as the first calls also warm caches.
        slowest_per_call = max(slowest_per_call, min(elapsed, timer(count)) / count)
    return max(1, int(sample_ns / max(slowest_per_call, 1.0)))


def run(
    baseline: Any,
    candidate: Any,
    algorithms: Sequence[str],
    rounds: int,
    sample_ms: float,
    progress: Callable[[str], None],
) -> list[dict[str, Any]]:
    large_buffer = memoryview(bytes(i * 131 & 0xFF for i in range(256)) * (THROUGHPUT_SIZE // 256))
    cases = build_cases(algorithms, large_buffer)
    sample_ns = sample_ms * 1e6

    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        timers = []
        counts = []
        for case in cases:
            pair = (case.make_timer(baseline), case.make_timer(candidate))
            timers.append(pair)
            counts.append(case.fixed_count or calibrate(pair, sample_ns))
        progress('calibrated %d cases x 2 libraries; %d rounds' % (len(cases), rounds))

        baseline_samples: list[list[float]] = [[] for _ in cases]
        candidate_samples: list[list[float]] = [[] for _ in cases]
        ratios: list[list[float]] = [[] for _ in cases]
        for round_index in range(rounds):
            baseline_first = round_index % 2 == 0
            for index, ((baseline_timer, candidate_timer), count) in enumerate(zip(timers, counts, strict=True)):
                if baseline_first:
                    baseline_ns = baseline_timer(count)
                    candidate_ns = candidate_timer(count)
                else:
                    candidate_ns = candidate_timer(count)
                    baseline_ns = baseline_timer(count)
                baseline_samples[index].append(baseline_ns / count)
                candidate_samples[index].append(candidate_ns / count)
                ratios[index].append(baseline_ns / max(candidate_ns, 1))
            progress('round %d/%d done' % (round_index + 1, rounds))
    finally:
        if gc_was_enabled:
            gc.enable()

    results = []
    for index, case in enumerate(cases):
        results.append(
            {
                'algorithm': case.algorithm,
                'case': case.label,
                'bytes_per_call': case.bytes_per_call,
                'calls_per_sample': counts[index],
                'rounds': rounds,
                'baseline_ns_per_call': statistics.median(baseline_samples[index]),
                'candidate_ns_per_call': statistics.median(candidate_samples[index]),
                'ratio_median': statistics.median(ratios[index]),
                'ratio_min': min(ratios[index]),
                'ratio_max': max(ratios[index]),
            }
        )
    return results


# ---------------------------------------------------------------------------
# Overhead: what a short call costs above its compressions.

BLOCK_LEN = {'md5': 64, 'sha1': 64, 'sha224': 64, 'sha256': 64}  # the SHA-512 family: 128
LENGTH_FIELD_LEN = {'md5': 8, 'sha1': 8, 'sha224': 8, 'sha256': 8}  # the SHA-512 family: 16


def blocks_compressed(algorithm: str, size: int) -> int:
    """Blocks compressed to hash a message of size bytes, padding included."""
    block_len = BLOCK_LEN.get(algorithm, 128)
    return (size + 1 + LENGTH_FIELD_LEN.get(algorithm, 16) + block_len - 1) // block_len


def overheads(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """For each short call that hashes a whole message (constructor + digest, and the
    one-shot), its time minus blocks x the time per block of the same side's 16 MiB
    update in this run: the cost of the call itself, loop included."""
    per_block: dict[str, dict[str, float]] = {}
    for result in results:
        if result['case'].startswith('update('):
            blocks = result['bytes_per_call'] // BLOCK_LEN.get(result['algorithm'], 128)
            per_block[result['algorithm']] = {
                side: result[side + '_ns_per_call'] / blocks for side in ('baseline', 'candidate')
            }
    rows = []
    for result in results:
        algorithm = result['algorithm']
        if algorithm not in per_block or result['case'].startswith('update(') or 'B)' not in result['case']:
            continue
        blocks = blocks_compressed(algorithm, result['bytes_per_call'])
        row = {'algorithm': algorithm, 'case': result['case'], 'blocks': blocks}
        for side in ('baseline', 'candidate'):
            row[side + '_block_ns'] = per_block[algorithm][side]
            row[side + '_overhead_ns'] = result[side + '_ns_per_call'] - blocks * per_block[algorithm][side]
        rows.append(row)
    return rows


# ---------------------------------------------------------------------------
# Output.


def format_time(ns: float) -> str:
    if ns >= 1e6:
        return '%.2f ms' % (ns / 1e6)
    if ns >= 1e4:
        return '%.1f us' % (ns / 1e3)
    return '%.0f ns' % ns


def format_throughput(ns: float, size: int, mhz: float | None) -> str:
    text = '%.0f MB/s' % (size / ns * 1e3)
    if mhz:
        text += ' (%.2f cpb)' % (ns * mhz / 1e3 / size)
    return text


def markdown_report(
    machine: dict[str, Any],
    libraries: dict[str, str],
    backends: dict[str, str],
    loop_ns: float,
    results: list[dict[str, Any]],
) -> str:
    mhz = machine['cpu_mhz_nominal']
    baseline_name = libraries['baseline']
    candidate_name = libraries['candidate']
    lines = [
        '# fastdigest vs hashlib',
        '',
        '- CPU: %s, %s logical CPUs; flags: %s'
        % (machine['cpu_model'], machine['logical_cpus'], ' '.join(machine['cpu_flags']) or '(none listed)'),
        '- CPU clock: %s'
        % (
            '%.0f MHz nominal (from /proc/cpuinfo; cpb uses it, the real clock may differ)' % mhz
            if mhz
            else 'unknown, so no cycles per byte'
        ),
        '- Python %s (%s), %s' % (machine['python'], machine['python_implementation'], machine['openssl']),
        '- baseline: %s; candidate: %s' % (baseline_name, candidate_name),
        '- ratio = %s time / %s time, median of per-round ratios over %d interleaved rounds (> 1: %s is faster)'
        % (baseline_name, candidate_name, results[0]['rounds'] if results else 0, candidate_name),
        "- times are medians per call and include the loop's own %.1f ns per iteration, the same on both sides;"
        ' MB/s is 10^6 bytes per second' % loop_ns,
        '',
    ]
    header = '| algorithm | case | %s | %s | ratio |' % (baseline_name, candidate_name)
    rule = '|---|---|---:|---:|---:|'
    if backends:
        header = '| algorithm | backend | case | %s | %s | ratio |' % (baseline_name, candidate_name)
        rule = '|---|---|---|---:|---:|---:|'
    lines += [header, rule]
    for result in results:
        if result['case'].startswith('update('):
            baseline_text = format_throughput(result['baseline_ns_per_call'], result['bytes_per_call'], mhz)
            candidate_text = format_throughput(result['candidate_ns_per_call'], result['bytes_per_call'], mhz)
        else:
            baseline_text = format_time(result['baseline_ns_per_call'])
            candidate_text = format_time(result['candidate_ns_per_call'])
        cells = [result['algorithm']]
        if backends:
            cells.append(backends.get(result['algorithm'], '?'))
        cells += [result['case'], baseline_text, candidate_text, '%.2f' % result['ratio_median']]
        lines.append('| ' + ' | '.join(cells) + ' |')

    rows = overheads(results)
    if rows:
        lines += [
            '',
            'Overhead above the compression: time per call minus blocks x time per block, the time per block'
            " taken from the same side's 16 MiB update in this run (loop included).",
            '',
            '| algorithm | case | blocks | %s ns/block | %s ns/block | %s overhead | %s overhead |'
            % (baseline_name, candidate_name, baseline_name, candidate_name),
            '|---|---|---:|---:|---:|---:|---:|',
        ]
        for row in rows:
            lines.append(
                '| %s | %s | %d | %.0f | %.0f | %.0f ns | %.0f ns |'
                % (
                    row['algorithm'],
                    row['case'],
                    row['blocks'],
                    row['baseline_block_ns'],
                    row['candidate_block_ns'],
                    row['baseline_overhead_ns'],
                    row['candidate_overhead_ns'],
                )
            )
    return '\n'.join(lines)


# ---------------------------------------------------------------------------
# Command line.


def parse_algorithms(text: str) -> list[str]:
    names = [name.strip().lower().replace('-', '_') for name in text.split(',') if name.strip()]
    unknown = [name for name in names if name not in ALGORITHMS]
    if unknown:
        raise argparse.ArgumentTypeError(
            'unknown algorithm(s) %s; choose from %s' % (', '.join(unknown), ', '.join(ALGORITHMS))
        )
    return names


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument(
        '--quick',
        action='store_true',
        help='%d rounds of %.0f ms samples: a smoke run for CI' % (QUICK_ROUNDS, QUICK_SAMPLE_MS),
    )
    parser.add_argument(
        '--algorithms', type=parse_algorithms, default=list(ALGORITHMS), help='comma-separated, default: all eight'
    )
    parser.add_argument(
        '--rounds',
        type=int,
        help='interleaved rounds (default %d, or %d with --quick)' % (DEFAULT_ROUNDS, QUICK_ROUNDS),
    )
    parser.add_argument(
        '--sample-ms', type=float, help='target length of one timed sample (default %.0f)' % DEFAULT_SAMPLE_MS
    )
    output = parser.add_mutually_exclusive_group()
    output.add_argument(
        '--markdown', dest='format', action='store_const', const='markdown', help='Markdown table (default)'
    )
    output.add_argument('--json', dest='format', action='store_const', const='json', help='JSON document on stdout')
    parser.add_argument(
        '--candidate',
        default='fastdigest',
        help="module to compare with hashlib (default fastdigest; 'hashlib' measures the method's own noise)",
    )
    parser.add_argument('-v', '--verbose', action='store_true', help='progress on stderr')
    parser.set_defaults(format='markdown')
    args = parser.parse_args(argv)
    if args.rounds is None:
        args.rounds = QUICK_ROUNDS if args.quick else DEFAULT_ROUNDS
    if args.sample_ms is None:
        args.sample_ms = QUICK_SAMPLE_MS if args.quick else DEFAULT_SAMPLE_MS
    if args.rounds < 1:
        parser.error('--rounds must be at least 1')
    if args.sample_ms <= 0:
        parser.error('--sample-ms must be positive')
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        candidate = importlib.import_module(args.candidate)
    except ImportError as error:
        print(
            'cannot import %r (%s): build it first (pip install -e .), or run with --candidate hashlib'
            % (args.candidate, error),
            file=sys.stderr,
        )
        return 2
    missing = []
    for name in args.algorithms:
        try:
            hasher_factory(candidate, name)(b'')
        except (AttributeError, ValueError, TypeError):
            missing.append(name)
    if missing:
        print('%s lacks %s' % (args.candidate, ', '.join(missing)), file=sys.stderr)
        return 2

    def progress(message: str) -> None:
        if args.verbose:
            print(message, file=sys.stderr, flush=True)

    machine = describe_machine(read_cpuinfo())
    # Which kernel fastdigest runs for each algorithm, once it says so.
    implementation = getattr(candidate, 'implementation', None)
    backends = {}
    if isinstance(implementation, dict):
        backends = {name: str(implementation.get(name, '?')) for name in args.algorithms}
    libraries = {'baseline': 'hashlib', 'candidate': args.candidate}
    if args.candidate == 'hashlib':
        libraries['candidate'] = 'hashlib (again)'

    loop_ns = median_ns_per_iteration_of_empty_loop(args.sample_ms * 1e6)
    started = time.monotonic()
    results = run(hashlib, candidate, args.algorithms, args.rounds, args.sample_ms, progress)
    progress('measured in %.1f s' % (time.monotonic() - started))

    if args.format == 'json':
        document = {
            'machine': machine,
            'libraries': libraries,
            'candidate_file': getattr(candidate, '__file__', None),
            'backends': backends,
            'empty_loop_ns_per_iteration': loop_ns,
            'sample_ms': args.sample_ms,
            'results': results,
            'overheads': overheads(results),
        }
        json.dump(document, sys.stdout, indent=2)
        print()
    else:
        print(markdown_report(machine, libraries, backends, loop_ns, results))
    return 0


if __name__ == '__main__':
    sys.exit(main())
