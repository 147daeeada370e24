#!/usr/bin/env python3
"""Benchmark fastdigest.json_digest against the JSON cache-key idiom, side by side in one process.

Usage:
    python benchmarks/bench_cache_keys.py              # 15 rounds (about a minute on an idle machine)
    python benchmarks/bench_cache_keys.py --quick      # 3 rounds of smaller batches: a smoke run
    python benchmarks/bench_cache_keys.py --rounds 31 --json > result.json

The idiom is `hashlib.sha256(json.dumps(obj, sort_keys=True).encode()).hexdigest()`. Two workloads:

  records     10,000 distinct records of 10 fields each (4 str, 3 int, 3 float: a price of two
              decimals, a reading of four, a ratio of full precision), as a cache keys them
  document    one nested document of about 100 KiB (lists of dicts of str, int, float, bool, None,
              with non-ASCII text), as a content key hashes a configuration or an API response

and these cases of each, all giving the same hex digests (checked before timing):

  idiom, hashlib     the idiom as written
  idiom, fastdigest  the idiom with fastdigest.sha256 swapped in for hashlib.sha256
  json_digest        fastdigest.json_digest('sha256', obj, sort_keys=True, hex=True)
  json_digest_many   fastdigest.json_digest_many('sha256', records, sort_keys=True, hex=True), for the
                     records, against a loop of json_digest over them

Method (CONTRIBUTING's "Adding a benchmark"): every case runs in the same process in interleaved rounds,
the order rotating every round, so that drift of a shared machine falls on all of them alike; the
garbage collector is off while timing. Time is the calling thread's CPU time by default (--clock thread:
every case works in that thread); --clock wall uses the wall clock. Reported: the median time per
object of each case, and for each comparison the median over rounds of the per-round ratio (above 1:
fastdigest's side is faster). The targets are issue 39's: json_digest at least 4x the idiom, for both
workloads. Only a machine with nothing else running gives a figure to quote.
"""

from __future__ import annotations

import argparse
import datetime
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
from collections.abc import Callable
from typing import Any

import fastdigest

RECORDS = 10_000
QUICK_RECORDS = 2_000
DEFAULT_ROUNDS = 15
QUICK_ROUNDS = 3
TARGET = 4.0


def read_cpu() -> str:
    model, family, number = platform.processor() or platform.machine(), '?', '?'
    try:
        with open('/proc/cpuinfo', encoding='utf-8', errors='replace') as cpuinfo:
            for line in cpuinfo:
                key, _, value = line.partition(':')
                key, value = key.strip(), value.strip()
                if key == 'model name':
                    model = value
                elif key == 'cpu family':
                    family = value
                elif key == 'model':
                    number = value
                elif not line.strip():
                    break
    except OSError:
        pass
    return f'{model} (family {family}, model {number}), {os.cpu_count()} logical CPUs'


def make_records(rng: random.Random, count: int) -> list[dict[str, Any]]:
    names = ['alice', 'bob', 'carol', 'dave', 'erin', 'frank', 'grace', 'heidi']
    cities = ['Zürich', 'Paris', 'Boston', 'São Paulo', 'Kyoto', 'Oslo']
    return [
        {
            'user': rng.choice(names) + str(rng.randrange(10_000)),
            'email': f'{rng.choice(names)}.{rng.randrange(1000)}@example.com',
            'city': rng.choice(cities),
            'plan': rng.choice(['free', 'pro', 'team']),
            'id': rng.randrange(10**12),
            'age': rng.randrange(18, 90),
            'visits': rng.randrange(100_000),
            'price': round(rng.uniform(1, 500), 2),
            'reading': round(rng.uniform(-50, 50), 4),
            'ratio': rng.random(),
        }
        for _ in range(count)
    ]


def make_document(rng: random.Random, target_bytes: int = 100 * 1024) -> dict[str, Any]:
    items = []
    document = {'version': 3, 'generated': '2026-12-05T10:00:00Z', 'items': items, 'ok': True, 'next': None}
    while len(json.dumps(document)) < target_bytes:
        items.append(
            {
                'id': rng.randrange(10**9),
                'title': ' '.join(
                    rng.choice(['alpha', 'beta', 'gamma', 'délta', 'epsilon', '"quoted"']) for _ in range(6)
                ),
                'tags': [rng.choice(['a', 'b', 'c', 'd']) * rng.randrange(1, 6) for _ in range(rng.randrange(1, 5))],
                'score': round(rng.uniform(0, 100), 3),
                'weights': [rng.random() for _ in range(3)],
                'active': rng.random() < 0.5,
                'parent': None if rng.random() < 0.3 else rng.randrange(1000),
                'meta': {'source': rng.choice(['api', 'batch', 'manual']), 'retries': rng.randrange(5)},
            }
        )
    return document


def make_cases(records: list[dict[str, Any]], document: dict[str, Any]) -> dict[str, tuple[Callable[[], Any], int]]:
    """Each case: a function doing the work once, and the objects it keys (for the time per object)."""
    dumps, new_hashlib, new_fastdigest = json.dumps, hashlib.sha256, fastdigest.sha256
    json_digest, json_digest_many = fastdigest.json_digest, fastdigest.json_digest_many

    def idiom_hashlib(objs):
        return [new_hashlib(dumps(obj, sort_keys=True).encode()).hexdigest() for obj in objs]

    def idiom_fastdigest(objs):
        return [new_fastdigest(dumps(obj, sort_keys=True).encode()).hexdigest() for obj in objs]

    def json_digest_loop(objs):
        return [json_digest('sha256', obj, sort_keys=True, hex=True) for obj in objs]

    documents = [document] * 20
    return {
        'records: idiom, hashlib': (lambda: idiom_hashlib(records), len(records)),
        'records: idiom, fastdigest': (lambda: idiom_fastdigest(records), len(records)),
        'records: json_digest': (lambda: json_digest_loop(records), len(records)),
        'records: json_digest_many': (
            lambda: json_digest_many('sha256', records, sort_keys=True, hex=True),
            len(records),
        ),
        'document: idiom, hashlib': (lambda: idiom_hashlib(documents), len(documents)),
        'document: idiom, fastdigest': (lambda: idiom_fastdigest(documents), len(documents)),
        'document: json_digest': (lambda: json_digest_loop(documents), len(documents)),
    }


# (numerator case, denominator case, target): the ratios reported.
COMPARISONS = [
    ('records: idiom, hashlib', 'records: json_digest', TARGET),
    ('records: idiom, fastdigest', 'records: json_digest', None),
    ('records: idiom, hashlib', 'records: json_digest_many', None),
    ('records: json_digest', 'records: json_digest_many', None),
    ('document: idiom, hashlib', 'document: json_digest', TARGET),
    ('document: idiom, fastdigest', 'document: json_digest', None),
]


def run(
    cases: dict[str, tuple[Callable[[], Any], int]], rounds: int, clock: Callable[[], int]
) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {label: [] for label in cases}
    labels = list(cases)
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        for r in range(rounds):
            for label in labels[r % len(labels) :] + labels[: r % len(labels)]:
                work, objects = cases[label]
                start = clock()
                result = work()
                times[label].append((clock() - start) / objects)
                del result  # freed outside the timed region, alike for every case
    finally:
        if gc_was_enabled:
            gc.enable()
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--quick', action='store_true', help='3 rounds of 2,000 records: a smoke run')
    parser.add_argument('--rounds', type=int, help=f'rounds (default {DEFAULT_ROUNDS})')
    parser.add_argument('--clock', choices=('thread', 'wall'), default='thread')
    parser.add_argument('--json', action='store_true', help='print the results as JSON')
    args = parser.parse_args()
    rounds = args.rounds or (QUICK_ROUNDS if args.quick else DEFAULT_ROUNDS)
    clock = time.thread_time_ns if args.clock == 'thread' else time.perf_counter_ns

    rng = random.Random(39)
    records = make_records(rng, QUICK_RECORDS if args.quick else RECORDS)
    document = make_document(rng)
    cases = make_cases(records, document)
    # Every case gives the idiom's digests before any is timed.
    want_records = cases['records: idiom, hashlib'][0]()
    want_document = cases['document: idiom, hashlib'][0]()
    for label, (work, _) in cases.items():
        if work() != (want_records if label.startswith('records') else want_document):
            raise SystemExit(f'{label} disagrees with the idiom')

    times = run(cases, rounds, clock)
    medians = {label: statistics.median(t) for label, t in times.items()}
    ratios = [
        (top, bottom, target, statistics.median(a / b for a, b in zip(times[top], times[bottom], strict=True)))
        for top, bottom, target in COMPARISONS
    ]
    machine = {
        'cpu': read_cpu(),
        'python': sys.version.split()[0]
        + (' (free-threaded)' if not getattr(sys, '_is_gil_enabled', lambda: True)() else ''),
        'openssl': ssl.OPENSSL_VERSION,
        'fastdigest': fastdigest.__version__,
        'kernel': fastdigest.implementation['sha256'],
        'date': datetime.date.today().isoformat(),
        'command': ' '.join(['python', *sys.argv]),
        'rounds': rounds,
        'clock': args.clock,
        'document_bytes': len(json.dumps(document, sort_keys=True).encode()),
        'records': len(records),
    }
    if args.json:
        print(
            json.dumps(
                {
                    'machine': machine,
                    'ns_per_object': medians,
                    'ratios': [
                        {'of': top, 'over': bottom, 'median_ratio': ratio, 'target': target}
                        for top, bottom, target, ratio in ratios
                    ],
                },
                indent=2,
            )
        )
        return
    print(f'CPU: {machine["cpu"]}')
    print(
        f'Python {machine["python"]}, {machine["openssl"]}, fastdigest {machine["fastdigest"]} (sha256: {machine["kernel"]})'
    )
    print(f"{machine['date']}, `{machine['command']}`: {rounds} rounds, {args.clock} clock, "
          f"{machine['records']} records, a document of {machine['document_bytes']:,} bytes")  # fmt: skip
    print()
    print('| case | time per object |')
    print('|---|---:|')
    for label, median in medians.items():
        print(f'| {label} | {median / 1000:,.2f} µs |')
    print()
    print('| ratio | median of per-round ratios | target |')
    print('|---|---:|---|')
    for top, bottom, target, ratio in ratios:
        verdict = '' if target is None else f'{target:.0f}x: {"met" if ratio >= target else "NOT MET"}'
        print(f'| {top} / {bottom.split(": ")[1]} | {ratio:.2f}x | {verdict} |')


if __name__ == '__main__':
    main()
