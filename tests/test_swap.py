"""Swapping the standard library's modules for fastdigest's, the README's way of making every library use it:

    sys.modules['hashlib'] = fastdigest
    sys.modules['hmac'] = fastdigest.hmac

Each test runs tests/swap_program.py in a fresh interpreter three times: without the swap (the reference),
with the swap made before the standard library's hashlib and hmac were imported, and with it made after.
Every public name of both modules, the algorithms and digestmods fastdigest hands on to the standard
library (sha3_256, blake2b with its parameters, a function, a PEP 247 module), and real signing and key
derivation code (itsdangerous, a Flask session, Django's crypto and password hashers) must give the same
results through the swapped names as without them, with no recursion.
"""

import hashlib
import hmac
import importlib.util
import json
import pathlib
import subprocess
import sys

import pytest

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
