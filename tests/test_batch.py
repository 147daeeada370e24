"""digest_many(name, messages): equal to hashlib message by message, with hashlib's errors.

The multi-buffer kernels hash several messages at once and the batch driver keeps their lanes full with
messages of any lengths, finishing the last few with the single-stream kernel. So the batches here mix
every length from empty to several blocks, in every batch size around the lane counts (2, 4, 8 and 16), so that
every partial group occurs (up to 16 lanes). CI runs this file under both backends (FASTDIGEST_BACKEND unset and
=portable); test_portable_backend_in_child runs the portable path in any run as well. The C driver
tests/c/test_batch.c checks each multi-buffer kernel directly against the portable single-stream kernel.
"""

import array
import hashlib
import json
import mmap
import os
import platform
import random
import re
import subprocess
import sys
import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fastdigest
from conftest import ALGORITHMS, BYTEARRAY_EXPORTS_RACE, BYTEARRAY_EXPORTS_RACE_REASON, examples, unsupported
from test_backend import cpu_flags

BLOCK_SIZES = {name: hashlib.new(name).block_size for name in ALGORITHMS}
MULTI_BUFFER_KERNELS = {'shani_x2', 'avx2_x4', 'avx2_x8', 'avx512_x8', 'avx512_x16'}
SINGLE_STREAM_KERNELS = {'portable', 'tuned', 'ssse3', 'shani', 'avx2', 'avx512', 'armv8'}


def expected(name, messages):
    return [hashlib.new(name, message).digest() for message in messages]


def random_messages(rng, count, max_len):
    return [rng.randbytes(rng.randrange(max_len + 1)) for _ in range(count)]


def test_every_length_in_one_batch(algorithm):
    # Every length from 0 to four blocks + 1, shuffled so that neighbouring lanes differ in length.
    block = BLOCK_SIZES[algorithm]
    rng = random.Random(7)
    messages = [rng.randbytes(n) for n in range(4 * block + 2)]
    rng.shuffle(messages)
    assert fastdigest.digest_many(algorithm, messages) == expected(algorithm, messages)


@pytest.mark.parametrize('count', range(0, 50))
def test_every_batch_size(algorithm, count):
    # 0..49 messages: one to three full groups and every remainder for 2, 4, 8 and 16 lanes.
    rng = random.Random(count)
    messages = random_messages(rng, count, 3 * BLOCK_SIZES[algorithm] + 5)
    assert fastdigest.digest_many(algorithm, messages) == expected(algorithm, messages)


@pytest.mark.parametrize('length_in_blocks', [0, 1, 2, 3])
@pytest.mark.parametrize('offset', [-9, -8, -1, 0, 1, 55, 56])
def test_equal_lengths_around_the_padding_boundary(algorithm, length_in_blocks, offset):
    # All lanes in step, with lengths where the padding needs one or two blocks (the length field is 8
    # bytes for MD5, SHA-1 and SHA-256, 16 for SHA-512).
    length = max(0, length_in_blocks * BLOCK_SIZES[algorithm] + offset)
    rng = random.Random(length)
    messages = [rng.randbytes(length) for _ in range(37)]
    assert fastdigest.digest_many(algorithm, messages) == expected(algorithm, messages)


def test_large_random_batch(algorithm):
    rng = random.Random(11)
    messages = random_messages(rng, 3000, 5 * BLOCK_SIZES[algorithm])
    assert fastdigest.digest_many(algorithm, messages) == expected(algorithm, messages)


def test_long_messages_among_short_ones(algorithm):
    # One lane stays busy for thousands of blocks while the others turn over many short messages; at
    # the end the long ones are finished by the single-stream kernel.
    rng = random.Random(12)
    messages = random_messages(rng, 200, 100)
    for position in (0, 5, 77, 199):
        messages[position] = rng.randbytes(rng.randrange(50_000, 200_000))
    assert fastdigest.digest_many(algorithm, messages) == expected(algorithm, messages)


@settings(max_examples=examples(60), deadline=None)
@given(
    name=st.sampled_from(ALGORITHMS),
    messages=st.lists(st.binary(max_size=300), max_size=40),
    threads=st.one_of(st.none(), st.integers(1, 8)),
)
def test_matches_hashlib(name, messages, threads):
    assert fastdigest.digest_many(name, messages, threads=threads) == expected(name, messages)


def test_empty_batches():
    for name in ALGORITHMS:
        assert fastdigest.digest_many(name, []) == []
        assert fastdigest.digest_many(name, ()) == []
        assert fastdigest.digest_many(name, iter([])) == []


def test_result_is_a_new_list_of_bytes():
    result = fastdigest.digest_many('sha256', [b'a', b'b'])
    assert type(result) is list
    assert all(type(digest) is bytes for digest in result)


def test_any_iterable():
    messages = [b'abc', b'', b'x' * 200, b'hello world'] * 3
    want = expected('sha256', messages)
    assert fastdigest.digest_many('sha256', (m for m in messages)) == want
    assert fastdigest.digest_many('sha256', tuple(messages)) == want
    assert fastdigest.digest_many('sha256', iter(messages)) == want
    assert fastdigest.digest_many('sha256', map(bytes, messages)) == want
    assert fastdigest.digest_many('sha256', {m: None for m in messages}) == expected('sha256', dict.fromkeys(messages))


# digest_many works through a batch in chunks (2048 messages: python/hash_api/batch.h): each chunk's items are
# located, its results made and the chunk hashed before the next is read. These sizes and positions cross
# the chunk boundaries at 2048 and 4096 (any other chunk size still gets several chunks here).
CHUNKED_COUNT = 2 * 2048 + 7
BOUNDARY_POSITIONS = (0, 1, 2047, 2048, 2049, 4095, 4096, CHUNKED_COUNT - 1)


def mixed_batch(count, positions):
    rng = random.Random(count)
    items = [rng.randbytes(rng.randrange(130)) for _ in range(count)]
    kinds = (bytearray, memoryview, lambda b: array.array('B', b))
    for n, position in enumerate(positions):
        items[position] = kinds[n % len(kinds)](items[position])
    return items


@pytest.mark.parametrize('container', ['list', 'tuple', 'generator', 'list subclass'])
def test_batches_across_chunks(algorithm, container):
    # Exact bytes read in place and other buffers at and around the chunk boundaries, from every kind of
    # container: a list (read in place), a tuple, and iterables gathered into a tuple first.
    items = mixed_batch(CHUNKED_COUNT, BOUNDARY_POSITIONS)
    want = expected(algorithm, items)
    source = {
        'list': lambda: list(items),
        'tuple': lambda: tuple(items),
        'generator': lambda: (item for item in items),
        'list subclass': lambda: type('ListSubclass', (list,), {})(items),
    }[container]()
    assert fastdigest.digest_many(algorithm, source) == want


def test_list_subclass_is_iterated():
    # A list subclass is not read in place: its own __iter__ gives the messages, as for any iterable.
    class Reversed(list):
        def __iter__(self):
            return reversed(self)

    messages = Reversed([b'a', b'bb', b'ccc'])
    assert fastdigest.digest_many('sha1', messages) == expected('sha1', [b'ccc', b'bb', b'a'])


@pytest.mark.parametrize('container', [list, tuple])
def test_bad_item_in_a_later_chunk(container):
    # The chunks before the bad item are hashed already; the error still names the item, and the views of
    # every chunk are released.
    buffer = bytearray(b'resizable')
    items = [b'x'] * CHUNKED_COUNT
    items[5] = buffer
    items[4094] = buffer
    items[4100] = 'text'
    with pytest.raises(TypeError, match=r'^digest_many\(\) item 4100: Strings must be encoded before hashing$'):
        fastdigest.digest_many('sha256', container(items))
    buffer.extend(b'!')


# Pipelined (hashed by other threads while the calling thread prepares the next chunk): the GIL is released while
# the calling thread waits or hashes, at other points than when it hashes chunk by chunk.
@pytest.mark.threads
@pytest.mark.parametrize('count, threads', [(6 * 2048, None), (20 * 2048, 2), (20 * 2048, 3)])
def test_list_changed_by_another_thread(count, threads):
    # A list read in place while another thread replaces, appends and removes items between the chunks (the
    # GIL is released while each chunk is hashed, and a short switch interval lets the other thread in):
    # never a crash or a digest of something that was not in the list at that index; a change of length
    # is a RuntimeError.
    rng = random.Random(8)
    originals = [rng.randbytes(64) for _ in range(count)]
    replacement = b'r' * 64
    replaced = hashlib.sha256(replacement).digest()
    # The list is one longer while the other thread has appended and not yet removed an item, perhaps
    # when digest_many starts.
    allowed = [{hashlib.sha256(m).digest(), replaced} for m in originals] + [{replaced}]
    started, stop = threading.Event(), threading.Event()

    def mutate(messages):
        started.set()
        i = 0
        while not stop.is_set():
            messages[(i * 997) % len(originals)] = replacement
            if i % 7 == 0:
                messages.append(replacement)
                messages.pop()
            i += 1

    outcomes = set()
    switch_interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    try:
        for _ in range(10):
            messages = list(originals)
            thread = threading.Thread(target=mutate, args=(messages,))
            thread.start()
            started.wait()
            try:
                result = fastdigest.digest_many('sha256', messages, threads=threads)
            except RuntimeError as error:
                assert str(error) == 'digest_many() list changed size during the call'
                outcomes.add('changed size')
            else:
                assert len(result) in (len(originals), len(originals) + 1)
                assert all(digest in allowed[i] for i, digest in enumerate(result))
                outcomes.add('hashed')
            finally:
                stop.set()
                thread.join()
                started.clear()
                stop.clear()
    finally:
        sys.setswitchinterval(switch_interval)
    assert outcomes


@pytest.mark.threads
def test_list_changed_by_an_items_buffer_method():
    # An item's __buffer__ runs Python code while digest_many reads the list: the batch stays the list as
    # it was when digest_many was called (the list is read from a snapshot from that item on). Before
    # Python 3.12 (PEP 688) a class cannot export a buffer from Python: such an item is a bad item there.
    messages = [b'a', b'b']

    class Exporter:
        def __buffer__(self, flags):
            messages[0] = b'changed'
            messages[3:] = []
            return memoryview(b'exported')

    messages += [Exporter(), b'd', b'e']
    if sys.version_info < (3, 12):
        with pytest.raises(TypeError, match='item 2: object supporting the buffer API required'):
            fastdigest.digest_many('md5', messages)
        assert messages[0] == b'a' and len(messages) == 5
        return
    result = fastdigest.digest_many('md5', messages)
    assert result == expected('md5', [b'a', b'b', b'exported', b'd', b'e'])
    assert messages == [b'changed', b'b', messages[2]]

    # The same in a later chunk, after whole chunks were read in place.
    long_batch = [bytes([i % 256]) * 10 for i in range(CHUNKED_COUNT)]
    original = list(long_batch)

    class Truncating:
        def __buffer__(self, flags):
            del long_batch[100:]
            return memoryview(b'exported')

    long_batch[3000], original[3000] = Truncating(), b'exported'
    assert fastdigest.digest_many('sha1', long_batch, threads=1) == expected('sha1', original)
    assert len(long_batch) == 100

    # And while other threads hash the chunks before (pipelined: a batch long enough for two threads).
    long_batch = [bytes([i % 256]) * 10 for i in range(40_000)]
    original = list(long_batch)
    long_batch[30_000], original[30_000] = Truncating(), b'exported'
    assert fastdigest.digest_many('sha1', long_batch, threads=2) == expected('sha1', original)
    assert len(long_batch) == 100


def test_every_buffer_type(tmp_path):
    data = bytes(range(256)) * 3
    path = tmp_path / 'data'
    path.write_bytes(data)

    class BytesSubclass(bytes):
        pass

    with open(path, 'rb') as file, mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
        items = [
            data,
            bytearray(data),
            memoryview(data),
            memoryview(data)[3:700],  # a contiguous slice, at an odd offset
            memoryview(bytearray(data)).cast('I'),
            array.array('B', data),
            array.array('Q', data[:512]),
            mapped,
            BytesSubclass(data[:100]),
            memoryview(b''),
            bytearray(),
        ]
        want = [hashlib.new('sha512', item).digest() for item in items]
        for name in ALGORITHMS:
            assert fastdigest.digest_many(name, items) == expected(name, items)
        assert fastdigest.digest_many('sha512', items) == want


def test_name_forms():
    messages = [b'a', b'bc' * 40]
    for name in ALGORITHMS:
        want = expected(name, messages)
        assert fastdigest.digest_many(name, messages) == want
        assert fastdigest.digest_many(name.upper(), messages) == want
        assert fastdigest.digest_many(getattr(fastdigest, name), messages) == want


def test_aliases_as_new_accepts_them():
    for alias in ('SHA256', 'Sha1', 'MD5'):
        assert fastdigest.digest_many(alias, [b'abc']) == [hashlib.new(alias, b'abc').digest()]


def one_shot_error(bad):
    """The exception hashlib's one-shot raises for bad data."""
    with pytest.raises(Exception) as raised:
        hashlib.sha256(bad)
    return raised.value


@pytest.mark.parametrize('index', [0, 1, 3, 17])
@pytest.mark.parametrize(
    'bad',
    ['text', 5, None, object(), memoryview(b'abcdef')[::2]],
    ids=['str', 'int', 'None', 'object', 'non-contiguous'],
)
def test_bad_item_says_its_index(index, bad):
    reference = one_shot_error(bad)
    messages = [b'ok'] * 20
    messages[index] = bad
    with pytest.raises(type(reference)) as raised:
        fastdigest.digest_many('sha256', messages)
    assert type(raised.value) is type(reference)
    assert str(raised.value) == 'digest_many() item %d: %s' % (index, reference)


def test_bad_item_from_a_generator():
    def messages():
        yield b'a'
        yield b'b'
        yield 'c'

    with pytest.raises(TypeError, match=r'^digest_many\(\) item 2: Strings must be encoded before hashing$'):
        fastdigest.digest_many('md5', messages())


def test_first_bad_item_is_reported_and_views_released():
    buffer = bytearray(b'resizable')
    with pytest.raises(TypeError, match=r'item 2:'):
        fastdigest.digest_many('sha1', [buffer, buffer, 1, 'x'])
    # The views taken before the error were released: the bytearray can be resized again.
    buffer.extend(b'!')
    assert fastdigest.digest_many('sha1', [buffer]) == [hashlib.sha1(b'resizable!').digest()]


def test_errors_of_the_generator_propagate():
    def messages():
        yield b'a'
        raise KeyError('from the generator')

    with pytest.raises(KeyError, match='from the generator'):
        fastdigest.digest_many('sha256', messages())


def test_bad_names():
    with pytest.raises(ValueError) as raised:
        fastdigest.digest_many('blake2b', [b''])
    assert str(raised.value) == unsupported('blake2b')
    with pytest.raises(ValueError) as raised:
        fastdigest.digest_many('nope', [])
    assert str(raised.value) == unsupported('nope')
    with pytest.raises(TypeError, match=r'must be str or a fastdigest constructor, not builtin_function'):
        fastdigest.digest_many(hashlib.sha256, [b''])
    with pytest.raises(TypeError, match=r'must be str or a fastdigest constructor, not None'):
        fastdigest.digest_many(None, [b''])


def test_name_is_checked_before_messages_are_read():
    consumed = []

    def messages():
        consumed.append(True)
        yield b'a'

    with pytest.raises(ValueError):
        fastdigest.digest_many('nope', messages())
    assert consumed == []


def test_bad_messages_argument():
    with pytest.raises(TypeError, match='not iterable'):
        fastdigest.digest_many('sha256', 5)
    with pytest.raises(TypeError, match='not iterable'):
        fastdigest.digest_many('sha256', None)
    # A str is iterable, and its items are str: refused as hashlib refuses str.
    with pytest.raises(TypeError, match=r'^digest_many\(\) item 0: Strings must be encoded before hashing$'):
        fastdigest.digest_many('sha256', 'abc')


def test_argument_count():
    with pytest.raises(TypeError, match='expected 2 arguments, got 1'):
        fastdigest.digest_many('sha256')
    with pytest.raises(TypeError, match='expected 2 arguments, got 3'):
        fastdigest.digest_many('sha256', [], [])
    with pytest.raises(TypeError):
        fastdigest.digest_many(name='sha256', messages=[])


@pytest.mark.threads
def test_threads_hash_batches_at_once():
    # The batch is hashed with the GIL released: batches in several threads must not disturb each
    # other (every thread's results are checked).
    rng = random.Random(3)
    batches = {name: random_messages(rng, 2000, 300) for name in ALGORITHMS}
    want = {name: expected(name, batch) for name, batch in batches.items()}
    failures = []

    def worker(name):
        for _ in range(5):
            if fastdigest.digest_many(name, batches[name]) != want[name]:
                failures.append(name)

    threads = [threading.Thread(target=worker, args=(name,)) for name in ALGORITHMS]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []


# ---- threads ----------------------------------------------------------------------------------------------

# With more than one thread, a batch that surely has work for two threads (each message counts at least a block of
# work, and a thread is worth 1 MiB: 32,768 messages of 64-byte blocks, 16,384 of 128-byte ones) is pipelined: other
# threads hash its chunks of 2048 while the calling thread prepares the next. Any other batch goes chunk by chunk,
# and a chunk whose own work is large (long messages) is cut into pieces for several threads (python/hash_api/batch.c,
# hash/batch.c). THREADED_COUNT messages are enough for four threads at 64-byte blocks; other buffers stand at and
# around the chunk seams, and at the start and end. A chunk or piece that no thread hashed would leave its results
# as uninitialised bytes, which cannot equal hashlib's.
THREADED_COUNT = 70_001
THREADED_POSITIONS = (0, 1, 2047, 2048, 33_333, 40_959, 40_960, 65_535, THREADED_COUNT - 1)
THREAD_COUNTS = (1, 2, 3, 4, None)
BUFFER_KINDS = {
    'bytes': bytes,
    'bytearray': bytearray,
    'memoryview': memoryview,
    'array': lambda b: array.array('B', b),
    'sliced memoryview': lambda b: memoryview(b'..' + b + b'..')[2:-2],
}


def threaded_batch():
    """THREADED_COUNT messages of 0 to 150 bytes, other buffer types at THREADED_POSITIONS; made anew for each
    test (a fixture would be printed whole by hypothesis, and the items are mutable)."""
    rng = random.Random(31)
    items = [rng.randbytes(rng.randrange(150)) for _ in range(THREADED_COUNT)]
    kinds = list(BUFFER_KINDS.values())[1:]
    for n, position in enumerate(THREADED_POSITIONS):
        items[position] = kinds[n % len(kinds)](items[position])
    return items


@pytest.mark.threads
def test_threads_match_hashlib(algorithm):
    items = threaded_batch()
    want = expected(algorithm, items)
    for threads in THREAD_COUNTS:
        assert fastdigest.digest_many(algorithm, items, threads=threads) == want, threads
    # A tuple is read as it is, any other iterable gathered into one first: threads work alike.
    assert fastdigest.digest_many(algorithm, tuple(items), threads=3) == want
    assert fastdigest.digest_many(algorithm, (item for item in items), threads=None) == want


@pytest.mark.threads
def test_threads_split_long_messages(algorithm):
    # Too few messages to pipeline, but chunks whose work is enough for several threads: pieces of one long
    # message each, or of many short ones beside them.
    rng = random.Random(32)
    for items in (
        [rng.randbytes(3 << 20), rng.randbytes(2 << 20), bytearray(rng.randbytes((2 << 20) + 1)), b''],
        [rng.randbytes(rng.randrange(100)) for _ in range(3000)] + [memoryview(rng.randbytes(3 << 20))],
        [rng.randbytes(rng.randrange(4000)) for _ in range(2500)],
    ):
        want = expected(algorithm, items)
        for threads in THREAD_COUNTS:
            assert fastdigest.digest_many(algorithm, items, threads=threads) == want, threads


@pytest.mark.threads
@pytest.mark.parametrize('count', [3, 7, 8, 15, 16, 17, 24, 33])
def test_threads_long_messages_around_the_lanes(algorithm, count):
    # A few long messages, in numbers around the kernels' lanes (2, 4, 8, 16): fewer than a thread's lanes run on
    # the multi-buffer kernel with lanes idle where that pays, and the threads get whole groups of lanes, on no more
    # threads than there are groups (hash/batch_threads.c).
    rng = random.Random(count)
    block = rng.randbytes(170_000 + count)
    items = [block[i : i + 150_000 + rng.randrange(20_000)] for i in range(count)]
    want = expected(algorithm, items)
    for threads in (1, 2, 3, None):
        assert fastdigest.digest_many(algorithm, items, threads=threads) == want, threads


@pytest.mark.threads
@settings(max_examples=examples(20), deadline=None)
@given(
    name=st.sampled_from(ALGORITHMS),
    count=st.one_of(st.integers(0, 3000), st.integers(16_000, 75_000)),
    seed=st.integers(0, 2**32),
    threads=st.one_of(st.none(), st.integers(1, 6)),
    specials=st.lists(
        st.tuples(st.floats(0, 1, exclude_max=True), st.sampled_from(['empty', 'long', *BUFFER_KINDS])), max_size=8
    ),
    container=st.sampled_from(['list', 'tuple', 'iterator']),
)
def test_threads_any_batch(name, count, seed, threads, specials, container):
    # Batches on both sides of the thresholds, with empty and long messages (up to 1.5 MB) and every buffer type
    # anywhere, from every kind of container, on any number of threads.
    rng = random.Random(seed)
    items = [rng.randbytes(rng.randrange(200)) for _ in range(count)]
    for fraction, kind in specials if count else ():
        position = int(fraction * count)
        if kind == 'empty':
            items[position] = b''
        elif kind == 'long':
            items[position] = rng.randbytes(rng.randrange(100_000, 1_500_000))
        else:
            items[position] = BUFFER_KINDS[kind](items[position])
    want = expected(name, items)
    source = {'list': list, 'tuple': tuple, 'iterator': iter}[container](items)
    assert fastdigest.digest_many(name, source, threads=threads) == want


@pytest.mark.threads
@pytest.mark.parametrize('threads', THREAD_COUNTS)
@pytest.mark.parametrize('first_bad', [0, 2048, 50_000, THREADED_COUNT - 1])
def test_first_bad_item_with_threads(threads, first_bad):
    # The items are checked in order on the calling thread while other threads hash the chunks before: the error
    # names the first bad item even when a later one (in a later chunk) is worse, and no view is left behind (the
    # bytearrays of the chunks hashed before, and of the chunk that failed, can be resized again).
    items = threaded_batch()
    early, same_chunk = bytearray(b'early'), bytearray(b'same chunk')
    items[1] = early
    items[first_bad - 1 if first_bad else 2] = same_chunk
    items[first_bad] = 5
    for later in (first_bad + 1, first_bad + 3000, THREADED_COUNT - 1):
        if later < THREADED_COUNT and later != first_bad:
            items[later] = 'text'
    message = r'^digest_many\(\) item %d: object supporting the buffer API required$' % first_bad
    with pytest.raises(TypeError, match=message):
        fastdigest.digest_many('sha256', items, threads=threads)
    early.extend(b'!')
    same_chunk.extend(b'!')


def test_threads_argument():
    messages = [b'a', b'']
    want = expected('md5', messages)

    class Count:
        def __index__(self):
            return 2

    for threads in (1, 4, None, 2**63, 10**100, Count()):  # beyond Py_ssize_t: as many as there may be parts
        assert fastdigest.digest_many('md5', messages, threads=threads) == want
    # digest_array's messages, with digest_many's name.
    for threads in (0, -1, -(10**100)):
        message = 'digest_many(): threads must be at least 1 or None, not %d' % threads
        with pytest.raises(ValueError, match='^%s$' % re.escape(message)):
            fastdigest.digest_many('md5', messages, threads=threads)
    for threads, type_name in [(True, 'bool'), (2.0, 'float'), ('2', 'str'), ([2], 'list')]:
        message = 'digest_many(): threads must be an int or None, not %s' % type_name
        with pytest.raises(TypeError, match='^%s$' % re.escape(message)):
            fastdigest.digest_many('md5', messages, threads=threads)
        with pytest.raises(TypeError, match='^%s$' % re.escape(message.replace('many', 'array'))):
            fastdigest.digest_array('md5', messages, threads=threads)
    # An unknown keyword gets this Python's words for a function of the same signature (3.13+ add a
    # "Did you mean" for a close name).
    namespace = {}
    exec('def digest_many(name, messages, /, *, threads=None): pass', namespace)
    with pytest.raises(TypeError) as python_words:
        namespace['digest_many']('md5', messages, thread=2)
    with pytest.raises(TypeError, match='^%s$' % re.escape(str(python_words.value))):
        fastdigest.digest_many('md5', messages, thread=2)
    with pytest.raises(TypeError, match='expected 2 arguments, got 3'):
        fastdigest.digest_many('md5', messages, 2)
    # threads is read before the messages, as digest_array reads it before the array.
    consumed = []

    def generator():
        consumed.append(True)
        yield b'a'

    with pytest.raises(ValueError):
        fastdigest.digest_many('md5', generator(), threads=0)
    assert consumed == []


@pytest.mark.threads
@pytest.mark.skipif(BYTEARRAY_EXPORTS_RACE, reason=BYTEARRAY_EXPORTS_RACE_REASON)
def test_bytearray_resized_while_its_chunk_is_hashed():
    # Another thread resizes bytearrays of the batch while other threads hash it: a bytearray whose chunk is in
    # hand is pinned (its view refuses the resize with BufferError), so no thread reads freed memory, and each
    # digest is of the contents the bytearray had when it was read. Each resize that goes through moves the
    # contents to a larger block and frees the old one, which new objects then take over: a thread reading a
    # buffer that was not pinned would hash them (under AddressSanitizer, a use after free).
    rng = random.Random(33)
    resizable = [bytearray(rng.randbytes(40)) for _ in range(16)]
    originals = [bytes(b) for b in resizable]
    grown = b'!' * 4000
    items = [rng.randbytes(64) for _ in range(40_000)]
    positions = tuple(range(5, 40_000, 2500))
    for position, buffer in zip(positions, resizable, strict=True):
        items[position] = buffer
    stop, calling = threading.Event(), threading.Event()
    refused_during_calls = []

    def resize():
        # Each bytearray is its 40 bytes, or those and `grown`, whichever resize a pin refuses.
        fillers = []
        while not stop.is_set():
            for buffer in resizable:
                try:
                    if len(buffer) > 40:
                        del buffer[40:]
                    else:
                        buffer.extend(grown)
                        fillers.extend(bytes([n]) * n for n in range(1, 48))
                except BufferError:
                    if calling.is_set():
                        refused_during_calls.append(True)
            if len(fillers) > 100_000:
                fillers.clear()

    want = expected('sha256', items)
    allowed = {
        position: {hashlib.sha256(original).digest(), hashlib.sha256(original + grown).digest()}
        for position, original in zip(positions, originals, strict=True)
    }
    switch_interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    thread = threading.Thread(target=resize)
    thread.start()
    try:
        for _ in range(10):
            calling.set()
            result = fastdigest.digest_many('sha256', items, threads=2)
            calling.clear()
            for i, digest in enumerate(result):
                assert digest in allowed[i] if i in allowed else digest == want[i], i
    finally:
        stop.set()
        thread.join()
        sys.setswitchinterval(switch_interval)
    # The other thread ran during the calls (the calling thread lets it in while it waits for or hashes chunks)
    # and found bytearrays pinned: without pins it never would.
    assert refused_during_calls


@pytest.mark.threads
def test_threads_of_several_callers_at_once():
    # Several Python threads, each hashing its own pipelined batch on threads of its own.
    rng = random.Random(34)
    batches = {name: random_messages(rng, 40_000, 100) for name in ('md5', 'sha1', 'sha256', 'sha512')}
    want = {name: expected(name, batch) for name, batch in batches.items()}
    failures = []

    def worker(name):
        for threads in (2, 3, None):
            if fastdigest.digest_many(name, batches[name], threads=threads) != want[name]:
                failures.append((name, threads))

    threads = [threading.Thread(target=worker, args=(name,)) for name in batches]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []


def test_batch_implementation_names_every_algorithm():
    batch = fastdigest.batch_implementation
    assert list(batch) == list(fastdigest._fastdigest._algorithms)
    assert set(ALGORITHMS) <= set(batch)
    for name, kernel in batch.items():
        if kernel in MULTI_BUFFER_KERNELS:
            continue
        # No multi-buffer kernel: the batch runs on the algorithm's single-stream kernel.
        assert kernel == fastdigest.implementation[name]
        assert kernel in SINGLE_STREAM_KERNELS
    # One kernel per family.
    assert batch['sha224'] == batch['sha256']
    for name in ('sha384', 'sha512_224', 'sha512_256'):
        assert batch[name] == batch['sha512']


def test_batch_implementation_follows_the_cpu():
    if os.environ.get('FASTDIGEST_BACKEND') == 'portable':
        assert set(fastdigest.batch_implementation.values()) == {'portable'}
        return
    flags = cpu_flags()
    batch = fastdigest.batch_implementation
    # The kernels' lists, fastest first (as measured on Zen 4): for SHA-1, sixteen AVX-512 lanes before
    # two SHA-NI streams; for SHA-256 the reverse; for MD5 and SHA-512, AVX-512 before AVX2; eight AVX2
    # lanes of SHA-1 and SHA-256 only where neither of the others runs.
    avx512 = {'avx512f', 'avx512bw'} <= flags
    sha_ni = {'sha_ni', 'sse4_1', 'ssse3'} <= flags
    if avx512:
        assert batch['sha1'] == 'avx512_x16'
    elif sha_ni:
        assert batch['sha1'] == 'shani_x2'
    elif 'avx2' in flags:
        assert batch['sha1'] == 'avx2_x8'
    if sha_ni:
        assert batch['sha256'] == 'shani_x2'
    elif avx512:
        assert batch['sha256'] == 'avx512_x16'
    elif 'avx2' in flags:
        assert batch['sha256'] == 'avx2_x8'
    if 'avx512f' in flags:
        assert batch['md5'] == 'avx512_x16'
    elif 'avx2' in flags:
        assert batch['md5'] == 'avx2_x8'
    if avx512:
        assert batch['sha512'] == 'avx512_x8'
    elif 'avx2' in flags:
        assert batch['sha512'] == 'avx2_x4'
    if not flags & {'sha_ni', 'avx2', 'avx512f'}:
        assert set(batch.values()) <= SINGLE_STREAM_KERNELS
    if platform.machine().lower() in ('aarch64', 'arm64'):
        # No multi-buffer kernel for AArch64: each family's single-stream kernel.
        assert batch['sha1'] == ('armv8' if 'sha1' in flags else 'portable')
        assert batch['sha256'] == ('armv8' if 'sha2' in flags else 'portable')
        assert batch['sha512'] == ('armv8' if 'sha512' in flags else 'portable')


def test_portable_backend_in_child():
    # FASTDIGEST_BACKEND=portable: digest_many runs the portable single-stream kernels, with the same
    # results.
    environment = dict(os.environ, FASTDIGEST_BACKEND='portable')
    code = r"""
import hashlib, json, random, fastdigest
rng = random.Random(5)
ok = True
for name in ALGORITHMS:
    messages = [rng.randbytes(rng.randrange(400)) for _ in range(rng.randrange(60))]
    ok &= fastdigest.digest_many(name, messages) == [hashlib.new(name, m).digest() for m in messages]
print(json.dumps([fastdigest.batch_implementation, ok]))
""".replace('ALGORITHMS', repr(ALGORITHMS))
    result = subprocess.run([sys.executable, '-c', code], env=environment, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    batch_implementation, ok = json.loads(result.stdout)
    assert batch_implementation == {name: 'portable' for name in fastdigest._fastdigest._algorithms}
    assert ok


def test_single_stream_path_used_by_the_benchmark(algorithm):
    # benchmarks/bench_batch.py compares digest_many with this private path (the multi-buffer kernels
    # off): it must give the same digests, errors included.
    from fastdigest import _fastdigest

    rng = random.Random(21)
    messages = random_messages(rng, 100, 4 * BLOCK_SIZES[algorithm])
    assert _fastdigest._digest_many_single_stream(algorithm, messages) == expected(algorithm, messages)
    with pytest.raises(TypeError, match=r'^digest_many\(\) item 1: '):
        _fastdigest._digest_many_single_stream(algorithm, [b'', 'x'])
