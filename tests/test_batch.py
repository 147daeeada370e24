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
import random
import subprocess
import sys
import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fastdigest
from conftest import ALGORITHMS, unsupported
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


@settings(max_examples=60, deadline=None)
@given(name=st.sampled_from(ALGORITHMS), messages=st.lists(st.binary(max_size=300), max_size=40))
def test_matches_hashlib(name, messages):
    assert fastdigest.digest_many(name, messages) == expected(name, messages)


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


# digest_many works through a batch in chunks (2048 messages in python/batch.c): each chunk's items are
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


def test_list_changed_by_another_thread():
    # A list read in place while another thread replaces, appends and removes items between the chunks (the
    # GIL is released while each chunk is hashed, and a short switch interval lets the other thread in):
    # never a crash or a digest of something that was not in the list at that index; a change of length
    # is a RuntimeError.
    rng = random.Random(8)
    originals = [rng.randbytes(64) for _ in range(6 * 2048)]
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
                result = fastdigest.digest_many('sha256', messages)
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
    assert fastdigest.digest_many('sha1', long_batch) == expected('sha1', original)
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


def test_batch_implementation_names_every_algorithm():
    batch = fastdigest.batch_implementation
    assert set(batch) == set(ALGORITHMS)
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


def test_portable_backend_in_child():
    # FASTDIGEST_BACKEND=portable: digest_many runs the portable single-stream kernels, with the same
    # results.
    environment = dict(os.environ, FASTDIGEST_BACKEND='portable')
    code = r'''
import hashlib, json, random, fastdigest
rng = random.Random(5)
ok = True
for name in sorted(fastdigest.implementation):
    messages = [rng.randbytes(rng.randrange(400)) for _ in range(rng.randrange(60))]
    ok &= fastdigest.digest_many(name, messages) == [hashlib.new(name, m).digest() for m in messages]
print(json.dumps([fastdigest.batch_implementation, ok]))
'''
    result = subprocess.run([sys.executable, '-c', code], env=environment, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    batch_implementation, ok = json.loads(result.stdout)
    assert batch_implementation == {name: 'portable' for name in ALGORITHMS}
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
