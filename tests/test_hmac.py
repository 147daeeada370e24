"""fastdigest.hmac and fastdigest.pbkdf2_hmac: published vectors, equality with the standard library
(hmac, hashlib.pbkdf2_hmac) for generated inputs, the standard library's errors for bad input, and the
behaviour of the HMAC objects (copies, pickling, threads).

Vector sources:
- RFC 2202 (HMAC-MD5, HMAC-SHA1) and RFC 4231 (HMAC-SHA-224/256/384/512), as transcribed in PyPI's
  `cryptography-vectors` (files HMAC/rfc-2202-*.txt and HMAC/rfc-4231-*.txt); RFC 4231 test case 5, whose
  output is truncated to 128 bits and which those files leave out, is written out below from the RFC.
- RFC 6070 (PBKDF2-HMAC-SHA1), from cryptography-vectors' KDF/rfc-6070-PBKDF2-SHA1.txt, including its
  16,777,216-iteration case.
- RFC 7914 section 11 (PBKDF2-HMAC-SHA256), written out below from the RFC.
"""

import array
import copy
import functools
import hashlib
import hmac as stdlib_hmac
import importlib.resources
import json
import mmap
import os
import pickle
import random
import shutil
import subprocess
import sys
import sysconfig
import threading
import time
import types
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fastdigest
import fastdigest.hmac as fd_hmac
from conftest import examples

ALGORITHMS = ('md5', 'sha1', 'sha224', 'sha256', 'sha384', 'sha512', 'sha512_224', 'sha512_256')
BLOCK_SIZES = {'md5': 64, 'sha1': 64, 'sha224': 64, 'sha256': 64}  # the SHA-512 family: 128


def block_size(name):
    return BLOCK_SIZES.get(name, 128)


def stdlib_pbkdf2_available(name):
    """hashlib.pbkdf2_hmac runs OpenSSL's PBKDF2, which knows sha512_224 and sha512_256 on OpenSSL 1.1.1+."""
    try:
        hashlib.pbkdf2_hmac(name, b'p', b's', 1)
    except ValueError:
        return False
    return True


# --- published vectors -------------------------------------------------------------------------------


def vector_file(*parts):
    try:
        package = importlib.import_module('cryptography_vectors')
    except ImportError as error:
        pytest.fail('the test vectors need cryptography-vectors (pip install cryptography-vectors): %s' % error)
    return importlib.resources.files(package).joinpath(*parts).read_text()


def parse_records(text):
    """Records of `Name = value` lines, separated by blank lines; comments are skipped."""
    records, current = [], {}
    for line in text.splitlines() + ['']:
        line = line.strip()
        if not line:
            if current:
                records.append(current)
                current = {}
        elif not line.startswith('#') and '=' in line:
            name, value = (part.strip() for part in line.split('=', 1))
            current[name] = value
    return records


HMAC_FILES = {
    'md5': 'rfc-2202-md5.txt',
    'sha1': 'rfc-2202-sha1.txt',
    'sha224': 'rfc-4231-sha224.txt',
    'sha256': 'rfc-4231-sha256.txt',
    'sha384': 'rfc-4231-sha384.txt',
    'sha512': 'rfc-4231-sha512.txt',
}


def hmac_vectors():
    cases = []
    for name, filename in HMAC_FILES.items():
        records = parse_records(vector_file('HMAC', filename))
        assert len(records) >= 6, filename  # RFC 2202 has 7 cases; RFC 4231 7, of which the files keep 6
        for number, record in enumerate(records):
            cases.append(
                pytest.param(
                    name,
                    bytes.fromhex(record['Key']),
                    bytes.fromhex(record['Msg']),
                    record['MD'],
                    id='%s-%d' % (filename, number),
                )
            )
    return cases


@pytest.mark.parametrize('name, key, msg, expected', hmac_vectors())
def test_rfc_2202_and_4231(name, key, msg, expected):
    constructor = getattr(fastdigest, name)
    assert fd_hmac.digest(key, msg, name).hex() == expected
    assert fd_hmac.digest(key, msg, constructor).hex() == expected
    assert fd_hmac.new(key, msg, name).hexdigest() == expected
    # The same message fed in pieces that straddle the block boundaries.
    mac = fd_hmac.new(key, digestmod=constructor)
    for start in range(0, len(msg), 7):
        mac.update(msg[start : start + 7])
    assert mac.hexdigest() == expected
    assert mac.digest().hex() == expected


# RFC 4231, 4.6 (test case 5): "Test With Truncation", output truncated to 128 bits.
RFC_4231_CASE_5 = {
    'sha224': '0e2aea68a90c8d37c988bcdb9fca6fa8',
    'sha256': 'a3b6167473100ee06e0c796c2955552b',
    'sha384': '3abf34c3503b2a23a46efc619baef897',
    'sha512': '415fad6271580a531d4179bc891d87a6',
}


@pytest.mark.parametrize('name', sorted(RFC_4231_CASE_5))
def test_rfc_4231_truncated_case(name):
    key = bytes([0x0C]) * 20
    assert fd_hmac.digest(key, b'Test With Truncation', name)[:16].hex() == RFC_4231_CASE_5[name]


def pbkdf2_sha1_vectors():
    cases = []
    for record in parse_records(vector_file('KDF', 'rfc-6070-PBKDF2-SHA1.txt')):
        # The file writes RFC 6070's NUL bytes as \0.
        password = record['PASSWORD'].replace('\\0', '\0').encode()
        salt = record['SALT'].replace('\\0', '\0').encode()
        cases.append(
            pytest.param(
                password,
                salt,
                int(record['ITERATIONS']),
                int(record['LENGTH']),
                record['DERIVED_KEY'],
                id='iterations=%s' % record['ITERATIONS'],
            )
        )
    assert len(cases) == 6
    return cases


@pytest.mark.parametrize('password, salt, iterations, length, expected', pbkdf2_sha1_vectors())
def test_rfc_6070(password, salt, iterations, length, expected):
    assert fastdigest.pbkdf2_hmac('sha1', password, salt, iterations, length).hex() == expected


# RFC 7914, section 11: the PBKDF2-HMAC-SHA256 test vectors.
RFC_7914_PBKDF2_SHA256 = [
    (
        b'passwd',
        b'salt',
        1,
        64,
        (
            '55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc'
            '49ca9cccf179b645991664b39d77ef317c71b845b1e30bd509112041d3a19783'
        ),
    ),
    (
        b'Password',
        b'NaCl',
        80000,
        64,
        (
            '4ddcd8f60b98be21830cee5ef22701f9641a4418d04c0414aeff08876b34ab56'
            'a1d425a1225833549adb841b51c9b3176a272bdebba1d078478f62b397f33c8d'
        ),
    ),
]


@pytest.mark.parametrize('password, salt, iterations, length, expected', RFC_7914_PBKDF2_SHA256)
def test_rfc_7914(password, salt, iterations, length, expected):
    assert fastdigest.pbkdf2_hmac('sha256', password, salt, iterations, length).hex() == expected
    assert fastdigest.pbkdf2_hmac('sha256', password, salt, iterations, dklen=length).hex() == expected


# --- equality with the standard library --------------------------------------------------------------


@pytest.mark.parametrize('name', ALGORITHMS)
def test_key_and_message_lengths_around_the_block(name):
    # Keys shorter than, equal to and longer than a block (hashed first), and messages whose padding
    # fits in their last block or needs one more.
    block = block_size(name)
    for key_len in (0, 1, block - 1, block, block + 1, 2 * block + 3):
        key = bytes((7 * i + key_len) & 0xFF for i in range(key_len))
        for msg_len in (0, 1, block - 9, block - 8, block - 1, block, block + 1, 3 * block + 17):
            msg = bytes((3 * i + 1) & 0xFF for i in range(msg_len))
            expected = stdlib_hmac.new(key, msg, name).digest()
            assert fd_hmac.digest(key, msg, name) == expected, (key_len, msg_len)
            assert fd_hmac.new(key, msg, name).digest() == expected, (key_len, msg_len)


@pytest.mark.parametrize('name', ALGORITHMS)
def test_object_attributes_match_stdlib(name):
    ours = fd_hmac.new(b'key', b'msg', name)
    theirs = stdlib_hmac.new(b'key', b'msg', name)
    assert type(ours) is fd_hmac.HMAC
    assert ours.name == theirs.name == 'hmac-' + name
    assert ours.digest_size == theirs.digest_size
    assert ours.block_size == theirs.block_size
    assert ours.hexdigest() == theirs.hexdigest()
    # fastdigest's constructors name the same algorithm as the string.
    assert fd_hmac.new(b'key', b'msg', getattr(fastdigest, name)).digest() == theirs.digest()


def test_names_are_looked_up_as_hashlib_new_does():
    expected = stdlib_hmac.digest(b'k', b'm', 'sha256')
    for spelling in ('SHA256', 'Sha256', 'sha-256', 'SHA2-256'):
        assert fd_hmac.digest(b'k', b'm', spelling) == expected
        mac = fd_hmac.new(b'k', b'm', digestmod=spelling)
        assert type(mac) is fd_hmac.HMAC and mac.name == 'hmac-sha256'


@settings(max_examples=examples(300), deadline=None)
@given(
    name=st.sampled_from(ALGORITHMS),
    key=st.binary(max_size=300),
    chunks=st.lists(st.binary(max_size=300), max_size=6),
)
def test_hmac_matches_stdlib(name, key, chunks):
    msg = b''.join(chunks)
    expected = stdlib_hmac.new(key, msg, name)
    assert fd_hmac.digest(key, msg, name) == expected.digest()
    mac = fd_hmac.new(key, digestmod=name)
    for index, chunk in enumerate(chunks):
        mac.update(chunk)
        # A digest midway changes nothing, and a copy goes its own way.
        assert mac.digest() == stdlib_hmac.new(key, b''.join(chunks[: index + 1]), name).digest()
        fork = mac.copy()
        fork.update(b'fork')
    assert mac.digest() == expected.digest()
    assert mac.hexdigest() == expected.hexdigest()


@settings(max_examples=examples(300), deadline=None)
@given(
    name=st.sampled_from(ALGORITHMS),
    password=st.binary(max_size=200),
    salt=st.binary(max_size=200),
    iterations=st.integers(min_value=1, max_value=40),
    dklen=st.one_of(st.none(), st.integers(min_value=1, max_value=200)),
)
def test_pbkdf2_matches_hashlib(name, password, salt, iterations, dklen):
    if not stdlib_pbkdf2_available(name):
        # hashlib has no PBKDF2 for this name here; the RFC construction written out in Python instead.
        expected = pbkdf2_by_definition(name, password, salt, iterations, dklen)
    else:
        expected = hashlib.pbkdf2_hmac(name, password, salt, iterations, dklen)
    assert fastdigest.pbkdf2_hmac(name, password, salt, iterations, dklen) == expected


def pbkdf2_by_definition(name, password, salt, iterations, dklen):
    """RFC 8018, 5.2, on the standard library's hmac."""
    size = hashlib.new(name).digest_size
    dklen = size if dklen is None else dklen
    output = b''
    index = 1
    while len(output) < dklen:
        u = stdlib_hmac.digest(password, salt + index.to_bytes(4, 'big'), name)
        t = int.from_bytes(u, 'big')
        for _ in range(iterations - 1):
            u = stdlib_hmac.digest(password, u, name)
            t ^= int.from_bytes(u, 'big')
        output += t.to_bytes(size, 'big')
        index += 1
    return output[:dklen]


def expected_pbkdf2(name, password, salt, iterations, dklen):
    if stdlib_pbkdf2_available(name):
        return hashlib.pbkdf2_hmac(name, password, salt, iterations, dklen)
    return pbkdf2_by_definition(name, password, salt, iterations, dklen)


# Output blocks are derived side by side (hash/hmac.c): two through SHA-NI's streams, up to four
# through the SHA-512 family's AVX-512 lanes, up to eight or sixteen through a multi-buffer kernel's,
# the rest one at a time. Lengths of 1 to 17 digests, cut anywhere in the last, meet every round
# size and an odd block left alone.
@settings(max_examples=examples(250), deadline=None)
@given(
    name=st.sampled_from(ALGORITHMS),
    password=st.binary(max_size=150),
    salt=st.binary(max_size=80),
    iterations=st.integers(min_value=1, max_value=3000),
    blocks=st.integers(min_value=1, max_value=17),
    cut=st.integers(min_value=0, max_value=63),
)
def test_pbkdf2_blocks_side_by_side_match_hashlib(name, password, salt, iterations, blocks, cut):
    dklen = blocks * hashlib.new(name).digest_size - cut % hashlib.new(name).digest_size
    expected = expected_pbkdf2(name, password, salt, iterations, dklen)
    assert fastdigest.pbkdf2_hmac(name, password, salt, iterations, dklen) == expected


PBKDF2_CHILD = """
import json, sys, fastdigest
cases = json.loads(sys.argv[1])
print(json.dumps([fastdigest.pbkdf2_hmac(name, bytes.fromhex(password), bytes.fromhex(salt), iterations,
                                         dklen).hex() for name, password, salt, iterations, dklen in cases]))
"""


# The same derivations with the kernels of other CPUs on this one: SHA-NI hidden leaves the AVX-512
# and AVX2 lanes (x86-64), hiding AVX-512 too leaves AVX2's, hiding everything the portable C. Names
# this CPU or architecture lacks mask nothing, so on such machines some runs repeat one another.
@pytest.mark.parametrize('disable', ['shani', 'shani,avx512', 'shani,avx512,avx2,ssse3,armsha1,armsha2,armsha512'])
def test_pbkdf2_blocks_side_by_side_under_other_kernels(disable):
    rng = random.Random(22)
    cases = []
    for name in ALGORITHMS:
        size = hashlib.new(name).digest_size
        for blocks in (1, 2, 3, 4, 5, 8, 9, 16, 17):
            dklen = blocks * size - rng.randrange(size)
            cases.append(
                (
                    name,
                    rng.randbytes(rng.randrange(100)).hex(),
                    rng.randbytes(rng.randrange(40)).hex(),
                    rng.randrange(1, 300),
                    dklen,
                )
            )
    environment = dict(os.environ, FASTDIGEST_DISABLE=disable)
    environment.pop('FASTDIGEST_BACKEND', None)
    child = subprocess.run(
        [sys.executable, '-c', PBKDF2_CHILD, json.dumps(cases)],
        env=environment,
        capture_output=True,
        text=True,
        check=False,
    )
    assert child.returncode == 0, child.stderr
    derived = json.loads(child.stdout)
    for (name, password, salt, iterations, dklen), result in zip(cases, derived, strict=True):
        expected = expected_pbkdf2(name, bytes.fromhex(password), bytes.fromhex(salt), iterations, dklen)
        assert result == expected.hex(), (disable, name, iterations, dklen)


@pytest.mark.parametrize('name', ALGORITHMS)
def test_pbkdf2_output_lengths(name):
    # dklen around multiples of the digest size: the last block is cut, and each block has its own
    # INT(i). Checked against the RFC's construction, and against hashlib where it has the name.
    size = hashlib.new(name).digest_size
    for dklen in (1, size - 1, size, size + 1, 2 * size, 3 * size - 5):
        expected = pbkdf2_by_definition(name, b'pass', b'NaCl', 3, dklen)
        assert fastdigest.pbkdf2_hmac(name, b'pass', b'NaCl', 3, dklen) == expected, dklen
        if stdlib_pbkdf2_available(name):
            assert hashlib.pbkdf2_hmac(name, b'pass', b'NaCl', 3, dklen) == expected


def test_pbkdf2_long_password_is_hashed_first():
    for name in ('sha1', 'sha256', 'sha512'):
        password = bytes(range(256)) * 2
        assert fastdigest.pbkdf2_hmac(name, password, b'salt', 5) == hashlib.pbkdf2_hmac(name, password, b'salt', 5)


def test_buffers_of_any_kind():
    key, msg = b'0123456789abcdef', b'message' * 50
    expected = stdlib_hmac.digest(key, msg, 'sha256')
    for wrap in (
        bytes,
        bytearray,
        memoryview,
        lambda b: array.array('B', b),
        lambda b: memoryview(b).cast('B', (len(b) // 2, 2)) if len(b) % 2 == 0 else b,
    ):
        assert fd_hmac.digest(wrap(key), wrap(msg), 'sha256') == expected
        # new() takes a key as the stdlib's HMAC does, bytes or bytearray only, and refuses any other with its
        # message; the message may be any buffer.
        assert outcome(lambda: fd_hmac.new(wrap(key), wrap(msg), 'sha256')) == outcome(
            lambda: stdlib_hmac.new(wrap(key), wrap(msg), 'sha256')
        )
        assert fd_hmac.new(key, wrap(msg), 'sha256').digest() == expected
        mac = fd_hmac.new(key, digestmod='sha256')
        mac.update(wrap(msg))
        assert mac.digest() == expected
        assert fastdigest.pbkdf2_hmac('sha256', wrap(key), wrap(msg), 2) == hashlib.pbkdf2_hmac('sha256', key, msg, 2)
    # The message keyword, and msg=None meaning no message.
    assert fd_hmac.new(key=key, msg=None, digestmod='sha256').digest() == stdlib_hmac.digest(key, b'', 'sha256')
    mac = fd_hmac.new(key, digestmod='sha256')
    mac.update(msg=msg)
    assert mac.digest() == expected
    assert fd_hmac.digest(key=key, msg=msg, digest='sha256') == expected


def test_long_messages_take_the_gil_free_path():
    # At and above fastdigest._GIL_MINSIZE the hashing runs without the GIL; the result is the same.
    for size in (fastdigest._GIL_MINSIZE - 1, fastdigest._GIL_MINSIZE, 1 << 20):
        msg = bytes(range(256)) * (size // 256) + b'x' * (size % 256)
        expected = stdlib_hmac.digest(b'key', msg, 'sha512')
        assert fd_hmac.digest(b'key', msg, 'sha512') == expected
        assert fd_hmac.new(b'key', msg, 'sha512').digest() == expected
        mac = fd_hmac.new(b'key', digestmod='sha512')
        mac.update(msg)
        assert mac.digest() == expected
        # A key that long (hashed first) is part of the work too.
        assert fd_hmac.digest(msg, b'm', 'sha1') == stdlib_hmac.digest(msg, b'm', 'sha1')


# --- digestmods fastdigest does not implement: the standard library's hmac -------------------------


# A digestmod that is neither a name nor a callable: hmac calls its new().
PEP_247_MODULE = types.ModuleType('pep247_sha256')
PEP_247_MODULE.new = lambda data=b'': hashlib.sha256(data)


@pytest.mark.parametrize(
    'digestmod', ['sha3_256', 'blake2b', hashlib.sha3_256, lambda data=b'': hashlib.sha1(data), PEP_247_MODULE]
)
def test_other_digestmods_go_to_the_stdlib(digestmod):
    # The object is fastdigest's type (isinstance(mac, hmac.HMAC) holds under the swap), and hands every call to
    # the standard library's HMAC it holds.
    mac = fd_hmac.new(b'key', b'msg', digestmod)
    assert type(mac) is fd_hmac.HMAC
    expected = stdlib_hmac.new(b'key', b'msg', digestmod)
    assert (mac.name, mac.digest_size, mac.block_size) == (expected.name, expected.digest_size, expected.block_size)
    for obj in (mac, expected):
        obj.update(b' more')
    copied = mac.copy()
    assert type(copied) is fd_hmac.HMAC
    copied.update(b' and more')
    assert (mac.digest(), mac.hexdigest()) == (expected.digest(), expected.hexdigest())
    assert copied.digest() != mac.digest()
    assert outcome(lambda: mac.update('str')) == outcome(lambda: expected.update('str'))
    assert outcome(lambda: mac.digest(1)) == outcome(lambda: expected.digest(1))
    assert fd_hmac.digest(b'key', b'msg', digestmod) == stdlib_hmac.digest(b'key', b'msg', digestmod)


def test_other_pbkdf2_names_go_to_hashlib():
    assert fastdigest.pbkdf2_hmac('sha3_256', b'pw', b'salt', 3, 40) == hashlib.pbkdf2_hmac(
        'sha3_256', b'pw', b'salt', 3, 40
    )


# --- bad input: the standard library's exceptions --------------------------------------------------


def outcome(call):
    try:
        result = call()
    except Exception as error:  # noqa: BLE001 - the exception itself is what is compared
        return type(error), str(error)
    if hasattr(result, 'digest'):
        result = result.digest()
    return 'returned', result


NON_CONTIGUOUS = memoryview(bytes(8))[::2]

# (label, call with a module in the place of hmac): each must do what the stdlib's hmac does.
HMAC_BAD_CALLS = [
    ('str key', lambda m: m.new('key', b'msg', 'sha256')),
    ('int key', lambda m: m.new(1, b'msg', 'sha256')),
    ('None key', lambda m: m.new(None, b'msg', 'sha256')),
    ('unknown name', lambda m: m.new(b'key', b'msg', 'no-such-hash')),
    ('int digestmod', lambda m: m.new(b'key', b'msg', 1)),
    ('str message', lambda m: m.new(b'key', 'msg', 'sha256')),
    ('int message', lambda m: m.new(b'key', 1, 'sha256')),
    ('non-contiguous message', lambda m: m.new(b'key', NON_CONTIGUOUS, 'sha256')),
    ('no arguments', lambda m: m.new()),
    ('four arguments', lambda m: m.new(b'k', b'm', 'sha256', 4)),
    ('key twice', lambda m: m.new(b'k', key=b'k', digestmod='sha256')),
    ('unknown keyword', lambda m: m.new(b'k', digestmod='sha256', data=b'')),
    ('update str', lambda m: m.new(b'key', digestmod='sha256').update('text')),
    ('update int', lambda m: m.new(b'key', digestmod='sha256').update(1)),
    ('update non-contiguous', lambda m: m.new(b'key', digestmod='sha256').update(NON_CONTIGUOUS)),
    ('update no argument', lambda m: m.new(b'key', digestmod='sha256').update()),
    ('update two arguments', lambda m: m.new(b'key', digestmod='sha256').update(b'', b'')),
    ('update keyword data', lambda m: m.new(b'key', digestmod='sha256').update(data=b'')),
    ('digest str key', lambda m: m.digest('key', b'msg', 'sha256')),
    ('digest int key', lambda m: m.digest(1, b'msg', 'sha256')),
    ('digest str message', lambda m: m.digest(b'key', 'msg', 'sha256')),
    ('digest None message', lambda m: m.digest(b'key', None, 'sha256')),
    ('digest non-contiguous key', lambda m: m.digest(NON_CONTIGUOUS, b'msg', 'sha1')),
    ('digest unknown name', lambda m: m.digest(b'key', b'msg', 'no-such-hash')),
    ('digest empty name', lambda m: m.digest(b'key', b'msg', '')),
    ('digest None', lambda m: m.digest(b'key', b'msg', None)),
    ('digest int', lambda m: m.digest(b'key', b'msg', 1)),
    ('digest missing', lambda m: m.digest(b'key', b'msg')),
    ('digest missing two', lambda m: m.digest(b'key')),
    ('digest missing all', lambda m: m.digest()),
    ('digest four arguments', lambda m: m.digest(b'k', b'm', 'sha1', 4)),
    ('digest unknown keyword', lambda m: m.digest(b'k', b'm', digestmod='sha1')),
    ('digest str key, foreign digest', lambda m: m.digest('key', b'msg', hashlib.sha256)),
]


@pytest.mark.parametrize('label, call', HMAC_BAD_CALLS, ids=[label for label, _ in HMAC_BAD_CALLS])
def test_hmac_errors_are_the_stdlib_ones(label, call):
    expected = outcome(lambda: call(stdlib_hmac))
    assert expected[0] != 'returned', 'not an error for the stdlib either: %r' % (expected,)
    # 3.13+'s ". Did you mean 'x'?" included.
    assert outcome(lambda: call(fd_hmac)) == expected


@pytest.mark.parametrize(
    'call',
    [
        lambda m: m.new(b'key'),
        lambda m: m.new(b'key', b'msg'),
        lambda m: m.new(b'key', b'msg', None),
        lambda m: m.new(b'key', b'msg', ''),
        lambda m: m.new(b'key', digestmod=None),
        lambda m: m.HMAC(b'key'),
    ],
)
def test_missing_digestmod(call):
    # 3.10-3.12 say "Missing required parameter 'digestmod'.", 3.13+ "... argument ...": this Python's.
    expected_type, expected_message = outcome(lambda: call(stdlib_hmac))
    assert expected_type is TypeError
    assert outcome(lambda: call(fd_hmac)) == (expected_type, expected_message)


def test_str_key_is_checked_before_digestmod():
    # As in the stdlib: the key's type is the first complaint.
    for module in (fd_hmac, stdlib_hmac):
        with pytest.raises(TypeError, match="key: expected bytes or bytearray, but got 'str'"):
            module.new('key')


BIG_ENOUGH_TO_OVERFLOW = 2**31


class Index:
    """An integer by __index__ only, as hashlib's argument parsing accepts."""

    def __init__(self, value):
        self.value = value

    def __index__(self):
        return self.value


PBKDF2_BAD_CALLS = [
    ('unknown name', lambda f: f('no-such-hash', b'p', b's', 1)),
    ('unknown name, bad iterations', lambda f: f('no-such-hash', b'p', b's', 0)),
    ('unknown name, str password', lambda f: f('no-such-hash', 'p', b's', 1)),
    ('int name', lambda f: f(1, b'p', b's', 1)),
    ('None name', lambda f: f(None, b'p', b's', 1)),
    ('constructor as name', lambda f: f(hashlib.sha256, b'p', b's', 1)),
    ('str password', lambda f: f('sha256', 'p', b's', 1)),
    ('int password', lambda f: f('sha256', 1, b's', 1)),
    ('str salt', lambda f: f('sha256', b'p', 's', 1)),
    ('None salt', lambda f: f('sha256', b'p', None, 1)),
    ('non-contiguous salt', lambda f: f('sha256', b'p', NON_CONTIGUOUS, 1)),
    ('zero iterations', lambda f: f('sha256', b'p', b's', 0)),
    ('negative iterations', lambda f: f('sha256', b'p', b's', -1)),
    ('iterations over INT_MAX', lambda f: f('sha256', b'p', b's', BIG_ENOUGH_TO_OVERFLOW)),
    ('iterations over LONG_MAX', lambda f: f('sha256', b'p', b's', 2**64)),
    ('float iterations', lambda f: f('sha256', b'p', b's', 1.0)),
    ('str iterations', lambda f: f('sha256', b'p', b's', '1')),
    ('None iterations', lambda f: f('sha256', b'p', b's', None)),
    ('zero dklen', lambda f: f('sha256', b'p', b's', 1, 0)),
    ('negative dklen', lambda f: f('sha256', b'p', b's', 1, -1)),
    ('dklen over INT_MAX', lambda f: f('sha256', b'p', b's', 1, BIG_ENOUGH_TO_OVERFLOW)),
    ('dklen over LONG_MAX', lambda f: f('sha256', b'p', b's', 1, 2**64)),
    ('float dklen', lambda f: f('sha256', b'p', b's', 1, 1.0)),
    ('str dklen', lambda f: f('sha256', b'p', b's', 1, '1')),
    ('iterations checked before dklen', lambda f: f('sha256', b'p', b's', 0, 0)),
    ('missing iterations', lambda f: f('sha256', b'p', b's')),
    ('six arguments', lambda f: f('sha256', b'p', b's', 1, 2, 3)),
    ('unknown keyword', lambda f: f('sha256', b'p', b's', 1, length=3)),
    ('salt twice', lambda f: f('sha256', b'p', b's', 1, salt=b's')),
]


@pytest.mark.parametrize('label, call', PBKDF2_BAD_CALLS, ids=[label for label, _ in PBKDF2_BAD_CALLS])
def test_pbkdf2_errors_are_hashlib_ones(label, call):
    expected = outcome(lambda: call(hashlib.pbkdf2_hmac))
    assert expected[0] != 'returned', 'not an error for hashlib either: %r' % (expected,)
    assert outcome(lambda: call(fastdigest.pbkdf2_hmac)) == expected


def test_pbkdf2_accepts_what_hashlib_accepts():
    for call in (
        lambda f: f('sha256', b'p', b's', True),
        lambda f: f('sha256', b'p', b's', Index(2), Index(5)),
        lambda f: f(hash_name='SHA256', password=b'p', salt=b's', iterations=2, dklen=None),
        lambda f: f('sha1', bytearray(b'p'), memoryview(b's'), 2, 100),
    ):
        assert call(fastdigest.pbkdf2_hmac) == call(hashlib.pbkdf2_hmac)


def test_pbkdf2_password_over_int_max():
    # A 2 GiB anonymous mapping: its pages are never touched, as both sides refuse the length first.
    huge = mmap.mmap(-1, 2**31)
    try:
        expected = outcome(lambda: hashlib.pbkdf2_hmac('sha256', huge, b's', 1))
        assert expected == (OverflowError, 'password is too long.')
        assert outcome(lambda: fastdigest.pbkdf2_hmac('sha256', huge, b's', 1)) == expected
        expected = outcome(lambda: hashlib.pbkdf2_hmac('sha256', b'p', huge, 1))
        assert expected == (OverflowError, 'salt is too long.')
        assert outcome(lambda: fastdigest.pbkdf2_hmac('sha256', b'p', huge, 1)) == expected
    finally:
        huge.close()


# --- the HMAC type -----------------------------------------------------------------------------------


@pytest.mark.parametrize('name', ['md5', 'sha1', 'sha224', 'sha256', 'sha384', 'sha512'])
def test_hashlib_constructors_take_the_fast_path(name):
    # hmac.new(key, msg, hashlib.sha256), the usual spelling, runs on fastdigest's core.
    constructor = getattr(hashlib, name)
    mac = fd_hmac.new(b'key', b'msg', constructor)
    assert type(mac) is fd_hmac.HMAC
    assert (mac.name, mac.digest()) == (f'hmac-{name}', stdlib_hmac.new(b'key', b'msg', constructor).digest())
    assert fd_hmac.digest(b'key', b'msg', constructor) == stdlib_hmac.digest(b'key', b'msg', constructor)


def test_hmac_class_can_be_called_like_new():
    # As the standard library's hmac.HMAC(key, msg=None, digestmod='').
    expected = stdlib_hmac.HMAC(b'key', b'msg', 'sha256').digest()
    assert fd_hmac.HMAC(b'key', b'msg', 'sha256').digest() == expected
    assert fd_hmac.HMAC(b'key', msg=b'msg', digestmod=fastdigest.sha256).digest() == expected
    assert type(fd_hmac.HMAC(b'key', digestmod='sha3_256')) is fd_hmac.HMAC
    # Its errors name HMAC.__init__ and count self, as the stdlib's class does.
    for args, kwargs in [((), {}), ((b'k', b'm', 'sha256', 1), {}), ((b'k',), {'key': b'k'}), ((b'k',), {'x': 1})]:
        expected = outcome(lambda: stdlib_hmac.HMAC(*args, **kwargs))
        assert expected[0] is TypeError and 'HMAC.__init__()' in expected[1]
        assert outcome(lambda: fd_hmac.HMAC(*args, **kwargs)) == expected


def test_hmac_type_is_immutable():
    mac = fd_hmac.new(b'key', b'msg', 'sha256')
    with pytest.raises(TypeError):
        type(mac)()
    with pytest.raises((TypeError, AttributeError)):
        fd_hmac.HMAC.digest = None
    with pytest.raises(AttributeError):
        mac.name = 'hmac-md5'
    with pytest.raises(AttributeError):
        mac.anything = 1  # no __dict__, as hmac.HMAC's __slots__ have none
    # Keyed once: a second __init__ would change the key of an object others may hold.
    with pytest.raises(TypeError, match='cannot key an HMAC object twice'):
        mac.__init__(b'other key', digestmod='sha256')
    assert mac.digest() == stdlib_hmac.digest(b'key', b'msg', 'sha256')


def test_hmac_refuses_pickling():
    mac = fd_hmac.new(b'secret key', b'msg', 'sha256')
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        with pytest.raises(TypeError, match=r"cannot pickle 'HMAC' object: its state is equivalent to the key"):
            pickle.dumps(mac, protocol)


def test_copies_are_independent():
    mac = fd_hmac.new(b'key', b'start', 'sha384')
    for duplicate in (mac.copy(), copy.copy(mac), copy.deepcopy(mac)):
        assert type(duplicate) is fd_hmac.HMAC
        duplicate.update(b' and more')
        assert duplicate.digest() == stdlib_hmac.digest(b'key', b'start and more', 'sha384')
    assert mac.digest() == stdlib_hmac.digest(b'key', b'start', 'sha384')
    del mac  # the copies do not share memory with it
    assert duplicate.hexdigest() == stdlib_hmac.new(b'key', b'start and more', 'sha384').hexdigest()


def test_module_attributes():
    assert fd_hmac.digest_size is None
    assert fd_hmac.compare_digest is stdlib_hmac.compare_digest
    assert fd_hmac.compare_digest(fd_hmac.digest(b'k', b'm', 'sha1'), stdlib_hmac.digest(b'k', b'm', 'sha1'))
    # Every public name of the standard library's hmac (it has no __all__) and fastdigest's own digest_many, and
    # the pass-through ones are its own objects.
    public = {name for name in dir(stdlib_hmac) if not name.startswith('_')}
    assert set(fd_hmac.__all__) == public | {'digest_many'}
    assert public <= set(dir(fd_hmac))
    assert fd_hmac.trans_5C is stdlib_hmac.trans_5C and fd_hmac.trans_36 is stdlib_hmac.trans_36
    assert 'pbkdf2_hmac' in fastdigest.__all__


@pytest.mark.threads
def test_concurrent_updates_of_one_object():
    # Every thread feeds the same chunk, so any order of whole updates gives one known MAC; an update
    # torn by another thread would not. The chunks are long enough to release the GIL.
    chunk = bytes(range(256)) * 64
    threads, per_thread = 4, 25
    mac = fd_hmac.new(b'key', digestmod='sha256')
    start = threading.Barrier(threads)

    def feed():
        start.wait()
        for _ in range(per_thread):
            mac.update(chunk)
            mac.digest()

    workers = [threading.Thread(target=feed) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert mac.digest() == stdlib_hmac.digest(b'key', chunk * (threads * per_thread), 'sha256')


@pytest.mark.threads
def test_pbkdf2_releases_the_gil():
    # The derivation runs for a long while (hundreds of milliseconds even on the fastest kernel); if it
    # held the GIL, this thread could not wake up from its short sleep until it had finished.
    finished = []
    worker = threading.Thread(target=lambda: finished.append(fastdigest.pbkdf2_hmac('sha1', b'pw', b'salt', 5_000_000)))
    worker.start()
    try:
        time.sleep(0.02)
        assert worker.is_alive() and not finished
    finally:
        worker.join()
    assert finished == [hashlib.pbkdf2_hmac('sha1', b'pw', b'salt', 5_000_000)]


# --- allocations ------------------------------------------------------------------------------------

# Runs in a child interpreter with tests/c/count_allocations.c preloaded (see test_allocations.py): prints
# {operation: C heap allocations during CALLS calls}. Objects of these sizes come from CPython's
# small-object allocator, so an operation that allocates nothing of its own makes no malloc call at all.
ALLOCATION_CHILD = r"""
import ctypes, hashlib, hmac, json, sys
import fastdigest, fastdigest.hmac as fd_hmac

calls = int(sys.argv[1])
shim = ctypes.CDLL(None)
start, stop = shim.fd_count_allocations_start, shim.fd_count_allocations_stop
stop.restype = ctypes.c_ulong


def count(operation):
    operation()  # the first call outside: lazy set-up (a lock, method caches) is not per call
    start()
    for _ in range(calls):
        operation()
    return stop()


key, small, large = b'k' * 32, b'm' * 64, bytes(3 * fastdigest._GIL_MINSIZE)
counts = {'stdlib hmac.digest': count(lambda: hmac.digest(key, small, 'sha256'))}
for name in sorted(fastdigest.implementation):
    mac, warm = fd_hmac.new(key, small, name), fd_hmac.new(key, None, name)
    operations = {
        'new(key, msg, name)': lambda: fd_hmac.new(key, small, name),
        'copy()': mac.copy,
        'digest()': mac.digest,
        'hexdigest()': mac.hexdigest,
        'update(small)': lambda: warm.update(small),
        'update(large)': lambda: warm.update(large),
        'hmac.digest(key, msg, name)': lambda: fd_hmac.digest(key, small, name),
        'pbkdf2_hmac': lambda: fastdigest.pbkdf2_hmac(name, key, small, 3, 100),
    }
    for label, operation in operations.items():
        counts[name + ' ' + label] = count(operation)
print(json.dumps(counts))
"""


def test_no_c_heap_allocation(tmp_path):
    if not sys.platform.startswith('linux'):
        pytest.fail('the counting shim relies on glibc')
    compiler = os.environ.get('CC') or sysconfig.get_config_var('CC').split()[0]
    if shutil.which(compiler) is None:
        pytest.fail('a C compiler (%s) is needed to build the counting shim' % compiler)
    shim = tmp_path / 'count_allocations.so'
    source = Path(__file__).parent / 'c' / 'count_allocations.c'
    subprocess.run([compiler, '-std=c11', '-O2', '-shared', '-fPIC', str(source), '-o', str(shim)], check=True)
    environment = dict(os.environ)
    environment['LD_PRELOAD'] = ' '.join(filter(None, [str(shim), environment.get('LD_PRELOAD')]))
    calls = 500
    child = subprocess.run(
        [sys.executable, '-c', ALLOCATION_CHILD, str(calls)],
        env=environment,
        capture_output=True,
        text=True,
        check=True,
    )
    counts = json.loads(child.stdout)
    # OpenSSL allocates contexts on every call: the shim does see allocations.
    assert counts.pop('stdlib hmac.digest') >= calls
    assert len(counts) == len(fastdigest.implementation) * 8
    assert counts == {label: 0 for label in counts}


# --- which digestmods are hashlib's own constructors ------------------------------------------------------


def real_constructors():
    """(label, constructor, algorithm) for every constructor object of the eight that this Python's hashlib is
    made of: fastdigest's, _hashlib's OpenSSL ones, and the builtin modules' (_sha2 from 3.12, _sha256 and
    _sha512 before), whichever this CPython has."""
    found = [(f'fastdigest.{name}', getattr(fastdigest, name), name) for name in ALGORITHMS]
    found += [(f'hashlib.{name}', getattr(hashlib, name), name) for name in ALGORITHMS[:6]]
    modules = {'_hashlib': 'openssl_', '_md5': '', '_sha1': '', '_sha2': '', '_sha256': '', '_sha512': ''}
    for module_name, prefix in modules.items():
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            continue
        for name in ALGORITHMS:
            constructor = getattr(module, prefix + name, None)
            if constructor is not None:
                found.append((f'{module_name}.{prefix}{name}', constructor, name))
    return found


HMAC_CALLS = {
    'new': lambda m, key, msg, digestmod: m.new(key, msg, digestmod).digest(),
    'HMAC': lambda m, key, msg, digestmod: m.HMAC(key, msg, digestmod=digestmod).hexdigest(),
    'digest': lambda m, key, msg, digestmod: m.digest(key, msg, digestmod),
    # digest_many is the loop over hmac.digest, which for a digest it hands on begins with a call for an empty
    # message (its errors come first).
    'digest_many': lambda m, key, msg, digestmod: (
        m.digest_many(key, [msg, msg[:3]], digestmod)
        if m is fd_hmac
        else [m.digest(key, b'', digestmod), m.digest(key, msg, digestmod), m.digest(key, msg[:3], digestmod)][1:]
    ),
}


@pytest.mark.parametrize('function', HMAC_CALLS)
@pytest.mark.parametrize(
    ('label', 'constructor', 'name'), real_constructors(), ids=lambda v: v if isinstance(v, str) else ''
)
def test_real_constructors_run_in_fastdigest(function, label, constructor, name):
    # hashlib's own constructors, whichever module made them, name the algorithm: computed here, never handed
    # to the standard library's hmac.
    key, msg = b'k' * 100, b'message'
    expected = HMAC_CALLS[function](stdlib_hmac, key, msg, constructor)
    handed_on = AssertionError('handed to the standard library')
    with (
        mock.patch.object(stdlib_hmac, 'new', side_effect=handed_on),
        mock.patch.object(stdlib_hmac, 'HMAC', side_effect=handed_on),
        mock.patch.object(stdlib_hmac, 'digest', side_effect=handed_on),
    ):
        assert HMAC_CALLS[function](fd_hmac, key, msg, constructor) == expected


def sha3_256_builder(data=b''):
    return hashlib.sha3_256(data)


@pytest.mark.parametrize('function', HMAC_CALLS)
@pytest.mark.parametrize('name', ALGORITHMS[:6])
def test_a_patched_hashlib_constructor_is_called(function, name):
    # mock.patch('hashlib.sha256', ...) in a program's tests: hmac calls the replacement, and so must
    # fastdigest.hmac, whatever the replacement builds.
    key, msg = b'key', b'message'
    with mock.patch(f'hashlib.{name}', sha3_256_builder):
        replaced = getattr(hashlib, name)
        expected = HMAC_CALLS[function](stdlib_hmac, key, msg, replaced)
        assert expected == HMAC_CALLS[function](stdlib_hmac, key, msg, 'sha3_256')
        assert HMAC_CALLS[function](fd_hmac, key, msg, replaced) == expected


@pytest.mark.parametrize('function', HMAC_CALLS)
def test_a_wrapped_hashlib_constructor_is_called_as_hmac_calls_it(function):
    # An instrumentation wrapper that computes the same hash sees the calls hmac makes, and the same MACs.
    def wrap(calls):
        @functools.wraps(hashlib.sha256)
        def counted(*args, **kwargs):
            calls.append(args)
            return original(*args, **kwargs)

        return counted

    original = hashlib.sha256
    key, msg = b'k' * 100, b'message'
    stdlib_calls, fastdigest_calls = [], []
    with mock.patch('hashlib.sha256', wrap(stdlib_calls)):
        expected = HMAC_CALLS[function](stdlib_hmac, key, msg, hashlib.sha256)
    with mock.patch('hashlib.sha256', wrap(fastdigest_calls)):
        assert HMAC_CALLS[function](fd_hmac, key, msg, hashlib.sha256) == expected
    assert stdlib_calls and fastdigest_calls == stdlib_calls


# --- subclasses of HMAC -------------------------------------------------------------------------------


def subclasses(base):
    """Subclasses of `base` (hmac.HMAC or fastdigest.hmac.HMAC) as libraries write them."""

    class Signer(base):
        # A fixed digest, its own __init__ with other parameters, an attribute and a method of its own.
        def __init__(self, key, *, purpose):
            super().__init__(key, digestmod='sha256')
            self.purpose = purpose
            self.update(purpose.encode())

        def sign(self, data):
            mac = self.copy()
            mac.update(data)
            return mac.hexdigest()

    class SmallBlocks(base):
        # As a bug report shows it: a changed blocksize and a renamed digestmod parameter.
        blocksize = 1

        def __init__(self, key, msg, digestmod_):
            super().__init__(key, msg, digestmod=digestmod_)

    class Counting(base):
        # An update that counts before it feeds.
        def update(self, msg):
            self.fed = getattr(self, 'fed', 0) + len(msg)
            super().update(msg)

    class Derivation(base):
        # VMess's AEAD key derivation (v2ray): HMACs nested as each other's digestmod, a block_size class
        # attribute, and calling an object as a constructor.
        block_size = 64

        def __call__(self, msg=b''):
            mac = self.copy()
            mac.update(msg)
            return mac

    return Signer, SmallBlocks, Counting, Derivation


def use_subclasses(base):
    signer, small_blocks, counting, derivation = subclasses(base)
    results = []
    s = signer(b'secret', purpose='login')
    results += [type(s).__name__, isinstance(s, base), s.purpose, s.sign(b'a'), s.sign(b'b'), s.name, s.digest_size]
    copied = s.copy()
    results += [type(copied) is signer, copied.hexdigest() == s.hexdigest()]
    for digestmod in ('md5', 'sha512', hashlib.sha1, 'sha3_256'):
        mac = small_blocks(b'key', b'msg', digestmod)
        results += [type(mac) is small_blocks, mac.blocksize, mac.block_size, mac.name, mac.hexdigest()]
    c = counting(b'key', b'start', 'sha384')
    c.update(b'more')
    results += [c.fed, c.hexdigest()]
    h = derivation(b'VMess AEAD KDF', digestmod=hashlib.sha256)
    for step in (b'AES Auth ID Encryption', b'VMess Header AEAD Key', b'nonce'):
        h = derivation(step, digestmod=h)
    results += [type(h) is derivation, h(b'command key').digest().hex()]
    return results


def test_subclasses_work_as_the_stdlib_ones():
    assert use_subclasses(fd_hmac.HMAC) == use_subclasses(stdlib_hmac.HMAC)


@pytest.mark.parametrize('digestmod', ['sha256', 'sha3_256'])
def test_copies_of_subclasses_keep_their_attributes(digestmod):
    # copy() makes the object as hmac's copy() does (no __init__, no attributes); copy.copy() and copy.deepcopy()
    # copy the attributes too, shallow or deep, and the state independently.
    class Tagged(fd_hmac.HMAC):
        def __init__(self, key, tags):
            super().__init__(key, b'start', digestmod)
            self.tags = tags
            self.me = self

    mac = Tagged(b'key', ['a'])
    assert not hasattr(mac.copy(), 'tags')
    shallow, deep = copy.copy(mac), copy.deepcopy(mac)
    assert type(shallow) is type(deep) is Tagged
    assert shallow.tags is mac.tags and shallow.me is mac
    assert deep.tags == mac.tags and deep.tags is not mac.tags and deep.me is deep
    for duplicate in (shallow, deep):
        duplicate.update(b' more')
        assert duplicate.digest() == stdlib_hmac.digest(b'key', b'start more', digestmod)
    assert mac.digest() == stdlib_hmac.digest(b'key', b'start', digestmod)


def test_class_attributes_are_hmacs():
    assert fd_hmac.HMAC.blocksize == stdlib_hmac.HMAC.blocksize == 64
    public = {name for name in dir(stdlib_hmac.HMAC) if not name.startswith('_')}
    assert public <= set(dir(fd_hmac.HMAC))
    mac = fd_hmac.new(b'key', b'msg', 'sha512')
    assert mac.blocksize == 64 and mac.block_size == 128  # the default, and the hash's own


def test_an_uninitialised_object_refuses_as_hmac_does():
    for module in (fd_hmac, stdlib_hmac):
        empty = module.HMAC.__new__(module.HMAC)
        for use in (empty.digest, empty.hexdigest, empty.copy, lambda e=empty: e.update(b'x')):
            with pytest.raises(AttributeError):
                use()
        assert not hasattr(empty, 'digest_size')
        empty.__init__(b'key', b'msg', 'sha256')
        assert empty.digest() == stdlib_hmac.digest(b'key', b'msg', 'sha256')


# --- names: what hashlib and hmac accept, exactly -------------------------------------------------------

# Every spelling of the eight that hashlib.new knows, with letter-case variants: OpenSSL's names match in any
# case, CPython's own 'sha512_224' and 'sha512_256' only in lower or upper case.
NAME_SPELLINGS = sorted(
    {
        variant
        for base in (
            'md5', 'MD5', 'Md5', 'ssl3-md5', 'sha1', 'SHA1', 'Sha1', 'sha-1', 'SSL3-SHA1', 'sha224', 'Sha224',
            'sha2-224', 'sha256', 'SHA256', 'Sha256', 'sha-256', 'SHA2-256', 'sha384', 'sHA384', 'sha512',
            'Sha-512', 'sha512_224', 'SHA512_224', 'Sha512_224', 'sHA512_224', 'sha512_256', 'SHA512_256',
            'Sha512_256', 'sHA512_256', 'Sha512-224', 'SHA-512/224', 'sha2-512/256', 'Sha512-256',
            '2.16.840.1.101.3.4.2.1',
        )
        for variant in (base, base.swapcase())
    }
)  # fmt: skip

NAME_CALLS = {
    'hashlib.new': (lambda m, name: m.new(name, b'abc').hexdigest(), fastdigest, hashlib),
    'pbkdf2_hmac': (lambda m, name: m.pbkdf2_hmac(name, b'p', b's', 2).hex(), fastdigest, hashlib),
    'hmac.new': (lambda m, name: m.new(b'k', b'm', name).hexdigest(), fd_hmac, stdlib_hmac),
    'hmac.HMAC': (lambda m, name: m.HMAC(b'k', b'm', name).hexdigest(), fd_hmac, stdlib_hmac),
    'hmac.digest': (lambda m, name: m.digest(b'k', b'm', name).hex(), fd_hmac, stdlib_hmac),
    'hmac.digest_many': (
        lambda m, name: (
            [mac.hex() for mac in m.digest_many(b'k', [b'm'], name)]
            if m is fd_hmac
            else [m.digest(b'k', b'm', name).hex()]
        ),
        fd_hmac,
        stdlib_hmac,
    ),
    'digest_many': (
        lambda m, name: (
            [d.hex() for d in m.digest_many(name, [b'abc'])] if m is fastdigest else [m.new(name, b'abc').hexdigest()]
        ),
        fastdigest,
        hashlib,
    ),
}


@pytest.mark.parametrize('name', NAME_SPELLINGS)
@pytest.mark.parametrize('call', NAME_CALLS)
def test_names_are_accepted_exactly_as_hashlib_and_hmac_accept_them(call, name):
    function, ours, theirs = NAME_CALLS[call]
    assert outcome(lambda: function(ours, name)) == outcome(lambda: function(theirs, name))


def test_the_table_of_names_means_something():
    # The mixed-case CPython names are refused by the running hashlib, and their other spellings accepted.
    refused = [name for name in NAME_SPELLINGS if outcome(lambda n=name: hashlib.new(n))[0] is ValueError]
    assert {'Sha512_224', 'sHA512_224', 'Sha512_256', 'sHA512_256'} <= set(refused)
    assert len(refused) < len(NAME_SPELLINGS) // 3


# --- lengths past INT_MAX -----------------------------------------------------------------------------

# hmac's OpenSSL calls take int lengths: _hashlib.hmac_new refuses a key over INT_MAX bytes, and
# _hashlib.hmac_digest a key or a message, with OverflowError. hmac.new passes the first on, on every version;
# hmac.digest passes the second on up to 3.13 and from 3.14 falls back to its pure-Python HMAC (CPython's
# gh-136912), which hashes the whole input (a heavy comparison) and, in later 3.14 releases, takes the key as
# bytes or bytearray only.


def hmac_digest_falls_back():
    """Whether the running hmac.digest goes on past _hashlib.hmac_digest's OverflowError: asked with a
    _hashlib.hmac_digest that raises it, rather than with 2 GiB of input."""
    try:
        openssl = importlib.import_module('_hashlib')
    except ImportError:
        return True  # no OpenSSL: no such limit
    with mock.patch.object(openssl, 'hmac_digest', side_effect=OverflowError('msg is too long.')):
        try:
            stdlib_hmac.digest(b'key', b'msg', 'sha256')
        except OverflowError:
            return False
    return True


HMAC_DIGEST_FALLS_BACK = hmac_digest_falls_back()


@pytest.fixture(scope='module')
def past_int_max():
    # 2**31 bytes of an anonymous mapping: refused before a page is touched, and read as zeros, without memory,
    # where it is hashed.
    huge = mmap.mmap(-1, 2**31)
    yield huge
    huge.close()


@pytest.mark.parametrize('digestmod', ['sha256', 'SHA-1', fastdigest.md5, hashlib.sha512, 'nope'], ids=repr)
@pytest.mark.parametrize('construct', ['new', 'HMAC'])
def test_a_key_over_int_max_is_refused_as_hmac_refuses_it(construct, digestmod):
    # new() and HMAC() take bytes or bytearray keys only; bytes of zeros are calloc's, untouched pages that cost
    # no memory unless read, and both sides refuse the length before reading.
    key = bytes(2**31)
    expected = outcome(lambda: getattr(stdlib_hmac, construct)(key, b'msg', digestmod))
    assert expected == (OverflowError, 'key is too long.')
    assert outcome(lambda: getattr(fd_hmac, construct)(key, b'msg', digestmod)) == expected


# Where the input past INT_MAX is, and the key beside a long message: bytes, or another buffer, which
# _hashlib.hmac_digest takes and 3.14's later fallback does not.
SMALL_KEYS = {'msg': b'key', 'msg, memoryview key': memoryview(b'key'), 'msg, bytearray key': bytearray(b'key')}


@pytest.mark.parametrize(
    'where',
    [
        pytest.param(where, marks=[pytest.mark.heavy] if HMAC_DIGEST_FALLS_BACK else [])
        for where in ('key', *SMALL_KEYS)
    ],
)
@pytest.mark.parametrize('digest', ['sha256', fastdigest.sha1, hashlib.md5], ids=repr)
def test_one_shot_over_int_max_is_hmacs(past_int_max, where, digest):
    key, msg = (past_int_max, b'msg') if where == 'key' else (SMALL_KEYS[where], past_int_max)
    expected = outcome(lambda: stdlib_hmac.digest(key, msg, digest))
    if not HMAC_DIGEST_FALLS_BACK:
        assert expected == (OverflowError, '%s is too long.' % where.partition(',')[0])
    assert outcome(lambda: fd_hmac.digest(key, msg, digest)) == expected


@pytest.mark.heavy
def test_digest_many_takes_any_length(past_int_max):
    # fastdigest's own function returns the MACs of a key or a message over INT_MAX bytes on every version, as
    # hmac.digest does from 3.14. The references: the standard library's HMAC object, whose update() has no
    # limit, and for the key RFC 2104's rule that a key longer than a block is hashed first.
    long_message = stdlib_hmac.new(b'key', digestmod='sha256')
    long_message.update(past_int_max)
    short = stdlib_hmac.digest(b'key', b'm', 'sha256')
    assert fd_hmac.digest_many(b'key', [past_int_max, b'm'], 'sha256') == [long_message.digest(), short]
    hashed_key = hashlib.sha256(past_int_max).digest()
    assert fd_hmac.digest_many(past_int_max, [b'm'], 'sha256') == [stdlib_hmac.digest(hashed_key, b'm', 'sha256')]
