"""Kernel selection: fastdigest.implementation, FASTDIGEST_BACKEND, and the CPU's features.

Every digest test in the suite runs on whatever kernels this process selected; CI runs the suite a
second time with FASTDIGEST_BACKEND=portable, so both the best kernels and the portable C are
tested against hashlib. These tests check the selection itself.
"""

import json
import os
import platform
import subprocess
import sys

import fastdigest

ALGORITHMS = ('md5', 'sha1', 'sha224', 'sha256', 'sha384', 'sha512', 'sha512_224', 'sha512_256')
KERNEL_NAMES = {'portable', 'tuned', 'shani', 'avx2', 'avx512', 'armv8'}


def import_in_child(backend):
    """Imports fastdigest in a new interpreter with FASTDIGEST_BACKEND set (None: unset)."""
    environment = dict(os.environ)
    environment.pop('FASTDIGEST_BACKEND', None)
    if backend is not None:
        environment['FASTDIGEST_BACKEND'] = backend
    code = (
        'import json, fastdigest; '
        'print(json.dumps([fastdigest.implementation, fastdigest.sha256(b"abc").hexdigest()]))'
    )
    return subprocess.run([sys.executable, '-c', code], env=environment, capture_output=True, text=True)


def cpu_flags():
    try:
        with open('/proc/cpuinfo') as cpuinfo:
            for line in cpuinfo:
                if line.startswith(('flags', 'Features')):
                    return set(line.split(':', 1)[1].split())
    except OSError:
        pass
    return set()


def test_implementation_names_every_algorithm():
    assert set(fastdigest.implementation) == set(ALGORITHMS)
    assert set(fastdigest.implementation.values()) <= KERNEL_NAMES
    # One kernel per family.
    assert fastdigest.implementation['sha224'] == fastdigest.implementation['sha256']
    for name in ('sha384', 'sha512_224', 'sha512_256'):
        assert fastdigest.implementation[name] == fastdigest.implementation['sha512']


def test_portable_forced_by_environment():
    result = import_in_child('portable')
    assert result.returncode == 0, result.stderr
    implementation, abc = json.loads(result.stdout)
    assert implementation == {name: 'portable' for name in ALGORITHMS}
    assert abc == 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'  # FIPS 180-2, B.1


def test_unknown_backend_is_an_import_error():
    result = import_in_child('fastest-please')
    assert result.returncode != 0
    assert "ImportError: FASTDIGEST_BACKEND must be 'portable', 'best' or unset, not 'fastest-please'" in result.stderr


def test_best_kernels_follow_the_cpu():
    result = import_in_child(None)
    assert result.returncode == 0, result.stderr
    implementation, _ = json.loads(result.stdout)
    assert implementation['md5'] == 'tuned'
    flags = cpu_flags()
    machine = platform.machine().lower()
    if machine in ('x86_64', 'amd64'):
        expected_sha = 'shani' if {'sha_ni', 'ssse3', 'sse4_1'} <= flags else 'portable'
        if {'avx512f', 'avx512vl', 'avx512bw', 'bmi1', 'bmi2'} <= flags:
            expected_sha512 = 'avx512'
        elif {'avx2', 'bmi1', 'bmi2'} <= flags:
            expected_sha512 = 'avx2'
        else:
            expected_sha512 = 'portable'
    elif machine in ('aarch64', 'arm64'):
        expected_sha = 'armv8' if 'sha2' in flags else 'portable'
        expected_sha512 = 'armv8' if 'sha512' in flags else 'portable'
    else:
        expected_sha = expected_sha512 = 'portable'
    assert implementation['sha256'] == expected_sha
    assert implementation['sha512'] == expected_sha512
