"""Reading and hashing the files: one job per file, hashed in a pool of threads.

fastdigest releases the GIL while it hashes a chunk, and so does the read, so
the files of one command line are hashed in parallel; each thread reads its
files in large chunks into a buffer that it reuses. A batch of several small
files goes to fastdigest.digest_files in one call, which opens, reads and hashes
them all without the GIL, and so does a big file, on two threads when it is the
only file.

Every job is hashed with each of the run's algorithms (-a md5,sha256), from one
read of each chunk.

threading is imported only once a thread is needed: a run that hashes one file
in the calling thread goes without it, and so does its start-up time.
"""

from __future__ import annotations

import collections
import errno
import io
import os
import stat

import fastdigest

# typing.TYPE_CHECKING without importing typing; mypy reads the name itself.
TYPE_CHECKING = False

if TYPE_CHECKING:
    import threading
    from collections.abc import Callable, Sequence
    from queue import SimpleQueue
    from typing import Any, BinaryIO, Protocol

    class _Waitable(Protocol):
        """What Hasher.submit returns: threading.Event's wait(), or _Finished's."""

        def wait(self, timeout: float | None = None) -> bool: ...


# What the hashing loop reads from: FileIO, or a BytesIO in the tests.
Reader = io.RawIOBase | io.BufferedIOBase

# 1 MiB per read: large enough that the per-read costs (a system call, the
# GIL handed back and forth twice) are lost in the hashing of the chunk, and
# about a core's L2 cache, so the hash finds the chunk the read just copied.
CHUNK_SIZE = 1 << 20

# The smallest buffer the calling thread reads a small file into: a page.
SMALL_BUFFER_SIZE = 4096

# A file of this many chunks or more is big: digest_files reads and hashes it
# without taking the GIL at each chunk, and on two threads when it is the run's
# one file (files/pair.h's relay or split, from 32 of its chunks of 256 KiB:
# 8 MiB).
BIG_FILE_MIN_CHUNKS = 8


class Cancelled(Exception):
    """Raised in a worker when the run is being abandoned (Ctrl-C)."""


class Missing(Exception):
    """The file does not exist and --ignore-missing was given."""


class HashJob:
    """One file to hash, and then its hex digests (one per algorithm of the run) or
    the exception that stopped it. Its worker thread is the only writer of
    bytes_done, digests and error; size (the file's, when known) is set before the
    job is submitted. A job made with an error (a directory that could not be
    listed) is not hashed: its result raises the error."""

    __slots__ = ('name', 'algorithms', 'size', 'bytes_done', 'digests', 'error')

    def __init__(self, name: bytes, error: BaseException | None = None) -> None:
        self.name = name
        # The algorithms to hash with, when not the run's (--check: the lines'
        # own); their digests come in this order.
        self.algorithms: tuple[str, ...] | None = None
        self.size: int | None = None
        self.bytes_done = 0
        self.digests: tuple[str, ...] = ()
        self.error = error

    def result(self) -> tuple[str, ...]:
        if self.error is not None:
            raise self.error
        return self.digests


class _Finished:
    """A batch hashed in the calling thread: done as soon as it is handed over, so
    that waiting for it needs no threading.Event."""

    __slots__ = ()

    def wait(self, timeout: float | None = None) -> bool:
        return True


class _ItemQueue:
    """queue.SimpleQueue's put() and get() (unbounded, first in first out, any number
    of threads) without importing the queue module, for the pool's few hand-overs
    per run: a deque, whose append() and popleft() are atomic, and a semaphore
    counting its items, released only once an item is in, so that every get()
    that passes the semaphore finds one."""

    __slots__ = ('_items', '_count')

    def __init__(self) -> None:
        import threading

        self._items: collections.deque[object] = collections.deque()
        self._count = threading.Semaphore(0)

    def put(self, item: object) -> None:
        self._items.append(item)
        self._count.release()

    def get(self) -> object:
        self._count.acquire()
        return self._items.popleft()


def _new_item_queue() -> SimpleQueue[Any]:
    # Typed as queue.SimpleQueue, the interface _ItemQueue implements (put and get only).
    return _ItemQueue()  # type: ignore[return-value]


class WorkerPool:
    """Daemon threads calling the submitted functions in submission order
    (concurrent.futures' pool without its import cost). Daemon threads, so that
    Ctrl-C never waits for a read blocked on a pipe."""

    def __init__(self, workers: int) -> None:
        self.workers = max(1, workers)
        self.calls: SimpleQueue[tuple[Callable[..., None], tuple[object, ...]] | None] = _new_item_queue()
        self.threads: list[threading.Thread] = []

    def submit(self, function: Callable[..., None], *arguments: object) -> None:
        import threading

        self.calls.put((function, arguments))
        if len(self.threads) < self.workers:
            thread = threading.Thread(target=self._work, name='fastdigest-worker', daemon=True)
            thread.start()
            self.threads.append(thread)

    def _work(self) -> None:
        while True:
            call = self.calls.get()
            if call is None:
                return
            function, arguments = call
            function(*arguments)

    def shutdown(self, wait: bool) -> None:
        for _ in self.threads:
            self.calls.put(None)
        if wait:
            for thread in self.threads:
                thread.join()


class Hasher:
    """Hashes batches of files in a pool of threads; each batch sets an event when done."""

    def __init__(self, algorithms: Sequence[str], stdin: BinaryIO, workers: int) -> None:
        self.algorithms = tuple(algorithms)
        self.stdin = stdin
        self.cancelled = False
        self._cpus = workers
        # Made with the first thread (start_threads): a run that hashes in the
        # calling thread alone does without threading.
        self._pool: WorkerPool | None = None
        self._buffers: Any = None  # threading.local(): each worker's buffer
        self._own_buffer: tuple[bytearray, memoryview] | None = None  # the calling thread's
        # Standard input can be named more than once, and so can a pipe or a
        # FIFO under its own names (- and /dev/stdin); the reads must happen one
        # after another in argument order (the first one reads to EOF), so all
        # of them go through a pool of one thread.
        self._once_only_pool: WorkerPool | None = None
        # Set when the calling thread has nothing else to do while the jobs are
        # hashed (one file, no progress bar): it hashes them itself, sparing a
        # thread's start and hand-over, which take from 0.1 ms to several on a
        # busy machine, where the new thread waits for a core.
        self.inline = False
        # Set when a progress bar is drawn: digest_files tells nothing of a
        # file until it is hashed, so big files are then read here.
        self.progress_shown = False

    def _start_threads(self) -> None:
        """The pool and what its threads share, made once, by the calling thread."""
        if self._pool is None:
            import threading

            self._buffers = threading.local()
            self._pool = WorkerPool(self._cpus)

    def submit(self, jobs: list[HashJob], ignore_missing: bool, once_only: bool = False) -> _Waitable:
        """Hash *jobs* one after another in one thread (the calling one if
        self.inline). A batch holds either regular files (or names that are
        neither) only, or one job of standard input, a pipe, a FIFO or a
        device (*once_only*), which are read in the order submitted."""
        if self.inline:
            self._hash_batch(jobs, ignore_missing, None)
            return _Finished()
        import threading

        self._start_threads()
        finished = threading.Event()
        if once_only:
            if self._once_only_pool is None:
                self._once_only_pool = WorkerPool(1)
            self._once_only_pool.submit(self._hash_batch, jobs, ignore_missing, finished)
        else:
            assert self._pool is not None
            self._pool.submit(self._hash_batch, jobs, ignore_missing, finished)
        return finished

    def shutdown(self) -> None:
        """Stop the threads; wait for them unless the run was cancelled."""
        for pool in (self._pool, self._once_only_pool):
            if pool is not None:
                pool.shutdown(wait=not self.cancelled)

    def _hash_batch(self, jobs: list[HashJob], ignore_missing: bool, finished: threading.Event | None) -> None:
        try:
            if len(jobs) > 1 and jobs[0].name != b'-' and not self.cancelled and self._hash_together(jobs):
                return
            for job in jobs:
                if job.error is not None:
                    continue  # made with its error: nothing to read
                try:
                    if job.name == b'-':
                        job.digests = self._hash_stdin(job)
                    else:
                        job.digests = self._hash_file(job, ignore_missing)
                except BaseException as error:  # handed to the thread that prints
                    job.error = error
        finally:
            if finished is not None:
                finished.set()

    def _hash_together(self, jobs: list[HashJob]) -> bool:
        """Hashes a batch of files in one call of digest_files, which reads and
        hashes them without the GIL; False when a file could not be read (its
        error, and --ignore-missing, are then the file-by-file path's to
        report: digest_files says only which file failed first)."""
        algorithms = jobs[0].algorithms or self.algorithms
        if any(job.error is not None or (job.algorithms or self.algorithms) != algorithms for job in jobs):
            return False
        names = [job.name for job in jobs]
        results: list[tuple[bytes, ...]]
        try:
            if len(algorithms) == 1:
                results = [(digest,) for digest in fastdigest.digest_files(algorithms[0], names, threads=1)]
            else:
                results = fastdigest.digest_files(algorithms, names, threads=1)
        except OSError:
            return False
        for job, digests in zip(jobs, results, strict=False):
            job.digests = tuple(digest.hex() for digest in digests)
            job.bytes_done = job.size or 0
        return True

    def _buffer(self, size: int | None) -> tuple[bytearray, memoryview]:
        """The calling thread's buffer, or the worker's: CHUNK_SIZE bytes, made once
        per thread. A file of known *size* hashed in the calling thread before any
        worker exists (a lone file) gets one only as large as it needs: making a
        buffer touches each of its pages, and a MiB of pages is a few percent of
        a short command's CPU."""
        buffers = self._buffers
        if buffers is None:
            wanted = CHUNK_SIZE if size is None else min(CHUNK_SIZE, max(size + 1, SMALL_BUFFER_SIZE))
            if self._own_buffer is None or len(self._own_buffer[0]) < wanted:
                array = bytearray(wanted)
                self._own_buffer = (array, memoryview(array))
            return self._own_buffer
        if not hasattr(buffers, 'view'):
            buffers.array = bytearray(CHUNK_SIZE)
            buffers.view = memoryview(buffers.array)
        return buffers.array, buffers.view

    def _hash_file(self, job: HashJob, ignore_missing: bool) -> tuple[str, ...]:
        # FileIO reads without the GIL and rejects a directory with EISDIR,
        # the error coreutils reports for one.
        try:
            stream = io.FileIO(job.name, 'rb')
        except FileNotFoundError:
            if ignore_missing:
                raise Missing() from None
            raise
        with stream:
            if not self.progress_shown and _is_big_regular_file(stream):
                return self._hash_big_file(job)
            return self._hash_stream(stream, job)

    def _hash_big_file(self, job: HashJob) -> tuple[str, ...]:
        """A big regular file hashed by digest_files: on two threads when it is
        the run's one file (self.inline), else on this one, beside the pool's
        other threads, one per CPU already (a second thread each would take
        cores from the other files)."""
        if self.cancelled:
            raise Cancelled()
        algorithms = tuple(job.algorithms or self.algorithms)
        threads = 2 if self.inline and self._cpus >= 2 else 1
        digests = fastdigest.digest_files(algorithms, [job.name], threads=threads)[0]
        job.bytes_done = job.size or 0
        return tuple(digest.hex() for digest in digests)

    def _hash_stdin(self, job: HashJob) -> tuple[str, ...]:
        stream = self.stdin
        try:
            descriptor = stream.fileno()
        except (AttributeError, OSError, ValueError):
            # A stream without a descriptor (io.BytesIO in the tests).
            return self._hash_stream(stream, job)  # type: ignore[arg-type]
        # Read the descriptor itself: no Python-level buffering, no copy.
        raw = io.FileIO(descriptor, 'rb', closefd=False)
        try:
            return self._hash_stream(raw, job)
        finally:
            raw.close()

    def _hash_stream(self, stream: Reader, job: HashJob) -> tuple[str, ...]:
        array, view = self._buffer(job.size)
        digests = [fastdigest.new(algorithm) for algorithm in job.algorithms or self.algorithms]
        readinto = stream.readinto
        update: Callable[[memoryview], None]
        if len(digests) == 1:
            update = digests[0].update
        else:
            updates = [digest.update for digest in digests]

            def update_all(chunk: memoryview) -> None:
                for one in updates:
                    one(chunk)

            update = update_all

        while True:
            if self.cancelled:
                raise Cancelled()
            count = readinto(array)
            if count is None:
                # A non-blocking descriptor with nothing to read yet: coreutils
                # reports the EAGAIN of its read() as an error, and so do we.
                raise BlockingIOError(errno.EAGAIN, os.strerror(errno.EAGAIN))
            if not count:
                break
            update(view[:count])
            job.bytes_done += count
            if count == len(array) and job.bytes_done == count:
                # A first full chunk: a file worth the system call of telling
                # the kernel to read ahead further.
                _advise_sequential(stream)
        return tuple(digest.hexdigest() for digest in digests)


def _is_big_regular_file(stream: io.FileIO) -> bool:
    try:
        status = os.fstat(stream.fileno())
    except OSError:
        return False
    return stat.S_ISREG(status.st_mode) and status.st_size >= BIG_FILE_MIN_CHUNKS * CHUNK_SIZE


def _advise_sequential(stream: Reader) -> None:
    try:
        os.posix_fadvise(stream.fileno(), 0, 0, os.POSIX_FADV_SEQUENTIAL)
    except (AttributeError, OSError, ValueError):
        pass  # no such call here, or a pipe: the hint does not apply


def worker_count() -> int:
    """The number of CPUs this process may run on: the threads worth starting."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1
