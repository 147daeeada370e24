"""What each interpreter runs for tests/test_subinterpreters.py: every public name of fastdigest and
fastdigest.hmac, called in the interpreter this runs in and checked against that interpreter's own hashlib
and hmac, or, for the Arrow functions, against their definitions (docs/encoding.md, dbt's surrogate key)
computed with hashlib.

check_everything(seed) imports fastdigest itself, so that the caller decides which interpreter imports it
first, and returns a JSON text of what must agree across the interpreters of one process: the kernel
choice, the CPU features, the GIL threshold, the names checked and the error for an object that is not an
Arrow column. A mismatch raises AssertionError, which reaches the caller as the interpreter's failure. The
Arrow inputs are ctypes structs (arrow_raw), which work in subinterpreters; pyarrow is never imported.
"""

import base64
import hashlib
import hmac
import importlib
import io
import json
import os
import random
import sys
import tempfile
import warnings

from arrow_raw import RawArray, RawStream, bits, exported_stream_values, exported_values, int32s, int64s

ALGORITHMS = ('md5', 'sha1', 'sha224', 'sha256', 'sha384', 'sha512', 'sha512_224', 'sha512_256')

# Across the block boundaries of both block sizes, and above the GIL threshold (2048 bytes), from which
# fastdigest hashes with the GIL released: other interpreters run meanwhile.
SIZES = (0, 1, 55, 56, 64, 111, 112, 128, 1000, 4096, 70_000)

# Enough rows that threads=2 cuts a column into two parts (16,384 rows each at least).
SPLIT_ROWS = 40_000

# dbt_utils' token for a null in a surrogate key, fastdigest's default.
NULL_TOKEN = '_dbt_utils_surrogate_key_null_'


def expected(name, data):
    return hashlib.new(name, data).digest()


def utf8_column(values, name=None):
    """A RawArray of utf8 values (str, or None for a null)."""
    encoded = [b'' if v is None else v.encode() for v in values]
    offsets = [0]
    for value in encoded:
        offsets.append(offsets[-1] + len(value))
    validity = bits(*(v is not None for v in values))
    return RawArray(
        'u', len(values), [validity, int32s(*offsets), b''.join(encoded)], null_count=values.count(None), name=name
    )


def int64_column(values, name=None):
    """A RawArray of int64 values (int, or None for a null)."""
    numbers = int64s(*(0 if v is None else v for v in values))
    validity = bits(*(v is not None for v in values))
    return RawArray('l', len(values), [validity, numbers], null_count=values.count(None), name=name)


def record_batch(texts, numbers):
    """A record batch (a struct array) of columns 'a' (utf8) and 'b' (int64)."""
    return RawArray('+s', len(texts), [None], children=[utf8_column(texts, 'a'), int64_column(numbers, 'b')])


def row_bytes(text, number):
    """What digest_rows hashes for a row of record_batch (docs/encoding.md, field(v)): 00 for a null, else 01
    and the value, a string's with its length first as eight little-endian bytes."""
    a = b'\x00' if text is None else b'\x01' + len(text.encode()).to_bytes(8, 'little') + text.encode()
    b = b'\x00' if number is None else b'\x01' + number.to_bytes(8, 'little', signed=True)
    return a + b


def sample_texts(rng, count):
    return [None if rng.random() < 0.1 else 'ä' * rng.randrange(3) + str(rng.randrange(10**6)) for _ in range(count)]


# ---- the checks, by the public name each one calls --------------------------------------------------------

CHECKS = {}
HMAC_CHECKS = {}


def checks(*names, table=CHECKS):
    def register(function):
        for name in names:
            table[name] = function
        return function

    return register


@checks(*ALGORITHMS, 'HASH')
def check_constructors(fd, rng):
    for name in ALGORITHMS:
        for size in SIZES:
            data = rng.randbytes(size)
            h = getattr(fd, name)(data)
            assert isinstance(h, fd.HASH) and h.name == hashlib.new(name).name, (h, name)
            assert h.digest() == expected(name, data), (name, size)
            h.update(data)
            assert h.copy().hexdigest() == hashlib.new(name, data + data).hexdigest(), (name, size)


@checks('new')
def check_new(fd, rng):
    data = rng.randbytes(300)
    for name in ALGORITHMS:
        assert fd.new(name.upper(), data).digest() == expected(name, data), name
    # A name fastdigest does not implement goes to this interpreter's hashlib.
    assert fd.new('sha3_256', data).digest() == hashlib.sha3_256(data).digest()


@checks('digest', 'hexdigest')
def check_one_shots(fd, rng):
    for name in ALGORITHMS:
        data = rng.randbytes(rng.choice(SIZES))
        assert fd.digest(name, data) == expected(name, data), name
        assert fd.hexdigest(getattr(fd, name), data) == hashlib.new(name, data).hexdigest(), name


@checks('pbkdf2_hmac')
def check_pbkdf2(fd, rng):
    for name in ALGORITHMS:
        password, salt = rng.randbytes(20), rng.randbytes(16)
        want = hashlib.pbkdf2_hmac(name, password, salt, 3, 70)
        assert fd.pbkdf2_hmac(name, password, salt, 3, 70) == want, name


@checks('from_state')
def check_from_state(fd, rng):
    head, tail = rng.randbytes(100), rng.randbytes(5000)
    for name in ALGORITHMS:
        restored = fd.from_state(fd.new(name, head).state())
        restored.update(tail)
        assert restored.digest() == expected(name, head + tail), name


@checks('digest_many')
def check_digest_many(fd, rng):
    messages = [rng.randbytes(rng.randrange(300)) for _ in range(100)]
    for name in ALGORITHMS:
        assert fd.digest_many(name, messages, threads=2) == [expected(name, m) for m in messages], name


@checks('digest_files', 'file_digest')
def check_files(fd, rng):
    with tempfile.TemporaryDirectory() as folder:
        contents = [rng.randbytes(size) for size in (0, 10, 70_000, 300_000)]
        paths = [os.path.join(folder, f'{i}.bin') for i in range(len(contents))]
        for path, content in zip(paths, contents, strict=True):
            with open(path, 'wb') as f:
                f.write(content)
        for name in ALGORITHMS:
            assert fd.digest_files(name, paths, threads=2) == [expected(name, c) for c in contents], name
            with open(paths[2], 'rb') as f:
                assert fd.file_digest(f, name).digest() == expected(name, contents[2]), name
            assert fd.file_digest(io.BytesIO(contents[3]), name).digest() == expected(name, contents[3]), name


@checks('s3_etag', 's3_checksum', 's3_part_digests', 's3_etag_matches', 'S3ETagMatch')
def check_s3(fd, rng):
    part = 5 << 20
    content = rng.randbytes(2 * part + 17)
    parts = [content[i : i + part] for i in range(0, len(content), part)]
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, 'object.bin')
        with open(path, 'wb') as f:
            f.write(content)
        assert fd.s3_part_digests(path, 'sha1', part_size=part, threads=2) == [expected('sha1', p) for p in parts]
        etag = hashlib.md5(b''.join(expected('md5', p) for p in parts)).hexdigest() + '-3'
        assert fd.s3_etag(path, part_size=part, threads=2) == etag
        assert fd.s3_etag_matches(path, etag) == fd.S3ETagMatch(part, 3)
        composite = hashlib.sha256(b''.join(expected('sha256', p) for p in parts)).digest()
        assert fd.s3_checksum(path, part_size=part) == base64.b64encode(composite).decode() + '-3'


@checks('git_object_id', 'git_object_ids', 'git_tree_id')
def check_git(fd, rng):
    # Blob ids by git's object format computed with hashlib (tests/test_git.py holds them against the git
    # command), and a tree id the same in both object formats' lengths and on any threads.
    contents = [rng.randbytes(size) for size in (0, 10, 70_000)]
    with tempfile.TemporaryDirectory() as folder:
        paths = [os.path.join(folder, f'{i}.bin') for i in range(len(contents))]
        for path, content in zip(paths, contents, strict=True):
            with open(path, 'wb') as f:
                f.write(content)
        for object_format in ('sha1', 'sha256'):
            want = [hashlib.new(object_format, b'blob %d\0' % len(c) + c).hexdigest() for c in contents]
            assert fd.git_object_ids(paths, object_format=object_format, threads=2) == want, object_format
            assert fd.git_object_id(contents[2], object_format=object_format) == want[2], object_format
            assert fd.git_object_id(paths[1], object_format=object_format) == want[1], object_format
            tree = fd.git_tree_id(folder, object_format=object_format, threads=2)
            assert tree == fd.git_tree_id(folder, object_format=object_format, threads=1), object_format
            assert len(tree) == 2 * hashlib.new(object_format).digest_size, object_format


@checks('digest_tree')
def check_digest_tree(fd, rng):
    # checksumdir's format by its definition (tests/test_tree.py holds it against the package): the hex
    # digests of the files' contents, sorted, joined and hashed.
    contents = [rng.randbytes(size) for size in (0, 10, 70_000)]
    with tempfile.TemporaryDirectory() as folder:
        os.mkdir(os.path.join(folder, 'sub'))
        for i, content in enumerate(contents):
            with open(os.path.join(folder, 'sub' if i else '', f'{i}.bin'), 'wb') as f:
                f.write(content)
        for name in ('md5', 'sha256'):
            hexdigests = sorted(hashlib.new(name, c).hexdigest() for c in contents)
            want = hashlib.new(name, ''.join(hexdigests).encode()).hexdigest()
            assert fd.digest_tree(name, folder, format='checksumdir', threads=2) == want, name
            assert fd.digest_tree(name, folder, threads=2) == fd.digest_tree(name, folder, threads=1), name


@checks('json_digest', 'json_digest_many')
def check_json(fd, rng):
    objs = [{'b': [1, 2.5, None, True], 'a': 'ä' * rng.randrange(3), 'n': rng.randrange(10**12)} for _ in range(20)]
    for name in ALGORITHMS:
        want = [expected(name, json.dumps(obj, sort_keys=True).encode()) for obj in objs]
        assert [fd.json_digest(name, obj, sort_keys=True) for obj in objs] == want, name
        assert fd.json_digest_many(name, objs, sort_keys=True) == want, name


@checks('fingerprint')
def check_fingerprint(fd, rng):
    # Against the reference encoder of docs/fingerprint.md (tests/fingerprint_reference.py, plain Python).
    import fingerprint_reference

    values = [{'a': [1, 'x', 2.5, None], 'b': (b'y', {3, 4})}, [rng.randrange(2**70) for _ in range(10)], 'ä']
    for value in values:
        for name in ALGORITHMS:
            assert fd.fingerprint(name, value) == expected(name, fingerprint_reference.encode(value)), name


@checks('digest_array', 'DigestArray', 'DigestStream')
def check_digest_array(fd, rng):
    # A RawArray is consumed by one import: a new one for each call.
    texts = sample_texts(rng, 300)
    for name in ALGORITHMS:
        want = [None if t is None else expected(name, t.encode()) for t in texts]
        result = fd.digest_array(name, utf8_column(texts))
        assert type(result) is fd.DigestArray and len(result) == len(texts), (name, result)
        assert exported_values(result) == want, name
        hex_result = fd.digest_array(name, utf8_column(texts), hex=True)
        assert exported_values(hex_result) == [None if d is None else d.hex().encode() for d in want], name
    # On two threads of the C core's own, with the GIL released.
    texts = sample_texts(rng, SPLIT_ROWS)
    result = fd.digest_array('sha1', utf8_column(texts), threads=2)
    assert exported_values(result) == [None if t is None else expected('sha1', t.encode()) for t in texts]
    halves = RawStream([utf8_column(texts[:100]), utf8_column(texts[100:300])])
    stream = fd.digest_array('sha256', halves)
    assert type(stream) is fd.DigestStream and len(stream) == 300, stream
    want = [None if t is None else expected('sha256', t.encode()) for t in texts[:300]]
    assert exported_stream_values(stream) == [want[:100], want[100:]]


@checks('digest_rows')
def check_digest_rows(fd, rng):
    texts = sample_texts(rng, 500)
    numbers = [None if rng.random() < 0.1 else rng.randrange(-(2**63), 2**63) for _ in texts]
    for name in ALGORITHMS:
        result = fd.digest_rows(name, record_batch(texts, numbers), ['a', 'b'], threads=2)
        assert exported_values(result) == [
            expected(name, row_bytes(t, n)) for t, n in zip(texts, numbers, strict=True)
        ], name


@checks('surrogate_key')
def check_surrogate_key(fd, rng):
    texts = sample_texts(rng, 500)
    numbers = [None if rng.random() < 0.1 else rng.randrange(-(2**63), 2**63) for _ in texts]
    keys = exported_values(fd.surrogate_key(record_batch(texts, numbers), ['a', 'b']))
    for key, text, number in zip(keys, texts, numbers, strict=True):
        joined = '-'.join(NULL_TOKEN if v is None else str(v) for v in (text, number))
        assert key.decode() == hashlib.md5(joined.encode()).hexdigest(), (text, number)


@checks('implementation', 'batch_implementation', 'cpu_features')
def check_kernel_names(fd, rng):
    for kernels in (fd.implementation, fd.batch_implementation):
        assert sorted(kernels) == sorted(ALGORITHMS) and all(isinstance(k, str) for k in kernels.values()), kernels
    assert isinstance(fd.cpu_features, frozenset), fd.cpu_features


@checks('self_test', 'SelfTestReport', 'KernelReport')
def check_self_test(fd, rng):
    # Every kernel of this CPU against this interpreter's hashlib and hmac, from this interpreter.
    report = fd.self_test(seed=rng.randrange(2**32))
    assert isinstance(report, fd.SelfTestReport) and report.passed, report
    assert report.kernels and all(isinstance(kernel, fd.KernelReport) for kernel in report.kernels)
    assert any(kernel.ran for kernel in report.kernels)


@checks('get_include')
def check_get_include(fd, rng):
    # The C API's header is in the folder, and every interpreter has the capsule it declares.
    assert os.path.isfile(os.path.join(fd.get_include(), 'fastdigest.h'))
    assert type(fd._fastdigest._C_API).__name__ == 'PyCapsule'


@checks('get_gil_minsize', 'set_gil_minsize')
def check_gil_minsize(fd, rng):
    # The threshold is the process's, shared with the other interpreters running beside this one: set to
    # what it is, so that none of them sees it change.
    current = fd.get_gil_minsize()
    assert fd.set_gil_minsize(current) == current


@checks('algorithms_available', 'algorithms_guaranteed')
def check_algorithm_sets(fd, rng):
    assert fd.algorithms_guaranteed == hashlib.algorithms_guaranteed
    assert fd.algorithms_available >= hashlib.algorithms_available | set(ALGORITHMS)


@checks('blake2b', 'blake2s', 'sha3_224', 'sha3_256', 'sha3_384', 'sha3_512', 'shake_128', 'shake_256', 'scrypt')
def check_passed_through(fd, rng):
    # hashlib's own objects, of this interpreter's hashlib.
    for name in CHECKS:
        if CHECKS[name] is check_passed_through and hasattr(hashlib, name):
            assert getattr(fd, name) is getattr(hashlib, name), name
    assert fd.blake2b(b'abc').digest() == hashlib.blake2b(b'abc').digest()


@checks('HMAC', 'new', 'digest', table=HMAC_CHECKS)
def check_hmac(fd, rng):
    for name in ALGORITHMS:
        key, message = rng.randbytes(rng.choice((0, 20, 200))), rng.randbytes(rng.choice(SIZES))
        want = hmac.new(key, message, name).digest()
        h = fd.hmac.new(key, message, name)
        assert isinstance(h, fd.hmac.HMAC) and h.digest() == want, name
        assert fd.hmac.HMAC(key, message, digestmod=getattr(hashlib, name, name)).digest() == want, name
        assert fd.hmac.digest(key, message, name) == want, name
    # A digestmod fastdigest does not implement goes to this interpreter's hmac.
    assert fd.hmac.new(b'k', b'm', 'sha3_256').digest() == hmac.new(b'k', b'm', 'sha3_256').digest()


@checks('digest_many', table=HMAC_CHECKS)
def check_hmac_digest_many(fd, rng):
    key = rng.randbytes(rng.randrange(200))
    messages = [rng.randbytes(rng.randrange(300)) for _ in range(100)]
    for name in ALGORITHMS:
        want = [hmac.digest(key, m, name) for m in messages]
        assert fd.hmac.digest_many(key, messages, name, threads=2) == want, name


@checks('compare_digest', 'digest_size', 'trans_36', 'trans_5C', table=HMAC_CHECKS)
def check_hmac_names(fd, rng):
    assert fd.hmac.compare_digest(b'abc', b'abc') and not fd.hmac.compare_digest(b'abc', b'abd')
    assert fd.hmac.digest_size is hmac.digest_size is None
    assert fd.hmac.trans_36 == hmac.trans_36 and fd.hmac.trans_5C == hmac.trans_5C


def check_everything(seed, rounds=30):
    """Imports fastdigest, runs every check and then `rounds` more hashes of random algorithms and sizes;
    returns a JSON text of what the other interpreters of the process must agree with."""
    import fastdigest
    import fastdigest.hmac

    rng = random.Random(seed)
    unchecked = set(fastdigest.__all__) - set(CHECKS), set(fastdigest.hmac.__all__) - set(HMAC_CHECKS)
    assert unchecked == (set(), set()), f'public names with no check here: {unchecked}'
    for table, names in ((CHECKS, fastdigest.__all__), (HMAC_CHECKS, fastdigest.hmac.__all__)):
        for function in dict.fromkeys(table[name] for name in names):
            function(fastdigest, rng)
    for _ in range(rounds):
        name, data = rng.choice(ALGORITHMS), rng.randbytes(rng.choice(SIZES))
        assert fastdigest.new(name, data).digest() == expected(name, data), (name, len(data))
    try:
        fastdigest.digest_array('sha256', [b'not', b'an', b'arrow', b'column'])
    except TypeError as error:
        not_arrow = str(error)
    else:
        raise AssertionError('digest_array took a list')
    return json.dumps(
        {
            'implementation': fastdigest.implementation,
            'batch_implementation': fastdigest.batch_implementation,
            'cpu_features': sorted(fastdigest.cpu_features),
            'gil_minsize': fastdigest.get_gil_minsize(),
            'checked': sorted(fastdigest.__all__) + sorted('hmac.' + n for n in fastdigest.hmac.__all__),
            'not_arrow': not_arrow,
            'pyarrow_imported': 'pyarrow' in sys.modules,
        }
    )


# ---- the other calls of tests/subinterpreter_program.py ---------------------------------------------------


def import_error(index=None):
    """The ImportError that importing fastdigest raises here, as text, or the kernel choice
    (fastdigest.implementation) as JSON when it imports."""
    try:
        import fastdigest
    except ImportError as error:
        return f'{type(error).__name__}: {error}'
    return json.dumps(fastdigest.implementation)


def process_settings(index=None):
    """What the process shares, as this interpreter's fastdigest reads it: JSON of the GIL threshold and
    the kernel choice."""
    import fastdigest

    return json.dumps({'gil_minsize': fastdigest.get_gil_minsize(), 'implementation': fastdigest.implementation})


def arrow_library_in_subinterpreter(library, index=None):
    """digest_array of a column that library ('pyarrow' or 'polars') makes, against hashlib, as JSON with the
    library's version; or, where the library does not work in this interpreter, what it raised and warned."""
    values = [b'a', None, b'bc' * 1000]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        try:
            module = importlib.import_module(library)
            column = module.array(values) if library == 'pyarrow' else module.Series(values, dtype=module.Binary)
        except Exception as error:  # noqa: BLE001 - reported: the test says why it skips
            failure = f'{type(error).__name__}: {error}'
            return json.dumps({'failure': failure, 'warnings': [str(w.message) for w in caught]})
    import fastdigest

    result = fastdigest.digest_array('sha256', column)
    if isinstance(result, fastdigest.DigestArray):
        digests = exported_values(result)
    else:
        digests = [digest for chunk in exported_stream_values(result) for digest in chunk]
    assert digests == [None if v is None else expected('sha256', v) for v in values], digests
    return json.dumps({'version': module.__version__})
