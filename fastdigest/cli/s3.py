"""--s3-etag: the ETag S3 gives each file uploaded in parts, printed as md5sum prints digests, and --check
reading those lines back. Only the runs with --s3-etag import this module.

Each file is hashed by fastdigest.s3_etag, which reads it once and hashes its parts side by side on every
core, so the files go one after another rather than through the pool. A line is `ETAG  NAME`, the ETag
with its -N for a file uploaded in N parts, the name escaped as coreutils escapes it. --check takes the
same lines (a line of a part count is checked with --part-size's size when given; without it, against the
part sizes s3_etag_matches tries, as S3 does not say which one the uploader used) and reports as
coreutils' --check does.
"""

from __future__ import annotations

import collections
import errno
import re

import fastdigest
from fastdigest.cli.check import summarize
from fastdigest.cli.names import escape_name, quote_name, unescape_name

# typing.TYPE_CHECKING without importing typing; mypy reads the name itself.
TYPE_CHECKING = False

if TYPE_CHECKING:
    from collections import Counter
    from collections.abc import Iterator

    from fastdigest.cli.output import Runner

_LINE = re.compile(rb'([0-9a-fA-F]{32}(?:-[1-9][0-9]*)?)[ \t][ *]?(.+)', re.DOTALL)


class S3ETags:
    """Prints or checks the ETags of one run, through its Runner."""

    def __init__(self, runner: Runner) -> None:
        self.runner = runner
        self.options = runner.options
        self.part_size = self.options.part_size

    def etag(self, name: bytes) -> str:
        if self.part_size is None:
            return fastdigest.s3_etag(name)
        return fastdigest.s3_etag(name, part_size=self.part_size)

    def failed(self, name: bytes, error: Exception) -> None:
        if isinstance(error, OSError):
            if error.errno is None:
                # A file that changed while it was hashed: the message says so.
                self.runner.error(quote_name(name) + b': ' + str(error).encode('utf-8', 'replace'))
            else:
                self.runner.file_error(name, error)
        else:
            self.runner.error(quote_name(name) + b': ' + str(error).encode('utf-8', 'replace'))

    def files(self) -> Iterator[tuple[bytes, OSError | None]]:
        files = self.options.files or [b'-']
        if self.options.recursive:
            from fastdigest.cli.tree import expand

            return expand(files)
        return ((name, None) for name in files)

    def print_etags(self) -> bool:
        """`ETAG  NAME` for each file; True if every file was read."""
        options = self.options
        delimiter = b'\0' if options.zero else b'\n'
        marker = b'*' if options.binary else b' '
        ok = True
        for name, error in self.files():
            try:
                if error is not None:
                    raise error
                if name == b'-':
                    raise ValueError("standard input has no size up front, which an upload's parts need")
                etag = self.etag(name)
            except (OSError, ValueError) as problem:
                self.failed(name, problem)
                ok = False
                continue
            escape = not options.zero and any(byte in name for byte in b'\\\n\r')
            shown = escape_name(name) if escape else name
            self.runner.output((b'\\' if escape else b'') + etag.encode('ascii') + b' ' + marker + shown + delimiter)
        return ok

    def check_all(self) -> bool:
        """Checks each file of ETag lines named (standard input without one); True if all passed."""
        ok = True
        for checkfile in self.options.files or [b'-']:
            ok &= self.check_file(checkfile)
        return ok

    def parse(self, line: bytes) -> tuple[bytes, str] | None:
        """(name, ETag) from one line, or None when it is improperly formatted."""
        escaped = line.startswith(b'\\')
        match = _LINE.fullmatch(line[escaped:])
        if match is None:
            return None
        name = match.group(2)
        if escaped:
            unescaped = unescape_name(name)
            if unescaped is None:
                return None
            name = unescaped
        return name, match.group(1).decode('ascii').lower()

    def matches(self, name: bytes, etag: str) -> bool:
        if self.part_size is not None:
            return self.etag(name) == etag
        return fastdigest.s3_etag_matches(name, etag) is not None

    def check_file(self, checkfile: bytes) -> bool:
        runner, options = self.runner, self.options
        is_stdin = checkfile == b'-'
        display_name = quote_name(b'standard input' if is_stdin else checkfile)
        try:
            stream = runner.stdin if is_stdin else open(checkfile, 'rb')  # noqa: SIM115 - closed below
        except IsADirectoryError:
            runner.error(display_name + b': read error')
            return False
        except OSError as error:
            runner.file_error(checkfile, error)
            return False
        counts: Counter[str] = collections.Counter()
        try:
            for number, raw in enumerate(stream, 1):
                line = raw.rstrip(b'\n').rstrip(b'\r')
                if not line or line.startswith(b'#'):
                    continue
                parsed = self.parse(line)
                if parsed is None:
                    counts['misformatted'] += 1
                    if options.warn:
                        runner.error(display_name + b': %d: improperly formatted S3 ETag line' % number)
                    continue
                counts['proper'] += 1
                name, etag = parsed
                try:
                    matched = self.matches(name, etag)
                except (OSError, ValueError) as error:
                    if options.ignore_missing and getattr(error, 'errno', None) == errno.ENOENT:
                        continue
                    self.failed(name, error)
                    counts['unreadable'] += 1
                    if not options.status:
                        runner.output(_report_name(name) + b': FAILED open or read\n')
                    continue
                counts['matched' if matched else 'mismatched'] += 1
                if not options.status and (not matched or not options.quiet):
                    runner.output(_report_name(name) + (b': OK\n' if matched else b': FAILED\n'))
        finally:
            if not is_stdin:
                stream.close()
        return summarize(runner, display_name, counts)


def _report_name(name: bytes) -> bytes:
    # As check.py's Checker.report_name: escaped only when the name holds a newline (coreutils 9.1).
    return b'\\' + escape_name(name) if b'\n' in name else name
