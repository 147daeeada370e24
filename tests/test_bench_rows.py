"""benchmarks/bench_rows.py runs: its cases at a small size, its Markdown, its SVG chart, one peak-memory
subprocess, and its digest_rows cases once fastdigest has digest_rows (stood in for here by a function of the same
signature, so the script is ready for it). No figure is checked: timing belongs to the benchmark's own runs.
"""

import importlib.util
from pathlib import Path
from xml.etree import ElementTree

import pytest

import fastdigest

pa = pytest.importorskip('pyarrow', reason='pyarrow (test extra) is not installed or has no wheel here')
pytest.importorskip('numpy', reason='numpy (test extra) is not installed or has no wheel here')
pytest.importorskip('duckdb', reason='duckdb (test extra) is not installed or has no wheel here')

SCRIPT = Path(__file__).resolve().parent.parent / 'benchmarks' / 'bench_rows.py'
if not SCRIPT.exists():
    pytest.skip(
        'the benchmarks are not beside these tests (a copy of tests/ run against an installed package): the run in '
        'the checkout checks the script',
        allow_module_level=True,
    )


@pytest.fixture(scope='module')
def bench():
    spec = importlib.util.spec_from_file_location('bench_rows', SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_small_run_with_chart(bench, tmp_path, capsys):
    chart = tmp_path / 'rows.svg'
    assert (
        bench.main(['--rows', '3000,4000', '--rounds', '1', '--loop-rows', '100', '--no-memory', '--chart', str(chart)])
        == 0
    )
    out = capsys.readouterr().out
    assert 'surrogate_key vs duckdb dbt SQL' in out and '| 3,000 |' in out and '| 4,000 |' in out
    svg = ElementTree.parse(chart).getroot()
    texts = [t.text for t in svg.iter('{http://www.w3.org/2000/svg}text')]
    assert 'surrogate_key' in texts and 'duckdb dbt SQL' in texts and '3,000 rows' in texts
    if not hasattr(fastdigest, 'digest_rows'):
        assert 'digest_rows' not in texts


def test_digest_rows_cases_run_when_it_exists(bench, monkeypatch, capsys):
    def digest_rows(name, table, columns=None, *, hex=False, threads=None):
        column = pa.chunked_array(table.column(columns[0])).cast(pa.string())
        return fastdigest.digest_array(name, column, hex=hex, threads=threads)

    monkeypatch.setattr(fastdigest, 'digest_rows', digest_rows, raising=False)
    result = bench.run(2000, 1, 100, lambda message: None)
    assert result['rows_per_second']['digest_rows'] > 0
    assert result['rows_per_second']['digest_rows threads=1'] > 0
    assert result['ratios']['digest_rows vs duckdb sha256'] is not None


def test_peak_memory_subprocess(bench):
    measured = bench.measure_memory(['surrogate_key'], 5000, 100, lambda message: None)
    assert len(measured) == 1 and 'error' not in measured[0], measured
    # 5,000 keys of 32 hex characters, and their offsets.
    assert 5000 * 36 <= measured[0]['result'] <= 5000 * 36 + 8
    assert measured[0]['growth'] >= 0
