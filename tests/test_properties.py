"""Incremental hashing against hashlib: every split of short messages, and hypothesis-drawn sequences of
updates, copies and digests."""

import hashlib
import random
import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fastdigest
from conftest import HASHLIB_TAKES_DATA, examples

ALGORITHMS = ('md5', 'sha1', 'sha224', 'sha256', 'sha384', 'sha512', 'sha512_224', 'sha512_256')

# Fixed example counts and derandomized runs: the suite's time and outcome do not vary between runs.
PROPERTY_SETTINGS = settings(max_examples=examples(300), deadline=None, derandomize=True, database=None)


def pseudo_random_bytes(length, seed):
    return random.Random(seed).randbytes(length)


@pytest.mark.parametrize('name', ALGORITHMS)
def test_every_two_way_split(name):
    """Every length 0 .. 3 * block_size + 1, each cut at every position into two updates, and also with the
    first part given to the constructor."""
    block_size = hashlib.new(name).block_size
    message = pseudo_random_bytes(3 * block_size + 1, seed=block_size)
    constructor = getattr(fastdigest, name)
    mismatches = []
    for length in range(len(message) + 1):
        data = message[:length]
        expected = hashlib.new(name, data).digest()
        for cut in range(length + 1):
            by_updates = fastdigest.new(name)
            by_updates.update(data[:cut])
            by_updates.update(data[cut:])
            by_constructor = constructor(data[:cut])
            by_constructor.update(data[cut:])
            if by_updates.digest() != expected or by_constructor.digest() != expected:
                mismatches.append((length, cut))
    assert not mismatches, f'{name}: wrong digests for (length, cut) {mismatches[:20]} ...'


# Chunk lengths: anything up to a few blocks, weighted towards the block boundaries of both block sizes
# (64 and 128 bytes), the padding boundaries (55/56 and 111/112), and the GIL threshold (2048).
BOUNDARY_LENGTHS = [0, 1, 2, 55, 56, 57, 63, 64, 65, 111, 112, 113, 119, 120, 127, 128, 129, 191, 192, 193,
                    255, 256, 257, 2047, 2048, 2049, 4097]  # fmt: skip
chunk_lengths = st.one_of(st.integers(0, 300), st.sampled_from(BOUNDARY_LENGTHS), st.integers(0, 5000))
chunks = st.builds(pseudo_random_bytes, chunk_lengths, st.integers(0, 2**32))

# An operation on one of the live hash objects (the index is taken modulo their number):
#   ('update', i, data)  ('copy', i)  ('digest', i)  ('hexdigest', i)
operations = st.one_of(
    st.tuples(st.just('update'), st.integers(0, 15), chunks),
    st.tuples(st.just('update'), st.integers(0, 15), chunks),
    st.tuples(st.just('copy'), st.integers(0, 15)),
    st.tuples(st.sampled_from(['digest', 'hexdigest']), st.integers(0, 15)),
)


@pytest.mark.parametrize('name', ALGORITHMS)
@PROPERTY_SETTINGS
@given(initial=st.one_of(st.none(), chunks), program=st.lists(operations, max_size=30))
def test_updates_copies_and_digests(name, initial, program):
    """Any sequence of updates (empty ones, ones crossing block boundaries), copies taken at any point and
    digests between them: each object's digest always equals that of a hashlib object given the same
    operations."""
    if initial is None:
        live = [(fastdigest.new(name), hashlib.new(name))]
    else:
        live = [(fastdigest.new(name, initial), hashlib.new(name, initial))]
    for operation in program:
        ours, reference = live[operation[1] % len(live)]
        kind = operation[0]
        if kind == 'update':
            assert ours.update(operation[2]) is None
            reference.update(operation[2])
        elif kind == 'copy':
            live.append((ours.copy(), reference.copy()))
        elif kind == 'digest':
            assert ours.digest() == reference.digest()
        else:
            assert ours.hexdigest() == reference.hexdigest()
    for ours, reference in live:
        assert ours.digest() == reference.digest()
        assert ours.name == reference.name


# The ways of passing the initial data that this Python's hashlib takes: the constructors take data= from
# 3.14 and late 3.13 (string= before, and still, deprecated from 3.15), new() data= always and string= with
# the constructors' data=.
CONSTRUCTOR_FORMS = ['positional', 'string', 'new', 'new data']
if HASHLIB_TAKES_DATA:
    CONSTRUCTOR_FORMS += ['data', 'new string']


@pytest.mark.parametrize('name', ALGORITHMS)
@PROPERTY_SETTINGS
@given(
    initial=chunks,
    later=st.lists(chunks, max_size=6),
    form=st.sampled_from(CONSTRUCTOR_FORMS),
)
def test_constructor_data_then_updates(name, initial, later, form):
    constructor = getattr(fastdigest, name)
    make = {
        'positional': lambda: constructor(initial),
        'data': lambda: constructor(data=initial),
        'string': lambda: constructor(string=initial),
        'new': lambda: fastdigest.new(name, initial),
        'new data': lambda: fastdigest.new(name, data=initial),
        'new string': lambda: fastdigest.new(name, string=initial),
    }[form]
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', DeprecationWarning)  # string= on 3.15+
        ours = make()
    reference = hashlib.new(name, initial)
    assert ours.digest() == reference.digest()
    for chunk in later:
        ours.update(chunk)
        reference.update(chunk)
    assert ours.digest() == reference.digest()
    assert ours.hexdigest() == reference.hexdigest()


@pytest.mark.parametrize('name', ALGORITHMS)
@PROPERTY_SETTINGS
@given(data=chunks, offset=st.integers(0, 15), pieces=st.lists(st.integers(0, 300), max_size=8))
def test_unaligned_memoryview_slices(name, data, offset, pieces):
    """Updates from memoryview slices starting at every offset: the kernels must read blocks at any
    alignment."""
    backing = bytearray(offset) + bytearray(data)
    view = memoryview(backing)[offset:]
    ours = fastdigest.new(name)
    start = 0
    for piece in pieces + [len(data)]:
        ours.update(view[start : start + piece])
        start = min(len(data), start + piece)
    assert ours.digest() == hashlib.new(name, data).digest()
