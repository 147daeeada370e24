"""benchmarks/bench_compare.py runs: a short run of two of its groups writes its SVG charts, fills the page's
region and its JSON, which --from-json reports again unchanged; and it refuses to time an alternative whose
result differs from fastdigest's. The figures themselves are the benchmark's business, not the suite's."""

import importlib.util
import json
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / 'benchmarks' / 'bench_compare.py'


@pytest.fixture(scope='module')
def bench_compare():
    if not SCRIPT.exists():
        pytest.skip('the tests run away from the source tree (against a wheel): no benchmarks/ folder')
    spec = importlib.util.spec_from_file_location('bench_compare', SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules['bench_compare'] = module
    spec.loader.exec_module(module)
    return module


def test_a_short_run_writes_charts_page_and_json(bench_compare, tmp_path, capsys):
    page = tmp_path / 'page.md'
    page.write_text('# Lead\n\n%s\nold figures\n%s\n\nafter\n' % (bench_compare.MARKER_BEGIN, bench_compare.MARKER_END))
    results = tmp_path / 'run.json'
    arguments = ['--groups', 'hmac,many', '--quick', '--rounds', '1', '--sample-ms', '0.2', '--placeholder']
    arguments += ['--charts', str(tmp_path), '--page', str(page), '--json', str(results)]
    assert bench_compare.main(arguments) == 0
    report = capsys.readouterr().out

    for group in ('hmac', 'many'):
        chart = ElementTree.parse(tmp_path / f'compare-{group}.svg').getroot()
        texts = [element.text or '' for element in chart.iter('{http://www.w3.org/2000/svg}text')]
        assert any('PLACEHOLDER' in text for text in texts)
        assert any(text.startswith('hmac ') or text.startswith('hmac loop ') for text in texts)
    text = page.read_text()
    assert 'old figures' not in text and text.startswith('# Lead\n') and text.endswith('\nafter\n')
    assert 'HMAC-SHA-256 of 64 B' in text and '![HMAC in one call' in text and 'Placeholder figures' in text

    run = json.loads(results.read_text())
    assert {r['group'] for r in run['results']} == {'hmac', 'many'}
    assert all(r['ratio'] and all(value > 0 for value in r['ratio'].values()) for r in run['results'])
    assert bench_compare.main(['--from-json', str(results)]) == 0
    assert capsys.readouterr().out == report


def test_a_wrong_result_is_not_timed(bench_compare):
    case = bench_compare.Case('hashing', 'SHA-256 of 3 B', 'call')
    case.add(bench_compare.FASTDIGEST, lambda: bytes(32))
    case.add('hashlib', lambda: bytes(31) + b'\x01')
    with pytest.raises(SystemExit, match='hashlib gives another result than fastdigest'):
        bench_compare.check(case)
