"""The Python API fuzzed against hashlib: hypothesis-drawn programs that mix hash objects' update, copy,
digest and hexdigest with the one-shots fastdigest.digest/hexdigest, over random buffers of every kind
the buffer protocol offers (bytes, bytearray, memoryview slices at any offset and with a stride of
one, array.array of several item sizes), empty and block-crossing ones, for all the algorithms at once.

tests/test_properties.py covers sequences on one algorithm's objects with bytes; this mixes algorithms,
buffer types and the one-shots in one program, as the C core's libFuzzer target (tests/fuzz/) mixes
kernels and update sizes below the binding. And the inputs of digest_many and hmac.digest_many: batches of
those buffers in every container, or as the rows of a 2-D buffer, into a list or into out= of any kind at any
offset, on any number of threads.
"""

import array
import hashlib
import hmac

from hypothesis import given, settings
from hypothesis import strategies as st

import fastdigest
from conftest import examples
from fastdigest import hmac as fd_hmac

ALGORITHMS = ('md5', 'sha1', 'sha224', 'sha256', 'sha384', 'sha512', 'sha512_224', 'sha512_256')

# Lengths around the padding (55/56, 111/112) and block (64, 128) boundaries, and the GIL threshold.
BOUNDARY_LENGTHS = [0, 1, 55, 56, 57, 63, 64, 65, 111, 112, 113, 127, 128, 129, fastdigest._GIL_MINSIZE - 1,
                    fastdigest._GIL_MINSIZE, fastdigest._GIL_MINSIZE + 1]  # fmt: skip
raw_data = st.one_of(
    st.binary(max_size=300),
    st.builds(lambda length, byte: bytes([byte]) * length, st.sampled_from(BOUNDARY_LENGTHS), st.integers(0, 255)),
)


def as_buffer(data, kind, offset):
    """data in a buffer of the given kind; the bytes it exposes are always exactly data."""
    if kind == 'bytes':
        return data
    if kind == 'bytearray':
        return bytearray(data)
    if kind == 'memoryview slice':
        return memoryview(bytes(offset) + data + bytes(3))[offset : offset + len(data)]
    # An array.array holds whole items only: when data is not a multiple of the item size, a memoryview
    # of data instead (hypothesis draws both cases).
    typecode = kind[-1]
    if len(data) % array.array(typecode).itemsize != 0:
        return memoryview(data)
    return array.array(typecode, data)


buffers = st.builds(
    lambda data, kind, offset: (data, as_buffer(data, kind, offset)),
    raw_data,
    st.sampled_from(['bytes', 'bytearray', 'memoryview slice', 'array H', 'array I']),
    st.integers(0, 15),
)

# (operation, object index (mod the live objects), algorithm for new objects and one-shots, buffer)
operations = st.tuples(
    st.sampled_from(
        ['new', 'update', 'update', 'copy', 'digest', 'hexdigest', 'one-shot digest', 'one-shot hexdigest']
    ),
    st.integers(0, 31),
    st.sampled_from(ALGORITHMS),
    buffers,
    st.booleans(),  # one-shots: the name as a string or the constructor
)


@settings(max_examples=examples(400), deadline=None, derandomize=True, database=None)
@given(program=st.lists(operations, min_size=1, max_size=40))
def test_mixed_programs_match_hashlib(program):
    live = []  # (fastdigest object, hashlib object)
    for kind, index, name, (data, buffer), by_constructor in program:
        if kind == 'new' or not live:
            live.append((fastdigest.new(name, buffer), hashlib.new(name, data)))
            continue
        ours, reference = live[index % len(live)]
        if kind == 'update':
            assert ours.update(buffer) is None
            reference.update(data)
        elif kind == 'copy':
            live.append((ours.copy(), reference.copy()))
        elif kind == 'digest':
            assert ours.digest() == reference.digest()
        elif kind == 'hexdigest':
            assert ours.hexdigest() == reference.hexdigest()
        else:
            algorithm = getattr(fastdigest, name) if by_constructor else name
            if kind == 'one-shot digest':
                assert fastdigest.digest(algorithm, buffer) == hashlib.new(name, data).digest()
            else:
                assert fastdigest.hexdigest(algorithm, buffer) == hashlib.new(name, data).hexdigest()
    for ours, reference in live:
        assert ours.name == reference.name
        assert ours.digest() == reference.digest()


def rows_buffer(data, count, offset):
    """count rows of len(data) // count bytes of data, as a 2-D memoryview into a larger buffer at offset."""
    backing = bytearray(offset) + bytearray(data) + bytearray(3)
    return memoryview(backing)[offset : offset + len(data)].cast('B', (count, len(data) // count))


@settings(max_examples=examples(150), deadline=None, derandomize=True, database=None)
@given(
    name=st.sampled_from(ALGORITHMS),
    batch=st.lists(buffers, max_size=20),
    container=st.sampled_from(['list', 'tuple', 'iterator', 'rows']),
    out_kind=st.sampled_from([None, 'bytearray', 'memoryview slice', 'array I']),
    offset=st.integers(0, 15),
    threads=st.sampled_from([None, 1, 2]),
    key=st.one_of(st.none(), st.binary(max_size=300)),
)
def test_batches_match_hashlib(name, batch, container, out_kind, offset, threads, key):
    datas = [data for data, _ in batch]
    if container == 'rows':
        # The rows of a 2-D buffer are of one length: the first message's, each message cut or padded to it.
        width = max(len(datas[0]) if datas else 1, 1)
        datas = [(data * (width // max(len(data), 1) + 1) + bytes(width))[:width] for data in datas] or [bytes(width)]
        messages = rows_buffer(b''.join(datas), len(datas), offset)
    else:
        messages = {'list': list, 'tuple': tuple, 'iterator': iter}[container](buffer for _, buffer in batch)
    if key is None:
        want = [hashlib.new(name, data).digest() for data in datas]
        call = lambda **out: fastdigest.digest_many(name, messages, threads=threads, **out)  # noqa: E731
    else:
        want = [hmac.digest(key, data, name) for data in datas]
        call = lambda **out: fd_hmac.digest_many(key, messages, name, threads=threads, **out)  # noqa: E731
    if out_kind is None:
        assert call() == want
        return
    size = sum(map(len, want))
    if out_kind == 'bytearray':
        out = bytearray(size)
    elif out_kind == 'memoryview slice':
        out = memoryview(bytearray(offset + size + 3))[offset : offset + size]
    else:
        out = array.array('I', bytes(size))
    assert call(out=out) is out
    assert bytes(out) == b''.join(want)
