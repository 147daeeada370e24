"""fastdigest.hmac.digest_many(key, messages, digest, /, *, threads=None, out=None) against a loop of the standard
library's hmac.digest(key, m, digest).

For the eight algorithms each message goes through a lane of the batch driver that starts from the key's inner
state and goes on with the outer hash (hash/batch.c; tests/c/test_batch.c checks the lanes of every kernel); keys of
every length (empty, short, a block, longer than a block, which is hashed first) and messages of mixed lengths in
one batch, on one thread and more, into a list or out=, from items or the rows of a 2-D buffer. Any other digest is
handed to the standard library message by message. Errors are the standard library's hmac.digest's for the key,
the digest and each message (named by its position), and digest_many()'s for out= and threads.
"""

import hashlib
import hmac
import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fastdigest
from conftest import ALGORITHMS, examples
from fastdigest import hmac as fd_hmac
from test_batch_out import BLOCK_SIZES, DIGEST_SIZES, THREAD_COUNTS, calls_with_a_bad_item, needs_numpy, np

# Enough 64-byte messages for the pipeline on two threads and more (each HMAC counts at least two blocks of work,
# and a thread is worth 1 MiB).
THREADED_COUNT = 20_001


def loop(key, messages, digest):
    """What digest_many replaces."""
    return [hmac.digest(key, m, digest) for m in messages]


def stdlib_error(call):
    with pytest.raises(Exception) as raised:
        call()
    return raised.value


def key_of(rng, kind, name):
    block = BLOCK_SIZES[name]
    length = {'empty': 0, 'short': rng.randrange(1, block), 'block': block, 'long': rng.randrange(block + 1, 4 * block)}
    return rng.randbytes(length[kind])


@settings(max_examples=examples(80), deadline=None)
@given(
    name=st.sampled_from(ALGORITHMS),
    key_kind=st.sampled_from(['empty', 'short', 'block', 'long']),
    lengths=st.lists(st.integers(0, 5 * 128 + 3), max_size=60),
    threads=st.one_of(st.none(), st.integers(1, 4)),
    to_out=st.booleans(),
    hex=st.booleans(),
    seed=st.integers(0, 2**32),
)
def test_matches_an_hmac_digest_loop(name, key_kind, lengths, threads, to_out, hex, seed):
    # Mixed lengths in one batch: lanes finish their inner hashes at different blocks and go on with their outer
    # blocks beside other lanes' messages. With hex=True, each MAC's hex digits, as the standard library's HMAC
    # object's hexdigest() gives them: a str each, or ASCII bytes in out=, 2 x digest_size a message.
    rng = random.Random(seed)
    key = key_of(rng, key_kind, name)
    messages = [rng.randbytes(n) for n in lengths]
    want = loop(key, messages, name)
    if hex:
        want = [hmac.new(key, m, name).hexdigest() for m in messages]
    if to_out:
        out = bytearray(len(messages) * DIGEST_SIZES[name] * (2 if hex else 1))
        assert fd_hmac.digest_many(key, messages, name, hex=hex, threads=threads, out=out) is out
        assert bytes(out) == (''.join(want).encode('ascii') if hex else b''.join(want))
    else:
        assert fd_hmac.digest_many(key, messages, name, hex=hex, threads=threads) == want


@pytest.mark.threads
def test_hex_on_threads():
    # Pipelined into a list, and in held stretches into out=.
    rng = random.Random(6)
    messages = [rng.randbytes(64) for _ in range(THREADED_COUNT)]
    want = [hmac.new(b'key', m, 'sha1').hexdigest() for m in messages]
    assert fd_hmac.digest_many(b'key', messages, 'sha1', hex=True, threads=2) == want
    out = bytearray(THREADED_COUNT * 40)
    assert fd_hmac.digest_many(b'key', messages, 'sha1', hex=True, threads=2, out=out) is out
    assert out.decode('ascii') == ''.join(want)


def test_every_length_and_key(algorithm):
    block = BLOCK_SIZES[algorithm]
    rng = random.Random(1)
    messages = [rng.randbytes(n) for n in range(4 * block + 2)]
    rng.shuffle(messages)
    for key in (b'', b'k', rng.randbytes(block - 1), rng.randbytes(block), rng.randbytes(block + 1), b'x' * 5000):
        assert fd_hmac.digest_many(key, messages, algorithm) == loop(key, messages, algorithm)


@pytest.mark.threads
@pytest.mark.parametrize('threads', THREAD_COUNTS)
def test_threads(algorithm, threads):
    # Pipelined on two threads and more, chunk by chunk on one; into a list and into out=.
    rng = random.Random(2)
    key = rng.randbytes(40)
    messages = [rng.randbytes(64) for _ in range(THREADED_COUNT)]
    for position in (0, 2048, 10_000, THREADED_COUNT - 1):
        messages[position] = bytearray(rng.randbytes(position % 300))
    want = loop(key, messages, algorithm)
    assert fd_hmac.digest_many(key, messages, algorithm, threads=threads) == want
    out = bytearray(THREADED_COUNT * DIGEST_SIZES[algorithm])
    assert fd_hmac.digest_many(key, tuple(messages), algorithm, threads=threads, out=out) is out
    assert bytes(out) == b''.join(want)
    # A list of bytes alone into out=: hashed in held stretches, the GIL kept and no references taken.
    out = bytearray(THREADED_COUNT * DIGEST_SIZES[algorithm])
    assert fd_hmac.digest_many(key, [bytes(m) for m in messages], algorithm, threads=threads, out=out) is out
    assert bytes(out) == b''.join(want)


@pytest.mark.threads
def test_long_messages_on_threads():
    rng = random.Random(3)
    messages = [rng.randbytes(3 << 20), b'', rng.randbytes(100), rng.randbytes((1 << 20) + 3)]
    for threads in THREAD_COUNTS:
        assert fd_hmac.digest_many(b'key', messages, 'sha512', threads=threads) == loop(b'key', messages, 'sha512')


def test_digest_forms():
    # As hmac.digest takes the digest: a name (any spelling new() takes), fastdigest's constructor, hashlib's.
    messages = [b'one', b'two' * 50, b'']
    for name in ALGORITHMS:
        want = loop(b'key', messages, name)
        assert fd_hmac.digest_many(b'key', messages, name.upper()) == want
        assert fd_hmac.digest_many(b'key', messages, getattr(fastdigest, name)) == want
        if hasattr(hashlib, name):
            assert fd_hmac.digest_many(b'key', messages, getattr(hashlib, name)) == want


def test_key_and_messages_as_any_buffer():
    key = memoryview(b'..secret..')[2:-2]
    messages = [bytearray(b'abc'), memoryview(b'defgh')[1:], b'', __import__('array').array('I', [1, 2, 3])]
    want = loop(bytes(key), [bytes(m) for m in messages], 'sha256')
    assert fd_hmac.digest_many(key, messages, 'sha256') == want
    assert fd_hmac.digest_many(bytearray(key), iter(messages), 'sha256') == want


@needs_numpy
def test_rows_of_a_2d_buffer():
    rng = random.Random(4)
    rows = np.frombuffer(rng.randbytes(300 * 64), dtype=np.uint8).reshape(300, 64)
    want = loop(b'key', [row.tobytes() for row in rows], 'sha1')
    assert fd_hmac.digest_many(b'key', rows, 'sha1') == want
    out = np.empty((300, 20), dtype=np.uint8)
    assert fd_hmac.digest_many(b'key', rows, 'sha1', out=out) is out
    assert out.tobytes() == b''.join(want)
    assert fd_hmac.digest_many(b'key', rows[::-2, 5:40], 'md5') == loop(
        b'key', [row.tobytes() for row in rows[::-2, 5:40]], 'md5'
    )
    many = np.frombuffer(rng.randbytes(THREADED_COUNT * 64), dtype=np.uint8).reshape(THREADED_COUNT, 64)
    out = np.empty((THREADED_COUNT, 32), dtype=np.uint8)
    fd_hmac.digest_many(b'key', many, 'sha256', threads=2, out=out)
    assert out.tobytes() == b''.join(loop(b'key', [row.tobytes() for row in many], 'sha256'))


def test_memoryview_rows():
    rows = memoryview(bytearray(b'abcdefghijkl')).cast('B', (4, 3))
    assert fd_hmac.digest_many(b'k', rows, 'md5') == loop(b'k', [b'abc', b'def', b'ghi', b'jkl'], 'md5')


# ---- digests handed to the standard library ------------------------------------------------------------------------


@pytest.mark.parametrize(
    'digest',
    ['sha3_256', 'blake2b', hashlib.sha3_512, lambda: hashlib.sha3_224()],
    ids=['sha3_256', 'blake2b', 'hashlib.sha3_512', 'a function'],
)
def test_other_digests_go_to_the_standard_library(digest):
    messages = [b'a', b'', b'b' * 300]
    want = loop(b'key', messages, digest)
    assert fd_hmac.digest_many(b'key', messages, digest) == want
    assert fd_hmac.digest_many(b'key', tuple(messages), digest, threads=2) == want
    out = bytearray(len(b''.join(want)))
    assert fd_hmac.digest_many(b'key', messages, digest, out=out) is out
    assert bytes(out) == b''.join(want)
    rows = memoryview(bytearray(b'abcdef')).cast('B', (2, 3))
    assert fd_hmac.digest_many(b'key', rows, digest) == loop(b'key', [b'abc', b'def'], digest)
    # hex=True: the standard library's MACs in hex, into a list or out=.
    hexes = [mac.hex() for mac in want]
    assert fd_hmac.digest_many(b'key', messages, digest, hex=True) == hexes
    out = bytearray(2 * len(b''.join(want)))
    assert fd_hmac.digest_many(b'key', messages, digest, hex=True, out=out) is out
    assert out.decode('ascii') == ''.join(hexes)


def test_other_digests_errors():
    # The standard library's errors for the key and the digest come first, even with no messages.
    for key, digest in [(b'key', 'nope'), ('text', 'sha3_256'), (b'key', 5)]:
        reference = stdlib_error(lambda key=key, digest=digest: hmac.digest(key, b'', digest))
        with pytest.raises(type(reference)) as raised:
            fd_hmac.digest_many(key, [], digest)
        assert str(raised.value) == str(reference)
    # A bad message is named by its position, in the standard library's words.
    reference = stdlib_error(lambda: hmac.digest(b'key', 'text', 'sha3_256'))
    with pytest.raises(type(reference)) as raised:
        fd_hmac.digest_many(b'key', [b'a', 'text'], 'sha3_256')
    assert str(raised.value) == 'digest_many() item 1: %s' % reference
    # out= as for the eight.
    with pytest.raises(ValueError, match=r"^digest_many\(\) argument 'out' must be 64 bytes long \(2 digests of 32"):
        fd_hmac.digest_many(b'key', [b'a', b'b'], 'sha3_256', out=bytearray(10))
    with pytest.raises(TypeError, match=r"^digest_many\(\) argument 'out' must be read-write bytes-like object"):
        fd_hmac.digest_many(b'key', [b'a', b'b'], 'sha3_256', out=bytes(64))
    backing = bytearray(64)
    with pytest.raises(ValueError, match=r"^digest_many\(\) item 1 shares memory with argument 'out'$"):
        fd_hmac.digest_many(b'key', [b'a', memoryview(backing)[60:]], 'sha3_256', out=backing)


# ---- errors -------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    'bad',
    ['text', 5, None, memoryview(b'abcdef')[::2]],
    ids=['str', 'int', 'None', 'non-contiguous'],
)
@pytest.mark.parametrize('index', [0, 2, 2050])
def test_bad_message_says_its_index(bad, index):
    # In hmac.digest's words for that message (the buffer protocol's), not hashlib's.
    reference = stdlib_error(lambda: hmac.digest(b'key', bad, 'sha256'))
    messages = [b'ok'] * 2100
    messages[index] = bad
    with pytest.raises(type(reference)) as raised:
        fd_hmac.digest_many(b'key', messages, 'sha256')
    assert type(raised.value) is type(reference)
    assert str(raised.value) == 'digest_many() item %d: %s' % (index, reference)


@pytest.mark.threads
def test_no_mac_after_a_bad_message_is_written_on_threads():
    # digest_many's promise with out= (tests/test_batch_out.py): the MACs before the bad message may be written,
    # none after it, whichever thread met its chunk first.
    reference = stdlib_error(lambda: hmac.digest(b'key', 'text', 'sha256'))
    calls_with_a_bad_item(
        lambda messages, threads, out: fd_hmac.digest_many(b'key', messages, 'sha256', threads=threads, out=out),
        32,
        30,
        error=str(reference),
    )


@pytest.mark.parametrize('key', ['text', 5, None, memoryview(b'abcdef')[::2]], ids=['str', 'int', 'None', 'strided'])
def test_bad_key_as_hmac_digest_says(key):
    reference = stdlib_error(lambda: hmac.digest(key, b'', 'sha256'))
    with pytest.raises(type(reference)) as raised:
        fd_hmac.digest_many(key, [b'a'], 'sha256')
    assert str(raised.value) == str(reference)


def test_arguments():
    with pytest.raises(TypeError, match=r'^digest_many expected 3 arguments, got 2$'):
        fd_hmac.digest_many(b'key', [b'a'])
    with pytest.raises(TypeError, match=r'^digest_many expected 3 arguments, got 4$'):
        fd_hmac.digest_many(b'key', [b'a'], 'sha256', 2)
    with pytest.raises(TypeError, match=r'^digest_many\(\): threads must be an int or None, not float$'):
        fd_hmac.digest_many(b'key', [b'a'], 'sha256', threads=1.0)
    with pytest.raises(ValueError, match=r'^digest_many\(\): threads must be at least 1 or None, not 0$'):
        fd_hmac.digest_many(b'key', [b'a'], 'sha256', threads=0)
    # An unknown keyword: this Python's words for a function of the same signature.
    namespace = {}
    exec('def digest_many(key, messages, digest, /, *, threads=None, out=None): pass', namespace)
    with pytest.raises(TypeError) as python_words:
        namespace['digest_many'](b'key', [], 'md5', thread=2)
    with pytest.raises(TypeError, match='^%s$' % re.escape(str(python_words.value))):
        fd_hmac.digest_many(b'key', [], 'md5', thread=2)
    with pytest.raises(TypeError, match='not iterable'):
        fd_hmac.digest_many(b'key', 5, 'md5')


def test_out_errors_are_digest_manys():
    with pytest.raises(ValueError, match=r"^digest_many\(\) argument 'out' must be 40 bytes long \(2 digests of 20 "):
        fd_hmac.digest_many(b'key', [b'a', b'b'], 'sha1', out=bytearray(41))
    with pytest.raises(TypeError, match=r"^digest_many\(\) argument 'out' must be contiguous buffer, not memoryview$"):
        fd_hmac.digest_many(b'key', [b'a', b'b'], 'sha1', out=memoryview(bytearray(80))[::2])
    backing = bytearray(40)
    with pytest.raises(ValueError, match=r"^digest_many\(\) item 0 shares memory with argument 'out'$"):
        fd_hmac.digest_many(b'key', [backing, b'b'], 'sha1', out=backing)


def test_digest_is_checked_before_the_key_and_messages():
    consumed = []

    def messages():
        consumed.append(True)
        yield b'a'

    with pytest.raises(TypeError):
        fd_hmac.digest_many('text key', messages(), 'sha256')
    with pytest.raises(TypeError, match='read-write'):
        fd_hmac.digest_many(b'key', messages(), 'sha256', out=b'')
    assert consumed == []
