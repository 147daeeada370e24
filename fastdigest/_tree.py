"""digest_tree: a directory's digest in the formats other tools compute.

Each format walks the tree as its tool walks it and hands every file it reads to
digest_files (one read of each, on every core); only the combining of the files'
digests is done here. docs/objects.md defines each format with its source.
"""

from __future__ import annotations

import errno
import os
import stat

# fastdigest/__init__.py imports this module once the extension's names are bound.
from fastdigest import digest_files, new
from fastdigest._git import named_as_given

# typing.TYPE_CHECKING without importing typing; mypy reads the name itself.
TYPE_CHECKING = False

if TYPE_CHECKING:
    _Path = str | bytes | os.PathLike[str] | os.PathLike[bytes]

FORMATS = ('dirhash', 'checksumdir', 'sha256sum')


def _hexdigests(name: str, paths: list[bytes], threads: int | None) -> list[bytes]:
    return [digest.hex().encode('ascii') for digest in digest_files(name, paths, threads=threads)]


# ---- the Dirhash standard ---------------------------------------------------------
#
# As dirhash.dirhash(directory, algorithm) computes it with its defaults (dirhash 0.5.0 over
# scantree): links to files and folders are followed, an entry that is neither a file nor a folder
# once followed (a dangling link, a FIFO, a socket, a device) is left out, a folder without files is
# left out, and a link back to a folder on its own path is an error. A folder's digest is the hex
# digest of its entries' descriptors, sorted and joined by two NULs; a file's descriptor is
# 'data:HEX\0name:NAME', a folder's 'dirhash:HEX\0name:NAME', NAME in UTF-8.


class _DirhashFolder:
    __slots__ = ('files', 'folders')

    def __init__(self) -> None:
        self.files: list[tuple[bytes, int]] = []  # (name, index among the paths read)
        self.folders: list[tuple[bytes, _DirhashFolder]] = []


def _utf8_name(name: bytes, path: bytes) -> bytes:
    try:
        name.decode('utf-8')
    except UnicodeDecodeError:
        raise ValueError(
            'digest_tree(): the Dirhash standard hashes names as UTF-8, and %r is not' % os.fsdecode(path)
        ) from None
    return name


def _dirhash_walk(directory: bytes, real: bytes, ancestors: set[bytes], paths: list[bytes]) -> _DirhashFolder:
    folder = _DirhashFolder()
    ancestors.add(real)
    with os.scandir(directory) as listing:
        entries = list(listing)
    for entry in entries:
        # DirEntry's tests follow links, and raise for a link that loops (ELOOP), as dirhash's do.
        if entry.is_dir():
            if entry.is_symlink():
                target = os.path.realpath(entry.path)
                if target in ancestors:
                    raise OSError(
                        errno.ELOOP,
                        'a link back to a folder on its own path (%r): the Dirhash standard has no digest '
                        'for it' % os.fsdecode(target),
                        os.fsdecode(entry.path),
                    )
            else:
                target = os.path.join(real, entry.name)
            name = _utf8_name(entry.name, entry.path)
            folder.folders.append((name, _dirhash_walk(entry.path, target, ancestors, paths)))
        elif entry.is_file():
            folder.files.append((_utf8_name(entry.name, entry.path), len(paths)))
            paths.append(entry.path)
    ancestors.discard(real)
    return folder


def _dirhash_digest(name: str, folder: _DirhashFolder, hexdigests: list[bytes]) -> bytes | None:
    """The folder's hex digest, or None when it holds no file."""
    descriptors = [b'data:' + hexdigests[index] + b'\0name:' + entry for entry, index in folder.files]
    for entry, subfolder in folder.folders:
        digest = _dirhash_digest(name, subfolder, hexdigests)
        if digest is not None:
            descriptors.append(b'dirhash:' + digest + b'\0name:' + entry)
    if not descriptors:
        return None
    # UTF-8's byte order is the code points' order, which dirhash sorts its str in.
    descriptors.sort()
    return new(name, b'\0\0'.join(descriptors)).hexdigest().encode('ascii')


def _dirhash(name: str, top: bytes, threads: int | None) -> str:
    paths: list[bytes] = []
    root = _dirhash_walk(top, os.path.realpath(top), set(), paths)
    digest = _dirhash_digest(name, root, _hexdigests(name, paths, threads))
    if digest is None:
        raise ValueError('digest_tree(): %r holds no file: the Dirhash standard has nothing to hash' % os.fsdecode(top))
    return digest.decode('ascii')


# ---- checksumdir ------------------------------------------------------------------
#
# As checksumdir.dirhash(directory, algorithm) computes it (checksumdir 1.3.0): os.walk without
# following links to folders; every other entry is a file, whose hex digest is taken, that of no
# bytes for one that does not exist once followed (a dangling or looping link); the digest of the
# files' hex digests, sorted and concatenated. Names do not count.


def _checksumdir(name: str, top: bytes, threads: int | None) -> str:
    paths: list[bytes] = []
    append = paths.append
    missing = 0
    pending = [top]
    while pending:
        directory = pending.pop()
        with os.scandir(directory) as listing:
            for entry in listing:
                # Most entries: a regular file that is no link, told by the listing without a stat.
                if entry.is_file(follow_symlinks=False):
                    append(entry.path)
                    continue
                try:
                    is_dir = entry.is_dir()
                except OSError:
                    is_dir = False
                if is_dir:
                    if not entry.is_symlink():
                        pending.append(entry.path)
                    continue
                # A link (its target's type takes a stat), or a special file.
                regular = False
                if entry.is_symlink():
                    try:
                        regular = stat.S_ISREG(os.stat(entry.path).st_mode)
                    except OSError as error:
                        if error.errno not in (errno.ENOENT, errno.ENOTDIR, errno.ELOOP):
                            raise
                        missing += 1
                        continue
                if not regular:
                    raise OSError(
                        'digest_tree(): %r is not a regular file: checksumdir would read it (and wait '
                        "forever for a FIFO's writer)" % os.fsdecode(entry.path)
                    )
                append(entry.path)
    # The raw digests sort as their hex digests do (each nibble's digits in order, '0'-'9' before
    # 'a'-'f'), so one hex() of the sorted digests joined is the sorted hex digests concatenated.
    digests = digest_files(name, paths, threads=threads)
    digests.extend([new(name).digest()] * missing)
    digests.sort()
    return new(name, b''.join(digests).hex().encode('ascii')).hexdigest()


# ---- a sorted manifest ------------------------------------------------------------
#
# The digest of the lines `cd DIRECTORY && fastdigest -r -a NAME .` prints: 'HEX  ./PATH' for every
# regular file below, links to files followed and links to folders not, in the paths' byte order,
# each name escaped as coreutils escapes it (a line then starts with a backslash).


def _sha256sum(name: str, top: bytes, threads: int | None) -> str:
    from fastdigest.cli.names import escape_name
    from fastdigest.cli.tree import files_below

    prefix = os.path.join(top, b'')
    paths = []
    for path, error in files_below(top):
        if error is not None:
            raise error
        paths.append(path)
    lines = []
    for path, digest in zip(paths, _hexdigests(name, paths, threads), strict=True):
        shown = b'./' + path[len(prefix) :]
        escaped = any(byte in shown for byte in b'\\\n\r')
        if escaped:
            lines.append(b'\\' + digest + b'  ' + escape_name(shown) + b'\n')
        else:
            lines.append(digest + b'  ' + shown + b'\n')
    return new(name, b''.join(lines)).hexdigest()


_FORMATTERS = {'dirhash': _dirhash, 'checksumdir': _checksumdir, 'sha256sum': _sha256sum}


def digest_tree(name: str, directory: _Path, /, *, format: str = 'dirhash', threads: int | None = None) -> str:
    """A directory's hex digest in one of FORMATS. See fastdigest/__init__.pyi."""
    try:
        formatter = _FORMATTERS[format]
    except (KeyError, TypeError):
        raise ValueError(
            'digest_tree() format must be one of %s, not %r' % (', '.join(map(repr, FORMATS)), format)
        ) from None
    if not isinstance(name, str):
        raise TypeError('digest_tree() argument 1 must be str, not %s' % type(name).__name__)
    digest_files(name, [])  # a name it does not run raises its error before the walk
    given = os.fspath(directory)
    if not os.path.isdir(given):
        raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), given)
    try:
        return formatter(name, os.fsencode(given), threads)
    except OSError as error:
        raise named_as_given(error, given)  # noqa: B904 (the same exception, its filename decoded)
