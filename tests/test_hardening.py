"""The hardening jobs, run from the suite so that the README's one test command runs them in CI.

- tests/hardening/sanitize_python.sh: the extension built with -fsanitize=address,undefined, and this
  suite run under it twice, with the best kernels and with FASTDIGEST_BACKEND=portable (the C driver's
  own sanitizer run is test_c_core.py's 'sanitize').
- tests/fuzz/run.sh: the C core's libFuzzer target (every kernel against the portable one and a
  one-shot, in update sizes the input chooses; the batch driver against single hashing), the seed
  corpus then FD_FUZZ_SECONDS (default 60) of fuzzing.
- tests/hardening/leaks.sh: the core Python tests under valgrind memcheck; any definite leak or
  memcheck error with a frame in the extension fails.

Each takes minutes, and each installs its tool (clang, valgrind) with apt-get when missing: a missing
tool is a failure, never a skip. They take FASTDIGEST_BACKEND into their own hands, so the suite's
second, portable run leaves them out with the rest of the 'hardening' marker.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).parent
FUZZ_SECONDS = os.environ.get('FD_FUZZ_SECONDS', '60')

pytestmark = pytest.mark.hardening


def run_script(arguments, tmp_path, passed_line, timeout):
    environment = dict(os.environ, BUILD_DIR=str(tmp_path), PYTHON=sys.executable)
    # The scripts choose the backend of each of their runs.
    environment.pop('FASTDIGEST_BACKEND', None)
    result = subprocess.run(
        ['bash', *map(str, arguments)], env=environment, capture_output=True, text=True, timeout=timeout
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-6000:]
    assert passed_line in result.stdout, output[-6000:]
    return result.stdout


def test_suite_under_address_and_undefined_behaviour_sanitizers(tmp_path):
    output = run_script([TESTS / 'hardening' / 'sanitize_python.sh'], tmp_path, '== sanitize_python passed', 1800)
    # Both runs happened, and each ran the suite.
    for backend in ('best', 'portable'):
        assert f'== backend {backend}: pytest exit 0' in output, output[-6000:]
    counts = [int(count) for count in re.findall(r'^(\d+) passed', output, re.MULTILINE)]
    assert len(counts) == 2 and min(counts) > 1000, output[-6000:]


def test_fuzz_core(tmp_path):
    output = run_script([TESTS / 'fuzz' / 'run.sh', FUZZ_SECONDS], tmp_path, '== fuzz_core passed', 1800)
    assert '== seeds:' in output and '== fuzzing:' in output, output[-6000:]


def test_no_leaks_under_valgrind(tmp_path):
    output = run_script([TESTS / 'hardening' / 'leaks.sh'], tmp_path, '== leaks passed', 1800)
    assert '== memcheck: 0 report(s) through _fastdigest' in output, output[-6000:]
