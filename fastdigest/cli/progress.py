"""The progress bar: one line on stderr while a long run hashes, erased by the output."""

from __future__ import annotations

import os
import time

# typing.TYPE_CHECKING without importing typing; mypy reads the name itself.
TYPE_CHECKING = False

if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import BinaryIO

    from fastdigest.cli.pool import HashJob, _Waitable


# The progress bar appears only once work has run this long: a run that ends
# sooner never draws anything, so short commands keep a clean terminal.
PROGRESS_DELAY_SECONDS = 1.0
PROGRESS_INTERVAL_SECONDS = 0.1


class Progress:
    """A one-line bar on stderr, drawn only when stderr is a terminal and the work
    has already lasted PROGRESS_DELAY_SECONDS. Lines written to stdout first erase it."""

    def __init__(self, stderr: BinaryIO, enabled: bool, total_bytes: int | None, total_files: int | None) -> None:
        self.stderr = stderr
        self.enabled = enabled
        self.total_bytes = total_bytes
        self.total_files = total_files
        self.started = time.monotonic()
        self.bytes_finished = 0
        self.files_finished = 0
        self.visible = False
        self.last_drawn = 0.0

    def finished(self, job: HashJob) -> None:
        self.bytes_finished += job.bytes_done
        self.files_finished += 1

    def draw(self, active: Iterable[HashJob], now: float | None = None) -> None:
        if not self.enabled:
            return
        now = time.monotonic() if now is None else now
        elapsed = now - self.started
        if elapsed < PROGRESS_DELAY_SECONDS or now - self.last_drawn < PROGRESS_INTERVAL_SECONDS:
            return
        self.last_drawn = now
        current = list(active)
        done = self.bytes_finished + sum(job.bytes_done for job in current)
        width = _terminal_width(self.stderr)
        files = f'{self.files_finished}' + (f'/{self.total_files}' if self.total_files is not None else '')
        text = f' {_format_bytes(done)}'
        if self.total_bytes:
            text += f' / {_format_bytes(self.total_bytes)}'
        text += f'  {_format_bytes(done / elapsed if elapsed > 0 else 0)}/s  {files} files'
        if self.total_bytes:
            fraction = min(1.0, done / self.total_bytes)
            bar_width = max(10, min(40, width - len(text) - 8))
            filled = int(fraction * bar_width)
            text = f'[{"#" * filled}{"." * (bar_width - filled)}] {fraction * 100:3.0f}%' + text
        line = text[: max(1, width - 1)]
        self.stderr.write(b'\r' + line.encode('ascii', 'replace') + b'\x1b[K')
        self.stderr.flush()
        self.visible = True

    def clear(self) -> None:
        if self.visible:
            self.stderr.write(b'\r\x1b[K')
            self.stderr.flush()
            self.visible = False

    def wait(self, finished: _Waitable, active: list[HashJob]) -> None:
        """Wait for *finished*, drawing the bar meanwhile (the *active* jobs' bytes count in it)."""
        if not self.enabled:
            finished.wait()
            return
        while not finished.wait(PROGRESS_INTERVAL_SECONDS):
            self.draw(active)


def _terminal_width(stream: BinaryIO) -> int:
    try:
        return os.get_terminal_size(stream.fileno()).columns
    except (AttributeError, OSError, ValueError):
        return 80


def _format_bytes(count: float) -> str:
    for unit in ('B', 'KiB', 'MiB', 'GiB'):
        if count < 1024:
            return f'{count:.0f} {unit}' if unit == 'B' else f'{count:.1f} {unit}'
        count /= 1024
    return f'{count:.1f} TiB'


def is_terminal(stream: BinaryIO) -> bool:
    """Whether *stream* is a terminal; False for one that cannot tell (closed, or without isatty)."""
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False
