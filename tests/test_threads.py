"""Threads: large updates release the GIL, the per-object lock keeps concurrent update/copy/digest correct,
and a bytearray being hashed cannot be resized."""

import hashlib
import sys
import threading
import time

import pytest

import fastdigest

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


def main_thread_share_during(call):
    """Runs call() in another thread and returns the share of call's duration during which the main thread
    kept running Python code: about 1 when call releases the GIL (on two cores), near 0 when it holds it
    (only a switch interval's worth at its edges)."""
    state = {'in_call': False, 'duration': None}
    done = threading.Event()

    def worker():
        state['in_call'] = True
        began = time.perf_counter()
        call()
        state['duration'] = time.perf_counter() - began
        state['in_call'] = False
        done.set()

    # The loop's own speed, measured alone: the time per iteration of the same loop body.
    idle = threading.Event()
    iterations = 0
    calibration_began = time.perf_counter()
    while iterations < 200_000 and not idle.is_set():
        iterations += 1
        if state['in_call']:
            pass
    seconds_per_iteration = (time.perf_counter() - calibration_began) / iterations

    thread = threading.Thread(target=worker)
    iterations_in_call = 0
    # A short switch interval shrinks what a GIL-holding call leaks at its edges (the main thread may run
    # for up to one interval between the worker setting in_call and entering the call).
    switch_interval = sys.getswitchinterval()
    sys.setswitchinterval(0.0005)
    try:
        thread.start()
        while not done.is_set():
            if state['in_call']:
                iterations_in_call += 1
        thread.join()
    finally:
        sys.setswitchinterval(switch_interval)
    return iterations_in_call * seconds_per_iteration / state['duration']


@pytest.mark.parametrize('name', ['md5', 'sha1', 'sha256', 'sha512'])
def test_large_update_releases_the_gil(name):
    """While an update (or a constructor) hashes 256 MiB in one thread, the main thread keeps running. The same
    harness around a call that holds the GIL (bytes.count over the same bytes) shows that it does not.

    Measured here on two cores: about 1 (the whole call) with the GIL released, under 0.01 with it held."""
    data = bytes(256 * MiB)
    held = main_thread_share_during(lambda: data.count(b'\x01\x02'))
    hash_object = fastdigest.new(name)
    by_update = main_thread_share_during(lambda: hash_object.update(data))
    by_constructor = main_thread_share_during(lambda: getattr(fastdigest, name)(data))
    assert hash_object.digest() == hashlib.new(name, data).digest()
    assert held < 0.1, f'harness check: the main thread ran during {held:.0%} of a GIL-holding call'
    assert by_update > 0.25, f'the main thread ran only during {by_update:.0%} of update()'
    assert by_constructor > 0.25, f'the main thread ran only during {by_constructor:.0%} of the constructor'


def test_updates_around_the_gil_threshold():
    """Updates and constructors of 2047, 2048 (both with the GIL held) and 2049 bytes (released) give
    hashlib's digest."""
    for size in (fastdigest._GIL_MINSIZE - 1, fastdigest._GIL_MINSIZE, fastdigest._GIL_MINSIZE + 1):
        data = bytes(range(256)) * (size // 256) + bytes(size % 256)
        for name in ALGORITHMS:
            hash_object = fastdigest.new(name, data)
            hash_object.update(data)
            assert hash_object.digest() == hashlib.new(name, data + data).digest()


def resize_attempts_while_hashing(hash_call, data, attempts):
    """Runs hash_call(data) in a thread and meanwhile tries to append to the bytearray data, repeatedly,
    until the call returns. Returns the number of attempts (out of `attempts` runs) in which a resize raised
    BufferError, and leaves data at its original length."""
    original_length = len(data)
    refusals = 0
    for _ in range(attempts):
        started = threading.Event()
        done = threading.Event()

        def worker(started=started, done=done):
            started.set()
            hash_call(data)
            done.set()

        thread = threading.Thread(target=worker)
        thread.start()
        started.wait()
        refused = False
        while not done.is_set():
            try:
                data.append(0)
            except BufferError:
                refused = True
                continue
            # The append ran before the export or after it: undo it, which may itself be refused once the
            # hashing thread has exported the buffer in between.
            while True:
                try:
                    del data[original_length:]
                    break
                except BufferError:
                    refused = True
                    time.sleep(0.001)
        thread.join()
        del data[original_length:]
        refusals += refused
    return refusals


@pytest.mark.parametrize('name', ['md5', 'sha256'])
def test_bytearray_cannot_be_resized_while_hashed(name):
    """While another thread hashes a large bytearray (GIL released), resizing it raises BufferError, as with
    hashlib in the same harness. The hash in progress must cover the data it was given."""
    data = bytearray(range(256)) * (96 * MiB // 256)
    expected = hashlib.new(name, data).digest()
    results = []

    def hash_with_update(buffer):
        hash_object = fastdigest.new(name)
        hash_object.update(buffer)
        results.append(hash_object.digest())

    def hash_with_constructor(buffer):
        results.append(getattr(fastdigest, name)(buffer).digest())

    attempts = 4
    ours_update = resize_attempts_while_hashing(hash_with_update, data, attempts)
    ours_constructor = resize_attempts_while_hashing(hash_with_constructor, data, attempts)
    theirs = resize_attempts_while_hashing(lambda buffer: hashlib.new(name, buffer), data, attempts)
    assert len(data) == 96 * MiB
    # Every hash saw either the original data or the data with one appended zero byte (an append that ran
    # before the export).
    grown = hashlib.new(name, data + b'\x00').digest()
    assert all(result in (expected, grown) for result in results)
    assert theirs >= 1, 'harness check: hashlib in the same harness never refused a resize'
    assert ours_update >= 1, f'resize while hashing (update) was never refused in {attempts} attempts'
    assert ours_constructor >= 1, f'resize while hashing (constructor) was never refused in {attempts} attempts'
