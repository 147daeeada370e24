"""fastdigest: hashlib's MD5, SHA-1 and SHA-2, faster.

A drop-in for hashlib's constructors, new(), file_digest() and hash objects,
implemented in C with the algorithm state inline in each object.
"""

from fastdigest._fastdigest import (
    HASH,
    _GIL_MINSIZE,
    batch_implementation,
    digest,
    digest_many,
    from_state,
    hexdigest,
    implementation,
    md5,
    new,
    pbkdf2_hmac,
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
    "algorithms_available",
    "algorithms_guaranteed",
    "batch_implementation",
    "digest",
    "digest_many",
    "file_digest",
    "from_state",
    "hexdigest",
    "implementation",
    "md5",
    "new",
    "pbkdf2_hmac",
    "sha1",
    "sha224",
    "sha256",
    "sha384",
    "sha512",
    "sha512_224",
    "sha512_256",
]

algorithms_guaranteed = frozenset(
    ("md5", "sha1", "sha224", "sha256", "sha384", "sha512", "sha512_224", "sha512_256")
)
algorithms_available = algorithms_guaranteed


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
    # every update of at least _GIL_MINSIZE bytes run without the GIL.
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
