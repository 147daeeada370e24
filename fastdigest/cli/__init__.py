"""The fastdigest command: coreutils' md5sum / sha1sum / sha256sum / sha512sum, faster.

    fastdigest [-a ALGO] [--tag] [-c] [OPTION]... [FILE]...

The output, the escaping of odd file names, the --check report, the warnings
and the exit codes are those of GNU coreutils 9.1 (Debian 12), so scripts and
checksum files written for those tools work unchanged; only the program name
in messages differs. What differs inside: the files named on one command line
are hashed in parallel threads (fastdigest releases the GIL while it hashes a
chunk, and so does the read), and each file is read in large chunks into a
buffer that its thread reuses.

Every name is handled as bytes, exactly as the file system and the checksum
files spell it; nothing is decoded except to quote a name in an error message.

The modules, in the order a run goes through them: options (the command line),
output (one run: the files hashed in order, their lines printed), pool (the
threads that read and hash), progress (the bar on a terminal), names (escaping
and quoting file names), check (--check, imported only by the runs that check).
"""

from __future__ import annotations

# Imports are kept to what every run needs: the interpreter's start-up is most
# of the time of a short command, so concurrent.futures (which brings logging),
# typing, queue, signal (which brings enum), locale and unicodedata stay out of
# it, and threading out of a run that hashes one file in the calling thread; the
# few paths that need one import it where it is used. So it is with this
# package's own modules, each of which costs start-up time too: check (--check),
# names (escaping or quoting a name) and tree (-r) load only in the runs that
# use them. A test lists the modules an ordinary run imports.
import os
import stat
import sys

from fastdigest.cli.options import PROGRAM, UsageError, parse_arguments, validate_options
from fastdigest.cli.output import Runner

# typing.TYPE_CHECKING without importing typing; mypy reads the name itself.
TYPE_CHECKING = False

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import BinaryIO, NoReturn

__all__ = ['console_script', 'main', 'run']


def run(
    argv: Sequence[str | bytes],
    stdin: BinaryIO | None = None,
    stdout: BinaryIO | None = None,
    stderr: BinaryIO | None = None,
) -> int:
    """Run the command with *argv* (without the program name) on binary streams;
    returns the exit status. The tests call this in-process."""
    stdin = stdin if stdin is not None else sys.stdin.buffer
    stdout = stdout if stdout is not None else sys.stdout.buffer
    stderr = stderr if stderr is not None else sys.stderr.buffer
    try:
        options = parse_arguments(argv)
        if not options.help and not options.version:
            validate_options(options)
    except UsageError as problem:
        stderr.write(f"{PROGRAM}: {problem}\nTry '{PROGRAM} --help' for more information.\n".encode())
        stderr.flush()
        return 1
    if options.help:
        from fastdigest.cli.help import help_text

        stdout.write(help_text().encode())
        stdout.flush()
        return 0
    if options.version:
        stdout.write(f'{PROGRAM} (fastdigest) {_version()}\n'.encode())
        stdout.flush()
        return 0
    if options.self_test:
        return _self_test(stdout)

    runner = Runner(options, stdin, stdout, stderr)
    work: Callable[[], bool]
    if options.s3_etag:
        from fastdigest.cli.s3 import S3ETags

        etags = S3ETags(runner)
        work = etags.check_all if options.check else etags.print_etags
    elif options.check:
        from fastdigest.cli.check import Checker

        work = Checker(runner).check_all
    else:
        work = runner.print_checksums
    try:
        ok = work()
        stdout.flush()
    except OSError:
        # Files that cannot be read are reported one by one in the runner, so an
        # OSError that gets here is a failed write of the output (a full disk):
        # coreutils' message and status. The workers stop at their next chunk.
        runner.hasher.cancelled = True
        _report_write_error(stderr)
        ok = False
    except BaseException:
        # Ctrl-C: stop the workers at their next chunk.
        runner.hasher.cancelled = True
        raise
    finally:
        runner.hasher.shutdown()
        runner.progress.clear()
    return 0 if ok else 1


def _self_test(stdout: BinaryIO) -> int:
    """--self-test: fastdigest.self_test()'s report, and status 1 if any result was wrong."""
    from fastdigest import _self_test

    report = _self_test.run()
    stdout.write(_self_test.format_report(report).encode())
    stdout.flush()
    return 0 if report.passed else 1


def _report_write_error(stderr: BinaryIO) -> None:
    stderr.write(f'{PROGRAM}: write error\n'.encode())
    stderr.flush()


def _version() -> str:
    try:
        from importlib.metadata import version

        return version('fastdigest')
    except Exception:  # noqa: BLE001 - not installed as a distribution
        return 'unknown'


def main(argv: Sequence[str] | None = None) -> int:
    """Like run() on the process's own streams and arguments, with the process
    conventions of coreutils; returns the exit status."""
    # Die quietly on a closed pipe (`fastdigest * | head -1`), as C programs do,
    # instead of a BrokenPipeError traceback. Only a pipe or a socket can raise
    # SIGPIPE. The signal module costs a millisecond or more of start-up (it
    # makes enums of the signals); _signal, the built-in module it wraps and
    # the interpreter has loaded already, sets the handler the same way.
    if _may_raise_sigpipe():
        try:
            import _signal as signal  # type: ignore[import-not-found]
        except ImportError:  # an interpreter without it (signal is the public name)
            import signal

        if hasattr(signal, 'SIGPIPE'):
            signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    try:
        return run(sys.argv[1:] if argv is None else argv)
    except KeyboardInterrupt:
        return 130


def _may_raise_sigpipe() -> bool:
    """Whether standard output or standard error is a pipe or a socket (or cannot be told)."""
    for descriptor in (1, 2):
        try:
            mode = os.fstat(descriptor).st_mode
        except OSError:
            return True
        if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
            return True
    return False


def console_script() -> NoReturn:
    """The `fastdigest` command (installed or `python -m fastdigest`, both through
    fastdigest.__main__.run): main(), then the end of the process.

    When main() returns, the workers have finished (after Ctrl-C they are
    abandoned, as the interpreter's exit abandons daemon threads) and every line
    has been handed to stdout, so after a last flush the process ends at once
    instead of tearing the interpreter down module by module, which costs a few
    milliseconds for nothing (atexit functions do not run: the command registers
    none). Output that cannot be written (a full disk) is coreutils' "write
    error" and status 1; an exception out of main() takes the ordinary way
    out."""
    status = main()
    for stream in (sys.stdout, sys.stderr):
        if stream is None:
            continue
        try:
            stream.flush()
        except OSError:
            # Output that could not be written: main() has said so when it
            # was its own (status 1); otherwise it is said here.
            if status == 0:
                status = 1
                if stream is sys.stdout and sys.stderr is not None:
                    _report_write_error(sys.stderr.buffer)
    os._exit(status)
