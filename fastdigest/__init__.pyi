# Type stubs for fastdigest, written by hand and checked against the runtime by
# `python -m mypy.stubtest fastdigest` (tests/test_typing.py).
#
# The signatures follow typeshed's hashlib/_hashlib stubs, per Python version as
# the runtime's: from 3.14 the constructors take `data` positionally or by
# keyword, plus the deprecated keyword `string`; before, `string`. Stubs are never executed, so importing typing_extensions
# here adds no runtime dependency: type checkers bundle it with typeshed.

import sys
from collections.abc import Callable, Iterable

# The rest of hashlib's namespace is the standard library's own objects at runtime, so it is typed by
# typeshed's hashlib stubs. (scrypt exists only where hashlib has it.)
from hashlib import (
    _Hash as _StdlibHash,
    blake2b as blake2b,
    blake2s as blake2s,
    scrypt as scrypt,
    sha3_224 as sha3_224,
    sha3_256 as sha3_256,
    sha3_384 as sha3_384,
    sha3_512 as sha3_512,
    shake_128 as shake_128,
    shake_256 as shake_256,
)
from typing import Any, Literal, Protocol, SupportsIndex, TypeVar, final, overload, type_check_only

from typing_extensions import Self, TypeAlias

# Anything that exposes a contiguous buffer: bytes, bytearray, memoryview,
# array.array, mmap, numpy arrays. str is not one, and is rejected at runtime.
if sys.version_info >= (3, 12):
    from collections.abc import Buffer as _Buffer
else:
    from typing_extensions import Buffer as _Buffer

_ReadableBuffer: TypeAlias = _Buffer

__all__ = [
    "HASH",
    "DigestArray",
    "DigestStream",
    "algorithms_available",
    "algorithms_guaranteed",
    "batch_implementation",
    "blake2b",
    "blake2s",
    "cpu_features",
    "digest",
    "digest_array",
    "digest_many",
    "file_digest",
    "from_state",
    "get_gil_minsize",
    "hexdigest",
    "implementation",
    "md5",
    "new",
    "pbkdf2_hmac",
    "set_gil_minsize",
    "sha1",
    "sha224",
    "sha256",
    "sha384",
    "sha3_224",
    "sha3_256",
    "sha3_384",
    "sha3_512",
    "sha512",
    "sha512_224",
    "sha512_256",
    "shake_128",
    "shake_256",
]
# As hashlib's __all__ from 3.15.
if sys.version_info >= (3, 15):
    __all__ += ["scrypt"]

__version__: str

# hashlib's sets, as frozensets: every algorithm new() accepts, fastdigest's eight and hashlib's others.
algorithms_guaranteed: frozenset[str]
algorithms_available: frozenset[str]

# Algorithm name -> the kernel it runs on this CPU ("portable", "shani", ...),
# chosen once at import. Its keys are the eight algorithms fastdigest implements.
implementation: dict[str, str]

# Algorithm name -> what digest_many() runs on this CPU: a multi-buffer kernel
# ("avx512_x16", "shani_x2", ...) or, where there is none, the single-stream one.
batch_implementation: dict[str, str]

# The CPU features the kernels may use: those this CPU and OS have, less the
# ones FASTDIGEST_DISABLE names ("shani", "avx512", "avx2", "armsha2", ...).
cpu_features: frozenset[str]

# The default GIL threshold, 2048 (hashlib's HASHLIB_GIL_MINSIZE): inputs at least
# this long are hashed with the GIL released unless the threshold was changed.
_GIL_MINSIZE: int

# The threshold in force, for the whole process; set_gil_minsize returns the previous one.
# FASTDIGEST_GIL_MINSIZE sets it at import.
def get_gil_minsize() -> int: ...
def set_gil_minsize(minsize: SupportsIndex, /) -> int: ...

@final
class HASH:
    """A hash object of one algorithm. Made by the constructors and by new(), never
    by calling HASH itself."""

    @property
    def name(self) -> str: ...
    @property
    def digest_size(self) -> int: ...
    @property
    def block_size(self) -> int: ...
    def update(self, data: _ReadableBuffer, /) -> None: ...
    def digest(self) -> bytes: ...
    def hexdigest(self) -> str: ...
    def copy(self) -> Self: ...
    # The state in fastdigest's portable format, which from_state() resumes (README: "Resumable
    # hashing"); pickle and copy use it too.
    def state(self) -> bytes: ...
    def __copy__(self) -> Self: ...
    def __deepcopy__(self, memo: dict[int, Any], /) -> Self: ...

# hashlib's names of the eight algorithms. new() accepts them in any letter case, and their aliases
# ('sha-256', OIDs) too; a name typed as a plain str may be one of them or any other.
_FastdigestName: TypeAlias = Literal["md5", "sha1", "sha224", "sha256", "sha384", "sha512", "sha512_224", "sha512_256"]

# fastdigest's hash object for the eight algorithms; any other name, with every keyword, goes to
# hashlib.new, whose object (typed as typeshed types hashlib.new's) or exception it returns. The
# signatures are those of this Python's hashlib: from 3.14, new(name, *args, **kwargs) in front of
# OpenSSL's new(name, data=b'', *, usedforsecurity=True, string=None), and the constructors take
# data or (deprecated from 3.15) string; before 3.14, new(name, data=b'', **kwargs), whose one keyword
# for the eight is usedforsecurity, and constructors that take string.
if sys.version_info >= (3, 14):
    @overload
    def new(
        name: _FastdigestName,
        data: _ReadableBuffer = b"",
        *,
        usedforsecurity: bool = True,
        string: _ReadableBuffer | None = None,
    ) -> HASH: ...
    @overload
    def new(name: str, data: _ReadableBuffer = b"", **kwargs: Any) -> HASH | _StdlibHash: ...
    def md5(data: _ReadableBuffer = b"", *, usedforsecurity: bool = True, string: _ReadableBuffer | None = None) -> HASH: ...
    def sha1(data: _ReadableBuffer = b"", *, usedforsecurity: bool = True, string: _ReadableBuffer | None = None) -> HASH: ...
    def sha224(
        data: _ReadableBuffer = b"", *, usedforsecurity: bool = True, string: _ReadableBuffer | None = None
    ) -> HASH: ...
    def sha256(
        data: _ReadableBuffer = b"", *, usedforsecurity: bool = True, string: _ReadableBuffer | None = None
    ) -> HASH: ...
    def sha384(
        data: _ReadableBuffer = b"", *, usedforsecurity: bool = True, string: _ReadableBuffer | None = None
    ) -> HASH: ...
    def sha512(
        data: _ReadableBuffer = b"", *, usedforsecurity: bool = True, string: _ReadableBuffer | None = None
    ) -> HASH: ...
    def sha512_224(
        data: _ReadableBuffer = b"", *, usedforsecurity: bool = True, string: _ReadableBuffer | None = None
    ) -> HASH: ...
    def sha512_256(
        data: _ReadableBuffer = b"", *, usedforsecurity: bool = True, string: _ReadableBuffer | None = None
    ) -> HASH: ...

else:
    @overload
    def new(name: _FastdigestName, data: _ReadableBuffer = b"", *, usedforsecurity: bool = True) -> HASH: ...
    @overload
    def new(name: str, data: _ReadableBuffer = b"", **kwargs: Any) -> HASH | _StdlibHash: ...
    def md5(string: _ReadableBuffer = b"", *, usedforsecurity: bool = True) -> HASH: ...
    def sha1(string: _ReadableBuffer = b"", *, usedforsecurity: bool = True) -> HASH: ...
    def sha224(string: _ReadableBuffer = b"", *, usedforsecurity: bool = True) -> HASH: ...
    def sha256(string: _ReadableBuffer = b"", *, usedforsecurity: bool = True) -> HASH: ...
    def sha384(string: _ReadableBuffer = b"", *, usedforsecurity: bool = True) -> HASH: ...
    def sha512(string: _ReadableBuffer = b"", *, usedforsecurity: bool = True) -> HASH: ...
    def sha512_224(string: _ReadableBuffer = b"", *, usedforsecurity: bool = True) -> HASH: ...
    def sha512_256(string: _ReadableBuffer = b"", *, usedforsecurity: bool = True) -> HASH: ...

# hashlib.pbkdf2_hmac's signature (typeshed's hashlib stub); names fastdigest lacks are
# handed to hashlib.pbkdf2_hmac.
def pbkdf2_hmac(
    hash_name: str, password: _ReadableBuffer, salt: _ReadableBuffer, iterations: int, dklen: int | None = None
) -> bytes: ...

# A new hash object that continues from a state saved by HASH.state(); ValueError if data is not a valid
# state.
def from_state(data: _ReadableBuffer, /) -> HASH: ...

# file_digest accepts what hashlib.file_digest accepts: a binary file opened for
# reading, or an object with getbuffer() such as io.BytesIO; and a digest given
# by name, or as a constructor of any hashlib-like object (typeshed's _HashObject),
# whose kind of object it then returns.
@type_check_only
class _BytesIOLike(Protocol):
    def getbuffer(self) -> _ReadableBuffer: ...

@type_check_only
class _FileDigestFileObj(Protocol):
    def readinto(self, buf: bytearray, /) -> int: ...
    def readable(self) -> bool: ...

@type_check_only
class _HashObject(Protocol):
    @property
    def digest_size(self) -> int: ...
    @property
    def block_size(self) -> int: ...
    @property
    def name(self) -> str: ...
    def copy(self) -> Self: ...
    def digest(self) -> bytes: ...
    def hexdigest(self) -> str: ...
    def update(self, obj: _ReadableBuffer, /) -> None: ...

_HashObjectT = TypeVar("_HashObjectT", bound=_HashObject)

@overload
def file_digest(
    fileobj: _BytesIOLike | _FileDigestFileObj, digest: _FastdigestName, /, *, _bufsize: int = 262144
) -> HASH: ...
@overload
def file_digest(
    fileobj: _BytesIOLike | _FileDigestFileObj, digest: str, /, *, _bufsize: int = 262144
) -> HASH | _StdlibHash: ...
@overload
def file_digest(
    fileobj: _BytesIOLike | _FileDigestFileObj, digest: Callable[[], _HashObjectT], /, *, _bufsize: int = 262144
) -> _HashObjectT: ...

# The one-shots: new(name, data).digest() and .hexdigest() in one call. name is
# an algorithm name as for new(), or one of the constructors above.
_Algorithm: TypeAlias = str | Callable[..., HASH]

def digest(name: _Algorithm, data: _ReadableBuffer, /) -> bytes: ...
def hexdigest(name: _Algorithm, data: _ReadableBuffer, /) -> str: ...

# Many one-shots in one call, in order: [digest(name, m) for m in messages].
def digest_many(name: _Algorithm, messages: Iterable[_ReadableBuffer], /) -> list[bytes]: ...

# The Arrow PyCapsule interface: __arrow_c_array__ returns (ArrowSchema capsule,
# ArrowArray capsule), __arrow_c_stream__ an ArrowArrayStream capsule.
@type_check_only
class _ArrowArrayExportable(Protocol):
    def __arrow_c_array__(self, requested_schema: object | None = None) -> tuple[object, object]: ...

@type_check_only
class _ArrowStreamExportable(Protocol):
    def __arrow_c_stream__(self, requested_schema: object | None = None) -> object: ...

@final
class DigestArray:
    """The digests of an Arrow array's rows, made by digest_array()."""

    def __arrow_c_array__(self, requested_schema: object | None = None) -> tuple[object, object]: ...
    def __len__(self) -> int: ...

@final
class DigestStream:
    """The digests of an Arrow stream's rows, made by digest_array()."""

    def __arrow_c_stream__(self, requested_schema: object | None = None) -> object: ...
    def __len__(self) -> int: ...

# The digest of every row of an Arrow column (binary, large_binary, binary_view,
# utf8, large_utf8, utf8_view), as fixed_size_binary(digest_size) or, with
# hex=True, utf8 hex; nulls kept. Array input gives a DigestArray, stream input
# (chunked arrays, polars Series, DuckDB relations, pandas) a DigestStream.
# threads: the most threads to hash an array on, 1 or more (a bool is refused
# at runtime), or None for every CPU the process may run on.
@overload
def digest_array(
    name: _Algorithm, array: _ArrowArrayExportable, /, *, hex: bool = False, threads: SupportsIndex | None = None
) -> DigestArray: ...
@overload
def digest_array(
    name: _Algorithm, array: _ArrowStreamExportable, /, *, hex: bool = False, threads: SupportsIndex | None = None
) -> DigestStream: ...
