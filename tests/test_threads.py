"""Threads: large updates release the GIL, the per-object lock keeps concurrent update/copy/digest correct,
and a bytearray being hashed cannot be resized."""

import gc
import hashlib
import itertools
import threading
import time

import pytest

import fastdigest
from conftest import BYTEARRAY_EXPORTS_RACE, BYTEARRAY_EXPORTS_RACE_REASON
from spectator import watch

pytestmark = pytest.mark.threads

ALGORITHMS = ('md5', 'sha1', 'sha224', 'sha256', 'sha384', 'sha512', 'sha512_224', 'sha512_256')

MiB = 1 << 20


def run_threads(targets):
    """Starts one thread per callable, joins them all, and re-raises the first exception any of them raised."""
    errors = []

    def guarded(target):
        try:
            target()
        except BaseException as exc:  # noqa: BLE001 - reported to the main thread
            errors.append(exc)

    threads = [threading.Thread(target=guarded, args=(target,)) for target in targets]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
        assert not thread.is_alive(), 'a hashing thread did not finish'
    if errors:
        raise errors[0]


@pytest.mark.parametrize('name', ALGORITHMS)
def test_five_threads_update_one_object(name):
    """Five threads each feed the same object 8 identical 1 MiB chunks. Updates are atomic under the object's
    lock, so whatever the interleaving the result is the digest of 40 copies of the chunk."""
    chunk = bytes(range(256)) * (MiB // 256) + b'\x01\x02\x03'  # not a multiple of any block size
    chunks_per_thread = 8
    shared = fastdigest.new(name, b'start:')

    def worker():
        for _ in range(chunks_per_thread):
            shared.update(chunk)

    run_threads([worker] * 5)
    reference = hashlib.new(name, b'start:')
    for _ in range(5 * chunks_per_thread):
        reference.update(chunk)
    assert shared.digest() == reference.digest()


@pytest.mark.parametrize('name', ['md5', 'sha1', 'sha256', 'sha512'])
def test_copy_and_digest_while_other_threads_update(name):
    """While four threads update one object with identical chunks, two more threads keep taking copy(),
    digest() and hexdigest() of it. Every value seen must be the digest after a whole number of chunks: a torn
    state (half an update, or a copy made mid-compression) gives a digest in no prefix."""
    chunk = bytes((i * 31 + 7) & 0xFF for i in range(3 * 4096 + 5))
    updates_per_thread = 40
    total_chunks = 4 * updates_per_thread
    reference = hashlib.new(name)
    valid = {reference.digest()}
    for _ in range(total_chunks):
        reference.update(chunk)
        valid.add(reference.digest())
    shared = fastdigest.new(name)
    finished = threading.Event()
    observed = []

    def updater():
        for _ in range(updates_per_thread):
            shared.update(chunk)

    def observer():
        while not finished.is_set():
            duplicate = shared.copy()
            observed.append(duplicate.digest())
            observed.append(shared.digest())
            observed.append(bytes.fromhex(shared.hexdigest()))

    observers = [threading.Thread(target=observer) for _ in range(2)]
    for thread in observers:
        thread.start()
    try:
        run_threads([updater] * 4)
    finally:
        finished.set()
        for thread in observers:
            thread.join(timeout=60)
    assert observed
    assert all(value in valid for value in observed)
    assert shared.digest() == reference.digest()


@pytest.mark.parametrize('name', ['md5', 'sha1', 'sha256', 'sha512'])
@pytest.mark.parametrize('call', ['update', 'constructor'])
def test_large_updates_run_alongside_another_thread(name, call):
    """While one thread hashes 8 MiB chunks back to back (update() of one object, or a constructor each),
    another thread completes a garbage collection and an 8 MiB update of its own in between the first
    chunk and the last: the two threads' large updates overlap in time. The spectator harness
    (tests/spectator.py) makes this exact in one direction: with the GIL held (or, free-threaded, the
    thread attached) through the calls no such look can happen at all (the next test is that check)."""
    chunk = bytes(8 * MiB)
    theirs = fastdigest.new(name)

    def look():
        gc.collect()
        theirs.update(chunk)

    if call == 'update':
        ours = fastdigest.new(name)
        make_calls = lambda inputs: map(ours.update, inputs)  # noqa: E731
    else:
        make_calls = lambda inputs: map(getattr(fastdigest, name), inputs)  # noqa: E731
    assert watch(make_calls, chunk, 256, look), f'no update in another thread ran inside the {call} calls'


def test_harness_sees_nothing_inside_calls_that_hold_the_gil():
    # The harness's own check: bytes.count keeps the GIL (free-threaded: stays attached) while it scans.
    chunk = bytes(8 * MiB)
    theirs = fastdigest.sha256()

    def look():
        gc.collect()
        theirs.update(chunk)

    assert not watch(lambda inputs: map(chunk.count, inputs), b'\x01\x02', 32, look)


def test_updates_around_the_gil_threshold():
    """Updates and constructors of 2047 (with the GIL held), 2048 and 2049 bytes (released) give hashlib's
    digest."""
    for size in (fastdigest._GIL_MINSIZE - 1, fastdigest._GIL_MINSIZE, fastdigest._GIL_MINSIZE + 1):
        data = bytes(range(256)) * (size // 256) + bytes(size % 256)
        for name in ALGORITHMS:
            hash_object = fastdigest.new(name, data)
            hash_object.update(data)
            assert hash_object.digest() == hashlib.new(name, data + data).digest()


@pytest.mark.skipif(BYTEARRAY_EXPORTS_RACE, reason=BYTEARRAY_EXPORTS_RACE_REASON)
@pytest.mark.parametrize('name', ['md5', 'sha256'])
@pytest.mark.parametrize('hasher', ['update', 'constructor', 'hashlib'])
def test_bytearray_cannot_be_resized_while_hashed(name, hasher):
    """While another thread hashes a 16 MiB bytearray (GIL released), appending to it raises BufferError.

    Exact with the spectator harness: the spectator appends only while it holds the GIL, and counts a look
    only if the hashing thread took no input during it, so that thread was inside one call (hashing, or
    waiting for the GIL back), holding its view of the bytearray, the whole time. hashlib in the same
    harness is the check that the harness sees what it should."""
    data = bytearray(range(256)) * (16 * MiB // 256)
    original = bytes(data)

    def look():
        try:
            data.append(0)
        except BufferError:
            return 'refused'
        # The append ran while nothing held a view (before or after a call): undo it, waiting if a call
        # has taken a view of the longer bytearray since.
        while True:
            try:
                del data[len(original) :]
                return 'resized'
            except BufferError:
                time.sleep(0.001)

    if hasher == 'update':
        ours = fastdigest.new(name)
        make_calls = lambda inputs: map(ours.update, inputs)  # noqa: E731
    elif hasher == 'constructor':
        make_calls = lambda inputs: map(getattr(fastdigest, name), inputs)  # noqa: E731
    else:
        make_calls = lambda inputs: map(hashlib.new, itertools.repeat(name), inputs)  # noqa: E731
    looks = watch(make_calls, data, 256, look, enough=3, steady=True)
    assert looks == ['refused'] * 3
    assert data == original
