"""The hardening jobs, run from the suite so that the README's one test command runs them in CI.

- tests/hardening/sanitize_python.sh: the extension built with -fsanitize=address,undefined, and this
  suite run under it with the best kernels (the C driver's own sanitizer run is test_c_core.py's
  'sanitize', which runs the portable kernels too, as the fuzzers do; test_levels.py runs this suite on
  the portable C).
- tests/fuzz/run.sh: the C core's libFuzzer target (every kernel against the portable one and a
  one-shot, in update sizes the input chooses; the batch driver against single hashing), the seed
  corpus then FD_FUZZ_SECONDS (default 60) of fuzzing.
- tests/hardening/leaks.sh: the core Python tests under valgrind memcheck; any definite leak or
  memcheck error with a frame in the extension fails.
- tests/hardening/tsan_python.sh: the threaded tests (marker `threads`) on a free-threaded CPython 3.13
  built for ThreadSanitizer (.ci/build-python313t.sh --tsan, built into a fixed prefix on the first run),
  with the extension built with -fsanitize=thread; any report fails (the C driver's own TSan run is
  test_c_core.py's 'tsan').

Each takes minutes; they run side by side with each other and the C driver's targets, as many at once
as there are cores (conftest.py's `jobs` fixture). Each installs its tool (clang, valgrind, the TSan
interpreter) when missing: a missing tool is a failure, never a skip. They take FASTDIGEST_BACKEND into
their own hands, so the suite's runs at other levels leave them out with the rest of the 'hardening'
marker.
"""

import ast
import os
import re
from pathlib import Path

import pytest

from conftest import finished_job
from test_backend import child_state

TESTS = Path(__file__).parent
FUZZ_SECONDS = os.environ.get('FD_FUZZ_SECONDS', '60')

pytestmark = pytest.mark.hardening


def job_output(jobs, name, passed_line):
    result, output = finished_job(jobs, name)
    assert passed_line in result.stdout, output[-6000:]
    return result.stdout


@pytest.mark.job('hardening/sanitize', [TESTS / 'hardening' / 'sanitize_python.sh'], 15)
def test_suite_under_address_and_undefined_behaviour_sanitizers(jobs):
    output = job_output(jobs, 'hardening/sanitize', '== sanitize_python passed')
    # The run happened, with the best kernels, and ran the suite.
    assert '== backend best: pytest exit 0' in output, output[-6000:]
    counts = [int(count) for count in re.findall(r'^(\d+) passed', output, re.MULTILINE)]
    assert len(counts) == 1 and counts[0] > 1000, output[-6000:]
    kernels = re.search(r'^== pytest under ASan/UBSan, backend best: (\{.*?\}) (\{.*\})$', output, re.MULTILINE)
    assert kernels, output[-6000:]
    # The kernels a default import chooses on this CPU (the job's environment hides none).
    assert ast.literal_eval(kernels[1]) == child_state(None)['implementation'], kernels[0]


@pytest.mark.job('hardening/fuzz', [TESTS / 'fuzz' / 'run.sh', FUZZ_SECONDS], 6)
def test_fuzz_core(jobs):
    output = job_output(jobs, 'hardening/fuzz', '== fuzz_core passed')
    assert '== seeds:' in output and '== fuzzing:' in output, output[-6000:]
    for target in ('fuzz_arrow', 'fuzz_surrogate', 'fuzz_json'):
        assert '== %s passed' % target in output, output[-6000:]


@pytest.mark.job('hardening/leaks', [TESTS / 'hardening' / 'leaks.sh'], 5)
def test_no_leaks_under_valgrind(jobs):
    output = job_output(jobs, 'hardening/leaks', '== leaks passed')
    assert '== memcheck: 0 report(s) through _fastdigest' in output, output[-6000:]


# Minutes: the tests alone; the first run on a machine also builds the interpreter (.ci/build-python313t.sh
# prints what each step of that costs).
@pytest.mark.job('hardening/tsan', [TESTS / 'hardening' / 'tsan_python.sh'], 14)
def test_threaded_tests_under_thread_sanitizer(jobs):
    output = job_output(jobs, 'hardening/tsan', '== tsan_python passed')
    assert '== pytest under TSan: exit 0' in output, output[-6000:]
    counts = [int(count) for count in re.findall(r'^(\d+) passed', output, re.MULTILINE)]
    assert len(counts) == 1 and counts[0] > 100, output[-6000:]
