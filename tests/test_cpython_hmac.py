"""CPython's own test suite for hmac, run with fastdigest.hmac as its `hmac`.

As tests/test_cpython_hashlib.py does for hashlib: the running interpreter's Lib/test/test_hmac.py runs with
the standard library's hmac, then with the module's global `hmac` replaced by fastdigest.hmac and its
`hashlib` by fastdigest, whose constructors its digestmods then are. Every test that passes
with hmac must pass with fastdigest.hmac, except those in EXPECTED_DIFFERENCES, each with its reason, which
must fail. The 3.14+ suite reaches most of hmac through its own fresh imports of the standard library's
module (import_fresh_module, for its pure-Python, OpenSSL and HACL* variants) and through _hashlib and
_hmac directly; those parts test the standard library either way.
"""

import hashlib

import pytest

import fastdigest
import fastdigest.hmac
from cpython_suite import (
    check_expected_differences_still_differ,
    check_nothing_fails_that_the_stdlib_does_not_fail,
    check_passes_wherever_the_stdlib_passes,
    import_without_resources,
    run,
)

cpython_test_hmac = import_without_resources('test_hmac')

# Test id -> why it fails with fastdigest.hmac as `hmac` although it passes with hmac. Private helpers only:
# hmac.py's HMAC is a Python class that may be made empty with HMAC.__new__(HMAC) and filled by its private
# initialisers, whose private attributes the tests then inspect; fastdigest's HMAC is a C type with none of
# them (HMAC.__new__(HMAC) is a call of HMAC() without its key, refused as hmac's HMAC() refuses it).
_EMPTY_HMAC = 'HMAC.__new__(HMAC), then the private initialiser HMAC.{}() and the private attributes {}'
_VECTORS = (
    'checks HMAC(), new(), copy(), update() and digest() with names and constructors (all pass), then '
    + _EMPTY_HMAC.format('_init_old and _init_hmac', '(through name, digest_size, block_size)')
)
EXPECTED_DIFFERENCES = {
    # 3.10-3.13's suite
    **{
        f'test.test_hmac.TestVectorsTestCase.test_{name}': _VECTORS
        for name in (
            'md5_vectors',
            'sha_vectors',
            'sha224_rfc4231',
            'sha256_rfc4231',
            'sha384_rfc4231',
            'sha512_rfc4231',
        )
    },
    'test.test_hmac.CopyTestCase.test_attributes_old': _EMPTY_HMAC.format('_init_old', '_inner and _outer'),
    'test.test_hmac.CopyTestCase.test_realcopy_old': _EMPTY_HMAC.format('_init_old', '_inner, _outer and _hmac'),
    'test.test_hmac.CopyTestCase.test_realcopy_hmac': _EMPTY_HMAC.format('_init_hmac', '_hmac'),
    # 3.14+'s suite
    'test.test_hmac.PythonCopyTestCase.test_attributes': _EMPTY_HMAC.format('_init_old', '_hmac, _inner, _outer'),
    'test.test_hmac.PythonCopyTestCase.test_realcopy': _EMPTY_HMAC.format('_init_old', '_inner and _outer'),
    'test.test_hmac.OpenSSLCopyTestCase.test_attributes': _EMPTY_HMAC.format(
        '_init_openssl_hmac', '_hmac, _inner, _outer'
    ),
    'test.test_hmac.OpenSSLCopyTestCase.test_realcopy': _EMPTY_HMAC.format('_init_openssl_hmac', '_hmac'),
    'test.test_hmac.BuiltinCopyTestCase.test_attributes': _EMPTY_HMAC.format(
        '_init_builtin_hmac', '_hmac, _inner, _outer'
    ),
    'test.test_hmac.BuiltinCopyTestCase.test_realcopy': _EMPTY_HMAC.format('_init_builtin_hmac', '_hmac'),
    **{
        f'test.test_hmac.BuiltinMiscellaneousTests.test_compute_{name}_32': (
            f"tests _hmac (HACL*)'s compute_{name}_32 against hmac.py's private pure-Python "
            'function _compute_digest_fallback, which it reaches through `hmac`'
        )
        for name in ('blake2b', 'blake2s')
    },
}


@pytest.fixture(scope='module')
def results():
    with pytest.MonkeyPatch.context() as patch:
        with_hmac = run(cpython_test_hmac, patch)
        patch.setattr(cpython_test_hmac, 'hmac', fastdigest.hmac)
        patch.setattr(cpython_test_hmac, 'hashlib', fastdigest)
        # test_with_fallback registers a name in this private dict of hashlib.py's (its builtin constructors)
        # through `hashlib`, then asks hmac.digest() for it, which fastdigest.hmac hands to the standard
        # library's hmac and so to hashlib.new. Lending hashlib's own dict lets the test do what it does with
        # hashlib.
        cache = getattr(hashlib, '__builtin_constructor_cache')
        patch.setattr(fastdigest, '__builtin_constructor_cache', cache, raising=False)
        with_fastdigest = run(cpython_test_hmac, patch)
    return with_hmac, with_fastdigest


def test_passes_wherever_it_passes_with_hmac(results):
    check_passes_wherever_the_stdlib_passes(*results, EXPECTED_DIFFERENCES, least=20)


def test_expected_differences_still_differ(results):
    check_expected_differences_still_differ(*results, EXPECTED_DIFFERENCES)


def test_nothing_fails_that_hmac_does_not_fail(results):
    check_nothing_fails_that_the_stdlib_does_not_fail(*results, EXPECTED_DIFFERENCES)
