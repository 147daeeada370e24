"""digest_many(name, messages, out=buffer) and the rows of a 2-D buffer as messages, against hashlib.

With out=, the digests are written one after another into the caller's buffer (any writable C-contiguous buffer of
exactly n x digest_size bytes, of any shape and item size) and out is returned. A 2-D buffer whose rows are each
contiguous is n messages of its rows' bytes, read in place. Every error is checked word for word: out's as Argument
Clinic's read-write buffer converter words them (readinto(), recv_into()), a wrong size, a message that shares
memory with out, and the errors a messages object that is not such a buffer still gets by being iterated, as
before. The batches mix lengths from empty to several blocks, so that lanes end at different blocks; the large ones
go through the threads, chunk by chunk and pipelined (tests/test_batch.py says where those thresholds are).
"""

import array
import ctypes
import hashlib
import mmap
import random
import re
import sys
import threading
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fastdigest
from conftest import ALGORITHMS, BYTEARRAY_EXPORTS_RACE, BYTEARRAY_EXPORTS_RACE_REASON, FREE_THREADED, examples

try:
    import numpy as np
except ImportError:  # numpy comes with pandas, in the test-arrow extra
    np = None

needs_numpy = pytest.mark.skipif(np is None, reason='numpy (with pandas, in the test-arrow extra) is not installed')
DIGEST_SIZES = {name: hashlib.new(name).digest_size for name in ALGORITHMS}
BLOCK_SIZES = {name: hashlib.new(name).block_size for name in ALGORITHMS}
# A batch long enough for every path of the threads: pipelined with two or more threads (each message counts at
# least a block of work, and a thread is worth 1 MiB), chunk by chunk with one.
THREADED_COUNT = 40_001
THREAD_COUNTS = (1, 2, 3, None)


def joined(name, messages):
    return b''.join(hashlib.new(name, bytes(m)).digest() for m in messages)


def random_messages(rng, count, max_len):
    return [rng.randbytes(rng.randrange(max_len + 1)) for _ in range(count)]


def out_buffer(kind, count, digest_size):
    """A zeroed writable buffer of count * digest_size bytes of the given kind, and a function that reads its
    bytes back."""
    size = count * digest_size
    if kind == 'bytearray':
        out = bytearray(size)
    elif kind == 'memoryview':
        out = memoryview(bytearray(size))
    elif kind == 'memoryview slice':
        # A slice in the middle of a larger buffer: nothing before or after it may be written.
        backing = bytearray(b'\xee' * (size + 10))
        out = memoryview(backing)[3 : 3 + size]
        return out, lambda: (bytes(backing[:3]), bytes(backing[3 + size :]), out.tobytes())
    elif kind == 'array':
        out = array.array('B', bytes(size))
    elif kind == 'numpy (n, digest_size)':
        out = np.zeros((count, digest_size), dtype=np.uint8)
    elif kind == 'numpy flat':
        out = np.zeros(size, dtype=np.uint8)
    elif kind == 'numpy uint32 (n, digest_size / 4)':
        out = np.zeros((count, digest_size // 4), dtype=np.uint32)
    else:
        raise AssertionError(kind)
    return out, lambda: bytes(out)


OUT_KINDS = ['bytearray', 'memoryview', 'memoryview slice', 'array']
if np is not None:
    OUT_KINDS += ['numpy (n, digest_size)', 'numpy flat', 'numpy uint32 (n, digest_size / 4)']


def check_out(name, messages, kind, threads=None, source=None):
    """digest_many(name, source or messages, out=) of a buffer of this kind: it returns out itself, holding each
    message's digest in order, and writes nothing beside it."""
    count = len(messages)
    out, read_back = out_buffer(kind, count, DIGEST_SIZES[name])
    assert fastdigest.digest_many(name, messages if source is None else source, threads=threads, out=out) is out
    written = read_back()
    if kind == 'memoryview slice':
        before, after, written = written
        assert before == b'\xee' * 3 and after == b'\xee' * 7
    assert written == joined(name, messages)


# ---- out= -------------------------------------------------------------------------------------------------------


@settings(max_examples=examples(80), deadline=None)
@given(
    name=st.sampled_from(ALGORITHMS),
    lengths=st.lists(st.integers(0, 5 * 128 + 3), max_size=60),
    kind=st.sampled_from(OUT_KINDS),
    threads=st.one_of(st.none(), st.integers(1, 4)),
    seed=st.integers(0, 2**32),
)
def test_out_matches_hashlib(name, lengths, kind, threads, seed):
    # Any mix of lengths, empty to five blocks, in one batch (lanes end at different blocks), into out= of every
    # accepted kind.
    rng = random.Random(seed)
    check_out(name, [rng.randbytes(n) for n in lengths], kind, threads)


@pytest.mark.parametrize('kind', OUT_KINDS)
def test_out_of_every_kind(algorithm, kind):
    rng = random.Random(1)
    check_out(algorithm, random_messages(rng, 77, 4 * BLOCK_SIZES[algorithm] + 1), kind)


@pytest.mark.threads
@pytest.mark.parametrize('threads', THREAD_COUNTS)
def test_out_with_threads(algorithm, threads):
    # Through the pipeline (2 threads and more) and chunk by chunk (1), with other buffer types among the bytes.
    rng = random.Random(2)
    messages = random_messages(rng, THREADED_COUNT, 150)
    for position in (0, 2047, 2048, 30_000, THREADED_COUNT - 1):
        messages[position] = bytearray(messages[position])
    check_out(algorithm, messages, 'bytearray', threads)
    check_out(algorithm, messages, 'memoryview slice', threads, source=tuple(messages))


@pytest.mark.threads
def test_out_with_long_messages_on_threads():
    # Few messages, each long: one chunk cut into pieces for the threads, written into out=.
    rng = random.Random(3)
    messages = [rng.randbytes(2 << 20), b'', rng.randbytes((1 << 20) + 5), rng.randbytes(100)]
    for threads in THREAD_COUNTS:
        check_out('sha256', messages, 'bytearray', threads)


def test_out_is_returned_for_an_empty_batch():
    out = bytearray()
    assert fastdigest.digest_many('md5', [], out=out) is out
    assert fastdigest.digest_many('md5', iter([]), out=memoryview(out)) is not None
    assert fastdigest.digest_many('md5', [], out=None) == []


def test_out_accepts_a_writable_mmap(tmp_path):
    path = tmp_path / 'digests'
    path.write_bytes(bytes(3 * 32))
    messages = [b'a', b'bb', b'ccc']
    with open(path, 'r+b') as file, mmap.mmap(file.fileno(), 0) as mapped:
        assert fastdigest.digest_many('sha256', messages, out=mapped) is mapped
        mapped.flush()
    assert path.read_bytes() == joined('sha256', messages)


@needs_numpy
def test_out_rows_of_a_numpy_array_are_the_digests():
    messages = [b'first', b'second', b'third']
    out = np.empty((3, 20), dtype=np.uint8)
    fastdigest.digest_many('sha1', messages, out=out)
    assert [row.tobytes() for row in out] == [hashlib.sha1(m).digest() for m in messages]


def readonly_numpy():
    array = np.zeros((2, 32), dtype=np.uint8)
    array.flags.writeable = False
    return array


def read_write_message(type_name):
    return "digest_many() argument 'out' must be read-write bytes-like object, not %s" % type_name


@pytest.mark.parametrize(
    'make_out, type_name',
    [
        (lambda: bytes(64), 'bytes'),
        (lambda: memoryview(bytes(64)), 'memoryview'),
        (lambda: memoryview(bytearray(64)).toreadonly(), 'memoryview'),
        (lambda: [0] * 64, 'list'),
        (lambda: 'x' * 64, 'str'),
        (lambda: 64, 'int'),
        (lambda: object(), 'object'),
        pytest.param(readonly_numpy, 'numpy.ndarray', marks=needs_numpy),
    ],
    ids=['bytes', 'memoryview of bytes', 'read-only memoryview', 'list', 'str', 'int', 'object', 'read-only numpy'],
)
def test_out_must_be_writable(make_out, type_name):
    # Read-only or no buffer at all: Argument Clinic's words for a read-write buffer argument, as readinto() and
    # recv_into() say them.
    with pytest.raises(TypeError, match='^%s$' % re.escape(read_write_message(type_name))):
        fastdigest.digest_many('sha256', [b'a', b'b'], out=make_out())


def test_out_read_only_words_are_cpythons():
    # The same phrase as CPython's own read-write buffer arguments.
    import io

    with pytest.raises(TypeError) as cpython_words:
        io.BytesIO(b'x').readinto(b'x')
    assert str(cpython_words.value).endswith('must be read-write bytes-like object, not bytes')


@pytest.mark.parametrize(
    'make_out, type_name',
    [
        (lambda: memoryview(bytearray(128))[::2], 'memoryview'),
        pytest.param(lambda: np.zeros((2, 64), dtype=np.uint8)[:, ::2], 'numpy.ndarray', marks=needs_numpy),
        pytest.param(lambda: np.zeros((32, 2), dtype=np.uint8, order='F'), 'numpy.ndarray', marks=needs_numpy),
    ],
    ids=['strided memoryview', 'strided numpy', 'Fortran-order numpy'],
)
def test_out_must_be_c_contiguous(make_out, type_name):
    # Writable but not C-contiguous: Argument Clinic's contiguity words (the digests go one after another).
    message = "digest_many() argument 'out' must be contiguous buffer, not %s" % type_name
    with pytest.raises(TypeError, match='^%s$' % re.escape(message)):
        fastdigest.digest_many('sha256', [b'a', b'b'], out=make_out())


@pytest.mark.parametrize('size', [0, 1, 63, 65, 96, 6400])
def test_out_must_be_exactly_the_digests(size):
    out = bytearray(b'\x01' * size)
    message = "digest_many() argument 'out' must be 64 bytes long (2 digests of 32 bytes), not %d" % size
    with pytest.raises(ValueError, match='^%s$' % re.escape(message)):
        fastdigest.digest_many('sha256', [b'a', b'b'], out=out)
    # Checked before anything is hashed: out is as it was.
    assert out == b'\x01' * size


def test_out_size_counts_the_item_size():
    # The total byte length counts, whatever the item size: 2 x 16 bytes of MD5 in eight 4-byte items.
    out = array.array('I', bytes(32))
    assert fastdigest.digest_many('md5', [b'a', b'b'], out=out) is out
    assert out.tobytes() == joined('md5', [b'a', b'b'])
    with pytest.raises(ValueError, match=r'must be 48 bytes long \(3 digests of 16 bytes\), not 32$'):
        fastdigest.digest_many('md5', [b'a', b'b', b'c'], out=out)


def test_out_is_checked_before_the_messages_are_read():
    consumed = []

    def messages():
        consumed.append(True)
        yield b'a'

    with pytest.raises(TypeError, match='read-write'):
        fastdigest.digest_many('md5', messages(), out=b'')
    assert consumed == []


def test_out_is_held_from_the_start():
    # The buffer is exported while the messages are gathered, and until the call returns: a generator that
    # tries to resize out fails, and afterwards out can be resized again.
    out = bytearray(16)

    def messages():
        out.extend(b'more')
        yield b'a'

    with pytest.raises(BufferError):
        fastdigest.digest_many('md5', messages(), out=out)
    assert len(out) == 16
    out.extend(b'more')


def test_a_bad_item_with_out():
    out = bytearray(3 * 32)
    with pytest.raises(TypeError, match=r'^digest_many\(\) item 1: Strings must be encoded before hashing$'):
        fastdigest.digest_many('sha256', [b'a', 'b', b'c'], out=out)
    out.extend(b'!')  # no export left behind


@pytest.mark.threads
@pytest.mark.skipif(BYTEARRAY_EXPORTS_RACE, reason=BYTEARRAY_EXPORTS_RACE_REASON)
def test_out_cannot_be_resized_while_threads_write_it():
    # Another thread keeps trying to resize out while the call's threads write it: out is held (exported) for
    # the whole call, so every resize during the call is refused with BufferError, the digests are right, and
    # without the export a resize would move the digests' memory under the threads (under AddressSanitizer, a
    # use after free).
    rng = random.Random(4)
    messages = random_messages(rng, THREADED_COUNT, 100)
    want = joined('sha256', messages)
    out = bytearray(len(want))
    stop, calling = threading.Event(), threading.Event()
    refused_during_calls = []

    def resize():
        while not stop.is_set():
            try:
                out.extend(b'!')
            except BufferError:
                if calling.is_set():
                    refused_during_calls.append(True)
            else:
                del out[len(want) :]

    switch_interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    thread = threading.Thread(target=resize)
    thread.start()
    try:
        for _ in range(5):
            while True:
                # Between calls the other thread may have just extended out: wait until it is the right size.
                try:
                    calling.set()
                    result = fastdigest.digest_many('sha256', messages, threads=2, out=out)
                    break
                except ValueError:
                    calling.clear()
            calling.clear()
            assert result is out
            # The other thread may have appended a byte since, which it takes off again.
            assert bytes(out)[: len(want)] == want
    finally:
        stop.set()
        thread.join()
        sys.setswitchinterval(switch_interval)
    # The other thread ran during the calls and found out exported: without the export it never would.
    assert refused_during_calls


# ---- messages that share memory with out -------------------------------------------------------------------------


def test_an_item_sharing_memory_with_out_is_refused():
    # A message in out's memory would be read by some lane or thread after digests were written over it, or
    # before, depending on the threads: refused, naming the first such item, before anything is hashed from it.
    backing = bytearray(200)
    out = memoryview(backing)[:64]
    for messages, index in [
        ([b'a', backing], 1),  # out is a slice of the item
        ([b'a', b'b'], None),
        ([memoryview(backing)[100:], memoryview(backing)[50:70]], 1),  # the second overlaps out's end
        ([memoryview(backing)[63:65], b'x'], 0),  # one byte of it is out's last
        ([memoryview(backing)[64:80], b'x'], None),  # right after out: no byte shared
        ([b'', memoryview(backing)[10:10]], None),  # an empty message shares nothing
    ]:
        if index is None:
            assert fastdigest.digest_many('sha256', messages, out=out) is out
            assert out.tobytes() == joined('sha256', messages)
            continue
        message = "digest_many() item %d shares memory with argument 'out'" % index
        with pytest.raises(ValueError, match='^%s$' % re.escape(message)):
            fastdigest.digest_many('sha256', messages, out=out)
        backing.extend(b'')  # no export left behind
    # out itself as a message.
    whole = bytearray(64)
    with pytest.raises(ValueError, match=r'^digest_many\(\) item 1 shares memory'):
        fastdigest.digest_many('sha256', [b'', whole], out=whole)


def test_the_first_problem_in_order_is_reported():
    backing = bytearray(96)
    shared = memoryview(backing)[:1]
    with pytest.raises(TypeError, match=r'^digest_many\(\) item 1: '):
        fastdigest.digest_many('sha256', [b'a', 5, shared], out=backing)
    with pytest.raises(ValueError, match=r'^digest_many\(\) item 1 shares memory'):
        fastdigest.digest_many('sha256', [b'a', shared, 5], out=backing)


@pytest.mark.threads
def test_sharing_memory_in_a_later_chunk_with_threads():
    # The chunks before are hashed by then (out holds their digests); the error still names the item.
    backing = bytearray(THREADED_COUNT * 20 + 10)
    out = memoryview(backing)[: THREADED_COUNT * 20]
    messages = [b'x' * 64] * THREADED_COUNT
    messages[30_000] = memoryview(backing)[THREADED_COUNT * 20 - 5 :]
    for threads in THREAD_COUNTS:
        with pytest.raises(ValueError, match=r'^digest_many\(\) item 30000 shares memory'):
            fastdigest.digest_many('sha1', messages, threads=threads, out=out)


@needs_numpy
def test_rows_sharing_memory_with_out_are_refused():
    def refused(index, name, rows, out):
        message = "digest_many() item %d shares memory with argument 'out'" % index
        with pytest.raises(ValueError, match='^%s$' % re.escape(message)):
            fastdigest.digest_many(name, rows, out=out)

    # Rows that follow one another: out covers rows 4..7 of the very array whose rows 0..7 are the messages.
    block = np.zeros(20 * 32, dtype=np.uint8)
    refused(4, 'sha256', block[: 8 * 32].reshape(8, 32), block[4 * 32 : 12 * 32])
    # Out from inside row 2 of rows of 30 bytes, and out from before the rows into row 0.
    flat = np.zeros(1000, dtype=np.uint8)
    refused(2, 'md5', flat[:300].reshape(10, 30), flat[70:230])
    refused(0, 'md5', flat[10:310].reshape(10, 30), flat[:160])
    # Rows after out, or before it, share nothing.
    assert fastdigest.digest_many('md5', flat[32:92].reshape(2, 30), out=flat[:32]) is not None
    assert fastdigest.digest_many('md5', flat[:60].reshape(2, 30), out=flat[60:92]) is not None
    # Rows picked at a stride (the first 16 bytes of every other row of 32): the bytes between them are no
    # messages, and out may lie there; a byte of a row may not.
    grid = np.zeros((20, 32), dtype=np.uint8)
    messages = grid[::2, :16][:2]  # bytes 0..15 and 64..79
    assert fastdigest.digest_many('md5', messages, out=grid.reshape(-1)[16:48]) is not None
    refused(1, 'md5', messages, grid.reshape(-1)[50:82])
    refused(0, 'md5', messages, grid.reshape(-1)[15:47])
    assert fastdigest.digest_many('md5', messages, out=grid.reshape(-1)[80:112]) is not None


# ---- the rows of a 2-D buffer --------------------------------------------------------------------------------------


def rows_from(kind, data, count, width):
    """A 2-D buffer of count rows of width bytes of data, as rows_kind has them."""
    if kind == 'memoryview':
        return memoryview(bytearray(data)).cast('B', (count, width))
    if kind == 'numpy':
        return np.frombuffer(data, dtype=np.uint8).reshape(count, width).copy()
    if kind == 'numpy read-only':
        return np.frombuffer(data, dtype=np.uint8).reshape(count, width)
    raise AssertionError(kind)


ROWS_KINDS = ['memoryview'] + (['numpy', 'numpy read-only'] if np is not None else [])


def rows_of(rows):
    """Each row's bytes, as hashlib reads a row."""
    if isinstance(rows, memoryview):
        width = rows.shape[1] * rows.itemsize
        flat = rows.tobytes()
        return [flat[i * width : (i + 1) * width] for i in range(rows.shape[0])]
    return [row.tobytes() for row in rows]


@settings(max_examples=examples(60), deadline=None)
@given(
    name=st.sampled_from(ALGORITHMS),
    count=st.integers(0, 70),
    width=st.integers(0, 4 * 128 + 2),
    kind=st.sampled_from(ROWS_KINDS),
    to_out=st.booleans(),
    threads=st.one_of(st.none(), st.integers(1, 4)),
    seed=st.integers(0, 2**32),
)
def test_rows_match_hashlib(name, count, width, kind, to_out, threads, seed):
    if kind == 'memoryview':
        # memoryview.cast() makes no shape with a zero in it (NumPy does: test_rows_of_every_layout).
        count, width = max(count, 1), max(width, 1)
    rows = rows_from(kind, random.Random(seed).randbytes(count * width), count, width)
    messages = rows_of(rows)
    if to_out:
        check_out(name, messages, 'bytearray', threads, source=rows)
    else:
        assert fastdigest.digest_many(name, rows, threads=threads) == [hashlib.new(name, m).digest() for m in messages]


@needs_numpy
def test_rows_of_every_layout():
    # Rows picked at a stride, reversed, cut short, of wider items, sliding windows over one buffer: each row's
    # bytes, as a loop over the array hashes them.
    rng = random.Random(5)
    base = np.frombuffer(rng.randbytes(40 * 96), dtype=np.uint8).reshape(40, 96)
    for rows in (
        base,
        base[::3],
        base[::-1],
        base[5:30, 10:70],
        base[:, :0],
        base[:0],
        base.view(np.uint32),
        base.view(np.uint64)[::2, 1:5],
        np.lib.stride_tricks.sliding_window_view(base.reshape(-1)[:500], 64)[::7],  # rows that overlap
        np.broadcast_to(base[0], (9, 96)),  # the same row nine times (stride 0)
    ):
        want = [hashlib.sha256(row).digest() for row in rows]
        assert fastdigest.digest_many('sha256', rows) == want
        out = np.empty((len(rows), 32), dtype=np.uint8)
        fastdigest.digest_many('sha256', rows, out=out)
        assert [row.tobytes() for row in out] == want


@pytest.mark.threads
@needs_numpy
@pytest.mark.parametrize('threads', THREAD_COUNTS)
def test_rows_with_threads(algorithm, threads):
    # Rows into out: no Python per chunk, the pipeline's producer runs without the GIL; rows into a list.
    rng = random.Random(6)
    rows = np.frombuffer(rng.randbytes(THREADED_COUNT * 64), dtype=np.uint8).reshape(THREADED_COUNT, 64)
    want = [hashlib.new(algorithm, row).digest() for row in rows]
    out = np.empty((THREADED_COUNT, DIGEST_SIZES[algorithm]), dtype=np.uint8)
    assert fastdigest.digest_many(algorithm, rows, threads=threads, out=out) is out
    assert out.tobytes() == b''.join(want)
    assert fastdigest.digest_many(algorithm, rows[::-1], threads=threads) == want[::-1]


@needs_numpy
def test_rows_as_iterating_the_array_gave_them():
    # digest_many iterated a NumPy array before it read 2-D buffers in place: the digests are the same.
    rng = random.Random(7)
    rows = np.frombuffer(rng.randbytes(50 * 40), dtype=np.uint8).reshape(50, 40)
    assert fastdigest.digest_many('md5', rows) == fastdigest.digest_many('md5', list(rows))
    assert fastdigest.digest_many('md5', rows) == fastdigest.digest_many('md5', iter(rows))


def test_rows_are_held_for_the_call():
    backing = bytearray(b'abcdef')
    rows = memoryview(backing).cast('B', (3, 2))
    assert fastdigest.digest_many('sha1', rows) == [hashlib.sha1(m).digest() for m in (b'ab', b'cd', b'ef')]
    rows.release()
    backing.extend(b'!')  # no export left behind


def test_buffers_that_are_not_2d_are_iterated_as_before():
    # A 1-D buffer is an iterable of its items, as it always was: bytes give ints, which are no messages.
    with pytest.raises(TypeError, match=r'^digest_many\(\) item 0: object supporting the buffer API required$'):
        fastdigest.digest_many('sha256', b'abc')
    with pytest.raises(TypeError, match=r'^digest_many\(\) item 0: object supporting the buffer API required$'):
        fastdigest.digest_many('sha256', bytearray(b'abc'), out=bytearray(96))
    # A 3-D memoryview cannot be iterated.
    with pytest.raises(NotImplementedError, match='^multi-dimensional sub-views are not implemented$'):
        fastdigest.digest_many('sha256', memoryview(bytearray(8)).cast('B', (2, 2, 2)))
    # A list or tuple is never taken for a buffer.
    assert fastdigest.digest_many('md5', [b'ab', b'cd']) == [hashlib.md5(m).digest() for m in (b'ab', b'cd')]


@needs_numpy
def test_numpy_arrays_that_are_not_rows_are_iterated_as_before():
    # 1-D: each element is a message of its bytes (NumPy scalars export buffers).
    elements = np.arange(5, dtype=np.uint16)
    assert fastdigest.digest_many('md5', elements) == [hashlib.md5(e).digest() for e in elements]
    # 3-D: each item is a 2-D array, hashed whole as hashlib hashes it.
    cube = np.arange(3 * 4 * 5, dtype=np.uint8).reshape(3, 4, 5)
    assert fastdigest.digest_many('md5', cube) == [hashlib.md5(matrix).digest() for matrix in cube]
    # 2-D with rows that are not contiguous: each row is refused as hashlib refuses it.
    with pytest.raises(ValueError) as reference:
        hashlib.md5(np.zeros((3, 3), dtype=np.uint8).T[0])
    for rows in (np.zeros((3, 3), dtype=np.uint8).T, np.zeros((3, 6), dtype=np.uint8)[:, ::2]):
        with pytest.raises(ValueError, match='^%s$' % re.escape('digest_many() item 0: %s' % reference.value)):
            fastdigest.digest_many('md5', rows)
        # And as a memoryview, which cannot be iterated.
        with pytest.raises(NotImplementedError, match='^multi-dimensional sub-views are not implemented$'):
            fastdigest.digest_many('md5', memoryview(rows))


@pytest.mark.skipif(sys.version_info < (3, 12), reason='a Python class exports a buffer from 3.12 on (PEP 688)')
def test_an_exporter_that_refuses_a_strided_view_is_iterated():
    class Refusing:
        def __buffer__(self, flags):
            raise BufferError('no strided view')

        def __iter__(self):
            return iter([b'a', b'b'])

    assert fastdigest.digest_many('md5', Refusing()) == [hashlib.md5(b'a').digest(), hashlib.md5(b'b').digest()]

    class Interrupting(Refusing):
        def __buffer__(self, flags):
            raise KeyError('not a refusal')

    with pytest.raises(KeyError, match='not a refusal'):
        fastdigest.digest_many('md5', Interrupting())


@needs_numpy
def test_numbers_of_rows_beyond_any_out():
    # A zero-stride view may claim more rows than any buffer could hold digests for.
    rows = np.lib.stride_tricks.as_strided(np.zeros(1, dtype=np.uint8), shape=(2**60, 1), strides=(0, 1))
    message = "digest_many() argument 'out' must be %d digests of 32 bytes, more than a buffer can hold" % 2**60
    with pytest.raises(ValueError, match='^%s$' % re.escape(message)):
        fastdigest.digest_many('sha256', rows, out=bytearray(32))


# ---- a list into out=: held stretches ------------------------------------------------------------------------------
#
# A list of exact bytes into out= is hashed in held stretches: runs of chunks during which the calling thread keeps
# the GIL and takes no reference to the items, about 4 MiB of work for each thread hashing (each message counting its
# length and a block), the GIL released between two. On several threads each thread locates the chunks it takes as
# well as hashing them. A chunk of more than half a MiB of work (longer messages), or with an item that is not
# exactly bytes or that shares memory with out, goes the usual way, with references; an item that is not exactly
# bytes makes the rest of the batch a snapshot of the list.

STRETCH_ITEMS = {
    'short': lambda rng: rng.randbytes(rng.randrange(101)),  # chunks of them go in stretches
    'medium': lambda rng: rng.randbytes(
        rng.randrange(200, 701)
    ),  # 2048 of them are too much work for a stretch's chunk
    'long': lambda rng: rng.randbytes((1 << 20) + rng.randrange(200)),  # more than a thread's stretch alone
    'bytearray': lambda rng: bytearray(rng.randbytes(rng.randrange(101))),  # the rest of the batch from a snapshot
    'memoryview': lambda rng: memoryview(rng.randbytes(rng.randrange(101))),
}


@pytest.mark.threads
@settings(max_examples=examples(25), deadline=None)
@given(
    name=st.sampled_from(ALGORITHMS),
    runs=st.lists(st.tuples(st.sampled_from(sorted(STRETCH_ITEMS)), st.integers(1, 6000)), min_size=1, max_size=8),
    kind=st.sampled_from([kind for kind in OUT_KINDS if kind in ('bytearray', 'numpy (n, digest_size)')]),
    seed=st.integers(0, 2**32),
)
def test_a_list_into_out_in_held_stretches(name, runs, kind, seed):
    # Runs of items of each kind, long ones (one or two) and items that are not bytes (one) among runs of short and
    # medium ones, padded with short ones to a batch long enough for the pipeline on two threads: the same digests
    # chunk by chunk and pipelined, whichever way each chunk went.
    rng = random.Random(seed)
    messages = []
    for what, count in runs:
        count = {'long': 1 + count % 2, 'bytearray': 1, 'memoryview': 1}.get(what, count)
        messages += [STRETCH_ITEMS[what](rng) for _ in range(count)]
    padding = [rng.randbytes(64) for _ in range(THREADED_COUNT - len(messages))]
    at = rng.randrange(len(messages) + 1)
    messages[at:at] = padding
    for threads in (1, 2):
        check_out(name, messages, kind, threads)


@pytest.mark.threads
@pytest.mark.parametrize('threads', THREAD_COUNTS)
@pytest.mark.parametrize('item', [bytearray, memoryview])
def test_an_item_not_bytes_late_in_a_list_into_out(threads, item):
    # Held stretches up to the chunk of the item, the usual way from it on, from a snapshot of the list.
    rng = random.Random(9)
    messages = random_messages(rng, 3 * THREADED_COUNT, 100)
    messages[100_000] = item(messages[100_000])
    check_out('sha1', messages, 'bytearray', threads)


@pytest.mark.skipif(sys.implementation.name != 'cpython', reason="a ctypes array over a bytes object's CPython layout")
@pytest.mark.parametrize('threads', [1, 2])
def test_bytes_sharing_memory_with_out_late_in_a_held_stretch(threads):
    # An exact bytes item under out (a ctypes array over its bytes, which only such tricks can write), late in a
    # list that held stretches hash, in a chunk of little enough work for one: refused, naming it, not hashed while
    # digests are written over it.
    count, digest_size = 16_000, 16
    backing = bytes(count * digest_size)
    out = (ctypes.c_char * len(backing)).from_address(id(backing) + sys.getsizeof(b'') - 1)
    messages = [b'x' * 64] * count
    messages[12_000] = backing
    with pytest.raises(ValueError, match=r"^digest_many\(\) item 12000 shares memory with argument 'out'$"):
        fastdigest.digest_many('md5', messages, threads=threads, out=out)
    # The chunks before it were hashed.
    assert out[:digest_size] == hashlib.md5(b'x' * 64).digest()


# Where an item that cannot be in a stretch sits inside one hashed on two threads or more: 200,000 messages of 64
# bytes are about 8 MiB of work a thread for SHA-1 (a stretch covers 16 chunks of 2048 on each thread), so these are
# in the second stretch, the first inside its chunk 2 and the second in its middle.
MID_STRETCH_POSITIONS = (70_000, 90_000)


@pytest.mark.threads
@pytest.mark.parametrize('threads', [2, 3, None])
@pytest.mark.parametrize('position', MID_STRETCH_POSITIONS)
@pytest.mark.parametrize('unfit', ['bytearray', 'memoryview', 'medium run'])
def test_an_unfit_item_inside_a_held_stretch_on_threads(unfit, position, threads):
    # The stretch stops at the item's chunk: every chunk before it hashed by the threads, none after it, the chunk
    # the usual way (from a snapshot of the list, or a pipeline over the run of longer messages, too much work for a
    # stretch's chunk, after which stretches resume).
    rng = random.Random(position)
    messages = [rng.randbytes(64) for _ in range(200_000)]
    if unfit == 'medium run':
        messages[position - 1000 : position + 1000] = [rng.randbytes(600) for _ in range(2000)]
    else:
        messages[position] = {'bytearray': bytearray, 'memoryview': memoryview}[unfit](messages[position])
    check_out('sha1', messages, 'bytearray', threads)


@pytest.mark.threads
@pytest.mark.parametrize('threads', [2, None])
@pytest.mark.parametrize('position', MID_STRETCH_POSITIONS)
def test_a_bad_item_inside_a_held_stretch_on_threads(position, threads):
    # The error names the item, whichever thread met its chunk first.
    messages = [b'x' * 64] * 200_000
    messages[position] = 'text'
    message = 'digest_many() item %d: Strings must be encoded before hashing' % position
    with pytest.raises(TypeError, match='^%s$' % re.escape(message)):
        fastdigest.digest_many('sha1', messages, threads=threads, out=bytearray(200_000 * 20))


def digests_written_after(out, digest_size, index, untouched):
    """The positions after index whose digest in out is no longer the untouched bytes."""
    after = bytes(out)[(index + 1) * digest_size :]
    if after == untouched * len(after):
        return []
    blank = untouched * digest_size
    return [
        index + 1 + i // digest_size for i in range(0, len(after), digest_size) if after[i : i + digest_size] != blank
    ]


def calls_with_a_bad_item(call, digest_size, tries, error='Strings must be encoded before hashing'):
    """call(messages, threads, out) `tries` times on each of 2, 3 and 4 threads, on 200,000 messages of 64 bytes with
    one str among them, at a position drawn anew for each call (every other call the last of a chunk of 2048, which
    the thread that takes that chunk finds last), into an out= filled with 0xAA: each must raise the str's TypeError
    (whose message ends in `error`) and leave every digest after it unwritten, as the documentation promises (those
    before it may be written)."""
    rng = random.Random(36)
    count = 200_000
    # Distinct objects, whose headers a thread reads from memory: locating a chunk takes long enough for other
    # threads to take the chunks after it meanwhile.
    messages = [rng.randbytes(64) for _ in range(count)]
    out = bytearray(count * digest_size)
    for threads in (2, 3, 4):
        for i in range(tries):
            position = rng.randrange(count) if i % 2 else rng.randrange(count // 2048) * 2048 + 2047
            original, messages[position] = messages[position], 'text'
            out[:] = b'\xaa' * len(out)
            match = r'^digest_many\(\) item %d: %s$' % (position, re.escape(error))
            with pytest.raises(TypeError, match=match):
                call(messages, threads, out)
            written = digests_written_after(out, digest_size, position, b'\xaa')
            assert not written, 'threads=%d: %d digests written after the bad item %d, from %d on' % (
                threads,
                len(written),
                position,
                written[0],
            )
            messages[position] = original


@pytest.mark.threads
def test_no_digest_after_a_bad_item_is_written_on_threads():
    # In a held stretch on several threads, the thread that takes the chunk after the bad item's must not hash it
    # into out before the bad item's chunk is known: before that was so, a call in ten or so wrote the 2048 digests
    # of a later chunk (more of them on a busy machine, where threads lose their CPUs mid-chunk).
    calls_with_a_bad_item(
        lambda messages, threads, out: fastdigest.digest_many('sha1', messages, threads=threads, out=out), 20, 30
    )


@pytest.mark.skipif(sys.implementation.name != 'cpython', reason="a ctypes array over a bytes object's CPython layout")
@pytest.mark.threads
@pytest.mark.parametrize('position', MID_STRETCH_POSITIONS)
def test_bytes_sharing_memory_with_out_inside_a_held_stretch_on_threads(position):
    # As test_bytes_sharing_memory_with_out_late_in_a_held_stretch, in a stretch on two threads: refused, naming it,
    # and every chunk before its own hashed (chunks of 2048 messages, tests/test_batch.py).
    count, digest_size = 200_000, 16
    backing = bytes(count * digest_size)
    out = (ctypes.c_char * len(backing)).from_address(id(backing) + sys.getsizeof(b'') - 1)
    messages = [b'x' * 64] * count
    messages[position] = backing
    match = r"^digest_many\(\) item %d shares memory with argument 'out'$" % position
    with pytest.raises(ValueError, match=match):
        fastdigest.digest_many('md5', messages, threads=2, out=out)
    hashed = position // 2048 * 2048
    assert out[: hashed * digest_size] == hashlib.md5(b'x' * 64).digest() * hashed


# Held stretches exist only with a GIL. Without one a list is hashed from a snapshot taken at the start, so
# another thread's changes never show, and these tests' other thread reads out while digest_many writes it: a data
# race by design, which ThreadSanitizer (tests/hardening/tsan_python.sh, on a free-threaded 3.13) reports.
HELD_STRETCHES_ONLY = pytest.mark.skipif(
    FREE_THREADED, reason='held stretches exist only with a GIL; without one the list is a snapshot'
)


def mutate_during_calls(originals, mutate, threads, calls=5, switch_interval=1e-5):
    """digest_many('sha1', list, out=) `calls` times, each on a fresh list of fresh copies of originals (replaced
    items are freed), while another thread runs mutate(list) over and over, with the given switch interval (the
    other thread's turns between stretches last about that long), from when the call has written its first digest;
    yields each call's outcome: its digests, or the exception it raised."""
    stop = threading.Event()

    def keep_mutating(messages, out):
        while out[:20] == bytes(20) and not stop.is_set():
            pass
        while not stop.is_set():
            mutate(messages)

    previous_switch_interval = sys.getswitchinterval()
    sys.setswitchinterval(switch_interval)
    try:
        for _ in range(calls):
            messages = [bytes(bytearray(m)) for m in originals]
            out = bytearray(len(originals) * 20)
            thread = threading.Thread(target=keep_mutating, args=(messages, out))
            thread.start()
            try:
                fastdigest.digest_many('sha1', messages, threads=threads, out=out)
                outcome = [bytes(out[i : i + 20]) for i in range(0, len(out), 20)]
            except RuntimeError as error:
                outcome = error
            finally:
                stop.set()
                thread.join()
                stop.clear()
            yield outcome
    finally:
        sys.setswitchinterval(previous_switch_interval)


@HELD_STRETCHES_ONLY
@pytest.mark.threads
@pytest.mark.parametrize('threads', [1, 2])
def test_items_replaced_between_held_stretches(threads):
    # Another thread replaces items with fresh objects between the stretches (the original is freed then): each
    # digest is of the item that was there before or after, never of anything else.
    rng = random.Random(10)
    originals = [rng.randbytes(64) for _ in range(200_000)]
    replacements = [bytes([i]) * 64 for i in range(7)]
    replaced = {hashlib.sha1(r).digest() for r in replacements}
    counter = iter(range(1 << 62))

    # Into the last quarter, which the call hashes in its last stretches: the other thread gets its first turn once
    # the first stretch has written out's first digest, and items it replaces nearer the front may all have been
    # hashed already. Turns of a millisecond: a replacement costs tens of times more Python under emulation (qemu)
    # or a sanitizer, and turns of the default 10 us there could end before one replacement did.
    last_quarter = len(originals) // 4

    def replace(messages):
        i = next(counter)
        position = len(messages) - 1 - (i * 7919) % last_quarter
        messages[position] = bytes(bytearray(replacements[i % 7]))

    calls_changed = 0
    for digests in mutate_during_calls(originals, replace, threads, switch_interval=1e-3):
        assert not isinstance(digests, Exception)
        changed = 0
        for original, digest in zip(originals, digests, strict=True):
            if digest != hashlib.sha1(original).digest():
                assert digest in replaced
                changed += 1
        calls_changed += changed > 0
    # The other thread replaced items during the calls (during each, on a machine of its own speed): with the GIL
    # held through a whole call, every digest would be of an original.
    assert calls_changed


@HELD_STRETCHES_ONLY
@pytest.mark.threads
@pytest.mark.parametrize('threads', [1, 2])
def test_list_resized_between_held_stretches(threads):
    # Another thread appends an item and takes it off again, or takes one out of the middle (the items after it
    # move down) and puts it back, letting the call run in between: the call finds the list's size changed
    # (RuntimeError), or not, and then every digest is right.
    rng = random.Random(11)
    originals = [rng.randbytes(64) for _ in range(200_000)]
    want = [hashlib.sha1(m).digest() for m in originals]
    counter = iter(range(1 << 62))

    def resize(messages):
        i = next(counter)
        if i % 2:
            messages.append(b'extra')
            time.sleep(0)
            messages.pop()
        else:
            index = (i * 7919) % len(originals)
            item = messages.pop(index)
            time.sleep(0)
            messages.insert(index, item)

    for outcome in mutate_during_calls(originals, resize, threads):
        if isinstance(outcome, RuntimeError):
            assert str(outcome) == 'digest_many() list changed size during the call'
        else:
            assert outcome == want


@HELD_STRETCHES_ONLY
@pytest.mark.threads
@pytest.mark.parametrize('threads', [1, 2])
def test_other_threads_run_during_a_call_into_out(threads):
    # The GIL is released between held stretches, so another Python thread runs during a long call on a list into
    # out=, and sees out half written: its first digest there and its last not yet, which it never could if the
    # call held the GIL throughout (out is zeroed between the calls in one step).
    messages = [i.to_bytes(8, 'little') * 8 for i in range(300_000)]
    out = bytearray(len(messages) * 16)
    zero = bytes(16)
    half_written, stop = threading.Event(), threading.Event()

    def watch():
        while not stop.is_set():
            if out[:16] != zero and out[-16:] == zero:
                half_written.set()

    switch_interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-4)
    thread = threading.Thread(target=watch)
    thread.start()
    try:
        for _ in range(20):
            out[:] = bytes(len(out))
            fastdigest.digest_many('md5', messages, threads=threads, out=out)
            if half_written.is_set():
                break
    finally:
        stop.set()
        thread.join()
        sys.setswitchinterval(switch_interval)
    assert half_written.is_set()
    assert bytes(out) == joined('md5', messages)
