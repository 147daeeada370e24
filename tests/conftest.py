"""Shared configuration of fastdigest's Python tests.

Every test compares fastdigest with hashlib (the running interpreter's, backed by OpenSSL) or with a
published test vector whose source is named next to it.

Two tiers. Plain `python -m pytest` runs the quick tier: every Python-level test of every public
function at the best kernels this CPU has, in minutes, with no root, no apt-get and no
network. `python -m pytest --heavy` adds the heavy tier, the tests marked with one of HEAVY_MARKERS:
the C core's driver (natively, under sanitizers and qemu), the hardening jobs, the multi-gigabyte
updates, the rebuilds, Dask and Spark, and the quick tier again with the portable C and at every CPU
level this CPU can emulate. `-m` selects within a tier.
"""

import os
import subprocess
import sys
import sysconfig
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from hypothesis import settings


# The property tests' example counts. Each test names its own; FASTDIGEST_TEST_EXAMPLES scales them all
# (a fraction such as 0.25) for the suite's repeat runs: the CPU levels, the sanitizer and valgrind runs,
# the other Pythons and arm64 under emulation run other kernels or builds on the same kind of inputs, which
# the main run has drawn in full.
def _examples_scale():
    text = os.environ.get('FASTDIGEST_TEST_EXAMPLES', '1')
    try:
        scale = float(text)
    except ValueError:
        scale = 0
    if not 0 < scale <= 10:
        raise pytest.UsageError(f'FASTDIGEST_TEST_EXAMPLES must be a number above 0 and at most 10, not {text!r}')
    return scale


EXAMPLES_SCALE = _examples_scale()


def examples(count):
    """The number of examples a property test with COUNT of its own draws in this run."""
    return max(10, round(count * EXAMPLES_SCALE))


# Tests that name no count draw hypothesis's default of 100, scaled the same way.
settings.register_profile('fastdigest', max_examples=examples(100))
settings.load_profile('fastdigest')


FREE_THREADED = bool(sysconfig.get_config_var('Py_GIL_DISABLED'))

# A free-threaded 3.13's bytearray takes no lock for its exports: bytearray_getbuffer reads the pointer and then
# increments ob_exports, and a resize checks ob_exports and then reallocates, neither in a critical section. A
# resize in one thread racing with an export in another is a data race inside CPython that can move the buffer
# under a hash in progress, hashlib's too. CPython made bytearray thread-safe in 3.14 (gh-129107).
BYTEARRAY_EXPORTS_RACE = FREE_THREADED and sys.version_info < (3, 14)
BYTEARRAY_EXPORTS_RACE_REASON = (
    "3.13t's bytearray exports race with its resizes inside CPython (fixed in 3.14, gh-129107): a bytearray "
    'resized while it is hashed may be hashed from moved memory, by hashlib as well'
)


# A CPython built for ThreadSanitizer: tests/hardening/tsan_python.sh runs the threaded tests on a free-threaded one.
THREAD_SANITIZER = '--with-thread-sanitizer' in (sysconfig.get_config_var('CONFIG_ARGS') or '')

# A free-threaded CPython's memoryview counts the buffers taken from it without a lock: memory_getbuf (a hash
# taking the view's buffer) increments the count while memoryview.release() in another thread reads it, a data
# race inside CPython that TSan reports, for hashlib as well. CPython made the count a critical section for 3.14
# (gh-127085) and tracks the rest of memoryview's thread safety in gh-127716; 3.13t gets neither.
MEMORYVIEW_EXPORTS_RACE_UNDER_TSAN = THREAD_SANITIZER and FREE_THREADED
MEMORYVIEW_EXPORTS_RACE_REASON = (
    "a free-threaded CPython's memoryview counts its exports without a lock (gh-127085, gh-127716): releasing a "
    'view while another thread takes its buffer is a data race inside CPython, which ThreadSanitizer reports'
)


def _hashlib_takes_data_keyword():
    import hashlib

    try:
        hashlib.sha256(data=b'')
    except TypeError:
        return False
    return True


# Whether this Python's hashlib constructors take their data as data= (3.14 on, and 3.13 from a patch release
# on: CPython backported it there) or only as string=: asked of hashlib itself, as fastdigest asks it.
HASHLIB_TAKES_DATA = _hashlib_takes_data_keyword()

# The eight algorithms fastdigest provides, with hashlib's names.
ALGORITHMS = ('md5', 'sha1', 'sha224', 'sha256', 'sha384', 'sha512', 'sha512_224', 'sha512_256')


def shrink_while_hashing(path, data, hash_it, rng, granule=4096):
    """Writes data to path, cuts the file short at a random page boundary from a timer thread while hash_it()
    runs, and returns (cut, L): L the length of the prefix of data whose digests hash_it() returned, for the
    algorithms of its (names, digests), every one the same; None when there is none. L is looked for where a
    reader that ends at its first short read can stop: at the cut, at any multiple of granule after it, or at
    the whole file. A page boundary, so that no read meets the zeroed tail of the cut page. The default granule
    is a page, not a read's size: a read under way when the cut lands returns the pages it copied before it saw
    the new size (Linux's filemap_read), a short read that can end at any page after the cut. The cut comes at a
    random moment within the first half of the time an uncut call takes here, so that it mostly lands while the
    file is read, on a fast machine as on an emulated one."""
    import hashlib
    import threading

    with open(path, 'wb') as file:
        file.write(data)
    started = time.perf_counter()
    hash_it()
    uncut_seconds = time.perf_counter() - started
    cut = 4096 * rng.randrange(len(data) // 4096)
    timer = threading.Timer(rng.uniform(0, uncut_seconds / 2), os.truncate, (path, cut))
    timer.start()
    try:
        names, digests = hash_it()
    finally:
        timer.join()
    first = hashlib.new(names[0])
    fed = 0
    ends = sorted({cut, len(data), *range((cut // granule + 1) * granule, len(data), granule)})
    for end in ends:
        first.update(data[fed:end])
        fed = end
        if first.digest() == digests[0]:
            prefix = data[:end]
            same = all(
                hashlib.new(name, prefix).digest() == digest for name, digest in zip(names, digests, strict=True)
            )
            return cut, end if same else None
    return cut, None


def cut_short_while_hashing(path, data, hash_it, rng, tries, granule=4096):
    """Calls shrink_while_hashing TRIES times, and on until one call was cut short (at most ten times as many):
    every call's digests are of one prefix of data, and at least one call's of a shorter one than the whole. The
    moment of the cut comes from timings, which a busy machine skews: it takes more calls, never a looser check."""
    cut_short = 0
    for call in range(10 * tries):
        cut, length = shrink_while_hashing(path, data, hash_it, rng, granule)
        assert length is not None, f'cut to {cut}: the digests are of no one prefix'
        cut_short += length < len(data)
        if call + 1 >= tries and cut_short:
            return
    raise AssertionError(f'no call of {10 * tries} was cut short')


# The markers of the heavy tier: a test with any of them runs only with --heavy.
HEAVY_MARKERS = ('slow', 'c_core', 'hardening', 'heavy')


def pytest_addoption(parser):
    parser.addoption(
        '--heavy',
        action='store_true',
        help='also run the heavy tier (tests marked ' + ', '.join(HEAVY_MARKERS) + '): the C driver, '
        'sanitizers, fuzzing, valgrind, qemu, multi-gigabyte updates, rebuilds, Dask and Spark, and the '
        'suite with the portable C and at each CPU level; may install tools with apt-get (as root)',
    )


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
    # Registered rather than left implicit so that `--strict-markers` accepts them.
    config.addinivalue_line(
        'markers',
        'slow: multi-gigabyte updates (2**31 .. 2**32+1 bytes); heavy tier, skipped when the machine lacks the memory',
    )
    config.addinivalue_line(
        'markers',
        "c_core: runs the C core's own test driver (tests/c/run.sh), natively and under qemu (heavy tier)",
    )
    config.addinivalue_line(
        'markers',
        'hardening: runs tests/hardening/*.sh and tests/fuzz/run.sh (the suite under ASan/UBSan for both '
        'backends, valgrind memcheck, libFuzzer; heavy tier)',
    )
    config.addinivalue_line(
        'markers',
        'heavy: heavy tier for another reason than the markers above: rebuilds of the source tree, a Dask '
        'cluster, a Spark session, the suite rerun at other CPU levels',
    )
    config.addinivalue_line(
        'markers',
        "threads: starts threads (Python's, or fastdigest's own through threads= and the CLI's workers); "
        'tests/hardening/tsan_python.sh runs these under ThreadSanitizer (heavy tier)',
    )
    config.addinivalue_line(
        'markers',
        'job(name, arguments, minutes, environment=None): the test checks the output of a command (ARGUMENTS; '
        'a .sh script runs under bash) that the `jobs` fixture runs, with ENVIRONMENT added to its '
        'environment; MINUTES is its rough length, longest first',
    )


def pytest_collection_modifyitems(config, items):
    if config.getoption('--heavy'):
        # The tests that read a job's result go after every other test: the jobs start with the session
        # (start_jobs), so the rest of the suite runs beside them instead of waiting for them and then
        # running alone on one core.
        waiting = [item for item in items if item.get_closest_marker('job') is not None]
        items[:] = [item for item in items if item.get_closest_marker('job') is None] + waiting
        return
    quick, heavy = [], []
    for item in items:
        (heavy if any(item.get_closest_marker(name) for name in HEAVY_MARKERS) else quick).append(item)
    if heavy:
        config.hook.pytest_deselected(items=heavy)
        items[:] = quick


def pytest_report_header(config):
    import fastdigest

    tiers = 'quick and heavy (--heavy)' if config.getoption('--heavy') else 'quick only (--heavy adds the heavy tier)'
    # tests/test_levels.py reads the kernels line of its child runs.
    return [
        f'tiers: {tiers}',
        f'fastdigest kernels: {fastdigest.implementation} batch: {fastdigest.batch_implementation}',
    ]


@pytest.fixture(params=ALGORITHMS)
def algorithm(request):
    """Each of the eight algorithm names in turn."""
    return request.param


JOB_TIMEOUT = 2400  # seconds for one job, with another one beside it

# Each finished job's wall time, by name, for the summary at the end of the run (CI's notes say what
# each part of the heavy tier costs).
JOB_SECONDS = {}


def run_job(name, arguments, environment, build_dir):
    full_environment = dict(os.environ, BUILD_DIR=str(build_dir), PYTHON=sys.executable)
    # Each job chooses its own backend and CPU level.
    full_environment.pop('FASTDIGEST_BACKEND', None)
    full_environment.pop('FASTDIGEST_DISABLE', None)
    full_environment.update(environment or {})
    command = [str(argument) for argument in arguments]
    if command[0].endswith('.sh'):
        command.insert(0, 'bash')
    started = time.monotonic()
    try:
        return subprocess.run(command, env=full_environment, capture_output=True, text=True, timeout=JOB_TIMEOUT)
    finally:
        JOB_SECONDS[name] = time.monotonic() - started


def pytest_terminal_summary(terminalreporter):
    if JOB_SECONDS:
        terminalreporter.section('heavy jobs, wall time (two at a time on two cores)')
        for name, seconds in sorted(JOB_SECONDS.items(), key=lambda job: -job[1]):
            terminalreporter.write_line(f'{seconds:7.0f} s  {name}')


@pytest.fixture(scope='session')
def jobs(request, tmp_path_factory):
    """The commands of every selected test marked `job` (the C driver's targets, the hardening jobs,
    the suite at other CPU levels), started together with the session (start_jobs), as many at a
    time as there are cores, longest first. Each is one mostly single-threaded process for minutes,
    so on CI's two cores they take about half the wall time they would one after another, and the
    rest of the suite runs beside them (the tests that read them run last). A test then reads its
    own job's result: jobs[name].result(), a CompletedProcess."""
    selected = {}
    for item in request.session.items:
        marker = item.get_closest_marker('job')
        if marker is not None:
            arguments, minutes = marker.args[1:3]
            environment = marker.kwargs.get('environment', marker.args[3] if len(marker.args) > 3 else None)
            selected[marker.args[0]] = (arguments, minutes, environment)
    pool = ThreadPoolExecutor(max_workers=max(1, min(len(selected), os.cpu_count() or 1)))
    futures = {
        name: pool.submit(run_job, name, arguments, environment, tmp_path_factory.mktemp(name.replace('/', '-')))
        for name, (arguments, _minutes, environment) in sorted(selected.items(), key=lambda job: -job[1][1])
    }
    yield futures
    pool.shutdown(wait=True)


@pytest.fixture(scope='session', autouse=True)
def start_jobs(request):
    """Starts the jobs at the session's first test when any selected test needs one."""
    if any(item.get_closest_marker('job') is not None for item in request.session.items):
        request.getfixturevalue('jobs')


def finished_job(jobs, name):
    """The result of the job NAME once it has ended, and its stdout and stderr together, after
    asserting that it exited 0 (the failure shows the end of the output)."""
    result = jobs[name].result()
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-6000:]
    return result, output
