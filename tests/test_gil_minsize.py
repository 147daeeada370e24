"""The GIL threshold, tunable per process: set_gil_minsize(), get_gil_minsize() and FASTDIGEST_GIL_MINSIZE.

Whether calls release the GIL is observed with the spectator harness (tests/spectator.py): another thread
completes a garbage collection while calls of 100 bytes run back to back, which is impossible unless they
release the GIL (free-threaded: detach the thread). The positive direction depends on the scheduler, so
the calls run until the spectator has seen one, bounded at RELEASE_BOUND calls: measured here (AMD EPYC,
two cores shared with other sessions) that took 20-460 ms, against about 5 s for the bound.
"""

import itertools
import operator
import os
import subprocess
import sys

import pytest

import fastdigest
import fastdigest.hmac
from spectator import collection_ran_during

DATA = bytes(range(100))  # the case: a 100-byte input
HELD_CALLS = 100_000  # back to back: 70-150 ms here
RELEASE_BOUND = 5_000_000


@pytest.fixture
def threshold():
    """set_gil_minsize, with the process's threshold restored after the test."""
    previous = fastdigest.get_gil_minsize()
    yield fastdigest.set_gil_minsize
    fastdigest.set_gil_minsize(previous)


def hmac_update(inputs):
    mac = fastdigest.hmac.new(b'key', digestmod='sha256')
    return map(mac.update, inputs)


# Every place that compares an input with the threshold: the hash object's update (the helper HMAC.update
# shares), the constructors and new() (a new object's first input), the one-shots, digest_many (whose work
# per message is its length plus one block), and HMAC's constructor and one-shot.
CALL_KINDS = {
    'HASH.update': lambda inputs: map(fastdigest.sha256().update, inputs),
    'HMAC.update': hmac_update,
    'sha256(data)': lambda inputs: map(fastdigest.sha256, inputs),
    'new(name, data)': lambda inputs: map(fastdigest.new, itertools.repeat('sha1'), inputs),
    'digest(name, data)': lambda inputs: map(fastdigest.digest, itertools.repeat('md5'), inputs),
    'hexdigest(name, data)': lambda inputs: map(fastdigest.hexdigest, itertools.repeat('sha512'), inputs),
    'digest_many': lambda inputs: map(fastdigest.digest_many, itertools.repeat('sha256'), zip(inputs)),
    'hmac.new(key, msg)': lambda inputs: map(
        fastdigest.hmac.new, itertools.repeat(b'key'), inputs, itertools.repeat('sha256')
    ),
    'hmac.digest(key, msg)': lambda inputs: map(
        fastdigest.hmac.digest, itertools.repeat(b'key'), inputs, itertools.repeat('sha256')
    ),
}


@pytest.mark.threads
@pytest.mark.parametrize('kind', CALL_KINDS)
def test_a_100_byte_input_releases_the_gil_with_threshold_64(kind, threshold):
    threshold(64)
    released = collection_ran_during(CALL_KINDS[kind], DATA, RELEASE_BOUND)
    assert released, f'{kind} of 100 bytes kept the GIL with threshold 64'


@pytest.mark.threads
@pytest.mark.parametrize('kind', CALL_KINDS)
def test_a_100_byte_input_keeps_the_gil_with_the_default_threshold(kind, threshold):
    # The harness's own check: without a release, no collection fits inside the loop.
    threshold(fastdigest._GIL_MINSIZE)
    released = collection_ran_during(CALL_KINDS[kind], DATA, HELD_CALLS)
    assert not released, f'{kind} of 100 bytes released the GIL with the default threshold'


@pytest.mark.threads
def test_the_threshold_itself_releases(threshold):
    # Inputs of at least the threshold release (hashlib's comparison), one byte less does not.
    threshold(len(DATA))
    assert collection_ran_during(CALL_KINDS['HASH.update'], DATA, RELEASE_BOUND)
    threshold(len(DATA) + 1)
    assert not collection_ran_during(CALL_KINDS['HASH.update'], DATA, HELD_CALLS)


@pytest.mark.threads
def test_threshold_0_releases_even_for_empty_input(threshold):
    threshold(0)
    empty = operator.itemgetter(slice(0, 0))
    hash_object = fastdigest.sha256()
    assert collection_ran_during(lambda inputs: map(hash_object.update, map(empty, inputs)), DATA, RELEASE_BOUND)


@pytest.fixture(scope='module')
def hex_column():
    """hex_column(rows): an Arrow column of rows 64-byte strings whose export keeps the GIL: one of
    digest_array's own hex results, a DigestArray, which exports from C without releasing it. A pyarrow
    array would not do: its __arrow_c_array__ releases the GIL itself (ExportArray under `with nogil`),
    which lets the spectator in whatever digest_array decides."""
    pa = pytest.importorskip('pyarrow', reason='pyarrow (test extra) is not installed or has no wheel here')
    return lambda rows: fastdigest.digest_array('sha256', pa.array([DATA] * rows, pa.binary()), hex=True)


# digest_array releases the GIL for an array of at least threshold // block_size rows: every row costs at
# least one block, whatever its length. Each case releases under one side of that rule and not under the
# compile-time default (2048 bytes: 32 SHA-256 rows, 16 SHA-512 rows), or the other way round.
@pytest.mark.threads
@pytest.mark.parametrize(
    ('name', 'minsize', 'rows', 'releases'),
    [
        ('sha256', 64, 1, True),
        ('sha256', 4 * 64, 4, True),
        ('sha256', 4 * 64, 3, False),
        ('sha256', 0, 0, True),  # 0: every call, an empty array too
        ('sha256', sys.maxsize, 32, False),  # never
        ('sha512', 2 * 128, 2, True),
        ('sha512', 2 * 128, 1, False),
    ],
)
def test_digest_array_follows_the_threshold(name, minsize, rows, releases, threshold, hex_column):
    column = hex_column(rows)
    threshold(minsize)

    def calls(columns):
        return map(fastdigest.digest_array, itertools.repeat(name), columns)

    released = collection_ran_during(calls, column, RELEASE_BOUND if releases else HELD_CALLS)
    assert released == releases, f'digest_array of {rows} rows, threshold {minsize}: released {released}'


def test_set_returns_the_previous_threshold_and_get_reads_it(threshold):
    assert threshold(64) == fastdigest._GIL_MINSIZE
    assert fastdigest.get_gil_minsize() == 64
    assert threshold(0) == 64
    assert fastdigest.get_gil_minsize() == 0
    # Larger than any buffer means never; kept as the largest size there is.
    threshold(2**100)
    assert fastdigest.get_gil_minsize() == sys.maxsize


def test_results_do_not_depend_on_the_threshold(threshold):
    import hashlib

    for minsize in (0, 1, 64, 2048, sys.maxsize):
        threshold(minsize)
        assert fastdigest.sha256(DATA).digest() == hashlib.sha256(DATA).digest()
        hash_object = fastdigest.md5()
        hash_object.update(DATA)
        assert hash_object.digest() == hashlib.md5(DATA).digest()


@pytest.mark.parametrize(
    ('value', 'error'),
    [(-1, ValueError), (-(2**100), ValueError), (64.0, TypeError), ('64', TypeError), (None, TypeError)],
)
def test_set_rejects_what_is_not_a_size(value, error, threshold):
    with pytest.raises(error):
        threshold(value)
    assert fastdigest.get_gil_minsize() == fastdigest._GIL_MINSIZE


def test_set_takes_an_index(threshold):
    class Size:
        def __index__(self):
            return 100

    threshold(Size())
    assert fastdigest.get_gil_minsize() == 100


def read_threshold_in_new_process(environment_value):
    environment = dict(os.environ)
    environment.pop('FASTDIGEST_GIL_MINSIZE', None)
    if environment_value is not None:
        environment['FASTDIGEST_GIL_MINSIZE'] = environment_value
    return subprocess.run(
        [sys.executable, '-c', 'import fastdigest; print(fastdigest.get_gil_minsize())'],
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize(
    ('environment_value', 'expected'),
    [(None, 2048), ('', 2048), ('64', 64), ('0', 0), ('1048576', 1 << 20), ('9' * 40, sys.maxsize)],
)
def test_environment_sets_the_threshold_at_import(environment_value, expected):
    result = read_threshold_in_new_process(environment_value)
    assert result.returncode == 0, result.stderr
    assert int(result.stdout) == expected


@pytest.mark.parametrize('environment_value', ['-1', '64k', ' 64', '0x40', 'big'])
def test_environment_rejects_what_is_not_a_size(environment_value):
    result = read_threshold_in_new_process(environment_value)
    assert result.returncode != 0
    assert 'FASTDIGEST_GIL_MINSIZE must be a whole number of bytes' in result.stderr
