"""fastdigest.digest(name, data) and fastdigest.hexdigest(name, data): the one-shots.

Each must equal hashlib.new(name, data).digest() / .hexdigest() for every name
new() accepts and for every fastdigest constructor, and fail as the
constructors do for bad data and as new() does for an unknown name."""

import array
import hashlib
import mmap
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fastdigest
from conftest import ALGORITHMS, examples, unsupported
from test_api import BASE_SPELLINGS, NOT_A_BUFFER, STR_DATA, raises

ONESHOTS = [('digest', lambda h: h.digest()), ('hexdigest', lambda h: h.hexdigest())]


@pytest.mark.parametrize(('oneshot', 'finish'), ONESHOTS)
@pytest.mark.parametrize('algorithm', ALGORITHMS)
def test_every_length_to_three_blocks(algorithm, oneshot, finish):
    function = getattr(fastdigest, oneshot)
    constructor = getattr(fastdigest, algorithm)
    message = bytes(range(256)) * 2
    for length in range(3 * 128 + 2):
        data = message[:length]
        expected = finish(hashlib.new(algorithm, data))
        assert function(algorithm, data) == expected, length
        assert function(constructor, data) == expected, length


@pytest.mark.parametrize('algorithm', ALGORITHMS)
def test_large_input_releases_nothing_wrong(algorithm):
    # Inputs of _GIL_MINSIZE bytes and more are hashed with the GIL released.
    for length in (fastdigest._GIL_MINSIZE - 1, fastdigest._GIL_MINSIZE, 1 << 20):
        data = bytes(range(251)) * (length // 251) + bytes(length % 251)
        assert fastdigest.digest(algorithm, data) == hashlib.new(algorithm, data).digest()


@pytest.mark.parametrize('name', BASE_SPELLINGS + [name.upper() for name in BASE_SPELLINGS])
def test_names_as_new_takes_them(name):
    expected = hashlib.new(name, b'abc').hexdigest()
    assert fastdigest.hexdigest(name, b'abc') == expected
    assert fastdigest.digest(name, b'abc') == bytes.fromhex(expected)


def buffers():
    yield b'abc'
    yield bytearray(b'abc')
    yield memoryview(b'xabcx')[1:4]
    yield array.array('B', b'abc')
    yield array.array('I', [1, 2, 3])
    with mmap.mmap(-1, 3) as mapped:
        mapped.write(b'abc')
        yield mapped


def test_every_buffer_type():
    for data in buffers():
        expected = hashlib.sha256(data).digest()
        assert fastdigest.digest('sha256', data) == expected
        assert fastdigest.hexdigest(fastdigest.sha256, data) == expected.hex()


@settings(max_examples=examples(200), deadline=None)
@given(st.sampled_from(ALGORITHMS), st.binary(max_size=600))
def test_same_as_hashlib(algorithm, data):
    assert fastdigest.digest(algorithm, data) == hashlib.new(algorithm, data).digest()
    assert fastdigest.hexdigest(algorithm, data) == hashlib.new(algorithm, data).hexdigest()


@pytest.mark.parametrize('oneshot', ['digest', 'hexdigest'])
def test_errors(oneshot):
    function = getattr(fastdigest, oneshot)
    # The data, as the constructors check it.
    raises(TypeError, lambda: function('sha256', 'abc'), STR_DATA)
    raises(TypeError, lambda: function('sha256', None), NOT_A_BUFFER)
    raises(TypeError, lambda: function('sha256', 1), NOT_A_BUFFER)
    # The name, as new() checks it (and, like new(), after the data).
    raises(ValueError, lambda: function('sha3_256', b''), unsupported('sha3_256'))
    raises(ValueError, lambda: function('', b''), unsupported(''))
    raises(TypeError, lambda: function('nope', 'abc'), STR_DATA)
    for name in (None, 1, b'sha256', hashlib.sha256, fastdigest.new, fastdigest.sha256(b'')):
        # Named as CPython's argument errors name them: by the type's tp_name.
        kind = 'None' if name is None else 'fastdigest.HASH' if type(name) is fastdigest.HASH else type(name).__name__
        raises(
            TypeError,
            lambda name=name: function(name, b''),
            f'{oneshot}() argument 1 must be str or a fastdigest constructor, not {kind}',
        )
    # The signature: two positional arguments.
    raises(TypeError, lambda: function(), f'{oneshot} expected 2 arguments, got 0')
    raises(TypeError, lambda: function('sha256'), f'{oneshot} expected 2 arguments, got 1')
    raises(TypeError, lambda: function('sha256', b'', b''), f'{oneshot} expected 2 arguments, got 3')
    no_keywords = re.compile(rf'(fastdigest\._fastdigest\.)?{oneshot}\(\) takes no keyword arguments')
    raises(TypeError, lambda: function('sha256', data=b''), no_keywords)


def test_released_memoryview():
    view = memoryview(b'abc')
    view.release()
    with pytest.raises(ValueError, match='released'):
        fastdigest.digest('sha256', view)
