"""The hardening jobs, run from the suite so that the README's one test command runs them in CI.

- tests/hardening/sanitize_python.sh: the extension built with -fsanitize=address,undefined, and this
  suite run under it twice, with the best kernels and with FASTDIGEST_BACKEND=portable (the C driver's
  own sanitizer run is test_c_core.py's 'sanitize').
- tests/fuzz/run.sh: the C core's libFuzzer target (every kernel against the portable one and a
  one-shot, in update sizes the input chooses; the batch driver against single hashing), the seed
  corpus then FD_FUZZ_SECONDS (default 60) of fuzzing.
- tests/hardening/leaks.sh: the core Python tests under valgrind memcheck; any definite leak or
  memcheck error with a frame in the extension fails.

Each takes minutes; they run side by side, as many at once as there are cores (the `jobs` fixture).
Each installs its tool (clang, valgrind) with apt-get when missing: a missing tool is a failure, never
a skip. They take FASTDIGEST_BACKEND into their own hands, so the suite's
second, portable run leaves them out with the rest of the 'hardening' marker.
"""

import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

TESTS = Path(__file__).parent
FUZZ_SECONDS = os.environ.get('FD_FUZZ_SECONDS', '60')
TIMEOUT = 2400  # seconds for one job, with another beside it

pytestmark = pytest.mark.hardening

# The jobs by test, each a script and the line it ends with when it passed; the longest first.
JOBS = {
    'test_no_leaks_under_valgrind': ([TESTS / 'hardening' / 'leaks.sh'], '== leaks passed'),
    'test_suite_under_address_and_undefined_behaviour_sanitizers': (
        [TESTS / 'hardening' / 'sanitize_python.sh'],
        '== sanitize_python passed',
    ),
    'test_fuzz_core': ([TESTS / 'fuzz' / 'run.sh', FUZZ_SECONDS], '== fuzz_core passed'),
}


def run_script(arguments, build_dir):
    environment = dict(os.environ, BUILD_DIR=str(build_dir), PYTHON=sys.executable)
    # The scripts choose the backend of each of their runs.
    environment.pop('FASTDIGEST_BACKEND', None)
    return subprocess.run(
        ['bash', *map(str, arguments)], env=environment, capture_output=True, text=True, timeout=TIMEOUT
    )


@pytest.fixture(scope='module')
def jobs(request, tmp_path_factory):
    """The selected jobs, started together at the first test that needs one, as many at a time as
    there are cores: each is one mostly single-threaded process for minutes, so on CI's two cores
    the three take about half the wall time they would one after another (the suite waits for
    them meanwhile). A test then waits for its own job's result."""
    selected = [item.name for item in request.session.items if item.name in JOBS]
    pool = ThreadPoolExecutor(max_workers=max(1, min(len(selected), os.cpu_count() or 1)))
    futures = {
        name: pool.submit(run_script, JOBS[name][0], tmp_path_factory.mktemp(name[len('test_') :]))
        for name in sorted(selected, key=list(JOBS).index)
    }
    yield futures
    pool.shutdown(wait=True)


def job_output(jobs, name):
    result = jobs[name].result()
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-6000:]
    assert JOBS[name][1] in result.stdout, output[-6000:]
    return result.stdout


def test_suite_under_address_and_undefined_behaviour_sanitizers(jobs):
    output = job_output(jobs, 'test_suite_under_address_and_undefined_behaviour_sanitizers')
    # Both runs happened, and each ran the suite.
    for backend in ('best', 'portable'):
        assert f'== backend {backend}: pytest exit 0' in output, output[-6000:]
    counts = [int(count) for count in re.findall(r'^(\d+) passed', output, re.MULTILINE)]
    assert len(counts) == 2 and min(counts) > 1000, output[-6000:]


def test_fuzz_core(jobs):
    output = job_output(jobs, 'test_fuzz_core')
    assert '== seeds:' in output and '== fuzzing:' in output, output[-6000:]


def test_no_leaks_under_valgrind(jobs):
    output = job_output(jobs, 'test_no_leaks_under_valgrind')
    assert '== memcheck: 0 report(s) through _fastdigest' in output, output[-6000:]
