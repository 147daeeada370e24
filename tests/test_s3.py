"""s3_etag, s3_checksum, s3_part_digests and s3_etag_matches: equal to what S3 gives the file uploaded by boto3.

The oracle is boto3's transfer manager (upload_file with a TransferConfig, as aws-cli uploads) into moto's S3, in
process and without the network, for sizes around each part boundary: moto gives the ETag, each part's ETag and the
composite ChecksumSHA256 and ChecksumSHA1 as S3 does, except for the -N that S3's documentation puts after a
composite checksum (Amazon S3 User Guide, "Checking object integrity": the checksum of checksums of a multipart
upload is followed by a hyphen and the number of parts), which moto leaves out: that suffix is checked against the
ETag's part count. AWS's documentation shows no checksum of a file whose bytes it gives, so no value of it is
reproduced here. The lanes and threads (src/_fastdigest/files/parts.c) are checked against a hashlib loop over
many small parts, which the private _hash_parts takes; the faults by changing the file between two rounds of reads,
from the callable _hash_parts calls there.
"""

import base64
import hashlib
import json
import os
import pathlib
import random
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fastdigest
from conftest import ALGORITHMS, examples, unsupported
from docs_blocks import ROOT, run_by, run_python, write_fixtures
from fastdigest import _fastdigest

# Every call hashes on fastdigest's threads (threads=None), or names threads= itself.
pytestmark = pytest.mark.threads

MIB = 1 << 20
PART = 5 * MIB  # S3's least part size, so that the files stay small
SIZES = [0, 1, PART - 1, PART, PART + 1, 2 * PART, 2 * PART + 17]


def hashlib_parts(data, name, part_size):
    """The digests of data's parts, by hashlib: the loop users write by hand."""
    return [hashlib.new(name, data[i : i + part_size]).digest() for i in range(0, len(data), part_size)] or [
        hashlib.new(name, b'').digest()
    ]


def write(path, size, seed=0):
    data = random.Random(seed).randbytes(size)
    path.write_bytes(data)
    return data


# ---- against boto3 and moto's S3 ------------------------------------------------------------------------------


@pytest.fixture(scope='module')
def s3():
    moto = pytest.importorskip('moto', reason="moto is not installed (pip install 'fastdigest[test-s3]')")
    boto3 = pytest.importorskip('boto3', reason="boto3 is not installed (pip install 'fastdigest[test-s3]')")
    from boto3.s3.transfer import TransferConfig

    with moto.mock_aws():
        client = boto3.client('s3', region_name='us-east-1')
        client.create_bucket(Bucket='fastdigest-tests')

        def upload(path, checksum, part_size=PART, threshold=None):
            """What S3 says of the file after boto3's transfer manager uploaded it: the head's fields and each
            part's ETag."""
            config = TransferConfig(
                multipart_threshold=part_size if threshold is None else threshold,
                multipart_chunksize=part_size,
                use_threads=False,
            )
            key = f'{path.name}-{checksum}-{part_size}-{threshold}'
            client.upload_file(
                str(path), 'fastdigest-tests', key, Config=config, ExtraArgs={'ChecksumAlgorithm': checksum}
            )
            head = client.head_object(Bucket='fastdigest-tests', Key=key, ChecksumMode='ENABLED')
            parts = head['ETag'].strip('"').partition('-')[2]
            part_etags = [
                client.head_object(Bucket='fastdigest-tests', Key=key, PartNumber=n)['ETag'].strip('"')
                for n in range(1, int(parts or 0) + 1)
            ]
            return head, part_etags

        upload.client = client
        yield upload


def composite(value, etag):
    """moto's composite checksum with the -N of S3's documentation: the part count of the upload's ETag."""
    _, dash, parts = etag.strip('"').partition('-')
    return value + dash + parts


@pytest.mark.parametrize('size', SIZES)
def test_etag_and_sha256_equal_s3s(s3, tmp_path, size):
    path = tmp_path / f'object-{size}.bin'
    data = write(path, size, seed=size)
    head, part_etags = s3(path, 'SHA256')
    assert fastdigest.s3_etag(path, part_size=PART) == head['ETag'].strip('"')
    assert fastdigest.s3_checksum(path, part_size=PART) == composite(head['ChecksumSHA256'], head['ETag'])
    assert fastdigest.s3_checksum(path, 'SHA256', part_size=PART, threads=1) == fastdigest.s3_checksum(
        path, part_size=PART
    )
    # Each part's ETag, as S3 lists it; one PUT has no parts.
    digests = fastdigest.s3_part_digests(path, part_size=PART)
    if part_etags:
        assert [d.hex() for d in digests] == part_etags
    else:
        assert size < PART and digests == [hashlib.md5(data).digest()]
    # Every multipart size here is made of 5 MiB parts alone among the sizes tried (8 MiB, 5 MiB, ...).
    assert fastdigest.s3_etag_matches(path, head['ETag']) == (
        fastdigest.S3ETagMatch(PART, len(part_etags)) if part_etags else fastdigest.S3ETagMatch(None, 1)
    )


@pytest.mark.parametrize('size', [1, PART, 2 * PART + 17])
def test_sha1_equals_s3s(s3, tmp_path, size):
    path = tmp_path / f'object-{size}.bin'
    write(path, size, seed=size)
    head, _ = s3(path, 'SHA1')
    assert fastdigest.s3_checksum(path, 'sha1', part_size=PART) == composite(head['ChecksumSHA1'], head['ETag'])
    assert fastdigest.s3_etag(path, part_size=PART) == head['ETag'].strip('"')


@pytest.mark.parametrize('size', [PART + 1, 2 * PART, 2 * PART + 1])
def test_threshold_apart_from_part_size_equals_s3s(s3, tmp_path, size):
    # A file below the threshold goes up in one PUT however many parts it would make.
    path = tmp_path / f'object-{size}.bin'
    write(path, size, seed=size)
    head, _ = s3(path, 'SHA256', part_size=PART, threshold=2 * PART)
    assert fastdigest.s3_etag(path, part_size=PART, threshold=2 * PART) == head['ETag'].strip('"')
    assert fastdigest.s3_checksum(path, part_size=PART, threshold=2 * PART) == composite(
        head['ChecksumSHA256'], head['ETag']
    )


def test_etag_of_6_mib_parts_equals_s3s_and_is_found(s3, tmp_path):
    # A part size no common uploader uses, found among the whole MiB.
    path = tmp_path / 'object.bin'
    write(path, 17 * MIB)
    head, _ = s3(path, 'SHA256', part_size=6 * MIB)
    assert fastdigest.s3_etag(path, part_size=6 * MIB) == head['ETag'].strip('"')
    assert fastdigest.s3_etag_matches(path, head['ETag']) == fastdigest.S3ETagMatch(6 * MIB, 3)


def test_the_recipe_as_written(s3, tmp_path, monkeypatch):
    """docs/objects.md's check of a local tree against a bucket's listing, against moto's S3: one object went
    up in parts of 5 MiB, one has no local file, and one local file changed since its upload."""
    from boto3.s3.transfer import TransferConfig

    if not (ROOT / 'docs' / 'objects.md').exists():
        pytest.skip('the documentation is not beside these tests (a copy of tests/ run against an installed '
                    'package): the run in the checkout runs the recipe')  # fmt: skip
    recipes = run_by('test_s3.py')
    assert [block.page for block in recipes] == ['docs/objects.md']
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv('AWS_DEFAULT_REGION', 'us-east-1')
    write_fixtures(tmp_path)
    write(tmp_path / 'notes' / 'big.bin', 2 * PART + 17)
    (tmp_path / 'notes' / 'gone.txt').write_bytes(b'gone soon\n')
    s3.client.create_bucket(Bucket='my-bucket')
    config = TransferConfig(multipart_threshold=PART, multipart_chunksize=PART, use_threads=False)
    for path in sorted((tmp_path / 'notes').rglob('*')):
        if path.is_file():
            key = 'notes/' + path.relative_to(tmp_path / 'notes').as_posix()
            s3.client.upload_file(str(path), 'my-bucket', key, Config=config)
    assert s3.client.head_object(Bucket='my-bucket', Key='notes/big.bin')['ETag'].endswith('-3"')
    (tmp_path / 'notes' / 'gone.txt').unlink()
    (tmp_path / 'notes' / 'todo.txt').write_bytes(b'buy oat milk\n')
    namespace = {}
    run_python(recipes[0], namespace)
    assert (namespace['differ'], namespace['absent']) == (['notes/todo.txt'], ['notes/gone.txt'])


# ---- against a hashlib part loop ------------------------------------------------------------------------------


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    size=st.integers(0, 40_000),
    part_size=st.integers(64, 5_000),
    name=st.sampled_from(ALGORITHMS),
    threads=st.integers(1, 3),
    lanes=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
)
def test_parts_equal_hashlib_loop(tmp_path, size, part_size, name, threads, lanes, seed):
    # Many small parts, so that every lane of every thread takes several, and parts of every length modulo the
    # block; _hash_parts takes part sizes below S3's least, which only the public functions refuse.
    path = tmp_path / 'object.bin'
    data = write(path, size, seed)
    got_size, multipart, digests = _fastdigest._hash_parts(path, name, part_size, 0, threads, lanes)
    assert (got_size, multipart) == (size, size != 0)
    assert digests == b''.join(hashlib_parts(data, name, part_size))


@settings(max_examples=examples(10), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    size=st.sampled_from([PART - 1, PART, PART + 1, 2 * PART + 17, 3 * PART + 64]),
    part_size=st.sampled_from([PART, PART + 64, 6 * MIB]),
    threads=st.sampled_from([None, 1, 2]),
)
def test_public_functions_equal_hashlib_loop(tmp_path, size, part_size, threads):
    path = tmp_path / 'object.bin'
    data = write(path, size)
    multipart = size >= part_size
    count = f'-{-(-size // part_size)}' if multipart else ''
    md5s = hashlib_parts(data, 'md5', part_size) if multipart else [hashlib.md5(data).digest()]
    etag = (hashlib.md5(b''.join(md5s)).hexdigest() if multipart else md5s[0].hex()) + count
    assert fastdigest.s3_etag(path, part_size=part_size, threads=threads) == etag
    assert fastdigest.s3_part_digests(path, part_size=part_size, threads=threads) == md5s
    for name in ('sha256', 'sha1', 'md5'):
        parts = hashlib_parts(data, name, part_size) if multipart else [hashlib.new(name, data).digest()]
        whole = hashlib.new(name, b''.join(parts)).digest() if multipart else parts[0]
        want = base64.b64encode(whole).decode() + count
        assert fastdigest.s3_checksum(path, name, part_size=part_size, threads=threads) == want


def test_part_digests_take_a_constructor_and_refuse_other_names(tmp_path):
    path = tmp_path / 'object.bin'
    data = write(path, PART + 1)
    assert fastdigest.s3_part_digests(path, fastdigest.sha512, part_size=PART) == hashlib_parts(data, 'sha512', PART)
    with pytest.raises(ValueError, match=unsupported('sha3_256')):
        fastdigest.s3_part_digests(path, 'sha3_256', part_size=PART)


# ---- s3_etag_matches --------------------------------------------------------------------------------------------


def test_etag_matches_reads_any_spelling_and_says_none_for_another_file(tmp_path):
    path = tmp_path / 'object.bin'
    data = write(path, 2 * PART + 17)
    etag = fastdigest.s3_etag(path, part_size=PART)
    for spelling in (etag, f'"{etag}"', f' "{etag.upper()}"\n'):
        assert fastdigest.s3_etag_matches(path, spelling) == fastdigest.S3ETagMatch(PART, 3)
    assert fastdigest.s3_etag_matches(path, hashlib.md5(data).hexdigest()) == fastdigest.S3ETagMatch(None, 1)
    assert fastdigest.s3_etag_matches(path, hashlib.md5(b'other').hexdigest()) is None
    assert fastdigest.s3_etag_matches(path, etag.replace('-3', '-2')) is None
    assert fastdigest.s3_etag_matches(path, etag.replace('-3', '-4')) is None


def test_etag_matches_finds_boto3s_grown_part_size(tmp_path):
    # Past 10,000 parts of 8 MiB boto3 and aws-cli double the part size: a sparse file of 80 GiB + 1 byte goes up
    # in 5,001 parts of 16 MiB. Hashing it would read 80 GiB, so only the candidates are checked here.
    from fastdigest import _s3

    size = 10_000 * 8 * MIB + 1
    assert _s3._boto3_part_size(size) == 16 * MIB
    assert _s3._candidate_part_sizes(size, 5_001)[0] == 16 * MIB
    assert _s3._candidate_part_sizes(100 * MIB, 13)[:1] == [8 * MIB]
    assert _s3._candidate_part_sizes(6 * MIB, 1) == [8 * MIB]
    assert _s3._candidate_part_sizes(6 * MIB, 7) == []


@pytest.mark.parametrize('etag', ['', 'abc', 'g' * 32, '0' * 32 + '-0', '0' * 32 + '-', '0' * 31, '0' * 32 + '-x'])
def test_etag_matches_refuses_what_is_no_etag(tmp_path, etag):
    path = tmp_path / 'object.bin'
    write(path, 10)
    with pytest.raises(ValueError, match='is not an S3 ETag'):
        fastdigest.s3_etag_matches(path, etag)


def test_etag_matches_refuses_bytes(tmp_path):
    path = tmp_path / 'object.bin'
    write(path, 10)
    with pytest.raises(TypeError, match='must be str, not bytes'):
        fastdigest.s3_etag_matches(path, b'0' * 32)


# ---- what S3 refuses ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    'part_size, words',
    [
        (PART - 1, "below S3's minimum part size of 5 MiB"),
        (0, 'minimum'),
        ((5 << 30) + 1, 'maximum part size of 5 GiB'),
    ],
)
def test_part_sizes_s3_refuses_raise_value_error(tmp_path, part_size, words):
    path = tmp_path / 'object.bin'
    write(path, 10)
    for function in (fastdigest.s3_etag, fastdigest.s3_checksum, fastdigest.s3_part_digests):
        with pytest.raises(ValueError, match=words):
            function(path, part_size=part_size)


def test_more_than_10000_parts_raise_value_error(tmp_path):
    # A sparse file: its size is all that is read before the refusal.
    path = tmp_path / 'sparse.bin'
    with open(path, 'wb') as file:
        file.truncate(10_000 * PART + 1)
    with pytest.raises(
        ValueError, match=r"more than S3's limit of 10,000 parts \(boto3 and aws-cli upload it in parts "
    ):
        fastdigest.s3_etag(path, part_size=PART)
    # The extension's own check, against the size it read from the open file.
    small = tmp_path / 'small.bin'
    write(small, 10_001)
    with pytest.raises(ValueError, match="10001 parts, more than S3's limit of 10,000 parts"):
        _fastdigest._hash_parts(small, 'md5', 1, 0, 1, True)


def test_one_put_over_5_gib_raises_value_error(tmp_path):
    path = tmp_path / 'sparse.bin'
    with open(path, 'wb') as file:
        file.truncate((5 << 30) + 1)
    with pytest.raises(ValueError, match="more than S3's limit of 5 GiB for a single PUT"):
        fastdigest.s3_etag(path, part_size=PART, threshold=6 << 30)


@pytest.mark.parametrize(
    'arguments, error, words',
    [
        ({'threshold': -1}, ValueError, 'threshold=-1 is negative'),
        ({'part_size': True}, TypeError, 'part_size must be an integer, not bool'),
        ({'part_size': 5.0 * MIB}, TypeError, 'part_size must be an integer, not float'),
        ({'threshold': '1'}, TypeError, 'threshold must be an integer, not str'),
        ({'threads': 0}, ValueError, 'threads'),
    ],
)
def test_bad_arguments(tmp_path, arguments, error, words):
    path = tmp_path / 'object.bin'
    write(path, 10)
    with pytest.raises(error, match=words):
        fastdigest.s3_etag(path, **arguments)


@pytest.mark.parametrize('name', ['sha512', 'crc32', 'SHA-256'])
def test_checksum_names_s3_lacks_raise_value_error(tmp_path, name):
    path = tmp_path / 'object.bin'
    write(path, 10)
    with pytest.raises(ValueError, match='S3 has no checksum fastdigest computes named'):
        fastdigest.s3_checksum(path, name)


# ---- faults -----------------------------------------------------------------------------------------------------


def change_on_call(count, change):
    """A callable for _hash_parts' between-rounds hook that makes the change on its count-th call."""
    calls = []

    def between():
        calls.append(None)
        if len(calls) == count:
            change()

    between.calls = calls
    return between


FAULT_SIZE = 4 * MIB + 100  # parts of 1 MiB: several rounds of reads


@pytest.mark.parametrize('threads', [1, 2])
@pytest.mark.parametrize('when', [1, 2])
@pytest.mark.parametrize(
    'change',
    [
        pytest.param(lambda path: os.truncate(path, MIB + 3), id='shrinks'),
        pytest.param(lambda path: os.truncate(path, 0), id='emptied'),
        pytest.param(lambda path: path.open('ab').write(b'more'), id='grows'),
        pytest.param(lambda path: os.utime(path, ns=(0, 10**9 + 7)), id='touched'),
    ],
)
def test_file_that_changes_while_hashed_raises_naming_it(tmp_path, threads, when, change):
    path = tmp_path / 'object.bin'
    write(path, FAULT_SIZE)
    between = change_on_call(when, lambda: change(path))
    with pytest.raises(OSError, match='changed while it was hashed') as info:
        _fastdigest._hash_parts(path, 'md5', MIB, 0, threads, True, between)
    assert repr(str(path)) in str(info.value)
    assert len(between.calls) >= when  # the change was made while the file was hashed


def test_an_unchanged_file_hashed_with_the_hook_is_right(tmp_path):
    # The hook itself changes nothing: the same file without a change hashes right.
    path = tmp_path / 'object.bin'
    data = write(path, FAULT_SIZE)
    between = change_on_call(10**9, lambda: None)
    _, _, digests = _fastdigest._hash_parts(path, 'md5', MIB, 0, 1, True, between)
    assert digests == b''.join(hashlib_parts(data, 'md5', MIB))
    assert len(between.calls) >= 2


def test_an_exception_between_rounds_stops_the_call(tmp_path):
    # As Ctrl-C does: the signal handler's KeyboardInterrupt comes out of the call.
    path = tmp_path / 'object.bin'
    write(path, FAULT_SIZE)

    def interrupt():
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        _fastdigest._hash_parts(path, 'md5', MIB, 0, 2, True, interrupt)


def test_missing_file_and_directory_raise_open_errors(tmp_path):
    for path, error in ((tmp_path / 'missing', FileNotFoundError), (tmp_path, IsADirectoryError)):
        if sys.platform == 'win32' and error is IsADirectoryError:
            error = PermissionError  # open() on Windows says so for a directory
        with pytest.raises(error) as info:
            fastdigest.s3_etag(path)
        assert info.value.filename == str(path)
    with pytest.raises(TypeError):
        fastdigest.s3_etag(3.5)
    with pytest.raises(ValueError, match='embedded null'):
        fastdigest.s3_etag('a\0b')


@pytest.mark.skipif(sys.platform == 'win32', reason='os.chmod cannot make a file unreadable on Windows')
@pytest.mark.skipif(hasattr(os, 'geteuid') and os.geteuid() == 0, reason='root reads a file of mode 000')
def test_unreadable_file_raises_permission_error(tmp_path):
    path = tmp_path / 'object.bin'
    write(path, 10)
    path.chmod(0)
    with pytest.raises(PermissionError) as info:
        fastdigest.s3_etag(path)
    assert info.value.filename == str(path)


@pytest.mark.skipif(not os.path.exists('/dev/zero'), reason='no /dev/zero here (Windows)')
def test_a_file_that_is_not_regular_raises_value_error():
    with pytest.raises(ValueError, match="is not a regular file: an upload's parts need the file's size first"):
        fastdigest.s3_etag('/dev/zero')
    # The extension's own check, after its open.
    with pytest.raises(ValueError, match="is not a regular file: an upload's parts need the file's size first"):
        _fastdigest._hash_parts('/dev/zero', 'md5', PART, PART, 1, True)


@pytest.mark.skipif(not hasattr(os, 'mkfifo'), reason='no FIFOs on Windows')
def test_a_fifo_raises_value_error_without_waiting_for_a_writer(tmp_path):
    # Its open would wait for a writer: the FIFO is refused before it.
    fifo = tmp_path / 'fifo'
    os.mkfifo(fifo)
    with pytest.raises(ValueError, match='is not a regular file'):
        fastdigest.s3_etag(fifo)


# ---- the benchmark ----------------------------------------------------------------------------------------------

BENCH_S3 = pathlib.Path(__file__).resolve().parent.parent / 'benchmarks' / 'bench_s3.py'


@pytest.mark.skipif(not BENCH_S3.exists(), reason='benchmarks/ is not beside the tests (an installed copy)')
def test_bench_s3_runs_at_tiny_sizes(tmp_path):
    # A 12 MiB file, one round: the script checks that every case gives the same value before it times them,
    # so this keeps it working; the integrator runs the measurement itself on an idle machine.
    completed = subprocess.run(
        [sys.executable, str(BENCH_S3), '--mib', '12', '--part-mib', '5', '--rounds', '1', '--dir', str(tmp_path)]
        + ['--json'],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    cases = {(row['group'], row['case']) for row in json.loads(completed.stdout)['results']}
    assert ('ETag, one thread', 'no lanes') in cases and ('SHA-256 composite, all cores', 'hashlib on threads') in cases
    assert list(tmp_path.iterdir()) == []  # its file is removed
