"""The C core's own test driver, run from the suite so that one command runs every test.

tests/c/test_core.c links the core without Python and runs every kernel the CPU has against the
NIST and RFC vectors, the boundary lengths, the million-'a' test and the portable kernel on random
inputs. Here it runs natively, under ASan/UBSan, under ThreadSanitizer (the drivers of the threaded
paths: the batch driver on threads, digest_many's pipeline, the file reader, the digest columns), and
cross-compiled under qemu-user: on aarch64 with and without the SHA-512 instructions, and on big-endian
s390x. tests/c/run.sh installs the cross compilers and qemu with apt-get where they are missing.
"""

import re
from pathlib import Path

import pytest

from conftest import finished_job

RUN_SH = Path(__file__).parent / 'c' / 'run.sh'
SUMMARY = re.compile(
    r'^C (core|batch|files|parts|select|columns|fingerprint): (\d+) passed, (\d+) failed$', re.MULTILINE
)
# The fewest checks each driver makes in any target: the selection's driver tests a few cases of whole
# selections, and test_batch --threads-only (under TSan) the threaded groups alone.
FEWEST_PASSED = {
    'core': 1000,
    'batch': 150,
    'files': 1000,
    'parts': 500,
    'select': 50,
    'columns': 300,
    'fingerprint': 400,
}

pytestmark = pytest.mark.c_core


# The targets with their rough minutes on a 2-core machine (the order the `jobs` fixture starts them).
TARGETS = {'native': 1, 'sanitize': 3, 'tsan': 2, 'aarch64': 0.5, 's390x': 0.5}


@pytest.mark.parametrize(
    'target',
    [
        pytest.param(target, marks=pytest.mark.job(f'c/{target}', [RUN_SH, target], minutes))
        for target, minutes in TARGETS.items()
    ],
)
def test_c_driver(target, jobs):
    _, output = finished_job(jobs, f'c/{target}')
    summaries = SUMMARY.findall(output)
    # aarch64 runs twice (-cpu max and -cpu cortex-a72); each run must have tested something.
    assert summaries, output[-4000:]
    for driver, passed, failed in summaries:
        assert int(failed) == 0 and int(passed) > FEWEST_PASSED[driver], output[-4000:]
    if target == 'tsan':
        # Each threaded driver ran under it, and none reported (a report also fails the run).
        assert sorted(driver for driver, _, _ in summaries) == ['batch', 'columns', 'files', 'parts'], output[-4000:]
        assert 'ThreadSanitizer' not in output, output[-6000:]
