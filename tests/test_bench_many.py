"""The benchmarks' cases of digest_many with out= and of hmac.digest_many run: benchmarks/bench_batch.py --threads
(into a list and into out=, from a list and from the rows of a NumPy array) and --long (long messages), and
benchmarks/bench_hmac.py --only digest_many, at a small size and one round each. No figure is checked: timing belongs to the benchmarks' own
runs, on an idle machine.
"""

import importlib.util
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / 'benchmarks'
if not BENCHMARKS.is_dir():
    pytest.skip(
        'the benchmarks are not beside these tests (a copy of tests/ run against an installed package): the run in '
        'the checkout checks the scripts',
        allow_module_level=True,
    )


def load(name):
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / ('%s.py' % name))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_bench_batch_threads_with_out(capsys):
    bench = load('bench_batch')
    assert bench.main(['--threads', '--messages', '3000', '--rounds', '1', '--algorithms', 'md5,sha512']) == 0
    table = capsys.readouterr().out
    assert '| out= speedup |' in table
    assert table.count('| md5 | 64 B | 3000 |') == 1


def test_bench_batch_threads_over_rows(capsys):
    pytest.importorskip('numpy', reason='numpy (with pandas, in the test-arrow extra) is not installed')
    bench = load('bench_batch')
    assert bench.main(['--threads', '--rows', '--messages', '2000', '--rounds', '1', '--algorithms', 'sha1']) == 0
    assert 'rows of a NumPy array' in capsys.readouterr().out


def test_bench_batch_long_messages(capsys):
    bench = load('bench_batch')
    assert bench.main(['--long', '--shapes', '4x70000,40x3000', '--rounds', '1', '--algorithms', 'md5,sha256']) == 0
    table = capsys.readouterr().out
    assert '| threads=None vs threads=1 |' in table
    assert table.count('| md5 | 4 x 70000 B |') == 1
    assert table.count('| sha256 | 40 x 3000 B |') == 1


def test_bench_hmac_digest_many_alone(capsys):
    bench = load('bench_hmac')
    bench.main(['--only', 'digest_many', '--quick', '--rounds', '1', '--sample-ms', '0.1', '--messages', '500'])
    table = capsys.readouterr().out
    assert 'hmac.digest_many sha256, 500 x 64 B' in table
    assert 'pbkdf2' not in table
