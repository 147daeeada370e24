#!/usr/bin/env python3
"""Benchmark hashing a column of strings: fastdigest.digest_array against what people use today.

Usage:
    python benchmarks/bench_columns.py                     # 1,000,000 and 10,000,000 rows, SHA-256 and MD5
    python benchmarks/bench_columns.py --rows 1000000 --rounds 5 --algorithms sha256
    python benchmarks/bench_columns.py --quick             # 200,000 rows, 2 rounds: a smoke run
    python benchmarks/bench_columns.py --json

The column: ROWS random ASCII strings of 8 to 64 bytes (uniform), one pyarrow utf8 array, generated
once per size (seeded). Each case hashes the whole column, from the form its library holds it in
(made before timing), to a column of digests:

  digest_array           fastdigest.digest_array(name, array), imported back with pa.array() (no
                         copy): fixed_size_binary digests, on its default threads (one per CPU
                         the process may run on)
  digest_array hex       the same with hex=True: utf8 lowercase hex
  digest_array threads=1 / digest_array hex threads=1
                         the same two on the calling thread alone
  polars-hash            pl.DataFrame.select(polars_hash.col("s").chash.sha2_256()) (MD5:
                         .nchash.md5()), hex out (PyPI polars-hash, Rust)
  duckdb                 con.sql("SELECT sha256(s) FROM t") / md5(s) over the array registered in
                         DuckDB (no copy), fetched as an Arrow table; hex out. DuckDB runs its default threads (the machine's
                         cores), as digest_array does; the rest run on one
  pandas map             series.map(lambda v: hashlib.sha256(v.encode()).hexdigest()) over a pandas
                         Series of the strings (pandas' default string dtype): the line this replaces
  hashlib loop           [hashlib.sha256(b).digest() for b in blobs] over a ready list of bytes
  digest_many            fastdigest.digest_many(name, blobs) over the same list

Method: all cases run in one process, one untimed round first, then interleaved rounds whose order
rotates; the time is wall
clock (DuckDB's threads would not show in the calling thread's CPU time), the garbage collector off
while timing; each case's result is dropped before the next starts. Reported: the median per case,
as rows per second, and the median over rounds of each per-round ratio. The Python loops (pandas map,
hashlib loop, digest_many) take seconds at 10,000,000 rows: --slow-rounds (default 3) of them there.
Targets: hex digest_array >= 3x polars-hash and DuckDB; binary digest_array >= 15x the hashlib loop.
The second table also gives what digest_array's default threads gain over threads=1.
The machine is named beside the figures (model name, family, model).
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

import fastdigest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_rows import describe_cpu, read_cpu  # noqa: E402  (the sibling script's description of the CPU)

try:
    import numpy as np
    import pyarrow as pa
except ImportError as error:  # pragma: no cover
    sys.exit('bench_columns.py needs pyarrow and numpy (the test extra): %s' % error)

DEFAULT_ROWS = (1_000_000, 10_000_000)
QUICK_ROWS = (200_000,)
DEFAULT_ROUNDS = 7
QUICK_ROUNDS = 2
DEFAULT_SLOW_ROUNDS = 3
SLOW_CASES = ('pandas map', 'hashlib loop', 'digest_many')
SLOW_ROW_THRESHOLD = 2_000_000
HEX_TARGET = 3.0  # digest_array hex against polars-hash and DuckDB
BINARY_TARGET = 15.0  # digest_array against the hashlib loop


def make_column(rows: int, seed: int = 16) -> pa.Array:
    """rows random ASCII strings of 8..64 bytes as one utf8 array, built from numpy buffers."""
    rng = np.random.default_rng(seed)
    lengths = rng.integers(8, 65, size=rows, dtype=np.int32)
    offsets = np.zeros(rows + 1, dtype=np.int32)
    np.cumsum(lengths, out=offsets[1:])
    data = rng.integers(ord('a'), ord('z') + 1, size=int(offsets[-1]), dtype=np.uint8)
    return pa.StringArray.from_buffers(rows, pa.py_buffer(offsets), pa.py_buffer(data))


def optional_import(name: str) -> Any | None:
    try:
        return __import__(name)
    except ImportError:
        return None


def make_cases(name: str, column: pa.Array, include_slow: bool) -> dict[str, Callable[[], Any]]:
    """Each case and what it holds, prepared before timing."""
    cases: dict[str, Callable[[], Any]] = {
        'digest_array': lambda: pa.array(fastdigest.digest_array(name, column)),
        'digest_array hex': lambda: pa.array(fastdigest.digest_array(name, column, hex=True)),
        'digest_array threads=1': lambda: pa.array(fastdigest.digest_array(name, column, threads=1)),
        'digest_array hex threads=1': lambda: pa.array(fastdigest.digest_array(name, column, hex=True, threads=1)),
    }
    pl = optional_import('polars')
    plh = optional_import('polars_hash')
    if pl is not None and plh is not None:
        frame = pl.DataFrame({'s': pl.Series(column)})
        expression = plh.col('s').chash.sha2_256() if name == 'sha256' else plh.col('s').nchash.md5()
        cases['polars-hash'] = lambda: frame.select(expression)
    duckdb = optional_import('duckdb')
    if duckdb is not None:
        con = duckdb.connect()
        con.register('t', pa.table({'s': column}))
        query = 'SELECT %s(s) FROM t' % name
        # The relation API: DuckDB 1.4+ warns that a DB-API cursor's Arrow output copies the rows.
        relation = con.sql(query)
        fetch = 'to_arrow_table' if hasattr(relation, 'to_arrow_table') else 'arrow'
        cases['duckdb'] = lambda: getattr(con.sql(query), fetch)()
    if include_slow:
        constructor = getattr(hashlib, name)
        pd = optional_import('pandas')
        if pd is not None:
            series = pd.Series(column.to_pylist())  # pandas' default string dtype
            cases['pandas map'] = lambda: series.map(lambda v: constructor(v.encode()).hexdigest())
        blobs = [s.encode() for s in column.to_pylist()]
        cases['hashlib loop'] = lambda: [constructor(b).digest() for b in blobs]
        cases['digest_many'] = lambda: fastdigest.digest_many(name, blobs)
    return cases


def check_agreement(name: str, column: pa.Array, cases: dict[str, Callable[[], Any]]) -> None:
    """Every case's first rows equal hashlib's (each library's own output form)."""
    head = [s.encode() for s in column.slice(0, 5).to_pylist()]
    want_hex = [hashlib.new(name, b).hexdigest() for b in head]
    want = [bytes.fromhex(h) for h in want_hex]
    small = column.slice(0, 5)
    for threads in (None, 1):
        assert pa.array(fastdigest.digest_array(name, small, threads=threads)).to_pylist() == want
        assert pa.array(fastdigest.digest_array(name, small, hex=True, threads=threads)).to_pylist() == want_hex
    if 'polars-hash' in cases:
        assert cases['polars-hash']().to_series().head(5).to_list() == want_hex, 'polars-hash disagrees'
    if 'duckdb' in cases:
        assert cases['duckdb']().column(0).slice(0, 5).to_pylist() == want_hex, 'duckdb disagrees'


def run(name: str, rows: int, rounds: int, slow_rounds: int, progress: Callable[[str], None]) -> dict[str, Any]:
    column = make_column(rows)
    cases = make_cases(name, column, include_slow=True)
    check_agreement(name, column, cases)
    times: dict[str, list[float]] = {case: [] for case in cases}
    order = list(cases)
    # One untimed round: the first use of memory (a VM's host backing it, the allocators' pools) and
    # of each library's code is no case's steady state.
    for case in order:
        del_result = cases[case]()
        del del_result
    for round_index in range(rounds):
        progress('%s %d rows: round %d/%d' % (name, rows, round_index + 1, rounds))
        for case in order:
            if case in SLOW_CASES and rows >= SLOW_ROW_THRESHOLD and round_index >= slow_rounds:
                continue
            gc.collect()
            gc.disable()
            start = time.perf_counter()
            result = cases[case]()
            elapsed = time.perf_counter() - start
            gc.enable()
            del result
            times[case].append(elapsed)
        order = order[1:] + order[:1]
    medians = {case: statistics.median(t) for case, t in times.items() if t}

    def ratio(slower: str, faster: str) -> float | None:
        # The median of per-round ratios, over the rounds both ran in.
        pairs = list(zip(times.get(slower, []), times.get(faster, []), strict=False))
        return statistics.median(s / f for s, f in pairs) if pairs else None

    return {
        'algorithm': name,
        'rows': rows,
        'bytes': int(np.frombuffer(column.buffers()[1], dtype=np.int32)[-1]),
        'rounds': {case: len(t) for case, t in times.items()},
        'median_seconds': medians,
        'rows_per_second': {case: rows / t for case, t in medians.items()},
        'hex_vs_polars_hash': ratio('polars-hash', 'digest_array hex'),
        'hex_vs_duckdb': ratio('duckdb', 'digest_array hex'),
        'binary_vs_hashlib_loop': ratio('hashlib loop', 'digest_array'),
        'binary_vs_digest_many': ratio('digest_many', 'digest_array'),
        'hex_vs_pandas_map': ratio('pandas map', 'digest_array hex'),
        'threads_vs_one': ratio('digest_array threads=1', 'digest_array'),
        'hex_threads_vs_one': ratio('digest_array hex threads=1', 'digest_array hex'),
    }


def fmt_rate(rate: float | None) -> str:
    if rate is None:
        return 'n/a'
    return '%.1f M/s' % (rate / 1e6) if rate >= 1e6 else '%.0f k/s' % (rate / 1e3)


def fmt_ratio(value: float | None, target: float | None = None) -> str:
    if value is None:
        return 'n/a'
    text = '%.1fx' % value
    if target is not None:
        text += ' (>= %gx: %s)' % (target, 'met' if value >= target else 'NOT met')
    return text


CASE_ORDER = ('digest_array', 'digest_array hex', 'digest_array threads=1', 'digest_array hex threads=1',
              'polars-hash', 'duckdb', 'pandas map', 'hashlib loop', 'digest_many')  # fmt: skip


def markdown(results: list[dict[str, Any]], cpu: dict[str, Any], rounds: int) -> str:
    lines = [
        'CPU: %s; Python %s; %d rounds (%s, slow loops fewer at 10M rows), wall clock medians.'
        % (describe_cpu(cpu), platform.python_version(), rounds, 'interleaved'),
        '',
        '| algorithm | rows | ' + ' | '.join(CASE_ORDER) + ' |',
        '|---|---:|' + '---:|' * len(CASE_ORDER),
    ]
    for r in results:
        cells = [fmt_rate(r['rows_per_second'].get(case)) for case in CASE_ORDER]
        lines.append('| %s | %s | %s |' % (r['algorithm'], '{:,}'.format(r['rows']), ' | '.join(cells)))
    lines += ['', '| algorithm | rows | hex vs polars-hash | hex vs DuckDB | binary vs hashlib loop | binary vs digest_many | hex vs pandas map | threads vs threads=1 | hex threads vs threads=1 |',
              '|---|---:|---:|---:|---:|---:|---:|---:|---:|']  # fmt: skip
    for r in results:
        lines.append(
            '| %s | %s | %s | %s | %s | %s | %s | %s | %s |'
            % (
                r['algorithm'],
                '{:,}'.format(r['rows']),
                fmt_ratio(r['hex_vs_polars_hash'], HEX_TARGET),
                fmt_ratio(r['hex_vs_duckdb'], HEX_TARGET),
                fmt_ratio(r['binary_vs_hashlib_loop'], BINARY_TARGET),
                fmt_ratio(r['binary_vs_digest_many']),
                fmt_ratio(r['hex_vs_pandas_map']),
                fmt_ratio(r['threads_vs_one']),
                fmt_ratio(r['hex_threads_vs_one']),
            )
        )
    return '\n'.join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument(
        '--rows',
        type=lambda s: [int(x) for x in s.split(',')],
        default=None,
        help='comma-separated row counts (default 1000000,10000000)',
    )
    parser.add_argument('--algorithms', default='sha256,md5', help='sha256 and/or md5 (default both)')
    parser.add_argument('--rounds', type=int, default=None)
    parser.add_argument(
        '--slow-rounds',
        type=int,
        default=DEFAULT_SLOW_ROUNDS,
        help='rounds of the Python loops at 10M rows and more (default 3)',
    )
    parser.add_argument('--quick', action='store_true', help='200,000 rows, 2 rounds')
    parser.add_argument('--json', action='store_true', help='print JSON instead of Markdown')
    args = parser.parse_args(argv)
    rows_list = args.rows or (QUICK_ROWS if args.quick else DEFAULT_ROWS)
    rounds = args.rounds or (QUICK_ROUNDS if args.quick else DEFAULT_ROUNDS)
    algorithms = args.algorithms.split(',')
    for name in algorithms:
        if name not in ('sha256', 'md5'):
            parser.error('--algorithms: sha256 or md5 (the ones every competitor has), not %r' % name)

    def progress(message: str) -> None:
        print('..', message, file=sys.stderr, flush=True)

    cpu = read_cpu()
    results = [run(name, rows, rounds, args.slow_rounds, progress) for rows in rows_list for name in algorithms]
    if args.json:
        print(json.dumps({'cpu': cpu, 'python': platform.python_version(), 'results': results}, indent=2))
    else:
        print(markdown(results, cpu, rounds))
    return 0


if __name__ == '__main__':
    sys.exit(main())
