# Type stubs for fastdigest.hmac, written by hand and checked against the runtime by
# `python -m mypy.stubtest fastdigest` (tests/test_typing.py).
#
# The signatures follow typeshed's hmac stub. new() and HMAC() return fastdigest's HMAC for every
# digestmod: for one fastdigest does not run (a name it lacks, such as 'sha3_256', a function, a PEP 247
# module) the object hands its calls to the standard library's hmac.HMAC.
# The docstrings are the API reference (docs/reference/).

"""HMAC (RFC 2104) on fastdigest's hashes: a drop-in for the standard library's hmac module.

For fastdigest's algorithms, given by name, as a fastdigest constructor (fastdigest.sha256) or as
one of the constructors hashlib is made of (hashlib.sha256), the work is done in C. Any other
digestmod (a name fastdigest lacks such as 'sha3_256', another callable such as a patched
hashlib.sha256, a PEP 247 module) is handed to the standard library's hmac with the same
arguments, which computes the MAC and raises its own errors.
"""

from collections.abc import Callable
from hmac import compare_digest as compare_digest
from types import ModuleType
from typing import ClassVar, Literal, NoReturn, SupportsIndex, TypeAlias, overload

from typing_extensions import Self, disjoint_base

from fastdigest import HASH, _HashObject, _Messages, _OutT, _ReadableBuffer

__all__ = ['HMAC', 'compare_digest', 'digest', 'digest_many', 'digest_size', 'new', 'trans_36', 'trans_5C']

# What fastdigest runs itself: its constructors (fastdigest.sha256, ...), and the names.
_FastDigestMod: TypeAlias = Callable[..., HASH]
# Anything the standard library's hmac accepts as digestmod.
_DigestMod: TypeAlias = str | Callable[[], _HashObject] | ModuleType

digest_size: None
"""None, as in the standard library: the size depends on the hash (read HMAC.digest_size)."""
trans_5C: bytes
"""The standard library's table of key bytes XOR 0x5C (its own object)."""
trans_36: bytes
"""The standard library's table of key bytes XOR 0x36 (its own object)."""

# A C type with a layout of its own: a class cannot derive from it and from another such type.
@disjoint_base
class HMAC:
    """An HMAC object (RFC 2104), as the standard library's hmac.HMAC.

    Made by new(), or by calling HMAC as new() is called (with the same arguments, results and
    errors). For fastdigest's algorithms the key's inner and outer states are computed once and kept
    in the object, so copy() and digest() allocate nothing but their result; for any other
    digestmod the object hands every call to the standard library's hmac.HMAC. HMAC objects cannot
    be pickled (TypeError: their state is as good as the key); copy.copy() and copy.deepcopy() work.

    Subclasses may derive from it as from hmac.HMAC: override __init__ and call
    super().__init__(key, msg, digestmod), add attributes and methods. An object is keyed once:
    calling __init__ on a keyed object raises TypeError, and using one never keyed (made by
    HMAC.__new__ alone) raises AttributeError.
    """

    blocksize: ClassVar[int]
    """64, as hmac.HMAC's: the block size the standard library assumes for a hash without one."""
    def __init__(
        self, key: bytes | bytearray, msg: _ReadableBuffer | None = None, digestmod: _FastDigestMod | _DigestMod = ''
    ) -> None: ...
    @property
    def name(self) -> str:
        """`'hmac-'` and the hash's name, for example `'hmac-sha256'`."""
    @property
    def digest_size(self) -> int:
        """The size of the MAC in bytes: the hash's digest size."""
    @property
    def block_size(self) -> int:
        """The hash's block size in bytes: 64, or 128 for the SHA-512 family."""
    def update(self, msg: _ReadableBuffer) -> None:
        """Feed more of the message: any C-contiguous buffer.

        From get_gil_minsize() bytes on the GIL is released while it hashes.

        Raises:
            TypeError: msg is a str (`Strings must be encoded before hashing`) or has no buffer.
            BufferError: msg is not C-contiguous.
        """
    def digest(self) -> bytes:
        """Return the MAC of the message so far; the object is not consumed, update() may follow.

        Returns:
            digest_size bytes.
        """
    def hexdigest(self) -> str:
        """Return the MAC of the message so far as lowercase hexadecimal digits."""
    def copy(self) -> Self:
        """Return an independent copy, at the same point of the same message."""
    def __copy__(self) -> Self:
        """copy.copy(): copy(), with a subclass's attributes."""
    def __deepcopy__(self, memo: object, /) -> Self:
        """copy.deepcopy(): copy(), with deep copies of a subclass's attributes."""

# digestmod has a default ('') only so that it may follow msg: leaving it out, or passing '' or None,
# raises TypeError. The first overload says so (NoReturn) and gives the runtime's defaults, which
# stubtest checks; every overload that returns an object requires digestmod.
@overload
def new(key: bytes | bytearray, msg: _ReadableBuffer | None = None, digestmod: Literal[''] | None = '') -> NoReturn:
    """Return a new HMAC object keyed with key, optionally fed msg: hmac.new().

    Args:
        key: The key: bytes or bytearray, as the standard library takes it.
        msg: Initial message data, or None.
        digestmod: Required. One of fastdigest's algorithms by name (`'sha256'`, as hashlib.new() takes
            names), or a constructor of one: fastdigest's (fastdigest.sha256) or one hashlib is made
            of (hashlib.sha256, _hashlib.openssl_sha256, _sha2.sha256). Anything else the standard
            library accepts (`'sha3_256'`, another callable such as a patched hashlib.sha256, a PEP
            247 module) is handed to hmac.new() with the same arguments.

    Returns:
        A fastdigest HMAC; for a digestmod handed on, it hands every call to the standard library's
            hmac.HMAC.

    Raises:
        TypeError: digestmod is missing, None or empty (`Missing required argument 'digestmod'.`);
            key is neither bytes nor bytearray (`key: expected bytes or bytearray, but got 'str'`); msg
            is a str or has no buffer.
        OverflowError: key is over 2**31 - 1 bytes (`key is too long.`): such a key is handed to
            the standard library's hmac.new(), whose OpenSSL HMAC refuses it.
        BufferError: msg is not C-contiguous.
        ValueError: digestmod is a name known neither to fastdigest nor to hashlib (`unsupported
            hash type NAME`; from Python 3.15 `unsupported hash algorithm NAME`).
        Exception: for a digestmod handed to the standard library, whatever hmac.new() raises for
            it (an int raises AttributeError there).
    """

@overload
def new(key: bytes | bytearray, msg: _ReadableBuffer | None, digestmod: _FastDigestMod | _DigestMod) -> HMAC: ...
@overload
def new(key: bytes | bytearray, *, digestmod: _FastDigestMod | _DigestMod) -> HMAC: ...
def digest(key: _ReadableBuffer, msg: _ReadableBuffer, digest: _DigestMod) -> bytes:
    """Return the HMAC of msg under key in one call: hmac.digest(), with no object made.

    Args:
        key: The key: any C-contiguous buffer.
        msg: The message: any C-contiguous buffer.
        digest: As new()'s digestmod: one of fastdigest's algorithms by name or constructor; anything
            else is handed to the standard library's hmac.digest().

    Returns:
        The MAC, as bytes.

    Raises:
        TypeError: key or msg is a str or has no buffer (`a bytes-like object is required, not
            'str'`).
        OverflowError: key or msg is over 2**31 - 1 bytes (`key is too long.`, `msg is too long.`),
            up to Python 3.13: such a call is handed to the standard library's hmac.digest(), which
            passes on OpenSSL's refusal there and from 3.14 computes the MAC in Python.
        BufferError: key or msg is not C-contiguous.
        ValueError: digest is a name known neither to fastdigest nor to hashlib (`unsupported hash
            type NAME`; from Python 3.15 `unsupported hash algorithm NAME`).
        Exception: for a digest handed to the standard library, whatever hmac.digest() raises.
    """

@overload
def digest_many(
    key: _ReadableBuffer,
    messages: _Messages,
    digest: _DigestMod,
    /,
    *,
    hex: Literal[False] = False,
    threads: SupportsIndex | None = None,
    out: None = None,
) -> list[bytes]:
    """Return the HMAC of each message under one key, in order: `[digest(key, m, digest) for m in messages]`.

    With hex=True, their hex digits instead: `[new(key, m, digest).hexdigest() for m in messages]`.

    For fastdigest's algorithms the key's inner and outer states are computed once; each message then
    goes through a lane of the multi-buffer kernels from the keyed inner state, and on with the
    outer hash of its inner digest in the same lanes, without the GIL and, for a large batch, on
    several threads, as fastdigest.digest_many() hashes. messages, hex, threads and out are as
    digest_many() takes them. Any other digest is handed to the standard library's hmac.digest(),
    message by message on the calling thread, as the loop would call it (threads is then only
    checked), after one call with an empty message that raises its errors for the key and the
    digest first.

    Args:
        key: The key: any C-contiguous buffer.
        messages: Any iterable of C-contiguous buffers, or a 2-D buffer whose rows are the messages.
        digest: As for digest(): one of fastdigest's algorithms by name or constructor (fastdigest's
            or hashlib's); anything else goes to the standard library's hmac.digest().
        hex: As for fastdigest.digest_many(): True for each MAC's lowercase hex digits.
        threads: As for fastdigest.digest_many(): the most threads, the calling one included.
        out: None for a list; or a writable C-contiguous buffer of exactly n x digest_size bytes
            (n x 2 x digest_size with hex=True) that shares no byte with any message, into which the
            MACs are written one after another.

    Returns:
        A list of MACs, one bytes object per message (with hex=True one str), in the messages'
        order; with out=, out.

    Raises:
        TypeError: key is a str or has no buffer (`a bytes-like object is required, not 'str'`); a
            message is one, named by its position in hmac.digest()'s words (`digest_many() item 3:
            a bytes-like object is required, not 'str'`); threads or out as for
            fastdigest.digest_many().
        BufferError: key or a message is not C-contiguous.
        ValueError: digest is a name known neither to fastdigest nor to hashlib (`unsupported hash
            type NAME`; from Python 3.15 `unsupported hash algorithm NAME`); threads, out, or an item
            that shares memory with out, as for fastdigest.digest_many().
        Exception: for a digest handed to the standard library, whatever hmac.digest() raises (for a
            message, with its position in front of the message where it is a TypeError,
            BufferError or ValueError).
    """

@overload
def digest_many(
    key: _ReadableBuffer,
    messages: _Messages,
    digest: _DigestMod,
    /,
    *,
    hex: Literal[True],
    threads: SupportsIndex | None = None,
    out: None = None,
) -> list[str]: ...
@overload
def digest_many(
    key: _ReadableBuffer,
    messages: _Messages,
    digest: _DigestMod,
    /,
    *,
    hex: bool,
    threads: SupportsIndex | None = None,
    out: None = None,
) -> list[bytes] | list[str]: ...
@overload
def digest_many(
    key: _ReadableBuffer,
    messages: _Messages,
    digest: _DigestMod,
    /,
    *,
    hex: bool = False,
    threads: SupportsIndex | None = None,
    out: _OutT,
) -> _OutT: ...
