"""Shared configuration of fastdigest's Python tests.

Every test compares fastdigest with hashlib (the running interpreter's, backed by OpenSSL) or with a
published test vector whose source is named next to it.
"""

import pytest

# The eight algorithms fastdigest provides, with hashlib's names.
ALGORITHMS = ('md5', 'sha1', 'sha224', 'sha256', 'sha384', 'sha512', 'sha512_224', 'sha512_256')


def pytest_configure(config):
    # Registered rather than left implicit so that `--strict-markers` accepts it. The slow tests run in
    # the default run; `-m 'not slow'` is only a convenience for a quick local loop.
    config.addinivalue_line(
        'markers',
        'slow: multi-gigabyte updates (2**31 .. 2**32+1 bytes); run by default, skipped only when the '
        'machine lacks the memory',
    )
    config.addinivalue_line(
        'markers',
        "c_core: runs the C core's own test driver (tests/c/run.sh), natively and under qemu; it does not "
        "depend on FASTDIGEST_BACKEND, so the second, portable run of the suite leaves it out",
    )
    config.addinivalue_line(
        'markers',
        'hardening: runs tests/hardening/*.sh and tests/fuzz/run.sh (the suite under ASan/UBSan for both '
        'backends, valgrind memcheck, libFuzzer); they set FASTDIGEST_BACKEND themselves, so the second, '
        'portable run of the suite leaves them out',
    )


@pytest.fixture(params=ALGORITHMS)
def algorithm(request):
    """Each of the eight algorithm names in turn."""
    return request.param
