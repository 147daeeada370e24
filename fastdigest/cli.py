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
"""

from __future__ import annotations

# Imports are kept to what every run needs: the interpreter's start-up is most
# of the time of a short command, so concurrent.futures (which brings logging),
# typing, queue, signal (which brings enum), locale and unicodedata stay out of
# it; the few paths that need one import it where it is used. A test lists the
# modules an ordinary run imports.
import collections
import errno
import io
import os
import stat
import sys
import threading
import time

import fastdigest

# typing.TYPE_CHECKING without importing typing; mypy reads the name itself.
TYPE_CHECKING = False

if TYPE_CHECKING:
    from queue import SimpleQueue
    from typing import (
        Any,
        BinaryIO,
        Callable,
        Counter,
        Deque,
        Iterable,
        Iterator,
        List,
        NoReturn,
        Optional,
        Sequence,
        Tuple,
        Union,
    )


# What the hashing loop reads from: FileIO, or a BytesIO in the tests.
Reader = io.RawIOBase | io.BufferedIOBase

PROGRAM = "fastdigest"
DEFAULT_ALGORITHM = "sha256"

# The name each algorithm carries in BSD-style (--tag) lines. The first six are
# the ones coreutils writes; coreutils has no tool for SHA-512/224 and /256, so
# those take the spelling of Perl's shasum --tag.
TAG_NAMES = {
    "md5": b"MD5",
    "sha1": b"SHA1",
    "sha224": b"SHA224",
    "sha256": b"SHA256",
    "sha384": b"SHA384",
    "sha512": b"SHA512",
    "sha512_224": b"SHA512/224",
    "sha512_256": b"SHA512/256",
}

# 1 MiB per read: large enough that the per-read costs (a system call, the
# GIL handed back and forth twice) are lost in the hashing of the chunk, and
# about a core's L2 cache, so the hash finds the chunk the read just copied.
CHUNK_SIZE = 1 << 20

# A big file gets a reading thread (while a core is spare) only from this many
# chunks on. The thread and its hand-overs cost about 1.4 ms; what it saves is
# the copy of each chunk out of the page cache, about 0.1-0.2 ms per MiB, so it
# pays from about 10 MiB on (measured on the Zen 4 of benchmarks/bench_cli.py:
# 8 MiB took 6.2 ms without the thread and 7.0 ms with it, 32 MiB 23.9 and 21.3).
READ_AHEAD_MIN_CHUNKS = 16

# Consecutive small files are handed to a worker thread together, until the
# batch holds this many bytes or files: a hand-over between threads costs tens
# of microseconds, more than hashing a small file.
BATCH_BYTES = 1 << 20
BATCH_FILES = 64

# The progress bar appears only once work has run this long: a run that ends
# sooner never draws anything, so short commands keep a clean terminal.
PROGRESS_DELAY_SECONDS = 1.0
PROGRESS_INTERVAL_SECONDS = 0.1

HELP_TEXT = """\
Usage: fastdigest [OPTION]... [FILE]...
Print or check checksums (SHA256 by default), like md5sum, sha1sum, sha256sum
and sha512sum. With no FILE, or when FILE is -, read standard input.

  -a, --algorithm=ALGO  md5, sha1, sha224, sha256 (default), sha384, sha512,
                        sha512_224, sha512_256; with --check, the algorithm
                        of the checksum lines
  -b, --binary          read in binary mode (mark the output lines with '*')
  -c, --check           read checksums from the FILEs and check them
      --tag             create a BSD-style checksum
  -t, --text            read in text mode (default)
  -z, --zero            end each output line with NUL, not newline,
                          and disable file name escaping

The following five options are useful only when verifying checksums:
      --ignore-missing  don't fail or report status for missing files
      --quiet           don't print OK for each successfully verified file
      --status          don't output anything, status code shows success
      --strict          exit non-zero for improperly formatted checksum lines
  -w, --warn            warn about improperly formatted checksum lines

      --help            display this help and exit
      --version         output version information and exit

The output and the checks are those of GNU coreutils; several FILEs are hashed
in parallel. Exit status: 0 if every file was read (and every check passed),
1 otherwise.
"""

# The long options in the order getopt_long lists them when an abbreviation is
# ambiguous, each with whether it takes an argument.
LONG_OPTIONS: Tuple[Tuple[str, bool], ...] = (
    ("algorithm", True),
    ("binary", False),
    ("check", False),
    ("ignore-missing", False),
    ("quiet", False),
    ("status", False),
    ("strict", False),
    ("tag", False),
    ("text", False),
    ("warn", False),
    ("zero", False),
    ("help", False),
    ("version", False),
)
SHORT_OPTIONS = {"a": "algorithm", "b": "binary", "c": "check", "t": "text", "w": "warn", "z": "zero"}


class UsageError(Exception):
    """A bad command line: the message goes to stderr, followed by the --help hint."""


class Options:
    def __init__(self) -> None:
        self.algorithm = DEFAULT_ALGORITHM
        self.check = False
        self.tag = False
        # None: neither -b nor -t given. On POSIX both modes read the same
        # bytes; the mode only chooses the ' ' or '*' before the name.
        self.binary: Optional[bool] = None
        self.zero = False
        self.ignore_missing = False
        self.quiet = False
        self.status = False
        self.strict = False
        self.warn = False
        self.help = False
        self.version = False
        self.files: List[bytes] = []


# --- command line -------------------------------------------------------------


def _match_long_option(word: str) -> Tuple[str, bool]:
    """The long option that *word* (without '--' and '=value') names: exact or a unique prefix."""
    for name, takes_argument in LONG_OPTIONS:
        if name == word:
            return name, takes_argument
    candidates = [(name, arg) for name, arg in LONG_OPTIONS if name.startswith(word)]
    if len(candidates) == 1:
        return candidates[0]
    if not candidates:
        raise UsageError(f"unrecognized option '--{word}'")
    listed = " ".join(f"'--{name}'" for name, _ in candidates)
    raise UsageError(f"option '--{word}' is ambiguous; possibilities: {listed}")


def _apply_option(options: Options, name: str, value: Optional[str]) -> None:
    if name == "algorithm":
        assert value is not None
        options.algorithm = _canonical_algorithm(value)
    elif name == "binary":
        options.binary = True
    elif name == "text":
        options.binary = False
    elif name == "tag":
        # As in coreutils, --tag implies binary mode and a later -t undoes it.
        options.tag = True
        options.binary = True
    elif name == "ignore-missing":
        options.ignore_missing = True
    elif name in ("warn", "quiet", "status"):
        # As in coreutils, these three override each other: the last one wins.
        options.warn = name == "warn"
        options.quiet = name == "quiet"
        options.status = name == "status"
    else:
        setattr(options, name, True)


def _canonical_algorithm(value: str) -> str:
    try:
        name = fastdigest.new(value).name
    except (ValueError, TypeError):
        name = None
    if name not in TAG_NAMES:
        valid = "".join(f"\n  - '{known}'" for known in TAG_NAMES)
        raise UsageError(f"invalid argument '{value}' for '--algorithm'\nValid arguments are:{valid}")
    return name


def parse_arguments(argv: Sequence[Union[str, bytes]]) -> Options:
    """Parse like GNU getopt_long: options and operands may be mixed, '--' ends the options,
    long options may be abbreviated, short options may be bundled (-cw, -asha1)."""
    options = Options()
    words = [os.fsdecode(word) for word in argv]
    index = 0
    while index < len(words):
        word = words[index]
        index += 1
        if word == "--":
            options.files.extend(os.fsencode(rest) for rest in words[index:])
            break
        if word.startswith("--"):
            body, has_value, value = word[2:].partition("=")
            name, takes_argument = _match_long_option(body)
            if has_value and not takes_argument:
                raise UsageError(f"option '--{name}' doesn't allow an argument")
            if takes_argument and not has_value:
                if index == len(words):
                    raise UsageError(f"option '--{name}' requires an argument")
                value = words[index]
                index += 1
            _apply_option(options, name, value if takes_argument else None)
        elif word.startswith("-") and word != "-":
            position = 1
            while position < len(word):
                letter = word[position]
                position += 1
                if letter not in SHORT_OPTIONS:
                    raise UsageError(f"invalid option -- '{letter}'")
                name = SHORT_OPTIONS[letter]
                if name == "algorithm":
                    if position < len(word):
                        value = word[position:]
                    elif index < len(words):
                        value = words[index]
                        index += 1
                    else:
                        raise UsageError(f"option requires an argument -- '{letter}'")
                    _apply_option(options, name, value)
                    break
                _apply_option(options, name, None)
        else:
            options.files.append(os.fsencode(word))
    return options


def validate_options(options: Options) -> None:
    """Reject the combinations coreutils rejects, with its messages, in its order."""
    if options.tag and options.binary is False:
        raise UsageError("--tag does not support --text mode")
    if options.zero and options.check:
        raise UsageError("the --zero option is not supported when verifying checksums")
    if options.tag and options.check:
        raise UsageError("the --tag option is meaningless when verifying checksums")
    if options.binary is not None and options.check:
        raise UsageError("the --binary and --text options are meaningless when verifying checksums")
    for flag, option in (
        (options.ignore_missing, "--ignore-missing"),
        (options.status, "--status"),
        (options.warn, "--warn"),
        (options.quiet, "--quiet"),
        (options.strict, "--strict"),
    ):
        if flag and not options.check:
            raise UsageError(f"the {option} option is meaningful only when verifying checksums")


# --- names in output and in messages -----------------------------------------


def escape_name(name: bytes) -> bytes:
    """coreutils' escaping of a name in an output line: backslash, newline and CR."""
    return name.replace(b"\\", b"\\\\").replace(b"\n", b"\\n").replace(b"\r", b"\\r")


def unescape_name(escaped: bytes) -> Optional[bytes]:
    """The inverse of escape_name for a checksum line; None if the line is malformed
    (an escape other than \\\\, \\n, \\r, a trailing backslash, or a NUL)."""
    out = bytearray()
    index = 0
    while index < len(escaped):
        byte = escaped[index]
        if byte == 0:
            return None
        if byte == 0x5C:  # backslash
            index += 1
            if index == len(escaped):
                return None
            replacement = {0x5C: 0x5C, 0x6E: 0x0A, 0x72: 0x0D}.get(escaped[index])
            if replacement is None:
                return None
            out.append(replacement)
        else:
            out.append(byte)
        index += 1
    return bytes(out)


# Characters a shell takes literally anywhere in a word.
_SHELL_SAFE = frozenset(
    b"%+,-./0123456789:ABCDEFGHIJKLMNOPQRSTUVWXYZ]_abcdefghijklmnopqrstuvwxyz"
)
_SHELL_SPECIAL = frozenset(b' !"$&()*;<=>[^`|\'?\\')
_C_ESCAPES = {0x07: b"a", 0x08: b"b", 0x0C: b"f", 0x0A: b"n", 0x0D: b"r", 0x09: b"t", 0x0B: b"v"}


def _locale_is_utf8() -> bool:
    """Whether names are read as UTF-8 (as coreutils' mbrtowc does in such a locale)
    or byte by byte, with every byte >= 0x80 unprintable (the C locale)."""
    try:
        import locale

        return locale.nl_langinfo(locale.CODESET).replace("-", "").upper() == "UTF8"
    except (ImportError, AttributeError, ValueError):
        return True


def _split_characters(name: bytes) -> Iterator[Tuple[bytes, bool]]:
    """Yield (bytes of one character, printable?) the way mbrtowc/iswprint see it."""
    utf8 = max(name, default=0) >= 0x80 and _locale_is_utf8()
    index = 0
    while index < len(name):
        byte = name[index]
        if byte < 0x80 or not utf8:
            yield name[index : index + 1], 0x20 <= byte < 0x7F
            index += 1
            continue
        for length in (2, 3, 4):
            piece = name[index : index + length]
            try:
                character = piece.decode("utf-8")
            except UnicodeDecodeError:
                continue
            # iswprint also counts the spaces (Zs) that str.isprintable leaves out.
            printable = character.isprintable() or _is_space_separator(character)
            yield piece, printable
            index += length
            break
        else:
            # An invalid or truncated sequence: escaped byte by byte.
            yield name[index : index + 1], False
            index += 1


def _is_space_separator(character: str) -> bool:
    import unicodedata

    return unicodedata.category(character) == "Zs"


def quote_name(name: bytes) -> bytes:
    """A name as coreutils' quotef shows it in a message (gnulib's shell-escape style,
    with ':' also quoted): bare when the shell would take it literally, else in
    single quotes, with $'\\n'-style escapes for unprintable characters."""
    characters = list(_split_characters(name))
    needs_quotes = not name
    for position, (piece, printable) in enumerate(characters):
        byte = piece[0]
        if len(piece) > 1:
            needs_quotes |= not printable
        elif byte in _SHELL_SPECIAL or byte == ord(":") or not printable:
            needs_quotes = True
        elif byte in b"#~" and position == 0:
            needs_quotes = True
        elif byte in b"{}" and len(name) == 1:
            needs_quotes = True
    if not needs_quotes:
        return name

    has_single_quote = b"'" in name
    # gnulib prefers "..." when the only trouble is an apostrophe among
    # characters that mean the same inside C and shell double quotes.
    if has_single_quote and all(_double_quote_compatible(p, ok, i, len(name)) for i, (p, ok) in enumerate(characters)):
        return b'"' + name + b'"'

    quoted, escape_open = _single_quoted(characters, escape_open=False)
    if has_single_quote and escape_open:
        # gnulib writes names with an apostrophe twice, the first time only to
        # measure, and its second pass starts with the $'...' escape flag left
        # over from the first; coreutils 9.1 prints the result, so do we.
        quoted, _ = _single_quoted(characters, escape_open=True)
    return quoted


def _double_quote_compatible(piece: bytes, printable: bool, position: int, length: int) -> bool:
    byte = piece[0]
    if len(piece) > 1 or byte >= 0x80:
        return printable
    if byte in _SHELL_SAFE or byte in b" '":
        return True
    if byte in b"#~":
        return position == 0
    if byte in b"{}":
        return length == 1
    if byte in _SHELL_SPECIAL or byte < 0x20 or byte == 0x7F:
        return False
    return printable  # '@' and the like


def _single_quoted(characters: List[Tuple[bytes, bool]], escape_open: bool) -> Tuple[bytes, bool]:
    out = bytearray(b"'")
    for piece, printable in characters:
        byte = piece[0]
        if printable or (len(piece) == 1 and byte not in _C_ESCAPES and 0x20 <= byte < 0x7F):
            if piece == b"'":
                # gnulib closes a pending $'...' with the quote itself here.
                out += b"'\\''"
                escape_open = False
            else:
                if escape_open:
                    out += b"''"
                    escape_open = False
                out += piece
            continue
        if not escape_open:
            out += b"'$'"
            escape_open = True
        if len(piece) == 1 and byte in _C_ESCAPES:
            out += b"\\" + _C_ESCAPES[byte]
        else:
            for raw in piece:
                out += b"\\%03o" % raw
    out += b"'"
    return bytes(out), escape_open


# --- reading and hashing ------------------------------------------------------


class Cancelled(Exception):
    """Raised in a worker when the run is being abandoned (Ctrl-C)."""


class Missing(Exception):
    """The file does not exist and --ignore-missing was given."""


class HashJob:
    """One file to hash, and then its hex digest or the exception that stopped it.
    Its worker thread is the only writer of bytes_done, digest and error."""

    __slots__ = ("name", "bytes_done", "digest", "error")

    def __init__(self, name: bytes) -> None:
        self.name = name
        self.bytes_done = 0
        self.digest = ""
        self.error: Optional[BaseException] = None

    def result(self) -> str:
        if self.error is not None:
            raise self.error
        return self.digest


class _ItemQueue:
    """queue.SimpleQueue's put() and get() (unbounded, first in first out, any number
    of threads) without importing the queue module, for the pool's few hand-overs
    per run: a deque, whose append() and popleft() are atomic, and a semaphore
    counting its items, released only once an item is in, so that every get()
    that passes the semaphore finds one."""

    __slots__ = ("_items", "_count")

    def __init__(self) -> None:
        self._items: Deque[object] = collections.deque()
        self._count = threading.Semaphore(0)

    def put(self, item: object) -> None:
        self._items.append(item)
        self._count.release()

    def get(self) -> object:
        self._count.acquire()
        return self._items.popleft()


def _new_item_queue() -> SimpleQueue[Any]:
    # Typed as queue.SimpleQueue, the interface _ItemQueue implements (put and get only).
    return _ItemQueue()  # type: ignore[return-value]


class WorkerPool:
    """Daemon threads calling the submitted functions in submission order
    (concurrent.futures' pool without its import cost). Daemon threads, so that
    Ctrl-C never waits for a read blocked on a pipe."""

    def __init__(self, workers: int) -> None:
        self.workers = max(1, workers)
        self.calls: SimpleQueue[Optional[Tuple[Callable[..., None], Tuple[object, ...]]]] = _new_item_queue()
        self.threads: List[threading.Thread] = []

    def submit(self, function: Callable[..., None], *arguments: object) -> None:
        self.calls.put((function, arguments))
        if len(self.threads) < self.workers:
            thread = threading.Thread(target=self._work, name="fastdigest-worker", daemon=True)
            thread.start()
            self.threads.append(thread)

    def _work(self) -> None:
        while True:
            call = self.calls.get()
            if call is None:
                return
            function, arguments = call
            function(*arguments)

    def shutdown(self, wait: bool) -> None:
        for _ in self.threads:
            self.calls.put(None)
        if wait:
            for thread in self.threads:
                thread.join()


class Hasher:
    """Hashes batches of files in a pool of threads; each batch sets an event when done."""

    def __init__(self, algorithm: str, stdin: BinaryIO, workers: int) -> None:
        self.algorithm = algorithm
        self.stdin = stdin
        self.cancelled = False
        self._buffers = threading.local()
        self._pool = WorkerPool(workers)
        self._cpus = workers
        # Big files being hashed (READ_AHEAD_MIN_CHUNKS or more): while they
        # leave a core to spare, a big file gets a reading thread too.
        self._big_files = 0
        self._big_files_lock = threading.Lock()
        # Standard input can be named more than once; the reads must happen
        # one after another in argument order (the first one reads to EOF), so
        # all of them go through a pool of one thread.
        self._stdin_pool: Optional[WorkerPool] = None
        # Set when the calling thread has nothing else to do while the jobs are
        # hashed (one file, no progress bar): it hashes them itself, sparing a
        # thread's start and hand-over, which take from 0.1 ms to several on a
        # busy machine, where the new thread waits for a core.
        self.inline = False

    def submit(self, jobs: List[HashJob], ignore_missing: bool) -> threading.Event:
        """Hash *jobs* one after another in one thread (the calling one if
        self.inline). A batch holds either files only or standard input only."""
        finished = threading.Event()
        if self.inline:
            self._hash_batch(jobs, ignore_missing, finished)
        elif jobs[0].name == b"-":
            if self._stdin_pool is None:
                self._stdin_pool = WorkerPool(1)
            self._stdin_pool.submit(self._hash_batch, jobs, ignore_missing, finished)
        else:
            self._pool.submit(self._hash_batch, jobs, ignore_missing, finished)
        return finished

    def shutdown(self) -> None:
        """Stop the threads; wait for them unless the run was cancelled."""
        for pool in (self._pool, self._stdin_pool):
            if pool is not None:
                pool.shutdown(wait=not self.cancelled)

    def _hash_batch(self, jobs: List[HashJob], ignore_missing: bool, finished: threading.Event) -> None:
        try:
            for job in jobs:
                try:
                    if job.name == b"-":
                        job.digest = self._hash_stdin(job)
                    else:
                        job.digest = self._hash_file(job, ignore_missing)
                except BaseException as error:  # handed to the thread that prints
                    job.error = error
        finally:
            finished.set()

    def _buffer(self) -> Tuple[bytearray, memoryview]:
        buffers = self._buffers
        if not hasattr(buffers, "view"):
            buffers.array = bytearray(CHUNK_SIZE)
            buffers.view = memoryview(buffers.array)
        return buffers.array, buffers.view

    def _hash_file(self, job: HashJob, ignore_missing: bool) -> str:
        # FileIO reads without the GIL and rejects a directory with EISDIR,
        # the error coreutils reports for one.
        try:
            stream = io.FileIO(job.name, "rb")
        except FileNotFoundError:
            if ignore_missing:
                raise Missing() from None
            raise
        with stream:
            return self._hash_stream(stream, job, read_ahead=_is_big_regular_file(stream))

    def _hash_stdin(self, job: HashJob) -> str:
        stream = self.stdin
        try:
            descriptor = stream.fileno()
        except (AttributeError, OSError, ValueError):
            # A stream without a descriptor (io.BytesIO in the tests).
            return self._hash_stream(stream, job)  # type: ignore[arg-type]
        # Read the descriptor itself: no Python-level buffering, no copy.
        raw = io.FileIO(descriptor, "rb", closefd=False)
        try:
            return self._hash_stream(raw, job)
        finally:
            raw.close()

    def _hash_stream(self, stream: Reader, job: HashJob, read_ahead: bool = False) -> str:
        """read_ahead: the stream is a regular file, whose reads always return, big
        enough to be worth a reading thread."""
        array, view = self._buffer()
        digest = fastdigest.new(self.algorithm)
        readinto = stream.readinto
        update = digest.update
        big_file = False
        try:
            while True:
                if self.cancelled:
                    raise Cancelled()
                count = readinto(array)
                if count is None:
                    # A non-blocking descriptor with nothing to read yet: coreutils
                    # reports the EAGAIN of its read() as an error, and so do we.
                    raise BlockingIOError(errno.EAGAIN, os.strerror(errno.EAGAIN))
                if not count:
                    break
                update(view[:count])
                job.bytes_done += count
                if count == len(array) and job.bytes_done == count:
                    # A first full chunk: a file worth the system call of
                    # telling the kernel to read ahead further, and, if it is
                    # big and a core is spare, a thread reading while this one
                    # hashes.
                    _advise_sequential(stream)
                    if read_ahead:
                        with self._big_files_lock:
                            self._big_files += 1
                            big_file = True
                            spare_core = 2 * self._big_files <= self._cpus
                        if spare_core:
                            self._hash_rest_reading_ahead(stream, job, update)
                            break
        finally:
            if big_file:
                with self._big_files_lock:
                    self._big_files -= 1
        return digest.hexdigest()

    def _hash_rest_reading_ahead(self, stream: Reader, job: HashJob, update: Callable[[memoryview], None]) -> None:
        """Hashes the rest of a big file while a second thread reads the next
        chunk into one buffer as this one hashes the other: reads and large
        updates both run without the GIL, so the file takes the longer of the
        two instead of their sum."""
        # queue's C SimpleQueue hands a chunk over a few microseconds faster than
        # _ItemQueue; its import is paid only here, by a file big enough not to notice.
        import queue

        free: SimpleQueue[Optional[Tuple[bytearray, memoryview]]] = queue.SimpleQueue()
        # A buffer and the count read into it, or what the read raised.
        filled: SimpleQueue[Union[Tuple[Tuple[bytearray, memoryview], Optional[int]], BaseException]]
        filled = queue.SimpleQueue()
        for _ in range(2):
            array = bytearray(CHUNK_SIZE)
            free.put((array, memoryview(array)))

        def read() -> None:
            try:
                while True:
                    buffer = free.get()
                    if buffer is None or self.cancelled:
                        return
                    count = stream.readinto(buffer[0])
                    filled.put((buffer, count))
                    if not count:
                        return
            except BaseException as error:  # handed to the hashing thread
                filled.put(error)

        reader = threading.Thread(target=read, name="fastdigest-reader", daemon=True)
        reader.start()
        try:
            while True:
                item = filled.get()
                if isinstance(item, BaseException):
                    raise item
                buffer, count = item
                if not count:
                    return
                if self.cancelled:
                    raise Cancelled()
                update(buffer[1][:count])
                job.bytes_done += count
                free.put(buffer)
        finally:
            free.put(None)  # ends a reader still waiting for a buffer
            reader.join()


def _is_big_regular_file(stream: io.FileIO) -> bool:
    try:
        status = os.fstat(stream.fileno())
    except OSError:
        return False
    return stat.S_ISREG(status.st_mode) and status.st_size >= READ_AHEAD_MIN_CHUNKS * CHUNK_SIZE


def _advise_sequential(stream: Reader) -> None:
    try:
        os.posix_fadvise(stream.fileno(), 0, 0, os.POSIX_FADV_SEQUENTIAL)
    except (AttributeError, OSError, ValueError):
        pass  # no such call here, or a pipe: the hint does not apply


def _worker_count() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


# --- the progress bar -----------------------------------------------------------


class Progress:
    """A one-line bar on stderr, drawn only when stderr is a terminal and the work
    has already lasted PROGRESS_DELAY_SECONDS. Lines written to stdout first erase it."""

    def __init__(self, stderr: BinaryIO, enabled: bool, total_bytes: Optional[int], total_files: Optional[int]) -> None:
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

    def draw(self, active: Iterable[HashJob], now: Optional[float] = None) -> None:
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
        files = f"{self.files_finished}" + (f"/{self.total_files}" if self.total_files is not None else "")
        text = f" {_format_bytes(done)}"
        if self.total_bytes:
            text += f" / {_format_bytes(self.total_bytes)}"
        text += f"  {_format_bytes(done / elapsed if elapsed > 0 else 0)}/s  {files} files"
        if self.total_bytes:
            fraction = min(1.0, done / self.total_bytes)
            bar_width = max(10, min(40, width - len(text) - 8))
            filled = int(fraction * bar_width)
            text = f"[{'#' * filled}{'.' * (bar_width - filled)}] {fraction * 100:3.0f}%" + text
        line = text[: max(1, width - 1)]
        self.stderr.write(b"\r" + line.encode("ascii", "replace") + b"\x1b[K")
        self.stderr.flush()
        self.visible = True

    def clear(self) -> None:
        if self.visible:
            self.stderr.write(b"\r\x1b[K")
            self.stderr.flush()
            self.visible = False


def _terminal_width(stream: BinaryIO) -> int:
    try:
        return os.get_terminal_size(stream.fileno()).columns
    except (AttributeError, OSError, ValueError):
        return 80


def _format_bytes(count: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if count < 1024:
            return f"{count:.0f} {unit}" if unit == "B" else f"{count:.1f} {unit}"
        count /= 1024
    return f"{count:.1f} TiB"


def _is_terminal(stream: BinaryIO) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


# --- running the jobs in order --------------------------------------------------


class Runner:
    """What one invocation shares: the streams, the options, the pool, the bar."""

    def __init__(self, options: Options, stdin: BinaryIO, stdout: BinaryIO, stderr: BinaryIO) -> None:
        self.options = options
        self.stdin = stdin
        self.stdout = stdout
        self.stderr = stderr
        self.tag_name = TAG_NAMES[options.algorithm]
        self.hex_length = fastdigest.new(options.algorithm).digest_size * 2
        self.hasher = Hasher(options.algorithm, stdin, _worker_count())
        self.window = 4 * _worker_count()
        self.progress = Progress(stderr, False, None, None)
        # Lines reach a terminal as they are computed (C's stdio line-buffers a
        # terminal); into a pipe or a file they go in large writes.
        self.flush_each_line = _is_terminal(stdout)
        # coreutils keeps whether checksum lines are "BSD reversed" (hex, one
        # space, name) in a static variable: the first line decides for the run.
        self.bsd_reversed: Optional[bool] = None

    def error(self, message: bytes) -> None:
        self.progress.clear()
        self.stdout.flush()
        self.stderr.write(PROGRAM.encode() + b": " + message + b"\n")
        self.stderr.flush()

    def file_error(self, name: bytes, error: OSError) -> None:
        reason = error.strerror or os.strerror(error.errno or errno.EIO)
        self.error(quote_name(name) + b": " + reason.encode("utf-8", "replace"))

    def output(self, line: bytes) -> None:
        if self.progress.visible:
            self.progress.clear()
        self.stdout.write(line)
        if self.flush_each_line or self.progress.enabled:
            self.stdout.flush()

    def ordered(
        self, items: Iterable[Tuple[Optional[HashJob], object]], ignore_missing: bool = False
    ) -> Iterator[Tuple[Optional[HashJob], object]]:
        """Yield the (job, payload) items in their order, each job hashed by then
        (job.result() gives its digest). Items without a job pass straight through.

        Consecutive small files go to a worker together, up to BATCH_BYTES or
        BATCH_FILES: handing a thread one tiny file at a time costs more than
        hashing it. A big file makes a batch of its own, so big files are hashed
        in parallel. Up to self.window batches run ahead of the one printed."""
        pending: Deque[Tuple[List[Tuple[Optional[HashJob], object]], Optional[threading.Event]]]
        pending = collections.deque()
        building: List[Tuple[Optional[HashJob], object]] = []
        building_jobs: List[HashJob] = []
        building_bytes = 0
        in_flight = 0
        held = 0  # items in pending and building
        iterator = iter(items)
        exhausted = False

        def close_batch() -> None:
            nonlocal building, building_jobs, building_bytes, in_flight
            if not building:
                return
            finished = self.hasher.submit(building_jobs, ignore_missing) if building_jobs else None
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
                if job is not None and job.name == b"-":
                    # Standard input goes alone to its own thread (see Hasher).
                    close_batch()
                    building.append((job, payload))
                    building_jobs.append(job)
                    close_batch()
                    continue
                building.append((job, payload))
                if job is None:
                    continue
                building_jobs.append(job)
                building_bytes += _regular_file_size(job.name) or 0
                if building_bytes >= BATCH_BYTES or len(building_jobs) >= BATCH_FILES:
                    close_batch()
            if exhausted or in_flight == 0 or held >= 64 * self.window:
                close_batch()
            if not pending:
                return
            if pending[0][1] is not None:
                active = [job for entry in pending for job, _ in entry[0] if job is not None]
                self._wait(pending[0][1], active)
                in_flight -= 1
            batch, _ = pending.popleft()
            for job, payload in batch:
                held -= 1
                if job is not None:
                    self.progress.finished(job)
                yield job, payload

    def _wait(self, finished: threading.Event, active: List[HashJob]) -> None:
        if not self.progress.enabled:
            finished.wait()
            return
        while not finished.wait(PROGRESS_INTERVAL_SECONDS):
            self.progress.draw(active)

    # -- printing checksums

    def print_checksums(self) -> bool:
        options = self.options
        files = options.files or [b"-"]
        if _is_terminal(self.stderr):
            # The bar's total; a stat per file is only worth it when a bar can show.
            total = sum(_regular_file_size(name) or 0 for name in files)
            self.progress = Progress(self.stderr, True, total, len(files))
        # A bar is drawn by this thread while workers hash: only without one can
        # this thread hash the file itself.
        self.hasher.inline = len(files) == 1 and not self.progress.enabled
        delimiter = b"\0" if options.zero else b"\n"
        marker = b"*" if options.binary else b" "
        ok = True
        items = ((HashJob(name), None) for name in files)
        for job, _ in self.ordered(items):
            assert job is not None  # every item here is a file
            try:
                hexdigest = job.result()
            except OSError as error:
                self.file_error(job.name, error)
                ok = False
                continue
            escape = not options.zero and any(byte in job.name for byte in b"\\\n\r")
            name = escape_name(job.name) if escape else job.name
            prefix = b"\\" if escape else b""
            digest = hexdigest.encode("ascii")
            if options.tag:
                line = prefix + self.tag_name + b" (" + name + b") = " + digest
            else:
                line = prefix + digest + b" " + marker + name
            self.output(line + delimiter)
        return ok

    # -- checking checksums

    def check_all(self) -> bool:
        self.progress = Progress(self.stderr, _is_terminal(self.stderr) and not self.options.status, None, None)
        ok = True
        for checkfile in self.options.files or [b"-"]:
            ok &= self.check_file(checkfile)
        return ok

    def check_file(self, checkfile: bytes) -> bool:
        options = self.options
        is_stdin = checkfile == b"-"
        display_name = quote_name(b"standard input" if is_stdin else checkfile)
        try:
            if is_stdin:
                stream = self.stdin
            else:
                stream = open(checkfile, "rb")  # noqa: SIM115 - closed below
        except IsADirectoryError:
            # coreutils opens a directory and fails at its first read.
            self.error(display_name + b": read error")
            return False
        except OSError as error:
            self.file_error(checkfile, error)
            return False

        counts: Counter[str] = collections.Counter()
        read_failed = False

        def lines() -> Iterator[Tuple[Optional[HashJob], object]]:
            nonlocal read_failed
            line_number = 0
            while True:
                try:
                    line = stream.readline()
                except OSError:
                    read_failed = True
                    return
                if not line:
                    return
                line_number += 1
                if line.startswith(b"#"):
                    continue
                if line.endswith(b"\n"):
                    line = line[:-1]
                if line.endswith(b"\r"):
                    line = line[:-1]
                if not line:
                    continue
                parsed = self.parse_check_line(line)
                if parsed is None or (is_stdin and parsed[0] == b"-"):
                    yield None, line_number
                else:
                    name, expected = parsed
                    yield HashJob(name), expected

        try:
            for job, payload in self.ordered(lines(), ignore_missing=options.ignore_missing):
                if job is None:
                    assert isinstance(payload, int)  # the line's number
                    counts["misformatted"] += 1
                    if options.warn:
                        self.error(
                            display_name
                            + b": %d: improperly formatted " % payload
                            + self.tag_name
                            + b" checksum line"
                        )
                    continue
                assert isinstance(payload, bytes)  # the expected hex digest
                counts["proper"] += 1
                try:
                    computed = job.result()
                except Missing:
                    continue
                except OSError as error:
                    self.file_error(job.name, error)
                    counts["unreadable"] += 1
                    if not options.status:
                        self.output(self.report_name(job.name) + b": FAILED open or read\n")
                    continue
                matched = computed.encode("ascii") == payload.lower()
                counts["matched" if matched else "mismatched"] += 1
                if not options.status and (not matched or not options.quiet):
                    self.output(self.report_name(job.name) + (b": OK\n" if matched else b": FAILED\n"))
        finally:
            if not is_stdin:
                stream.close()

        if read_failed:
            self.error(display_name + b": read error")
            return False
        if not counts["proper"]:
            self.error(display_name + b": no properly formatted checksum lines found")
            return False
        if not options.status:
            for key, singular, plural in (
                ("misformatted", "line is improperly formatted", "lines are improperly formatted"),
                ("unreadable", "listed file could not be read", "listed files could not be read"),
                ("mismatched", "computed checksum did NOT match", "computed checksums did NOT match"),
            ):
                if counts[key]:
                    words = singular if counts[key] == 1 else plural
                    self.error(b"WARNING: %d " % counts[key] + words.encode())
            if options.ignore_missing and not counts["matched"]:
                self.error(display_name + b": no file was verified")
        return (
            counts["mismatched"] == 0
            and counts["unreadable"] == 0
            and not (options.strict and counts["misformatted"])
            and not (options.ignore_missing and not counts["matched"])
        )

    def report_name(self, name: bytes) -> bytes:
        # The --check report escapes a name only when it holds a newline (a CR
        # or a backslash alone is printed as is): coreutils 9.1's rule.
        if b"\n" in name:
            return b"\\" + escape_name(name)
        return name

    def parse_check_line(self, line: bytes) -> Optional[Tuple[bytes, bytes]]:
        """(name, expected hex digest) from one line of a checksum file, or None
        when the line is improperly formatted. Accepts coreutils' forms:
        'HEX  NAME', 'HEX *NAME', the BSD tag form 'ALGO (NAME) = HEX', each
        with a leading backslash when the name is escaped, and 'HEX NAME'
        (BSD reversed) when the first such line uses it."""
        index = 0
        while index < len(line) and line[index] in b" \t":
            index += 1
        escaped = line[index : index + 1] == b"\\"
        index += escaped
        tag = self.tag_name
        if line.startswith(tag, index):
            after_tag = index + len(tag)
            if line[after_tag : after_tag + 1] == b" ":
                after_tag += 1
            if line[after_tag : after_tag + 1] != b"(":
                return None
            return self._parse_tagged(line[after_tag + 1 :], escaped)

        if len(line) - index < self.hex_length + 2:
            return None
        expected = line[index : index + self.hex_length]
        index += self.hex_length
        if line[index] not in b" \t" or not _is_hex(expected, self.hex_length):
            return None
        index += 1
        if len(line) - index == 1 or line[index] not in b" *":
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
        return _c_string(name), expected

    def _parse_tagged(self, rest: bytes, escaped: bool) -> Optional[Tuple[bytes, bytes]]:
        close = rest.rfind(b")")
        if close < 0:
            return None
        name = rest[:close]
        if escaped:
            unescaped = unescape_name(name)
            if unescaped is None:
                return None
            name = unescaped
        index = close + 1
        while index < len(rest) and rest[index] in b" \t":
            index += 1
        if rest[index : index + 1] != b"=":
            return None
        index += 1
        while index < len(rest) and rest[index] in b" \t":
            index += 1
        expected = rest[index:]
        if not _is_hex(expected, self.hex_length) or len(expected) != self.hex_length:
            return None
        return _c_string(name), expected


def _is_hex(text: bytes, length: int) -> bool:
    return len(text) >= length and all(byte in b"0123456789abcdefABCDEF" for byte in text[:length])


def _c_string(name: bytes) -> bytes:
    # coreutils opens the name as a C string: a NUL in it ends the name.
    return name.split(b"\0", 1)[0]


def _regular_file_size(name: bytes) -> Optional[int]:
    if name == b"-":
        return None
    try:
        return os.stat(name).st_size
    except (OSError, ValueError):
        return None


# --- entry points ---------------------------------------------------------------


def run(
    argv: Sequence[Union[str, bytes]],
    stdin: Optional[BinaryIO] = None,
    stdout: Optional[BinaryIO] = None,
    stderr: Optional[BinaryIO] = None,
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
        stdout.write(HELP_TEXT.encode())
        stdout.flush()
        return 0
    if options.version:
        stdout.write(f"{PROGRAM} (fastdigest) {_version()}\n".encode())
        stdout.flush()
        return 0

    runner = Runner(options, stdin, stdout, stderr)
    try:
        ok = runner.check_all() if options.check else runner.print_checksums()
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


def _report_write_error(stderr: BinaryIO) -> None:
    stderr.write(f"{PROGRAM}: write error\n".encode())
    stderr.flush()


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("fastdigest")
    except Exception:  # noqa: BLE001 - not installed as a distribution
        return "unknown"


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Like run() on the process's own streams and arguments, with the process
    conventions of coreutils; returns the exit status."""
    # Die quietly on a closed pipe (`fastdigest * | head -1`), as C programs do,
    # instead of a BrokenPipeError traceback. Only a pipe or a socket can raise
    # SIGPIPE, and the signal module costs a few milliseconds of start-up
    # (it imports enum): a run writing to a terminal or a file goes without.
    if _may_raise_sigpipe():
        import signal

        if hasattr(signal, "SIGPIPE"):
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
    """The `fastdigest` command (console script and `python -m fastdigest`): main(),
    then the end of the process.

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
