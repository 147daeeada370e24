#!/usr/bin/env python3
"""Benchmark fastdigest.digest_files against a hashlib.file_digest loop, sha256sum and openssl dgst.

Usage:
    python benchmarks/bench_files.py                  # 10,000 files of 4 KiB and one 1 GiB file, 7 rounds
    python benchmarks/bench_files.py --quick          # 2,000 files, 128 MiB, 3 rounds: a smoke run
    python benchmarks/bench_files.py --lanes-only     # the lanes' groups alone (below)
    python benchmarks/bench_files.py --files 50000 --file-size 1024 --big-mib 4096 --rounds 9
    python benchmarks/bench_files.py --dir /mnt/nvme  # the files on another file system
    python benchmarks/bench_files.py --json > files.json

Cases, each group side by side in one process:

  many small files (--files of --file-size bytes, SHA-256):
    digest_files        fastdigest.digest_files('sha256', paths): every core (threads=None)
    digest_files 1 thr  the same with threads=1: what one core does without Python per file
    hashlib loop        [hashlib.file_digest(open(path, 'rb'), 'sha256').digest() for path in paths]
                        (hashlib.new(...).update(f.read()) before 3.11, which has no file_digest)
    sha256sum           coreutils' sha256sum given every path, in as few processes as the system's
                        limit on a command line allows (xargs' batching: one process for 10,000
                        short paths), one after another
  one big file (--big-mib MiB, SHA-256):
    digest_files        fastdigest.digest_files('sha256', [path])
    hashlib             hashlib.file_digest(open(path, 'rb'), 'sha256')
    openssl dgst        `openssl dgst -sha256 PATH`, a process
  several algorithms in one read (MD5, SHA-1, SHA-256), over the small files and the big file:
    one read            fastdigest.digest_files(('md5', 'sha1', 'sha256'), paths)
    one read each       digest_files('md5', paths), then 'sha1', then 'sha256'
  lanes, one algorithm (MD5, SHA-256) over --lane-files files of --lane-mib MiB, and over the small files:
    lanes 1 thr         fastdigest.digest_files(name, paths, threads=1): the files side by side in the lanes
                        of the multi-buffer kernel (docs/files.md)
    lanes               the same on every core (threads=None)
    no lanes 1 thr      digest_files(name, paths, threads=1, _lanes=False): one file at a time, the
                        single-stream kernel, as before the lanes
    no lanes            the same on every core
    hashlib loop        [hashlib.file_digest(open(path, 'rb'), name).digest() for path in paths]
    (their ratios are the hashlib loop's time over each case's: above 1, faster than the loop)
  and file_digest over the big file:
    file_digest tuple   fastdigest.file_digest(f, ('md5', 'sha1', 'sha256'))
    file_digest each    fastdigest.file_digest(f, name) for each name, each its own open and read

Method: the files are written once into a fresh directory (--dir, default a temporary one) and read
once before timing, so every case reads from the page cache: the figures are reading from memory and
hashing, not the disk. Before timing, each case's digests are compared with hashlib's (sha256sum's
and openssl's output parsed): a benchmark of a wrong digest is worthless. Rounds are interleaved: in
each round every case of a group runs once, in an order reversed every other round, so drift of this
shared machine falls on all of them. Times are wall-clock (the cases run on several threads or in
other processes), medians over rounds; ratios are the median over rounds of the per-round ratio
other / fastdigest (above 1: fastdigest is faster). The garbage collector is off while timing. Run
it on an otherwise idle machine: other processes take cores from the threads.
"""

from __future__ import annotations

import argparse
import gc
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
import time
from collections.abc import Callable, Sequence
from typing import Any

import fastdigest
from bench import read_cpuinfo

MIB = 1 << 20
SEVERAL = ('md5', 'sha1', 'sha256')

# The targets: digest_files at least 3x the hashlib loop and faster than sha256sum over many
# small files; at least 0.98x openssl dgst over one big file; one read faster than one per algorithm.
# Issue 40: 16 files of 8 MiB in digest_files' lanes at least 4x the hashlib loop on one thread (MD5).
TARGETS = {
    ('lanes, 16 x 8 MiB, md5', 'lanes 1 thr'): 4.0,
    ('small files', 'hashlib loop'): 3.0,
    ('small files', 'sha256sum'): 1.0,
    ('big file', 'openssl dgst'): 0.98,
    ('several, small files', 'one read each'): 1.0,
    ('several, big file', 'one read each'): 1.0,
    ('several, file_digest', 'file_digest each'): 1.0,
}


def available_cpus() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, 'sched_getaffinity') else (os.cpu_count() or 1)


def read_cpu() -> dict[str, Any]:
    """The CPU as every figure is quoted beside it: model name, family and model, the flags that pick
    kernels, the logical CPUs and those this process may run on (bench_s3.py, bench_aio.py and
    bench_git_tree.py take it from here)."""
    fields = read_cpuinfo()
    flags = set(fields.get('flags', fields.get('Features', '')).split())
    interesting = ('sha_ni', 'avx2', 'bmi2', 'avx512f', 'avx512vl', 'sha1', 'sha2', 'sha512')
    return {
        'cpu_model': fields.get('model name') or platform.processor() or platform.machine(),
        'cpu_family': fields.get('cpu family', '?'),
        'cpu_model_number': fields.get('model', '?'),
        'cpu_flags': [f for f in interesting if f in flags],
        'logical_cpus': os.cpu_count(),
        'available_cpus': available_cpus(),
    }


def describe_cpu(machine: dict[str, Any]) -> str:
    return (
        f'{machine["cpu_model"]} (family {machine["cpu_family"]}, model {machine["cpu_model_number"]}), '
        f'{machine["logical_cpus"]} logical CPUs ({machine["available_cpus"]} available), '
        f'{" ".join(machine["cpu_flags"])}'
    )


def tool_version(command: Sequence[str]) -> str:
    try:
        completed = subprocess.run(list(command), capture_output=True, text=True, check=False)
    except OSError:
        return 'not installed'
    return (completed.stdout.strip().splitlines() or ['?'])[0]


# --- the files ---------------------------------------------------------------------------------------------


def write_small_files(directory: str, count: int, size: int) -> list[str]:
    """count files of size distinct random bytes, in subdirectories of 1,000 (as a tree would hold them)."""
    paths = []
    for index in range(count):
        folder = os.path.join(directory, 'small', f'{index // 1000:04d}')
        if index % 1000 == 0:
            os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, f'{index:06d}.bin')
        with open(path, 'wb') as f:
            f.write(os.urandom(size))
        paths.append(path)
    return paths


def write_big_file(directory: str, size: int, name: str = 'big.bin') -> str:
    path = os.path.join(directory, name)
    with open(path, 'wb') as f:
        remaining = size
        while remaining:
            chunk = os.urandom(min(remaining, 16 * MIB))
            f.write(chunk)
            remaining -= len(chunk)
    return path


def warm(paths: Sequence[str]) -> None:
    """Brings the files into the page cache, clean: the kernel's writeback of a gigabyte just written
    would otherwise run during the first rounds, on the cores the cases use, and slow the cases that
    use more threads most."""
    if hasattr(os, 'sync'):
        os.sync()
    for path in paths:
        with open(path, 'rb') as f:
            while f.read(16 * MIB):
                pass


# --- the cases ---------------------------------------------------------------------------------------------


def hashlib_file_digest(path: str, name: str) -> bytes:
    with open(path, 'rb') as f:
        if hasattr(hashlib, 'file_digest'):
            return hashlib.file_digest(f, name).digest()
        digest = hashlib.new(name)
        while chunk := f.read(2**18):
            digest.update(chunk)
        return digest.digest()


def fastdigest_file_digest(path: str, names: Any) -> Any:
    with open(path, 'rb') as f:
        return fastdigest.file_digest(f, names)


def command_batches(prefix: list[str], paths: Sequence[str]) -> list[list[str]]:
    """prefix + paths split as xargs splits them: each command line within the system's limit (half of
    ARG_MAX, leaving room for the environment)."""
    try:
        limit = os.sysconf('SC_ARG_MAX') // 2
    except (AttributeError, ValueError, OSError):
        limit = 128 * 1024
    batches, current, length = [], list(prefix), sum(len(word) + 1 for word in prefix)
    for path in paths:
        cost = len(os.fsencode(path)) + 1 + 8  # the string and its pointer
        if len(current) > len(prefix) and length + cost > limit:
            batches.append(current)
            current, length = list(prefix), sum(len(word) + 1 for word in prefix)
        current.append(path)
        length += cost
    batches.append(current)
    return batches


def run_commands(batches: list[list[str]]) -> bytes:
    out = []
    for batch in batches:
        completed = subprocess.run(batch, stdout=subprocess.PIPE, check=True)
        out.append(completed.stdout)
    return b''.join(out)


def parse_sha256sum(output: bytes) -> list[bytes]:
    return [bytes.fromhex(line.split(b' ', 1)[0].decode()) for line in output.splitlines()]


def parse_openssl(output: bytes) -> bytes:
    # "SHA2-256(PATH)= HEX" (3.x) or "SHA256(PATH)= HEX" (1.1)
    return bytes.fromhex(output.rsplit(b'= ', 1)[1].strip().decode())


def small_file_cases(paths: list[str]) -> dict[str, Callable[[], Any]]:
    cases: dict[str, Callable[[], Any]] = {
        'digest_files': lambda: fastdigest.digest_files('sha256', paths),
        'digest_files 1 thr': lambda: fastdigest.digest_files('sha256', paths, threads=1),
        'hashlib loop': lambda: [hashlib_file_digest(path, 'sha256') for path in paths],
    }
    if shutil.which('sha256sum'):
        batches = command_batches(['sha256sum', '--'], paths)
        cases['sha256sum'] = lambda: parse_sha256sum(run_commands(batches))
    return cases


def big_file_cases(path: str) -> dict[str, Callable[[], Any]]:
    cases: dict[str, Callable[[], Any]] = {
        'digest_files': lambda: fastdigest.digest_files('sha256', [path])[0],
        'hashlib': lambda: hashlib_file_digest(path, 'sha256'),
    }
    if shutil.which('openssl'):
        command = ['openssl', 'dgst', '-sha256', path]
        cases['openssl dgst'] = lambda: parse_openssl(
            subprocess.run(command, stdout=subprocess.PIPE, check=True).stdout
        )
    return cases


def several_cases(paths: list[str]) -> dict[str, Callable[[], Any]]:
    return {
        'one read': lambda: fastdigest.digest_files(SEVERAL, paths),
        'one read each': lambda: list(zip(*(fastdigest.digest_files(name, paths) for name in SEVERAL), strict=True)),
    }


LANE_ALGORITHMS = ('md5', 'sha256')


def lane_cases(paths: list[str], name: str) -> dict[str, Callable[[], Any]]:
    return {
        'lanes 1 thr': lambda: fastdigest.digest_files(name, paths, threads=1),
        'lanes': lambda: fastdigest.digest_files(name, paths),
        'no lanes 1 thr': lambda: fastdigest.digest_files(name, paths, threads=1, _lanes=False),
        'no lanes': lambda: fastdigest.digest_files(name, paths, _lanes=False),
        'hashlib loop': lambda: [hashlib_file_digest(path, name) for path in paths],
    }


def file_digest_cases(path: str) -> dict[str, Callable[[], Any]]:
    return {
        'file_digest tuple': lambda: tuple(obj.digest() for obj in fastdigest_file_digest(path, SEVERAL)),
        'file_digest each': lambda: tuple(fastdigest_file_digest(path, name).digest() for name in SEVERAL),
    }


# --- timing ------------------------------------------------------------------------------------------------


def check(group: str, cases: dict[str, Callable[[], Any]], expected: Any) -> None:
    for name, case in cases.items():
        got = case()
        if got != expected:
            raise SystemExit(f'{group}: {name} gives other digests than hashlib: a benchmark of it means nothing')


def time_group(cases: dict[str, Callable[[], Any]], rounds: int) -> dict[str, list[float]]:
    samples: dict[str, list[float]] = {name: [] for name in cases}
    names = list(cases)
    gc.collect()
    gc.disable()
    try:
        for index in range(rounds):
            for name in names if index % 2 == 0 else reversed(names):
                start = time.perf_counter()
                cases[name]()
                samples[name].append(time.perf_counter() - start)
    finally:
        gc.enable()
    return samples


def summarize(group: str, samples: dict[str, list[float]], reference: str, unit_bytes: int, files: int):
    """Each case's row; its ratio is the reference's time over the case's, or, when the reference is
    'hashlib loop' (the lanes' groups), the loop's over the case's: above 1, the case is faster."""
    ours = samples[reference]
    rows = []
    for name, values in samples.items():
        pairs = zip(values, ours, strict=True)
        if reference == 'hashlib loop':
            ratio = statistics.median(loop / case for case, loop in pairs)
        else:
            ratio = statistics.median(other / mine for other, mine in pairs)
        rows.append(
            {
                'group': group,
                'case': name,
                'median_s': statistics.median(values),
                'mb_per_s': unit_bytes / statistics.median(values) / 1e6,
                'files_per_s': files / statistics.median(values),
                'ratio': ratio,
                'target': TARGETS.get((group, name)),
            }
        )
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--files', type=int, default=10_000, help='small files (default 10,000)')
    parser.add_argument('--file-size', type=int, default=4096, help='bytes each (default 4096)')
    parser.add_argument('--big-mib', type=int, default=1024, help='the big file in MiB (default 1024)')
    parser.add_argument('--rounds', type=int, default=7)
    parser.add_argument('--lane-files', type=int, default=16, help="files of the lanes' groups (default 16)")
    parser.add_argument('--lane-mib', type=int, default=8, help='MiB each (default 8)')
    parser.add_argument('--lanes-only', action='store_true', help="only the lanes' groups")
    parser.add_argument('--quick', action='store_true', help='2,000 files, 128 MiB, 3 rounds')
    parser.add_argument('--dir', help='where to write the files (default: a temporary directory)')
    parser.add_argument('--json', action='store_true', help='print the results as JSON instead of tables')
    args = parser.parse_args()
    if args.quick:
        args.files, args.big_mib, args.rounds = 2000, 128, 3
    if args.files < 1 or args.file_size < 0 or args.big_mib < 1 or args.rounds < 1:
        raise SystemExit('--files, --big-mib and --rounds must be at least 1, --file-size at least 0')
    if args.lane_files < 1 or args.lane_mib < 1:
        raise SystemExit('--lane-files and --lane-mib must be at least 1')

    machine = {
        **read_cpu(),
        'python': platform.python_version(),
        'openssl': ssl.OPENSSL_VERSION,
        'sha256sum': tool_version(['sha256sum', '--version']),
        'openssl_command': tool_version(['openssl', 'version']),
        'fastdigest': fastdigest.implementation['sha256'],
        'files': args.files,
        'file_size': args.file_size,
        'big_mib': args.big_mib,
        'rounds': args.rounds,
    }
    if not args.json:
        print(f'CPU: {describe_cpu(machine)}')
        print(f'Python {machine["python"]}, {machine["openssl"]}; fastdigest sha256 kernel {machine["fastdigest"]}')
        print(f'{machine["sha256sum"]}; {machine["openssl_command"]}')
        print(
            f'{args.files} files of {args.file_size} B, one file of {args.big_mib} MiB, page cache; '
            f'{args.rounds} interleaved rounds, wall clock, medians\n'
        )

    rows = []
    with tempfile.TemporaryDirectory(dir=args.dir, prefix='bench_files_') as directory:
        print('writing the files...', file=sys.stderr)
        paths = write_small_files(directory, args.files, args.file_size)
        big = write_big_file(directory, args.big_mib * MIB)
        lane_paths = [write_big_file(directory, args.lane_mib * MIB, f'lane-{i}.bin') for i in range(args.lane_files)]
        warm(paths + [big] + lane_paths)

        small_bytes = args.files * args.file_size
        big_bytes = args.big_mib * MIB
        expected_small = [hashlib_file_digest(path, 'sha256') for path in paths]
        expected_big = hashlib_file_digest(big, 'sha256')
        expected_several_small = [tuple(hashlib_file_digest(path, name) for name in SEVERAL) for path in paths]
        expected_several_big = [tuple(hashlib_file_digest(big, name) for name in SEVERAL)]

        groups = [
            ('small files', small_file_cases(paths), expected_small, 'digest_files', small_bytes, args.files),
            ('big file', big_file_cases(big), expected_big, 'digest_files', big_bytes, 1),
            (
                'several, small files',
                several_cases(paths),
                expected_several_small,
                'one read',
                small_bytes,
                args.files,
            ),
            ('several, big file', several_cases([big]), expected_several_big, 'one read', big_bytes, 1),
            (
                'several, file_digest',
                file_digest_cases(big),
                expected_several_big[0],
                'file_digest tuple',
                big_bytes,
                1,
            ),
        ]
        if args.lanes_only:
            groups = []
        for name in LANE_ALGORITHMS:
            groups += [
                (
                    f'lanes, {args.lane_files} x {args.lane_mib} MiB, {name}',
                    lane_cases(lane_paths, name),
                    [hashlib_file_digest(path, name) for path in lane_paths],
                    'hashlib loop',
                    args.lane_files * args.lane_mib * MIB,
                    args.lane_files,
                ),
                (
                    f'lanes, {args.files} x {args.file_size} B, {name}',
                    lane_cases(paths, name),
                    [hashlib_file_digest(path, name) for path in paths],
                    'hashlib loop',
                    small_bytes,
                    args.files,
                ),
            ]
        for group, cases, expected, reference, unit_bytes, files in groups:
            check(group, cases, expected)
            print(f'timing: {group}...', file=sys.stderr)
            rows += summarize(group, time_group(cases, args.rounds), reference, unit_bytes, files)

    if args.json:
        json.dump({'machine': machine, 'results': rows}, sys.stdout, indent=1)
        print()
        return 0
    print('(lanes: hashlib loop / case)')
    print('| group | case | median | throughput | other / fastdigest | target |')
    print('|---|---|---|---|---|---|')
    for row in rows:
        throughput = f'{row["mb_per_s"]:.0f} MB/s'
        if row['files_per_s'] > 1:
            throughput += f', {row["files_per_s"]:,.0f} files/s'
        target = row['target']
        verdict = '' if target is None else f'{target:.2f}x {"met" if row["ratio"] >= target else "MISSED"}'
        print(
            f'| {row["group"]} | {row["case"]} | {row["median_s"] * 1000:.1f} ms | {throughput} | '
            f'{row["ratio"]:.2f}x | {verdict} |'
        )
    return 0


if __name__ == '__main__':
    sys.exit(main())
