#!/usr/bin/env python3
"""Two builds of fastdigest side by side in one process: a refactor's check that nothing got slower.

Usage:
    pip install --target /tmp/baseline-build .   # in a checkout of the commit before the change
    python benchmarks/bench_builds.py /tmp/baseline-build [--rounds 31] [--algorithms md5,sha256] [--json]

The baseline is the `fastdigest` package found in the given folder (a `pip install --target` of an
earlier commit, or any folder holding a built package). It is copied to a scratch folder under the
name `fastdigest_baseline`, its imports rewritten to that name, and imported beside the `fastdigest`
this interpreter finds (the candidate): each extension picks its kernels for the CPU on its own.

The cases are bench.py's (constructors with digest at 0, 64 and 1024 bytes, the one-shots, copy(),
digest(), hexdigest(), state(), from_state(), 16 MiB update()), then HMAC, PBKDF2 and digest_many:
hmac.digest of 64 bytes, hmac.new(...).digest(), pbkdf2_hmac (one block and two), digest_many of
10,000 messages of 64 bytes. bench.py's method throughout: interleaved rounds, the order flipped
every other round, the median of per-round ratios. Ratio = baseline time / candidate time: above 1
the candidate is faster; a refactor that changes nothing should read 1.00 within the noise that
`--candidate-is-baseline` (the baseline against itself) shows.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import re
import shutil
import sys
import tempfile
from collections.abc import Callable, Sequence
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import bench  # noqa: E402  (the sibling script, found through the path above)

BASELINE_NAME = 'fastdigest_baseline'
PBKDF2_ITERATIONS = 2000
MANY_MESSAGES = 10_000


def import_baseline(folder: str, scratch: str) -> Any:
    """The fastdigest package of folder, imported as BASELINE_NAME from a renamed copy."""
    source = os.path.join(folder, 'fastdigest')
    if not os.path.isdir(source):
        raise SystemExit('%s holds no fastdigest package (pip install --target %s . first)' % (folder, folder))
    target = os.path.join(scratch, BASELINE_NAME)
    shutil.copytree(source, target, ignore=shutil.ignore_patterns('__pycache__'))
    # Only import statements name the package; the extension finds its package through them.
    pattern = re.compile(r'^(\s*)(from|import) fastdigest\b', re.MULTILINE)
    for directory, _, files in os.walk(target):
        for file_name in files:
            if file_name.endswith('.py'):
                path = os.path.join(directory, file_name)
                with open(path, encoding='utf-8') as file:
                    text = file.read()
                with open(path, 'w', encoding='utf-8') as file:
                    file.write(pattern.sub(r'\1\2 ' + BASELINE_NAME, text))
    sys.path.insert(0, scratch)
    module = importlib.import_module(BASELINE_NAME)
    if not os.path.abspath(module.__file__).startswith(os.path.abspath(scratch)):
        raise SystemExit('imported %s from %s, not from the copy' % (BASELINE_NAME, module.__file__))
    return module


def loop_call(function: Callable[..., Any], args: tuple, count: int) -> int:
    start = bench.time.perf_counter_ns()
    for _ in bench.repeat(None, count):
        function(*args)
    return bench.time.perf_counter_ns() - start


def extra_cases(algorithms: Sequence[str]) -> list[bench.Case]:
    """HMAC, PBKDF2 and digest_many, for each algorithm: the paths bench.py does not time."""
    cases: list[bench.Case] = []
    key, message = b'k' * 32, bytes(range(64))
    messages = [bytes([i & 0xFF]) * 64 for i in range(MANY_MESSAGES)]
    for algorithm in algorithms:

        def hmac_digest(module: Any, algorithm: str = algorithm) -> Callable[[int], int]:
            function = importlib.import_module(module.__name__ + '.hmac').digest
            return lambda count: loop_call(function, (key, message, algorithm), count)

        def hmac_new_digest(module: Any, algorithm: str = algorithm) -> Callable[[int], int]:
            new = importlib.import_module(module.__name__ + '.hmac').new
            return lambda count: loop_call(lambda: new(key, message, algorithm).digest(), (), count)

        def pbkdf2(module: Any, algorithm: str = algorithm, dklen: int = 0) -> Callable[[int], int]:
            function = module.pbkdf2_hmac
            args = (algorithm, b'password', b'salt', PBKDF2_ITERATIONS, dklen or None)
            return lambda count: loop_call(function, args, count)

        def two_blocks(module: Any, algorithm: str = algorithm) -> Callable[[int], int]:
            digest_size = module.new(algorithm).digest_size
            return pbkdf2(module, algorithm, 2 * digest_size)

        def digest_many(module: Any, algorithm: str = algorithm) -> Callable[[int], int]:
            function = module.digest_many
            return lambda count: loop_call(function, (algorithm, messages), count)

        cases += [
            bench.Case(algorithm, 'hmac.digest(64 B)', 64, hmac_digest),
            bench.Case(algorithm, 'hmac.new(64 B).digest()', 64, hmac_new_digest),
            bench.Case(algorithm, 'pbkdf2_hmac(%d iterations)' % PBKDF2_ITERATIONS, 0, pbkdf2),
            bench.Case(algorithm, 'pbkdf2_hmac(two blocks)', 0, two_blocks),
            bench.Case(algorithm, 'digest_many(%d x 64 B)' % MANY_MESSAGES, 64 * MANY_MESSAGES, digest_many),
        ]
    return cases


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('baseline', help='a folder holding the baseline build (pip install --target FOLDER .)')
    parser.add_argument('--algorithms', default=','.join(bench.ALGORITHMS))
    parser.add_argument('--rounds', type=int, default=31)
    parser.add_argument('--sample-ms', type=float, default=bench.DEFAULT_SAMPLE_MS)
    parser.add_argument('--candidate-is-baseline', action='store_true', help='the baseline against itself')
    parser.add_argument('--json', action='store_true')
    args = parser.parse_args(argv)
    algorithms = [name for name in args.algorithms.split(',') if name]

    with tempfile.TemporaryDirectory(prefix='fastdigest-builds-') as scratch:
        baseline = import_baseline(args.baseline, scratch)
        candidate = baseline if args.candidate_is_baseline else importlib.import_module('fastdigest')
        for module in (baseline, candidate):
            print('%s: %s, %s' % (module.__name__, module.__file__, module.implementation), file=sys.stderr)

        original_build_cases = bench.build_cases
        bench.build_cases = lambda names, buffer: original_build_cases(names, buffer) + extra_cases(names)
        try:
            results = bench.run(
                baseline,
                candidate,
                algorithms,
                args.rounds,
                args.sample_ms,
                lambda text: print(text, file=sys.stderr),
            )
        finally:
            bench.build_cases = original_build_cases

    machine = bench.describe_machine(bench.read_cpuinfo())
    if args.json:
        json.dump({'machine': machine, 'results': results}, sys.stdout, indent=1)
        print()
        return 0
    print('- CPU: %s; %s logical CPUs' % (machine['cpu_model'], machine['logical_cpus']))
    print('- Python %s, %s' % (machine['python'], machine['openssl']))
    print('- baseline: %s; candidate: %s' % (args.baseline, 'itself' if args.candidate_is_baseline else 'fastdigest'))
    print('- %d interleaved rounds; ratio = baseline time / candidate time (median of per-round ratios)' % args.rounds)
    print()
    print('| algorithm | case | baseline | candidate | ratio | min | max |')
    print('|---|---|---:|---:|---:|---:|---:|')
    for result in results:
        print(
            '| %s | %s | %s | %s | %.3f | %.2f | %.2f |'
            % (
                result['algorithm'],
                result['case'],
                bench.format_time(result['baseline_ns_per_call']),
                bench.format_time(result['candidate_ns_per_call']),
                result['ratio_median'],
                result['ratio_min'],
                result['ratio_max'],
            )
        )
    return 0


if __name__ == '__main__':
    sys.exit(main())
