#!/usr/bin/env python3
"""Benchmark fastdigest's S3 ETag and composite SHA-256 checksum against the hashlib part loop.

Usage:
    python benchmarks/bench_s3.py                  # one 1 GiB file in parts of 8 MiB, 7 rounds
    python benchmarks/bench_s3.py --quick          # 256 MiB, 3 rounds: a smoke run
    python benchmarks/bench_s3.py --mib 4096 --part-mib 16 --rounds 9
    python benchmarks/bench_s3.py --dir /mnt/nvme  # the file on another file system
    python benchmarks/bench_s3.py --json > s3.json

Groups, each side by side in one process, the ratios against the first case of the group:

  ETag, one thread:
    s3_etag             fastdigest.s3_etag(path, threads=1): the parts in the lanes of the
                        multi-buffer MD5 kernel, one read of the file
    hashlib part loop   the loop users write: f.read(part_size), hashlib.md5(part).digest() for each
                        part, then the MD5 of the digests and -N
    fastdigest loop     the same loop with fastdigest.md5 swapped in for hashlib's
    no lanes            the private _hash_parts with the lanes off: the parts one after another
                        through the single-stream kernel, read as s3_etag reads them
  ETag, all cores: s3_etag(path) with the default threads against the same hashlib part loop, the
    parts on threads by concurrent.futures (below), and s3_etag with threads=1: what the threads add
  SHA-256 composite, one thread, and all cores: s3_checksum(path) (ChecksumSHA256) against the
    hashlib part loop with sha256, and with the default threads against that loop on as many
    threads (concurrent.futures, each part read with os.pread and hashed by hashlib, which releases
    the GIL), the hand-written parallel loop; and s3_checksum with threads=1

Method (benchmarks/bench_files.py's): the file is written once and read once before timing, so every
case reads from the page cache: the figures are reading from memory and hashing, not the disk. Each
case's value is compared with hashlib's before timing. Rounds are interleaved, in an order reversed
every other round; times are wall-clock medians; ratios are the median over rounds of the per-round
ratio other / fastdigest (above 1: fastdigest is faster). The garbage collector is off while
timing. Run it on an otherwise idle machine: other processes take cores from the threads.
"""

from __future__ import annotations

import argparse
import base64
import concurrent.futures
import hashlib
import json
import os
import platform
import ssl
import statistics
import sys
import tempfile
from collections.abc import Callable
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fastdigest  # noqa: E402
from bench_files import describe_cpu, read_cpu, time_group, warm, write_big_file  # noqa: E402  (the sibling script's method)
from fastdigest import _fastdigest  # noqa: E402

MIB = 1 << 20

# The goals: the ETag at least 4x the hashlib part loop on one thread and more on all cores (so the
# default threads beat threads=1); the SHA-256 composite at least 1.5x its part loop on all cores and not
# slower on one.
TARGETS = {
    ('ETag, one thread', 'hashlib part loop'): 4.0,
    ('ETag, all cores', 'hashlib part loop'): 4.0,
    ('SHA-256 composite, one thread', 'hashlib part loop'): 1.0,
    ('SHA-256 composite, all cores', 'hashlib part loop'): 1.5,
    ('ETag, all cores', 's3_etag threads=1'): 1.0,
}


# --- the loops users write -------------------------------------------------------------------------------------


def part_loop(path: str, new: Callable[[bytes], Any], part_size: int) -> list[bytes]:
    digests = []
    with open(path, 'rb', buffering=0) as f:
        while part := f.read(part_size):
            digests.append(new(part).digest())
    return digests


def threaded_part_loop(path: str, name: str, part_size: int, threads: int) -> list[bytes]:
    size = os.path.getsize(path)
    fd = os.open(path, os.O_RDONLY)
    try:
        with concurrent.futures.ThreadPoolExecutor(threads) as pool:
            return list(
                pool.map(
                    lambda offset: hashlib.new(name, os.pread(fd, part_size, offset)).digest(),
                    range(0, size, part_size),
                )
            )
    finally:
        os.close(fd)


def etag_of(digests: list[bytes]) -> str:
    return hashlib.md5(b''.join(digests)).hexdigest() + f'-{len(digests)}'


def sha256_of(digests: list[bytes]) -> str:
    return base64.b64encode(hashlib.sha256(b''.join(digests)).digest()).decode() + f'-{len(digests)}'


def groups(path: str, part: int, cpus: int) -> list[tuple[str, dict[str, Callable[[], Any]]]]:
    def no_lanes():
        _, _, digests = _fastdigest._hash_parts(path, 'md5', part, part, 1, False)
        return etag_of([digests[i : i + 16] for i in range(0, len(digests), 16)])

    return [
        (
            'ETag, one thread',
            {
                's3_etag': lambda: fastdigest.s3_etag(path, part_size=part, threads=1),
                'hashlib part loop': lambda: etag_of(part_loop(path, hashlib.md5, part)),
                'fastdigest loop': lambda: etag_of(part_loop(path, fastdigest.md5, part)),
                'no lanes': no_lanes,
            },
        ),
        (
            'ETag, all cores',
            {
                's3_etag': lambda: fastdigest.s3_etag(path, part_size=part),
                'hashlib part loop': lambda: etag_of(part_loop(path, hashlib.md5, part)),
                'hashlib on threads': lambda: etag_of(threaded_part_loop(path, 'md5', part, cpus)),
                's3_etag threads=1': lambda: fastdigest.s3_etag(path, part_size=part, threads=1),
            },
        ),
        (
            'SHA-256 composite, one thread',
            {
                's3_checksum': lambda: fastdigest.s3_checksum(path, part_size=part, threads=1),
                'hashlib part loop': lambda: sha256_of(part_loop(path, hashlib.sha256, part)),
            },
        ),
        (
            'SHA-256 composite, all cores',
            {
                's3_checksum': lambda: fastdigest.s3_checksum(path, part_size=part),
                'hashlib part loop': lambda: sha256_of(part_loop(path, hashlib.sha256, part)),
                'hashlib on threads': lambda: sha256_of(threaded_part_loop(path, 'sha256', part, cpus)),
                's3_checksum threads=1': lambda: fastdigest.s3_checksum(path, part_size=part, threads=1),
            },
        ),
    ]


# --- timing ------------------------------------------------------------------------------------------------


def check(group: str, cases: dict[str, Callable[[], Any]]) -> None:
    values = {name: case() for name, case in cases.items()}
    if len(set(values.values())) != 1:
        raise SystemExit(f'{group}: the cases disagree ({values}): a benchmark of a wrong value means nothing')


def summarize(group: str, samples: dict[str, list[float]], size: int) -> list[dict[str, Any]]:
    reference = samples[next(iter(samples))]
    rows = []
    for name, values in samples.items():
        rows.append(
            {
                'group': group,
                'case': name,
                'median_s': statistics.median(values),
                'mb_per_s': size / statistics.median(values) / 1e6,
                'ratio': statistics.median(other / mine for other, mine in zip(values, reference, strict=True)),
                'target': TARGETS.get((group, name)),
            }
        )
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--mib', type=int, default=1024, help='the file in MiB (default 1024)')
    parser.add_argument('--part-mib', type=int, default=8, help="the part size in MiB (default 8, boto3's)")
    parser.add_argument('--rounds', type=int, default=7)
    parser.add_argument('--quick', action='store_true', help='256 MiB, 3 rounds')
    parser.add_argument('--dir', help='where to write the file (default: a temporary directory)')
    parser.add_argument('--json', action='store_true', help='print the results as JSON instead of a table')
    args = parser.parse_args()
    if args.quick:
        args.mib, args.rounds = 256, 3
    if args.mib < 1 or args.rounds < 1 or args.part_mib < 5:
        raise SystemExit('--mib and --rounds must be at least 1, --part-mib at least 5')

    machine = {
        **read_cpu(),
        'python': platform.python_version(),
        'openssl': ssl.OPENSSL_VERSION,
        'kernels': {name: fastdigest.batch_implementation[name] for name in ('md5', 'sha256')},
        'mib': args.mib,
        'part_mib': args.part_mib,
        'rounds': args.rounds,
    }
    if not args.json:
        print(f'CPU: {describe_cpu(machine)}')
        print(f'Python {machine["python"]}, {machine["openssl"]}; fastdigest lanes {machine["kernels"]}')
        print(
            f'one file of {args.mib} MiB in parts of {args.part_mib} MiB, page cache; {args.rounds} '
            'interleaved rounds, wall clock, medians\n'
        )

    rows = []
    with tempfile.TemporaryDirectory(dir=args.dir, prefix='bench_s3_') as directory:
        print('writing the file...', file=sys.stderr)
        path = write_big_file(directory, args.mib * MIB, 'object.bin')
        warm([path])
        for group, cases in groups(path, args.part_mib * MIB, machine['available_cpus']):
            check(group, cases)
            print(f'timing: {group}...', file=sys.stderr)
            rows += summarize(group, time_group(cases, args.rounds), args.mib * MIB)

    if args.json:
        json.dump({'machine': machine, 'results': rows}, sys.stdout, indent=1)
        print()
        return 0
    print('| group | case | median | throughput | other / fastdigest | goal |')
    print('|---|---|---|---|---|---|')
    for row in rows:
        target = row['target']
        verdict = '' if target is None else f'{target:.2f}x {"met" if row["ratio"] >= target else "MISSED"}'
        print(
            f'| {row["group"]} | {row["case"]} | {row["median_s"] * 1000:.1f} ms | {row["mb_per_s"]:.0f} MB/s | '
            f'{row["ratio"]:.2f}x | {verdict} |'
        )
    return 0


if __name__ == '__main__':
    sys.exit(main())
