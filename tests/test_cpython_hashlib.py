"""CPython's own test suite for hashlib, run with fastdigest as its `hashlib`.

The running interpreter's Lib/test/test_hashlib.py (from its `test` package, so the suite matches the
interpreter's hashlib) runs twice in this process: once as it is, once with the module's global `hashlib`
replaced by the fastdigest module. Every test that passes with hashlib must pass with fastdigest, except
those listed in EXPECTED_DIFFERENCES, each with its reason; those must fail, so that the list cannot go
stale.

Its constructors under test then are fastdigest.md5 ... fastdigest.sha512 and fastdigest.new for the
eight algorithms, hashlib's own objects (reached through fastdigest's namespace) for the others, and
OpenSSL's and the builtin modules' constructors besides, which the suite collects itself.
"""

import hashlib
import unittest

import pytest

import fastdigest

try:
    import test.support as cpython_support
except ImportError as error:  # pragma: no cover - depends on how the interpreter was installed
    # Some installations leave out the test package (Debian's python3 without libpython3-testsuite, a
    # build trimmed of Lib/test): there is nothing to run.
    pytest.skip(f"this interpreter has no CPython test suite ({error})", allow_module_level=True)

# No resource is enabled, as in a plain `python -m test` run: tests gated on the 'cpu' resource (3.12+:
# 4 GiB updates of sha256 and sha3_256, 40 s a run here; tests/test_large.py covers fastdigest's) are
# skipped, and so are the test-vector downloads (the 'urlfetch' resource, files on pythontest.net for
# sha3/blake2/shake). requires_resource() decides when the module is imported, requires() when a test
# runs: the setting is made for both.
_resources = cpython_support.use_resources
cpython_support.use_resources = []
try:
    import test.test_hashlib as cpython_test_hashlib
finally:
    cpython_support.use_resources = _resources

# Test id -> why it fails with fastdigest as `hashlib` although it passes with hashlib.
EXPECTED_DIFFERENCES = {
    'test.test_hashlib.HashLibTestCase.test_get_builtin_constructor': (
        "tests hashlib.py's private helpers, the functions __get_builtin_constructor and the dict "
        '__builtin_constructor_cache (the builtin _md5/_sha* fallbacks used without OpenSSL); fastdigest '
        'has no such internals, and they are no public name of hashlib'
    ),
}


class OutcomeCollector(unittest.TestResult):
    """Records 'pass', 'fail', 'error' or 'skip: reason' per test id; a failing subtest fails its test."""

    def __init__(self):
        super().__init__()
        self.outcomes = {}

    def set_outcome(self, test, outcome):
        if self.outcomes.get(test.id()) not in ('fail', 'error'):
            self.outcomes[test.id()] = outcome

    def addSuccess(self, test):
        super().addSuccess(test)
        self.set_outcome(test, 'pass')

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self.outcomes[test.id()] = 'fail'

    def addError(self, test, err):
        super().addError(test, err)
        # An error in a class or module fixture is reported against a placeholder, not a test.
        self.outcomes[getattr(test, 'id', lambda: str(test))()] = 'error'

    def addSubTest(self, test, subtest, err):
        super().addSubTest(test, subtest, err)
        if err is not None:
            self.outcomes[test.id()] = 'fail'

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self.set_outcome(test, f'skip: {reason}')

    def addExpectedFailure(self, test, err):
        super().addExpectedFailure(test, err)
        self.set_outcome(test, 'expected failure')

    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test)
        self.set_outcome(test, 'unexpected success')


def run_suite():
    result = OutcomeCollector()
    unittest.defaultTestLoader.loadTestsFromModule(cpython_test_hashlib).run(result)
    return result


@pytest.fixture(scope='module')
def results():
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(cpython_support, 'use_resources', [])
        with_hashlib = run_suite()
        patch.setattr(cpython_test_hashlib, 'hashlib', fastdigest)
        # HashLibTestCase.__init__ looks this private helper of hashlib.py up on its `hashlib` to add the
        # builtin modules' constructors (_md5.md5, _sha2.sha256, ...) to the ones it tests; without it no
        # test case of the class can even be made. It gives the standard library's own objects, so
        # lending hashlib's helper adds only what the suite tests with hashlib too.
        builtin_constructor = getattr(hashlib, '__get_builtin_constructor')
        patch.setattr(fastdigest, '__get_builtin_constructor', builtin_constructor, raising=False)
        with_fastdigest = run_suite()
    return with_hashlib, with_fastdigest


def describe(result, test_id):
    for test, trace in result.failures + result.errors:
        if getattr(test, 'id', lambda: str(test))() == test_id:
            return trace
    return result.outcomes.get(test_id, 'not run')


def test_passes_wherever_it_passes_with_hashlib(results):
    with_hashlib, with_fastdigest = results
    passed = {test_id for test_id, outcome in with_hashlib.outcomes.items() if outcome == 'pass'}
    # A suite that ran nothing would pass vacuously. 3.10-3.13 have 60-80 tests, ~10 of them skipped here.
    assert len(passed) >= 40, with_hashlib.outcomes
    regressions = {test_id for test_id in passed if with_fastdigest.outcomes.get(test_id) != 'pass'}
    unexpected = sorted(regressions - EXPECTED_DIFFERENCES.keys())
    assert not unexpected, '\n\n'.join(f'{test_id}:\n{describe(with_fastdigest, test_id)}' for test_id in unexpected)


def test_expected_differences_still_differ(results):
    with_hashlib, with_fastdigest = results
    for test_id in EXPECTED_DIFFERENCES:
        assert with_hashlib.outcomes.get(test_id) == 'pass', (test_id, with_hashlib.outcomes.get(test_id))
        assert with_fastdigest.outcomes.get(test_id) in ('fail', 'error'), (test_id, 'passes with fastdigest now')


def test_nothing_fails_that_hashlib_does_not_fail(results):
    # Tests that fail with hashlib too (a CPython build's own trouble) are no concern of fastdigest's, but
    # a test that hashlib skips and fastdigest fails is.
    with_hashlib, with_fastdigest = results
    failing = {
        test_id
        for test_id, outcome in with_fastdigest.outcomes.items()
        if outcome in ('fail', 'error') and with_hashlib.outcomes.get(test_id) not in ('fail', 'error')
    }
    assert failing <= EXPECTED_DIFFERENCES.keys(), sorted(failing - EXPECTED_DIFFERENCES.keys())
