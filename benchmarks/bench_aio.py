"""fastdigest.aio.file_digest of a big file against asyncio.to_thread(hashlib.file_digest, ...), with the event
loop's lag measured beside each.

One event loop (asyncio's own, or uvloop's with --loop uvloop) runs both cases in interleaved rounds (which goes
first alternates), over one file of --size-mib MiB (1 GiB by default) written once with random bytes and read
once before the rounds, so that every round reads it from the page cache. Both give the same digest (checked).

Printed per case: the median wall time, the median over rounds of to_thread's time / aio's time (above 1:
fastdigest.aio is faster), and the loop's lag: a timer that asks to run every millisecond meanwhile, and the
longest it ran late (what the loop's thread spent elsewhere: on the call's work, or waiting for a GIL the call's
thread held). On a machine without a spare core the lag is the scheduler's as much as the call's. Only the
standard library and fastdigest (and uvloop for --loop uvloop) are needed.

    python benchmarks/bench_aio.py [--quick] [--size-mib 1024] [--rounds 7] [--algorithm sha256]
                                   [--loop asyncio|uvloop] [--dir DIR] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import platform
import ssl
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fastdigest  # noqa: E402
import fastdigest.aio  # noqa: E402
from bench_files import describe_cpu, read_cpu, warm, write_big_file  # noqa: E402  (the sibling script's method)

MIB = 1 << 20


async def with_lag(call):
    """(wall seconds, longest lateness of a 1 ms timer in seconds, result) of awaiting call."""
    done = False
    latest = 0.0

    async def timer():
        nonlocal latest
        while not done:
            asked = time.perf_counter()
            await asyncio.sleep(0.001)
            latest = max(latest, time.perf_counter() - asked - 0.001)

    ticking = asyncio.ensure_future(timer())
    started = time.perf_counter()
    result = await call
    took = time.perf_counter() - started
    done = True
    await ticking
    return took, latest, result


def to_thread(function, *args):
    # asyncio.to_thread (3.9+), spelled out so that the case reads the same on every Python.
    return asyncio.get_running_loop().run_in_executor(None, function, *args)


def hashlib_file_digest(path, name):
    with open(path, 'rb') as file:
        if hasattr(hashlib, 'file_digest'):  # 3.11+
            return hashlib.file_digest(file, name).digest()
        digest = hashlib.new(name)
        for block in iter(lambda: file.read(2**18), b''):
            digest.update(block)
        return digest.digest()


async def fastdigest_aio(path, name):
    return (await fastdigest.aio.file_digest(path, name)).digest()


async def main(arguments):
    directory = arguments.dir or tempfile.mkdtemp(prefix='bench_aio.')
    path = write_big_file(directory, arguments.size_mib * MIB)
    warm([path])
    try:
        name = arguments.algorithm
        hashlib_file_digest(path, name)  # into the page cache, and the executor's thread started
        cases = {
            'fastdigest.aio.file_digest': lambda: fastdigest_aio(path, name),
            'asyncio.to_thread(hashlib.file_digest)': lambda: to_thread(hashlib_file_digest, path, name),
        }
        digests = [await case() for case in cases.values()]  # both warmed, and the digests checked
        assert digests[0] == digests[1], 'the two cases gave different digests'
        times = {key: [] for key in cases}
        lags = {key: [] for key in cases}
        ratios = []
        for round_number in range(arguments.rounds):
            order = list(cases) if round_number % 2 == 0 else list(reversed(cases))
            took = {}
            for key in order:
                took[key], lag, _ = await with_lag(cases[key]())
                times[key].append(took[key])
                lags[key].append(lag)
            ratios.append(took['asyncio.to_thread(hashlib.file_digest)'] / took['fastdigest.aio.file_digest'])
    finally:
        os.remove(path)
        if not arguments.dir:
            os.rmdir(directory)
    return times, lags, ratios


def run(arguments):
    if arguments.loop == 'uvloop':
        import uvloop

        loop = uvloop.new_event_loop()
    else:
        loop = asyncio.new_event_loop()
    try:
        return loop.run_until_complete(main(arguments))
    finally:
        loop.close()


def report(arguments, times, lags, ratios):
    print(f'CPU: {describe_cpu(read_cpu())}')
    print(f'Python {sys.version.split()[0]} ({platform.python_implementation()}), {ssl.OPENSSL_VERSION}')
    print(
        f'fastdigest {fastdigest.__version__}: {arguments.algorithm} kernel {fastdigest.implementation[arguments.algorithm]}'
    )
    print(
        f'{arguments.size_mib} MiB file (page cache), {arguments.rounds} interleaved rounds, {arguments.loop} event loop'
    )
    print()
    print('| case | median s | MB/s | longest lag of a 1 ms timer (ms, max over rounds) |')
    print('|---|---:|---:|---:|')
    for key in times:
        median = statistics.median(times[key])
        print(f'| {key} | {median:.3f} | {arguments.size_mib * MIB / median / 1e6:.0f} | {max(lags[key]) * 1000:.2f} |')
    print()
    print(f'to_thread / aio, median of per-round ratios: {statistics.median(ratios):.2f}x '
          f'(min {min(ratios):.2f}, max {max(ratios):.2f})')  # fmt: skip


def parse_arguments():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--quick', action='store_true', help='a smoke run: 256 MiB, 3 rounds')
    parser.add_argument('--size-mib', type=int, default=1024)
    parser.add_argument('--rounds', type=int, default=7)
    parser.add_argument('--algorithm', default='sha256', choices=sorted(fastdigest.implementation))
    parser.add_argument('--loop', default='asyncio', choices=('asyncio', 'uvloop'))
    parser.add_argument('--dir', help='where to write the file (default: a new temporary folder)')
    parser.add_argument('--json', action='store_true', help='print the times, lags and ratios as JSON')
    arguments = parser.parse_args()
    if arguments.quick:
        arguments.size_mib, arguments.rounds = 256, 3
    return arguments


if __name__ == '__main__':
    arguments = parse_arguments()
    times, lags, ratios = run(arguments)
    if arguments.json:
        print(json.dumps({'times': times, 'lags': lags, 'ratios': ratios, 'cpu': read_cpu()}, indent=1))
    else:
        report(arguments, times, lags, ratios)
