"""--git: the ids `git hash-object` prints, one line per FILE, in order.

Only the runs with --git import this module. Every FILE is read once, on every core
(fastdigest.git_object_ids); '-' (or no FILE) is standard input, read to its end and
hashed as `git hash-object --stdin` hashes it. As git does, the run stops at the first
FILE that cannot be read, after printing the ids of the ones before it, and says why
as the other runs say it.
"""

from __future__ import annotations

import os

import fastdigest
from fastdigest.cli.names import quote_name
from fastdigest.cli.options import PROGRAM

# typing.TYPE_CHECKING without importing typing; mypy reads the name itself.
TYPE_CHECKING = False

if TYPE_CHECKING:
    from typing import BinaryIO, Literal

    from fastdigest.cli.options import Options


def print_git_ids(options: Options, stdin: BinaryIO, stdout: BinaryIO, stderr: BinaryIO) -> bool:
    """Print the id of each FILE (standard input without one); True if every one was read."""
    object_format: Literal['sha1', 'sha256'] = 'sha256' if options.algorithm == 'sha256' else 'sha1'
    files = options.files or [b'-']
    ids: list[str] = []
    failure: tuple[bytes, OSError] | None = None
    # The files between two '-' go to the reader together, on every core.
    start = 0
    while start <= len(files) and failure is None:
        end = files.index(b'-', start) if b'-' in files[start:] else len(files)
        batch = files[start:end]
        try:
            ids.extend(fastdigest.git_object_ids(batch, object_format=object_format))
        except OSError as error:
            failed = batch.index(os.fsencode(error.filename)) if error.filename is not None else 0
            ids.extend(fastdigest.git_object_ids(batch[:failed], object_format=object_format))
            failure = (batch[failed], error)
            break
        if end < len(files):
            ids.append(fastdigest.git_object_id(stdin.read(), object_format=object_format))
        start = end + 1
    stdout.write(b''.join(id_.encode('ascii') + b'\n' for id_ in ids))
    if failure is None:
        return True
    stdout.flush()
    name, problem = failure
    reason = problem.strerror or os.strerror(problem.errno or 0)
    stderr.write(PROGRAM.encode() + b': ' + quote_name(name) + b': ' + reason.encode('utf-8', 'replace') + b'\n')
    stderr.flush()
    return False
