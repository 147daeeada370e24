"""Free threading: the GIL stays off after fastdigest is imported, and objects shared by threads stay whole.

The stress tests run on every build. On a free-threaded one the four threads really run at once, so every
call on the shared object races with the others unless the object's lock orders them; with a GIL they
interleave at switch intervals and at the GIL releases of large updates.

Each test checks what holds whatever the interleaving: every thread updates the shared object with the
same chunk, so after k updates in any order its state is that of k whole chunks. Every digest read from it
(directly, or from a copy) must therefore be hashlib's digest of a prefix of k whole chunks, and the final
one that of all of them. A torn update (half a chunk, or a state read while a compression was writing it)
gives a digest in no such prefix.
"""

import hashlib
import hmac
import os
import subprocess
import sys
import threading

import pytest

import fastdigest
import fastdigest.hmac
from conftest import FREE_THREADED

pytestmark = pytest.mark.threads

THREADS = 4


@pytest.mark.skipif(not FREE_THREADED, reason='a GIL build: sys._is_gil_enabled() is always True there')
def test_the_gil_stays_disabled_after_import():
    # In this process: the test run itself must not have turned it on.
    assert sys._is_gil_enabled() is False
    # In a fresh process, whatever the caller's PYTHON_GIL says: an extension module that does not declare
    # Py_mod_gil = Py_MOD_GIL_NOT_USED turns the GIL on at import, with a RuntimeWarning.
    environment = dict(os.environ)
    environment.pop('PYTHON_GIL', None)
    code = (
        'import sys, fastdigest, fastdigest._fastdigest, fastdigest.hmac, fastdigest.cli; print(sys._is_gil_enabled())'
    )
    result = subprocess.run(
        [sys.executable, '-W', 'error::RuntimeWarning', '-c', code],
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == 'False'


def prefix_digests(make_reference, chunk, count):
    """The digests of 0, 1, ..., count whole chunks, in order."""
    reference = make_reference()
    digests = [reference.digest()]
    for _ in range(count):
        reference.update(chunk)
        digests.append(reference.digest())
    return digests


def run_together(worker, threads=THREADS):
    """Runs worker(index) in `threads` threads that start together at a barrier; re-raises the first
    exception any of them raised."""
    barrier = threading.Barrier(threads)
    errors = []

    def start(index):
        try:
            barrier.wait(timeout=60)
            worker(index)
        except BaseException as error:  # noqa: BLE001 - reported to the main thread
            errors.append(error)

    pool = [threading.Thread(target=start, args=(index,)) for index in range(threads)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join(timeout=300)
        assert not thread.is_alive(), 'a stress thread did not finish'
    if errors:
        raise errors[0]


def stress_shared_object(shared, make_reference, chunk, updates_per_thread):
    """Four threads share `shared`: each, per round, updates it with chunk, then copies it and reads the
    copy's digest, reads the object's own digest and hexdigest, and updates its private copy with one more
    chunk. Checks every value read against the prefix digests, and the final digest against all chunks."""
    total = THREADS * updates_per_thread
    valid = prefix_digests(make_reference, chunk, total + 1)  # a copy may take one more
    position = {digest: k for k, digest in enumerate(valid)}
    seen = [[] for _ in range(THREADS)]

    def worker(index):
        record = seen[index]
        for done in range(1, updates_per_thread + 1):
            shared.update(chunk)
            duplicate = shared.copy()
            copied = duplicate.digest()
            record.append((done, 'copy', copied))
            record.append((done, 'digest', shared.digest()))
            record.append((done, 'hexdigest', bytes.fromhex(shared.hexdigest())))
            # The copy is independent: one more chunk on it gives the next prefix, whatever the shared
            # object has had since.
            duplicate.update(chunk)
            record.append((done, 'copy+1', duplicate.digest()))

    run_together(worker)
    for record in seen:
        last = copied_at = 0
        for done, kind, value in record:
            assert value in position, f'{kind}: a digest of no whole number of chunks (a torn state)'
            if kind == 'copy+1':
                assert position[value] == copied_at + 1, 'a copy changed with the shared object'
                continue
            # A thread's reads never go backwards, and include its own updates so far.
            assert position[value] >= max(last, done), f'{kind} lost an update'
            last = position[value]
            if kind == 'copy':
                copied_at = last
    assert shared.digest() == valid[total]


@pytest.mark.parametrize('name', ['md5', 'sha1', 'sha256', 'sha512'])
@pytest.mark.parametrize(
    'chunk_len',
    [100, 3 * 4096 + 5],
    ids=['100B-gil-held', '12KiB-gil-released'],  # below and above the default GIL threshold
)
def test_four_threads_share_one_hash_object(name, chunk_len):
    chunk = bytes((i * 131 + 17) & 0xFF for i in range(chunk_len))
    updates = 400 if chunk_len < fastdigest._GIL_MINSIZE else 60
    stress_shared_object(fastdigest.new(name, b'prefix'), lambda: hashlib.new(name, b'prefix'), chunk, updates)


@pytest.mark.parametrize('name', ['sha1', 'sha256', 'sha384'])
@pytest.mark.parametrize('chunk_len', [100, 3 * 4096 + 5], ids=['100B-gil-held', '12KiB-gil-released'])
def test_four_threads_share_one_hmac_object(name, chunk_len):
    chunk = bytes((i * 71 + 3) & 0xFF for i in range(chunk_len))
    key = b'k' * 80  # longer than SHA-1's and SHA-256's block: hashed first
    updates = 300 if chunk_len < fastdigest._GIL_MINSIZE else 50
    stress_shared_object(
        fastdigest.hmac.new(key, digestmod=name), lambda: hmac.new(key, digestmod=name), chunk, updates
    )


@pytest.mark.parametrize('name', ['sha256', 'sha512'])
def test_four_threads_share_one_object_with_a_threshold_of_0(name):
    # Every update releases the GIL (detaches): the object's lock alone orders them.
    previous = fastdigest.set_gil_minsize(0)
    try:
        chunk = bytes(range(64))
        stress_shared_object(fastdigest.new(name), lambda: hashlib.new(name), chunk, 400)
    finally:
        fastdigest.set_gil_minsize(previous)


def test_threads_hash_their_own_objects_at_once():
    # Objects private to each thread, made and finished in a tight loop: nothing is shared but the type
    # and the module, whose use must stay safe when the threads run at once.
    messages = [bytes([index]) * (index * 37 % 300) for index in range(200)]
    expected = {name: [hashlib.new(name, message).digest() for message in messages] for name in ('md5', 'sha256')}
    results = [None] * THREADS

    def worker(index):
        name = ('md5', 'sha256')[index % 2]
        digests = []
        for _ in range(20):
            digests = [getattr(fastdigest, name)(message).digest() for message in messages]
            assert digests == expected[name]
        results[index] = digests

    run_together(worker)
    assert all(result is not None for result in results)
