"""Running one of CPython's own test modules (Lib/test/test_*.py) twice, with the standard library's module
and with fastdigest's in its place, and comparing the outcomes test by test: what tests/test_cpython_hashlib.py
and tests/test_cpython_hmac.py share."""

import unittest

import pytest

try:
    import test.support as cpython_support
except ImportError as error:  # pragma: no cover - depends on how the interpreter was installed
    # Some installations leave out the test package (Debian's python3 without libpython3-testsuite, a
    # build trimmed of Lib/test): there is nothing to run.
    pytest.skip(f'this interpreter has no CPython test suite ({error})', allow_module_level=True)


def import_without_resources(name):
    """Imports test.NAME as a plain `python -m test` run would, with no resource enabled: tests gated on
    'cpu' (3.12+: 4 GiB updates, 40 s a run here; tests/test_large.py covers fastdigest's) and 'urlfetch'
    (test-vector downloads) skip. requires_resource() decides when the module is imported, requires() when a
    test runs: the setting is made for both (run() sets it again)."""
    import importlib

    resources = cpython_support.use_resources
    cpython_support.use_resources = []
    try:
        return importlib.import_module(f'test.{name}')
    except ModuleNotFoundError as error:
        if error.name != f'test.{name}':
            raise
        # Debian's python3.X has test.support in its standard library package, and the test modules only
        # in libpython3.X-testsuite.
        pytest.skip(f"this interpreter's CPython test suite has no {name} ({error})", allow_module_level=True)
    finally:
        cpython_support.use_resources = resources


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


def run(module, patch):
    """Runs every test of module; returns the OutcomeCollector."""
    patch.setattr(cpython_support, 'use_resources', [])
    result = OutcomeCollector()
    unittest.defaultTestLoader.loadTestsFromModule(module).run(result)
    return result


def describe(result, test_id):
    for test, trace in result.failures + result.errors:
        if getattr(test, 'id', lambda: str(test))() == test_id:
            return trace
    return result.outcomes.get(test_id, 'not run')


def check_passes_wherever_the_stdlib_passes(with_stdlib, with_fastdigest, expected_differences, least):
    passed = {test_id for test_id, outcome in with_stdlib.outcomes.items() if outcome == 'pass'}
    # A suite that ran nothing would pass vacuously.
    assert len(passed) >= least, with_stdlib.outcomes
    regressions = {test_id for test_id in passed if with_fastdigest.outcomes.get(test_id) != 'pass'}
    unexpected = sorted(regressions - expected_differences.keys())
    assert not unexpected, '\n\n'.join(f'{test_id}:\n{describe(with_fastdigest, test_id)}' for test_id in unexpected)


def check_expected_differences_still_differ(with_stdlib, with_fastdigest, expected_differences):
    for test_id in expected_differences:
        if with_stdlib.outcomes.get(test_id) is None:
            continue  # a test of another Python version's suite
        assert with_stdlib.outcomes.get(test_id) == 'pass', (test_id, with_stdlib.outcomes.get(test_id))
        assert with_fastdigest.outcomes.get(test_id) in ('fail', 'error'), (test_id, 'passes with fastdigest now')


def check_nothing_fails_that_the_stdlib_does_not_fail(with_stdlib, with_fastdigest, expected_differences):
    # Tests that fail with the standard library too (a CPython build's own trouble) are no concern of
    # fastdigest's, but a test that the standard library skips and fastdigest fails is.
    failing = {
        test_id
        for test_id, outcome in with_fastdigest.outcomes.items()
        if outcome in ('fail', 'error') and with_stdlib.outcomes.get(test_id) not in ('fail', 'error')
    }
    assert failing <= expected_differences.keys(), sorted(failing - expected_differences.keys())
