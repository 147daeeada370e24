"""Swapping the standard library's modules for fastdigest's, the README's way of making every library use it:

    sys.modules['hashlib'] = fastdigest
    sys.modules['hmac'] = fastdigest.hmac

Each test runs tests/swap_program.py in a fresh interpreter three times: without the swap (the reference),
with the swap made before the standard library's hashlib and hmac were imported, and with it made after.
Every public name of both modules, the algorithms and digestmods fastdigest hands on to the standard
library (sha3_256, blake2b with its parameters, a function, a PEP 247 module), and real signing and key
derivation code (itsdangerous, a Flask session, Django's crypto and password hashers) must give the same
results through the swapped names as without them, with no recursion.

What makes that hold is the package's one hand-off to the extension: fastdigest/__init__.py registers how to
reach the standard library's modules (`_fastdigest._register(stdlib_module=...)`), and the extension never
imports or looks up a name the swap replaces. The tests at the end check that hand-off: a copy of the
extension that was never registered refuses what needs the standard library with ImportError, as it does a
registration that would hand calls back to fastdigest.
"""

import hashlib
import hmac
import importlib.machinery
import importlib.util
import json
import pathlib
import subprocess
import sys

import pytest

import fastdigest
import fastdigest.hmac

PROGRAM = pathlib.Path(__file__).with_name('swap_program.py')
HASHLIB_NAMES = json.dumps(sorted(name for name in dir(hashlib) if not name.startswith('_')))
HMAC_NAMES = json.dumps(sorted(name for name in dir(hmac) if not name.startswith('_')))

# The libraries are test-core extras. Where one cannot be installed (none of them has wheels to build: all
# are pure Python), its test skips, naming it.
LIBRARIES = ['itsdangerous', 'flask', 'django']


def run(mode, part):
    completed = subprocess.run(
        [sys.executable, str(PROGRAM), mode, part, HASHLIB_NAMES, HMAC_NAMES],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert completed.returncode == 0, f'{mode} {part}:\n{completed.stderr}'
    return json.loads(completed.stdout)


@pytest.fixture(scope='module')
def reference():
    return {}


@pytest.mark.parametrize('part', ['modules', *LIBRARIES])
@pytest.mark.parametrize('mode', ['before', 'after'])
def test_swapped_modules_give_the_standard_librarys_results(reference, mode, part):
    if part in LIBRARIES and importlib.util.find_spec(part) is None:
        pytest.skip(f'{part} is not installed (pip install fastdigest[test-core] brings it)')
    if part not in reference:
        reference[part] = run('none', part)
    expected = reference[part]
    assert len(expected) >= 2, expected  # a run that recorded (almost) nothing proves nothing
    got = run(mode, part)
    differences = {
        label: (expected.get(label), got.get(label))
        for label in {*expected, *got}
        if expected.get(label) != got.get(label)
    }
    assert not differences


# --- the hand-off from the package to the extension --------------------------------------------------------


def unregistered_extension():
    """A new copy of the extension module, made from its file as an import would make it, which the package
    has not registered anything with (the package's own copy stays as it is)."""
    path = fastdigest._fastdigest.__file__
    loader = importlib.machinery.ExtensionFileLoader('fastdigest._fastdigest', path)
    spec = importlib.util.spec_from_file_location('fastdigest._fastdigest', path, loader=loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    assert module is not fastdigest._fastdigest
    return module


# Every call of the extension that hands work to the standard library's hashlib or hmac: other names, a
# padded name that hashlib is asked about, other digestmods.
HANDED_ON = {
    'new': lambda m: m.new('sha3_256', b'a'),
    'new padded name': lambda m: m.new('sha256 ', b'a'),
    'pbkdf2_hmac': lambda m: m.pbkdf2_hmac('sha3_256', b'password', b'salt', 2),
    'hmac new': lambda m: m._hmac_new(b'key', b'msg', 'sha3_256'),
    'HMAC': lambda m: m.HMAC(b'key', b'msg', 'sha3_256'),
    'hmac digest': lambda m: m._hmac_digest(b'key', b'msg', 'sha3_256'),
}


def outcome(call):
    try:
        result = call()
    except Exception as exc:  # noqa: BLE001 - any exception is an outcome to compare
        return type(exc), str(exc)
    return 'ok', result if isinstance(result, bytes) else (result.name, result.digest())


@pytest.mark.parametrize('label', HANDED_ON)
def test_unregistered_extension_refuses(label):
    extension = unregistered_extension()
    with pytest.raises(ImportError, match=r'was not registered by the fastdigest package'):
        HANDED_ON[label](extension)
    assert extension.sha256(b'abc').digest() == hashlib.sha256(b'abc').digest()  # what needs nothing works
    extension._register(stdlib_module=fastdigest._stdlib_module)
    assert outcome(lambda: HANDED_ON[label](extension)) == outcome(lambda: HANDED_ON[label](fastdigest._fastdigest))


@pytest.mark.parametrize(
    ('arguments', 'error', 'message'),
    [
        ({}, ImportError, r'needs stdlib_module=, a callable, not nothing'),
        ({'stdlib_module': None}, ImportError, r'needs stdlib_module=, a callable, not NoneType'),
        ({'stdlib_module': 'hashlib'}, ImportError, r'needs stdlib_module=, a callable, not str'),
        ({'stdlib_module': print, 'hmac_init': print}, TypeError, r'_register\(\) takes at most 1 keyword argument'),
    ],
)
def test_registration_needs_everything(arguments, error, message):
    extension = unregistered_extension()
    with pytest.raises(error, match=message):
        extension._register(**arguments)
    with pytest.raises(ImportError, match='was not registered'):  # a refused registration registers nothing
        extension.new('sha3_256')


@pytest.mark.parametrize('label', HANDED_ON)
@pytest.mark.parametrize('own', ['fastdigest', 'fastdigest.hmac', 'the extension'])
def test_registration_that_gives_fastdigest_refuses(label, own):
    # A stdlib_module that answers with fastdigest's own modules (as importing the swapped names would) would
    # hand calls back to fastdigest and recurse: refused, at the first call, with ImportError.
    extension = unregistered_extension()
    own_module = {'fastdigest': fastdigest, 'fastdigest.hmac': fastdigest.hmac, 'the extension': extension}[own]
    extension._register(stdlib_module=lambda name: own_module)
    with pytest.raises(ImportError, match=r"registered stdlib_module\('(hashlib|hmac)'\) gave .* which is not"):
        HANDED_ON[label](extension)


# The calls of the last test, as a program's text: run there with the swap made first, and here without it.
SWAP_CALLS = """
def outcomes(hashlib, hmac):
    calls = [
        lambda: hashlib.new('sha3_256', b'a').hexdigest(),
        lambda: hashlib.new('sha256 ', b'a').hexdigest(),  # hashlib is asked about a padded name
        lambda: hashlib.pbkdf2_hmac('sha3_256', b'password', b'salt', 2).hex(),
        lambda: hmac.new(b'key', b'msg', 'sha3_256').hexdigest(),
        lambda: hmac.HMAC(b'key', b'msg', 'sha3_256').hexdigest(),
        lambda: hmac.digest(b'key', b'msg', 'sha3_256').hex(),
    ]
    results = []
    for call in calls:
        try:
            results.append(call())
        except ValueError as exc:
            results.append(f'ValueError: {exc}')
    return results
"""
SWAP_FIRST = (
    SWAP_CALLS
    + """
import json, sys
import fastdigest, fastdigest.hmac
sys.modules['hashlib'] = fastdigest
sys.modules['hmac'] = fastdigest.hmac
sys.setrecursionlimit(60)
import hashlib, hmac
results = outcomes(hashlib, hmac)
assert sys.modules['hashlib'] is fastdigest and sys.modules['hmac'] is fastdigest.hmac
print(json.dumps(results))
"""
)


def test_swap_made_first_does_not_recurse():
    # The swap made before the standard library's hashlib or hmac was ever imported, and a recursion limit
    # that a round trip through the swapped names would soon exceed: every hand-off reaches the standard
    # library's module, and leaves the swap in place.
    completed = subprocess.run(
        [sys.executable, '-c', SWAP_FIRST],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert completed.returncode == 0, completed.stderr
    namespace = {}
    exec(SWAP_CALLS, namespace)
    assert json.loads(completed.stdout) == namespace['outcomes'](hashlib, hmac)
