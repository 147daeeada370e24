"""The command-line tool (fastdigest.cli) against GNU coreutils' md5sum, sha1sum and sha2 tools.

Most tests run the same command line through coreutils and through fastdigest and compare
stdout, stderr (with the program name replaced) and the exit status byte for byte. Those
comparisons are skipped, with the reason, only when the coreutils binary is missing; the
tests that compare with hashlib run everywhere. fastdigest runs in-process (cli.run on byte
streams) except where a real process matters: `python -m fastdigest`, standard input from a
pipe, and the quoting of names in messages, which depends on the locale of the process.
"""

import hashlib
import io
import os
import random
import re
import shutil
import subprocess
import sys
import threading
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fastdigest
from conftest import ALGORITHMS, examples, shrink_while_hashing
from fastdigest import cli
from fastdigest.cli import output, pool, progress
from fastdigest.cli.names import escape_name, quote_name
from fastdigest.cli.options import TAG_NAMES

# coreutils' tool for each algorithm; SHA-512/224 and /256 have none.
TOOLS = {
    'md5': 'md5sum',
    'sha1': 'sha1sum',
    'sha224': 'sha224sum',
    'sha256': 'sha256sum',
    'sha384': 'sha384sum',
    'sha512': 'sha512sum',
}

# Awkward names (bytes, as the file system holds them) and the size of each file's content.
# Sizes straddle the block sizes, the 2048-byte threshold above which updates release the
# GIL, and the 1 MiB read chunk.
AWKWARD_FILES = {
    b'plain.txt': 0,
    b'with space': 3,
    b' leading space': 55,
    b'trailing space ': 56,
    b'new\nline': 64,
    b'back\\slash': 111,
    b'cr\rreturn': 112,
    b'tab\tname': 128,
    b'all\\three\nin\rone': 1000,
    b'ends with backslash\\': 2047,
    b'*star': 2048,
    b"it's": 2049,
    b'caf\xc3\xa9': 5000,
    b'latin1 \xe9 not utf-8': 65537,
    b'-dash': 17,
    b'#hash': 18,
    b'colon:name': 19,
    b'big': pool.CHUNK_SIZE + 4099,
}


def content(name: bytes, size: int) -> bytes:
    """Deterministic, name-dependent file content (so no two files share a digest)."""
    seed = hashlib.sha256(name).digest()
    return (seed * (size // len(seed) + 1))[:size]


@pytest.fixture(scope='module')
def awkward_dir(tmp_path_factory):
    directory = tmp_path_factory.mktemp('awkward')
    for name, size in AWKWARD_FILES.items():
        with open(os.path.join(os.fsencode(directory), name), 'wb') as f:
            f.write(content(name, size))
    os.mkdir(directory / 'a directory')
    return directory


@pytest.fixture
def in_dir(awkward_dir, monkeypatch):
    monkeypatch.chdir(awkward_dir)
    return awkward_dir


def names() -> list:
    # '--' first: '-dash' is a name, not an option.
    return [b'--'] + list(AWKWARD_FILES)


def tool_path(algorithm: str) -> str:
    path = shutil.which(TOOLS[algorithm])
    if path is None:
        pytest.skip(f'coreutils {TOOLS[algorithm]} is not installed: nothing to compare with')
    return path


def run_coreutils(algorithm, args, stdin=b'', cwd=None, env=None):
    """(status, stdout, stderr) of coreutils' tool, with its name in messages replaced by ours."""
    tool = TOOLS[algorithm]
    # argv[0] is the bare name: coreutils puts argv[0] in front of its messages.
    completed = subprocess.run(
        [tool] + list(args), executable=tool_path(algorithm), input=stdin, capture_output=True, cwd=cwd, env=env
    )
    stderr = completed.stderr.replace(tool.encode() + b': ', b'fastdigest: ')
    stderr = stderr.replace(b"'" + tool.encode() + b" --help'", b"'fastdigest --help'")
    return completed.returncode, completed.stdout, stderr


def run_ours(args, stdin=b''):
    """(status, stdout, stderr) of fastdigest's tool, run in this process."""
    out, err = io.BytesIO(), io.BytesIO()
    status = cli.run(list(args), stdin=io.BytesIO(stdin), stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


def run_ours_process(args, stdin=b'', cwd=None, env=None):
    completed = subprocess.run(
        [sys.executable, '-m', 'fastdigest'] + list(args), input=stdin, capture_output=True, cwd=cwd, env=env
    )
    return completed.returncode, completed.stdout, completed.stderr


def algorithm_args(algorithm):
    return [b'-a', algorithm.encode()]


# --- printing checksums --------------------------------------------------------


@pytest.mark.parametrize('algorithm', sorted(TOOLS))
@pytest.mark.parametrize(
    'mode',
    [[], [b'--tag'], [b'-b'], [b'-z'], [b'--tag', b'-z']],
    ids=['plain', 'tag', 'binary', 'zero', 'tag-zero'],
)
def test_output_equals_coreutils(in_dir, algorithm, mode):
    expected = run_coreutils(algorithm, mode + names())
    assert expected[0] == 0 and expected[2] == b''
    assert run_ours(algorithm_args(algorithm) + mode + names()) == expected


def expected_line(algorithm, name, tag=False, zero=False):
    """One output line built from hashlib and coreutils' documented format, independently of cli."""
    hexdigest = hashlib.new(algorithm, content(name, AWKWARD_FILES[name])).hexdigest().encode()
    escape = not zero and any(c in name for c in b'\\\n\r')
    shown = name.replace(b'\\', b'\\\\').replace(b'\n', b'\\n').replace(b'\r', b'\\r') if escape else name
    prefix = b'\\' if escape else b''
    if tag:
        label = TAG_NAMES[algorithm]
        return prefix + label + b' (' + shown + b') = ' + hexdigest + (b'\0' if zero else b'\n')
    return prefix + hexdigest + b'  ' + shown + (b'\0' if zero else b'\n')


@pytest.mark.parametrize('algorithm', sorted(ALGORITHMS))
@pytest.mark.parametrize('tag', [False, True])
def test_output_equals_hashlib_in_documented_format(in_dir, algorithm, tag):
    # Runs without coreutils, and covers SHA-512/224 and /256, which coreutils lacks.
    args = algorithm_args(algorithm) + ([b'--tag'] if tag else []) + names()
    expected = b''.join(expected_line(algorithm, name, tag) for name in AWKWARD_FILES)
    assert run_ours(args) == (0, expected, b'')


def test_escaping_rules_spelled_out(in_dir):
    # The rules themselves, written out: a leading backslash when the name holds a
    # backslash, LF or CR, and \\ \n \r inside; nothing else is escaped; -z disables it.
    status, out, _ = run_ours([b'--', b'all\\three\nin\rone', b'tab\tname'])
    lines = out.split(b'\n')
    assert lines[0].startswith(b'\\') and lines[0].endswith(b'  all\\\\three\\nin\\rone')
    assert lines[1].endswith(b'  tab\tname') and not lines[1].startswith(b'\\')
    status, out, _ = run_ours([b'-z', b'--', b'all\\three\nin\rone'])
    assert out.endswith(b'  all\\three\nin\rone\0') and not out.startswith(b'\\')


@pytest.mark.parametrize('chunk_size', [1, 63, 64, 4096, 65536])
def test_chunk_sizes_do_not_change_digests(in_dir, monkeypatch, chunk_size):
    monkeypatch.setattr(pool, 'CHUNK_SIZE', chunk_size)
    files = [b"it's", b'*star', b'latin1 \xe9 not utf-8'] + ([b'big'] if chunk_size >= 4096 else [])
    expected = b''.join(expected_line('sha512', name) for name in files)
    assert run_ours([b'-a', b'sha512', b'--'] + files) == (0, expected, b'')


def count_big_file_calls(monkeypatch):
    """The threads= of each digest_files call the CLI makes for one file: a big file's, for a run of
    one file (a batch of one is not hashed together)."""
    calls = []
    original = fastdigest.digest_files

    def counted(name, paths, /, *, threads=None):
        if len(paths) == 1:
            calls.append(threads)
        return original(name, paths, threads=threads)

    monkeypatch.setattr(fastdigest, 'digest_files', counted)
    return calls


@pytest.mark.threads
@pytest.mark.parametrize('cpus', [1, 2, 4])
def test_big_file_on_two_threads_only_alone(in_dir, monkeypatch, cpus):
    # A big file gets two threads only as the run's one file, with two CPUs or more: beside other files
    # the pool's threads, one per CPU, are busy already. The digests are the same either way.
    monkeypatch.setattr(output, 'worker_count', lambda: cpus)
    monkeypatch.setattr(pool, 'CHUNK_SIZE', 1024)
    calls = count_big_file_calls(monkeypatch)
    files = [b'big', b"it's", b'big']
    expected = b''.join(expected_line('sha256', name) for name in files)
    assert run_ours([b'--'] + files) == (0, expected, b'')
    assert calls and set(calls) == {1}
    calls.clear()
    assert run_ours([b'big']) == (0, expected_line('sha256', b'big'), b'')
    assert calls == [2 if cpus >= 2 else 1]


@pytest.mark.threads
def test_many_files_in_parallel_keep_argument_order(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    files = []
    for index in range(60):
        name = b'f%02d' % index
        data = os.urandom((index * 7919) % 300000)
        (tmp_path / name.decode()).write_bytes(data)
        files.append((name, hashlib.md5(data).hexdigest().encode()))
    order = files[::-1] + files[:5]  # reversed, and repeats
    status, out, err = run_ours([b'-a', b'md5'] + [name for name, _ in order])
    assert (status, err) == (0, b'')
    assert out == b''.join(digest + b'  ' + name + b'\n' for name, digest in order)


# --- standard input --------------------------------------------------------------


STDIN_DATA = b'standard input data\n' * 300


@pytest.mark.parametrize(
    'args', [[], [b'-'], [b'-', b'plain.txt', b'-'], [b'--tag', b'-']], ids=['none', 'dash', 'twice', 'tag']
)
def test_stdin_equals_coreutils(in_dir, args):
    expected = run_coreutils('sha256', args, stdin=STDIN_DATA)
    assert run_ours(args, stdin=STDIN_DATA) == expected


def test_stdin_equals_hashlib(in_dir):
    digest = hashlib.sha1(STDIN_DATA).hexdigest().encode()
    empty = hashlib.sha1(b'').hexdigest().encode()
    # The second '-' finds standard input at its end, as with coreutils.
    assert run_ours([b'-a', b'sha1', b'-', b'-'], stdin=STDIN_DATA) == (
        0,
        digest + b'  -\n' + empty + b'  -\n',
        b'',
    )


def test_python_dash_m_reads_a_pipe_and_files(in_dir):
    status, out, err = run_ours_process(['-a', 'sha384', '-', 'with space'], stdin=STDIN_DATA, cwd=in_dir)
    assert (status, err) == (0, b'')
    assert out == (hashlib.sha384(STDIN_DATA).hexdigest().encode() + b'  -\n' + expected_line('sha384', b'with space'))


def command_script():
    """The script pip installs as `fastdigest` on POSIX: the checkout's, or (where the tests run
    from a copy outside the checkout, as .ci/package.sh runs them) the one installed beside the
    interpreter."""
    checkout_script = os.path.join(os.path.dirname(__file__), '..', 'scripts', 'fastdigest')
    if os.path.exists(checkout_script):
        return checkout_script
    return shutil.which('fastdigest', path=os.path.dirname(sys.executable))


@pytest.mark.skipif(sys.platform == 'win32', reason='Windows installs an entry point, not the script (setup.py)')
def test_command_script_hashes_without_importing_re_or_typing(in_dir):
    # The script exists so that the command does not import `re`, which pip's entry-point wrapper
    # does before it calls the package; typing and enum are the other heavy imports it avoids.
    script = command_script()
    assert script is not None, 'no fastdigest script in the checkout nor beside the interpreter'
    # -S: what site imports for the environment's .pth files (an editable install's finder
    # imports re) is not the command's; PYTHONPATH finds the package the tests import.
    package_parent = os.path.dirname(os.path.dirname(os.path.abspath(fastdigest.__file__)))
    env = dict(os.environ, PYTHONPATH=package_parent)
    completed = subprocess.run(
        [sys.executable, '-S', '-X', 'importtime', script, 'plain.txt'], capture_output=True, cwd=in_dir, env=env
    )
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout == expected_line('sha256', b'plain.txt')
    imported = {
        line.rsplit('|', 1)[1].strip()
        for line in completed.stderr.decode().splitlines()
        if line.startswith('import time:')
    }
    assert 'fastdigest.cli' in imported and 'fastdigest._fastdigest' in imported
    assert not imported & {'re', 'typing', 'enum'}


# --- what can be read once only: pipes, FIFOs, /dev/stdin ------------------------------------------------------
#
# Small files are hashed in batches, and a batch in which a file cannot be read is read again file by file: a pipe
# read twice gives the empty message's digest the second time, a FIFO waits for another writer. Each command runs
# as a process, coreutils' and ours, from bash (process substitution, a FIFO's writer), with a time limit: a hang
# is a failure.


def run_in_bash(script, cwd, stdin=b''):
    """(coreutils', ours) (status, stdout, stderr) of bash running *script* with "$@" the command: sha256sum, then
    `python -m fastdigest`; coreutils' name in its messages is replaced by ours."""
    tool_path('sha256')
    results = []
    for command in (['sha256sum'], [sys.executable, '-m', 'fastdigest']):
        completed = subprocess.run(
            ['bash', '-c', script, 'bash', *command], input=stdin, capture_output=True, cwd=cwd, timeout=30
        )
        stderr = completed.stderr.replace(b'sha256sum: ', b'fastdigest: ')
        results.append((completed.returncode, completed.stdout, stderr))
    return results


@pytest.mark.skipif(shutil.which('bash') is None, reason='needs bash for process substitution')
def test_process_substitution_beside_a_missing_file_equals_coreutils(tmp_path):
    expected, ours = run_in_bash('exec "$@" <(printf "hi\\n") missing.txt', tmp_path)
    assert expected[0] == 1 and hashlib.sha256(b'hi\n').hexdigest().encode() in expected[1]
    assert ours == expected


@pytest.mark.skipif(shutil.which('bash') is None or not hasattr(os, 'mkfifo'), reason='needs bash and os.mkfifo')
def test_fifo_beside_a_missing_file_equals_coreutils(tmp_path):
    os.mkfifo(tmp_path / 'fifo')
    # One writer per command: a second open of the FIFO would wait for a writer that never comes.
    expected, ours = run_in_bash('printf "data\\n" > fifo & exec "$@" fifo missing.txt', tmp_path)
    assert expected == (1, hashlib.sha256(b'data\n').hexdigest().encode() + b'  fifo\n', expected[2])
    assert ours == expected


def test_stdin_under_two_names_read_in_order_as_coreutils(tmp_path):
    # - and /dev/stdin are one pipe: the first reads it to its end, the second finds nothing, in argument order,
    # never both at once (which would give each a share of the bytes).
    data = os.urandom(8 << 20)
    for args in (['-', '/dev/stdin'], ['/dev/stdin', '-', '/dev/stdin']):
        expected = run_coreutils('sha256', args, stdin=data, cwd=tmp_path)
        assert expected[1].startswith(hashlib.sha256(data).hexdigest().encode())
        assert run_ours_process(args, stdin=data, cwd=tmp_path) == expected


def test_check_stdin_with_ignore_missing_equals_coreutils(tmp_path):
    digest = hashlib.sha256(b'hi\n').hexdigest().encode()
    (tmp_path / 'CS').write_bytes(digest + b'  /dev/stdin\n' + digest + b'  missing.txt\n')
    args = ['-c', '--ignore-missing', 'CS']
    expected = run_coreutils('sha256', args, stdin=b'hi\n', cwd=tmp_path)
    assert expected == (0, b'/dev/stdin: OK\n', b'')
    assert run_ours_process(args, stdin=b'hi\n', cwd=tmp_path) == expected


def test_check_reads_stdin_again_for_each_line_as_coreutils(tmp_path):
    # Two lines for one name, one algorithm: each line is a read of its own, and the second finds the pipe at its
    # end. With several algorithms, a line of each for one name is one read (test_check_reads_back_several_...).
    digest = hashlib.sha256(b'hi\n').hexdigest().encode()
    (tmp_path / 'CS').write_bytes(digest + b'  /dev/stdin\n' + digest + b'  /dev/stdin\n')
    expected = run_coreutils('sha256', ['-c', 'CS'], stdin=b'hi\n', cwd=tmp_path)
    assert expected[:2] == (1, b'/dev/stdin: OK\n/dev/stdin: FAILED\n')
    assert run_ours_process(['-c', 'CS'], stdin=b'hi\n', cwd=tmp_path) == expected


# --- errors -----------------------------------------------------------------------


def test_missing_and_directory_arguments_equal_coreutils(in_dir):
    args = [b'plain.txt', b'no such file', b'a directory', b"it's", b'missing']
    expected = run_coreutils('sha256', args)
    assert expected[0] == 1
    assert run_ours(args) == expected


def test_missing_and_directory_messages(in_dir):
    status, out, err = run_ours([b'plain.txt', b'nosuch', b'a directory', b'with space'])
    assert status == 1
    assert err == b"fastdigest: nosuch: No such file or directory\nfastdigest: 'a directory': Is a directory\n"
    # The other files are still hashed, in order.
    assert out == expected_line('sha256', b'plain.txt') + expected_line('sha256', b'with space')


def test_read_error_equals_coreutils(in_dir):
    # /proc/self/mem opens, then fails to read at offset 0 (EIO): an error after open.
    if not os.path.exists('/proc/self/mem'):
        pytest.skip('no /proc/self/mem on this system')
    args = [b'plain.txt', b'/proc/self/mem', b'with space']
    expected = run_coreutils('md5', args)
    assert expected[2] == b'fastdigest: /proc/self/mem: Input/output error\n'
    assert run_ours([b'-a', b'md5'] + args) == expected


@pytest.fixture
def unreadable_file(tmp_path):
    """A path whose open for reading fails with EACCES, for root as for anyone."""
    if os.geteuid() != 0:
        path = tmp_path / 'unreadable'
        path.write_bytes(b'secret')
        path.chmod(0)
        return os.fsencode(path)
    # root reads any mode-000 file; sysfs write-only attributes refuse even root.
    for candidate in ('/sys/bus/pci/rescan', '/sys/bus/pci/drivers_probe', '/sys/power/wakeup_count'):
        try:
            with open(candidate, 'rb'):
                pass
        except PermissionError:
            return candidate.encode()
        except OSError:
            continue
    pytest.skip('running as root and no file here refuses root: cannot produce EACCES')


def test_permission_denied_equals_coreutils(in_dir, unreadable_file):
    args = [b'plain.txt', unreadable_file, b'with space']
    status, out, err = run_ours(args)
    assert status == 1
    assert err == b'fastdigest: ' + unreadable_file + b': Permission denied\n'
    assert out == expected_line('sha256', b'plain.txt') + expected_line('sha256', b'with space')
    assert (status, out, err) == run_coreutils('sha256', args)


QUOTED_NAMES = [
    b'simple',
    b'with space',
    b"it's",
    b"it's here",
    b"a'b$",
    b"it's\n",
    b'x$y',
    b'new\nline',
    b'a\nb\nc',
    b'\n',
    b'\ttab',
    b'back\\slash',
    b'colon:name',
    b'~home',
    b'a~',
    b'#hash',
    b'a#',
    b'{',
    b'a{b',
    b'a=b',
    b'a!b',
    b'a?b',
    b'a@b,c%d+e]f',
    b'caf\xc3\xa9',
    b'caf\xc3\xa9 bar',
    b'\xff',
    b"\xff's",
    b'bell\x07',
    b'del\x7f',
    b'\xe2\x82',
]


def test_quoting_of_names_in_messages_equals_coreutils(tmp_path):
    # Both run as processes with one locale, since quoting depends on it.
    env = dict(os.environ, LC_ALL='C.UTF-8')
    args = [b'--'] + QUOTED_NAMES
    expected = run_coreutils('sha256', args, cwd=tmp_path, env=env)
    assert expected[0] == 1 and expected[2].count(b'No such file or directory') == len(QUOTED_NAMES)
    assert run_ours_process(args, cwd=tmp_path, env=env) == expected


def test_quoting_of_names_spelled_out():
    # The rules written out, so that they are tested without coreutils too.
    assert quote_name(b'plain-name_1.txt') == b'plain-name_1.txt'
    assert quote_name(b'with space') == b"'with space'"
    assert quote_name(b'a:b') == b"'a:b'"
    assert quote_name(b"it's") == b'"it\'s"'
    assert quote_name(b"a'b$") == b"'a'\\''b$'"
    assert quote_name(b'a\nb') == b"'a'$'\\n''b'"
    assert quote_name(b'') == b"''"


@pytest.mark.parametrize(
    'args',
    [
        [b'--foo'],
        [b'-x'],
        [b'--st'],
        [b'--tag=x'],
        [b'--tag', b'-t', b'plain.txt'],
        [b'-c', b'--tag'],
        [b'-c', b'-t'],
        [b'-c', b'-z'],
        [b'--quiet', b'plain.txt'],
        [b'--status', b'plain.txt'],
        [b'--strict', b'plain.txt'],
        [b'-w', b'plain.txt'],
        [b'--ignore-missing', b'plain.txt'],
        [b'-t', b'--quiet', b'--status'],
    ],
    ids=lambda args: ' '.join(a.decode() for a in args),
)
def test_usage_errors_equal_coreutils(in_dir, args):
    expected = run_coreutils('sha256', args)
    assert expected[0] == 1
    assert run_ours(args) == expected


def test_the_algorithms_are_the_extensions():
    # The command takes its algorithms from the extension's table, not a list of its own: --help, the
    # names a bad -a lists, and the tags all name exactly the table's algorithms, in its order.
    names = list(fastdigest._fastdigest._algorithms)
    _, out, _ = run_ours([b'--help'])
    paragraph = out.split(b'-a, --algorithm=ALGO')[1].split(b';')[0]
    assert [item.split()[0].decode() for item in paragraph.split(b',')] == names
    _, _, err = run_ours([b'-a', b'crc32', b'x'])
    assert [name.decode() for name in re.findall(rb"\n  - '([a-z0-9_]+)'", err)] == names
    assert list(TAG_NAMES) == names
    # coreutils' tags, where it has a tool, and Perl's shasum's for SHA-512/224 and /256.
    assert {name: TAG_NAMES[name] for name in ('md5', 'sha1', 'sha512', 'sha512_224')} == {
        'md5': b'MD5',
        'sha1': b'SHA1',
        'sha512': b'SHA512',
        'sha512_224': b'SHA512/224',
    }


def test_bad_algorithm_is_a_usage_error():
    status, out, err = run_ours([b'-a', b'crc32', b'x'])
    assert (status, out) == (1, b'')
    assert err.startswith(b"fastdigest: invalid argument 'crc32' for '--algorithm'\n")
    assert err.endswith(b"Try 'fastdigest --help' for more information.\n")
    status, out, err = run_ours([b'-a'])
    assert (status, err) == (
        1,
        b"fastdigest: option requires an argument -- 'a'\nTry 'fastdigest --help' for more information.\n",
    )


def test_option_spellings(in_dir):
    expected = expected_line('sha1', b'plain.txt')
    for args in ([b'-a', b'sha1'], [b'-asha1'], [b'--algorithm=SHA1'], [b'--alg', b'sha-1'], [b'-a', b'SHA1']):
        assert run_ours(args + [b'plain.txt']) == (0, expected, b''), args
    # Options after operands, as GNU getopt permutes them.
    assert run_ours([b'plain.txt', b'-a', b'sha1']) == (0, expected, b'')


# --- checking ------------------------------------------------------------------------


def hexdigest_of(algorithm, name):
    return hashlib.new(algorithm, content(name, AWKWARD_FILES[name])).hexdigest().encode()


def good_sum(algorithm, tag=False):
    return b''.join(expected_line(algorithm, name, tag) for name in AWKWARD_FILES)


def bad_sum(algorithm):
    lines = []
    for index, name in enumerate(AWKWARD_FILES):
        line = expected_line(algorithm, name)
        if index % 3 == 1:  # corrupt one digit of every third line
            position = line.index(b' ') - 5
            replacement = b'0' if line[position : position + 1] != b'0' else b'1'
            line = line[:position] + replacement + line[position + 1 :]
        lines.append(line)
    digest = hexdigest_of(algorithm, b'plain.txt')
    lines += [
        b'# a comment line\n',
        b'\n',
        b'not a checksum line\n',
        digest + b'  missing file\n',
        digest + b'  a directory\n',
        digest.upper() + b'  plain.txt\r\n',  # CRLF and upper-case hex
        digest[:-1] + b'  plain.txt\n',  # one digit short
        b'\\' + digest + b'  bad\\escape\n',
        TAG_NAMES[algorithm] + b' (plain.txt) = ' + digest + b'\n',
        TAG_NAMES[algorithm] + b'(plain.txt)=' + digest + b'\n',
        TAG_NAMES[algorithm] + b' (plain.txt) = ' + digest + b'0\n',
        b'OTHER (plain.txt) = ' + digest + b'\n',
        b'  \t' + digest + b' *with space\n',
        digest + b'\tplain.txt\n',
        digest + b'  ',
    ]
    return b''.join(lines)


# -w, --quiet and --status override each other: the last one given wins.
CHECK_FLAGS = [
    [],
    [b'--quiet'],
    [b'--status'],
    [b'-w'],
    [b'--strict'],
    [b'--ignore-missing'],
    [b'-w', b'--strict', b'--quiet'],
    [b'--quiet', b'-w'],
    [b'--status', b'--quiet'],
]
FLAG_IDS = [
    'none',
    'quiet',
    'status',
    'warn',
    'strict',
    'ignore-missing',
    'warn-strict-quiet',
    'quiet-warn',
    'status-quiet',
]


@pytest.mark.parametrize('algorithm', sorted(TOOLS))
@pytest.mark.parametrize('tag', [False, True], ids=['plain', 'tag'])
def test_check_good_list_equals_coreutils(in_dir, algorithm, tag):
    (in_dir / 'good.sum').write_bytes(good_sum(algorithm, tag))
    expected = run_coreutils(algorithm, [b'-c', b'good.sum'])
    assert expected[0] == 0
    assert run_ours(algorithm_args(algorithm) + [b'-c', b'good.sum']) == expected


def test_check_good_list_report(in_dir):
    # Without coreutils: every file OK, names with a newline escaped, others as they are.
    (in_dir / 'good.sum').write_bytes(good_sum('sha256'))
    status, out, err = run_ours([b'-c', b'good.sum'])
    assert (status, err) == (0, b'')
    expected = b''
    for name in AWKWARD_FILES:
        shown = b'\\' + escape_name(name) if b'\n' in name else name
        expected += shown + b': OK\n'
    assert out == expected


@pytest.mark.parametrize('algorithm', ['md5', 'sha256', 'sha512'])
@pytest.mark.parametrize('flags', CHECK_FLAGS, ids=FLAG_IDS)
def test_check_bad_list_equals_coreutils(in_dir, algorithm, flags):
    (in_dir / 'bad.sum').write_bytes(bad_sum(algorithm))
    expected = run_coreutils(algorithm, flags + [b'-c', b'bad.sum'])
    assert expected[0] == 1
    assert run_ours(algorithm_args(algorithm) + flags + [b'-c', b'bad.sum']) == expected


def test_check_bad_list_report(in_dir):
    (in_dir / 'bad.sum').write_bytes(bad_sum('sha256'))
    status, out, err = run_ours([b'-c', b'bad.sum'])
    assert status == 1
    assert b'with space: FAILED\n' in out  # the second line is corrupted
    assert b'plain.txt: OK\n' in out
    assert b'missing file: FAILED open or read\n' in out
    assert err.endswith(
        b'fastdigest: WARNING: 7 lines are improperly formatted\n'
        b'fastdigest: WARNING: 2 listed files could not be read\n'
        b'fastdigest: WARNING: 7 computed checksums did NOT match\n'
    )
    assert b"fastdigest: 'missing file': No such file or directory\n" in err


# Lines that exercise each branch of the checksum-line parser, tried one file at a time.
def parser_lines():
    digest = hexdigest_of('sha256', b'with space')
    other = hexdigest_of('sha256', b'plain.txt')
    return {
        'reversed': digest + b' with space\n',
        'reversed-then-normal': digest + b' with space\n' + other + b'  plain.txt\n',
        'normal-then-reversed': other + b'  plain.txt\n' + digest + b' with space\n',
        'one-char-name': other + b'  ',
        'too-short': other + b' ',
        'star': other + b' *plain.txt\n',
        'tab-separator': other + b'\t plain.txt\n',
        'escaped-tag': b'\\SHA256 (back\\\\slash) = ' + hexdigest_of('sha256', b'back\\slash') + b'\n',
        'escaped-trailing-backslash': b'\\' + other + b'  plain.txt\\\n',
        'tag-no-space': b'SHA256(with space)= ' + digest + b'\n',
        'tag-paren-in-name': b'SHA256 (with space) x) = ' + digest + b'\n',
        'tag-no-equals': b'SHA256 (with space) ' + digest + b'\n',
        'tag-lower': b'sha256 (with space) = ' + digest + b'\n',
        'nul-in-name': other + b'  plain.txt\0junk\n',
        'stdin-dash': other + b'  -\n',
        'only-comment': b'# nothing\n',
        'empty': b'',
        'crlf-blank': b'\r\n',
        'hex-upper-tag': b'SHA256 (with space) = ' + digest.upper() + b'\n',
        'non-hex': b'g' * 64 + b'  plain.txt\n',
    }


@pytest.mark.parametrize('case', sorted(parser_lines()))
def test_check_parser_equals_coreutils(in_dir, case):
    (in_dir / 'case.sum').write_bytes(parser_lines()[case])
    args = [b'-w', b'-c', b'case.sum']
    expected = run_coreutils('sha256', args, stdin=b'stdin')
    assert run_ours(args, stdin=b'stdin') == expected


def test_check_list_from_stdin_equals_coreutils(in_dir):
    listing = good_sum('sha1') + hexdigest_of('sha1', b'plain.txt') + b'  -\n'
    for args in ([b'-c'], [b'-c', b'-'], [b'--check', b'--quiet']):
        expected = run_coreutils('sha1', args, stdin=listing)
        assert run_ours([b'-a', b'sha1'] + args, stdin=listing) == expected


def test_check_missing_and_directory_list_files_equal_coreutils(in_dir):
    (in_dir / 'good.sum').write_bytes(good_sum('sha256'))
    args = [b'-c', b'no such list', b'good.sum', b'a directory']
    expected = run_coreutils('sha256', args)
    assert expected[0] == 1
    assert run_ours(args) == expected


@pytest.mark.parametrize('status_flag', [[], [b'--status']], ids=['report', 'status'])
def test_check_ignore_missing_equals_coreutils(in_dir, status_flag):
    digest = hexdigest_of('sha256', b'plain.txt')
    (in_dir / 'all-missing.sum').write_bytes(digest + b'  gone\n' + digest + b'  gone too\n')
    (in_dir / 'some-missing.sum').write_bytes(digest + b'  gone\n' + digest + b'  plain.txt\n')
    for listing, status in ((b'all-missing.sum', 1), (b'some-missing.sum', 0)):
        args = status_flag + [b'--ignore-missing', b'-c', listing]
        expected = run_coreutils('sha256', args)
        assert expected[0] == status
        assert run_ours(args) == expected


def test_check_ignore_missing_report(in_dir):
    digest = hexdigest_of('sha256', b'plain.txt')
    (in_dir / 'all-missing.sum').write_bytes(digest + b'  gone\n')
    assert run_ours([b'--ignore-missing', b'-c', b'all-missing.sum']) == (
        1,
        b'',
        b'fastdigest: all-missing.sum: no file was verified\n',
    )
    (in_dir / 'some-missing.sum').write_bytes(digest + b'  gone\n' + digest + b'  plain.txt\n')
    assert run_ours([b'--ignore-missing', b'-c', b'some-missing.sum']) == (0, b'plain.txt: OK\n', b'')


def test_check_malformed_only(in_dir):
    (in_dir / 'mal.sum').write_bytes(b'garbage\n')
    assert run_ours([b'-c', b'mal.sum']) == (
        1,
        b'',
        b'fastdigest: mal.sum: no properly formatted checksum lines found\n',
    )


def test_check_round_trip_with_our_own_output(in_dir):
    # What fastdigest writes, it (and coreutils) can check, in every format.
    for algorithm in ('md5', 'sha512_256'):
        for mode in ([], [b'--tag'], [b'-b']):
            status, listing, _ = run_ours(algorithm_args(algorithm) + mode + names())
            assert status == 0
            status, out, err = run_ours(algorithm_args(algorithm) + [b'-c', b'--quiet'], stdin=listing)
            assert (status, out, err) == (0, b'', b'')
    status, listing, _ = run_ours([b'--tag'] + names())
    if shutil.which('sha256sum'):
        assert run_coreutils('sha256', [b'-c', b'--quiet'], stdin=listing) == (0, b'', b'')


# --- progress bar ---------------------------------------------------------------------


class TerminalBytesIO(io.BytesIO):
    def isatty(self):
        return True


class SlowStdin(io.BytesIO):
    """Standard input that trickles in: each read waits, so the run lasts a while."""

    def readinto(self, buffer):
        time.sleep(0.03)
        view = memoryview(buffer)[:1000]
        return super().readinto(view)


def run_with_stderr(stderr, monkeypatch, args=(b'-',)):
    monkeypatch.setattr(progress, 'PROGRESS_DELAY_SECONDS', 0.05)
    monkeypatch.setattr(progress, 'PROGRESS_INTERVAL_SECONDS', 0.02)
    data = b'x' * 20000
    out = io.BytesIO()
    status = cli.run(list(args), stdin=SlowStdin(data), stdout=out, stderr=stderr)
    return status, out.getvalue(), data


def test_progress_bar_drawn_on_a_terminal_and_erased(monkeypatch):
    stderr = TerminalBytesIO()
    status, out, data = run_with_stderr(stderr, monkeypatch)
    assert status == 0
    assert out == hashlib.sha256(data).hexdigest().encode() + b'  -\n'
    drawn = stderr.getvalue()
    assert b'\r' in drawn and b'KiB' in drawn and b'files' in drawn
    assert drawn.endswith(b'\r\x1b[K')  # erased at the end


def test_no_progress_bar_when_stderr_is_not_a_terminal(monkeypatch):
    stderr = io.BytesIO()
    status, out, data = run_with_stderr(stderr, monkeypatch)
    assert (status, out, stderr.getvalue()) == (0, hashlib.sha256(data).hexdigest().encode() + b'  -\n', b'')


def test_no_progress_bar_with_status(in_dir, monkeypatch):
    listing = hashlib.sha256(b'x' * 20000).hexdigest().encode() + b'  -\n'
    (in_dir / 'stdin.sum').write_bytes(listing)
    stderr = TerminalBytesIO()
    status, out, _ = run_with_stderr(stderr, monkeypatch, [b'--status', b'-c', b'stdin.sum'])
    assert (status, out, stderr.getvalue()) == (0, b'', b'')


def test_help_and_version():
    status, out, err = run_ours([b'--help'])
    assert status == 0 and out.startswith(b'Usage: fastdigest') and err == b''
    status, out, err = run_ours([b'--version'])
    assert status == 0 and out.startswith(b'fastdigest ') and err == b''


@pytest.mark.threads
def test_big_files_are_hashed_in_parallel(in_dir, monkeypatch):
    # Two files of more than a batch each must be in two threads at once: each
    # hash waits at a barrier for the other, which fails if one thread took both.
    monkeypatch.setattr(output, 'worker_count', lambda: 2)
    monkeypatch.setattr(output, 'BATCH_BYTES', 1024)
    barrier = threading.Barrier(2, timeout=10)
    original = pool.Hasher._hash_file

    def hash_file_at_barrier(self, job, ignore_missing):
        barrier.wait()
        return original(self, job, ignore_missing)

    monkeypatch.setattr(pool.Hasher, '_hash_file', hash_file_at_barrier)
    files = [b"it's", b'caf\xc3\xa9']
    expected = b''.join(expected_line('sha256', name) for name in files)
    assert run_ours(files) == (0, expected, b'')


# --- the process: start-up, exit, SIGPIPE ---------------------------------------------


def package_environment():
    """The environment for a child Python that imports the fastdigest package under test
    (whichever way this process found it), not just any installed one."""
    environment = dict(os.environ)
    package_parent = os.path.dirname(os.path.dirname(os.path.abspath(fastdigest.__file__)))
    environment['PYTHONPATH'] = package_parent + os.pathsep + environment.get('PYTHONPATH', '')
    return environment


def imported_modules(args, stdout, directory):
    """The modules a child `python -X importtime ARGS` imports, its stdout going to *stdout*
    and its stderr to a file (neither is a pipe: a pipe would rightly bring in signal)."""
    with open(directory / 'importtime', 'w+b') as stderr:
        subprocess.run(
            [sys.executable, '-X', 'importtime'] + args,
            stdout=stdout,
            stderr=stderr,
            env=package_environment(),
            check=True,
        )
        stderr.seek(0)
        lines = stderr.read().decode().splitlines()
    return {line.rsplit('|', 1)[1].strip() for line in lines if line.startswith('import time:') and '|' in line}


# Modules that an ordinary run (files named, output to a file) does without; each costs
# start-up time on every run. The paths that need one import it where it is used.
NOT_FOR_EVERY_RUN = {
    'signal',  # only when stdout or stderr is a pipe or a socket
    'enum',  # brought by signal
    'queue',  # only for the reading thread of a big file
    'locale',  # quoting a non-ASCII name in a message
    'unicodedata',
    'importlib.metadata',  # --version
    'fastdigest._self_test',  # --self-test
    'fastdigest.cli.check',  # only with --check
    'fastdigest.cli.names',  # escaping or quoting a name (the run below needs neither)
    'typing',
    'concurrent.futures',
    'logging',
}


def test_an_ordinary_run_imports_only_what_it_needs(in_dir, tmp_path):
    with open(tmp_path / 'out', 'wb') as out:
        interpreter_alone = imported_modules(['-c', 'pass'], out, tmp_path)
        ours = imported_modules(['-m', 'fastdigest', 'plain.txt', "it's"], out, tmp_path)
    assert 'fastdigest.cli' in ours
    assert (ours - interpreter_alone) & NOT_FOR_EVERY_RUN == set()
    assert (tmp_path / 'out').read_bytes() == expected_line('sha256', b'plain.txt') + expected_line('sha256', b"it's")


def test_a_closed_pipe_ends_the_process_quietly_by_sigpipe(in_dir):
    signal = pytest.importorskip('signal')
    if not hasattr(signal, 'SIGPIPE'):
        pytest.skip('no SIGPIPE on this platform')
    process = subprocess.Popen(
        [sys.executable, '-m', 'fastdigest', '--'] + list(AWKWARD_FILES),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=package_environment(),
    )
    # Close the reading end before the child can write: its first write meets no reader.
    process.stdout.close()
    error = process.stderr.read()
    process.stderr.close()
    assert process.wait() == -signal.SIGPIPE
    assert error == b''


@pytest.mark.parametrize('entry', ['module', 'console_script'])
def test_the_command_exits_with_its_status_and_all_of_its_output(in_dir, tmp_path, entry):
    # console_script() ends the process without the interpreter's teardown: every line must
    # still reach the file (more than one buffer's worth) and the status must be the run's.
    if entry == 'module':
        command = [sys.executable, '-m', 'fastdigest']
    else:
        command = [sys.executable, '-c', 'import sys; from fastdigest.cli import console_script; console_script()']
    # The missing file first: its message flushes stdout, the lines after it must still come out.
    # Enough copies of the files for several buffers' worth of output (io.DEFAULT_BUFFER_SIZE is
    # 8 KiB before Python 3.14 and 128 KiB from it).
    one_copy = b''.join(expected_line('sha256', name) for name in AWKWARD_FILES)
    copies = 4 * io.DEFAULT_BUFFER_SIZE // len(one_copy) + 1
    names = [b'--', b'no such file'] + list(AWKWARD_FILES) * copies
    environment = package_environment()
    environment.pop('PYTHONUNBUFFERED', None)  # buffered, as users run it
    with open(tmp_path / 'out', 'wb') as out:
        completed = subprocess.run(command + names, stdout=out, stderr=subprocess.PIPE, env=environment)
    expected = one_copy * copies
    assert len(expected) > 4 * io.DEFAULT_BUFFER_SIZE
    assert (tmp_path / 'out').read_bytes() == expected
    assert completed.returncode == 1
    assert completed.stderr == b"fastdigest: 'no such file': No such file or directory\n"


@pytest.mark.parametrize('entry', ['module', 'console_script'])
@pytest.mark.parametrize('copies', [1, 200])
def test_output_that_cannot_be_written_is_a_write_error_as_in_coreutils(in_dir, entry, copies):
    # /dev/full refuses every write (ENOSPC): one line (the failure comes at the last flush) and
    # more than a buffer's worth (it comes in the middle of the run) give coreutils' message and status.
    if not os.path.exists('/dev/full'):
        pytest.skip('no /dev/full on this system')
    if entry == 'module':
        command = [sys.executable, '-m', 'fastdigest']
    else:
        command = [sys.executable, '-c', 'from fastdigest.cli import console_script; console_script()']
    names = [b'--'] + list(AWKWARD_FILES) * copies
    environment = package_environment()
    environment.pop('PYTHONUNBUFFERED', None)
    with open('/dev/full', 'wb') as full:
        ours = subprocess.run(command + names, stdout=full, stderr=subprocess.PIPE, env=environment)
        theirs = subprocess.run(
            [TOOLS['sha256']] + names, executable=tool_path('sha256'), stdout=full, stderr=subprocess.PIPE
        )
    assert ours.stderr == theirs.stderr.replace(b'sha256sum: ', b'fastdigest: ') == b'fastdigest: write error\n'
    assert ours.returncode == theirs.returncode == 1


def test_main_returns_its_status_and_leaves_the_process_alone(in_dir, monkeypatch):
    # main() is the function to call from Python: it returns; only console_script() exits.
    out = io.BytesIO()
    monkeypatch.setattr(sys, 'stdout', io.TextIOWrapper(out))
    assert cli.main([b'plain.txt']) == 0
    sys.stdout.flush()
    assert out.getvalue() == expected_line('sha256', b'plain.txt')


@pytest.mark.threads
@pytest.mark.parametrize('chunks_over_minimum, big', [(-1, False), (0, True), (20, True)])
def test_only_a_big_file_goes_to_digest_files(tmp_path, monkeypatch, chunks_over_minimum, big):
    # Below BIG_FILE_MIN_CHUNKS chunks a file is read in Python, which costs less than a call that
    # cannot use a second thread.
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(output, 'worker_count', lambda: 4)
    monkeypatch.setattr(pool, 'CHUNK_SIZE', 4096)
    data = os.urandom((pool.BIG_FILE_MIN_CHUNKS + chunks_over_minimum) * 4096 + 100)
    (tmp_path / 'file').write_bytes(data)
    calls = count_big_file_calls(monkeypatch)
    assert run_ours([b'file']) == (0, hashlib.sha256(data).hexdigest().encode() + b'  file\n', b'')
    assert calls == ([2] if big else [])


def test_big_file_read_in_python_under_a_progress_bar(tmp_path, monkeypatch):
    # digest_files reports nothing until the file is hashed, so a bar would stand still.
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(pool, 'CHUNK_SIZE', 4096)
    data = os.urandom(pool.BIG_FILE_MIN_CHUNKS * 4096 * 2)
    (tmp_path / 'file').write_bytes(data)
    calls = count_big_file_calls(monkeypatch)
    out = io.BytesIO()
    assert cli.run([b'file'], stdin=io.BytesIO(), stdout=out, stderr=TerminalBytesIO()) == 0
    assert out.getvalue() == hashlib.sha256(data).hexdigest().encode() + b'  file\n'
    assert calls == []
    # The same run without a terminal goes to digest_files.
    out = io.BytesIO()
    assert cli.run([b'file'], stdin=io.BytesIO(), stdout=out, stderr=io.BytesIO()) == 0
    assert out.getvalue() == hashlib.sha256(data).hexdigest().encode() + b'  file\n' and calls


@pytest.mark.threads
def test_item_queue_is_first_in_first_out_and_loses_nothing_between_threads():
    items = pool._ItemQueue()
    for value in range(5):
        items.put(value)
    assert [items.get() for _ in range(5)] == [0, 1, 2, 3, 4]

    shared = pool._ItemQueue()
    received = []
    lock = threading.Lock()

    def consume():
        while True:
            value = shared.get()
            if value is None:
                return
            with lock:
                received.append(value)

    def produce(start):
        for value in range(start, start + 2000):
            shared.put(value)

    consumers = [threading.Thread(target=consume) for _ in range(3)]
    producers = [threading.Thread(target=produce, args=(start,)) for start in (0, 2000, 4000)]
    for thread in consumers + producers:
        thread.start()
    for thread in producers:
        thread.join()
    for _ in consumers:
        shared.put(None)
    for thread in consumers:
        thread.join(timeout=30)
    assert sorted(received) == list(range(6000))


@pytest.mark.threads
@pytest.mark.parametrize('files', [[b"it's"], [b"it's", b'plain.txt']], ids=['one', 'two'])
def test_a_lone_file_is_hashed_in_the_calling_thread(in_dir, monkeypatch, files):
    # One file and no progress bar: no worker thread to start and wait for.
    threads = []
    original = pool.Hasher._hash_file

    def hash_file_noting_thread(self, job, ignore_missing):
        threads.append(threading.get_ident())
        return original(self, job, ignore_missing)

    monkeypatch.setattr(pool.Hasher, '_hash_file', hash_file_noting_thread)
    expected = b''.join(expected_line('sha256', name) for name in files)
    assert run_ours(files) == (0, expected, b'')
    assert (threads == [threading.get_ident()]) == (len(files) == 1)


# --- several algorithms in one read (-a md5,sha256) --------------------------------------------


def test_several_algorithms_print_bsd_lines_in_order(in_dir):
    # One MD5 line and then one SHA256 line per file, as `md5sum --tag` and `sha256sum --tag` print them.
    args = [b'-a', b'md5,sha256', b'--'] + list(AWKWARD_FILES)
    expected = b''.join(
        expected_line('md5', name, tag=True) + expected_line('sha256', name, tag=True) for name in AWKWARD_FILES
    )
    assert run_ours(args) == (0, expected, b'')
    zero = b''.join(
        expected_line('sha1', name, tag=True, zero=True) + expected_line('sha512_224', name, tag=True, zero=True)
        for name in AWKWARD_FILES
    )
    assert run_ours([b'-z', b'-a', b'sha1,sha512_224', b'--'] + list(AWKWARD_FILES)) == (0, zero, b'')


def test_several_algorithms_equal_each_coreutils_tool(in_dir):
    files = [b'plain.txt', b'with space', b'new\nline', b'big']
    md5 = run_coreutils('md5', [b'--tag', b'--'] + files)[1].splitlines(keepends=True)
    sha512 = run_coreutils('sha512', [b'--tag', b'--'] + files)[1].splitlines(keepends=True)
    expected = b''.join(a + b for a, b in zip(md5, sha512, strict=True))
    assert run_ours([b'-a', b'md5,sha512', b'--'] + files) == (0, expected, b'')


def test_several_algorithms_read_each_file_once(in_dir, monkeypatch):
    reads = []
    original = pool.Hasher._hash_stream

    def counted(self, stream, job):
        reads.append(job.name)
        return original(self, stream, job)

    monkeypatch.setattr(pool.Hasher, '_hash_stream', counted)
    status, out, _ = run_ours([b'-a', b'md5,sha1,sha256', b'big'])
    assert status == 0 and reads == [b'big'] and out.count(b'\n') == 3


@pytest.mark.threads
def test_several_algorithms_of_a_file_cut_short_while_hashed_are_of_one_prefix(tmp_path):
    # A log rotated while `fastdigest -a md5,sha1,sha256 LOG` reads it: the lines are of one prefix of it. A lone
    # big file goes to digest_files on two threads (in relay or split).
    names = ('md5', 'sha1', 'sha256')
    data = os.urandom(pool.BIG_FILE_MIN_CHUNKS * pool.CHUNK_SIZE + 5 * 2**18)
    path = tmp_path / 'LOG'
    rng = random.Random(36)

    def hash_it():
        status, out, err = run_ours([b'-a', b'md5,sha1,sha256', os.fsencode(path)])
        assert (status, err) == (0, b'')
        return names, [bytes.fromhex(line.rsplit(b' = ', 1)[1].decode()) for line in out.splitlines()]

    for _ in range(8):
        cut, length = shrink_while_hashing(path, data, hash_it, rng)
        assert length is not None, f'cut to {cut}: the lines are of no one prefix'


def test_several_algorithms_options(in_dir):
    expected = expected_line('md5', b'plain.txt', tag=True) + expected_line('sha1', b'plain.txt', tag=True)
    for args in ([b'-a', b'md5,sha1'], [b'-amd5,SHA-1'], [b'--algorithm=md5,sha1'], [b'-a', b'md5,sha1,md5']):
        assert run_ours(args + [b'plain.txt']) == (0, expected, b''), args
    # The last -a wins, as for one algorithm; --tag and -b change nothing in tagged lines.
    assert run_ours([b'-a', b'sha512', b'-a', b'md5,sha1', b'--tag', b'plain.txt']) == (0, expected, b'')
    assert run_ours([b'-b', b'-a', b'md5,sha1', b'plain.txt']) == (0, expected, b'')
    status, out, err = run_ours([b'-t', b'-a', b'md5,sha1', b'plain.txt'])
    assert (status, out) == (1, b'')
    assert err == (
        b'fastdigest: several algorithms print BSD-style lines, which do not support --text mode\n'
        b"Try 'fastdigest --help' for more information.\n"
    )
    status, out, err = run_ours([b'-a', b'md5,crc32', b'plain.txt'])
    assert (status, out) == (1, b'') and err.startswith(b"fastdigest: invalid argument 'crc32' for '--algorithm'\n")
    status, _, err = run_ours([b'-a', b'md5,', b'plain.txt'])
    assert status == 1 and err.startswith(b"fastdigest: invalid argument '' for '--algorithm'\n")


def test_check_reads_back_several_algorithms(in_dir):
    files = list(AWKWARD_FILES)
    status, listing, _ = run_ours([b'-a', b'md5,sha256', b'--'] + files)
    assert status == 0
    (in_dir / 'both.sum').write_bytes(listing)
    status, out, err = run_ours([b'-a', b'md5,sha256', b'-c', b'both.sum'])
    assert (status, err) == (0, b'')
    shown = [b'\\' + escape_name(name) if b'\n' in name else name for name in files]
    assert out == b''.join(name + b': OK\n' + name + b': OK\n' for name in shown)
    # With one of the two, the other's lines are improperly formatted.
    status, out, err = run_ours([b'-a', b'sha256', b'-c', b'both.sum'])
    assert status == 0 and out.count(b': OK\n') == len(files)
    assert err == b'fastdigest: WARNING: %d lines are improperly formatted\n' % len(files)


def test_check_several_algorithms_failures_and_formats(in_dir):
    md5 = hexdigest_of('md5', b'plain.txt')
    sha1 = hexdigest_of('sha1', b'plain.txt')
    sha512 = hexdigest_of('sha512', b'with space')
    lines = [
        b'MD5 (plain.txt) = ' + md5 + b'\n',
        b'SHA1 (plain.txt) = ' + sha1[:-1] + (b'0' if sha1[-1:] != b'0' else b'1') + b'\n',  # corrupted
        b'SHA512 (with space) = ' + sha512 + b'\n',  # not one of the run's algorithms
        md5 + b'  plain.txt\n',  # untagged: no algorithm to tell
        b'MD5 (missing) = ' + md5 + b'\n',
        b'SHA1 (missing) = ' + sha1 + b'\n',
        b'MD5 (plain.txt) = ' + md5.upper() + b'\n',
    ]
    (in_dir / 'mixed.sum').write_bytes(b''.join(lines))
    status, out, err = run_ours([b'-a', b'md5,sha1', b'-w', b'-c', b'mixed.sum'])
    assert status == 1
    assert out == (
        b'plain.txt: OK\nplain.txt: FAILED\nmissing: FAILED open or read\nmissing: FAILED open or read\nplain.txt: OK\n'
    )
    assert err == (
        b'fastdigest: mixed.sum: 3: improperly formatted checksum line\n'
        b'fastdigest: mixed.sum: 4: improperly formatted checksum line\n'
        b'fastdigest: missing: No such file or directory\n'
        b'fastdigest: missing: No such file or directory\n'
        b'fastdigest: WARNING: 2 lines are improperly formatted\n'
        b'fastdigest: WARNING: 2 listed files could not be read\n'
        b'fastdigest: WARNING: 1 computed checksum did NOT match\n'
    )
    # SHA512/224's tag begins with SHA512's: each is told apart.
    both = b'SHA512/224 (plain.txt) = %s\nSHA512 (plain.txt) = %s\n' % (
        hexdigest_of('sha512_224', b'plain.txt'),
        hexdigest_of('sha512', b'plain.txt'),
    )
    (in_dir / 'sha512s.sum').write_bytes(both)
    assert run_ours([b'-a', b'sha512,sha512_224', b'-c', b'sha512s.sum']) == (0, b'plain.txt: OK\n' * 2, b'')


# --- -r, --recursive -----------------------------------------------------------------------------


@pytest.fixture
def tree(tmp_path, monkeypatch):
    """A tree whose names sort differently by path and by walk order (b, b.txt, b0), with
    links and a FIFO; the current directory is its parent."""
    root = tmp_path / 'tree'
    for relative, data in {
        'a': b'a\n',
        'b.txt': b'b.txt\n',
        'b0': b'b0\n',
        'b/inner': b'inner\n',
        'b/deeper/x y': b'spaced\n',
        'c/new\nline': b'newline\n',
        'c/back\\slash': b'backslash\n',
        'empty-dir/.keep': b'',
    }.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    (root / 'empty').mkdir()
    (root / 'b' / 'link-to-file').symlink_to('../a')
    (root / 'c' / 'link-to-dir').symlink_to('../b')
    if hasattr(os, 'mkfifo'):
        os.mkfifo(root / 'fifo')
    monkeypatch.chdir(tmp_path)
    return root


def expected_tree_files(top):
    """The regular files below top (links to them included), as `find TOP ... | LC_ALL=C sort`
    lists them: the order -r promises, computed independently of it."""
    found = []
    for directory, subdirectories, files in os.walk(top):
        for name in files + subdirectories:
            path = os.path.join(directory, name)
            if os.path.isfile(path):  # follows a link to a file; a link to a directory is no file
                found.append(path)
    return sorted(found)


def sha256_lines(paths):
    lines = []
    for path in paths:
        with open(path, 'rb') as file:
            digest = hashlib.sha256(file.read()).hexdigest().encode()
        escape = any(byte in path for byte in b'\\\n\r')
        prefix = b'\\' if escape else b''
        lines.append(prefix + digest + b'  ' + (escape_name(path) if escape else path) + b'\n')
    return b''.join(lines)


@pytest.mark.parametrize('top', [b'tree', b'tree/', b'./tree', b'tree//'])
def test_recursive_order_and_names(tree, top):
    paths = expected_tree_files(top)
    assert b'tree/b.txt' in [path.replace(b'//', b'/').removeprefix(b'./') for path in paths]
    assert run_ours([b'-r', top]) == (0, sha256_lines(paths), b'')


def test_recursive_equals_coreutils_given_the_files(tree):
    paths = expected_tree_files(b'tree')
    expected = run_coreutils('sha256', [b'--'] + paths)
    assert expected[0] == 0
    assert run_ours([b'-r', b'tree']) == expected
    assert run_ours([b'--recursive', b'-a', b'sha256', b'tree']) == expected


def test_recursive_absolute_path(tree):
    top = os.fsencode(tree)
    assert run_ours([b'-r', top]) == (0, sha256_lines(expected_tree_files(top)), b'')


def test_recursive_mixes_files_stdin_and_directories(tree):
    paths = [b'tree/a', b'-'] + expected_tree_files(b'tree/b') + [b'tree/b0']
    expected = b''
    for path in paths:
        if path == b'-':
            expected += hashlib.sha256(STDIN_DATA).hexdigest().encode() + b'  -\n'
        else:
            expected += sha256_lines([path])
    assert run_ours([b'-r', b'tree/a', b'-', b'tree/b', b'tree/b0'], stdin=STDIN_DATA) == (0, expected, b'')
    # Without -r a directory is an error, as before.
    status, _, err = run_ours([b'tree/b'])
    assert status == 1 and err == b'fastdigest: tree/b: Is a directory\n'


def test_recursive_links_and_special_files(tree):
    status, out, err = run_ours([b'-r', b'tree'])
    assert (status, err) == (0, b'')
    assert b'  tree/b/link-to-file\n' in out  # a link to a file: hashed through it, under its name
    assert b'link-to-dir' not in out  # a link to a directory: not followed
    assert b'fifo' not in out  # not a regular file
    # A link named on the command line is followed.
    assert run_ours([b'-r', b'tree/c/link-to-dir']) == (
        0,
        sha256_lines(expected_tree_files(b'tree/c/link-to-dir')),
        b'',
    )
    # A link that leads nowhere is reported where it sorts, as sha256sum given its path reports it.
    (tree / 'b' / 'dangling').symlink_to('nowhere')
    status, out, err = run_ours([b'-r', b'tree'])
    assert status == 1
    assert err == b'fastdigest: tree/b/dangling: No such file or directory\n'
    assert out == sha256_lines(expected_tree_files(b'tree'))


def test_recursive_unlistable_directory(tree):
    locked = tree / 'b' / 'deeper'
    locked.chmod(0)
    try:
        if not os.access(locked, os.R_OK):
            status, out, err = run_ours([b'-r', b'tree'])
        elif os.geteuid() == 0 and shutil.which('setpriv'):
            # Root lists any directory through CAP_DAC_READ_SEARCH: a child without it cannot.
            completed = subprocess.run(
                ['setpriv', '--bounding-set=-dac_override,-dac_read_search', sys.executable, '-m', 'fastdigest']
                + ['-r', 'tree'],
                capture_output=True,
                env=package_environment(),
                check=False,
            )
            status, out, err = completed.returncode, completed.stdout, completed.stderr
        else:
            pytest.skip("this process lists a directory of mode 000, and there is no setpriv to drop root's right to")
    finally:
        locked.chmod(0o755)
    assert status == 1
    assert err == b'fastdigest: tree/b/deeper: Permission denied\n'
    assert out == sha256_lines([path for path in expected_tree_files(b'tree') if b'deeper' not in path])


def test_recursive_many_files_batch_through_digest_files(tmp_path, monkeypatch):
    # Small files go to digest_files in batches; an error in a batch is reported file by file.
    monkeypatch.chdir(tmp_path)
    top = tmp_path / 'many'
    top.mkdir()
    for index in range(300):
        (top / f'{index:03d}').write_bytes(b'%d\n' % index * index)
    calls = []
    original = fastdigest.digest_files

    def counted(*args, **kwargs):
        calls.append(len(args[1]))
        return original(*args, **kwargs)

    monkeypatch.setattr(fastdigest, 'digest_files', counted)
    paths = expected_tree_files(b'many')
    assert run_ours([b'-r', b'many']) == (0, sha256_lines(paths), b'')
    assert sum(calls) == 300 and max(calls) > 1
    # A batch with files that cannot be read: each reported in its place, the others hashed.
    (top / '150').unlink()
    (top / '150').mkdir()
    named = [b'many/%03d' % index for index in range(300)]
    calls.clear()
    status, out, err = run_ours(named)
    assert status == 1 and calls
    assert err == b'fastdigest: many/150: Is a directory\n'
    assert out == sha256_lines([name for name in named if name != b'many/150'])


def test_recursive_is_meaningless_with_check(tree):
    status, out, err = run_ours([b'-r', b'-c', b'x'])
    assert (status, out) == (1, b'')
    assert err == (
        b'fastdigest: the --recursive option is meaningless when verifying checksums\n'
        b"Try 'fastdigest --help' for more information.\n"
    )


def test_recursive_check_round_trip(tree):
    status, listing, _ = run_ours([b'-r', b'-a', b'md5,sha512', b'tree'])
    assert status == 0
    (tree.parent / 'tree.sum').write_bytes(listing)
    status, out, err = run_ours([b'-a', b'md5,sha512', b'-c', b'tree.sum'])
    assert (status, err) == (0, b'') and out.count(b': OK\n') == 2 * len(expected_tree_files(b'tree'))


def test_one_file_imports_no_threading_and_a_pipe_no_signal(in_dir, tmp_path):
    # One file is hashed in the calling thread: no threading. Writing to a pipe sets SIGPIPE's
    # handler through the built-in _signal, without signal and its enums.
    with open(tmp_path / 'out', 'wb') as out:
        interpreter_alone = imported_modules(['-c', 'pass'], out, tmp_path)
        ours = imported_modules(['-m', 'fastdigest', 'plain.txt'], out, tmp_path)
    assert 'fastdigest.cli' in ours
    assert (ours - interpreter_alone) & (NOT_FOR_EVERY_RUN | {'threading', 'fastdigest.cli.tree'}) == set()
    read, write = os.pipe()
    with os.fdopen(read, 'rb') as reader, os.fdopen(write, 'wb') as writer:
        piped = imported_modules(['-m', 'fastdigest', 'plain.txt'], writer, tmp_path)
        writer.close()
        assert reader.read() == expected_line('sha256', b'plain.txt')
    assert (piped - interpreter_alone) & {'signal', 'enum', 'threading'} == set()


def test_help_lists_the_new_options():
    status, out, _ = run_ours([b'--help'])
    assert status == 0
    assert b'  -r, --recursive ' in out and b'-a md5,sha256' in out


@settings(deadline=None, max_examples=examples(200))
@given(
    algorithms=st.lists(st.sampled_from(sorted(ALGORITHMS)), min_size=2, max_size=4, unique=True),
    line_algorithm=st.sampled_from(sorted(ALGORITHMS)),
    name=st.binary(min_size=1, max_size=40).filter(lambda name: b'\n' not in name and b'\0' not in name),
    escaped=st.booleans(),
    garbage=st.binary(max_size=80),
)
def test_check_parser_with_several_algorithms(algorithms, line_algorithm, name, escaped, garbage):
    # A BSD-style line of one of the run's algorithms parses back to its name, algorithm and hex;
    # one of another algorithm, or any other bytes, is improperly formatted (None), never an error.
    from fastdigest.cli.check import Checker
    from fastdigest.cli.options import Options

    options = Options()
    options.algorithms = algorithms
    options.check = True
    runner = output.Runner(options, io.BytesIO(), io.BytesIO(), io.BytesIO())
    checker = Checker(runner)
    hexdigest = hashlib.new(line_algorithm, name).hexdigest().encode()
    shown = escape_name(name) if escaped else name
    line = (b'\\' if escaped else b'') + TAG_NAMES[line_algorithm] + b' (' + shown + b') = ' + hexdigest
    parsed = checker.parse_check_line(line)
    if line_algorithm in algorithms:
        assert parsed == (name, line_algorithm, hexdigest)
    else:
        assert parsed is None
    assert checker.parse_check_line(garbage) is None or checker.parse_check_line(garbage)[1] in algorithms
