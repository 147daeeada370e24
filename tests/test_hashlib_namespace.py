"""`import fastdigest as hashlib`: every public name of hashlib is there.

The eight algorithms are fastdigest's (constructors, and new() for their names); file_digest and
pbkdf2_hmac are fastdigest's functions. Every other name (sha3_*, blake2b/blake2s, shake_*, scrypt) is the
standard library's own object, and new() or pbkdf2_hmac() for any other algorithm is hashlib's call,
passed through with the caller's arguments.
"""

import hashlib
import io
import subprocess
import sys
import textwrap
import types

import pytest

import fastdigest
from conftest import ALGORITHMS

# What fastdigest implements itself, of hashlib's public names (sha512_224 and sha512_256 are not
# hashlib attributes).
OWN_NAMES = {
    *ALGORITHMS,
    'new',
    'file_digest',
    'pbkdf2_hmac',
    'algorithms_guaranteed',
    'algorithms_available',
}
HASHLIB_PUBLIC_NAMES = sorted(name for name in dir(hashlib) if not name.startswith('_'))
PASSED_THROUGH = [name for name in HASHLIB_PUBLIC_NAMES if name not in OWN_NAMES]


def test_the_comparison_covers_what_matters():
    # dir(hashlib) on 3.10-3.13: its __all__ plus scrypt.
    assert {'blake2b', 'sha3_256', 'shake_128', 'scrypt'} <= set(PASSED_THROUGH)
    assert set(hashlib.__all__) <= set(HASHLIB_PUBLIC_NAMES)


@pytest.mark.parametrize('name', HASHLIB_PUBLIC_NAMES)
def test_every_public_name_of_hashlib(name):
    assert hasattr(fastdigest, name)
    assert name in dir(fastdigest)


@pytest.mark.parametrize('name', PASSED_THROUGH)
def test_other_names_are_hashlibs_objects(name):
    assert getattr(fastdigest, name) is getattr(hashlib, name)


@pytest.mark.parametrize('name', sorted(OWN_NAMES - {'algorithms_guaranteed', 'algorithms_available'}))
def test_own_names_are_fastdigests(name):
    obj = getattr(fastdigest, name)
    assert obj is not getattr(hashlib, name, None)
    assert obj.__module__.startswith('fastdigest')


def test_all_and_star_import():
    assert set(hashlib.__all__) <= set(fastdigest.__all__)
    namespace = {}
    exec('from fastdigest import *', namespace)
    for name in hashlib.__all__:
        assert namespace[name] is getattr(fastdigest, name)


def test_no_public_name_beyond_all_and_hashlibs():
    # A module imported by fastdigest's own code (once `sys`) must not show up as fastdigest.sys. Its own
    # submodules (fastdigest.hmac, fastdigest.cli) become attributes once anything imports them.
    import fastdigest.cli  # noqa: F401
    import fastdigest.hmac  # noqa: F401

    def own_submodule(name):
        value = getattr(fastdigest, name)
        return isinstance(value, types.ModuleType) and value.__name__ == 'fastdigest.' + name

    public = {name for name in dir(fastdigest) if not name.startswith('_') and not own_submodule(name)}
    assert public - set(fastdigest.__all__) - set(HASHLIB_PUBLIC_NAMES) == set()


def test_unknown_attribute():
    with pytest.raises(AttributeError, match=r"^module 'fastdigest' has no attribute 'sha3_1024'$"):
        fastdigest.sha3_1024  # noqa: B018


@pytest.mark.parametrize('name', sorted(hashlib.algorithms_available))
@pytest.mark.parametrize('usedforsecurity', [True, False])
def test_new_every_available_algorithm(name, usedforsecurity):
    """new() gives the same digest as hashlib.new for every name hashlib has; fastdigest's own object for
    the eight, hashlib's for the others."""
    try:
        expected = hashlib.new(name, b'abc', usedforsecurity=usedforsecurity)
    except ValueError:  # pragma: no cover - an algorithm a FIPS or crypto policy blocks
        with pytest.raises(ValueError):
            fastdigest.new(name, b'abc', usedforsecurity=usedforsecurity)
        return
    got = fastdigest.new(name, b'abc', usedforsecurity=usedforsecurity)
    assert got.name == expected.name
    if name in ALGORITHMS:
        assert type(got) is fastdigest.HASH
    else:
        assert type(got) is type(expected)
    if name.startswith('shake'):
        assert got.hexdigest(40) == expected.hexdigest(40)
    else:
        assert got.digest() == expected.digest()


BLAKE2_PARAMETERS = [
    {},
    {'digest_size': 16},
    {'key': b'secret key', 'digest_size': 20},
    {'salt': b'salty', 'person': b'me'},
    {'fanout': 2, 'depth': 3, 'leaf_size': 4096, 'node_offset': 5, 'node_depth': 1, 'inner_size': 16},
    {'last_node': True},
    {'usedforsecurity': False},
]


@pytest.mark.parametrize('name', ['blake2b', 'blake2s'])
@pytest.mark.parametrize('parameters', BLAKE2_PARAMETERS)
def test_blake2_with_all_its_parameters(name, parameters):
    expected = getattr(hashlib, name)(b'message', **parameters).hexdigest()
    assert getattr(fastdigest, name)(b'message', **parameters).hexdigest() == expected
    assert fastdigest.new(name, b'message', **parameters).hexdigest() == expected
    assert fastdigest.new(name, data=b'message', **parameters).hexdigest() == expected


def test_shake_and_sha3():
    assert fastdigest.new('shake_256', b'x').hexdigest(7) == hashlib.shake_256(b'x').hexdigest(7)
    assert fastdigest.shake_128(b'x').digest(33) == hashlib.shake_128(b'x').digest(33)
    assert fastdigest.new('SHA3-512', b'x').digest() == hashlib.sha3_512(b'x').digest()


def test_scrypt():
    expected = hashlib.scrypt(b'password', salt=b'salt', n=16, r=8, p=1, dklen=32)
    assert fastdigest.scrypt(b'password', salt=b'salt', n=16, r=8, p=1, dklen=32) == expected


@pytest.mark.parametrize('name', ['sha3_256', 'blake2b', 'SHA3-384', 'ripemd160'])
def test_pbkdf2_hmac_other_names(name):
    assert fastdigest.pbkdf2_hmac(name, b'password', b'salt', 3, 40) == hashlib.pbkdf2_hmac(
        name, b'password', b'salt', 3, 40
    )


def test_pbkdf2_hmac_unknown_name_is_hashlibs_error():
    with pytest.raises(ValueError) as expected:
        hashlib.pbkdf2_hmac('nope', b'password', b'salt', 1)
    with pytest.raises(ValueError) as got:
        fastdigest.pbkdf2_hmac('nope', b'password', b'salt', 1)
    assert (type(got.value), str(got.value)) == (type(expected.value), str(expected.value))


@pytest.mark.skipif(not hasattr(hashlib, 'file_digest'), reason='hashlib.file_digest is new in 3.11')
@pytest.mark.parametrize('name', ['sha3_256', 'blake2s', 'sha256'])
def test_file_digest_any_name(name):
    expected = hashlib.file_digest(io.BytesIO(b'abc' * 1000), name)
    got = fastdigest.file_digest(io.BytesIO(b'abc' * 1000), name)
    assert got.digest() == expected.digest()


def run_python(code):
    result = subprocess.run(
        [sys.executable, '-c', textwrap.dedent(code)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout
    return result.stdout


def test_importing_fastdigest_does_not_import_hashlib():
    # hashlib imports OpenSSL, which costs about as much as fastdigest's own import; the command line
    # tool and programs that use only the eight algorithms never need it.
    output = run_python(
        """
        import sys
        import fastdigest
        fastdigest.new('sha256', b'x').hexdigest()
        fastdigest.pbkdf2_hmac('sha256', b'p', b's', 1)
        print('hashlib' in sys.modules, '_hashlib' in sys.modules)
        fastdigest.new('sha3_256')
        print('hashlib' in sys.modules)
        """
    )
    assert output.split() == ['False', 'False', 'True']


def test_fastdigest_installed_as_hashlib_in_sys_modules():
    # A program may make every library use fastdigest with sys.modules['hashlib'] = fastdigest; the names
    # fastdigest passes through must still reach the standard library's hashlib, not fastdigest again.
    output = run_python(
        """
        import sys
        import fastdigest
        sys.modules['hashlib'] = fastdigest
        import hashlib
        assert hashlib is fastdigest
        print(hashlib.sha256(b'abc').hexdigest()[:8])
        print(hashlib.sha3_256(b'abc').hexdigest()[:8])
        print(hashlib.new('blake2b', b'abc', digest_size=4).hexdigest())
        print(hashlib.pbkdf2_hmac('sha3_256', b'p', b's', 1).hex()[:8])
        print('sha3_256' in hashlib.algorithms_available)
        print(type(hashlib.new('sha256')).__module__)
        """
    )
    expected = [
        hashlib.sha256(b'abc').hexdigest()[:8],
        hashlib.sha3_256(b'abc').hexdigest()[:8],
        hashlib.new('blake2b', b'abc', digest_size=4).hexdigest(),
        hashlib.pbkdf2_hmac('sha3_256', b'p', b's', 1).hex()[:8],
        'True',
        'fastdigest',
    ]
    assert output.split() == expected
