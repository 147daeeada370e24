"""Resumable hashing: HASH.state(), fastdigest.from_state(), pickle, copy.copy and copy.deepcopy.

The format is checked against its specification (the byte table of docs/state.md, with the initial hash values
published in RFC 1321 and FIPS 180-4), against golden blobs committed in tests/data (so that a change of the
format is caught), and by resuming: a restored object must continue to hashlib's digest of the whole
message. Malformed blobs must raise ValueError, wrong arguments TypeError, each with a message that says
what is wrong.
"""

import copy
import hashlib
import json
import os
import pickle
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fastdigest
from conftest import examples

ALGORITHMS = ('md5', 'sha1', 'sha224', 'sha256', 'sha384', 'sha512', 'sha512_224', 'sha512_256')
BLOCK_SIZE = {name: hashlib.new(name).block_size for name in ALGORITHMS}

# Fixed example counts and derandomized runs: the suite's time and outcome do not vary between runs.
PROPERTY_SETTINGS = settings(max_examples=examples(300), deadline=None, derandomize=True, database=None)

GOLDEN = json.loads((Path(__file__).parent / 'data' / 'state_golden.json').read_text())

# The format's fields, as docs/state.md specifies them.
MAGIC = b'FDST'
VERSION = 1
HEADER_LEN = 16
ALGORITHM_CODES = {name: code for code, name in enumerate(ALGORITHMS, start=1)}
STATE_DOC = Path(__file__).resolve().parent.parent / 'docs' / 'state.md'

# The chaining words of a fresh state, each big-endian, in the standard's order: MD5's A B C D from RFC 1321,
# 3.3 (printed there low-order byte first: "word A: 01 23 45 67"), the SHA initial hash values from
# FIPS 180-4, 5.3.1 to 5.3.6.
PUBLISHED_IVS = {
    'md5': '67452301 efcdab89 98badcfe 10325476',
    'sha1': '67452301 efcdab89 98badcfe 10325476 c3d2e1f0',
    'sha224': 'c1059ed8 367cd507 3070dd17 f70e5939 ffc00b31 68581511 64f98fa7 befa4fa4',
    'sha256': '6a09e667 bb67ae85 3c6ef372 a54ff53a 510e527f 9b05688c 1f83d9ab 5be0cd19',
    'sha384': 'cbbb9d5dc1059ed8 629a292a367cd507 9159015a3070dd17 152fecd8f70e5939 '
              '67332667ffc00b31 8eb44a8768581511 db0c2e0d64f98fa7 47b5481dbefa4fa4',
    'sha512': '6a09e667f3bcc908 bb67ae8584caa73b 3c6ef372fe94f82b a54ff53a5f1d36f1 '
              '510e527fade682d1 9b05688c2b3e6c1f 1f83d9abfb41bd6b 5be0cd19137e2179',
    'sha512_224': '8c3d37c819544da2 73e1996689dcd4d6 1dfab7ae32ff9c82 679dd514582f9fcf '
                  '0f6d2b697bd44da8 77e36f7304c48942 3f9d85a86a1d36c8 1112e6ad91d692a1',
    'sha512_256': '22312194fc2bf72c 9f555fa3c84c64c2 2393b86b6f53b151 963877195940eabd '
                  '96283ee2a88effe3 be5e1e2553863992 2b0199fc2c85b8aa 0eb72ddc81c52ca2',
}  # fmt: skip
CHAIN_LEN = {name: len(bytes.fromhex(iv)) for name, iv in PUBLISHED_IVS.items()}


def message(length):
    """The messages of the golden file: bytes(i % 251 for i in range(length))."""
    return bytes(i % 251 for i in range(length))


def blob(name, byte_count, chain, tail):
    """A state blob assembled field by field from the table of docs/state.md."""
    return (MAGIC + bytes([VERSION, ALGORITHM_CODES[name]]) + len(tail).to_bytes(2, 'big')
            + byte_count.to_bytes(8, 'big') + chain + tail)  # fmt: skip


def replaced(data, offset, new_bytes):
    return data[:offset] + new_bytes + data[offset + len(new_bytes) :]


# ---- the format against its specification ----------------------------------------------------------------


def test_fresh_state_is_the_published_initial_values(algorithm):
    state = fastdigest.new(algorithm).state()
    assert state == blob(algorithm, 0, bytes.fromhex(PUBLISHED_IVS[algorithm]), b'')


def test_state_before_the_first_block_holds_the_initial_values_and_the_data(algorithm):
    data = message(BLOCK_SIZE[algorithm] - 1)
    state = fastdigest.new(algorithm, data).state()
    assert state == blob(algorithm, len(data), bytes.fromhex(PUBLISHED_IVS[algorithm]), data)


@pytest.mark.parametrize('blocks', [1, 2, 3])
@pytest.mark.parametrize('offset', [-1, 0, 1])
def test_state_at_block_boundaries(algorithm, blocks, offset):
    block_size = BLOCK_SIZE[algorithm]
    data = message(blocks * block_size + offset)
    state = fastdigest.new(algorithm, data).state()

    tail_len = len(data) % block_size
    assert len(state) == HEADER_LEN + CHAIN_LEN[algorithm] + tail_len
    assert state[:6] == MAGIC + bytes([VERSION, ALGORITHM_CODES[algorithm]])
    assert int.from_bytes(state[6:8], 'big') == tail_len
    assert int.from_bytes(state[8:16], 'big') == len(data)
    assert state[HEADER_LEN + CHAIN_LEN[algorithm] :] == data[len(data) - tail_len :]
    # Once a whole block is compressed, the chain has moved on from the initial values.
    chain_is_initial = state[HEADER_LEN : HEADER_LEN + CHAIN_LEN[algorithm]] == bytes.fromhex(PUBLISHED_IVS[algorithm])
    assert chain_is_initial == (len(data) < block_size)

    restored = fastdigest.from_state(state)
    assert restored.name == algorithm
    assert restored.digest() == hashlib.new(algorithm, data).digest()
    restored.update(b'and on')
    assert restored.hexdigest() == hashlib.new(algorithm, data + b'and on').hexdigest()


def test_state_holds_only_the_tail_of_the_buffer(algorithm):
    """Bytes the block buffer keeps from an earlier block never appear in a state: hashed byte by byte
    (the buffer then still holds most of the previous block) or in one call, the states are equal."""
    data = message(2 * BLOCK_SIZE[algorithm] + 3)
    by_bytes = fastdigest.new(algorithm)
    for i in range(len(data)):
        by_bytes.update(data[i : i + 1])
    assert by_bytes.state() == fastdigest.new(algorithm, data).state()
    assert by_bytes.state().endswith(data[-3:])
    assert len(by_bytes.state()) == HEADER_LEN + CHAIN_LEN[algorithm] + 3


def test_state_is_not_changed_by_digest(algorithm):
    hash_object = fastdigest.new(algorithm, message(77))
    before = hash_object.state()
    hash_object.digest()
    hash_object.hexdigest()
    assert hash_object.state() == before


# ---- golden blobs: the format of version 1 may never change -----------------------------------------------


def test_golden_file_covers_every_algorithm():
    assert {entry['algorithm'] for entry in GOLDEN['states']} == set(ALGORITHMS)
    assert len(GOLDEN['states']) >= 7 * len(ALGORITHMS)


@pytest.mark.parametrize('entry', GOLDEN['states'], ids=lambda e: '%s-%d' % (e['algorithm'], e['length']))
def test_golden_state(entry):
    name, data, golden = entry['algorithm'], message(entry['length']), bytes.fromhex(entry['state'])
    assert fastdigest.new(name, data).state() == golden, 'the state format changed'
    restored = fastdigest.from_state(golden)
    assert restored.name == name
    assert restored.digest() == hashlib.new(name, data).digest()
    restored.update(b'tail of the message')
    assert restored.digest() == hashlib.new(name, data + b'tail of the message').digest()


def test_golden_pickle_loads():
    entry = GOLDEN['golden_pickle']
    restored = pickle.loads(bytes.fromhex(entry['pickle']))
    data = message(entry['length'])
    assert restored.name == entry['algorithm']
    assert restored.digest() == hashlib.new(entry['algorithm'], data).digest()
    restored.update(b'more')
    assert restored.digest() == hashlib.new(entry['algorithm'], data + b'more').digest()


# ---- resuming: pickle, state(), copy ----------------------------------------------------------------------


def pickle_round_trip(protocol):
    return lambda hash_object: pickle.loads(pickle.dumps(hash_object, protocol))


RESTORERS = {
    **{'pickle-%d' % protocol: pickle_round_trip(protocol) for protocol in range(pickle.HIGHEST_PROTOCOL + 1)},
    'state': lambda hash_object: fastdigest.from_state(hash_object.state()),
    'copy.copy': copy.copy,
    'copy.deepcopy': copy.deepcopy,
}

chunks = st.lists(st.binary(max_size=700), max_size=8)


@PROPERTY_SETTINGS
@given(
    name=st.sampled_from(ALGORITHMS),
    before=chunks,
    after=chunks,
    how=st.sampled_from(sorted(RESTORERS)),
)
def test_restored_object_continues_where_the_original_stopped(name, before, after, how):
    original = fastdigest.new(name)
    for chunk in before:
        original.update(chunk)
    prefix = b''.join(before)

    restored = RESTORERS[how](original)
    assert type(restored) is fastdigest.HASH and restored is not original
    assert restored.name == name
    assert restored.digest() == hashlib.new(name, prefix).digest()

    # Independent both ways: updating either leaves the other where it was.
    original.update(b'only the original sees this')
    assert restored.digest() == hashlib.new(name, prefix).digest()
    for chunk in after:
        restored.update(chunk)
    assert restored.digest() == hashlib.new(name, prefix + b''.join(after)).digest()
    assert original.digest() == hashlib.new(name, prefix + b'only the original sees this').digest()


def test_deepcopy_keeps_shared_references():
    hash_object = fastdigest.sha256(b'shared')
    copied = copy.deepcopy({'a': hash_object, 'b': hash_object})
    assert copied['a'] is copied['b'] and copied['a'] is not hash_object
    assert copied['a'].digest() == hash_object.digest()


def test_pickle_names_the_public_function():
    """Pickles refer to fastdigest.from_state, not to the extension module, whose name may change."""
    assert fastdigest.from_state.__module__ == 'fastdigest'
    assert b'cfastdigest\nfrom_state\n' in pickle.dumps(fastdigest.md5(), protocol=0)
    assert fastdigest.sha1().__reduce__() == (fastdigest.from_state, (fastdigest.sha1().state(),))


CHILD = r"""
import pickle, sys
import fastdigest
cases = pickle.load(sys.stdin.buffer)
results = []
for pickled, rest in cases:
    hash_object = pickle.loads(pickled)
    hash_object.update(rest)
    results.append((hash_object.name, hash_object.hexdigest(), pickle.dumps(hash_object), fastdigest.implementation))
pickle.dump(results, sys.stdout.buffer)
"""


@pytest.mark.parametrize('backend', ['best', 'portable'])
def test_pickle_resumes_in_a_child_process(backend):
    """Pickled here, continued in another process (also one running the portable kernels: a state does not
    depend on the backend), pickled there and finished here."""
    cases, expected = [], []
    for name in ALGORITHMS:
        block_size = BLOCK_SIZE[name]
        for length in (0, 1, block_size - 1, block_size, block_size + 1, 1000):
            data = message(length + 300)
            first, rest = data[:length], data[length : length + 150]
            cases.append((pickle.dumps(fastdigest.new(name, first), protocol=2 + length % 4), rest))
            expected.append((name, data[: length + 150], data[length + 150 :]))

    environment = dict(os.environ, FASTDIGEST_BACKEND=backend)
    result = subprocess.run([sys.executable, '-c', CHILD], input=pickle.dumps(cases), capture_output=True,
                            env=environment, timeout=120)  # fmt: skip
    assert result.returncode == 0, result.stderr.decode()
    results = pickle.loads(result.stdout)
    assert len(results) == len(cases)
    for (name, hexdigest, pickled_back, implementation), (expected_name, done, still_to_do) in zip(
        results, expected, strict=True
    ):
        assert name == expected_name
        assert hexdigest == hashlib.new(name, done).hexdigest()
        if backend == 'portable':
            assert implementation[name] == 'portable'
        finished = pickle.loads(pickled_back)
        finished.update(still_to_do)
        assert finished.digest() == hashlib.new(name, done + still_to_do).digest()


# ---- bad states ---------------------------------------------------------------------------------------------


def valid_state(name, length):
    return fastdigest.new(name, message(length)).state()


def assert_refused(data, pattern):
    with pytest.raises(ValueError, match='^invalid fastdigest state: ' + pattern):
        fastdigest.from_state(data)


@pytest.mark.parametrize('argument', ['FDST', 1, None, [70, 68, 83, 84], object(), 2.5])
def test_non_bytes_argument_is_a_type_error(argument):
    with pytest.raises(TypeError, match='from_state\\(\\) argument must be a bytes-like object, not'):
        fastdigest.from_state(argument)


def test_non_contiguous_buffer_is_a_type_error():
    doubled = bytes(b for b in valid_state('sha256', 10) for _ in range(2))
    with pytest.raises(TypeError, match='contiguous'):
        fastdigest.from_state(memoryview(doubled)[::2])


def test_wrong_argument_count_is_a_type_error():
    with pytest.raises(TypeError):
        fastdigest.from_state()
    with pytest.raises(TypeError):
        fastdigest.from_state(b'', b'')


@pytest.mark.parametrize('kind', [bytearray, memoryview])
def test_any_bytes_like_object_is_accepted(kind):
    state = valid_state('sha512', 200)
    assert fastdigest.from_state(kind(state)).state() == state


def test_every_truncation_is_refused(algorithm):
    state = valid_state(algorithm, BLOCK_SIZE[algorithm] + 5)
    for length in range(len(state)):
        assert_refused(state[:length], 'truncated: %d bytes' % length)


@pytest.mark.parametrize('extra', [b'\0', b'\0' * 7, b'more data'])
def test_padding_is_refused(algorithm, extra):
    state = valid_state(algorithm, 3)
    assert_refused(state + extra, '%d bytes, .* %d extra byte' % (len(state) + len(extra), len(extra)))


@pytest.mark.parametrize('magic', [b'fdst', b'FDS\0', b'\0\0\0\0', b'\x89PNG'])
def test_unknown_magic_is_refused(magic):
    assert_refused(replaced(valid_state('md5', 10), 0, magic), 'it does not start with the magic bytes FDST')


@pytest.mark.parametrize('data', [b'x', b'FX', b'{"state'])
def test_something_else_is_called_that(data):
    assert_refused(data, 'it does not start with the magic bytes')


@pytest.mark.parametrize('version', [0, 2, 255])
def test_unknown_version_is_refused(version):
    assert_refused(
        replaced(valid_state('sha1', 10), 4, bytes([version])),
        re.escape('format version %d is not supported (this fastdigest reads version 1)' % version),
    )


def test_every_algorithm_writes_the_code_the_format_documents():
    # The codes are part of the format: each algorithm's row of the extension's table (kernels/kernel.h's
    # FD_ALGORITHMS) gives its code, and docs/state.md lists them. Every algorithm of the table is listed,
    # with the code its states carry, and the documented codes are those the tests use.
    if not STATE_DOC.exists():
        pytest.skip('docs/state.md is not beside these tests (a copy of tests/ run against an installed package): '
                    'the run in the checkout compares it')  # fmt: skip
    row = next(line for line in STATE_DOC.read_text(encoding='utf-8').splitlines() if line.startswith('| 5 | 1 |'))
    documented = {name: int(code) for code, name in re.findall(r'(\d+) ([a-z0-9_]+)', row)}
    written = {name: fastdigest.new(name).state()[5] for name in fastdigest._fastdigest._algorithms}
    assert documented == written
    assert {name: documented[name] for name in ALGORITHMS} == ALGORITHM_CODES


# 0, the first code past the table's (the codes are 1 to the number of algorithms), and two far off.
@pytest.mark.parametrize('code', [0, len(fastdigest._fastdigest._algorithms) + 1, 100, 255])
def test_unknown_algorithm_is_refused(code):
    assert_refused(replaced(valid_state('sha1', 10), 5, bytes([code])), 'unknown algorithm code %d' % code)


@pytest.mark.parametrize('extra', [0, 1, 200])
def test_tail_as_long_as_a_block_is_refused(algorithm, extra):
    block_size = BLOCK_SIZE[algorithm]
    tail_len = block_size + extra
    forged = replaced(valid_state(algorithm, 10), 6, tail_len.to_bytes(2, 'big'))
    assert_refused(forged, "a buffered tail of %d bytes is not shorter than %s's %d-byte block"
                   % (tail_len, algorithm, block_size))  # fmt: skip


@pytest.mark.parametrize('count_change', [1, -1, 7])
def test_tail_inconsistent_with_byte_count_is_refused(algorithm, count_change):
    length = BLOCK_SIZE[algorithm] + 20
    state = valid_state(algorithm, length)
    assert_refused(
        replaced(state, 8, (length + count_change).to_bytes(8, 'big')),
        'a buffered tail of 20 bytes does not match the byte count %d' % (length + count_change),
    )


def test_tail_length_field_inconsistent_with_byte_count_is_refused(algorithm):
    state = valid_state(algorithm, 10)
    assert_refused(
        replaced(state, 6, (11).to_bytes(2, 'big')), 'a buffered tail of 11 bytes does not match the byte count 10'
    )


@pytest.mark.parametrize('name', ['sha1', 'sha224', 'sha256'])
def test_byte_count_beyond_the_standard_is_refused(name):
    """SHA-1 and SHA-224/256 take messages of less than 2**64 bits (FIPS 180-4, section 1)."""
    state = valid_state(name, 70)
    too_long = 2**61 + 6
    assert_refused(
        replaced(state, 8, too_long.to_bytes(8, 'big')),
        "the byte count %d exceeds %s's limit of %d bytes" % (too_long, name, 2**61 - 1),
    )
    longest = 2**61 - 64 + 6
    resumed = fastdigest.from_state(replaced(state, 8, longest.to_bytes(8, 'big')))
    assert int.from_bytes(resumed.state()[8:16], 'big') == longest


@pytest.mark.parametrize('name', ['md5', 'sha384', 'sha512', 'sha512_224', 'sha512_256'])
def test_any_64_bit_byte_count_is_accepted_where_the_standard_allows_it(name):
    block_size = BLOCK_SIZE[name]
    state = valid_state(name, block_size + 6)
    largest = 2**64 - block_size + 6
    resumed = fastdigest.from_state(replaced(state, 8, largest.to_bytes(8, 'big')))
    resumed.update(b'x' * block_size)  # the count wraps, as the 64-bit count of the core does
    assert len(resumed.digest()) == resumed.digest_size


def test_changed_chain_before_the_first_block_is_refused(algorithm):
    """Until a whole block is hashed, the chaining words can only be the initial values."""
    state = valid_state(algorithm, 5)
    for offset in range(HEADER_LEN, HEADER_LEN + CHAIN_LEN[algorithm]):
        changed = replaced(state, offset, bytes([state[offset] ^ 0x10]))
        assert_refused(changed, "the chaining words differ from %s's initial values" % algorithm)


def test_state_of_one_algorithm_with_another_code_is_refused_before_a_block():
    """sha224 and sha256 share a compression: early states still name the right one."""
    state = valid_state('sha224', 10)
    assert_refused(replaced(state, 5, bytes([ALGORITHM_CODES['sha256']])), 'the chaining words differ')


# Random corruption of valid blobs: byte flips, truncations and extensions. The outcome is a ValueError, or a
# valid state, which must then be exactly the blob given (the format has no ignored bytes) and hash on.
corruptions = st.one_of(
    st.tuples(
        st.just('flip'), st.lists(st.tuples(st.integers(0, 300), st.integers(1, 255)), min_size=1, max_size=4)
    ),  # fmt: skip
    st.tuples(st.just('truncate'), st.integers(0, 300)),
    st.tuples(st.just('extend'), st.binary(min_size=1, max_size=40)),
)


@PROPERTY_SETTINGS
@given(name=st.sampled_from(ALGORITHMS), length=st.integers(0, 400), corruption=corruptions)
def test_corrupted_states_raise_value_error_or_resume_exactly(name, length, corruption):
    state = bytearray(valid_state(name, length))
    kind, detail = corruption
    if kind == 'flip':
        for index, mask in detail:
            state[index % len(state)] ^= mask
    elif kind == 'truncate':
        del state[detail % len(state) :]
    else:
        state += detail
    try:
        resumed = fastdigest.from_state(bytes(state))
    except ValueError as error:
        assert str(error).startswith('invalid fastdigest state: ')
        return
    assert resumed.state() == bytes(state)
    resumed.update(b'x' * 300)
    assert len(resumed.digest()) == resumed.digest_size
