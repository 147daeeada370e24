"""fastdigest.self_test() and `python -m fastdigest --self-test`.

The self-test runs every kernel this CPU runs (fastdigest/_self_test.py); tests/test_levels.py runs this
file again at each CPU level this CPU can stand for, where other kernels are the active ones and others
again are hidden. Here: that it passes on this CPU's kernels, reports what it ran, leaves the active
kernels alone while other threads hash, and reports a wrong kernel (one whose results are made wrong on
their way to the comparison) rather than passing it.
"""

import os
import subprocess
import sys
import threading

import pytest

import fastdigest
from conftest import ALGORITHMS
from fastdigest import _self_test

STDLIB_HASHLIB = fastdigest._stdlib_module('hashlib')


@pytest.fixture(scope='module')
def report():
    return fastdigest.self_test(seed=2028)


def test_every_kernel_this_cpu_runs_passes(report):
    assert isinstance(report, fastdigest.SelfTestReport)
    assert report.seed == 2028
    assert report.passed, _self_test.format_report(report)
    ran = [kernel for kernel in report.kernels if kernel.ran]
    assert ran
    for kernel in ran:
        assert isinstance(kernel, fastdigest.KernelReport)
        assert kernel.passed and kernel.failures == (), kernel
        # Many comparisons each, but for a family's portable kernel where it is the reference (hashlib
        # lacks the family): the known answers alone.
        references = {report.references[name] for name in fastdigest._fastdigest._families()[kernel.family]}
        assert kernel.checks > 20 or (kernel.kernel == 'portable' and references == {'portable'}), kernel
    for kernel in report.kernels:
        if not kernel.ran:
            assert (kernel.checks, kernel.failures, kernel.passed) == (0, (), False)


def test_the_active_kernels_are_among_those_run(report):
    active = {(kernel.family, kernel.kernel) for kernel in report.kernels if kernel.active}
    assert all(kernel.ran for kernel in report.kernels if kernel.active)
    expected = {
        (family, selection[algorithms[0]])
        for family, algorithms in fastdigest._fastdigest._families().items()
        for selection in (fastdigest.implementation, fastdigest.batch_implementation)
    }
    assert active == expected
    # A single-stream kernel has one lane; the multi-buffer ones are batch_implementation's kinds.
    for kernel in report.kernels:
        assert (kernel.lanes == 1) == (
            kernel.kernel in {'portable', 'tuned', 'ssse3', 'shani', 'avx2', 'avx512', 'sha512ni', 'armv8'}
        )


def test_the_same_seed_runs_the_same_inputs(report):
    again = fastdigest.self_test(seed=report.seed)
    assert [kernel.checks for kernel in again.kernels] == [kernel.checks for kernel in report.kernels]
    assert fastdigest.self_test().seed != fastdigest.self_test().seed


@pytest.mark.threads
def test_other_threads_hash_right_meanwhile():
    # The self-test runs kernels without installing them: a thread hashing all along sees the kernels
    # of the import, right, and implementation does not change.
    before = (dict(fastdigest.implementation), dict(fastdigest.batch_implementation))
    messages = [bytes([i % 251]) * (i * 37 % 3000) for i in range(200)]
    expected = {name: [STDLIB_HASHLIB.new(name, m).digest() for m in messages] for name in ('md5', 'sha256', 'sha512')}
    wrong = []
    done = threading.Event()

    def hash_until_done():
        while not done.is_set():
            for name, digests in expected.items():
                if fastdigest.digest_many(name, messages) != digests:
                    wrong.append(name)
                if [fastdigest.new(name, m).digest() for m in messages[:20]] != digests[:20]:
                    wrong.append(name)

    thread = threading.Thread(target=hash_until_done)
    thread.start()
    try:
        assert fastdigest.self_test().passed
    finally:
        done.set()
        thread.join()
    assert wrong == []
    assert (fastdigest.implementation, fastdigest.batch_implementation) == before


def test_a_wrong_kernel_is_reported(monkeypatch, report):
    # One kernel's digests made wrong on their way to the comparison, as a miscompiled kernel's would be.
    victim = next(kernel for kernel in report.kernels if kernel.ran and kernel.lanes == 1 and kernel.family == 'sha256')
    digest_with = _self_test._fastdigest._digest_with

    class WrongFor:
        def __getattr__(self, name):
            return getattr(fastdigest._fastdigest, name)

        @staticmethod
        def _digest_with(kernel, algorithm, data):
            digest = digest_with(kernel, algorithm, data)
            if kernel != victim.kernel or algorithm not in ('sha224', 'sha256') or len(data) != 65:
                return digest
            return bytes([digest[0] ^ 1]) + digest[1:]

    monkeypatch.setattr(_self_test, '_fastdigest', WrongFor())
    broken = fastdigest.self_test(seed=report.seed)
    assert not broken.passed
    failed = [kernel for kernel in broken.kernels if kernel.ran and not kernel.passed]
    assert [(kernel.family, kernel.kernel) for kernel in failed] == [(victim.family, victim.kernel)]
    # The 65-byte message of each algorithm (and any random one of that length), nothing else.
    assert {failure.split(' of ')[0] for failure in failed[0].failures} == {'sha224', 'sha256'}
    assert all(' of 65 random bytes at offset ' in failure for failure in failed[0].failures), failed[0].failures
    printed = _self_test.format_report(broken)
    assert f'{victim.kernel}' in printed and 'FAILED' in printed.splitlines()[-1]


class HashlibWithout:
    """The standard library's hashlib as a Python without some algorithms has it: new() refuses them as
    hashlib refuses a name it does not know."""

    def __init__(self, missing):
        self.missing = missing

    def __getattr__(self, name):
        return getattr(STDLIB_HASHLIB, name)

    def new(self, name, *args, **kwargs):
        if name in self.missing:
            raise ValueError(f'unsupported hash type {name}')
        return STDLIB_HASHLIB.new(name, *args, **kwargs)

    def pbkdf2_hmac(self, name, *args):
        if name in self.missing:
            raise ValueError(f'unsupported hash type {name}')
        return STDLIB_HASHLIB.pbkdf2_hmac(name, *args)


def without_in_stdlib(monkeypatch, missing):
    stdlib_module = _self_test._stdlib_module
    hashlib = HashlibWithout(missing)
    monkeypatch.setattr(
        _self_test, '_stdlib_module', lambda name: hashlib if name == 'hashlib' else stdlib_module(name)
    )


def test_an_algorithm_hashlib_lacks_is_compared_with_the_portable_kernel(monkeypatch, report):
    # A family OpenSSL does not offer (MD4 on OpenSSL 3) is self-tested all the same: against the portable
    # C kernel, with HMAC and PBKDF2 written out in the self-test, and the report says so.
    without_in_stdlib(monkeypatch, {'sha512_224'})
    other = fastdigest.self_test(seed=report.seed)
    assert other.passed, _self_test.format_report(other)
    assert list(other.references) == list(fastdigest._fastdigest._algorithms)
    assert {name: 'hashlib' for name in ALGORITHMS} | {'sha512_224': 'portable'} == {
        name: other.references[name] for name in ALGORITHMS
    }
    assert {name: 'hashlib' for name in ALGORITHMS} == {name: report.references[name] for name in ALGORITHMS}
    portable = [name for name, reference in other.references.items() if reference == 'portable']
    lines = _self_test.format_report(other).splitlines()
    assert f"  this build's portable C kernel, as this Python's hashlib lacks them, for {', '.join(portable)}" in lines
    # Every kernel but the reference itself is compared as many times as before; the portable kernel is
    # not compared with itself.
    for before, after in zip(report.kernels, other.kernels, strict=True):
        if before.family == 'sha512' and before.kernel == 'portable':
            assert after.checks < before.checks
        else:
            assert after.checks == before.checks, (before, after)


def test_a_wrong_kernel_is_reported_against_the_portable_kernel(monkeypatch, report):
    without_in_stdlib(monkeypatch, {'sha512_224'})
    victim = next(
        (
            kernel
            for kernel in report.kernels
            if kernel.ran and kernel.family == 'sha512' and kernel.kernel != 'portable'
        ),
        None,
    )
    if victim is None:
        pytest.skip('this CPU runs no SHA-512 kernel but the portable one, the reference itself')
    functions = fastdigest._fastdigest

    def wrong(result, kernel):
        return bytes([result[0] ^ 1]) + result[1:] if kernel == victim.kernel else result

    class WrongFor:
        def __getattr__(self, name):
            return getattr(functions, name)

        @staticmethod
        def _digest_with(kernel, algorithm, data):
            digest = functions._digest_with(kernel, algorithm, data)
            return wrong(digest, kernel) if algorithm == 'sha512_224' else digest

        @staticmethod
        def _hmac_with(kernel, algorithm, key, message):
            mac = functions._hmac_with(kernel, algorithm, key, message)
            return wrong(mac, kernel) if algorithm == 'sha512_224' else mac

        @staticmethod
        def _digest_many_with(kernel, algorithm, data, spans):
            digests = functions._digest_many_with(kernel, algorithm, data, spans)
            return [wrong(digest, kernel) for digest in digests] if algorithm == 'sha512_224' else digests

    monkeypatch.setattr(_self_test, '_fastdigest', WrongFor())
    broken = fastdigest.self_test(seed=report.seed)
    failed = [kernel for kernel in broken.kernels if kernel.ran and not kernel.passed]
    assert [(kernel.family, kernel.kernel) for kernel in failed] == [(victim.family, victim.kernel)]
    assert all('sha512_224' in failure for failure in failed[0].failures), failed[0].failures


def run_command(*arguments, environment=None):
    return subprocess.run(
        [sys.executable, '-m', 'fastdigest', *arguments],
        capture_output=True,
        text=True,
        env=environment,
    )


def test_the_command_prints_the_report_and_exits_0():
    command = run_command('--self-test')
    assert command.returncode == 0, command.stdout + command.stderr
    lines = command.stdout.splitlines()
    assert lines[0].startswith('fastdigest self-test, seed ')
    assert lines[-1].startswith('passed: ')
    for family, kernel in {
        ('sha256', fastdigest.implementation['sha256']),
        ('md5', fastdigest.batch_implementation['md5']),
    }:
        assert any(line.split()[:2] == [family, kernel] and line.endswith(' ok') for line in lines[1:-1]), lines


def test_the_command_takes_no_file():
    command = run_command('--self-test', 'notes.txt')
    assert command.returncode == 1
    assert command.stderr.startswith('fastdigest: the --self-test option takes no FILE\n')


@pytest.mark.skipif('avx512' not in fastdigest.cpu_features, reason='this CPU has no AVX-512 kernels to hide')
def test_kernels_hidden_by_fastdigest_disable_are_not_run():
    environment = dict(os.environ, FASTDIGEST_DISABLE='avx512')
    command = run_command('--self-test', environment=environment)
    assert command.returncode == 0, command.stdout + command.stderr
    not_run = [line.split()[1] for line in command.stdout.splitlines() if 'not run' in line]
    assert not_run and all(name.startswith('avx512') for name in not_run), command.stdout
