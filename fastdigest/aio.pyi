# Type stubs for fastdigest.aio, written by hand and checked against the runtime by
# `python -m mypy.stubtest fastdigest` (tests/test_typing.py). The docstrings are the API reference
# (docs/reference/aio.md).

"""fastdigest for asyncio: the reading and hashing of files and batches, awaited.

Each function runs its work on fastdigest's own threads (a small pool of this module's, never the
event loop's default executor, which the application shares with everything else), where the
reading and hashing run without the GIL, so that the event loop keeps running meanwhile.
Cancelling the awaiting task stops the work at its next chunk (256 KiB of a file) or piece (1024
messages, 256 files), and the task gets CancelledError once it has stopped. Works under any
asyncio event loop, uvloop's included. [From asyncio](../asyncio.md) has the details.
"""

from collections.abc import Callable, Iterable
from hashlib import _Hash as _StdlibHash
from typing import SupportsIndex, TypeVar, overload

from fastdigest import (
    HASH,
    _Algorithm,
    _BytesIOLike,
    _FastdigestName,
    _FileDigestFileObj,
    _HashObject,
    _Messages,
    _Path,
    _ReadableBuffer,
)
from fastdigest.hmac import _DigestMod

__all__ = ['digest_files', 'digest_many', 'file_digest', 'hmac_digest_many']

_HashObjectT = TypeVar('_HashObjectT', bound=_HashObject)

@overload
async def file_digest(file: _Path | _BytesIOLike | _FileDigestFileObj, digest: _FastdigestName, /) -> HASH:
    """Hash the contents of a file, as fastdigest.file_digest() does, on fastdigest's threads.

    A path is opened, read to its end and closed there. An unbuffered file (`open(path, 'rb',
    buffering=0)`) or a seekable buffered one (`open(path, 'rb')`) is read from where it stands
    through its file descriptor, which is left at the end of the file; a reader the pool thread
    must read through Python (io.BytesIO, a socket's file, a pipe behind a buffered reader) is read
    with readinto(), which then takes the GIL for a moment per chunk. For fastdigest's algorithms
    the reading and hashing run in C without the GIL, in chunks of 256 KiB; any other algorithm is
    hashed as file_digest() hashes it. Do not use the file elsewhere until the call returns.

    Args:
        file: A path (str, bytes or os.PathLike), or a file opened for reading in binary mode, or
            an object with getbuffer() such as io.BytesIO.
        digest: As for fastdigest.file_digest(): an algorithm name, a callable that returns a new
            hash object, or a tuple of them.

    Returns:
        The hash object fed the whole file, as fastdigest.file_digest() returns it (a tuple of
            them for a tuple).

    Raises:
        asyncio.CancelledError: the awaiting task was cancelled; the reading stopped at its next
            chunk, before this is raised.
        OSError: the file cannot be opened or read, as open() and its read raise it.
        ValueError: what fastdigest.file_digest() raises for the file or the digest.
    """

@overload
async def file_digest(file: _Path | _BytesIOLike | _FileDigestFileObj, digest: str, /) -> HASH | _StdlibHash: ...
@overload
async def file_digest(
    file: _Path | _BytesIOLike | _FileDigestFileObj, digest: Callable[[], _HashObjectT], /
) -> _HashObjectT: ...
@overload
async def file_digest(
    file: _Path | _BytesIOLike | _FileDigestFileObj, digest: tuple[str | Callable[[], _HashObject], ...], /
) -> tuple[_HashObject, ...]: ...
@overload
async def digest_files(
    name: _Algorithm, paths: Iterable[_Path], /, *, threads: SupportsIndex | None = None
) -> list[bytes]:
    """Return the digests of many files, in order, as fastdigest.digest_files() does, awaited.

    The paths are taken 256 at a time (each converted with the GIL held), and each piece goes to
    digest_files(), whose reading and hashing run without the GIL on its own threads; cancelling
    stops every thread at its next chunk.

    Args:
        name: As for fastdigest.digest_files(): an algorithm, or a tuple of them.
        paths: Any iterable of paths (not a single str or bytes).
        threads: As for fastdigest.digest_files(): the most threads for each piece.

    Returns:
        A list with the digest of each file (a tuple of digests for a tuple of algorithms).

    Raises:
        asyncio.CancelledError: the awaiting task was cancelled; every thread stopped reading at
            its next chunk, before this is raised.
        OSError: as fastdigest.digest_files() raises it: the first file in order that cannot be
            read (files of pieces before it are hashed).
        ValueError, TypeError: as fastdigest.digest_files() raises them; an item that is no path
            is named by its position among all the paths.
    """

@overload
async def digest_files(
    name: tuple[_Algorithm, ...], paths: Iterable[_Path], /, *, threads: SupportsIndex | None = None
) -> list[tuple[bytes, ...]]: ...
async def digest_many(name: _Algorithm, messages: _Messages, /, *, threads: SupportsIndex | None = None) -> list[bytes]:
    """Return the digests of many messages, in order, as fastdigest.digest_many() does, awaited.

    The messages go to digest_many() 1024 at a time (slices of a list or tuple, rows of a 2-D
    buffer, items of any other iterable, which is read as the pieces are hashed); between pieces
    the GIL is handed to the event loop's thread if it waits for it.

    Args:
        name: As for fastdigest.digest_many().
        messages: As for fastdigest.digest_many(): an iterable of buffers, or a 2-D buffer.
        threads: As for fastdigest.digest_many(): the most threads for each piece.

    Returns:
        A list of digests, one bytes object per message, in order.

    Raises:
        asyncio.CancelledError: the awaiting task was cancelled; the hashing stopped before the
            next piece, before this is raised.
        TypeError, ValueError, BufferError: as fastdigest.digest_many() raises them, an item
            named by its position among all the messages.
    """

async def hmac_digest_many(
    key: _ReadableBuffer, messages: _Messages, digest: _DigestMod, /, *, threads: SupportsIndex | None = None
) -> list[bytes]:
    """Return the HMAC of each message under one key, in order, as fastdigest.hmac.digest_many() does,
    awaited, in pieces as digest_many() here.

    Args:
        key: The key: any C-contiguous buffer.
        messages: As for digest_many().
        digest: As for fastdigest.hmac.digest_many().
        threads: As for fastdigest.hmac.digest_many(): the most threads for each piece.

    Returns:
        A list of MACs, one bytes object per message, in order.

    Raises:
        asyncio.CancelledError: the awaiting task was cancelled; the hashing stopped before the
            next piece, before this is raised.
        TypeError, ValueError, BufferError: as fastdigest.hmac.digest_many() raises them.
    """
