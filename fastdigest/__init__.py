"""fastdigest: hashlib's MD5, SHA-1 and SHA-2, faster.

A drop-in for hashlib's constructors, new(), file_digest() and hash objects,
implemented in C with the algorithm state inline in each object. The rest of
hashlib's namespace (sha3_*, blake2b/blake2s, shake_*, scrypt, and new() for
their names) is the standard library's own, so that `import fastdigest as
hashlib` works for any code.
"""

import sys as _sys

from fastdigest import _fastdigest
from fastdigest._version import __version__
from fastdigest._fastdigest import (
    HASH,
    DigestArray,
    DigestStream,
    _GIL_MINSIZE,
    batch_implementation,
    cpu_features,
    digest,
    digest_array,
    digest_many,
    from_state,
    get_gil_minsize,
    hexdigest,
    implementation,
    md5,
    new,
    pbkdf2_hmac,
    set_gil_minsize,
    sha1,
    sha224,
    sha256,
    sha384,
    sha512,
    sha512_224,
    sha512_256,
)

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

# --- the rest of hashlib's namespace -----------------------------------------------------------------
#
# These names are the standard library's own objects, passed through untouched. They are looked up on
# first use (module __getattr__), so that importing fastdigest does not import hashlib, and with it
# OpenSSL, which costs about as much again as fastdigest's own import: the command line tool never
# needs it. scrypt is absent where hashlib lacks it (Python built without OpenSSL) and, as in
# hashlib.__all__, is not in __all__.
_FROM_HASHLIB = frozenset(
    (
        "blake2b",
        "blake2s",
        "sha3_224",
        "sha3_256",
        "sha3_384",
        "sha3_512",
        "shake_128",
        "shake_256",
        "scrypt",
    )
)
_SETS_FROM_HASHLIB = frozenset(("algorithms_available", "algorithms_guaranteed"))

_stdlib_hashlib_module = None


def _stdlib_hashlib():
    """The standard library's hashlib module, imported on the first call.

    A program may put fastdigest itself in sys.modules as 'hashlib', to make every library use it;
    importing 'hashlib' would then give fastdigest back, so the standard module is loaded afresh
    from its file, for fastdigest's use only.
    """
    global _stdlib_hashlib_module
    if _stdlib_hashlib_module is None:
        module = _sys.modules.get("hashlib")
        if module is None:
            import hashlib as module
        if module is _sys.modules[__name__]:
            import importlib.machinery
            import importlib.util

            spec = importlib.machinery.PathFinder.find_spec("hashlib")
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
        _stdlib_hashlib_module = module
    return _stdlib_hashlib_module


# new() and pbkdf2_hmac() (in C) hand a name that is none of the eight algorithms here, with the
# caller's arguments as given, to this module's hashlib.new and hashlib.pbkdf2_hmac.
_fastdigest._stdlib_hashlib = _stdlib_hashlib


def __getattr__(name):
    if name in _FROM_HASHLIB:
        try:
            value = getattr(_stdlib_hashlib(), name)
        except AttributeError:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    elif name == "algorithms_guaranteed":
        # hashlib's set: what every Python's hashlib has. (It leaves out sha512_224 and sha512_256,
        # which fastdigest always has; `implementation` lists the eight.)
        value = frozenset(_stdlib_hashlib().algorithms_guaranteed)
    elif name == "algorithms_available":
        # hashlib's set, which on any OpenSSL build already names the eight.
        value = frozenset(_stdlib_hashlib().algorithms_available | implementation.keys())
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__():
    present = (name for name in _FROM_HASHLIB if hasattr(_stdlib_hashlib(), name))
    return sorted({*globals(), *present, *_SETS_FROM_HASHLIB})


def file_digest(fileobj, digest, /, *, _bufsize=2**18):
    """Hash the contents of a file-like object. Returns a digest object.

    *fileobj* must be a file-like object opened for reading in binary mode.
    It accepts file objects from open(), io.BytesIO(), and SocketIO objects.
    The function may bypass Python's I/O and use the file descriptor *fileno*
    directly.

    *digest* must either be a hash algorithm name as a *str*, a hash
    constructor, or a callable that returns a hash object.
    """
    # The semantics of hashlib.file_digest (Python 3.11+). Reads go through
    # readinto() into one reused buffer; both the read of a real file and
    # every update of at least get_gil_minsize() bytes run without the GIL.
    if isinstance(digest, str):
        digestobj = new(digest)
    else:
        digestobj = digest()

    if hasattr(fileobj, "getbuffer"):
        # io.BytesIO: hash its buffer in place, without a copy.
        digestobj.update(fileobj.getbuffer())
        return digestobj

    # Only binary files implement readinto().
    if not (
        hasattr(fileobj, "readinto")
        and hasattr(fileobj, "readable")
        and fileobj.readable()
    ):
        raise ValueError(
            f"'{fileobj!r}' is not a file-like object in binary reading mode."
        )

    buf = bytearray(_bufsize)
    view = memoryview(buf)
    while True:
        size = fileobj.readinto(buf)
        if size is None:
            raise BlockingIOError("I/O operation would block.")
        if size == 0:
            break
        digestobj.update(view[:size])
    return digestobj
