"""digest_files(name, paths) and file_digest(fileobj, (name, ...)): equal to hashlib file by file, with open()'s errors.

digest_files reads and hashes in C on threads (src/_fastdigest/files/); every digest here is checked against hashlib over
the same bytes (hashlib.file_digest where the running Python has it), every error against what open() and a read
raise for the same path: the exception type, errno, message and filename. The C driver tests/c/test_files.c checks
the reader's chunking, its first-failure rule on threads and the special files without Python.
"""

import errno
import hashlib
import io
import json
import os
import pathlib
import random
import shutil
import signal
import stat
import subprocess
import sys
import textwrap
import threading
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fastdigest
from conftest import ALGORITHMS, cut_short_while_hashing, examples

CHUNK = 2**18  # files/files.h's FD_FILES_CHUNK_LEN
# Sizes around the blocks (64 and 128 bytes), the reader's chunk and a few MiB.
BOUNDARY_SIZES = [0, 1, 55, 56, 63, 64, 65, 111, 112, 127, 128, 129, CHUNK - 1, CHUNK, CHUNK + 1, 3 * 2**20 + 17]


def hashlib_file_digest(path, name):
    """hashlib's digest of the file at path: hashlib.file_digest where the running Python has it (3.11+)."""
    with open(path, 'rb') as file:
        if hasattr(hashlib, 'file_digest'):
            return hashlib.file_digest(file, name).digest()
        return hashlib.new(name, file.read()).digest()


def contents(size, seed):
    return random.Random(seed).randbytes(size)


def open_error(path):
    """What open() and a read raise for path, as (type, errno, strerror, filename); None if it reads."""
    try:
        with open(path, 'rb') as file:
            file.read()
    except OSError as error:
        return type(error), error.errno, error.strerror, error.filename
    return None


def digest_files_error(paths, **kwargs):
    with pytest.raises(OSError) as info:
        fastdigest.digest_files('sha256', paths, **kwargs)
    error = info.value
    return type(error), error.errno, error.strerror, error.filename


# --- digests ----------------------------------------------------------------------------------------------


@pytest.mark.threads
@settings(deadline=None, max_examples=examples(40), suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    files=st.lists(
        st.tuples(st.one_of(st.sampled_from(BOUNDARY_SIZES), st.integers(0, 4 * CHUNK)), st.integers(0, 2**32)),
        max_size=8,
    ),
    names=st.one_of(
        st.sampled_from(ALGORITHMS), st.lists(st.sampled_from(ALGORITHMS), min_size=1, max_size=4).map(tuple)
    ),
    threads=st.sampled_from([None, 1, 2, 3]),
)
def test_digest_files_equals_hashlib(tmp_path, files, names, threads):
    paths = []
    for index, (size, seed) in enumerate(files):
        path = tmp_path / f'file-{index}.bin'
        path.write_bytes(contents(size, seed))
        paths.append(path)
    got = fastdigest.digest_files(names, paths, threads=threads)
    if isinstance(names, tuple):
        expected = [tuple(hashlib_file_digest(path, name) for name in names) for path in paths]
    else:
        expected = [hashlib_file_digest(path, names) for path in paths]
    assert got == expected


# Sizes around the blocks and the lanes' stripes (files/lanes.h: a megabyte a round shared out among the lanes, no
# less than 64 KiB and no more than a chunk: 64 KiB for 16 lanes, 128 KiB for 8, 256 KiB for 4).
LANE_SIZES = [0, 1, 63, 64, 65, 127, 128, 129, 4096, *(n * 2**16 + d for n in (1, 2, 3, 4) for d in (-1, 0, 1))]


@pytest.mark.threads
@settings(deadline=None, max_examples=examples(30), suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    sizes=st.lists(st.one_of(st.sampled_from(LANE_SIZES), st.integers(0, 5 * 2**16)), min_size=1, max_size=40),
    name=st.sampled_from(ALGORITHMS),
    threads=st.sampled_from([1, 2, 3]),
    missing=st.one_of(st.none(), st.integers(0, 39)),
    seed=st.integers(0, 2**32),
)
def test_digest_files_in_lanes_equals_hashlib(tmp_path, sizes, name, threads, missing, seed):
    # Many files of one algorithm go side by side through the lanes of its multi-buffer kernel
    # (docs/files.md), each file a lane read stripe by stripe: every digest as hashlib's, and as the
    # single-stream reader's (_lanes=False). A missing file, and a second one after it, make the call raise for
    # the first in order, whichever lane or thread reaches which first.
    paths = []
    for index, size in enumerate(sizes):
        path = tmp_path / f'lane-{index}.bin'
        path.write_bytes(contents(size, seed + index))
        paths.append(path)
    if missing is not None and missing < len(paths):
        absent = [tmp_path / 'absent-1.bin', tmp_path / 'absent-2.bin']
        paths[missing] = absent[0]
        paths.insert(min(len(paths), missing + 1 + seed % 5), absent[1])
        for lanes in (True, False):
            with pytest.raises(FileNotFoundError) as info:
                fastdigest.digest_files(name, paths, threads=threads, _lanes=lanes)
            assert info.value.filename == str(absent[0])
        return
    expected = [hashlib_file_digest(path, name) for path in paths]
    assert fastdigest.digest_files(name, paths, threads=threads) == expected
    assert fastdigest.digest_files(name, paths, threads=threads, _lanes=False) == expected


def test_digest_files_result_types(tmp_path, algorithm):
    path = tmp_path / 'data'
    path.write_bytes(b'abc' * 1000)
    single = fastdigest.digest_files(algorithm, [path])
    assert type(single) is list and type(single[0]) is bytes
    several = fastdigest.digest_files((algorithm,), [path])
    assert type(several[0]) is tuple and several == [tuple(single)]
    # A constructor stands for its algorithm, as in digest_many.
    assert fastdigest.digest_files(getattr(fastdigest, algorithm), [path]) == single
    assert fastdigest.digest_files('sha256', []) == []
    assert fastdigest.digest_files(('md5', 'sha1'), []) == []


@pytest.mark.threads
def test_digest_files_same_for_any_threads(tmp_path):
    rng = random.Random(5)
    paths = []
    for index in range(60):
        path = tmp_path / f'{index}'
        path.write_bytes(rng.randbytes(rng.choice([0, 5, 4096, CHUNK + 3, 100_000])))
        paths.append(str(path))
    expected = [hashlib_file_digest(path, 'sha512') for path in paths]
    for threads in (1, 2, 3, 7, 100, None):
        assert fastdigest.digest_files('sha512', paths, threads=threads) == expected


# files/reader.c's PAIR_MIN_CHUNKS: a file this long, with a thread to spare, is hashed by two threads,
# in relay or with the algorithms split between them, as the first chunk's timings choose.
PAIR_MIN_BYTES = 32 * CHUNK


@pytest.mark.threads
@pytest.mark.parametrize('size', [PAIR_MIN_BYTES, PAIR_MIN_BYTES + 1, PAIR_MIN_BYTES + CHUNK - 1, 41 * CHUNK])
def test_digest_files_big_file_on_two_threads(tmp_path, size):
    path = tmp_path / 'big.bin'
    path.write_bytes(contents(size, size))
    names = ('md5', 'sha1', 'sha256', 'sha512')
    expected = tuple(hashlib_file_digest(path, name) for name in names)
    # One file on two threads, one beside a small file (two threads once the small one is done), and
    # on one thread (read alone).
    small = tmp_path / 'small.bin'
    small.write_bytes(b'small')
    for threads in (2, 3, 1):
        assert fastdigest.digest_files(names, [path], threads=threads) == [expected]
        assert fastdigest.digest_files('sha256', [small, path], threads=threads)[1] == expected[2]


def test_digest_files_path_types(tmp_path):
    path = tmp_path / 'data.txt'
    path.write_bytes(b'hello\n')
    expected = hashlib.sha256(b'hello\n').digest()

    class BytesPath:
        def __fspath__(self):
            return os.fsencode(path)

    with os.scandir(tmp_path) as entries:
        entry = next(entries)
    items = [str(path), os.fsencode(path), path, BytesPath(), entry]
    assert fastdigest.digest_files('sha256', items) == [expected] * len(items)
    # Any iterable: a generator, a tuple, a set's order.
    assert fastdigest.digest_files('sha256', (str(path) for _ in range(3))) == [expected] * 3
    assert fastdigest.digest_files('sha256', (path, path)) == [expected] * 2


def test_digest_files_repeated_and_relative_paths(tmp_path, monkeypatch):
    (tmp_path / 'a').write_bytes(b'first')
    monkeypatch.chdir(tmp_path)
    assert fastdigest.digest_files('md5', ['a', './a', 'a']) == [hashlib.md5(b'first').digest()] * 3


def test_digest_files_unicode_and_undecodable_names(tmp_path):
    names = ['héllo-日本語-\N{GRINNING FACE}.txt']
    if sys.platform != 'win32' and sys.getfilesystemencoding() == 'utf-8':
        # Not UTF-8: a bytes name open() takes as it is, and its surrogateescape str.
        names.append(os.fsdecode(b'raw-\xff\xfe-name.bin'))
    for index, name in enumerate(names):
        data = f'file {index}'.encode()
        path = os.path.join(os.fsencode(tmp_path), os.fsencode(name))
        with open(path, 'wb') as file:
            file.write(data)
        text_path = os.path.join(str(tmp_path), name)
        expected = hashlib.sha1(data).digest()
        assert fastdigest.digest_files('sha1', [path, text_path, pathlib.Path(text_path)]) == [expected] * 3
        os.remove(path)
        # The error names the path as given, as open()'s does.
        assert digest_files_error([text_path]) == open_error(text_path)
        assert digest_files_error([path]) == open_error(path)


@pytest.mark.skipif(not hasattr(os, 'symlink'), reason='no os.symlink on this platform')
def test_digest_files_symlinks(tmp_path):
    target = tmp_path / 'target'
    target.write_bytes(b'through the link')
    link = tmp_path / 'link'
    try:
        link.symlink_to(target)
    except OSError as error:  # Windows without the privilege to make links
        pytest.skip(f'cannot make a symbolic link here: {error}')
    assert fastdigest.digest_files('sha256', [link]) == [hashlib.sha256(b'through the link').digest()]
    dangling = tmp_path / 'dangling'
    dangling.symlink_to(tmp_path / 'nowhere')
    assert digest_files_error([dangling])[0] is FileNotFoundError
    assert digest_files_error([dangling]) == open_error(dangling)
    loop = tmp_path / 'loop'
    loop.symlink_to(loop)
    assert digest_files_error([loop]) == open_error(loop)
    assert digest_files_error([loop])[1] == errno.ELOOP


@pytest.mark.skipif(not os.path.exists('/dev/null'), reason='no /dev/null on this platform')
def test_digest_files_character_device():
    assert fastdigest.digest_files(('md5', 'sha256'), ['/dev/null']) == [
        (hashlib.md5().digest(), hashlib.sha256().digest())
    ]


@pytest.mark.threads
@pytest.mark.skipif(not hasattr(os, 'mkfifo'), reason='no os.mkfifo on this platform')
@pytest.mark.parametrize('threads', [1, 2])
def test_digest_files_fifo_is_read_to_its_end(tmp_path, threads):
    # A FIFO is read as open() reads it: the open waits for a writer, the reads for its end.
    fifo = tmp_path / 'fifo'
    os.mkfifo(fifo)
    regular = tmp_path / 'regular'
    regular.write_bytes(b'beside the FIFO')
    pieces = [b'written ', b'in ', b'pieces' * 10_000]

    def write():
        with open(fifo, 'wb', buffering=0) as writer:
            for piece in pieces:
                writer.write(piece)
                time.sleep(0.01)

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    got = fastdigest.digest_files('sha256', [regular, fifo], threads=threads)
    writer.join(10)
    assert got == [hashlib.sha256(b'beside the FIFO').digest(), hashlib.sha256(b''.join(pieces)).digest()]


# --- errors -------------------------------------------------------------------------------------------------


@pytest.mark.threads
def test_digest_files_errors_are_opens(tmp_path):
    # Each path that cannot be read raises what open() and a read raise for it.
    regular = tmp_path / 'regular'
    regular.write_bytes(b'x')
    cases = [
        tmp_path / 'missing',
        tmp_path / 'missing-folder' / 'file',
        tmp_path,  # a directory
        regular / 'below-a-file',  # ENOTDIR
        tmp_path / ('n' * 300),  # ENAMETOOLONG
        str(tmp_path / 'missing'),
        os.fsencode(tmp_path / 'missing'),
    ]
    for path in cases:
        expected = open_error(path)
        assert expected is not None, path
        assert digest_files_error([path]) == expected
        assert digest_files_error([regular, path, regular], threads=2) == expected
    # The types the issue names.
    assert digest_files_error([tmp_path / 'missing'])[0] is FileNotFoundError
    assert digest_files_error([tmp_path])[0] is (PermissionError if sys.platform == 'win32' else IsADirectoryError)


@pytest.mark.threads
def test_digest_files_first_failure_in_order(tmp_path):
    paths = []
    for index in range(200):
        path = tmp_path / f'{index}'
        path.write_bytes(b'%d' % index)
        paths.append(path)
    folder = tmp_path / 'folder'
    folder.mkdir()
    # Every path from 120 on fails, in two ways: the first in order is the one raised, whatever the threads.
    failing = paths[:120] + [tmp_path / 'missing-120'] + [folder, tmp_path / 'missing'] * 40
    for threads in (1, 2, 5, None):
        for _ in range(5):
            error = digest_files_error(failing, threads=threads)
            assert error == open_error(tmp_path / 'missing-120')


def test_digest_files_filename_is_fspath(tmp_path):
    # open() names os.fspath(path) in its error: a str for a pathlib.Path, bytes for bytes.
    missing = tmp_path / 'missing'
    assert digest_files_error([missing])[3] == str(missing)
    assert digest_files_error([os.fsencode(missing)])[3] == os.fsencode(missing)


def _unreadable_file(tmp_path):
    path = tmp_path / 'unreadable'
    path.write_bytes(b'secret')
    path.chmod(0)
    return path


def test_digest_files_permission_denied(tmp_path):
    path = _unreadable_file(tmp_path)
    if os.access(path, os.R_OK):
        pytest.skip('this process reads a file of mode 000 (root: test_digest_files_permission_denied_as_root)')
    assert digest_files_error([path]) == open_error(path)
    assert digest_files_error([path])[0] is PermissionError


@pytest.mark.skipif(not hasattr(os, 'geteuid') or os.geteuid() != 0, reason='runs only as root (see the test above)')
@pytest.mark.skipif(shutil.which('setpriv') is None, reason="needs util-linux's setpriv to drop root's capabilities")
def test_digest_files_permission_denied_as_root(tmp_path):
    # Root reads a file of mode 000 through CAP_DAC_OVERRIDE: a child without it (and without
    # CAP_DAC_READ_SEARCH) is refused as any other user would be.
    path = _unreadable_file(tmp_path)
    program = textwrap.dedent(
        f"""
        import fastdigest
        path = {str(path)!r}
        try:
            open(path, 'rb')
        except OSError as error:
            expected = (type(error), error.errno, error.strerror, error.filename)
        else:
            raise SystemExit('open() read the file')
        try:
            fastdigest.digest_files('sha256', [path])
        except OSError as error:
            got = (type(error), error.errno, error.strerror, error.filename)
        else:
            raise SystemExit('digest_files() read the file')
        assert got == expected and got[0] is PermissionError, (got, expected)
        print('same error')
        """
    )
    completed = subprocess.run(
        ['setpriv', '--bounding-set=-dac_override,-dac_read_search', sys.executable, '-c', program],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert completed.returncode == 0 and completed.stdout.strip() == 'same error', completed.stderr


def test_digest_files_argument_errors(tmp_path):
    path = tmp_path / 'data'
    path.write_bytes(b'x')

    def raises(exception, message, *args, **kwargs):
        with pytest.raises(exception) as info:
            fastdigest.digest_files(*args, **kwargs)
        assert str(info.value) == message

    raises(
        TypeError,
        'digest_files() item 1: expected str, bytes or os.PathLike object, not int',
        'sha256',
        [path, 3],
    )
    raises(TypeError, 'digest_files() item 0: expected str, bytes or os.PathLike object, not NoneType', 'md5', [None])
    raises(ValueError, 'embedded null byte', 'sha256', ['a\0b'])
    raises(TypeError, 'digest_files() argument 2 must be an iterable of paths, not a single str', 'sha256', str(path))
    raises(TypeError, 'digest_files() argument 2 must be an iterable of paths, not a single bytes', 'sha256', b'ab')
    raises(TypeError, "'int' object is not iterable", 'sha256', 5)
    raises(ValueError, 'digest_files() needs at least one algorithm, got ()', (), [path])
    for bad in (['md5'], None, 5):
        raises(
            TypeError,
            'digest_files() argument 1 must be str, a fastdigest constructor or a tuple of them, '
            f'not {"None" if bad is None else type(bad).__name__}',
            bad,
            [path],
        )
    # Names fastdigest does not implement: the same error as digest_many's.
    for name in ('sha3_256', 'nope'):
        with pytest.raises(ValueError) as many:
            fastdigest.digest_many(name, [])
        raises(ValueError, str(many.value), name, [path])
        raises(ValueError, str(many.value), ('md5', name), [path])
    # threads as digest_many takes it.
    for threads in (0, -1, True, 'x', 1.5):
        with pytest.raises((TypeError, ValueError)) as many:
            fastdigest.digest_many('md5', [], threads=threads)
        raises(type(many.value), str(many.value).replace('digest_many', 'digest_files'), 'md5', [path], threads=threads)
    # Positional-only name and paths; threads only by name.
    with pytest.raises(TypeError):
        fastdigest.digest_files(name='md5', paths=[path])
    with pytest.raises(TypeError):
        fastdigest.digest_files('md5', [path], 2)
    with pytest.raises(TypeError):
        fastdigest.digest_files('md5')
    with pytest.raises(TypeError):
        fastdigest.digest_files('md5', [path], bogus=1)


def test_digest_files_fspath_errors_pass_through(tmp_path):
    class Broken:
        def __fspath__(self):
            raise RuntimeError('no path today')

    class NotAPath:
        def __fspath__(self):
            return 5

    with pytest.raises(RuntimeError, match='no path today'):
        fastdigest.digest_files('md5', [Broken()])
    with pytest.raises(TypeError) as info:
        fastdigest.digest_files('md5', [NotAPath()])
    with pytest.raises(TypeError) as expected, open(NotAPath(), 'rb'):
        pass
    assert str(info.value) == str(expected.value)


# --- a file that changes while it is hashed --------------------------------------------------------------------


@pytest.mark.threads
@pytest.mark.parametrize('how', ['digest_files, two threads', 'digest_files, one thread', 'file_digest'])
def test_a_file_cut_short_while_hashed_gives_digests_of_one_prefix(tmp_path, how):
    # Cut at a random page while it is read, a file gives, for each algorithm of one call, the digest of the same
    # prefix of it (docs/files.md: the bytes of one read, up to its first short read). On two threads, in relay
    # or split as the first chunk's timings choose (MD5, SHA-1 and SHA-256 split on a CPU with SHA instructions).
    names = ('md5', 'sha1', 'sha256')
    data = contents(PAIR_MIN_BYTES + 5 * CHUNK, 36)
    path = tmp_path / 'shrinking.bin'
    rng = random.Random(36)

    def hash_it():
        if how == 'file_digest':
            with open(path, 'rb') as file:
                return names, [digest.digest() for digest in fastdigest.file_digest(file, names)]
        return names, fastdigest.digest_files(names, [path], threads=2 if 'two' in how else 1)[0]

    cut_short_while_hashing(path, data, hash_it, rng, tries=12 if 'two' in how else 4)


@pytest.mark.threads
@pytest.mark.parametrize('threads', [1, 2])
def test_a_file_cut_short_in_lanes_gives_the_digest_of_a_prefix(tmp_path, threads):
    # A big file cut at a random page while the lanes read it beside 31 small ones, which come and go in the
    # other lanes: its digest is of a prefix of it (the cut, or the end of a round before it: any block), the
    # others' of the whole files.
    data = contents(8 * 2**20, 37)
    small = contents(2**18, 38)
    others = []
    for index in range(31):
        path = tmp_path / f'other-{index}.bin'
        path.write_bytes(small)
        others.append(path)
    path = tmp_path / 'shrinking.bin'
    rng = random.Random(37)
    whole = hashlib.md5(small).digest()

    def hash_it():
        digests = fastdigest.digest_files('md5', [path, *others], threads=threads)
        assert digests[1:] == [whole] * len(others)
        return ('md5',), digests[:1]

    cut_short_while_hashing(path, data, hash_it, rng, tries=8, granule=64)


@pytest.mark.threads
def test_a_file_grown_in_lanes_gives_the_digest_of_its_size_at_the_open(tmp_path):
    # A file that grows while the lanes read it is hashed to the size its open found (docs/files.md): the digest of
    # what it held then, or, when it grew before the open, of all of it.
    data = contents(8 * 2**16, 38)
    more = contents(3 * 2**16 + 5, 39)
    others = [tmp_path / f'other-{index}.bin' for index in range(31)]
    for other in others:
        other.write_bytes(data)
    path = tmp_path / 'growing.bin'
    rng = random.Random(38)
    allowed = {hashlib.sha256(data).digest(), hashlib.sha256(data + more).digest()}

    def append():
        with open(path, 'ab') as file:
            file.write(more)

    for _ in range(8):
        path.write_bytes(data)
        timer = threading.Timer(rng.uniform(0, 0.01), append)
        timer.start()
        try:
            digests = fastdigest.digest_files('sha256', [*others[:15], path, *others[15:]], threads=2)
        finally:
            timer.join()
        assert digests[15] in allowed
        assert digests[:15] + digests[16:] == [hashlib.sha256(data).digest()] * len(others)


# --- Ctrl-C ---------------------------------------------------------------------------------------------------

# The child installs Python's own SIGINT handler itself: a process started in the background by a
# non-interactive shell (as a CI script may be) inherits SIGINT ignored, and Python then keeps it so.
INTERRUPTED_CALL = """
import signal, sys, fastdigest
signal.signal(signal.SIGINT, signal.default_int_handler)
names, threads, *paths = sys.argv[1:]
names = tuple(names.split(',')) if ',' in names else names
print('started', flush=True)
try:
    fastdigest.digest_files(names, paths, threads=int(threads))
except KeyboardInterrupt:
    print('KeyboardInterrupt', flush=True)
    raise SystemExit(7)
print('finished', flush=True)
"""


def run_and_interrupt(paths, names='sha256', threads=1, timeout=30):
    """(exit status, output, seconds from SIGINT to exit) of a child calling digest_files(names, paths)."""
    child = subprocess.Popen(
        [sys.executable, '-c', INTERRUPTED_CALL, names, str(threads), *map(str, paths)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout.readline() == 'started\n'
        time.sleep(0.5)  # into the call: a FIFO's open, or the reading of the files
        assert child.poll() is None, 'the call ended before the signal'
        child.send_signal(signal.SIGINT)
        sent = time.monotonic()
        out, _ = child.communicate(timeout=timeout)
        elapsed = time.monotonic() - sent
    finally:
        child.kill()
        child.wait()
    return child.returncode, out, elapsed


@pytest.mark.skipif(not hasattr(os, 'mkfifo'), reason='no os.mkfifo on this platform')
def test_ctrl_c_stops_a_call_waiting_for_a_fifo(tmp_path):
    fifo = tmp_path / 'fifo'
    os.mkfifo(fifo)  # no writer ever comes: the open waits until the signal
    assert run_and_interrupt([fifo])[:2] == (7, 'KeyboardInterrupt\n')


@pytest.mark.skipif(sys.platform == 'win32', reason='sends SIGINT, which Windows processes do not take')
def test_ctrl_c_stops_a_long_call(tmp_path):
    # Tens of gigabytes to read, which take minutes: the calling thread asks about signals as it goes.
    big = tmp_path / 'big'
    big.write_bytes(os.urandom(8 << 20))
    returncode, out, _ = run_and_interrupt([big] * 5000)
    assert (returncode, out) == (7, 'KeyboardInterrupt\n')


# Calls interrupted one after another in one child, each by SIGINT from a timer thread 0.1 s in, the paths
# in their order and reversed in turn: prints the longest time from a signal to its KeyboardInterrupt.
INTERRUPTED_CALLS = """
import os, signal, sys, threading, time, fastdigest
signal.signal(signal.SIGINT, signal.default_int_handler)
names, threads, tries, *paths = sys.argv[1:]
names = tuple(names.split(',')) if ',' in names else names
latest = 0.0
for attempt in range(int(tries)):
    paths.reverse()
    sent = []
    timer = threading.Timer(0.1, lambda: (sent.append(time.monotonic()), os.kill(os.getpid(), signal.SIGINT)))
    timer.start()
    try:
        fastdigest.digest_files(names, paths, threads=int(threads))
        raise SystemExit('the call finished')
    except KeyboardInterrupt:
        latest = max(latest, time.monotonic() - sent[0])
    timer.join()
print(f'{latest:.3f}', flush=True)
"""


@pytest.mark.skipif(sys.platform == 'win32', reason='sends SIGINT, which Windows processes do not take; no /dev/zero')
@pytest.mark.parametrize(
    ('second', 'names'),
    [('/dev/zero', 'sha256'), ('sparse', 'sha256'), (None, 'md5,sha1,sha256')],
    ids=['dev-zero', 'sparse-8-GiB', 'one-file-on-two-threads'],
)
def test_ctrl_c_stops_a_call_whose_calling_thread_has_no_file_left(tmp_path, second, names):
    # When the calling thread takes the small file, it then waits for the other thread, which reads /dev/zero
    # (never ending) or a sparse file of 8 GiB (seconds of hashing): it keeps answering signals while it waits,
    # and the other thread stops at its next chunk. Which thread takes which file is a race that either may win
    # every time on a given machine: hence both orders, five calls each. Or one big file on two threads, in
    # relay or split. Within a chunk of each thread's reading: a second is generous.
    small = tmp_path / 'small'
    small.write_bytes(b'small')
    sparse = tmp_path / 'sparse'
    with open(sparse, 'wb') as file:
        file.truncate(8 << 30)
    paths = [small, second if second == '/dev/zero' else sparse] if second else [sparse]
    completed = subprocess.run(
        [sys.executable, '-c', INTERRUPTED_CALLS, names, '2', '10', *map(str, paths)],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert completed.returncode == 0, completed.stderr
    assert float(completed.stdout) < 1, f'KeyboardInterrupt {completed.stdout.strip()} s after SIGINT'


# --- file_digest with several algorithms --------------------------------------------------------------------------


@settings(deadline=None, max_examples=examples(30))
@given(
    size=st.one_of(st.sampled_from(BOUNDARY_SIZES), st.integers(0, 3 * CHUNK)),
    names=st.lists(st.sampled_from([*ALGORITHMS, 'sha3_256', 'blake2b']), min_size=1, max_size=4).map(tuple),
    bufsize=st.sampled_from([1, 63, 4096, 2**18]),
)
def test_file_digest_several_algorithms(size, names, bufsize):
    data = contents(size, size)
    expected = [hashlib.new(name, data) for name in names]
    for fileobj in (io.BytesIO(data), io.BufferedReader(io.BytesIO(data))):
        got = fastdigest.file_digest(fileobj, names, _bufsize=bufsize)
        assert type(got) is tuple and len(got) == len(names)
        for obj, reference in zip(got, expected, strict=True):
            assert obj.name == reference.name and obj.digest() == reference.digest()


def test_file_digest_several_from_a_real_file_read_once(tmp_path):
    data = contents(CHUNK * 2 + 5, 1)
    path = tmp_path / 'data'
    path.write_bytes(data)
    reads = []

    class CountingFile(io.FileIO):
        def readinto(self, buffer):
            count = super().readinto(buffer)
            reads.append(count)
            return count

    constructors = ('md5', fastdigest.sha256, hashlib.sha3_224, lambda: fastdigest.new('sha512'))
    with CountingFile(path, 'rb') as file:
        got = fastdigest.file_digest(file, constructors)
    assert [obj.digest() for obj in got] == [
        hashlib.md5(data).digest(),
        hashlib.sha256(data).digest(),
        hashlib.sha3_224(data).digest(),
        hashlib.sha512(data).digest(),
    ]
    # One read of each block for all four, and the one that finds the end.
    assert reads == [CHUNK, CHUNK, 5, 0]
    assert type(got[0]) is type(fastdigest.md5()) and type(got[2]) is type(hashlib.sha3_224())


def test_file_digest_several_errors():
    with pytest.raises(ValueError, match=r'needs at least one algorithm, got \(\)'):
        fastdigest.file_digest(io.BytesIO(b'x'), ())
    # Each item fails as a single digest argument would.
    with pytest.raises(ValueError, match='unsupported hash'):
        fastdigest.file_digest(io.BytesIO(b'x'), ('md5', 'nope'))
    with pytest.raises(TypeError, match="'int' object is not callable"):
        fastdigest.file_digest(io.BytesIO(b'x'), ('md5', 5))
    # The digests are made before the file is looked at, as for one.
    with pytest.raises(ValueError, match='unsupported hash'):
        fastdigest.file_digest(io.StringIO('x'), ('md5', 'nope'))
    with pytest.raises(ValueError, match='not a file-like object in binary reading mode'):
        fastdigest.file_digest(io.StringIO('x'), ('md5', 'sha1'))
    # A list is no tuple: it is called, as hashlib calls any digest argument that is not a str.
    with pytest.raises(TypeError, match="'list' object is not callable"):
        fastdigest.file_digest(io.BytesIO(b'x'), ['md5'])


def test_file_digest_several_releases_the_bytesio_buffer():
    # The BytesIO's buffer is exported while it is hashed and released after: the file can grow again.
    fileobj = io.BytesIO(b'abc')
    fastdigest.file_digest(fileobj, ('md5', 'sha1'))
    fileobj.seek(0, io.SEEK_END)
    fileobj.write(b'more')
    assert fileobj.getvalue() == b'abcmore'


def test_file_digest_one_name_unchanged_by_tuples(tmp_path):
    # A single name (or callable) gives one object, as hashlib.file_digest does.
    path = tmp_path / 'data'
    path.write_bytes(b'abc')
    with open(path, 'rb') as file:
        result = fastdigest.file_digest(file, 'sha256')
    assert type(result) is type(fastdigest.sha256()) and result.digest() == hashlib.sha256(b'abc').digest()


def test_digest_files_matches_file_digest_tuples(tmp_path):
    data = contents(100_000, 9)
    path = tmp_path / 'data'
    path.write_bytes(data)
    names = ('sha1', 'sha384', 'sha512_256')
    with open(path, 'rb') as file:
        objects = fastdigest.file_digest(file, names)
    assert fastdigest.digest_files(names, [path]) == [tuple(obj.digest() for obj in objects)]
    assert stat.S_ISREG(os.stat(path).st_mode)


# --- the benchmark ------------------------------------------------------------------------------------------------

BENCH_FILES = pathlib.Path(__file__).resolve().parent.parent / 'benchmarks' / 'bench_files.py'


@pytest.mark.skipif(not BENCH_FILES.exists(), reason='benchmarks/ is not beside the tests (an installed copy)')
def test_bench_files_runs_at_tiny_sizes(tmp_path):
    # Tiny sizes, one round: it checks every case's digests against hashlib's before it times them, so
    # this keeps the script working; the integrator runs the measurement itself on an idle machine.
    completed = subprocess.run(
        [sys.executable, str(BENCH_FILES), '--files', '30', '--file-size', '100', '--big-mib', '1']
        + ['--lane-files', '3', '--lane-mib', '1', '--rounds', '1', '--dir', str(tmp_path), '--json'],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    rows = json.loads(completed.stdout)['results']
    cases = {(row['group'], row['case']) for row in rows}
    assert ('small files', 'digest_files') in cases and ('several, big file', 'one read each') in cases
    assert ('lanes, 3 x 1 MiB, md5', 'no lanes 1 thr') in cases and ('lanes, 30 x 100 B, sha256', 'lanes') in cases
    if shutil.which('sha256sum'):
        assert ('small files', 'sha256sum') in cases
    assert list(tmp_path.iterdir()) == []  # its files are removed
