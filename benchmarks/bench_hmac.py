#!/usr/bin/env python3
"""Benchmark fastdigest's HMAC and PBKDF2 against the standard library, side by side in one process.

Usage:
    python benchmarks/bench_hmac.py              # full run, Markdown table (about a minute)
    python benchmarks/bench_hmac.py --quick      # a few short rounds, for a CI smoke run
    python benchmarks/bench_hmac.py --rounds 41 --json
    python benchmarks/bench_hmac.py --only digest_many   # one key over 100,000 messages of 64 B alone

Cases: pbkdf2_hmac against hashlib.pbkdf2_hmac (sha1, sha256, sha512; ns per iteration); the same with
dklen of one, two and three digests (md5, sha1, sha256, sha512), whose output blocks fastdigest derives
side by side, with a second table of each side's time for two and three blocks over one block; the one-shot
hmac.digest of a 64-byte message, hmac.new(...).digest(), and copy() and digest() of an HMAC object
holding a short message, against the same calls of the standard library's hmac; and
fastdigest.hmac.digest_many(key, messages, 'sha256') over 100,000 messages of 64 B (--messages) against a
loop of the standard library's hmac.digest over them (ns per message; the target is 5x), with threads=1, so
that this thread's CPU time is all of digest_many's work. --only SUBSTRING runs the cases whose label has it.

Method, as in bench.py (self-contained here, since only the standard library is needed):
* Both libraries run in one process in interleaved rounds; the order flips every round, so drift of a
  shared machine falls on both sides alike.
* Each sample is one call of a loop whose count is calibrated once so that a sample lasts about
  --sample-ms; the loop is the same function for both sides, with the callables bound to locals.
* Time is this thread's CPU time (time.thread_time_ns) unless --clock wall is given: on a machine
  shared with other jobs, wall time also counts the moments this process waits for a core.
* Reported: each side's median time per call over the rounds, and the median of the per-round ratios
  stdlib / fastdigest (above 1: fastdigest is faster). Compare ratios within one run only.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import hmac
import json
import platform
import ssl
import statistics
import sys
import time
from itertools import repeat

import fastdigest
import fastdigest.hmac as fd_hmac

KEY = bytes(range(32))
MESSAGE_64 = bytes(range(64))
SHORT_MESSAGE = b'a short message'
PASSWORD = b'correct horse battery staple'
SALT = bytes(range(16))
PBKDF2_ALGORITHMS = ('sha1', 'sha256', 'sha512')
PBKDF2_BLOCKS_ALGORITHMS = ('md5', 'sha1', 'sha256', 'sha512')
PBKDF2_BLOCK_COUNTS = (1, 2, 3)
HMAC_ALGORITHMS = ('sha1', 'sha256', 'sha512')
MANY_MESSAGES = 100_000
MANY_TARGET = 5.0


# The clock of the timed loops: this thread's CPU time by default, which leaves out the time the thread
# spends preempted by other processes on a shared machine (PBKDF2 runs without the GIL, but in this
# thread, so its time counts). --clock wall switches to time.perf_counter_ns, as bench.py uses.
clock = time.thread_time_ns


def loop_call(function, args, count):
    start = clock()
    for _ in repeat(None, count):
        function(*args)
    return clock() - start


def loop_new_digest(new, key, msg, digestmod, count):
    start = clock()
    for _ in repeat(None, count):
        new(key, msg, digestmod).digest()
    return clock() - start


def loop_hmac_digest(key, messages, digest, count):
    """The loop digest_many replaces, count times over the messages."""
    start = clock()
    for _ in repeat(None, count):
        [hmac.digest(key, m, digest) for m in messages]
    return clock() - start


def loop_digest_many(key, messages, digest, count):
    start = clock()
    for _ in repeat(None, count):
        fd_hmac.digest_many(key, messages, digest, threads=1)
    return clock() - start


def loop_method(method, count):
    start = clock()
    for _ in repeat(None, count):
        method()
    return clock() - start


class Case:
    """One measurement: the same loop for both sides; `per_call` divides a call's time (PBKDF2 reports
    nanoseconds per iteration)."""

    def __init__(self, label, unit, stdlib_sample, fastdigest_sample, per_call=1, blocks_of=None, target=None):
        self.label, self.unit, self.per_call, self.target = label, unit, per_call, target
        self.blocks_of = blocks_of  # (algorithm, output blocks) of a PBKDF2 dklen case
        self.samples = {'stdlib': stdlib_sample, 'fastdigest': fastdigest_sample}
        self.counts = {}
        self.times = {'stdlib': [], 'fastdigest': []}
        self.ratios = []


def many_messages(count):
    """count distinct messages of 64 bytes, the same in every run."""
    return [i.to_bytes(8, 'little') * 8 for i in range(count)]


def make_cases(pbkdf2_iterations, many_count=MANY_MESSAGES):
    cases = []
    for name in PBKDF2_ALGORITHMS:
        args = (name, PASSWORD, SALT, pbkdf2_iterations)
        cases.append(
            Case(
                'pbkdf2_hmac %s, %d iterations' % (name, pbkdf2_iterations),
                'ns/iteration',
                lambda count, args=args: loop_call(hashlib.pbkdf2_hmac, args, count),
                lambda count, args=args: loop_call(fastdigest.pbkdf2_hmac, args, count),
                per_call=pbkdf2_iterations,
            )
        )
    for name in PBKDF2_BLOCKS_ALGORITHMS:
        for blocks in PBKDF2_BLOCK_COUNTS:
            dklen = blocks * hashlib.new(name).digest_size
            args = (name, PASSWORD, SALT, pbkdf2_iterations, dklen)
            cases.append(
                Case(
                    'pbkdf2_hmac %s, dklen %d (%d block%s), %d iterations'
                    % (name, dklen, blocks, 's' if blocks > 1 else '', pbkdf2_iterations),
                    'ns/iteration',
                    lambda count, args=args: loop_call(hashlib.pbkdf2_hmac, args, count),
                    lambda count, args=args: loop_call(fastdigest.pbkdf2_hmac, args, count),
                    per_call=pbkdf2_iterations,
                    blocks_of=(name, blocks),
                )
            )
    for name in HMAC_ALGORITHMS:
        args = (KEY, MESSAGE_64, name)
        cases.append(
            Case(
                'hmac.digest %s, 64-byte message' % name,
                'ns/call',
                lambda count, args=args: loop_call(hmac.digest, args, count),
                lambda count, args=args: loop_call(fd_hmac.digest, args, count),
            )
        )
    cases.append(
        Case(
            'hmac.new(key, 64 bytes, sha256).digest()',
            'ns/call',
            lambda count: loop_new_digest(hmac.new, KEY, MESSAGE_64, 'sha256', count),
            lambda count: loop_new_digest(fd_hmac.new, KEY, MESSAGE_64, 'sha256', count),
        )
    )
    messages = many_messages(many_count)
    cases.append(
        Case(
            'hmac.digest_many sha256, %d x 64 B, threads=1, vs an hmac.digest loop' % many_count,
            'ns/message',
            lambda count: loop_hmac_digest(KEY, messages, 'sha256', count),
            lambda count: loop_digest_many(KEY, messages, 'sha256', count),
            per_call=many_count,
            target=MANY_TARGET,
        )
    )
    stdlib_object = hmac.new(KEY, SHORT_MESSAGE, 'sha256')
    fastdigest_object = fd_hmac.new(KEY, SHORT_MESSAGE, 'sha256')
    for method in ('copy', 'digest'):
        stdlib_method, fastdigest_method = getattr(stdlib_object, method), getattr(fastdigest_object, method)
        cases.append(
            Case(
                'HMAC-sha256 object .%s()' % method,
                'ns/call',
                lambda count, bound=stdlib_method: loop_method(bound, count),
                lambda count, bound=fastdigest_method: loop_method(bound, count),
            )
        )
    return cases


def calibrate(sample, sample_ns):
    """The loop count whose sample lasts about sample_ns."""
    count = 1
    while True:
        elapsed = sample(count)
        if elapsed >= sample_ns / 4 or count >= 1 << 24:
            return max(1, int(count * sample_ns / max(elapsed, 1)))
        count *= 4


def run(cases, rounds, sample_ms):
    sample_ns = sample_ms * 1e6
    for case in cases:
        for side, sample in case.samples.items():
            sample(1)  # warm up: imports, caches, first-call paths
            case.counts[side] = calibrate(sample, sample_ns)
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        for round_index in range(rounds):
            order = ('stdlib', 'fastdigest') if round_index % 2 == 0 else ('fastdigest', 'stdlib')
            for case in cases:
                per_call = {}
                for side in order:
                    count = case.counts[side]
                    per_call[side] = case.samples[side](count) / count / case.per_call
                    case.times[side].append(per_call[side])
                case.ratios.append(per_call['stdlib'] / per_call['fastdigest'])
    finally:
        if gc_was_enabled:
            gc.enable()


def cpu_model():
    try:
        with open('/proc/cpuinfo') as cpuinfo:
            for line in cpuinfo:
                if line.startswith(('model name', 'Hardware', 'cpu model')):
                    return line.split(':', 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine():
    return {
        'cpu': cpu_model(),
        'python': sys.version.split()[0],
        'openssl': ssl.OPENSSL_VERSION,
        'fastdigest_kernels': dict(fastdigest.implementation),
    }


def block_ratios(cases):
    """For each algorithm and block count above one: each side's median over the rounds of that round's
    time for the dklen of n blocks over its time for one block (the cases run one after another within a
    round, so each pair is close in time). Deriving blocks one after another gives n."""
    one_block = {case.blocks_of[0]: case for case in cases if case.blocks_of and case.blocks_of[1] == 1}
    rows = []
    for case in cases:
        if not case.blocks_of or case.blocks_of[1] == 1:
            continue
        name, blocks = case.blocks_of
        base = one_block.get(name)
        if base is None:  # not selected (--only)
            continue
        row = {'algorithm': name, 'blocks': blocks}
        for side in ('fastdigest', 'stdlib'):
            row[side] = statistics.median(
                n_blocks / one for n_blocks, one in zip(case.times[side], base.times[side], strict=True)
            )
        rows.append(row)
    return rows


def report(cases, rounds, as_json, clock_name):
    ratios_by_blocks = block_ratios(cases)
    rows = []
    for case in cases:
        rows.append(
            {
                'case': case.label,
                'unit': case.unit,
                'stdlib': statistics.median(case.times['stdlib']),
                'fastdigest': statistics.median(case.times['fastdigest']),
                'ratio': statistics.median(case.ratios),
                'ratio_min': min(case.ratios),
                'ratio_max': max(case.ratios),
                'target': case.target,
            }
        )
    if as_json:
        print(
            json.dumps(
                {
                    'machine': machine(),
                    'rounds': rounds,
                    'clock': clock_name,
                    'results': rows,
                    'pbkdf2_block_ratios': ratios_by_blocks,
                },
                indent=2,
            )
        )
        return
    info = machine()
    print('CPU: %s' % info['cpu'])
    print(
        'Python %s, %s; fastdigest kernels: %s'
        % (
            info['python'],
            info['openssl'],
            ', '.join(
                '%s=%s' % item
                for item in info['fastdigest_kernels'].items()
                if item[0] in ('md5', 'sha1', 'sha256', 'sha512')
            ),
        )
    )
    print(
        '%d interleaved rounds, %s time; medians; ratio = stdlib / fastdigest (> 1: fastdigest faster)'
        % (rounds, 'CPU' if clock_name == 'cpu' else 'wall')
    )
    print()
    print('| case | unit | stdlib | fastdigest | ratio (min..max) | target |')
    print('|---|---|---:|---:|---:|---|')
    for row in rows:
        target = ''
        if row['target'] is not None:
            target = '>= %.1fx: %s' % (row['target'], 'met' if row['ratio'] >= row['target'] else 'NOT met')
        print(
            '| %s | %s | %.1f | %.1f | **%.2fx** (%.2f..%.2f) | %s |'
            % (
                row['case'],
                row['unit'],
                row['stdlib'],
                row['fastdigest'],
                row['ratio'],
                row['ratio_min'],
                row['ratio_max'],
                target,
            )
        )
    if not ratios_by_blocks:
        return
    print()
    print('PBKDF2 time for n output blocks over one block (median of per-round ratios; n: blocks one after another)')
    print()
    print('| algorithm | blocks | fastdigest | stdlib |')
    print('|---|---:|---:|---:|')
    for row in ratios_by_blocks:
        print('| %s | %d | **%.2fx** | %.2fx |' % (row['algorithm'], row['blocks'], row['fastdigest'], row['stdlib']))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--quick', action='store_true', help='3 rounds of 1 ms samples')
    parser.add_argument('--rounds', type=int, default=None, help='interleaved rounds (default 21)')
    parser.add_argument('--sample-ms', type=float, default=None, help='length of one sample (default 5)')
    parser.add_argument('--iterations', type=int, default=20000, help='PBKDF2 iterations per call')
    parser.add_argument('--json', action='store_true', help='print JSON instead of Markdown')
    parser.add_argument('--only', default='', help='run only the cases whose label contains this text')
    parser.add_argument(
        '--messages', type=int, default=MANY_MESSAGES, help='messages of the digest_many case (default 100,000)'
    )
    parser.add_argument(
        '--clock',
        choices=('cpu', 'wall'),
        default='cpu',
        help="what a sample measures: this thread's CPU time (default) or wall time",
    )
    args = parser.parse_args(argv)
    global clock
    clock = time.thread_time_ns if args.clock == 'cpu' else time.perf_counter_ns
    rounds = args.rounds or (3 if args.quick else 21)
    sample_ms = args.sample_ms or (1.0 if args.quick else 5.0)

    cases = [case for case in make_cases(args.iterations, args.messages) if args.only in case.label]
    if not cases:
        parser.error('no case has %r in its label' % args.only)
    # Same results before timing anything: a benchmark of a wrong answer is worthless.
    for name in PBKDF2_ALGORITHMS:
        assert fastdigest.pbkdf2_hmac(name, PASSWORD, SALT, 3) == hashlib.pbkdf2_hmac(name, PASSWORD, SALT, 3)
    for name in PBKDF2_BLOCKS_ALGORITHMS:
        for blocks in PBKDF2_BLOCK_COUNTS:
            dklen = blocks * hashlib.new(name).digest_size
            assert fastdigest.pbkdf2_hmac(name, PASSWORD, SALT, 3, dklen) == hashlib.pbkdf2_hmac(
                name, PASSWORD, SALT, 3, dklen
            )
    for name in HMAC_ALGORITHMS:
        assert fd_hmac.digest(KEY, MESSAGE_64, name) == hmac.digest(KEY, MESSAGE_64, name)
    messages = many_messages(1000)
    assert fd_hmac.digest_many(KEY, messages, 'sha256', threads=1) == [hmac.digest(KEY, m, 'sha256') for m in messages]
    run(cases, rounds, sample_ms)
    report(cases, rounds, args.json, args.clock)


if __name__ == '__main__':
    main()
