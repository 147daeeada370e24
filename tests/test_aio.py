"""fastdigest.aio: every function against hashlib and fastdigest's own, under asyncio's event loop and uvloop's;
on fastdigest's threads and not the loop's default executor; cancelled, with the reading stopped before the
task sees CancelledError; and (heavy tier) the loop's lag measured while 1 GiB is hashed.
"""

import asyncio
import concurrent.futures
import hashlib
import hmac
import io
import os
import random
import sys
import threading
import time

import pytest

import fastdigest
import fastdigest.aio as aio
import fastdigest.hmac
from conftest import ALGORITHMS, unsupported

pytestmark = pytest.mark.threads

try:
    import uvloop
except ImportError:
    uvloop = None

LOOPS = [
    'asyncio',
    pytest.param(
        'uvloop',
        marks=pytest.mark.skipif(
            uvloop is None,
            reason='uvloop is not installed: the test extra installs it where it has a wheel (not on Windows, '
            'nor free-threaded 3.13t)',
        ),
    ),
]


@pytest.fixture(params=LOOPS)
def run(request):
    """Runs a coroutine to its end on a new event loop of the kind."""

    def run(coroutine):
        loop = uvloop.new_event_loop() if request.param == 'uvloop' else asyncio.new_event_loop()
        try:
            return loop.run_until_complete(coroutine)
        finally:
            loop.close()

    return run


class RefusingExecutor(concurrent.futures.ThreadPoolExecutor):
    """A default executor (asyncio takes only a ThreadPoolExecutor) that fails the test if anything is run on
    it."""

    def submit(self, *args, **kwargs):
        raise AssertionError("fastdigest.aio ran work on the loop's default executor")


async def on_a_loop_without_default_executor(coroutine):
    asyncio.get_running_loop().set_default_executor(RefusingExecutor())
    return await coroutine


# ---- results ------------------------------------------------------------------------------------------------


@pytest.fixture
def files(tmp_path):
    rng = random.Random(3)
    paths = []
    for i, size in enumerate([0, 1, 63, 64, 65, 1000, 2**18 - 1, 2**18, 2**18 + 1, 3 * 2**18 + 7, 5_000_000]):
        path = tmp_path / f'file{i}'
        path.write_bytes(rng.randbytes(size))
        paths.append(path)
    return paths


def test_file_digest_of_paths(run, files):
    async def main():
        for path in files:
            data = path.read_bytes()
            for name in ALGORITHMS:
                result = await aio.file_digest(path, name)
                assert type(result) is fastdigest.HASH and result.digest() == hashlib.new(name, data).digest()
            md5, sha512 = await aio.file_digest(os.fsencode(path), ('md5', fastdigest.sha512))
            assert (md5.digest(), sha512.digest()) == (hashlib.md5(data).digest(), hashlib.sha512(data).digest())
            # An algorithm that is not fastdigest's: read through Python, as file_digest reads it.
            assert (await aio.file_digest(str(path), 'sha3_256')).digest() == hashlib.sha3_256(data).digest()

    run(on_a_loop_without_default_executor(main()))


def test_file_digest_of_file_objects(run, files):
    path = files[-2]
    data = path.read_bytes()

    async def main():
        # Unbuffered and buffered files from where they stand, left at the end as hashlib leaves them.
        for buffering in (0, -1):
            with open(path, 'rb', buffering=buffering) as file:
                file.read(100)
                result = await aio.file_digest(file, 'sha256')
                assert result.digest() == hashlib.sha256(data[100:]).digest()
                assert file.read() == b'' and file.tell() == len(data)
        # Readers without a descriptor of their own, and a buffered reader of a pipe.
        assert (await aio.file_digest(io.BytesIO(data), 'sha1')).digest() == hashlib.sha1(data).digest()
        assert (await aio.file_digest(io.BufferedReader(io.BytesIO(data)), 'md5')).digest() == hashlib.md5(
            data
        ).digest()
        read_end, write_end = os.pipe()
        writer = threading.Thread(target=lambda: (os.write(write_end, data[:60000]), os.close(write_end)))
        writer.start()
        with open(read_end, 'rb') as pipe:
            assert (await aio.file_digest(pipe, 'sha256')).digest() == hashlib.sha256(data[:60000]).digest()
        writer.join()

    run(on_a_loop_without_default_executor(main()))


def test_file_digest_errors(run, tmp_path):
    async def main():
        with pytest.raises(FileNotFoundError) as raised:
            await aio.file_digest(tmp_path / 'missing', 'sha256')
        assert raised.value.filename == str(tmp_path / 'missing')
        if sys.platform != 'win32':  # a directory opens there as PermissionError, as for open()
            with pytest.raises(IsADirectoryError):
                await aio.file_digest(tmp_path, 'sha256')
        (tmp_path / 'text').write_text('text')
        with open(tmp_path / 'text') as text, pytest.raises(ValueError) as raised:
            await aio.file_digest(text, 'sha256')
        with open(tmp_path / 'text') as text, pytest.raises(ValueError) as expected:
            fastdigest.file_digest(text, 'sha256')
        assert str(raised.value) == str(expected.value)
        with pytest.raises(ValueError, match=f'^{unsupported("nope")}$'):
            await aio.file_digest(tmp_path / 'text', 'nope')

    run(main())


def test_digest_files(run, files, tmp_path):
    contents = [path.read_bytes() for path in files]

    async def main():
        # Across the pieces of 256 paths (of the small files), with every thread count.
        small = len(files) - 2
        paths = [files[i % small] for i in range(600)]
        want = [hashlib.sha256(contents[i % small]).digest() for i in range(600)]
        for threads in (None, 1, 2):
            assert await aio.digest_files('sha256', paths, threads=threads) == want
        assert await aio.digest_files(('md5', 'sha1'), iter(files)) == [
            (hashlib.md5(data).digest(), hashlib.sha1(data).digest()) for data in contents
        ]
        assert await aio.digest_files('md5', []) == []
        # Errors as digest_files raises them: the first file in order that fails; an item named by its place.
        with pytest.raises(FileNotFoundError) as raised:
            await aio.digest_files('md5', [*paths[:300], tmp_path / 'missing', tmp_path / 'missing2'])
        assert raised.value.filename == str(tmp_path / 'missing')
        with pytest.raises(
            TypeError, match=r'^digest_files\(\) item 300: expected str, bytes or os.PathLike object, not int$'
        ):
            await aio.digest_files('md5', [*paths[:300], 5])
        with pytest.raises(TypeError) as raised:
            await aio.digest_files('md5', 'one-path')
        with pytest.raises(TypeError) as expected:
            fastdigest.digest_files('md5', 'one-path')
        assert str(raised.value) == str(expected.value)

    run(on_a_loop_without_default_executor(main()))


def test_digest_many_and_hmac(run):
    rng = random.Random(5)
    messages = [rng.randbytes(rng.randrange(200)) for _ in range(3000)]
    key = rng.randbytes(70)

    async def main():
        for name in ALGORITHMS:
            assert await aio.digest_many(name, messages) == [hashlib.new(name, m).digest() for m in messages]
            assert await aio.hmac_digest_many(key, messages, name) == [hmac.digest(key, m, name) for m in messages]
        # A tuple, any iterable, a 2-D buffer, a generator, none at all.
        assert await aio.digest_many('md5', tuple(messages)) == fastdigest.digest_many('md5', messages)
        rows = memoryview(bytes(range(256)) * 30).cast('B', (2560, 3))
        assert await aio.digest_many('sha1', rows, threads=1) == fastdigest.digest_many('sha1', rows)
        assert await aio.digest_many('sha256', (m for m in messages)) == fastdigest.digest_many('sha256', messages)
        assert await aio.digest_many('sha256', []) == [] and await aio.hmac_digest_many(key, [], 'md5') == []
        # The standard library's hmac for another digest, as hmac.digest_many hands it on.
        assert await aio.hmac_digest_many(key, messages[:5], 'sha3_256') == [
            hmac.digest(key, m, 'sha3_256') for m in messages[:5]
        ]
        # Errors name the item by its place among all the messages, in whichever piece it is.
        for where in (3, 2500):
            bad = [*messages[:where], 'text', *messages[where:]]
            with pytest.raises(
                TypeError, match=rf'^digest_many\(\) item {where}: Strings must be encoded before hashing$'
            ):
                await aio.digest_many('sha256', bad)
            with pytest.raises(TypeError, match=rf'^digest_many\(\) item {where}: a bytes-like object is required'):
                await aio.hmac_digest_many(key, bad, 'sha256')
        with pytest.raises(ValueError, match=f'^{unsupported("nope")}$'):
            await aio.digest_many('nope', [])

    run(on_a_loop_without_default_executor(main()))


def test_work_runs_on_fastdigests_pool(run):
    seen = []

    class Recording(io.RawIOBase):
        def readable(self):
            return True

        def readinto(self, buffer):
            seen.append(threading.current_thread().name)
            return 0

    run(aio.file_digest(Recording(), 'sha256'))
    assert seen and all(name.startswith('fastdigest-aio') for name in seen)


# ---- cancelling ---------------------------------------------------------------------------------------------


@pytest.mark.skipif(not hasattr(os, 'mkfifo'), reason='FIFOs are POSIX')
@pytest.mark.parametrize('function', ['file_digest', 'digest_files'])
def test_cancelling_stops_the_reader(run, tmp_path, function):
    """A FIFO fed chunk after chunk: once the cancelled task sees CancelledError, the reader has closed it, so
    the writer's next write fails with BrokenPipeError (nothing reads the file any more)."""
    fifo = tmp_path / 'fifo'
    os.mkfifo(fifo)
    chunk = bytes(2**16)
    written = []
    writer_done = threading.Event()
    outcome = []

    def write():
        deadline = time.monotonic() + 30  # then the reader gets the end of the file, if it still reads
        try:
            with open(fifo, 'wb', buffering=0) as file:
                while not writer_done.is_set() and time.monotonic() < deadline:
                    file.write(chunk)
                    written.append(len(chunk))
        except BrokenPipeError:
            outcome.append('broken pipe')
        writer_done.set()

    async def main():
        writer = threading.Thread(target=write)
        writer.start()
        call = aio.file_digest(fifo, 'sha256') if function == 'file_digest' else aio.digest_files('sha256', [fifo])
        task = asyncio.ensure_future(call)
        while len(written) < 20:  # the reader is well into the file
            await asyncio.sleep(0.001)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        # The reader closed the FIFO before the task saw CancelledError: the writer's writes now fail.
        finished = await asyncio.get_running_loop().run_in_executor(None, writer_done.wait, 30)
        writer.join()
        return finished

    assert run(main())
    assert outcome == ['broken pipe']


def test_cancelling_stops_digest_many_between_pieces(run, monkeypatch):
    consumed = []
    stop_set = threading.Event()
    set_stop = aio._fastdigest._set_stop

    def record_set_stop(flag):
        set_stop(flag)
        stop_set.set()

    monkeypatch.setattr(aio._fastdigest, '_set_stop', record_set_stop)

    async def main():
        loop = asyncio.get_running_loop()

        def messages():
            for i in range(1_000_000):
                consumed.append(i)
                if i == 1500:  # in the second piece of 1024: the task is cancelled, and its stop flag set
                    loop.call_soon_threadsafe(task.cancel)
                    assert stop_set.wait(30)
                yield b'%d' % i

        task = asyncio.ensure_future(aio.digest_many('sha256', messages()))
        with pytest.raises(asyncio.CancelledError):
            await task

    run(main())
    # The piece being read when the flag was set was the last: no item of the one after it was read.
    assert len(consumed) == 2048


def test_cancelled_before_it_started(run):
    async def main():
        task = asyncio.ensure_future(aio.digest_many('md5', [b'x'] * 10))
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    run(main())


# ---- the loop's lag ---------------------------------------------------------------------------------------

TASKS = '/proc/self/task'


def waits_for_a_cpu():
    """{thread: nanoseconds it has spent runnable but waiting for a CPU} for the process's threads (Linux's
    schedstat, its second field), or None where the system does not tell."""
    waits = {}
    try:
        tasks = os.listdir(TASKS)
    except OSError:
        return None
    for task in tasks:
        try:
            with open(f'{TASKS}/{task}/schedstat') as file:
                waits[task] = int(file.read().split()[1])
        except (OSError, IndexError, ValueError):  # a thread that ended meanwhile
            pass
    return waits or None


async def longest_lag(call):
    """Awaits call while a probe on the loop's thread yields to the loop over and over, and returns the longest
    time between two of its turns, less the time the process's threads spent waiting for a CPU meanwhile (what
    the system's other work takes, which a machine with a core to spare does not)."""
    done = False
    longest = 0.0

    async def probe():
        nonlocal longest
        last, waited = time.perf_counter(), waits_for_a_cpu()
        while not done:
            await asyncio.sleep(0)
            now, now_waited = time.perf_counter(), waits_for_a_cpu()
            extra = sum(ns - waited.get(task, 0) for task, ns in now_waited.items())
            longest = max(longest, now - last - extra / 1e9)
            last, waited = now, now_waited

    probing = asyncio.ensure_future(probe())
    await asyncio.sleep(0)
    try:
        await call
    finally:
        done = True
        await probing
    return longest


@pytest.mark.slow
@pytest.mark.skipif(
    waits_for_a_cpu() is None,
    reason="the probe reads Linux's per-thread schedstat, to tell the call's lag from a busy machine's",
)
@pytest.mark.parametrize('function', ['file_digest', 'digest_files', 'digest_many'])
# asyncio's loop alone: what keeps a loop waiting is the GIL and the loop's thread, alike under uvloop's,
# and each case takes seconds of the heavy tier.
@pytest.mark.parametrize('run', ['asyncio'], indirect=True)
def test_the_loop_never_waits_a_millisecond_while_1_gib_is_hashed(run, tmp_path, function):
    """The longest lag of the loop while 1 GiB is hashed, the best of three calls, against the longest lag of
    the same probe with nothing else running for as long (the machine's own: on a shared or virtual machine,
    time the system gives elsewhere without counting it as a wait for a CPU, which one more busy thread of
    the call's makes longer). On an idle machine the probe alone lags some tens of microseconds, and the
    bound is a millisecond; on a busy one, twice the machine's own lag beside it, which a call that kept
    the loop waiting (for its whole hashing, or a GIL held for a chunk after chunk) still exceeds."""
    big = tmp_path / 'big'
    with open(big, 'wb') as file:
        file.truncate(1 << 30)  # sparse: reads as zeros without a disk
    block = bytes(1 << 16)

    def call():
        if function == 'file_digest':
            return aio.file_digest(big, 'sha256')
        if function == 'digest_files':  # on one thread: the probe and the reader have a core each
            return aio.digest_files('sha256', [big], threads=1)
        return aio.digest_many('sha256', [block] * (1 << 14), threads=1)

    async def main():
        await aio.digest_many('md5', [b''])  # the pool's first thread, started before the probe
        lags, took = [], []
        for _ in range(3):
            started = time.perf_counter()
            lags.append(await longest_lag(call()))
            took.append(time.perf_counter() - started)
        return min(lags), await longest_lag(asyncio.sleep(max(took)))

    lag, machine = run(main())
    assert lag < 0.001 + 2 * machine, f'the event loop waited {lag * 1000:.2f} ms (alone: {machine * 1000:.2f} ms)'
