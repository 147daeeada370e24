#!/usr/bin/env python3
"""Benchmark fastdigest against hashlib at each CPU level this CPU can emulate, side by side.

Usage:
    python benchmarks/bench_levels.py                # the four levels, 15 rounds each (a few minutes)
    python benchmarks/bench_levels.py --quick        # 3 rounds of short samples: a smoke run
    python benchmarks/bench_levels.py --levels best,no-shani,no-avx2 --rounds 31 --json

A level is a CPU with fewer features than this one, emulated on both sides at once: fastdigest with
FASTDIGEST_DISABLE (or FASTDIGEST_BACKEND=portable) and hashlib's OpenSSL with OPENSSL_ia32cap hiding
the same CPUID bits (the second word is CPUID.7.0:EBX: bit 29 SHA, bit 16 AVX512F, bit 5 AVX2):

  best             everything this CPU has               (OPENSSL_ia32cap unset)
  no-shani         shani                                 ":~0x20000000"
  no-shani-avx512  shani,avx512 (Skylake..Comet Lake)    ":~0x20010000" (OpenSSL 3.0 has no AVX-512
                                                         SHA code, so this hides nothing more there)
  no-avx2          shani,avx512,avx2 (not by default)    ":~0x20010020" (OpenSSL keeps its AVX code)
  portable         FASTDIGEST_BACKEND=portable           ":~0x20000000": the portable C against what
                                                         hashlib runs on a CPU without SHA-NI, the
                                                         common case where fastdigest has no kernel

Each level runs in its own interpreter, started with those variables in its environment (OpenSSL reads
OPENSSL_ia32cap once, when it is loaded), which times fastdigest and hashlib in interleaved rounds, as
bench.py does (the order flips every round; ratios are medians of per-round ratios, hashlib's time /
fastdigest's: above 1, fastdigest is faster), in this thread's CPU time unless --clock wall. Cases: one update() of 16 MiB for every algorithm;
new(data).digest() at 64 B and 1 KiB, hmac.digest of 64 B, pbkdf2_hmac and digest_many of 64-byte
messages (against the loop [hashlib.new(name, m).digest() for m in messages], as bench_batch.py) for
one algorithm of each family. The table gives each ratio with the kernel fastdigest ran
(fastdigest.implementation, or batch_implementation for digest_many), so the script works with
whatever kernels the build has. Only the standard library is needed.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from itertools import repeat
from typing import Any

import bench  # benchmarks/bench.py: its calibration, constructors by name and machine description

LEVELS: dict[str, dict[str, str | None]] = {
    'best': {'FASTDIGEST_DISABLE': None, 'FASTDIGEST_BACKEND': None, 'OPENSSL_ia32cap': None},
    'no-shani': {'FASTDIGEST_DISABLE': 'shani', 'FASTDIGEST_BACKEND': None, 'OPENSSL_ia32cap': ':~0x20000000'},
    'no-shani-avx512': {
        'FASTDIGEST_DISABLE': 'shani,avx512',
        'FASTDIGEST_BACKEND': None,
        'OPENSSL_ia32cap': ':~0x20010000',
    },
    'no-avx2': {
        'FASTDIGEST_DISABLE': 'shani,avx512,avx2',
        'FASTDIGEST_BACKEND': None,
        'OPENSSL_ia32cap': ':~0x20010020',
    },
    'portable': {'FASTDIGEST_DISABLE': None, 'FASTDIGEST_BACKEND': 'portable', 'OPENSSL_ia32cap': ':~0x20000000'},
}
DEFAULT_LEVELS = ('best', 'no-shani', 'no-shani-avx512', 'portable')

THROUGHPUT_ALGORITHMS = bench.ALGORITHMS
# One algorithm of each family for the short-message cases (sha224, sha384 and the sha512_* share a
# family's kernel).
SHORT_ALGORITHMS = ('md5', 'sha1', 'sha256', 'sha512')
SHORT_SIZES = (64, 1024)
BATCH_MESSAGES = 10_000
DEFAULT_PBKDF2_ITERATIONS = 2_000
DEFAULT_ROUNDS = 15
QUICK_ROUNDS = 3
DEFAULT_SAMPLE_MS = 5.0
QUICK_SAMPLE_MS = 1.0


# ---------------------------------------------------------------------------
# The child: one level, both libraries.


class Case:
    """One measurement: a timer per side (calls -> nanoseconds), the kernel table it is labelled by,
    and the unit count one call covers (messages of a batch, PBKDF2 iterations)."""

    def __init__(
        self,
        label: str,
        algorithm: str,
        timers: tuple[Callable[[int], int], Callable[[int], int]],
        kernel_table: str = 'implementation',
        units_per_call: int = 1,
        fixed_count: int | None = None,
    ) -> None:
        self.label, self.algorithm, self.timers = label, algorithm, timers
        self.kernel_table, self.units_per_call, self.fixed_count = kernel_table, units_per_call, fixed_count


# The clock of the timed loops: this thread's CPU time by default (as bench_hmac.py and bench_batch.py),
# which leaves out the time slices other processes of a shared machine take; every case, the 16 MiB
# updates and PBKDF2 with the GIL released included, does all its work in this thread. --clock wall
# switches to time.perf_counter_ns, bench.py's clock. bench.py's own loops read the wall clock, so the
# three loops are written here again.
clock = time.thread_time_ns


def loop_call(function: Callable[..., Any], args: tuple[Any, ...], count: int) -> int:
    start = clock()
    for _ in repeat(None, count):
        function(*args)
    return clock() - start


def loop_new_digest(constructor: Callable[[bytes], Any], data: bytes, count: int) -> int:
    start = clock()
    for _ in repeat(None, count):
        constructor(data).digest()
    return clock() - start


def one_large_update(constructor: Callable[[], Any], buffer: memoryview) -> int:
    hasher = constructor()  # made outside the timed span, as in bench.py
    update = hasher.update
    start = clock()
    update(buffer)
    return clock() - start


def build_cases(pbkdf2_iterations: int) -> list[Case]:
    import hmac

    import fastdigest
    import fastdigest.hmac as fd_hmac
    from bench_batch import make_cases as batch_cases
    from bench_hmac import KEY, MESSAGE_64, PASSWORD, SALT

    large_buffer = memoryview(bytes(i * 131 & 0xFF for i in range(256)) * (bench.THROUGHPUT_SIZE // 256))

    def large_update(module: Any, name: str) -> Callable[[int], int]:
        constructor = bench.hasher_factory(module, name)
        return lambda count: one_large_update(constructor, large_buffer)

    def new_digest(module: Any, name: str, data: bytes) -> Callable[[int], int]:
        constructor = getattr(module, name)
        return lambda count: loop_new_digest(constructor, data, count)

    def call(function: Callable[..., Any], *args: Any) -> Callable[[int], int]:
        return lambda count: loop_call(function, args, count)

    cases = []
    for name in THROUGHPUT_ALGORITHMS:
        timers = (large_update(hashlib, name), large_update(fastdigest, name))
        cases.append(Case('%s 16 MiB' % name, name, timers, fixed_count=1))
    for name in SHORT_ALGORITHMS:
        for size in SHORT_SIZES:
            data = bytes(range(256)) * (size // 256) + bytes(range(size % 256))
            timers = (new_digest(hashlib, name, data), new_digest(fastdigest, name, data))
            size_text = '1 KiB' if size == 1024 else '%d B' % size
            cases.append(Case('%s new(%s)+digest()' % (name, size_text), name, timers))
    for name in SHORT_ALGORITHMS:
        timers = (call(hmac.digest, KEY, MESSAGE_64, name), call(fd_hmac.digest, KEY, MESSAGE_64, name))
        cases.append(Case('hmac.digest %s 64 B' % name, name, timers))
    for name in ('sha1', 'sha256', 'sha512'):
        args = (name, PASSWORD, SALT, pbkdf2_iterations)
        timers = (call(hashlib.pbkdf2_hmac, *args), call(fastdigest.pbkdf2_hmac, *args))
        cases.append(Case('pbkdf2_hmac %s (per iteration)' % name, name, timers, units_per_call=pbkdf2_iterations))
    messages = [os.urandom(64) for _ in range(BATCH_MESSAGES)]
    for name in SHORT_ALGORITHMS:
        batch = batch_cases(name)
        if batch['digest_many'](messages[:100]) != batch['hashlib.new loop'](messages[:100]):
            raise SystemExit('digest_many(%r) disagrees with hashlib' % name)
        timers = (call(batch['hashlib.new loop'], messages), call(batch['digest_many'], messages))
        cases.append(
            Case(
                'digest_many %s 64 B (per message)' % name,
                name,
                timers,
                kernel_table='batch_implementation',
                units_per_call=BATCH_MESSAGES,
            )
        )
    return cases


def run_level(rounds: int, sample_ms: float, pbkdf2_iterations: int) -> dict[str, Any]:
    import fastdigest

    cases = build_cases(pbkdf2_iterations)
    sample_ns = sample_ms * 1e6
    counts = [case.fixed_count or bench.calibrate(case.timers, sample_ns) for case in cases]
    times: list[tuple[list[float], list[float]]] = [([], []) for _ in cases]
    ratios: list[list[float]] = [[] for _ in cases]
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        for round_index in range(rounds):
            order = (0, 1) if round_index % 2 == 0 else (1, 0)
            for index, (case, count) in enumerate(zip(cases, counts, strict=True)):
                elapsed = [0, 0]
                for side in order:
                    elapsed[side] = case.timers[side](count)
                for side in (0, 1):
                    times[index][side].append(elapsed[side] / count / case.units_per_call)
                ratios[index].append(elapsed[0] / max(elapsed[1], 1))
    finally:
        if gc_was_enabled:
            gc.enable()
    tables = {'implementation': fastdigest.implementation, 'batch_implementation': fastdigest.batch_implementation}
    return {
        'environment': {name: os.environ.get(name) for name in LEVELS['best']},
        'cpu_features': sorted(fastdigest.cpu_features),
        'implementation': fastdigest.implementation,
        'batch_implementation': fastdigest.batch_implementation,
        'rounds': rounds,
        'clock': 'CPU' if clock is time.thread_time_ns else 'wall',
        'results': [
            {
                'case': case.label,
                'kernel': tables[case.kernel_table][case.algorithm],
                'hashlib_ns': statistics.median(times[index][0]),
                'fastdigest_ns': statistics.median(times[index][1]),
                'ratio': statistics.median(ratios[index]),
                'ratio_min': min(ratios[index]),
                'ratio_max': max(ratios[index]),
            }
            for index, case in enumerate(cases)
        ],
    }


# ---------------------------------------------------------------------------
# The parent: one child per level, then the table.


def run_child(level: str, args: argparse.Namespace) -> dict[str, Any]:
    environment = dict(os.environ)
    for name, value in LEVELS[level].items():
        environment.pop(name, None)
        if value is not None:
            environment[name] = value
    command = [
        sys.executable,
        os.path.abspath(__file__),
        '--child',
        '--clock',
        args.clock,
        '--rounds',
        str(args.rounds),
        '--sample-ms',
        str(args.sample_ms),
        '--pbkdf2-iterations',
        str(args.pbkdf2_iterations),
    ]
    result = subprocess.run(command, env=environment, capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit('level %s failed:\n%s' % (level, result.stderr))
    return json.loads(result.stdout)  # type: ignore[no-any-return]


def describe_level(level: str) -> str:
    settings = LEVELS[level]
    fastdigest_side = (
        'FASTDIGEST_BACKEND=portable'
        if settings['FASTDIGEST_BACKEND']
        else 'FASTDIGEST_DISABLE=%s' % settings['FASTDIGEST_DISABLE']
        if settings['FASTDIGEST_DISABLE']
        else 'nothing hidden'
    )
    mask = settings['OPENSSL_ia32cap']
    openssl_side = 'OPENSSL_ia32cap="%s"' % mask if mask else 'OPENSSL_ia32cap unset'
    return '%s; hashlib: %s' % (fastdigest_side, openssl_side)


def format_ns(ns: float) -> str:
    return '%.2f ms' % (ns / 1e6) if ns >= 1e6 else '%.0f ns' % ns


def markdown(machine: dict[str, Any], cpuinfo: dict[str, str], levels: dict[str, dict[str, Any]]) -> str:
    names = list(levels)
    first = levels[names[0]]
    lines = [
        '# fastdigest vs hashlib by CPU level',
        '',
        '- CPU: %s (family %s, model %s), %s logical CPUs; flags: %s'
        % (
            machine['cpu_model'],
            cpuinfo.get('cpu family', '?'),
            cpuinfo.get('model', '?'),
            machine['logical_cpus'],
            ' '.join(machine['cpu_flags']) or '(none listed)',
        ),
        '- Python %s, %s; %d interleaved rounds per level, %s time'
        % (machine['python'], machine['openssl'], first['rounds'], first['clock']),
        '- cell: hashlib time / fastdigest time (median of per-round ratios; > 1: fastdigest is faster),'
        ' then the kernel fastdigest ran; times are per call, per message (digest_many) or per iteration (pbkdf2)',
        '',
    ]
    for name in names:
        lines.append(
            '- **%s**: %s; fastdigest.cpu_features: %s'
            % (name, describe_level(name), ', '.join(levels[name]['cpu_features']) or '(none)')
        )
    lines += ['', '| case | ' + ' | '.join(names) + ' |', '|---|' + '---:|' * len(names)]
    for index, result in enumerate(first['results']):
        cells = []
        for name in names:
            row = levels[name]['results'][index]
            cells.append('%.2f %s' % (row['ratio'], row['kernel']))
        lines.append('| %s | %s |' % (result['case'], ' | '.join(cells)))
    lines += [
        '',
        'Times (hashlib / fastdigest):',
        '',
        '| case | ' + ' | '.join(names) + ' |',
        '|---|' + '---:|' * len(names),
    ]
    for index, result in enumerate(first['results']):
        cells = []
        for name in names:
            row = levels[name]['results'][index]
            cells.append('%s / %s' % (format_ns(row['hashlib_ns']), format_ns(row['fastdigest_ns'])))
        lines.append('| %s | %s |' % (result['case'], ' | '.join(cells)))
    return '\n'.join(lines)


def parse_levels(text: str) -> list[str]:
    names = [name.strip() for name in text.split(',') if name.strip()]
    unknown = [name for name in names if name not in LEVELS]
    if unknown:
        raise argparse.ArgumentTypeError(
            'unknown level(s) %s; choose from %s' % (', '.join(unknown), ', '.join(LEVELS))
        )
    return names


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument(
        '--quick', action='store_true', help='%d rounds of %.0f ms samples' % (QUICK_ROUNDS, QUICK_SAMPLE_MS)
    )
    parser.add_argument(
        '--levels',
        type=parse_levels,
        default=list(DEFAULT_LEVELS),
        help='comma-separated, from %s (default %s)' % (', '.join(LEVELS), ','.join(DEFAULT_LEVELS)),
    )
    parser.add_argument('--rounds', type=int, help='interleaved rounds per level (default %d)' % DEFAULT_ROUNDS)
    parser.add_argument('--sample-ms', type=float, help='length of one timed sample (default %.0f)' % DEFAULT_SAMPLE_MS)
    parser.add_argument('--pbkdf2-iterations', type=int, default=DEFAULT_PBKDF2_ITERATIONS)
    parser.add_argument(
        '--clock', choices=('cpu', 'wall'), default='cpu', help="this thread's CPU time (default) or the wall clock"
    )
    parser.add_argument('--json', action='store_true', help='a JSON document instead of the tables')
    parser.add_argument('--child', action='store_true', help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.rounds is None:
        args.rounds = QUICK_ROUNDS if args.quick else DEFAULT_ROUNDS
    if args.sample_ms is None:
        args.sample_ms = QUICK_SAMPLE_MS if args.quick else DEFAULT_SAMPLE_MS
    if args.rounds < 1 or args.sample_ms <= 0 or args.pbkdf2_iterations < 1:
        parser.error('--rounds, --sample-ms and --pbkdf2-iterations must be positive')
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    global clock
    clock = time.thread_time_ns if args.clock == 'cpu' else time.perf_counter_ns
    if args.child:
        json.dump(run_level(args.rounds, args.sample_ms, args.pbkdf2_iterations), sys.stdout)
        return 0
    cpuinfo = bench.read_cpuinfo()
    machine = bench.describe_machine(cpuinfo)
    levels = {}
    for level in args.levels:
        started = time.monotonic()
        levels[level] = run_child(level, args)
        print('level %s: %.0f s' % (level, time.monotonic() - started), file=sys.stderr, flush=True)
    if args.json:
        document = {
            'machine': machine,
            'levels': {name: dict(result, settings=LEVELS[name]) for name, result in levels.items()},
        }
        json.dump(document, sys.stdout, indent=2)
        print()
    else:
        print(markdown(machine, cpuinfo, levels))
    return 0


if __name__ == '__main__':
    sys.exit(main())
