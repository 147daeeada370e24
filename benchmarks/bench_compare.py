#!/usr/bin/env python3
"""How much faster fastdigest is than what a user has now: the lead benchmark page's charts and tables.

Usage:
    python benchmarks/bench_compare.py --quick              # a smoke run: short samples, 3 rounds
    python benchmarks/bench_compare.py --charts docs/benchmarks --page docs/benchmarks/index.md --json out.json
    python benchmarks/bench_compare.py --from-json out.json --charts docs/benchmarks --page docs/benchmarks/index.md
    python benchmarks/bench_compare.py --groups hashing,hmac --rounds 21

Each group is one chart. In every case fastdigest runs beside each alternative a user would pick instead,
in the code a user writes for it:

  hashing   ctor(data).digest() at 64 B and 1 KiB, and one update() of 16 MiB: hashlib, pyca/cryptography
            (hashes.Hash, update, finalize), PyCryptodome (Crypto.Hash.X.new(data).digest())
  hmac      the MAC of 64 B in one call: hmac.digest, cryptography's hmac.HMAC (update, finalize),
            PyCryptodome's HMAC.new(key, msg, X).digest()
  pbkdf2    pbkdf2_hmac, ns per iteration, one output block and two: hashlib.pbkdf2_hmac, cryptography's
            PBKDF2HMAC(...).derive(), PyCryptodome's PBKDF2(..., hmac_hash_module=X)
  many      100,000 messages of 64 B: digest_many against the loop it replaces
            ([hashlib.sha256(m).digest() for m in messages]), hmac.digest_many against a loop of
            hmac.digest
  tools     what each feature replaces outside Python: the command line against sha256sum and
            `openssl dgst -sha256` on 10,000 files of 4 KiB and on one 256 MiB file (page cache),
            digest_files against a hashlib.file_digest loop, and digest_array (hex) on 1,000,000 strings
            of 8-64 bytes against polars-hash and DuckDB's sha256() (bench_columns.py's cases)

An alternative that is not installed is left out, saying so; `pip install -e '.[bench]'` installs them
all (the command-line tools are coreutils' and OpenSSL's). Before timing, every case's result is checked
against hashlib's: a benchmark of a wrong digest is worthless.

Method, as the other scripts': every case's implementations run in one process in interleaved rounds,
in an order that rotates each round, so drift of a shared machine falls on all of them; each sample is
a loop calibrated once per implementation to last about --sample-ms (at least one call); the garbage
collector is off while timing; the clock is the wall clock (the tools are other processes, digest_many
and DuckDB use threads). Reported: each implementation's median time per operation, and the median over
rounds of the per-round ratio alternative / fastdigest (above 1: fastdigest is faster).

Output: a Markdown report on standard output; with --charts DIR an SVG chart per group (no dependency:
the SVG is written here), named compare-GROUP.svg; with --page FILE the report replaces what lies
between the page's `<!-- bench_compare: begin -->` and `<!-- bench_compare: end -->` lines; with --json
FILE the raw results, which --from-json draws again without measuring. --placeholder marks every chart
and table as a placeholder (a run on a shared, busy machine whose figures are to be replaced).
"""

from __future__ import annotations

import argparse
import datetime
import gc
import hashlib
import hmac
import importlib
import json
import math
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
from itertools import repeat
from typing import Any
from xml.sax.saxutils import escape

import fastdigest
import fastdigest.hmac as fd_hmac

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402  (the sibling script: its reading of /proc/cpuinfo)

GROUPS = ('hashing', 'hmac', 'pbkdf2', 'many', 'tools')
GROUP_TITLES = {
    'hashing': 'Hashing: hashlib, pyca/cryptography, PyCryptodome',
    'hmac': 'HMAC in one call: hmac, pyca/cryptography, PyCryptodome',
    'pbkdf2': 'PBKDF2-HMAC: hashlib, pyca/cryptography, PyCryptodome',
    'many': 'Many messages: the Python loop each call replaces',
    'tools': 'Files and columns: the tools each feature replaces',
}
KEY = bytes(range(32))
PASSWORD = b'correct horse battery staple'
SALT = bytes(range(16))
DEFAULT_ROUNDS, QUICK_ROUNDS = 15, 3
DEFAULT_SAMPLE_MS, QUICK_SAMPLE_MS = 20.0, 2.0
DEFAULT_ITERATIONS, QUICK_ITERATIONS = 20_000, 2_000
MANY_MESSAGES = 100_000
SMALL_FILES, SMALL_FILE_SIZE, BIG_FILE_MIB = 10_000, 4096, 256
QUICK_SMALL_FILES, QUICK_BIG_FILE_MIB = 500, 32
COLUMN_ROWS, QUICK_COLUMN_ROWS = 1_000_000, 100_000
MARKER_BEGIN, MARKER_END = '<!-- bench_compare: begin -->', '<!-- bench_compare: end -->'
FASTDIGEST = 'fastdigest'


def optional_import(name: str) -> Any | None:
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


# --- the machine and the libraries ---------------------------------------------------------------------


def read_cpu() -> dict[str, Any]:
    fields = bench.read_cpuinfo()
    cpu: dict[str, Any] = {'model name': fields.get('model name') or platform.processor() or platform.machine()}
    cpu.update({key: fields[key] for key in ('cpu family', 'model') if key in fields})
    cpu['logical cpus'] = os.cpu_count()
    return cpu


def describe_cpu(cpu: dict[str, Any]) -> str:
    text = cpu['model name']
    if 'cpu family' in cpu:
        text += ' (family %s, model %s)' % (cpu['cpu family'], cpu['model'])
    return '%s, %s logical CPUs' % (text, cpu['logical cpus'])


def tool_version(command: Sequence[str]) -> str | None:
    if shutil.which(command[0]) is None:
        return None
    try:
        output = subprocess.run(command, capture_output=True, text=True, check=False).stdout
    except OSError:
        return None
    return output.splitlines()[0].strip() if output else None


def versions() -> dict[str, str]:
    """Every library and tool that ran, with its version (and the OpenSSL each links)."""
    found = {
        'python': platform.python_version(),
        'hashlib': 'OpenSSL ' + ssl.OPENSSL_VERSION.split()[1],
        'fastdigest': getattr(fastdigest, '__version__', '?'),
    }
    cryptography = optional_import('cryptography')
    if cryptography is not None:
        from cryptography.hazmat.backends.openssl import backend

        found['cryptography'] = '%s (%s)' % (cryptography.__version__, backend.openssl_version_text())
    crypto = optional_import('Crypto')
    if crypto is not None:
        found['PyCryptodome'] = crypto.__version__
    for module, label in (('polars_hash', 'polars-hash'), ('polars', 'polars'), ('duckdb', 'DuckDB')):
        imported = optional_import(module)
        if imported is not None:
            found[label] = getattr(imported, '__version__', '?')
    coreutils = tool_version(['sha256sum', '--version'])  # "sha256sum (GNU coreutils) 9.1"
    if coreutils is not None:
        found['sha256sum'] = 'coreutils ' + coreutils.split()[-1]
    openssl = tool_version(['openssl', 'version'])  # "OpenSSL 3.0.19 27 Jan 2026 (Library: ...)"
    if openssl is not None:
        found['openssl'] = ' '.join(openssl.split()[:2])
    return found


# --- the cases -------------------------------------------------------------------------------------------


class Case:
    """One operation, done by fastdigest and by each alternative: `runs[name](count)` does it count times
    and returns the nanoseconds taken; `checks[name]()` returns its result in a form comparable with the
    others'. Times are reported per `unit` (a call, an iteration, a message): per_call of them a call."""

    def __init__(self, group: str, label: str, unit: str, per_call: int = 1, wall: bool = False):
        self.group, self.label, self.unit, self.per_call = group, label, unit, per_call
        # This thread's CPU time for what runs on it alone, which leaves out the moments a shared machine
        # gives its core to another process; the wall clock for what runs on other threads or processes.
        self.clock = time.perf_counter_ns if wall else time.thread_time_ns
        self.runs: dict[str, Callable[[int], int]] = {}
        self.checks: dict[str, Callable[[], Any]] = {}

    def add(self, name: str, call: Callable[[], Any], check: Callable[[], Any] | None = None) -> None:
        def run(count: int, call: Callable[[], Any] = call, clock: Callable[[], int] = self.clock) -> int:
            start = clock()
            for _ in repeat(None, count):
                call()
            return clock() - start

        self.runs[name] = run
        self.checks[name] = check or call


def crypto_hash_names() -> dict[str, Any]:
    """PyCryptodome's hash modules by hashlib name."""
    names = {'md5': 'MD5', 'sha1': 'SHA1', 'sha256': 'SHA256', 'sha512': 'SHA512'}
    found = {}
    for name, module in names.items():
        imported = optional_import('Crypto.Hash.' + module)
        if imported is not None:
            found[name] = imported
    return found


def cryptography_hashes() -> tuple[Any, Any, Any]:
    if optional_import('cryptography') is None:
        return None, None, None
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives import hmac as crypto_hmac
    from cryptography.hazmat.primitives.kdf.pbkdf2 import PBKDF2HMAC

    return hashes, crypto_hmac, PBKDF2HMAC


CRYPTOGRAPHY_NAMES = {'md5': 'MD5', 'sha1': 'SHA1', 'sha256': 'SHA256', 'sha512': 'SHA512'}


def algorithm_label(name: str) -> str:
    return name.upper().replace('SHA', 'SHA-')


# The code a user writes with each library, made into a call of no arguments.


def digest_of(constructor: Callable[[Any], Any], data: Any) -> Callable[[], bytes]:
    return lambda: constructor(data).digest()


def cryptography_digest_of(hashes: Any, algorithm: Any, data: Any) -> Callable[[], bytes]:
    def call() -> bytes:
        h = hashes.Hash(algorithm())
        h.update(data)
        return h.finalize()

    return call


def cryptography_hmac_of(crypto_hmac: Any, algorithm: Any, key: bytes, message: bytes) -> Callable[[], bytes]:
    def call() -> bytes:
        h = crypto_hmac.HMAC(key, algorithm())
        h.update(message)
        return h.finalize()

    return call


def hashing_cases(quick: bool) -> list[Case]:
    hashes, _, _ = cryptography_hashes()
    pycryptodome = crypto_hash_names()
    size = (4 if quick else 16) * 1024 * 1024
    bulk = memoryview(bytes(range(256)) * (size // 256))
    inputs = [(name, bytes(range(256)) * 4) for name in ('sha256', 'sha512')]
    inputs[:0] = [(name, bytes(range(64))) for name in ('sha256', 'md5', 'sha1')]
    inputs += [('sha256', bulk), ('md5', bulk)]
    cases = []
    for name, data in inputs:
        case = Case('hashing', '%s of %s' % (algorithm_label(name), size_label(len(data))), 'call')
        case.add(FASTDIGEST, digest_of(getattr(fastdigest, name), data))
        case.add('hashlib', digest_of(getattr(hashlib, name), data))
        if hashes is not None:
            case.add('cryptography', cryptography_digest_of(hashes, getattr(hashes, CRYPTOGRAPHY_NAMES[name]), data))
        if name in pycryptodome:
            case.add('PyCryptodome', digest_of(pycryptodome[name].new, data))
        cases.append(case)
    return cases


def hmac_cases() -> list[Case]:
    hashes, crypto_hmac, _ = cryptography_hashes()
    pycryptodome = crypto_hash_names()
    pycryptodome_hmac = optional_import('Crypto.Hash.HMAC')
    message = bytes(range(64))
    cases = []
    for name in ('sha256', 'sha1', 'sha512'):
        case = Case('hmac', 'HMAC-%s of 64 B' % algorithm_label(name), 'call')
        case.add(FASTDIGEST, lambda n=name: fd_hmac.digest(KEY, message, n))
        case.add('hmac', lambda n=name: hmac.digest(KEY, message, n))
        if crypto_hmac is not None:
            algorithm = getattr(hashes, CRYPTOGRAPHY_NAMES[name])
            case.add('cryptography', cryptography_hmac_of(crypto_hmac, algorithm, KEY, message))
        if pycryptodome_hmac is not None and name in pycryptodome:
            case.add('PyCryptodome', lambda m=pycryptodome[name]: pycryptodome_hmac.new(KEY, message, m).digest())
        cases.append(case)
    return cases


def pbkdf2_cases(iterations: int) -> list[Case]:
    hashes, _, pbkdf2 = cryptography_hashes()
    pycryptodome = crypto_hash_names()
    kdf = optional_import('Crypto.Protocol.KDF')
    cases = []
    for name, blocks in (('sha256', 1), ('sha256', 2), ('sha1', 1), ('sha512', 1)):
        dklen = blocks * hashlib.new(name).digest_size
        label = 'PBKDF2-HMAC-%s, %d B' % (algorithm_label(name), dklen)
        case = Case('pbkdf2', label, 'iteration', per_call=iterations)
        case.add(FASTDIGEST, lambda n=name, k=dklen: fastdigest.pbkdf2_hmac(n, PASSWORD, SALT, iterations, k))
        case.add('hashlib', lambda n=name, k=dklen: hashlib.pbkdf2_hmac(n, PASSWORD, SALT, iterations, k))
        if pbkdf2 is not None:
            algorithm = getattr(hashes, CRYPTOGRAPHY_NAMES[name])
            case.add(
                'cryptography',
                lambda a=algorithm, k=dklen: pbkdf2(algorithm=a(), length=k, salt=SALT, iterations=iterations).derive(
                    PASSWORD
                ),
            )
        if kdf is not None and name in pycryptodome:
            case.add(
                'PyCryptodome',
                lambda m=pycryptodome[name], k=dklen: kdf.PBKDF2(PASSWORD, SALT, k, iterations, hmac_hash_module=m),
            )
        cases.append(case)
    return cases


def many_cases(count: int) -> list[Case]:
    messages = [i.to_bytes(8, 'little') * 8 for i in range(count)]
    digests = Case('many', 'SHA-256 of %s messages of 64 B' % f'{count:,}', 'message', per_call=count, wall=True)
    digests.add(FASTDIGEST, lambda: fastdigest.digest_many('sha256', messages))
    digests.add('hashlib loop', lambda: [hashlib.sha256(m).digest() for m in messages])
    macs = Case('many', 'HMAC-SHA-256 of %s messages of 64 B' % f'{count:,}', 'message', per_call=count, wall=True)
    macs.add(FASTDIGEST, lambda: fd_hmac.digest_many(KEY, messages, 'sha256'))
    macs.add('hmac loop', lambda: [hmac.digest(KEY, m, 'sha256') for m in messages])
    return [digests, macs]


def command_line() -> list[str]:
    """fastdigest's command: the installed script beside this interpreter, else `python -m fastdigest`."""
    script = os.path.join(os.path.dirname(sys.executable), 'fastdigest')
    if os.access(script, os.X_OK):
        return [script]
    return [sys.executable, '-m', 'fastdigest']


def run_tool(command: list[str]) -> bytes:
    return subprocess.run(command, capture_output=True, check=True).stdout


def sha256sum_digests(output: bytes) -> list[str]:
    return [line.split()[0].decode() for line in output.splitlines()]


def openssl_digests(output: bytes) -> list[str]:
    return [line.rsplit(b'= ', 1)[1].decode() for line in output.splitlines()]


def write_files(directory: str, count: int, size: int, big_mib: int) -> tuple[list[str], str]:
    paths = []
    for i in range(count):
        path = os.path.join(directory, 'f%05d' % i)
        with open(path, 'wb') as f:
            f.write(i.to_bytes(8, 'little') * (size // 8))
        paths.append(path)
    big = os.path.join(directory, 'big.bin')
    chunk = bytes(range(256)) * 4096
    with open(big, 'wb') as f:
        for _ in range(big_mib):
            f.write(chunk)
    for path in [*paths, big]:  # into the page cache: the cases then hash memory, not the disk
        with open(path, 'rb') as f:
            while f.read(1 << 20):
                pass
    return paths, big


def tools_cases(directory: str, quick: bool) -> list[Case]:
    files = QUICK_SMALL_FILES if quick else SMALL_FILES
    paths, big = write_files(directory, files, SMALL_FILE_SIZE, QUICK_BIG_FILE_MIB if quick else BIG_FILE_MIB)
    cli = command_line()
    cases = []
    small = Case('tools', 'command line, %s files of 4 KiB' % f'{files:,}', 'run', wall=True)
    small.add(FASTDIGEST, lambda: run_tool([*cli, *paths]), lambda: sha256sum_digests(run_tool([*cli, *paths])))
    if shutil.which('sha256sum'):
        small.add(
            'sha256sum',
            lambda: run_tool(['sha256sum', *paths]),
            lambda: sha256sum_digests(run_tool(['sha256sum', *paths])),
        )
    if shutil.which('openssl'):
        command = ['openssl', 'dgst', '-sha256', *paths]
        small.add('openssl dgst', lambda: run_tool(command), lambda: openssl_digests(run_tool(command)))
    cases.append(small)
    big_case = Case('tools', 'command line, one file of %s' % size_label(os.path.getsize(big)), 'run', wall=True)
    big_case.add(FASTDIGEST, lambda: run_tool([*cli, big]), lambda: sha256sum_digests(run_tool([*cli, big])))
    if shutil.which('sha256sum'):
        big_case.add(
            'sha256sum', lambda: run_tool(['sha256sum', big]), lambda: sha256sum_digests(run_tool(['sha256sum', big]))
        )
    if shutil.which('openssl'):
        big_case.add(
            'openssl dgst',
            lambda: run_tool(['openssl', 'dgst', '-sha256', big]),
            lambda: openssl_digests(run_tool(['openssl', 'dgst', '-sha256', big])),
        )
    cases.append(big_case)
    python_files = Case('tools', 'Python, %s files of 4 KiB' % f'{files:,}', 'call', wall=True)
    python_files.add(
        FASTDIGEST,
        lambda: fastdigest.digest_files('sha256', paths),
        lambda: [d.hex() for d in fastdigest.digest_files('sha256', paths)],
    )
    if hasattr(hashlib, 'file_digest'):

        def file_digest_loop():
            digests = []
            for path in paths:
                with open(path, 'rb') as f:
                    digests.append(hashlib.file_digest(f, 'sha256').digest())
            return digests

        python_files.add('file_digest loop', file_digest_loop, lambda: [d.hex() for d in file_digest_loop()])
    cases.append(python_files)
    cases.extend(column_cases(QUICK_COLUMN_ROWS if quick else COLUMN_ROWS))
    return cases


def column_cases(rows: int) -> list[Case]:
    """bench_columns.py's column and cases: hex digests, as polars-hash and DuckDB give them."""
    pa = optional_import('pyarrow')
    if pa is None or optional_import('numpy') is None:
        print('.. no pyarrow or numpy: the column case is left out', file=sys.stderr)
        return []
    import bench_columns  # the sibling script, which needs pyarrow and numpy

    column = bench_columns.make_column(rows)
    found = bench_columns.make_cases('sha256', column, include_slow=False)
    case = Case('tools', 'column of %s strings, hex' % f'{rows:,}', 'call', wall=True)
    case.add(FASTDIGEST, found['digest_array hex'], lambda: found['digest_array hex']().slice(0, 5).to_pylist())
    if 'polars-hash' in found:
        case.add('polars-hash', found['polars-hash'], lambda: found['polars-hash']().to_series().head(5).to_list())
    if 'duckdb' in found:
        case.add('DuckDB', found['duckdb'], lambda: found['duckdb']().column(0).slice(0, 5).to_pylist())
    return [case]


def size_label(size: int) -> str:
    for unit, scale in (('MiB', 1 << 20), ('KiB', 1 << 10)):
        if size >= scale and size % scale == 0:
            return '%d %s' % (size // scale, unit)
    return '%d B' % size


# --- running ---------------------------------------------------------------------------------------------


def check(case: Case) -> None:
    """Every implementation's result is fastdigest's (and so, as the test suite holds, hashlib's)."""
    expected = case.checks[FASTDIGEST]()
    for name, result in case.checks.items():
        got = result()
        if got != expected:
            raise SystemExit('%s: %s gives another result than fastdigest' % (case.label, name))


def calibrate(run: Callable[[int], int], sample_ns: float) -> int:
    count = 1
    while True:
        elapsed = run(count)
        if elapsed >= sample_ns or count >= 1 << 24:
            return count
        count = max(count * 2, int(count * sample_ns / max(elapsed, 1) * 1.1))


def measure(case: Case, rounds: int, sample_ms: float) -> dict[str, Any]:
    names = list(case.runs)
    counts = {name: calibrate(case.runs[name], sample_ms * 1e6) for name in names}
    times: dict[str, list[float]] = {name: [] for name in names}
    ratios: dict[str, list[float]] = {name: [] for name in names if name != FASTDIGEST}
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        for r in range(rounds):
            order = names[r % len(names) :] + names[: r % len(names)]
            this_round = {}
            for name in order:
                this_round[name] = case.runs[name](counts[name]) / counts[name] / case.per_call
            for name, value in this_round.items():
                times[name].append(value)
                if name != FASTDIGEST:
                    ratios[name].append(value / this_round[FASTDIGEST])
    finally:
        if gc_was_enabled:
            gc.enable()
    return {
        'group': case.group,
        'case': case.label,
        'unit': case.unit,
        'per_call': case.per_call,
        'clock': 'wall' if case.clock is time.perf_counter_ns else 'thread CPU',
        'median_ns': {name: statistics.median(values) for name, values in times.items()},
        'ratio': {name: statistics.median(values) for name, values in ratios.items()},
        'ratio_range': {name: [min(values), max(values)] for name, values in ratios.items()},
    }


def build_cases(groups: Sequence[str], quick: bool, iterations: int, directory: str) -> list[Case]:
    cases: list[Case] = []
    for group in groups:
        if group == 'hashing':
            cases += hashing_cases(quick)
        elif group == 'hmac':
            cases += hmac_cases()
        elif group == 'pbkdf2':
            cases += pbkdf2_cases(iterations)
        elif group == 'many':
            cases += many_cases(MANY_MESSAGES // 10 if quick else MANY_MESSAGES)
        elif group == 'tools':
            cases += tools_cases(directory, quick)
    return [case for case in cases if len(case.runs) > 1]  # a case with no alternative here compares nothing


# --- reporting -------------------------------------------------------------------------------------------


def format_time(ns: float) -> str:
    if ns >= 1e9:
        return '%.2f s' % (ns / 1e9)
    if ns >= 1e6:
        return '%.1f ms' % (ns / 1e6)
    if ns >= 1e3:
        return '%.2f us' % (ns / 1e3)
    return '%.0f ns' % ns


def format_ratio(value: float) -> str:
    return '%.1fx' % value if value >= 10 else '%.2fx' % value


def header_lines(run: dict[str, Any]) -> list[str]:
    found = run['versions']
    libraries = ', '.join('%s %s' % (name, version) for name, version in found.items() if name != 'python')
    return [
        '%s; Python %s; %s.' % (describe_cpu(run['cpu']), found['python'], libraries),
        'Measured %s with `%s`.' % (run['date'], run['command']),
    ]


def markdown(run: dict[str, Any]) -> str:
    lines = []
    if run['placeholder']:
        lines += [
            '!!! warning "Placeholder figures"',
            '    Measured on a shared machine busy with other jobs: the ratios are noisy. They are to be',
            '    replaced by a run of bench_compare.py on an otherwise idle machine.',
            '',
        ]
    lines += header_lines(run) + ['']
    for group in run['groups']:
        results = [r for r in run['results'] if r['group'] == group]
        if not results:
            continue
        lines += ['### %s' % GROUP_TITLES[group], '', '![%s](compare-%s.svg)' % (GROUP_TITLES[group], group), '']
        others = []
        for r in results:
            others += [name for name in r['ratio'] if name not in others]
        lines.append('| case | fastdigest | ' + ' | '.join(others) + ' |')
        lines.append('|---|---:|' + '---:|' * len(others))
        for r in results:
            cells = []
            for name in others:
                if name in r['ratio']:
                    cells.append('%s (%s)' % (format_time(r['median_ns'][name]), format_ratio(r['ratio'][name])))
                else:
                    cells.append('-')
            lines.append(
                '| %s, per %s | %s | %s |'
                % (r['case'], r['unit'], format_time(r['median_ns'][FASTDIGEST]), ' | '.join(cells))
            )
        clocks = sorted({r['clock'] for r in results})
        lines += [
            '',
            "Each cell: the median time (%s), and in brackets how many times fastdigest's."
            % ' and '.join({'thread CPU': "the calling thread's CPU time", 'wall': 'wall clock'}[c] for c in clocks),
            '',
        ]
    missing = run.get('missing', [])
    if missing:
        lines += ['Not installed, so not measured: %s.' % ', '.join(missing), '']
    return '\n'.join(lines).rstrip() + '\n'


# The standard library in blue wherever it is the alternative, then one colour per other alternative.
STANDARD_LIBRARY = ('hashlib', 'hmac', 'hashlib loop', 'hmac loop', 'file_digest loop')
PALETTE = ('#f28e2b', '#59a14f', '#e15759', '#76b7b2', '#edc948', '#b07aa1', '#9c755f')


def svg_chart(run: dict[str, Any], group: str) -> str:
    """How many times longer each alternative takes than fastdigest, one bar each, on a log scale."""
    results = [r for r in run['results'] if r['group'] == group]
    bars = [(r['case'], name, value) for r in results for name, value in r['ratio'].items()]
    names = []
    for _, name, _ in bars:
        if name not in names:
            names.append(name)
    others = [name for name in names if name not in STANDARD_LIBRARY]
    colors = {
        name: '#4e79a7' if name in STANDARD_LIBRARY else PALETTE[others.index(name) % len(PALETTE)] for name in names
    }
    low = min([1.0] + [v for _, _, v in bars])  # the axis starts at 1 unless an alternative is faster
    high = max([2.0] + [v for _, _, v in bars])
    low_exponent, high_exponent = math.floor(math.log10(low)), math.ceil(math.log10(high))
    # Ticks at 1, 10, 100, ..., with 2 and 5 between them where the scale has room.
    multiples = (1, 2, 5) if high_exponent - low_exponent <= 3 else (1,)
    version_lines = wrap(
        ', '.join(
            '%s %s' % (name, version)
            for name, version in run['versions'].items()
            if name
            in (
                'fastdigest',
                'hashlib',
                'cryptography',
                'PyCryptodome',
                'polars-hash',
                'DuckDB',
                'sha256sum',
                'openssl',
            )
        ),
        110,
    )
    left, width, bar, gap = 290, 460, 14, 12
    top = 70 + 14 * len(version_lines)
    height = top + len(bars) * bar + len(results) * gap + 60

    def x(value: float) -> float:
        return left + (math.log10(value) - low_exponent) / (high_exponent - low_exponent) * width

    out = [
        '<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="11">'
        % (left + width + 130, height),
        '<rect width="100%" height="100%" fill="white"/>',
        '<text x="10" y="18" font-size="13" font-weight="bold">%s</text>' % escape(GROUP_TITLES[group]),
        '<text x="10" y="34">Time of each alternative / fastdigest\'s time, log scale: above 1, fastdigest is faster</text>',
        '<text x="10" y="50" fill="#555">%s</text>'
        % escape('%s; Python %s; %s' % (describe_cpu(run['cpu']), run['versions']['python'], run['date'])),
    ]
    out += [
        '<text x="10" y="%d" fill="#555">%s</text>' % (64 + 14 * i, escape(line))
        for i, line in enumerate(version_lines)
    ]
    if run['placeholder']:
        out.append(
            '<text x="%d" y="18" text-anchor="end" font-weight="bold" fill="#c00">PLACEHOLDER: measured on a busy machine</text>'
            % (left + width + 120)
        )
    axis_bottom = height - 40
    for exponent in range(low_exponent, high_exponent + 1):
        for multiple in multiples:
            value = multiple * 10.0**exponent
            if value > 10.0**high_exponent:
                continue
            px = x(value)
            out.append(
                '<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="%s"/>'
                % (px, top - 6, px, axis_bottom, '#999' if value == 1 else '#e4e4e4')
            )
            out.append(
                '<text x="%.1f" y="%d" text-anchor="middle" fill="#555">%gx</text>' % (px, axis_bottom + 14, value)
            )
    y = top
    for r in results:
        out.append(
            '<text x="%d" y="%d" text-anchor="end" font-weight="bold">%s</text>'
            % (left - 8, y + bar - 3, escape(r['case']))
        )
        for name, value in r['ratio'].items():
            start, end = sorted((x(1.0), x(value)))
            out.append(
                '<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s"><title>%s: %s</title></rect>'
                % (start, y, max(end - start, 1.0), bar - 3, colors[name], escape(name), format_ratio(value))
            )
            out.append(
                '<text x="%.1f" y="%d" fill="#333">%s %s</text>'
                % (max(end, x(1.0)) + 4, y + bar - 4, escape(name), format_ratio(value))
            )
            y += bar
        y += gap
    legend_y = height - 12
    lx = 10
    for name in names:
        out.append('<rect x="%d" y="%d" width="10" height="10" fill="%s"/>' % (lx, legend_y - 9, colors[name]))
        out.append('<text x="%d" y="%d">%s</text>' % (lx + 14, legend_y, escape(name)))
        lx += 24 + 7 * len(name)
    out.append('</svg>')
    return '\n'.join(out) + '\n'


def wrap(text: str, width: int) -> list[str]:
    lines, line = [], ''
    for word in text.split(' '):
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = (line + ' ' + word).strip()
    return lines + [line] if line else lines


def replace_region(page: str, report: str) -> None:
    with open(page, encoding='utf-8') as f:
        text = f.read()
    begin, end = text.find(MARKER_BEGIN), text.find(MARKER_END)
    if begin < 0 or end < begin:
        raise SystemExit('%s has no %s ... %s region to fill' % (page, MARKER_BEGIN, MARKER_END))
    text = text[: begin + len(MARKER_BEGIN)] + '\n\n' + report + '\n' + text[end:]
    with open(page, 'w', encoding='utf-8') as f:
        f.write(text)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--groups', default=','.join(GROUPS), help='comma-separated, of: ' + ', '.join(GROUPS))
    parser.add_argument('--rounds', type=int, default=None)
    parser.add_argument('--sample-ms', type=float, default=None)
    parser.add_argument('--iterations', type=int, default=None, help='PBKDF2 iterations a call')
    parser.add_argument('--quick', action='store_true', help='short samples, 3 rounds, smaller inputs')
    parser.add_argument('--dir', help='where the tools group writes its files (default: a temporary folder)')
    parser.add_argument('--charts', metavar='DIR', help='write compare-GROUP.svg for each group there')
    parser.add_argument('--page', metavar='FILE', help='replace the bench_compare region of this Markdown page')
    parser.add_argument('--json', metavar='FILE', help='write the raw results there')
    parser.add_argument('--from-json', metavar='FILE', help='report the results of an earlier run, measuring nothing')
    parser.add_argument('--placeholder', action='store_true', help='mark the figures as placeholders')
    args = parser.parse_args(argv)

    if args.from_json:
        with open(args.from_json, encoding='utf-8') as f:
            run = json.load(f)
        run['placeholder'] = run['placeholder'] or args.placeholder
    else:
        groups = [g for g in args.groups.split(',') if g]
        unknown = set(groups) - set(GROUPS)
        if unknown:
            parser.error('unknown groups: ' + ', '.join(sorted(unknown)))
        rounds = args.rounds or (QUICK_ROUNDS if args.quick else DEFAULT_ROUNDS)
        sample_ms = args.sample_ms or (QUICK_SAMPLE_MS if args.quick else DEFAULT_SAMPLE_MS)
        iterations = args.iterations or (QUICK_ITERATIONS if args.quick else DEFAULT_ITERATIONS)
        with tempfile.TemporaryDirectory(dir=args.dir) as directory:
            cases = build_cases(groups, args.quick, iterations, directory)
            results = []
            for case in cases:
                print('..', case.group, case.label, file=sys.stderr, flush=True)
                check(case)
                results.append(measure(case, rounds, sample_ms))
        wanted = {'cryptography': 'cryptography', 'PyCryptodome': 'Crypto', 'polars-hash': 'polars_hash'}
        wanted.update({'DuckDB': 'duckdb'})
        missing = [label for label, module in wanted.items() if optional_import(module) is None]
        missing += [tool for tool in ('sha256sum', 'openssl') if shutil.which(tool) is None]
        run = {
            'cpu': read_cpu(),
            'versions': versions(),
            'date': datetime.date.today().isoformat(),
            'command': 'python benchmarks/bench_compare.py ' + ' '.join(sys.argv[1:] if argv is None else argv),
            'groups': groups,
            'rounds': rounds,
            'placeholder': args.placeholder,
            'missing': missing,
            'results': results,
        }
    if args.json:
        with open(args.json, 'w', encoding='utf-8') as f:
            json.dump(run, f, indent=1)
    if args.charts:
        for group in run['groups']:
            if any(r['group'] == group for r in run['results']):
                with open(os.path.join(args.charts, 'compare-%s.svg' % group), 'w', encoding='utf-8') as f:
                    f.write(svg_chart(run, group))
    report = markdown(run)
    if args.page:
        replace_region(args.page, report)
    print(report)
    return 0


if __name__ == '__main__':
    sys.exit(main())
