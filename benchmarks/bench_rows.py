#!/usr/bin/env python3
"""Benchmark hashing whole rows: fastdigest.surrogate_key, digest_rows and digest_array against engines.

Usage:
    python benchmarks/bench_rows.py                          # 1,000,000 and 10,000,000 rows
    python benchmarks/bench_rows.py --chart FILE.svg         # and an SVG chart of rows per second
    python benchmarks/bench_rows.py --rows 1000000 --rounds 5 --no-memory
    python benchmarks/bench_rows.py --quick                  # 50,000 rows, 2 rounds: a smoke run
    python benchmarks/bench_rows.py --json

Two tables, generated once per size (seeded, numpy buffers):

  keys      ROWS rows of (s: ASCII strings of 8 to 32 bytes, 2% null; i: int64 over its whole
            range; d: date32 from 1990 to 2029), keyed on ['s', 'i', 'd'] as dbt's
            generate_surrogate_key(['s', 'i', 'd']) does, to lowercase hex MD5
  int64     ROWS rows of one int64 column x over its whole range, to hex SHA-256

The cases, each from the form its library holds the table in (made before timing) to a column of
digests:

  surrogate_key              fastdigest.surrogate_key(table, ['s', 'i', 'd']), imported back with
                             pa.chunked_array() (no copy), on its default threads (one per CPU the
                             process may run on); and with threads=1
  duckdb dbt SQL             the SQL dbt compiles for DuckDB, over the table registered in DuckDB
                             (no copy), fetched as an Arrow table:
                             md5(cast(coalesce(cast(s as TEXT), '_dbt_utils_surrogate_key_null_')
                             || '-' || ... as TEXT)), on DuckDB's default threads (the machine's
                             cores); and on a connection with SET threads = 1
  pandas + hashlib loop      df.apply(lambda r: hashlib.md5('-'.join(...)).hexdigest(), axis=1) over
                             a pandas DataFrame: measured on --loop-rows rows (default 100,000) and
                             reported as rows per second of that run, which the ratios scale to ROWS
  digest_rows / digest_array fastdigest.digest_rows('sha256', table, ['x'], hex=True) and
                             digest_array('sha256', table['x'], hex=True): their own encoding of the
                             int64 (not its text), on default threads and threads=1; each only where
                             this fastdigest has it (digest_rows) or takes int64 (digest_array)
  duckdb sha256              sha256(cast(x as varchar)), default threads and threads=1
  polars-hash                pl.DataFrame.select(polars_hash.col('x').chash.sha2_256()) where
                             polars-hash takes an int64 column (one thread: polars fixes its pool at
                             import)

Method: all cases of one table run in one process, one untimed round first, then interleaved
rounds whose order rotates; wall clock (the engines' threads would not show in this thread's CPU
time), the garbage collector off while timing, each result dropped before the next case. Reported:
the median per case as rows per second, and the median over rounds of each per-round ratio.

Peak memory (unless --no-memory): each case runs once more in a process of its own, after the
table is built and every library imported; Linux's peak resident set is reset then
(/proc/self/clear_refs) and read after the case (VmHWM), with the result still held. Reported:
that growth, the result's own size (its Arrow buffers) and the difference, the case's working set.
Where the peak cannot be reset (not Linux), resource.getrusage's peak is used, which also counts
the table's construction: the script says which.

Targets (issue 27): surrogate_key >= 3x DuckDB running dbt's SQL and >= 50x the pandas loop;
digest_rows and digest_array >= 3x DuckDB's sha256(cast(x as varchar)) and polars-hash. The CPU is
named beside the figures (model name, family, model), with Python and OpenSSL.

--chart PATH writes an SVG (no dependency): rows per second, by case and row count, log scale.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import os
import platform
import ssl
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

import fastdigest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402  (the sibling script: its reading of /proc/cpuinfo)

try:
    import numpy as np
    import pyarrow as pa
except ImportError as error:  # pragma: no cover
    sys.exit('bench_rows.py needs pyarrow and numpy (the bench-columns extra): %s' % error)

DEFAULT_ROWS = (1_000_000, 10_000_000)
QUICK_ROWS = (50_000,)
DEFAULT_ROUNDS = 5
QUICK_ROUNDS = 2
DEFAULT_LOOP_ROWS = 100_000
QUICK_LOOP_ROWS = 2_000
TOKEN = '_dbt_utils_surrogate_key_null_'
KEY_COLUMNS = ['s', 'i', 'd']
ENGINE_TARGET = 3.0  # surrogate_key against DuckDB; digest_rows/digest_array against DuckDB and polars-hash
LOOP_TARGET = 50.0  # surrogate_key against the pandas loop

KEY_CASES = (
    'surrogate_key',
    'surrogate_key threads=1',
    'duckdb dbt SQL',
    'duckdb dbt SQL threads=1',
    'pandas + hashlib loop',
)
INT64_CASES = (
    'digest_rows',
    'digest_rows threads=1',
    'digest_array',
    'digest_array threads=1',
    'duckdb sha256',
    'duckdb sha256 threads=1',
    'polars-hash',
)
LOOP_CASE = 'pandas + hashlib loop'


# ---- the machine ----------------------------------------------------------------------------------------


def read_cpu() -> dict[str, Any]:
    """The CPU's model, family and model number, kernel-picking flags and logical CPUs (bench_columns.py
    takes it from here)."""
    fields = bench.read_cpuinfo()
    cpu: dict[str, Any] = {'model name': fields.get('model name') or platform.processor() or platform.machine()}
    cpu.update({key: fields[key] for key in ('cpu family', 'model') if key in fields})
    flags = set(fields.get('flags', '').split())
    cpu['flags'] = [f for f in ('sha_ni', 'avx2', 'avx512f', 'avx512bw') if f in flags]
    cpu['logical cpus'] = os.cpu_count()
    return cpu


def describe_cpu(cpu: dict[str, Any]) -> str:
    text = cpu['model name']
    if 'cpu family' in cpu:
        text += ' (family %s, model %s)' % (cpu['cpu family'], cpu['model'])
    return '%s, %s logical CPUs, %s' % (text, cpu['logical cpus'], ' '.join(cpu['flags']) or 'no SHA/AVX flags')


def optional_import(name: str) -> Any | None:
    try:
        return __import__(name)
    except ImportError:
        return None


def versions() -> dict[str, str]:
    found = {'python': platform.python_version(), 'openssl': ssl.OPENSSL_VERSION, 'pyarrow': pa.__version__}
    for name in ('duckdb', 'pandas', 'polars', 'polars_hash'):
        module = optional_import(name)
        if module is not None:
            found[name] = getattr(module, '__version__', '?')
    return found


# ---- the tables -----------------------------------------------------------------------------------------


def key_table(rows: int, seed: int = 27) -> pa.Table:
    """(s, i, d): strings of 8..32 ASCII bytes with 2% nulls, int64 over its range, dates 1990-2029."""
    rng = np.random.default_rng(seed)
    lengths = rng.integers(8, 33, size=rows, dtype=np.int32)
    offsets = np.zeros(rows + 1, dtype=np.int32)
    np.cumsum(lengths, out=offsets[1:])
    data = rng.integers(ord('a'), ord('z') + 1, size=int(offsets[-1]), dtype=np.uint8)
    valid = rng.random(rows) >= 0.02
    bitmap = np.packbits(valid, bitorder='little')
    strings = pa.StringArray.from_buffers(
        rows, pa.py_buffer(offsets), pa.py_buffer(data), pa.py_buffer(bitmap), int(rows - valid.sum())
    )
    ints = pa.array(
        rng.integers(np.iinfo(np.int64).min, np.iinfo(np.int64).max, size=rows, dtype=np.int64, endpoint=True)
    )
    first, last = 7305, 21914  # 1990-01-01 and 2029-12-31, in days from 1970-01-01
    dates = pa.array(rng.integers(first, last + 1, size=rows, dtype=np.int32)).cast(pa.date32())
    return pa.table({'s': strings, 'i': ints, 'd': dates})


def int64_table(rows: int, seed: int = 64) -> pa.Table:
    rng = np.random.default_rng(seed)
    values = rng.integers(np.iinfo(np.int64).min, np.iinfo(np.int64).max, size=rows, dtype=np.int64, endpoint=True)
    return pa.table({'x': pa.array(values)})


def dbt_duckdb_sql(columns: Sequence[str]) -> str:
    """What dbt compiles dbt_utils.generate_surrogate_key(columns) to on DuckDB (dbt's string type TEXT)."""
    fields = ["coalesce(cast(%s as TEXT), '%s')" % (c, TOKEN) for c in columns]
    return 'SELECT md5(cast(%s as TEXT)) FROM t' % " || '-' || ".join(fields)


def pandas_key(row: Any) -> str:
    """The row loop a pandas user writes (issue 27's df.apply line, with dbt's null token)."""
    import pandas as pd

    return hashlib.md5('-'.join(TOKEN if pd.isna(v) else str(v) for v in row).encode()).hexdigest()


# ---- the cases ------------------------------------------------------------------------------------------


def duckdb_runner(table: pa.Table, query: str, threads: int | None) -> Callable[[], Any] | None:
    duckdb = optional_import('duckdb')
    if duckdb is None:
        return None
    con = duckdb.connect()
    if threads is not None:
        con.execute('SET threads = %d' % threads)
    con.register('t', table)
    relation = con.sql(query)
    # The relation API: DuckDB 1.4+ warns that a DB-API cursor's Arrow output copies the rows.
    fetch = 'to_arrow_table' if hasattr(relation, 'to_arrow_table') else 'arrow'
    return lambda: getattr(con.sql(query), fetch)()


def takes(function: Callable[[], Any]) -> bool:
    """Whether a case runs at all here (digest_array of an int64 before it takes int64, polars-hash)."""
    try:
        function()
    except (TypeError, ValueError, AttributeError, NotImplementedError) as error:
        print('.. skipped: %s' % error, file=sys.stderr)
        return False
    except Exception as error:  # polars raises its own exception types
        print('.. skipped: %s: %s' % (type(error).__name__, error), file=sys.stderr)
        return False
    return True


def key_cases(table: pa.Table, loop_rows: int) -> dict[str, Callable[[], Any]]:
    cases: dict[str, Callable[[], Any]] = {
        'surrogate_key': lambda: pa.chunked_array(fastdigest.surrogate_key(table, KEY_COLUMNS)),
        'surrogate_key threads=1': lambda: pa.chunked_array(fastdigest.surrogate_key(table, KEY_COLUMNS, threads=1)),
    }
    for name, threads in (('duckdb dbt SQL', None), ('duckdb dbt SQL threads=1', 1)):
        runner = duckdb_runner(table, dbt_duckdb_sql(KEY_COLUMNS), threads)
        if runner is not None:
            cases[name] = runner
    if optional_import('pandas') is not None:
        frame = table.slice(0, loop_rows).to_pandas()
        cases[LOOP_CASE] = lambda: frame.apply(pandas_key, axis=1)
    return cases


def int64_cases(table: pa.Table) -> dict[str, Callable[[], Any]]:
    column = table.column('x')
    small = table.slice(0, 3)
    cases: dict[str, Callable[[], Any]] = {}
    digest_rows = getattr(fastdigest, 'digest_rows', None)
    if digest_rows is not None and takes(lambda: digest_rows('sha256', small, ['x'], hex=True)):
        cases['digest_rows'] = lambda: pa.chunked_array(digest_rows('sha256', table, ['x'], hex=True))
        cases['digest_rows threads=1'] = lambda: pa.chunked_array(
            digest_rows('sha256', table, ['x'], hex=True, threads=1)
        )
    elif digest_rows is None:
        print('.. skipped digest_rows: this fastdigest has none', file=sys.stderr)
    if takes(lambda: fastdigest.digest_array('sha256', small.column('x'), hex=True)):
        cases['digest_array'] = lambda: pa.chunked_array(fastdigest.digest_array('sha256', column, hex=True))
        cases['digest_array threads=1'] = lambda: pa.chunked_array(
            fastdigest.digest_array('sha256', column, hex=True, threads=1)
        )
    for name, threads in (('duckdb sha256', None), ('duckdb sha256 threads=1', 1)):
        runner = duckdb_runner(table, 'SELECT sha256(cast(x as varchar)) FROM t', threads)
        if runner is not None:
            cases[name] = runner
    pl, plh = optional_import('polars'), optional_import('polars_hash')
    if pl is not None and plh is not None:
        frame = pl.from_arrow(table)
        expression = plh.col('x').chash.sha2_256()
        if takes(lambda: frame.head(3).select(expression)):
            cases['polars-hash'] = lambda: frame.select(expression)
    elif plh is None:
        print('.. skipped polars-hash: not installed (pip install polars-hash)', file=sys.stderr)
    return cases


def check_agreement(table: pa.Table, cases: dict[str, Callable[[], Any]]) -> None:
    """surrogate_key's first keys equal DuckDB's (dbt's SQL) and the pandas loop's."""
    head = table.slice(0, 50)
    ours = pa.chunked_array(fastdigest.surrogate_key(head, KEY_COLUMNS)).to_pylist()
    runner = duckdb_runner(head, dbt_duckdb_sql(KEY_COLUMNS), None)
    if runner is not None:
        assert runner().column(0).to_pylist() == ours, 'surrogate_key disagrees with DuckDB running dbt SQL'
    if LOOP_CASE in cases:
        assert head.to_pandas().apply(pandas_key, axis=1).tolist() == ours, 'the pandas loop disagrees'


# ---- timing ---------------------------------------------------------------------------------------------


def time_cases(cases: dict[str, Callable[[], Any]], rounds: int, progress: Callable[[str], None], label: str):
    times: dict[str, list[float]] = {case: [] for case in cases}
    order = list(cases)
    for case in order:  # untimed: first use of memory and of each library's code
        result = cases[case]()
        del result
    for round_index in range(rounds):
        progress('%s: round %d/%d' % (label, round_index + 1, rounds))
        for case in order:
            gc.collect()
            gc.disable()
            start = time.perf_counter()
            result = cases[case]()
            elapsed = time.perf_counter() - start
            gc.enable()
            del result
            times[case].append(elapsed)
        order = order[1:] + order[:1]
    return times


def ratio(times: dict[str, list[float]], slower: str, faster: str, scale: float = 1.0) -> float | None:
    """The median of per-round ratios (slower's time, times scale, over faster's)."""
    pairs = list(zip(times.get(slower, []), times.get(faster, []), strict=False))
    return statistics.median(s * scale / f for s, f in pairs) if pairs else None


def run(rows: int, rounds: int, loop_rows: int, progress: Callable[[str], None]) -> dict[str, Any]:
    loop_rows = min(loop_rows, rows)
    keys = key_table(rows)
    cases = key_cases(keys, loop_rows)
    check_agreement(keys, cases)
    key_times = time_cases(cases, rounds, progress, 'keys, %d rows' % rows)
    del cases, keys
    ints = int64_table(rows)
    cases = int64_cases(ints)
    int_times = time_cases(cases, rounds, progress, 'int64, %d rows' % rows) if cases else {}
    del cases, ints
    times = {**key_times, **int_times}
    rates = {case: (loop_rows if case == LOOP_CASE else rows) / statistics.median(t) for case, t in times.items()}
    loop_scale = rows / loop_rows
    return {
        'rows': rows,
        'loop_rows': loop_rows,
        'rounds': rounds,
        'rows_per_second': rates,
        'ratios': {
            'surrogate_key vs duckdb dbt SQL': ratio(times, 'duckdb dbt SQL', 'surrogate_key'),
            'surrogate_key threads=1 vs duckdb threads=1': ratio(
                times, 'duckdb dbt SQL threads=1', 'surrogate_key threads=1'
            ),
            'surrogate_key vs pandas loop': ratio(times, LOOP_CASE, 'surrogate_key', loop_scale),
            'surrogate_key threads=1 vs pandas loop': ratio(times, LOOP_CASE, 'surrogate_key threads=1', loop_scale),
            'digest_rows vs duckdb sha256': ratio(times, 'duckdb sha256', 'digest_rows'),
            'digest_rows threads=1 vs duckdb threads=1': ratio(
                times, 'duckdb sha256 threads=1', 'digest_rows threads=1'
            ),
            'digest_rows vs polars-hash': ratio(times, 'polars-hash', 'digest_rows'),
            'digest_array vs duckdb sha256': ratio(times, 'duckdb sha256', 'digest_array'),
            'digest_array threads=1 vs duckdb threads=1': ratio(
                times, 'duckdb sha256 threads=1', 'digest_array threads=1'
            ),
            'digest_array vs polars-hash': ratio(times, 'polars-hash', 'digest_array'),
        },
    }


TARGETS = {
    'surrogate_key vs duckdb dbt SQL': ENGINE_TARGET,
    'surrogate_key vs pandas loop': LOOP_TARGET,
    'digest_rows vs duckdb sha256': ENGINE_TARGET,
    'digest_rows vs polars-hash': ENGINE_TARGET,
    'digest_array vs duckdb sha256': ENGINE_TARGET,
    'digest_array vs polars-hash': ENGINE_TARGET,
}


# ---- memory ---------------------------------------------------------------------------------------------


def read_status(field: str) -> int | None:
    """A field of /proc/self/status in bytes (VmRSS, VmHWM), None where there is none."""
    try:
        with open('/proc/self/status', encoding='ascii') as status:
            for line in status:
                if line.startswith(field + ':'):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def reset_peak() -> bool:
    """Linux 4.0+: the peak resident set (VmHWM) reset to the current one."""
    try:
        with open('/proc/self/clear_refs', 'w', encoding='ascii') as clear_refs:
            clear_refs.write('5')
        return True
    except OSError:
        return False


def result_bytes(result: Any) -> int:
    if hasattr(result, 'nbytes'):
        try:
            return int(result.nbytes)
        except Exception:
            return 0
    if hasattr(result, 'memory_usage'):  # a pandas Series of str objects
        return int(result.memory_usage(deep=True))
    if hasattr(result, 'estimated_size'):  # polars
        return int(result.estimated_size())
    return 0


def measure_memory_here(case: str, rows: int, loop_rows: int) -> dict[str, Any]:
    """In the subprocess: build the table and the cases, then run one case once under a fresh peak."""
    table = key_table(rows) if case in KEY_CASES else int64_table(rows)
    cases = key_cases(table, min(loop_rows, rows)) if case in KEY_CASES else int64_cases(table)
    if case not in cases:
        return {'case': case, 'skipped': True}
    gc.collect()
    import resource

    exact = reset_peak()
    before = read_status('VmRSS') if exact else None
    if before is None:
        exact = False
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    result = cases[case]()
    peak = read_status('VmHWM') if exact else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    growth = max(0, (peak or 0) - before)
    own = result_bytes(result)
    return {
        'case': case,
        'rows': loop_rows if case == LOOP_CASE else rows,
        'growth': growth,
        'result': own,
        'working_set': growth - own,
        'exact': exact,
    }


def measure_memory(
    cases: Sequence[str], rows: int, loop_rows: int, progress: Callable[[str], None]
) -> list[dict[str, Any]]:
    out = []
    for case in cases:
        progress('memory, %d rows: %s' % (rows, case))
        command = [
            sys.executable,
            os.path.abspath(__file__),
            '--memory-case',
            case,
            '--rows',
            str(rows),
            '--loop-rows',
            str(loop_rows),
        ]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            out.append({'case': case, 'rows': rows, 'error': done.stderr.strip().splitlines()[-1:]})
            continue
        measured = json.loads(done.stdout)
        if not measured.get('skipped'):
            out.append(measured)
    return out


# ---- output ---------------------------------------------------------------------------------------------


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


def fmt_mb(count: int) -> str:
    return '%.1f MB' % (count / 1e6)


def markdown(
    results: list[dict[str, Any]], memory: list[dict[str, Any]], cpu: dict[str, Any], found: dict[str, str]
) -> str:
    rounds = results[0]['rounds'] if results else 0
    lines = [
        'CPU: %s; %s; %d interleaved rounds, wall-clock medians.'
        % (describe_cpu(cpu), ', '.join('%s %s' % item for item in found.items()), rounds),
        '',
    ]
    for title, names in (
        ('Keys: (string, int64, date) to hex MD5', KEY_CASES),
        ('One int64 column to hex SHA-256', INT64_CASES),
    ):
        present = [n for n in names if any(n in r['rows_per_second'] for r in results)]
        if not present:
            continue
        lines += [
            '%s, rows per second:' % title,
            '',
            '| rows | ' + ' | '.join(present) + ' |',
            '|---:|' + '---:|' * len(present),
        ]
        for r in results:
            cells = [fmt_rate(r['rows_per_second'].get(n)) for n in present]
            lines.append('| %s | %s |' % ('{:,}'.format(r['rows']), ' | '.join(cells)))
        lines.append('')
    if results and LOOP_CASE in results[0]['rows_per_second']:
        lines += [
            'The pandas loop ran on %s rows of each table (its rate there); the ratios scale its time to the '
            'table.' % ', '.join('{:,}'.format(r['loop_rows']) for r in results),
            '',
        ]
    names = [n for n in results[0]['ratios'] if any(r['ratios'][n] is not None for r in results)] if results else []
    if names:
        lines += ['| rows | ' + ' | '.join(names) + ' |', '|---:|' + '---:|' * len(names)]
        for r in results:
            cells = [fmt_ratio(r['ratios'][n], TARGETS.get(n)) for n in names]
            lines.append('| %s | %s |' % ('{:,}'.format(r['rows']), ' | '.join(cells)))
        lines.append('')
    if memory:
        exact = all(m.get('exact') for m in memory if 'growth' in m)
        lines += [
            'Peak memory, each case alone in a fresh process: growth of the resident set during the call (%s), '
            "the result's own buffers, and the difference:"
            % ('Linux VmHWM after resetting it' if exact else 'getrusage peak, which counts the table too'),
            '',
            '| case | rows | peak growth | result | working set |',
            '|---|---:|---:|---:|---:|',
        ]
        for m in memory:
            if 'error' in m:
                lines.append(
                    '| %s | %s | failed: %s | | |' % (m['case'], '{:,}'.format(m['rows']), ' '.join(m['error']))
                )
            else:
                lines.append(
                    '| %s | %s | %s | %s | %s |'
                    % (
                        m['case'],
                        '{:,}'.format(m['rows']),
                        fmt_mb(m['growth']),
                        fmt_mb(m['result']),
                        fmt_mb(m['working_set']),
                    )
                )
    return '\n'.join(lines)


COLORS = ('#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#76b7b2')


def svg_chart(results: list[dict[str, Any]], cpu: dict[str, Any], found: dict[str, str]) -> str:
    """Rows per second by case (one group each) and row count (one bar each), on a log scale."""
    from xml.sax.saxutils import escape

    sections = [
        (title, [c for c in names if any(c in r['rows_per_second'] for r in results)])
        for title, names in (
            ('Keys of (string, int64, date), hex MD5', KEY_CASES),
            ('One int64 column, hex SHA-256', INT64_CASES),
        )
    ]
    sections = [(title, cases) for title, cases in sections if cases]
    sizes = [r['rows'] for r in results]
    rates = [rate for r in results for rate in r['rows_per_second'].values()]
    high = max([x for x in rates if x] or [1.0])
    decades = list(range(4, max(5, int(np.ceil(np.log10(high)))) + 1))  # 10k rows/s up
    left, width, bar, gap, top, heading = 250, 520, 12, 10, 60, 22
    group = bar * len(sizes) + gap
    height = top + sum(heading + group * len(cases) for _, cases in sections) + 50

    def x(rate: float) -> float:
        low_decade, high_decade = decades[0], decades[-1]
        value = min(max(np.log10(rate), low_decade), high_decade)
        return left + (value - low_decade) / (high_decade - low_decade) * width

    out = [
        '<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="11">'
        % (left + width + 80, height),
        '<rect width="100%" height="100%" fill="white"/>',
        '<text x="10" y="18" font-size="13" font-weight="bold">Rows per second (log scale), by case and row count</text>',
        '<text x="10" y="34">%s</text>' % escape(describe_cpu(cpu)),
        '<text x="10" y="48">Python %s, %s</text>' % (escape(found['python']), escape(found['openssl'])),
    ]
    for d in decades:
        px = x(10.0**d)
        label = {4: '10k', 5: '100k', 6: '1M', 7: '10M', 8: '100M', 9: '1G'}.get(d, '1e%d' % d)
        out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/>' % (px, top, px, height - 40))
        out.append('<text x="%.1f" y="%d" text-anchor="middle" fill="#555">%s</text>' % (px, height - 28, label))
    y0 = top
    for title, cases in sections:
        out.append('<text x="10" y="%d" font-weight="bold">%s</text>' % (y0 + 14, escape(title)))
        y0 += heading
        for case in cases:
            label = case + (' *' if case == LOOP_CASE else '')
            out.append(
                '<text x="%d" y="%d" text-anchor="end">%s</text>'
                % (left - 6, y0 + bar * len(sizes) / 2 + 4, escape(label))
            )
            for j, r in enumerate(results):
                rate = r['rows_per_second'].get(case)
                if not rate:
                    continue
                y = y0 + j * bar
                out.append(
                    '<rect x="%d" y="%d" width="%.1f" height="%d" fill="%s"/>'
                    % (left, y, x(rate) - left, bar - 2, COLORS[j % len(COLORS)])
                )
                out.append(
                    '<text x="%.1f" y="%d" fill="#333">%s</text>' % (x(rate) + 4, y + bar - 3, escape(fmt_rate(rate)))
                )
            y0 += group
    legend_y = height - 10
    for j, rows in enumerate(sizes):
        lx = left + j * 130
        out.append(
            '<rect x="%d" y="%d" width="10" height="10" fill="%s"/>' % (lx, legend_y - 9, COLORS[j % len(COLORS)])
        )
        out.append('<text x="%d" y="%d">%s rows</text>' % (lx + 14, legend_y, f'{rows:,}'))
    if any(LOOP_CASE in cases for _, cases in sections):
        out.append(
            '<text x="10" y="%d" fill="#555">* measured on %s rows</text>'
            % (legend_y, '{:,}'.format(results[0]['loop_rows']))
        )
    out.append('</svg>')
    return '\n'.join(out) + '\n'


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument(
        '--rows',
        type=lambda s: [int(x) for x in s.split(',')],
        default=None,
        help='comma-separated row counts (default 1000000,10000000)',
    )
    parser.add_argument('--rounds', type=int, default=None)
    parser.add_argument(
        '--loop-rows',
        type=int,
        default=None,
        help='rows the pandas loop runs on (default 100000), its rate scaled to the table',
    )
    parser.add_argument('--quick', action='store_true', help='50,000 rows, 2 rounds, a 2,000-row loop')
    parser.add_argument('--no-memory', action='store_true', help='skip the peak-memory subprocesses')
    parser.add_argument('--chart', metavar='PATH', help='write an SVG chart of rows per second there')
    parser.add_argument('--json', action='store_true', help='print JSON instead of Markdown')
    parser.add_argument('--memory-case', help=argparse.SUPPRESS)  # the subprocess of one memory measurement
    args = parser.parse_args(argv)
    rows_list = args.rows or (QUICK_ROWS if args.quick else DEFAULT_ROWS)
    rounds = args.rounds or (QUICK_ROUNDS if args.quick else DEFAULT_ROUNDS)
    loop_rows = args.loop_rows or (QUICK_LOOP_ROWS if args.quick else DEFAULT_LOOP_ROWS)

    if args.memory_case:
        print(json.dumps(measure_memory_here(args.memory_case, rows_list[0], loop_rows)))
        return 0

    def progress(message: str) -> None:
        print('..', message, file=sys.stderr, flush=True)

    cpu, found = read_cpu(), versions()
    results = [run(rows, rounds, loop_rows, progress) for rows in rows_list]
    memory: list[dict[str, Any]] = []
    if not args.no_memory:
        for r in results:
            present = [c for c in KEY_CASES + INT64_CASES if c in r['rows_per_second']]
            memory += measure_memory(present, r['rows'], loop_rows, progress)
    if args.chart:
        with open(args.chart, 'w', encoding='utf-8') as chart:
            chart.write(svg_chart(results, cpu, found))
        progress('chart written to %s' % args.chart)
    if args.json:
        print(json.dumps({'cpu': cpu, 'versions': found, 'results': results, 'memory': memory}, indent=2))
    else:
        print(markdown(results, memory, cpu, found))
    return 0


if __name__ == '__main__':
    sys.exit(main())
