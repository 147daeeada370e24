# Type stubs for fastdigest.hmac, written by hand and checked against the runtime by
# `python -m mypy.stubtest fastdigest` (tests/test_typing.py).
#
# The signatures follow typeshed's hmac stub. new() returns fastdigest's HMAC for a fastdigest (or hashlib)
# constructor; for a name it may be the standard library's hmac.HMAC (names fastdigest lacks, such
# as 'sha3_256', are handed to the standard library), and so it is for any other digestmod.

import hmac as _stdlib_hmac
from collections.abc import Callable
from hmac import compare_digest as compare_digest
from types import ModuleType
from typing import Literal, NoReturn, final, overload

from typing_extensions import Self, TypeAlias

from fastdigest import HASH, _HashObject, _ReadableBuffer

__all__ = ["HMAC", "compare_digest", "digest", "digest_size", "new", "trans_36", "trans_5C"]

# What fastdigest runs itself: its constructors (fastdigest.sha256, ...), and the names.
_FastDigestMod: TypeAlias = Callable[..., HASH]
# Anything the standard library's hmac accepts as digestmod.
_DigestMod: TypeAlias = str | Callable[[], _HashObject] | ModuleType

# As in the standard library: None; the size depends on the hash (HMAC.digest_size).
digest_size: None
# The standard library's key-padding tables (its own objects).
trans_5C: bytes
trans_36: bytes

@final
class HMAC:
    """An HMAC object (RFC 2104). Made by new(), or by calling HMAC as new() is called."""

    # For a digestmod fastdigest does not run itself, the call returns the standard library's
    # hmac.HMAC (use new() for that type); the stub describes the fast case.
    def __new__(
        cls, key: bytes | bytearray, msg: _ReadableBuffer | None = None, digestmod: _FastDigestMod | str = ""
    ) -> Self: ...

    @property
    def name(self) -> str: ...
    @property
    def digest_size(self) -> int: ...
    @property
    def block_size(self) -> int: ...
    def update(self, msg: _ReadableBuffer) -> None: ...
    def digest(self) -> bytes: ...
    def hexdigest(self) -> str: ...
    def copy(self) -> Self: ...
    def __copy__(self) -> Self: ...
    def __deepcopy__(self, memo: object, /) -> Self: ...

# digestmod has a default ('') only so that it may follow msg: leaving it out, or passing '' or None,
# raises TypeError. The first overload says so (NoReturn) and gives the runtime's defaults, which
# stubtest checks; every overload that returns an object requires digestmod.
@overload
def new(key: bytes | bytearray, msg: _ReadableBuffer | None = None, digestmod: Literal[""] | None = "") -> NoReturn: ...
@overload
def new(key: bytes | bytearray, msg: _ReadableBuffer | None, digestmod: _FastDigestMod) -> HMAC: ...
@overload
def new(key: bytes | bytearray, *, digestmod: _FastDigestMod) -> HMAC: ...
@overload
def new(key: bytes | bytearray, msg: _ReadableBuffer | None, digestmod: _DigestMod) -> HMAC | _stdlib_hmac.HMAC: ...
@overload
def new(key: bytes | bytearray, *, digestmod: _DigestMod) -> HMAC | _stdlib_hmac.HMAC: ...
def digest(key: _ReadableBuffer, msg: _ReadableBuffer, digest: _DigestMod) -> bytes: ...
