"""--recursive: the files below a directory, in a stable order, named as coreutils would
print them given those paths.

Only the runs with -r import this module.

The order is that of the paths' bytes (`find DIR | LC_ALL=C sort` gives the same order),
reached by a walk that needs no list of the whole tree: each directory's entries are sorted
with a directory's name taken as NAME/, so that everything below it comes exactly where
its paths sort among its siblings ('b.txt' < 'b/...' < 'b0').

Symbolic links are treated as `find` treats them without -L: a link to a directory is not
followed (nor listed); a link to a regular file is hashed through the link, under the link's
name, as `sha256sum DIR/LINK` would hash it, and a link that leads nowhere (dangling, or a
loop) is reported as such a command would report it. Entries that are not regular files
(FIFOs, sockets, devices) are left out: reading them could wait forever or never end.
"""

from __future__ import annotations

import os
import stat

# typing.TYPE_CHECKING without importing typing; mypy reads the name itself.
TYPE_CHECKING = False

if TYPE_CHECKING:
    from collections.abc import Iterator


def join(directory: bytes, name: bytes) -> bytes:
    """DIRECTORY/NAME as `find DIRECTORY` prints it: no separator added after one
    already there ('dir/' gives 'dir/a', 'dir//' gives 'dir//a')."""
    return os.path.join(directory, name)


def _sorted_entries(directory: bytes) -> list[tuple[bytes, bytes, bool | None]]:
    """(sort key, path, kind) of each entry of *directory*, in order. kind: True for a
    directory to walk into, False for a regular file, None for a symbolic link to look at.
    Other entries are left out. Raises what listing the directory raises."""
    entries = []
    with os.scandir(directory) as listing:
        for entry in listing:
            try:
                if entry.is_symlink():
                    kind = None
                elif entry.is_dir(follow_symlinks=False):
                    kind = True
                elif entry.is_file(follow_symlinks=False):
                    kind = False
                else:
                    continue
            except OSError:
                kind = None  # let the stat below say what it is, or what fails
            name = entry.name
            entries.append((name + b'/' if kind else name, join(directory, name), kind))
    entries.sort()
    return entries


def files_below(top: bytes) -> Iterator[tuple[bytes, OSError | None]]:
    """(path, None) for every regular file below the directory *top*, in the paths'
    byte order, and (path, error) for a directory that cannot be listed or a link that
    leads nowhere, in its place."""
    try:
        pending = [iter(_sorted_entries(top))]
    except OSError as error:
        yield top, error
        return
    while pending:
        entry = next(pending[-1], None)
        if entry is None:
            pending.pop()
            continue
        _, path, kind = entry
        if kind is True:
            try:
                pending.append(iter(_sorted_entries(path)))
            except OSError as error:
                yield path, error
        elif kind is False:
            yield path, None
        else:
            try:
                mode = os.stat(path).st_mode
            except OSError as error:
                yield path, error
                continue
            if stat.S_ISREG(mode):
                yield path, None
            # A link to a directory is not followed; to anything else, left out.


def expand(arguments: list[bytes]) -> Iterator[tuple[bytes, OSError | None]]:
    """The command line's FILEs with every directory among them replaced by the files
    below it (files_below); every other argument, '-' included, as it is. A link named
    on the command line is followed, as the user named it (find's -H)."""
    for argument in arguments:
        if argument != b'-' and os.path.isdir(argument):
            yield from files_below(argument)
        else:
            yield argument, None
