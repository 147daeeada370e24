#!/usr/bin/env python3
"""Benchmark git's ids and directory digests: fastdigest against git, dirhash and checksumdir.

Usage:
    python benchmarks/bench_git_tree.py                # 10,000 files of 4 KiB, 7 rounds
    python benchmarks/bench_git_tree.py --quick        # 2,000 files, 3 rounds: a smoke run
    python benchmarks/bench_git_tree.py --files 50000 --file-size 1024 --rounds 9
    python benchmarks/bench_git_tree.py --dir /mnt/nvme --json > git_tree.json

Cases, each group side by side in one process, over one tree of --files files of --file-size random
bytes in folders of 1,000:

  git blob ids (SHA-1):
    git_object_ids      fastdigest.git_object_ids(paths): every core
    ... 1 thread        the same with threads=1
    git hash-object     `git hash-object --stdin-paths`, one process, the paths on its stdin
    hashlib loop        hashlib.sha1(b'blob %d\\0' % len(data) + data) of each file read whole: the
                        loop users write
  Dirhash standard (SHA-256):
    digest_tree         fastdigest.digest_tree('sha256', tree): every core
    dirhash jobs=N      dirhash.dirhash(tree, 'sha256', jobs=N), N the CPUs available: its own
                        multiprocessing workers
    dirhash             dirhash.dirhash(tree, 'sha256'): its default, one process
  checksumdir (MD5):
    digest_tree         fastdigest.digest_tree('md5', tree, format='checksumdir')
    checksumdir         checksumdir.dirhash(tree, 'md5')
  sorted manifest (SHA-256):
    digest_tree         fastdigest.digest_tree('sha256', tree, format='sha256sum')
    find | sha256sum    `find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum`

Method (benchmarks/bench_files.py's): the files are written once into a fresh directory (--dir,
default a temporary one) and read once before timing, so every case reads from the page cache.
Before timing, each case's result is compared with the reference's (git's, dirhash's,
checksumdir's, coreutils'): a benchmark of a wrong digest is worthless. Rounds are interleaved: in
each round every case of a group runs once, in an order reversed every other round. Times are wall
clock, medians over rounds; ratios are the median over rounds of the per-round ratio other /
fastdigest (above 1: fastdigest is faster). The garbage collector is off while timing. A case whose
tool is missing is left out, and the table says so. Run it on an otherwise idle machine.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import shutil
import ssl
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fastdigest  # noqa: E402
from bench_files import available_cpus, describe_cpu, read_cpu, time_group, warm, write_small_files  # noqa: E402  (the sibling script's method)

# The targets against the reference of each group.
TARGETS = {
    ('git blob ids', 'git hash-object'): 3.0,
    ('Dirhash standard', 'dirhash jobs=N'): 3.0,
    ('checksumdir', 'checksumdir'): 5.0,
}


def hashlib_git_ids(paths: list[str]) -> list[str]:
    ids = []
    for path in paths:
        with open(path, 'rb') as f:
            data = f.read()
        ids.append(hashlib.sha1(b'blob %d\0' % len(data) + data).hexdigest())
    return ids


def git_hash_objects(paths: list[str], cwd: str) -> list[str]:
    lines = ''.join(path + '\n' for path in paths).encode()
    completed = subprocess.run(
        ['git', 'hash-object', '--stdin-paths'], input=lines, cwd=cwd, capture_output=True, check=True
    )
    return completed.stdout.decode('ascii').split()


def manifest_digest(tree: str) -> str:
    completed = subprocess.run(
        'find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum',
        shell=True,
        cwd=tree,
        capture_output=True,
        check=True,
        env={**os.environ, 'LC_ALL': 'C'},
    )
    return completed.stdout.split()[0].decode('ascii')


def groups(tree: str, paths: list[str]) -> list[tuple[str, str, dict[str, Callable[[], Any]], list[str]]]:
    """(group, reference case, cases, cases left out and why)."""
    result = []
    jobs = available_cpus()

    cases: dict[str, Callable[[], Any]] = {
        'git_object_ids': lambda: fastdigest.git_object_ids(paths),
        'git_object_ids 1 thread': lambda: fastdigest.git_object_ids(paths, threads=1),
    }
    missing = []
    if shutil.which('git'):
        cases['git hash-object'] = lambda: git_hash_objects(paths, tree)
    else:
        missing.append('git hash-object (no git command)')
    cases['hashlib loop'] = lambda: hashlib_git_ids(paths)
    result.append(('git blob ids', 'git_object_ids', cases, missing))

    cases, missing = {'digest_tree': lambda: fastdigest.digest_tree('sha256', tree)}, []
    try:
        import dirhash

        cases['dirhash jobs=N'] = lambda: dirhash.dirhash(tree, 'sha256', jobs=jobs)
        cases['dirhash'] = lambda: dirhash.dirhash(tree, 'sha256')
    except ImportError:
        missing.append('dirhash (pip install dirhash)')
    result.append(('Dirhash standard', 'digest_tree', cases, missing))

    cases, missing = {'digest_tree': lambda: fastdigest.digest_tree('md5', tree, format='checksumdir')}, []
    try:
        import checksumdir

        cases['checksumdir'] = lambda: checksumdir.dirhash(tree, 'md5')
    except ImportError:
        missing.append('checksumdir (pip install checksumdir)')
    result.append(('checksumdir', 'digest_tree', cases, missing))

    cases, missing = {'digest_tree': lambda: fastdigest.digest_tree('sha256', tree, format='sha256sum')}, []
    if all(shutil.which(tool) for tool in ('find', 'sort', 'xargs', 'sha256sum')):
        cases['find | sha256sum'] = lambda: manifest_digest(tree)
    else:
        missing.append('find | sha256sum (needs GNU find, sort, xargs, sha256sum)')
    result.append(('sorted manifest', 'digest_tree', cases, missing))
    return result


def check(group: str, cases: dict[str, Callable[[], Any]]) -> None:
    results = {name: case() for name, case in cases.items()}
    first = next(iter(results.values()))
    for name, got in results.items():
        if got != first:
            raise SystemExit(f'{group}: {name} gives another result than the others: a benchmark of it means nothing')


def summarize(group: str, samples: dict[str, list[float]], reference: str, files: int) -> list[dict[str, Any]]:
    ours = samples[reference]
    return [
        {
            'group': group,
            'case': name,
            'median_s': statistics.median(values),
            'files_per_s': files / statistics.median(values),
            'ratio': statistics.median(other / mine for other, mine in zip(values, ours, strict=True)),
            'target': TARGETS.get((group, name)),
        }
        for name, values in samples.items()
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--files', type=int, default=10_000, help='files (default 10,000)')
    parser.add_argument('--file-size', type=int, default=4096, help='bytes each (default 4096)')
    parser.add_argument('--rounds', type=int, default=7)
    parser.add_argument('--quick', action='store_true', help='2,000 files, 3 rounds')
    parser.add_argument('--dir', help='where to write the files (default: a temporary directory)')
    parser.add_argument('--json', action='store_true', help='print the results as JSON instead of a table')
    args = parser.parse_args()
    if args.quick:
        args.files, args.rounds = 2000, 3
    if args.files < 1 or args.file_size < 0 or args.rounds < 1:
        raise SystemExit('--files and --rounds must be at least 1, --file-size at least 0')

    machine = {
        **read_cpu(),
        'python': platform.python_version(),
        'openssl': ssl.OPENSSL_VERSION,
        'git': subprocess.run(['git', '--version'], capture_output=True, text=True).stdout.strip()
        if shutil.which('git')
        else 'not installed',
        'fastdigest': fastdigest.implementation['sha1'],
        'files': args.files,
        'file_size': args.file_size,
        'rounds': args.rounds,
    }
    for package in ('dirhash', 'checksumdir'):
        try:
            from importlib.metadata import version

            machine[package] = version(package)
        except Exception:  # noqa: BLE001 - not installed
            machine[package] = 'not installed'

    rows: list[dict[str, Any]] = []
    left_out: list[str] = []
    with tempfile.TemporaryDirectory(dir=args.dir, prefix='bench_git_tree_') as directory:
        print('writing the files...', file=sys.stderr)
        paths = write_small_files(directory, args.files, args.file_size)
        tree = os.path.join(directory, 'small')
        warm(paths)
        for group, reference, cases, missing in groups(tree, paths):
            left_out += [f'{group}: {case}' for case in missing]
            check(group, cases)
            print(f'timing: {group}...', file=sys.stderr)
            rows += summarize(group, time_group(cases, args.rounds), reference, args.files)

    if args.json:
        json.dump({'machine': machine, 'results': rows, 'left_out': left_out}, sys.stdout, indent=1)
        print()
        return 0
    print(f'CPU: {describe_cpu(machine)}')
    print(f'Python {machine["python"]}, {machine["openssl"]}; fastdigest sha1 kernel {machine["fastdigest"]}')
    print(f'{machine["git"]}; dirhash {machine["dirhash"]}; checksumdir {machine["checksumdir"]}')
    print(f'{args.files} files of {args.file_size} B, page cache; {args.rounds} interleaved rounds, wall clock\n')
    print('| group | case | median | files/s | other / fastdigest | target |')
    print('|---|---|---:|---:|---:|---|')
    for row in rows:
        target = row['target']
        verdict = '' if target is None else f'{target:.1f}x {"met" if row["ratio"] >= target else "MISSED"}'
        print(
            f'| {row["group"]} | {row["case"]} | {row["median_s"] * 1000:.1f} ms | {row["files_per_s"]:,.0f} | '
            f'{row["ratio"]:.2f}x | {verdict} |'
        )
    for case in left_out:
        print(f'left out: {case}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
