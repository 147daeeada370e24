"""The Python API fuzzed against hashlib: hypothesis-drawn programs that mix hash objects' update, copy,
digest and hexdigest with the one-shots fastdigest.digest/hexdigest, over random buffers of every kind
the buffer protocol offers (bytes, bytearray, memoryview slices at any offset and with a stride of
one, array.array of several item sizes), empty and block-crossing ones, for all the algorithms at once.

tests/test_properties.py covers sequences on one algorithm's objects with bytes; this mixes algorithms,
buffer types and the one-shots in one program, as the C core's libFuzzer target (tests/fuzz/) mixes
kernels and update sizes below the binding.
"""

import array
import hashlib

from hypothesis import given, settings
from hypothesis import strategies as st

import fastdigest
from conftest import examples

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
