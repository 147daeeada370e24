"""One run of the command: its streams and messages, the files hashed in order, and
the checksum lines printed for them (the mode without --check)."""

from __future__ import annotations

import collections
import errno
import os
import stat

# fastdigest.cli.names is imported where a name is escaped or quoted: a run with
# plain names and no errors goes without it (each module costs start-up time).
from fastdigest.cli.options import PROGRAM, TAG_NAMES
from fastdigest.cli.pool import Hasher, HashJob, worker_count
from fastdigest.cli.progress import Progress, is_terminal

# typing.TYPE_CHECKING without importing typing; mypy reads the name itself.
TYPE_CHECKING = False

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator
    from typing import BinaryIO

    from fastdigest.cli.options import Options
    from fastdigest.cli.pool import _Waitable


# Consecutive small files are handed to a worker thread together, until the
# batch holds this many bytes or files: a hand-over between threads costs tens
# of microseconds, more than hashing a small file.
BATCH_BYTES = 1 << 20
BATCH_FILES = 64


class Runner:
    """What one invocation shares: the streams, the options, the pool, the bar."""

    def __init__(self, options: Options, stdin: BinaryIO, stdout: BinaryIO, stderr: BinaryIO) -> None:
        self.options = options
        self.stdin = stdin
        self.stdout = stdout
        self.stderr = stderr
        self.tag_names = [TAG_NAMES[algorithm] for algorithm in options.algorithms]
        workers = worker_count()
        self.hasher = Hasher(options.algorithms, stdin, workers)
        self.window = 4 * workers
        self.progress = Progress(stderr, False, None, None)
        # Lines reach a terminal as they are computed (C's stdio line-buffers a
        # terminal); into a pipe or a file they go in large writes.
        self.flush_each_line = is_terminal(stdout)

    def error(self, message: bytes) -> None:
        self.progress.clear()
        self.stdout.flush()
        self.stderr.write(PROGRAM.encode() + b': ' + message + b'\n')
        self.stderr.flush()

    def file_error(self, name: bytes, error: OSError) -> None:
        from fastdigest.cli.names import quote_name

        reason = error.strerror or os.strerror(error.errno or errno.EIO)
        self.error(quote_name(name) + b': ' + reason.encode('utf-8', 'replace'))

    def output(self, line: bytes) -> None:
        if self.progress.visible:
            self.progress.clear()
        self.stdout.write(line)
        if self.flush_each_line or self.progress.enabled:
            self.stdout.flush()

    def ordered(
        self, items: Iterable[tuple[HashJob | None, object]], ignore_missing: bool = False
    ) -> Iterator[tuple[HashJob | None, object]]:
        """Yield the (job, payload) items in their order, each job hashed by then
        (job.result() gives its digest). Items without a job pass straight through.

        Consecutive small files go to a worker together, up to BATCH_BYTES or
        BATCH_FILES: handing a thread one tiny file at a time costs more than
        hashing it. A big file makes a batch of its own, so big files are hashed
        in parallel. Up to self.window batches run ahead of the one printed."""
        pending: collections.deque[tuple[list[tuple[HashJob | None, object]], _Waitable | None]]
        pending = collections.deque()
        building: list[tuple[HashJob | None, object]] = []
        building_jobs: list[HashJob] = []
        building_bytes = 0
        in_flight = 0
        held = 0  # items in pending and building
        iterator = iter(items)
        exhausted = False

        def close_batch(once_only: bool = False) -> None:
            nonlocal building, building_jobs, building_bytes, in_flight
            if not building:
                return
            finished = self.hasher.submit(building_jobs, ignore_missing, once_only) if building_jobs else None
            in_flight += finished is not None
            pending.append((building, finished))
            building, building_jobs, building_bytes = [], [], 0

        while True:
            # Lines that need no hashing (malformed ones) count too, so that a
            # huge file of garbage is not read into memory at once.
            while not exhausted and in_flight < self.window and held < 64 * self.window:
                try:
                    job, payload = next(iterator)
                except StopIteration:
                    exhausted = True
                    break
                held += 1
                if job is None:
                    building.append((job, payload))
                    continue
                once_only = job.name == b'-'
                if not once_only:
                    job.size, once_only = _size_and_kind(job.name)
                if once_only:
                    # Standard input, a pipe, a FIFO or a device goes alone, to
                    # the thread that reads them in order (see Hasher): a batch
                    # that fails is read again file by file, and these give
                    # other bytes, or none, or wait for another writer the
                    # second time.
                    close_batch()
                    building.append((job, payload))
                    building_jobs.append(job)
                    close_batch(once_only=True)
                    continue
                building.append((job, payload))
                building_jobs.append(job)
                building_bytes += job.size or 0
                if building_bytes >= BATCH_BYTES or len(building_jobs) >= BATCH_FILES:
                    close_batch()
            if exhausted or in_flight == 0 or held >= 64 * self.window:
                close_batch()
            if not pending:
                return
            if pending[0][1] is not None:
                active = [job for entry in pending for job, _ in entry[0] if job is not None]
                self.progress.wait(pending[0][1], active)
                in_flight -= 1
            batch, _ = pending.popleft()
            for job, payload in batch:
                held -= 1
                if job is not None:
                    self.progress.finished(job)
                yield job, payload

    def print_checksums(self) -> bool:
        """Print a checksum line for each file named (standard input without one),
        one per algorithm; True if every file was read."""
        options = self.options
        files = options.files or [b'-']
        recursive = options.recursive
        if is_terminal(self.stderr):
            # The bar's total; a stat per file is only worth it when a bar can show,
            # and a tree has no total before it is walked.
            total = None if recursive else sum(_regular_file_size(name) or 0 for name in files)
            self.progress = Progress(self.stderr, True, total, None if recursive else len(files))
        # A bar is drawn by this thread while workers hash: only without one can
        # this thread hash the file itself.
        self.hasher.progress_shown = self.progress.enabled
        self.hasher.inline = (
            len(files) == 1 and not self.progress.enabled and not (recursive and _is_directory(files[0]))
        )
        delimiter = b'\0' if options.zero else b'\n'
        marker = b'*' if options.binary else b' '
        tagged = options.tagged
        ok = True
        if recursive:
            from fastdigest.cli.tree import expand

            items: Iterable[tuple[HashJob | None, object]] = (
                (HashJob(name, error), None) for name, error in expand(files)
            )
        else:
            items = ((HashJob(name), None) for name in files)
        for job, _ in self.ordered(items):
            assert job is not None  # every item here is a file
            try:
                hexdigests = job.result()
            except OSError as error:
                self.file_error(job.name, error)
                ok = False
                continue
            escape = not options.zero and any(byte in job.name for byte in b'\\\n\r')
            if escape:
                from fastdigest.cli.names import escape_name

                name = escape_name(job.name)
            else:
                name = job.name
            prefix = b'\\' if escape else b''
            lines = []
            for tag_name, hexdigest in zip(self.tag_names, hexdigests, strict=False):
                digest = hexdigest.encode('ascii')
                if tagged:
                    lines.append(prefix + tag_name + b' (' + name + b') = ' + digest + delimiter)
                else:
                    lines.append(prefix + digest + b' ' + marker + name + delimiter)
            self.output(b''.join(lines))
        return ok


def _is_directory(name: bytes) -> bool:
    return name != b'-' and os.path.isdir(name)


def _regular_file_size(name: bytes) -> int | None:
    return _size_and_kind(name)[0]


def _size_and_kind(name: bytes) -> tuple[int | None, bool]:
    """The size of a regular file (None for anything else: a pipe's size says
    nothing of what it holds), and whether *name* can be read once only: a
    pipe (/dev/fd/63 from a shell's process substitution, /dev/stdin), a FIFO,
    a device. A directory cannot be read at all, and a name that cannot be
    looked up fails at its open: neither has bytes to lose."""
    if name == b'-':
        return None, False
    try:
        status = os.stat(name)
    except (OSError, ValueError):
        return None, False
    if stat.S_ISREG(status.st_mode):
        return status.st_size, False
    return None, not stat.S_ISDIR(status.st_mode)
