"""git's object ids: git_object_id, git_object_ids and git_tree_id.

A git object's id is the hash (SHA-1, or SHA-256 in a repository made with
`git init --object-format=sha256`) of the header `TYPE SIZE\\0` followed by the
object's bytes (gitformat-signature's "object format", git's
Documentation/technical/hash-function-transition.txt). Files are hashed by the C
reader that digest_files runs, which feeds the header with the size the open found
and fails when the content is not that size, on every core.

A tree's bytes are its entries, each `MODE NAME\\0` and the entry's raw id, sorted
by name with a tree's name taken as NAME/ (git's Documentation/gitformat-index.txt
and tree.c's base_name_compare), as `git add --all --force` then `git write-tree`
make them of a working directory.
"""

from __future__ import annotations

import os
import stat

# fastdigest/__init__.py imports this module once the extension's names are bound.
from fastdigest import digest_files, sha1, sha256

# typing.TYPE_CHECKING without importing typing; mypy reads the name itself.
TYPE_CHECKING = False

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import Any

    _Constructor = Callable[..., Any]

    _Path = str | bytes | os.PathLike[str] | os.PathLike[bytes]

_KINDS = ('blob', 'tree', 'commit', 'tag')
_FORMATS = {'sha1': sha1, 'sha256': sha256}

# The modes of a tree's entries, as git writes them (no leading zero for a tree).
_MODE_FILE = b'100644'
_MODE_EXECUTABLE = b'100755'
_MODE_LINK = b'120000'
_MODE_TREE = b'40000'


def _constructor(object_format: str, function: str) -> _Constructor:
    try:
        return _FORMATS[object_format]
    except (KeyError, TypeError):
        raise ValueError(
            '%s() object_format must be %s, not %r' % (function, ' or '.join(map(repr, _FORMATS)), object_format)
        ) from None


def _check_kind(kind: str, function: str) -> str:
    if kind not in _KINDS:
        raise ValueError('%s() kind must be one of %s, not %r' % (function, ', '.join(map(repr, _KINDS)), kind))
    return kind


def _object_hasher(constructor: _Constructor, kind: bytes, data: Any) -> Any:
    """The hasher fed git's header and the bytes, read in place."""
    view = memoryview(data)
    hasher = constructor(b'%s %d\0' % (kind, view.nbytes))
    hasher.update(view)
    return hasher


def git_object_id(
    data_or_path: Any,
    /,
    *,
    kind: str = 'blob',
    object_format: str = 'sha1',
) -> str:
    """The id git gives the object: `git hash-object` of a file, or of the bytes of
    a bytes-like object (`git hash-object --stdin`). See fastdigest/__init__.pyi."""
    constructor = _constructor(object_format, 'git_object_id')
    _check_kind(kind, 'git_object_id')
    if isinstance(data_or_path, str) or hasattr(type(data_or_path), '__fspath__'):
        return git_object_ids([data_or_path], kind=kind, object_format=object_format, threads=1)[0]
    try:
        view = memoryview(data_or_path)
    except TypeError:
        raise TypeError(
            'git_object_id() argument must be a bytes-like object, str or os.PathLike object, not %s'
            % type(data_or_path).__name__
        ) from None
    return _object_hasher(constructor, kind.encode('ascii'), view).hexdigest()


def git_object_ids(
    paths: Iterable[_Path],
    /,
    *,
    kind: str = 'blob',
    object_format: str = 'sha1',
    threads: int | None = None,
) -> list[str]:
    """The ids git gives the files, in order (`git hash-object --stdin-paths`), each
    read once, on threads. See fastdigest/__init__.pyi."""
    name = 'sha1' if _constructor(object_format, 'git_object_ids') is sha1 else 'sha256'
    _check_kind(kind, 'git_object_ids')
    return [digest.hex() for digest in digest_files(name, paths, threads=threads, _git_type=kind)]  # type: ignore[call-overload]


# ---- trees -----------------------------------------------------------------------


def named_as_given(error: OSError, given: str | bytes) -> OSError:
    """The error of a walk in bytes with its file names in str when the folder was given
    as str, as open() names a file in its errors: in the type it was given."""
    if isinstance(given, str):
        for attribute in ('filename', 'filename2'):
            value = getattr(error, attribute)
            if isinstance(value, bytes):
                setattr(error, attribute, os.fsdecode(value))
    return error


def _refused_by_git(name: bytes) -> bool:
    """Whether `git add` refuses a path with this name in it (verify_path's check
    of .git under core.protectNTFS, on by default: .GIT, .git., 'git~1', ...)."""
    base = name.lower().split(b':', 1)[0].rstrip(b'. ')
    return base in (b'.git', b'git~1')


# The attributes with which `git add` stages other bytes than the file's (gitattributes(5), git's
# convert.c): the filters, encodings and $Id$ that rewrite content, and the end-of-line conversion
# that turns CRLF into LF, in every file (text set, eol, the old crlf) or in those git takes for text
# (text=auto).
_REWRITING_ATTRIBUTES = frozenset((b'filter', b'ident', b'working-tree-encoding'))
_EOL_ATTRIBUTES = frozenset((b'text', b'eol', b'crlf'))


def _attributes_set(path: bytes) -> set[bytes]:
    """The attributes a gitattributes file sets (not unsets) anywhere, macros' included, as
    NAME or NAME=VALUE."""
    with open(path, 'rb') as file:
        lines = file.read().splitlines()
    found: set[bytes] = set()
    for line in lines:
        line = line.strip()
        if not line or line.startswith(b'#'):
            continue
        if line.startswith(b'"'):  # a quoted pattern, which may hold spaces
            line = line[line.find(b'"', 1) + 1 :]
        found.update(token for token in line.split()[1:] if not token.startswith((b'-', b'!')))
    return found


def _line_endings(path: bytes) -> tuple[bool, bool]:
    """Whether the file holds CRLF, and whether it holds a NUL or a CR not before LF; read
    in chunks, a CR at the end of one paired with the start of the next."""
    crlf = binary = after_cr = False
    with open(path, 'rb') as file:
        while chunk := file.read(1 << 20):
            if after_cr:
                crlf |= chunk.startswith(b'\n')
                binary |= not chunk.startswith(b'\n')
            after_cr = chunk.endswith(b'\r')
            body = chunk[:-1] if after_cr else chunk
            pairs = body.count(b'\r\n')
            crlf |= pairs > 0
            binary |= b'\0' in chunk or body.count(b'\r') != pairs
    return crlf, binary or after_cr


def _check_attributes(attribute_files: list[bytes], files: list[bytes]) -> None:
    """Raises ValueError where git could stage other bytes than the files hold, so that
    git_tree_id never gives the id of a tree git would not make. Which pattern an
    attribute is set for is not looked at: set for any, it counts for every file."""
    forced_by: bytes | None = None
    auto_by: bytes | None = None
    for path in attribute_files:
        for token in _attributes_set(path):
            name = token.split(b'=', 1)[0]
            if name in _REWRITING_ATTRIBUTES:
                raise ValueError(
                    'git_tree_id(): %r sets %s, with which git add stages other bytes than the files '
                    'hold' % (os.fsdecode(path), os.fsdecode(name))
                )
            if token == b'text=auto':
                auto_by = auto_by or path
            elif name in _EOL_ATTRIBUTES:
                forced_by = forced_by or path
    if forced_by is None and auto_by is None:
        return
    # Only a file holding CRLF changes; under text=auto, only one git takes for text: with no NUL
    # and no CR but before LF (convert.c's convert_is_binary, less its share of control bytes,
    # so that a file it calls binary for those alone still counts as text here).
    for path in files:
        crlf, binary = _line_endings(path)
        if crlf and (forced_by is not None or not binary):
            asked_by = forced_by if forced_by is not None else auto_by
            raise ValueError(
                'git_tree_id(): %r holds CRLF, and %r asks git for end-of-line conversion, with which '
                'git add stages other bytes than the file holds' % (os.fsdecode(path), os.fsdecode(asked_by or b''))
            )


class _Tree:
    """A directory being read: its links and files as (name, mode, raw id), or for a
    regular file the index of its path in the list the reader is handed, whose id
    comes later; and its folders."""

    __slots__ = ('entries', 'subtrees')

    def __init__(self) -> None:
        self.entries: list[tuple[bytes, bytes, bytes | int]] = []
        self.subtrees: list[tuple[bytes, _Tree]] = []


def _read_tree(
    directory: bytes, top: bool, files: list[bytes], attribute_files: list[bytes], constructor: _Constructor
) -> _Tree:
    tree = _Tree()
    with os.scandir(directory) as listing:
        entries = list(listing)
    for entry in entries:
        name = entry.name
        path = entry.path
        if name == b'.git':
            if top:
                continue
            raise ValueError(
                'git_tree_id(): %r holds .git: git stages such a folder as a submodule (a gitlink), '
                'which git_tree_id does not compute' % os.fsdecode(directory)
            )
        if _refused_by_git(name):
            raise ValueError('git_tree_id(): git refuses to add %r (an invalid path)' % os.fsdecode(path))
        mode = entry.stat(follow_symlinks=False).st_mode
        if stat.S_ISLNK(mode):
            target = os.readlink(path)
            link = _object_hasher(constructor, b'blob', target)
            tree.entries.append((name, _MODE_LINK, link.digest()))
        elif stat.S_ISDIR(mode):
            subtree = _read_tree(path, False, files, attribute_files, constructor)
            tree.subtrees.append((name, subtree))
        elif stat.S_ISREG(mode):
            # git's mode is 100755 when the owner may execute the file (ce_permissions).
            file_mode = _MODE_EXECUTABLE if mode & stat.S_IXUSR else _MODE_FILE
            tree.entries.append((name, file_mode, len(files)))
            files.append(path)
            if name == b'.gitattributes':
                attribute_files.append(path)
        # FIFOs, sockets and devices are left out, as git add leaves them out.
    return tree


def _write_tree(tree: _Tree, file_ids: list[bytes], constructor: _Constructor) -> bytes | None:
    """The raw id of the tree, or None when it holds no file (git leaves it out)."""
    # (sort key, mode, name, raw id): a folder sorts as NAME/ (git's base_name_compare).
    entries = [(name, mode, name, file_ids[ref] if isinstance(ref, int) else ref) for name, mode, ref in tree.entries]
    for name, subtree in tree.subtrees:
        raw = _write_tree(subtree, file_ids, constructor)
        if raw is not None:  # a folder without files is left out, as git leaves it out
            entries.append((name + b'/', _MODE_TREE, name, raw))
    if not entries:
        return None
    entries.sort()
    body = b''.join(mode + b' ' + name + b'\0' + raw for _, mode, name, raw in entries)
    return constructor(b'tree %d\0%s' % (len(body), body)).digest()


def git_tree_id(directory: _Path, /, *, object_format: str = 'sha1', threads: int | None = None) -> str:
    """The tree id `git add --all --force` then `git write-tree` give of the
    directory. See fastdigest/__init__.pyi."""
    constructor = _constructor(object_format, 'git_tree_id')
    given = os.fspath(directory)
    files: list[bytes] = []
    name = 'sha1' if constructor is sha1 else 'sha256'
    try:
        top = os.fsencode(given)
        attribute_files: list[bytes] = []
        tree = _read_tree(top, True, files, attribute_files, constructor)
        # The repository's own, when the folder is its work tree.
        info = os.path.join(top, b'.git', b'info', b'attributes')
        if os.path.isfile(info):
            attribute_files.append(info)
        _check_attributes(attribute_files, files)
        file_ids = digest_files(name, files, threads=threads, _git_type='blob')  # type: ignore[call-overload]
    except OSError as error:
        raise named_as_given(error, given)  # noqa: B904 (the same exception, its filename decoded)
    raw = _write_tree(tree, file_ids, constructor)
    if raw is None:  # git's empty tree
        raw = constructor(b'tree 0\0').digest()
    return raw.hex()
