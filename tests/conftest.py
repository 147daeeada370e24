"""Shared configuration of fastdigest's Python tests.

Every test compares fastdigest with hashlib (the running interpreter's, backed by OpenSSL) or with a
published test vector whose source is named next to it.
"""

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest

# The eight algorithms fastdigest provides, with hashlib's names.
ALGORITHMS = ('md5', 'sha1', 'sha224', 'sha256', 'sha384', 'sha512', 'sha512_224', 'sha512_256')


def unsupported(name):
    """hashlib's ValueError message for an algorithm name it does not know, as this Python words it
    ('unsupported hash type NAME'; 3.15: 'unsupported hash algorithm NAME')."""
    import hashlib

    probe = 'no such algorithm'
    try:
        hashlib.new(probe)
    except ValueError as error:
        return str(error)[: -len(probe)] + name
    raise AssertionError(f'hashlib.new knows {probe!r}')


def pytest_configure(config):
    # Registered rather than left implicit so that `--strict-markers` accepts it. The slow tests run in
    # the default run; `-m 'not slow'` is only a convenience for a quick local loop.
    config.addinivalue_line(
        'markers',
        'slow: multi-gigabyte updates (2**31 .. 2**32+1 bytes); run by default, skipped only when the '
        'machine lacks the memory',
    )
    config.addinivalue_line(
        'markers',
        "c_core: runs the C core's own test driver (tests/c/run.sh), natively and under qemu; it does not "
        "depend on FASTDIGEST_BACKEND, so the second, portable run of the suite leaves it out",
    )
    config.addinivalue_line(
        'markers',
        'hardening: runs tests/hardening/*.sh and tests/fuzz/run.sh (the suite under ASan/UBSan for both '
        'backends, valgrind memcheck, libFuzzer); they set FASTDIGEST_BACKEND themselves, so the second, '
        'portable run of the suite leaves them out',
    )
    config.addinivalue_line(
        'markers',
        'job(name, arguments, minutes): the test checks the output of a script (bash ARGUMENTS) that the '
        '`jobs` fixture runs; MINUTES is its rough length, longest first',
    )


@pytest.fixture(params=ALGORITHMS)
def algorithm(request):
    """Each of the eight algorithm names in turn."""
    return request.param


JOB_TIMEOUT = 2400  # seconds for one job, with another one beside it


def run_job(arguments, build_dir):
    environment = dict(os.environ, BUILD_DIR=str(build_dir), PYTHON=sys.executable)
    # The scripts choose the backend of each of their runs.
    environment.pop('FASTDIGEST_BACKEND', None)
    return subprocess.run(
        ['bash', *map(str, arguments)], env=environment, capture_output=True, text=True, timeout=JOB_TIMEOUT
    )


@pytest.fixture(scope='session')
def jobs(request, tmp_path_factory):
    """The scripts of every selected test marked `job` (the C driver's targets, the hardening jobs),
    started together at the first test that needs one, as many at a time as there are cores,
    longest first. Each is one mostly single-threaded process for minutes, so on CI's two cores they
    take about half the wall time they would one after another (the suite waits for them meanwhile).
    A test then reads its own job's result: jobs[name].result(), a CompletedProcess."""
    selected = {}
    for item in request.session.items:
        marker = item.get_closest_marker('job')
        if marker is not None:
            selected[marker.args[0]] = marker.args[1:]
    pool = ThreadPoolExecutor(max_workers=max(1, min(len(selected), os.cpu_count() or 1)))
    futures = {
        name: pool.submit(run_job, arguments, tmp_path_factory.mktemp(name.replace('/', '-')))
        for name, (arguments, _minutes) in sorted(selected.items(), key=lambda job: -job[1][1])
    }
    yield futures
    pool.shutdown(wait=True)


def finished_job(jobs, name):
    """The result of the job NAME once it has ended, and its stdout and stderr together, after
    asserting that it exited 0 (the failure shows the end of the output)."""
    result = jobs[name].result()
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-6000:]
    return result, output
