"""CPython's own test suite for hashlib, run with fastdigest as its `hashlib`.

The running interpreter's Lib/test/test_hashlib.py (from its `test` package, so the suite matches the
interpreter's hashlib: 3.14's checks Argument Clinic's words, 3.15's the DeprecationWarning of string=)
runs twice in this process: once as it is, once with the module's global `hashlib` replaced by the fastdigest
module. Every test that passes with hashlib must pass with fastdigest, except those listed in
EXPECTED_DIFFERENCES, each with its reason; those must fail, so that the list cannot go stale.

Its constructors under test then are fastdigest.md5 ... fastdigest.sha512 and fastdigest.new for the
eight algorithms, hashlib's own objects (reached through fastdigest's namespace) for the others, and
OpenSSL's and the builtin modules' constructors besides, which the suite collects itself.
"""

import hashlib
import os
import subprocess
import sys

import pytest

import fastdigest
from cpython_suite import (
    check_expected_differences_still_differ,
    check_nothing_fails_that_the_stdlib_does_not_fail,
    check_passes_wherever_the_stdlib_passes,
    import_without_resources,
    run,
)

cpython_test_hashlib = import_without_resources('test_hashlib')

# Test id -> why it fails with fastdigest as `hashlib` although it passes with hashlib. Private helpers only.
EXPECTED_DIFFERENCES = {
    'test.test_hashlib.HashLibTestCase.test_get_builtin_constructor': (
        "tests hashlib.py's private helpers, the functions __get_builtin_constructor and the dict "
        '__builtin_constructor_cache (the builtin _md5/_sha* fallbacks used without OpenSSL); fastdigest '
        'has no such internals, and they are no public name of hashlib'
    ),
}


@pytest.fixture(scope='module')
def results():
    with pytest.MonkeyPatch.context() as patch:
        with_hashlib = run(cpython_test_hashlib, patch)
        patch.setattr(cpython_test_hashlib, 'hashlib', fastdigest)
        # HashLibTestCase.__init__ looks this private helper of hashlib.py up on its `hashlib` to add the
        # builtin modules' constructors (_md5.md5, _sha2.sha256, ...) to the ones it tests; without it no
        # test case of the class can even be made. It gives the standard library's own objects, so
        # lending hashlib's helper adds only what the suite tests with hashlib too.
        builtin_constructor = getattr(hashlib, '__get_builtin_constructor')
        patch.setattr(fastdigest, '__get_builtin_constructor', builtin_constructor, raising=False)
        with_fastdigest = run(cpython_test_hashlib, patch)
    return with_hashlib, with_fastdigest


def test_passes_wherever_it_passes_with_hashlib(results):
    # 3.10-3.15 have 60-90 tests, ~10 of them skipped here.
    check_passes_wherever_the_stdlib_passes(*results, EXPECTED_DIFFERENCES, least=40)


def test_expected_differences_still_differ(results):
    check_expected_differences_still_differ(*results, EXPECTED_DIFFERENCES)


def test_nothing_fails_that_hashlib_does_not_fail(results):
    check_nothing_fails_that_the_stdlib_does_not_fail(*results, EXPECTED_DIFFERENCES)


def test_without_test_hashlib_the_module_skips(tmp_path):
    # A `test` package with test.support but no test_hashlib, as Debian's python3.X without
    # libpython3.X-testsuite has: this module must skip, saying why, not fail to be collected.
    support = tmp_path / 'test' / 'support'
    support.mkdir(parents=True)
    (tmp_path / 'test' / '__init__.py').write_text('')
    (support / '__init__.py').write_text('use_resources = None\n')
    environment = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), *sys.path]))
    completed = subprocess.run(
        [sys.executable, '-m', 'pytest', '-q', '-p', 'no:cacheprovider', '-rs', __file__],
        env=environment,
        capture_output=True,
        text=True,
        check=False,
    )
    # 5: pytest's "no tests ran", all of them skipped; a collection error is 2.
    assert completed.returncode in (0, 5), completed.stdout + completed.stderr
    assert "CPython test suite has no test_hashlib (No module named 'test.test_hashlib')" in completed.stdout
    assert '1 skipped' in completed.stdout
