#!/usr/bin/env python3
"""Benchmark fastdigest.fingerprint against joblib.hash and dask.base.tokenize, and against hashing the buffer.

Usage:
    python benchmarks/bench_fingerprint.py                   # every case, 11 rounds
    python benchmarks/bench_fingerprint.py --quick           # small sizes, 3 rounds: a smoke run
    python benchmarks/bench_fingerprint.py --rounds 21 --array-mb 100 --json

The values (made once, seeded, before any timing):

  records       1,000 dicts of 10 fields: 4 strings of 5 to 30 ASCII letters, 3 ints, 2 floats, a bool
  dict of lists 100 keys (strings), each a list of 50 strings of 5 to 30 ASCII letters and 50 ints
  nested        a dict of 20 keys, each a list of 20 dicts of {'name': str, 'tags': [str] * 5, 'n': int}
  array         a float64 NumPy array of --array-mb megabytes (default 100), C-contiguous

The cases, each to the digest of the value:

  fingerprint                 fastdigest.fingerprint('md5', value) (joblib's and dask's algorithm), and
                              for the array fastdigest.fingerprint('sha256', array)
  fingerprint sha256          fastdigest.fingerprint('sha256', value): SHA-256 where the CPU has its
                              instructions is faster than MD5 (a second ratio column)
  joblib.hash                 joblib.hash(value) (MD5 of its pickling, with its own handling of NumPy)
  dask.base.tokenize          dask.base.tokenize(value) (normalize_token, then MD5 of the tokens)
  sha256 of the buffer        fastdigest.sha256(array).digest(): the floor for the array, which
                              fingerprint hashes from its buffer after a header
  fingerprint, Fortran order  fingerprint of the same values in Fortran order: a bounded copy into C
                              order (for information)

Method (CONTRIBUTING's): every case of one value in one process, one untimed round first, then
interleaved rounds whose order rotates; time.perf_counter around each call (enough calls per sample
to last 20 ms or more), the garbage collector off while timing. Reported: each case's median time a
call, and the median over rounds of each per-round ratio (the other's time / fingerprint's: above 1
means fingerprint is faster; for the buffer, fingerprint's speed as a share of sha256's).

Targets (issue 39): fingerprint >= 10x joblib.hash and dask.base.tokenize on the dicts of lists and
strings, and within 10% of fastdigest.sha256 over the same buffer for the 100 MB array (a ratio of
0.9 or more). The CPU is named beside the figures (model name, family, model), with Python and OpenSSL.
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import statistics
import string
import sys
import time
from collections.abc import Callable
from typing import Any

import bench  # benchmarks/bench.py: the machine's description
import fastdigest

try:
    import numpy as np
except ImportError as error:  # pragma: no cover
    sys.exit('bench_fingerprint.py needs numpy (the bench-fingerprint extra): %s' % error)


def optional_import(name: str) -> Any | None:
    try:
        return __import__(name, fromlist=['_'])
    except ImportError:
        return None


joblib = optional_import('joblib')
dask_base = optional_import('dask.base')

SPEED_TARGET = 10.0  # fingerprint against joblib.hash and dask.base.tokenize
BUFFER_TARGET = 0.9  # fingerprint's speed as a share of sha256's over the same buffer


# ---- the machine ---------------------------------------------------------------------------------------------


def machine() -> dict[str, Any]:
    """bench.py's description of the machine (CPU, flags, Python, OpenSSL), with the CPU's family and model."""
    cpuinfo = bench.read_cpuinfo()
    described = bench.describe_machine(cpuinfo)
    described['cpu_family'] = cpuinfo.get('cpu family')
    described['cpu_model_number'] = cpuinfo.get('model')
    return described


def describe(described: dict[str, Any]) -> str:
    text = described['cpu_model']
    if described['cpu_family'] is not None:
        text += ' (family %s, model %s)' % (described['cpu_family'], described['cpu_model_number'])
    return '%s, %s; Python %s; %s' % (
        text,
        ' '.join(described['cpu_flags']) or 'no SHA/AVX flags',
        described['python'],
        described['openssl'],
    )


def versions() -> dict[str, str]:
    found = {'numpy': np.__version__}
    if joblib is not None:
        found['joblib'] = joblib.__version__
    dask = optional_import('dask')
    if dask is not None:
        found['dask'] = dask.__version__
    return found


# ---- the values ----------------------------------------------------------------------------------------------


def word(rng: random.Random) -> str:
    return ''.join(rng.choices(string.ascii_letters, k=rng.randrange(5, 31)))


def records(count: int, rng: random.Random) -> list[dict[str, Any]]:
    return [
        {
            'name': word(rng),
            'email': word(rng) + '@example.com',
            'city': word(rng),
            'country': word(rng),
            'id': rng.randrange(10**9),
            'age': rng.randrange(100),
            'visits': rng.randrange(10**6),
            'score': rng.random(),
            'balance': rng.uniform(-1e6, 1e6),
            'active': rng.random() < 0.5,
        }
        for _ in range(count)
    ]


def dict_of_lists(keys: int, length: int, rng: random.Random) -> dict[str, list[Any]]:
    return {word(rng): [word(rng) for _ in range(length)] + list(range(length)) for _ in range(keys)}


def nested(keys: int, rng: random.Random) -> dict[str, list[dict[str, Any]]]:
    return {
        word(rng): [
            {'name': word(rng), 'tags': [word(rng) for _ in range(5)], 'n': rng.randrange(10**6)} for _ in range(20)
        ]
        for _ in range(keys)
    }


# ---- timing --------------------------------------------------------------------------------------------------


def calls_for(function: Callable[[], object], floor: float = 0.02) -> int:
    """How many calls make a sample of `floor` seconds or more."""
    calls = 1
    while True:
        start = time.perf_counter()
        for _ in range(calls):
            function()
        if time.perf_counter() - start >= floor or calls >= 1 << 20:
            return calls
        calls *= 2


def interleaved(cases: dict[str, Callable[[], object]], rounds: int) -> dict[str, list[float]]:
    """Seconds a call of each case, per round, the order rotating each round."""
    names = list(cases)
    counts = {name: calls_for(cases[name]) for name in names}
    times: dict[str, list[float]] = {name: [] for name in names}
    gc.collect()
    gc.disable()
    try:
        for r in range(rounds):
            order = names[r % len(names) :] + names[: r % len(names)]
            for name in order:
                function, calls = cases[name], counts[name]
                start = time.perf_counter()
                for _ in range(calls):
                    function()
                times[name].append((time.perf_counter() - start) / calls)
    finally:
        gc.enable()
    return times


def median_ratio(times: dict[str, list[float]], other: str, ours: str) -> float:
    return statistics.median(o / f for o, f in zip(times[other], times[ours], strict=True))


def format_time(seconds: float) -> str:
    for unit, scale in (('s', 1), ('ms', 1e-3), ('us', 1e-6)):
        if seconds >= scale:
            return '%.3g %s' % (seconds / scale, unit)
    return '%.3g ns' % (seconds / 1e-9)


# ---- the cases -----------------------------------------------------------------------------------------------


def python_value_cases(value: Any) -> dict[str, Callable[[], object]]:
    cases: dict[str, Callable[[], object]] = {
        'fingerprint': lambda: fastdigest.fingerprint('md5', value),
        'fingerprint sha256': lambda: fastdigest.fingerprint('sha256', value),
    }
    if joblib is not None:
        cases['joblib.hash'] = lambda: joblib.hash(value)
    if dask_base is not None:
        cases['dask.base.tokenize'] = lambda: dask_base.tokenize(value)
    return cases


def array_cases(array: Any) -> dict[str, Callable[[], object]]:
    fortran = np.asfortranarray(array.reshape(-1, 1000)) if array.size % 1000 == 0 else array
    return {
        'fingerprint': lambda: fastdigest.fingerprint('sha256', array),
        'sha256 of the buffer': lambda: fastdigest.sha256(array).digest(),
        'fingerprint, Fortran order': lambda: fastdigest.fingerprint('sha256', fortran),
    }


def run(arguments: argparse.Namespace) -> dict[str, Any]:
    rng = random.Random(39)
    values = {
        'records (1,000 x 10 fields)': records(100 if arguments.quick else 1000, rng),
        'dict of lists (100 keys x 100 items)': dict_of_lists(10 if arguments.quick else 100, 50, rng),
        'nested (20 x 20 dicts)': nested(4 if arguments.quick else 20, rng),
    }
    results: dict[str, Any] = {'machine': machine(), 'versions': versions(), 'values': {}}
    for label, value in values.items():
        cases = python_value_cases(value)
        for function in cases.values():
            function()  # the untimed round
        times = interleaved(cases, arguments.rounds)
        others = [name for name in cases if not name.startswith('fingerprint')]
        ratios = {name: median_ratio(times, name, 'fingerprint') for name in others}
        ratios.update({f'{name} / sha256': median_ratio(times, name, 'fingerprint sha256') for name in others})
        results['values'][label] = {
            'median seconds': {name: statistics.median(t) for name, t in times.items()},
            'ratios': ratios,
        }
    megabytes = 4 if arguments.quick else arguments.array_mb
    array = np.random.default_rng(39).random(megabytes * 1_000_000 // 8)
    cases = array_cases(array)
    for function in cases.values():
        function()
    times = interleaved(cases, arguments.rounds)
    results['values'][f'array (float64, {megabytes} MB)'] = {
        'median seconds': {name: statistics.median(t) for name, t in times.items()},
        'ratios': {
            'sha256 of the buffer': median_ratio(times, 'fingerprint', 'sha256 of the buffer') ** -1,
            'fingerprint, Fortran order': median_ratio(times, 'fingerprint, Fortran order', 'fingerprint'),
        },
    }
    return results


def report(results: dict[str, Any]) -> None:
    print('Machine:', describe(results['machine']))
    print('Versions:', ', '.join('%s %s' % item for item in results['versions'].items()))
    if joblib is None or dask_base is None:
        print('(joblib or dask is missing: pip install -e .[bench-fingerprint])')
    print()
    print('| value | case | time a call | its time / fingerprint MD5 | its time / fingerprint SHA-256 |')
    print('|---|---|---|---|---|')
    arrays = {}
    for label, result in results['values'].items():
        if label.startswith('array'):
            arrays[label] = result
            continue
        for name, seconds in result['median seconds'].items():
            shown = [
                '' if r is None else '%.2fx' % r
                for r in (result['ratios'].get(name), result['ratios'].get(f'{name} / sha256'))
            ]
            print('| %s | %s | %s | %s | %s |' % (label, name, format_time(seconds), *shown))
    print()
    print('| value | case | time a call | ratio |')
    print('|---|---|---|---|')
    for label, result in arrays.items():
        for name, seconds in result['median seconds'].items():
            ratio = result['ratios'].get(name)
            print(
                '| %s | %s | %s | %s |' % (label, name, format_time(seconds), '' if ratio is None else '%.2f' % ratio)
            )
    print()
    print(
        'Ratios are medians of per-round ratios. The array\'s: for "sha256 of the buffer", fingerprint\'s speed as a '
        'share of sha256\'s; for "Fortran order", its time over the C-ordered array\'s. Targets: %.0fx '
        'joblib.hash and dask.base.tokenize on the dicts of lists and strings; %.2f of sha256 over the array.'
        % (SPEED_TARGET, BUFFER_TARGET)
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--quick', action='store_true', help='small values and 3 rounds: a smoke run')
    parser.add_argument('--rounds', type=int, default=None, help='interleaved rounds (default 11, --quick 3)')
    parser.add_argument('--array-mb', type=int, default=100, help="the array's size in megabytes (default 100)")
    parser.add_argument('--json', action='store_true', help='print the results as JSON instead of a table')
    arguments = parser.parse_args(argv)
    if arguments.rounds is None:
        arguments.rounds = 3 if arguments.quick else 11
    results = run(arguments)
    if arguments.json:
        json.dump(results, sys.stdout, indent=1)
        print()
    else:
        report(results)
    return 0


if __name__ == '__main__':
    sys.exit(main())
