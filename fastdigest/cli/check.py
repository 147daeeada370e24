"""--check: reading checksum files and reporting each file they list, as coreutils does.

Only the runs that check import this module.
"""

from __future__ import annotations

import collections

import fastdigest
from fastdigest.cli.names import escape_name, quote_name, unescape_name
from fastdigest.cli.options import TAG_NAMES
from fastdigest.cli.pool import HashJob, Missing
from fastdigest.cli.progress import Progress, is_terminal

# typing.TYPE_CHECKING without importing typing; mypy reads the name itself.
TYPE_CHECKING = False

if TYPE_CHECKING:
    from collections import Counter
    from collections.abc import Iterator

    from fastdigest.cli.output import Runner


class Checker:
    """Checks the checksum files of one run, printing through its Runner."""

    def __init__(self, runner: Runner) -> None:
        self.runner = runner
        self.options = runner.options
        self.algorithm = self.options.algorithm
        self.tag_name = TAG_NAMES[self.algorithm]
        self.hex_length = fastdigest.new(self.algorithm).digest_size * 2
        # With several algorithms (-a md5,sha256) only BSD-style lines say which
        # one a line is of: each of the run's tags, longest first, since SHA512
        # begins SHA512/224.
        self.several = len(self.options.algorithms) > 1
        self.tags = sorted(
            ((TAG_NAMES[name], name, fastdigest.new(name).digest_size * 2) for name in self.options.algorithms),
            key=lambda tag: -len(tag[0]),
        )
        # coreutils keeps whether checksum lines are "BSD reversed" (hex, one
        # space, name) in a static variable: the first line decides for the run.
        self.bsd_reversed: bool | None = None

    def check_all(self) -> bool:
        """Check each checksum file named (standard input without one); True if all passed."""
        runner = self.runner
        runner.progress = Progress(runner.stderr, is_terminal(runner.stderr) and not self.options.status, None, None)
        ok = True
        for checkfile in self.options.files or [b'-']:
            ok &= self.check_file(checkfile)
        return ok

    def check_file(self, checkfile: bytes) -> bool:
        runner = self.runner
        options = self.options
        is_stdin = checkfile == b'-'
        display_name = quote_name(b'standard input' if is_stdin else checkfile)
        try:
            if is_stdin:
                stream = runner.stdin
            else:
                stream = open(checkfile, 'rb')  # noqa: SIM115 - closed below
        except IsADirectoryError:
            # coreutils opens a directory and fails at its first read.
            runner.error(display_name + b': read error')
            return False
        except OSError as error:
            runner.file_error(checkfile, error)
            return False

        counts: Counter[str] = collections.Counter()
        read_failed = False

        def lines() -> Iterator[tuple[HashJob | None, object]]:
            """(None, line number) for an improperly formatted line; (job, checks) for
            a file to hash, checks being [(algorithm, expected hex)]. With several
            algorithms, consecutive lines for the same file, each of another
            algorithm (MD5 (f) = ..., then SHA256 (f) = ..., as -a md5,sha256
            prints them), make one job, so that the file is read once for all of
            them. Any other line is a job of its own, read on its own as coreutils
            reads it: a second line for /dev/stdin finds the pipe at its end."""
            nonlocal read_failed
            line_number = 0
            held: tuple[HashJob, list[tuple[str, bytes]]] | None = None
            while True:
                try:
                    line = stream.readline()
                except OSError:
                    read_failed = True
                    break
                if not line:
                    break
                line_number += 1
                if line.startswith(b'#'):
                    continue
                if line.endswith(b'\n'):
                    line = line[:-1]
                if line.endswith(b'\r'):
                    line = line[:-1]
                if not line:
                    continue
                parsed = self.parse_check_line(line)
                if parsed is None or (is_stdin and parsed[0] == b'-'):
                    if held is not None:
                        yield held
                        held = None
                    yield None, line_number
                    continue
                name, algorithm, expected = parsed
                if (
                    held is not None
                    and self.several
                    and held[0].name == name
                    and name != b'-'
                    and all(check[0] != algorithm for check in held[1])
                ):
                    held[1].append((algorithm, expected))
                    held[0].algorithms = tuple(check[0] for check in held[1])
                    continue
                if held is not None:
                    yield held
                job = HashJob(name)
                if algorithm != self.algorithm or self.several:
                    job.algorithms = (algorithm,)
                held = (job, [(algorithm, expected)])
            if held is not None:
                yield held

        try:
            for job, payload in runner.ordered(lines(), ignore_missing=options.ignore_missing):
                if job is None:
                    assert isinstance(payload, int)  # the line's number
                    counts['misformatted'] += 1
                    if options.warn:
                        kind = b'' if self.several else self.tag_name + b' '
                        runner.error(display_name + b': %d: improperly formatted ' % payload + kind + b'checksum line')
                    continue
                assert isinstance(payload, list)  # the (algorithm, expected hex digest) of each line
                counts['proper'] += len(payload)
                try:
                    computed = job.result()
                except Missing:
                    continue
                except OSError as error:
                    for _ in payload:
                        runner.file_error(job.name, error)
                        counts['unreadable'] += 1
                        if not options.status:
                            runner.output(self.report_name(job.name) + b': FAILED open or read\n')
                    continue
                for (_, expected), hexdigest in zip(payload, computed, strict=False):
                    matched = hexdigest.encode('ascii') == expected.lower()
                    counts['matched' if matched else 'mismatched'] += 1
                    if not options.status and (not matched or not options.quiet):
                        runner.output(self.report_name(job.name) + (b': OK\n' if matched else b': FAILED\n'))
        finally:
            if not is_stdin:
                stream.close()

        if read_failed:
            runner.error(display_name + b': read error')
            return False
        return summarize(runner, display_name, counts)

    def report_name(self, name: bytes) -> bytes:
        # The --check report escapes a name only when it holds a newline (a CR
        # or a backslash alone is printed as is): coreutils 9.1's rule.
        if b'\n' in name:
            return b'\\' + escape_name(name)
        return name

    def parse_check_line(self, line: bytes) -> tuple[bytes, str, bytes] | None:
        """(name, algorithm, expected hex digest) from one line of a checksum file,
        or None when the line is improperly formatted. Accepts coreutils' forms:
        'HEX  NAME', 'HEX *NAME', the BSD tag form 'ALGO (NAME) = HEX', each
        with a leading backslash when the name is escaped, and 'HEX NAME'
        (BSD reversed) when the first such line uses it. With several
        algorithms, only the tag form of one of them."""
        index = 0
        while index < len(line) and line[index] in b' \t':
            index += 1
        escaped = line[index : index + 1] == b'\\'
        index += escaped
        if self.several:
            for tag, algorithm, hex_length in self.tags:
                after_tag = index + len(tag)
                if line.startswith(tag, index) and line[after_tag : after_tag + 1] in (b' ', b'('):
                    if line[after_tag : after_tag + 1] == b' ':
                        after_tag += 1
                    if line[after_tag : after_tag + 1] != b'(':
                        return None
                    parsed = self._parse_tagged(line[after_tag + 1 :], escaped, hex_length)
                    return None if parsed is None else (parsed[0], algorithm, parsed[1])
            return None
        tag = self.tag_name
        if line.startswith(tag, index):
            after_tag = index + len(tag)
            if line[after_tag : after_tag + 1] == b' ':
                after_tag += 1
            if line[after_tag : after_tag + 1] != b'(':
                return None
            parsed = self._parse_tagged(line[after_tag + 1 :], escaped, self.hex_length)
            return None if parsed is None else (parsed[0], self.algorithm, parsed[1])

        if len(line) - index < self.hex_length + 2:
            return None
        expected = line[index : index + self.hex_length]
        index += self.hex_length
        if line[index] not in b' \t' or not _is_hex(expected, self.hex_length):
            return None
        index += 1
        if len(line) - index == 1 or line[index] not in b' *':
            # Don't let a file list mix formats once the first line chose one:
            # a name with a leading space or '*' would be read the other way.
            if self.bsd_reversed is False:
                return None
            self.bsd_reversed = True
        elif self.bsd_reversed is not True:
            self.bsd_reversed = False
            index += 1
        name = line[index:]
        if escaped:
            unescaped = unescape_name(name)
            if unescaped is None:
                return None
            name = unescaped
        return _c_string(name), self.algorithm, expected

    def _parse_tagged(self, rest: bytes, escaped: bool, hex_length: int) -> tuple[bytes, bytes] | None:
        close = rest.rfind(b')')
        if close < 0:
            return None
        name = rest[:close]
        if escaped:
            unescaped = unescape_name(name)
            if unescaped is None:
                return None
            name = unescaped
        index = close + 1
        while index < len(rest) and rest[index] in b' \t':
            index += 1
        if rest[index : index + 1] != b'=':
            return None
        index += 1
        while index < len(rest) and rest[index] in b' \t':
            index += 1
        expected = rest[index:]
        if not _is_hex(expected, hex_length) or len(expected) != hex_length:
            return None
        return _c_string(name), expected


def summarize(runner: Runner, display_name: bytes, counts: Counter[str]) -> bool:
    """The end of one checksum file's report, as coreutils writes it: its warnings from the counts of its
    lines ('proper', 'misformatted', 'unreadable', 'matched', 'mismatched'); whether it passed."""
    options = runner.options
    if not counts['proper']:
        runner.error(display_name + b': no properly formatted checksum lines found')
        return False
    if not options.status:
        for key, singular, plural in (
            ('misformatted', 'line is improperly formatted', 'lines are improperly formatted'),
            ('unreadable', 'listed file could not be read', 'listed files could not be read'),
            ('mismatched', 'computed checksum did NOT match', 'computed checksums did NOT match'),
        ):
            if counts[key]:
                words = singular if counts[key] == 1 else plural
                runner.error(b'WARNING: %d ' % counts[key] + words.encode())
        if options.ignore_missing and not counts['matched']:
            runner.error(display_name + b': no file was verified')
    return (
        counts['mismatched'] == 0
        and counts['unreadable'] == 0
        and not (options.strict and counts['misformatted'])
        and not (options.ignore_missing and not counts['matched'])
    )


def _is_hex(text: bytes, length: int) -> bool:
    return len(text) >= length and all(byte in b'0123456789abcdefABCDEF' for byte in text[:length])


def _c_string(name: bytes) -> bytes:
    # coreutils opens the name as a C string: a NUL in it ends the name.
    return name.split(b'\0', 1)[0]
