"""The C core's own test driver, run from the suite so that one command runs every test.

tests/c/test_core.c links the core without Python and runs every kernel the CPU has against the
NIST and RFC vectors, the boundary lengths, the million-'a' test and the portable kernel on random
inputs. Here it runs natively, under ASan/UBSan, and cross-compiled under qemu-user: on aarch64 with
and without the SHA-512 instructions, and on big-endian s390x. tests/c/run.sh installs the cross
compilers and qemu with apt-get where they are missing.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

RUN_SH = Path(__file__).parent / 'c' / 'run.sh'
SUMMARY = re.compile(r'^C (?:core|batch): (\d+) passed, (\d+) failed$', re.MULTILINE)

pytestmark = pytest.mark.c_core


@pytest.mark.parametrize('target', ['native', 'sanitize', 'aarch64', 's390x'])
def test_c_driver(target, tmp_path):
    environment = dict(os.environ, BUILD_DIR=str(tmp_path), PYTHON=sys.executable)
    result = subprocess.run(
        ['bash', str(RUN_SH), target], env=environment, capture_output=True, text=True, timeout=1200
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-4000:]
    summaries = SUMMARY.findall(output)
    # aarch64 runs twice (-cpu max and -cpu cortex-a72); each run must have tested something.
    assert summaries, output[-4000:]
    for passed, failed in summaries:
        assert int(failed) == 0 and int(passed) > 1000, output[-4000:]
