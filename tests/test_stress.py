"""Thread stress: threads share hash objects and mix large and small updates, copy(), digest(),
hexdigest() and the one-shots for a few seconds, while objects are made and freed around them.

Every object is only ever fed one chunk, over and over, so whatever order the threads run in, its state
after k updates must be that of hashing the chunk k times: a torn or lost update, or a copy or digest
taken in the middle of an update, gives a digest that is none of those. Each snapshot (copy, digest,
hexdigest) is checked against every whole-chunk prefix, and each object's final digest against the
number of updates the threads made.
"""

import hashlib
import itertools
import random
import threading
import time

import pytest

import fastdigest
from conftest import MEMORYVIEW_EXPORTS_RACE_REASON, MEMORYVIEW_EXPORTS_RACE_UNDER_TSAN

pytestmark = pytest.mark.threads

THREADS = 4
SECONDS = 3.0
# A large chunk is hashed with the GIL released and the object's lock held; a small one under the GIL.
LARGE_CHUNK = bytes(range(256)) * 12 + b'large'
SMALL_CHUNK = b'small chunk, not a block multiple'
MAX_UPDATES = {LARGE_CHUNK: 1500, SMALL_CHUNK: 6000}

assert len(LARGE_CHUNK) >= fastdigest._GIL_MINSIZE > len(SMALL_CHUNK)


class Shared:
    """One shared object fed one chunk, and the digests of every whole number of chunks."""

    def __init__(self, name, chunk):
        self.name = name
        self.chunk = chunk
        self.hasher = fastdigest.new(name)
        self.updates = itertools.count()  # next() is atomic: it counts the updates made
        self.made = 0
        reference = hashlib.new(name)
        self.prefix_digests = {reference.digest(): 0}
        for k in range(1, MAX_UPDATES[chunk] + 1):
            reference.update(chunk)
            self.prefix_digests[reference.copy().digest()] = k

    def update(self):
        # Claims an update first, so the count never exceeds what the prefixes cover.
        if next(self.updates) < MAX_UPDATES[self.chunk]:
            self.hasher.update(self.chunk)
        # Read back at the end: min(count, MAX_UPDATES).

    def check_snapshot(self, digest):
        assert digest in self.prefix_digests, f'{self.name}: a snapshot that is no whole number of chunks'


def worker(shared_objects, deadline, seed, checked):
    rng = random.Random(seed)
    while time.monotonic() < deadline:
        shared = rng.choice(shared_objects)
        action = rng.randrange(8)
        if action < 3:
            shared.update()
        elif action == 3:
            copy = shared.hasher.copy()
            shared.check_snapshot(copy.digest())
            copy.update(b'the copy is independent')
        elif action == 4:
            shared.check_snapshot(shared.hasher.digest())
        elif action == 5:
            shared.check_snapshot(bytes.fromhex(shared.hasher.hexdigest()))
        else:
            # Objects made and freed while other threads hash the shared ones.
            data = rng.randbytes(rng.choice((0, 63, 64, 200, 5000)))
            expected = hashlib.new(shared.name, data).digest()
            assert fastdigest.digest(shared.name, data) == expected
            temporary = fastdigest.new(shared.name, data)
            assert temporary.copy().digest() == expected
            del temporary
        checked[seed] += 1


def test_shared_objects_under_mixed_load():
    shared_objects = [
        Shared(name, chunk) for name in ('md5', 'sha1', 'sha256', 'sha512') for chunk in (LARGE_CHUNK, SMALL_CHUNK)
    ]
    deadline = time.monotonic() + SECONDS
    checked = [0] * THREADS
    errors = []

    def guarded(seed):
        try:
            worker(shared_objects, deadline, seed, checked)
        except BaseException as exc:  # noqa: BLE001 - reported to the main thread
            errors.append(exc)

    threads = [threading.Thread(target=guarded, args=(seed,)) for seed in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=SECONDS + 120)
        assert not thread.is_alive(), 'a thread did not finish: deadlock?'
    if errors:
        raise errors[0]
    assert all(count > 100 for count in checked), checked

    for shared in shared_objects:
        made = min(next(shared.updates), MAX_UPDATES[shared.chunk])
        assert shared.prefix_digests.get(shared.hasher.digest()) == made, shared.name
        assert made > 10, f'{shared.name}: too few updates to mean anything'


@pytest.mark.skipif(MEMORYVIEW_EXPORTS_RACE_UNDER_TSAN, reason=MEMORYVIEW_EXPORTS_RACE_REASON)
def test_buffer_cannot_be_released_while_hashed():
    """A memoryview being hashed (with the GIL released) cannot be released by another thread: it raises
    BufferError, as with hashlib, and the digest is that of the whole buffer."""
    data = bytes(range(256)) * (16 << 12)  # 16 MiB: long enough to be caught in the middle
    expected = hashlib.sha256(data).digest()
    tries = 40
    for attempt in range(tries):
        view = memoryview(data)
        hasher = fastdigest.sha256()
        hashing = threading.Event()
        outcome = []
        # With a GIL, releasing at once is best: a thread that spins, asking for the GIL, gets it as soon as
        # update() lets it go, whatever the load on the machine (a timed sleep alone missed the hashing there).
        # Without one (free-threaded builds) it runs beside update() and comes too early, before update() has
        # taken the buffer; a few milliseconds' wait lands inside the hashing. The tries alternate.
        delay = (attempt % 4) * 0.001

        def release_while_hashed(view=view, delay=delay):
            while not hashing.is_set():
                pass
            if delay:
                time.sleep(delay)
            try:
                view.release()
                outcome.append('released')
            except BufferError as exc:
                outcome.append(str(exc))

        releaser = threading.Thread(target=release_while_hashed)
        releaser.start()
        hashing.set()
        try:
            hasher.update(view)
        except ValueError as exc:
            # Released before update() took the buffer: too early, as hashlib would say; again.
            assert str(exc) == 'operation forbidden on released memoryview object'
            releaser.join()
            continue
        releaser.join()
        assert hasher.digest() == expected
        if outcome != ['released']:  # 'released': after update() had returned; again
            assert outcome == ['memoryview has 1 exported buffer'], outcome
            return
    pytest.fail(f'the release never ran while the update was hashing: {tries} tries')
