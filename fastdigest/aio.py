"""fastdigest for asyncio: hashing that the event loop awaits without running it.

Each function runs its work on fastdigest's own threads, a small pool of this module's (never the loop's
default executor, which the application shares with everything else), where the reading and hashing run
without the GIL, or in pieces between which the GIL is handed back, so that the loop's thread is never
kept waiting for long. Cancelling the awaiting task stops the work at its next chunk or piece: the task
gets CancelledError once the work has stopped. The type stubs (fastdigest/aio.pyi) and docs/asyncio.md
describe each function.
"""

import asyncio
import io
import itertools
import os
import re
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import fastdigest
import fastdigest.hmac
from fastdigest import _fastdigest

__all__ = ['digest_files', 'digest_many', 'file_digest', 'hmac_digest_many']

# The messages handed to one digest_many call: it reads their items and makes their results with the GIL
# held, some ten microseconds per hundred short messages, which the event loop's thread may wait for.
_MESSAGES_PER_PIECE = 1024

# The files of one digest_files call: each path is converted with the GIL held.
_FILES_PER_PIECE = 256


class _Stopped(Exception):
    """The work saw its stop flag set."""


# ---- the pool ---------------------------------------------------------------------------------------------

_pool = None
_pool_lock = threading.Lock()


def _executor():
    global _pool
    with _pool_lock:
        if _pool is None:
            # One thread per CPU this process may run on, at least two: a call occupies a thread for as long as
            # it reads or hashes, and the calls that hash on several threads start fastdigest's own for that.
            cpus = len(os.sched_getaffinity(0)) if hasattr(os, 'sched_getaffinity') else os.cpu_count() or 1
            _pool = ThreadPoolExecutor(max_workers=max(2, cpus), thread_name_prefix='fastdigest-aio')
        return _pool


def _forget_pool():
    # A forked child has none of the parent's threads: it makes a pool of its own when it needs one.
    global _pool, _pool_lock
    _pool, _pool_lock = None, threading.Lock()


if hasattr(os, 'register_at_fork'):
    os.register_at_fork(after_in_child=_forget_pool)


async def _run(work, *args):
    """work(stop, *args) on the pool, awaited. On cancellation the stop flag is set and the work waited for
    (it stops at its next check), and then CancelledError goes on to the awaiting task."""
    stop = _fastdigest._stop_flag()
    done = _executor().submit(work, stop, *args)
    awaited = asyncio.wrap_future(done)
    try:
        return await asyncio.shield(awaited)
    except asyncio.CancelledError:
        _fastdigest._set_stop(stop)
        done.cancel()  # where it has not started yet
        try:
            await asyncio.shield(awaited)
        except BaseException:  # its outcome no longer matters: the task was cancelled
            pass
        raise


def _check(stop):
    if _fastdigest._is_stopped(stop):
        raise _Stopped
    # Hands the GIL to a thread that waits for it (the event loop's) before the next piece.
    time.sleep(0)


# ---- file_digest ------------------------------------------------------------------------------------------


class _StoppableReader:
    """A binary file whose reads stop once the flag is set, for fastdigest.file_digest to read: the way for
    file objects without a file descriptor of their own to read, and for hash objects not fastdigest's."""

    def __init__(self, file, stop):
        self._file, self._stop = file, stop

    def readable(self):
        return self._file.readable()

    def readinto(self, buffer):
        _check(self._stop)
        return self._file.readinto(buffer)

    def __repr__(self):
        return repr(self._file)


def _descriptor(file):
    """The file descriptor to read a file object through, positioned where the object is, or None: an
    unbuffered file's own; a seekable buffered reader's, moved from where the reader's buffer left it to
    where the reader stands (the reader's own seek may move only within its buffer)."""
    if type(file) is io.FileIO:
        return file.fileno()
    if type(file) is io.BufferedReader and type(file.raw) is io.FileIO and file.seekable():
        os.lseek(file.fileno(), file.tell(), os.SEEK_SET)
        return file.fileno()
    return None


def _file_digest(stop, file, digest):
    if isinstance(file, (str, bytes, os.PathLike)):
        with open(file, 'rb', buffering=0) as opened:
            return _file_digest(stop, opened, digest)
    if not (hasattr(file, 'readinto') and hasattr(file, 'readable')):
        return fastdigest.file_digest(file, digest)  # which raises its error for what is no binary file
    # The hash objects as file_digest makes them, with its errors for the digest argument.
    objects = fastdigest.file_digest(io.BytesIO(), digest)
    several = isinstance(objects, tuple)
    objects = objects if several else (objects,)
    descriptor = _descriptor(file) if file.readable() else None
    if descriptor is not None and all(type(obj) is fastdigest.HASH for obj in objects):
        if not _fastdigest._file_update(descriptor, objects, stop):
            raise _Stopped
        if type(file) is io.BufferedReader:
            file.seek(0, os.SEEK_END)  # where the reads left the descriptor: the end
        return objects if several else objects[0]
    return fastdigest.file_digest(_StoppableReader(file, stop), digest)


async def file_digest(file, digest, /):
    return await _run(_file_digest, file, digest)


# ---- digest_files, digest_many and hmac_digest_many: in pieces ---------------------------------------------

_ITEM = re.compile(r'^((?:digest_many|digest_files)\(\) item )(\d+)(:.*)$', re.DOTALL)


def _items(iterable, size):
    """(offset, list) for consecutive pieces of size items of any iterable; at least one."""
    iterator = iter(iterable)
    for start in itertools.count(0, size):
        piece = list(itertools.islice(iterator, size))
        if piece or start == 0:
            yield start, piece
        if len(piece) < size:
            return


def _messages(messages):
    """(offset, piece) for consecutive pieces of the messages, each taken by digest_many as the whole would
    be: slices of a list or tuple, rows of a 2-D buffer, items of any other iterable; at least one."""
    if isinstance(messages, (list, tuple)):
        for start in range(0, max(len(messages), 1), _MESSAGES_PER_PIECE):
            yield start, messages[start : start + _MESSAGES_PER_PIECE]
        return
    try:
        view = memoryview(messages)
    except TypeError:
        view = None
    if view is None:
        yield from _items(messages, _MESSAGES_PER_PIECE)
        return
    if view.ndim != 2 or not view.c_contiguous:
        yield 0, messages  # digest_many says what is wrong with it, or takes it whole
        return
    rows, row_len = view.shape[0], view.shape[1] * view.itemsize
    flat = view.cast('B')
    for start in range(0, max(rows, 1), _MESSAGES_PER_PIECE):
        end = min(start + _MESSAGES_PER_PIECE, rows)
        yield start, flat[start * row_len : end * row_len].cast('B', (end - start, row_len))


def _in_pieces(stop, hash_piece, pieces):
    """The results of hash_piece over the pieces, one list, with the stop flag checked after each."""
    results = []
    for offset, piece in pieces:
        try:
            digests = hash_piece(piece)
        except (TypeError, ValueError, BufferError) as error:
            # The item an error names, counted from the first item rather than the piece's.
            found = _ITEM.match(str(error)) if offset and len(error.args) == 1 else None
            if found is None:
                raise
            raise type(error)(found[1] + str(int(found[2]) + offset) + found[3]) from None
        if digests is None:
            raise _Stopped
        results += digests
        _check(stop)  # before the next piece is read
    return results


def _digest_files(stop, name, paths, threads):
    if isinstance(paths, (str, bytes, bytearray)):
        return fastdigest.digest_files(name, paths, threads=threads)  # its TypeError for a single path
    return _in_pieces(
        stop,
        lambda piece: _fastdigest.digest_files(name, piece, threads=threads, _stop=stop),
        _items(paths, _FILES_PER_PIECE),
    )


async def digest_files(name, paths, /, *, threads=None):
    return await _run(_digest_files, name, paths, threads)


def _digest_many(stop, name, messages, threads):
    return _in_pieces(stop, lambda piece: fastdigest.digest_many(name, piece, threads=threads), _messages(messages))


async def digest_many(name, messages, /, *, threads=None):
    return await _run(_digest_many, name, messages, threads)


def _hmac_digest_many(stop, key, messages, digest, threads):
    return _in_pieces(
        stop, lambda piece: fastdigest.hmac.digest_many(key, piece, digest, threads=threads), _messages(messages)
    )


async def hmac_digest_many(key, messages, digest, /, *, threads=None):
    return await _run(_hmac_digest_many, key, messages, digest, threads)
