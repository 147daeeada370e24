"""digest_many(name, messages, hex=True) against hashlib's hexdigest(), into a list and into out=.

hex=True gives each digest as its lowercase hex digits, as hexdigest() does: a list of str, or with out= the digits
as ASCII bytes, 2 x digest_size a message, one message after another. The digits are written by the thread that
hashed the message (hash/batch.c), so every path of the threads is checked: chunk by chunk, pipelined, held
stretches, rows of a 2-D buffer. hex is taken for its truth, as digest_array() takes it.
"""

import hashlib
import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fastdigest
from conftest import ALGORITHMS, examples
from test_batch_out import DIGEST_SIZES, OUT_KINDS, THREAD_COUNTS, THREADED_COUNT, needs_numpy, np, out_buffer


def hexdigests(name, messages):
    return [hashlib.new(name, bytes(m)).hexdigest() for m in messages]


def check_hex(name, messages, threads=None, kind=None, source=None):
    """digest_many(name, source or messages, hex=True) into a list, or into an out= of this kind: each message's
    hexdigest(), in order."""
    want = hexdigests(name, messages)
    given_messages = messages if source is None else source
    if kind is None:
        result = fastdigest.digest_many(name, given_messages, hex=True, threads=threads)
        assert all(type(digest) is str for digest in result)
        assert result == want
        return
    out, read_back = out_buffer(kind, len(messages), 2 * DIGEST_SIZES[name])
    assert fastdigest.digest_many(name, given_messages, hex=True, threads=threads, out=out) is out
    written = read_back()
    if kind == 'memoryview slice':
        before, after, written = written
        assert before == b'\xee' * 3 and after == b'\xee' * 7
    assert written == ''.join(want).encode('ascii')


@settings(max_examples=examples(80), deadline=None)
@given(
    name=st.sampled_from(ALGORITHMS),
    lengths=st.lists(st.integers(0, 5 * 128 + 3), max_size=60),
    kind=st.sampled_from([None, *OUT_KINDS]),
    threads=st.one_of(st.none(), st.integers(1, 4)),
    seed=st.integers(0, 2**32),
)
def test_hex_matches_hashlib(name, lengths, kind, threads, seed):
    rng = random.Random(seed)
    check_hex(name, [rng.randbytes(n) for n in lengths], threads, kind)


@pytest.mark.threads
@pytest.mark.parametrize('kind', [None, 'bytearray'])
def test_hex_on_threads(algorithm, kind):
    # Enough short messages to pipeline (a list into a list) or hash in held stretches (a list into out=) on every
    # thread count, then a tuple with a bytearray in it (the usual way with views), then long messages cut into
    # pieces for the threads.
    rng = random.Random(37)
    messages = [rng.randbytes(rng.randrange(150)) for _ in range(THREADED_COUNT)]
    for threads in THREAD_COUNTS:
        check_hex(algorithm, messages, threads, kind)
    mixed = list(messages)
    mixed[30_000] = bytearray(mixed[30_000])
    check_hex(algorithm, mixed, 2, kind, source=tuple(mixed))
    long_messages = [rng.randbytes(rng.randrange(1 << 20, 2 << 20)) for _ in range(5)]
    check_hex(algorithm, long_messages, None, kind)


@needs_numpy
@pytest.mark.parametrize('threads', [1, None])
def test_hex_rows_into_a_numpy_array_of_strings(threads):
    # The rows of a 2-D array, hashed in place, into an array of fixed-width byte strings: each element the hex
    # digest of its row, as NumPy reads it back.
    rows = np.frombuffer(random.Random(5).randbytes(40_000 * 48), dtype=np.uint8).reshape(40_000, 48)
    out = np.empty(len(rows), dtype='S64')
    assert fastdigest.digest_many('sha256', rows, hex=True, threads=threads, out=out) is out
    assert out.tolist() == [hashlib.sha256(row).hexdigest().encode() for row in rows]
    assert fastdigest.digest_many('sha256', rows, hex=True, threads=threads) == hexdigests('sha256', rows)


def test_hex_is_taken_for_its_truth():
    messages = [b'a', b'b']
    assert fastdigest.digest_many('md5', messages, hex=False) == fastdigest.digest_many('md5', messages)
    assert fastdigest.digest_many('md5', messages, hex=0) == [hashlib.md5(m).digest() for m in messages]
    assert fastdigest.digest_many('md5', messages, hex=1) == hexdigests('md5', messages)
    assert fastdigest.digest_many('md5', messages, hex='yes') == hexdigests('md5', messages)
    assert fastdigest.digest_many('md5', [], hex=True) == []

    class NoTruth:
        def __bool__(self):
            raise ZeroDivisionError('no truth')

    with pytest.raises(ZeroDivisionError, match='^no truth$'):
        fastdigest.digest_many('md5', messages, hex=NoTruth())


def test_hex_is_keyword_only():
    with pytest.raises(TypeError, match='expected 2 arguments, got 3'):
        fastdigest.digest_many('md5', [b'a'], True)


def test_hex_out_is_twice_the_digests():
    # out= holds the digits, two a byte: the digests' size is refused, in words that say hex digests.
    message = "digest_many() argument 'out' must be 192 bytes long (3 hex digests of 64 bytes), not 96"
    with pytest.raises(ValueError, match='^%s$' % re.escape(message)):
        fastdigest.digest_many('sha256', [b'a', b'b', b'c'], hex=True, out=bytearray(96))
    out = bytearray(192)
    assert fastdigest.digest_many('sha256', [b'a', b'b', b'c'], hex=True, out=out) is out
    assert out.decode('ascii') == ''.join(hexdigests('sha256', [b'a', b'b', b'c']))


def test_hex_bad_item_and_shared_memory_as_without_hex():
    with pytest.raises(TypeError, match=r'^digest_many\(\) item 1: Strings must be encoded before hashing$'):
        fastdigest.digest_many('sha256', [b'a', 'b'], hex=True)
    backing = bytearray(128)
    with pytest.raises(ValueError, match=r"^digest_many\(\) item 1 shares memory with argument 'out'$"):
        fastdigest.digest_many('sha256', [b'a', memoryview(backing)[100:]], hex=True, out=backing)


def test_hex_single_stream_path_used_by_the_benchmark():
    messages = [bytes(range(n)) for n in range(40)]
    assert fastdigest._fastdigest._digest_many_single_stream('sha1', messages, hex=True) == hexdigests('sha1', messages)
