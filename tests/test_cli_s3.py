"""`fastdigest --s3-etag [--part-size SIZE]` and its --check: S3's ETags printed and checked as md5sum lines.

The ETags are fastdigest.s3_etag's, which tests/test_s3.py checks against boto3 uploading into moto's S3; here
they are checked against a hashlib part loop, and the lines, the --check report and the usage errors against
the forms tests/test_cli.py checks against coreutils' md5sum. fastdigest runs in-process (cli.run on byte
streams), as test_cli.py runs it.
"""

import hashlib
import io
import random

import pytest

from fastdigest import cli
from fastdigest.cli.names import escape_name

# Every call hashes on fastdigest's threads (threads=None), or names threads= itself.
pytestmark = pytest.mark.threads

MIB = 1 << 20


def run_ours(args, stdin=b''):
    """(status, stdout, stderr) of fastdigest's tool, run in this process."""
    out, err = io.BytesIO(), io.BytesIO()
    status = cli.run(list(args), stdin=io.BytesIO(stdin), stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


def hashlib_etag(data, part_size):
    if len(data) < part_size:
        return hashlib.md5(data).hexdigest()
    parts = [hashlib.md5(data[i : i + part_size]).digest() for i in range(0, len(data), part_size)]
    return hashlib.md5(b''.join(parts)).hexdigest() + f'-{len(parts)}'


@pytest.fixture
def files(tmp_path, monkeypatch):
    """Files around 5 and 8 MiB, and names that coreutils escapes, in the current directory."""
    monkeypatch.chdir(tmp_path)
    rng = random.Random(40)
    contents = {
        b'empty': b'',
        b'small.txt': b'hello\n',
        b'five': rng.randbytes(5 * MIB),
        b'eleven and more': rng.randbytes(11 * MIB + 17),
        b'new\nline': rng.randbytes(8 * MIB),
        b'back\\slash': rng.randbytes(3),
    }
    for name, data in contents.items():
        (tmp_path / name.decode()).write_bytes(data)
    return contents


def expected_lines(contents, part_size):
    lines = []
    for name, data in contents.items():
        escape = b'\\' in name or b'\n' in name
        lines.append(
            (b'\\' if escape else b'')
            + hashlib_etag(data, part_size).encode()
            + b'  '
            + (escape_name(name) if escape else name)
            + b'\n'
        )
    return b''.join(lines)


@pytest.mark.parametrize('args, part_size', [([], 8 * MIB), ([b'--part-size', b'5M'], 5 * MIB)])
def test_lines_equal_hashlib_part_loop(files, args, part_size):
    status, out, err = run_ours([b'--s3-etag', *args, *files])
    assert (status, err) == (0, b'')
    assert out == expected_lines(files, part_size)


@pytest.mark.parametrize(
    'spelling, size',
    [(b'5242880', 5 * MIB), (b'5M', 5 * MIB), (b'5MB', 5 * MIB), (b'5MiB', 5 * MIB), (b'6m', 6 * MIB)]
    + [(b'1G', 1 << 30), (b'6144K', 6 * MIB), (b'6144kib', 6 * MIB)],
)
def test_part_size_spellings(files, spelling, size):
    status, out, err = run_ours([b'--s3-etag', b'--part-size=' + spelling, b'eleven and more'])
    assert (status, err) == (0, b'')
    assert out == hashlib_etag(files[b'eleven and more'], size).encode() + b'  eleven and more\n'


def test_check_reads_the_lines_back_with_and_without_the_part_size(files, tmp_path):
    status, out, _ = run_ours([b'--s3-etag', b'--part-size', b'5M', *files])
    assert status == 0
    (tmp_path / 'etags').write_bytes(out)
    report = b''.join(b'\\' + escape_name(n) + b': OK\n' if b'\n' in n else n + b': OK\n' for n in files)
    # Without --part-size, each ETag of parts is matched by the part sizes common uploaders use (5 MiB here).
    for args in ([b'--part-size', b'5M'], []):
        assert run_ours([b'--s3-etag', b'-c', *args, b'etags']) == (0, report, b'')
    assert run_ours([b'--s3-etag', b'--check', b'--quiet', b'etags']) == (0, b'', b'')
    # The same lines on standard input.
    assert run_ours([b'--s3-etag', b'-c'], stdin=out) == (0, report, b'')


def test_check_reports_a_changed_file_and_a_missing_one(files, tmp_path):
    _, out, _ = run_ours([b'--s3-etag', b'five', b'small.txt', b'empty'])
    (tmp_path / 'etags').write_bytes(out + b'0123456789abcdef0123456789abcdef-2  missing\nnot a line\n')
    (tmp_path / 'small.txt').write_bytes(b'changed\n')
    status, report, err = run_ours([b'--s3-etag', b'-c', b'-w', b'etags'])
    assert status == 1
    assert report == b'five: OK\nsmall.txt: FAILED\nempty: OK\nmissing: FAILED open or read\n'
    assert err == (
        b'fastdigest: missing: No such file or directory\n'
        b'fastdigest: etags: 5: improperly formatted S3 ETag line\n'
        b'fastdigest: WARNING: 1 line is improperly formatted\n'
        b'fastdigest: WARNING: 1 listed file could not be read\n'
        b'fastdigest: WARNING: 1 computed checksum did NOT match\n'
    )
    status, report, err = run_ours([b'--s3-etag', b'-c', b'--status', b'--ignore-missing', b'etags'])
    assert (status, report, err) == (1, b'', b'')


def test_unreadable_arguments_are_reported_and_the_rest_printed(files):
    status, out, err = run_ours([b'--s3-etag', b'missing', b'small.txt', b'-'], stdin=b'data')
    assert status == 1
    assert out == hashlib_etag(b'hello\n', 8 * MIB).encode() + b'  small.txt\n'
    assert err == (
        b'fastdigest: missing: No such file or directory\n'
        b"fastdigest: -: standard input has no size up front, which an upload's parts need\n"
    )


def test_recursive_and_zero(files, tmp_path):
    folder = tmp_path / 'tree'
    (folder / 'sub').mkdir(parents=True)
    (folder / 'sub' / 'b').write_bytes(b'b')
    (folder / 'a').write_bytes(b'a')
    status, out, err = run_ours([b'--s3-etag', b'-r', b'-z', b'tree'])
    assert (status, err) == (0, b'')
    assert out == b''.join(
        hashlib.md5(data).hexdigest().encode() + b'  ' + name + b'\0'
        for name, data in ((b'tree/a', b'a'), (b'tree/sub/b', b'b'))
    )


@pytest.mark.parametrize(
    'args, message',
    [
        ([b'--part-size', b'5M', b'x'], b'the --part-size option is meaningful only with --s3-etag'),
        ([b'--s3-etag', b'--tag', b'x'], b'--s3-etag prints ETags, which are of MD5: --tag and --algorithm'),
        ([b'--s3-etag', b'-a', b'md5', b'x'], b'--s3-etag prints ETags, which are of MD5: --tag and --algorithm'),
        ([b'--s3-etag', b'--part-size', b'4M', b'x'], b"invalid part size: part_size=4194304 is below S3's minimum"),
        ([b'--s3-etag', b'--part-size', b'6G', b'x'], b"invalid part size: part_size=6442450944 is above S3's max"),
        ([b'--s3-etag', b'--part-size', b'5 M', b'x'], b"invalid part size: '5 M'"),
        ([b'--s3-etag', b'--part-size', b'M', b'x'], b"invalid part size: 'M'"),
        ([b'--s3-etag', b'--part-size', b'-5M', b'x'], b"invalid part size: '-5M'"),
        ([b'--s3-etag', b'--part-size'], b"option '--part-size' requires an argument"),
    ],
)
def test_usage_errors(args, message):
    status, out, err = run_ours(args)
    assert (status, out) == (1, b'')
    assert err.startswith(b'fastdigest: ' + message)
    assert err.endswith(b"\nTry 'fastdigest --help' for more information.\n")


def test_help_says_how():
    status, out, _ = run_ours([b'--help'])
    assert status == 0
    assert b'--s3-etag' in out and b'--part-size=SIZE' in out
