"""fastdigest.self_test(): every kernel this CPU runs, against known answers and the standard library.

The import checks only the kernels it selects, with a few known answers (hash/known_answers.c). The
self-test takes every kernel of the build whose instructions this CPU has (less those
FASTDIGEST_DISABLE hides), selected or not: the same known answers, then messages of random lengths at
random alignments against a reference, and for the single-stream kernels HMAC and PBKDF2, which run the
kernels' own HMAC and PBKDF2 code where they have it; a multi-buffer kernel hashes batches of such
messages, and derives PBKDF2 keys through its lanes where it can. The reference is the standard
library's hashlib, hmac and hashlib.pbkdf2_hmac; for an algorithm the running hashlib lacks, the build's
portable C kernel (see _Reference).

The algorithms, their families and sizes are the extension's (its _families(), made from its table).

It runs each kernel directly, through private functions of the extension (python/kernels.c), never by
installing it: the kernels the process hashes with stay as they are, so other threads may hash
meanwhile, and a wrong kernel under test gives wrong digests to the self-test alone. Imported only by
self_test() and the command line's --self-test.
"""

from __future__ import annotations

import os
import random
from collections.abc import Mapping
from typing import NamedTuple

import fastdigest

# The extension's private functions and the package's _stdlib_module, which the stubs do not describe.
from fastdigest import _fastdigest, _stdlib_module  # type: ignore[attr-defined]

# Work per kernel and algorithm: enough random cases to meet every padding boundary and alignment,
# few enough that the whole self-test takes seconds.
MESSAGES = 160
HMAC_CASES = 24
PBKDF2_CASES = 8
BATCHES = 16

# The failures the command line prints of each kernel: a wrong kernel is usually wrong for many inputs.
FAILURES_PRINTED = 5

# The references as the report's first line names them.
REFERENCE_NAMES = {
    'hashlib': "the standard library's hashlib and hmac",
    'portable': "this build's portable C kernel, as this Python's hashlib lacks them,",
}


class KernelReport(NamedTuple):
    """What the self-test found of one kernel."""

    family: str
    """The hash family: 'md5', 'sha1', 'sha256' (SHA-224 and SHA-256) or 'sha512' (SHA-384, SHA-512,
    SHA-512/224 and SHA-512/256)."""
    kernel: str
    """Its name, as `implementation` and `batch_implementation` give it."""
    lanes: int
    """1 for a single-stream kernel, else the messages a multi-buffer kernel hashes side by side."""
    active: bool
    """Whether this process hashes with it (it is in `implementation` or `batch_implementation`)."""
    ran: bool
    """False where this CPU, less FASTDIGEST_DISABLE, lacks its instructions: it was not run."""
    checks: int
    """The results compared."""
    failures: tuple[str, ...]
    """What differed, one line each; empty when everything matched."""

    @property
    def passed(self) -> bool:
        """It ran, and every result matched."""
        return self.ran and not self.failures


class SelfTestReport(NamedTuple):
    """What `self_test()` found: one `KernelReport` per kernel of the build."""

    kernels: tuple[KernelReport, ...]
    """Every kernel of this build, in the order the selection prefers them within each family."""
    seed: int
    """The seed of the random inputs: `self_test(seed=...)` runs the same inputs again."""
    references: Mapping[str, str]
    """What each algorithm's results were compared with: 'hashlib', or 'portable' where hashlib lacks
    the algorithm."""

    @property
    def passed(self) -> bool:
        """Every kernel that ran passed."""
        return all(kernel.passed for kernel in self.kernels if kernel.ran)


class _Reference:
    """What one algorithm's results are compared with.

    The standard library's hashlib, hmac and hashlib.pbkdf2_hmac, independent of fastdigest, where the
    running hashlib has the algorithm. Where it lacks it (a family OpenSSL does not offer), the build's
    portable C kernel, the code the C drivers test every other kernel against (tests/c), run through the
    extension and never installed, with HMAC (RFC 2104) and PBKDF2 (RFC 8018, 5.2) written out here over
    its digests rather than fastdigest's own code for them. The portable kernel is then checked by the
    known answers alone.
    """

    def __init__(self, algorithm, stdlib_hashlib, stdlib_hmac):
        self.algorithm = algorithm
        self.hashlib = stdlib_hashlib
        self.hmac_module = stdlib_hmac
        prototype = fastdigest.new(algorithm)
        self.digest_size = prototype.digest_size
        self.block_size = prototype.block_size
        try:
            stdlib_hashlib.new(algorithm)
        except ValueError:
            self.name = 'portable'
        else:
            self.name = 'hashlib'

    def digest(self, data):
        if self.name == 'hashlib':
            return self.hashlib.new(self.algorithm, data).digest()
        return _fastdigest._digest_with('portable', self.algorithm, data)

    def hmac(self, key, message):
        if self.name == 'hashlib':
            return self.hmac_module.digest(key, message, self.algorithm)
        if len(key) > self.block_size:
            key = self.digest(key)
        key = bytes(key).ljust(self.block_size, b'\0')
        inner = self.digest(bytes(byte ^ 0x36 for byte in key) + bytes(message))
        return self.digest(bytes(byte ^ 0x5C for byte in key) + inner)

    def pbkdf2(self, password, salt, iterations, dklen):
        if self.name == 'hashlib':
            return self.hashlib.pbkdf2_hmac(self.algorithm, password, salt, iterations, dklen)
        derived = b''
        for index in range(1, -(-dklen // self.digest_size) + 1):
            u = self.hmac(password, bytes(salt) + index.to_bytes(4, 'big'))
            t = int.from_bytes(u, 'big')
            for _ in range(iterations - 1):
                u = self.hmac(password, u)
                t ^= int.from_bytes(u, 'big')
            derived += t.to_bytes(self.digest_size, 'big')
        return derived[:dklen]


class _Kernel:
    """One kernel under test: its checks and failures so far."""

    def __init__(self, family, name, lanes, capabilities, rng, references):
        self.family = family
        self.name = name
        self.lanes = lanes
        self.capabilities = capabilities
        self.rng = rng
        self.algorithms = _fastdigest._families()[family]
        self.references = references
        self.block_len = references[self.algorithms[0]].block_size
        self.checks = 0
        self.failures = []

    def compare(self, actual, expected, what):
        self.checks += 1
        if actual != expected:
            self.failures.append(f'{what}: {actual.hex()} instead of {expected.hex()}')

    def message_length(self, case):
        """The padding's edges around each of the first blocks, then random lengths up to a few blocks,
        and now and then a long one."""
        block = self.block_len
        edges = (0, 1, 3, block - 9, block - 8, block - 1, block, block + 1, 2 * block - 1, 2 * block + 1)
        if case < len(edges):
            return edges[case]
        if case % 16 == 15:
            return self.rng.randrange(20 * block, 200 * block)
        return self.rng.randrange(0, 6 * block)

    def aligned(self, data):
        """data in a buffer at a random offset from a 64-byte boundary: a view of the same bytes."""
        offset = self.rng.randrange(64)
        buffer = bytearray(offset + len(data))
        buffer[offset:] = data
        return memoryview(buffer)[offset:]

    def random_bytes(self, length):
        return self.rng.randbytes(length)

    def run_single_stream(self, algorithm, reference):
        for case in range(MESSAGES):
            length = self.message_length(case)
            data = self.aligned(self.random_bytes(length))
            self.compare(
                _fastdigest._digest_with(self.name, algorithm, data),
                reference.digest(data),
                f'{algorithm} of {length} random bytes at offset {_offset(data)}',
            )
        block = self.block_len
        key_lengths = (0, 1, block - 1, block, block + 1, 2 * block + 3)
        for case in range(HMAC_CASES):
            key = self.random_bytes(key_lengths[case % len(key_lengths)])
            message = self.aligned(self.random_bytes(self.message_length(case)))
            self.compare(
                _fastdigest._hmac_with(self.name, algorithm, key, message),
                reference.hmac(key, message),
                f'HMAC-{algorithm} with a {len(key)}-byte key of {len(message)} bytes',
            )
        self.run_pbkdf2(algorithm, reference, max_blocks=4)

    def run_pbkdf2(self, algorithm, reference, max_blocks):
        for _ in range(PBKDF2_CASES):
            password = self.random_bytes(self.rng.randrange(0, 2 * self.block_len))
            salt = self.random_bytes(self.rng.randrange(0, 40))
            iterations = self.rng.randrange(1, 6)
            dklen = self.rng.randrange(1, max_blocks * reference.digest_size + 2)
            self.compare(
                _fastdigest._pbkdf2_hmac_with(self.name, algorithm, password, salt, iterations, dklen),
                reference.pbkdf2(password, salt, iterations, dklen),
                f'PBKDF2-HMAC-{algorithm}, {iterations} iterations, {dklen} bytes',
            )

    def run_multi_buffer(self, algorithm, reference):
        for batch in range(BATCHES):
            count = self.rng.randrange(self.lanes, 3 * self.lanes + 2)
            lengths = [self.message_length((batch * count + i) % MESSAGES) for i in range(count)]
            data = bytearray()
            spans = []
            for length in lengths:
                # A gap of 0 to 63 bytes before each message: every alignment.
                data += self.random_bytes(self.rng.randrange(64))
                spans.append((len(data), length))
                data += self.random_bytes(length)
            digests = _fastdigest._digest_many_with(self.name, algorithm, data, spans)
            view = memoryview(data)
            for i, (start, length) in enumerate(spans):
                self.compare(
                    digests[i],
                    reference.digest(view[start : start + length]),
                    f'{algorithm} of batch message {i} of {count} ({length} bytes at offset {start % 64})',
                )
        if 'pbkdf2' in self.capabilities:
            self.run_pbkdf2(algorithm, reference, max_blocks=self.lanes + 1)

    def run(self):
        reason = _fastdigest._check_kernel(self.name, self.algorithms[-1])
        self.checks += 1
        if reason is not None:
            self.failures.append(f'known answers: {reason}')
        for algorithm in self.algorithms:
            reference = self.references[algorithm]
            if self.lanes > 1:
                self.run_multi_buffer(algorithm, reference)
            elif not (reference.name == 'portable' and self.name == 'portable'):
                # The portable kernel is not compared with itself.
                self.run_single_stream(algorithm, reference)


def _offset(view):
    """How far a view's bytes start from a 64-byte boundary of its buffer's allocation: the offset
    aligned() chose."""
    return len(view.obj) - len(view)


def run(seed=None):
    """fastdigest.self_test() (see its docstring in fastdigest/__init__.pyi)."""
    if seed is None:
        seed = int.from_bytes(os.urandom(8), 'little')
    stdlib_hashlib = _stdlib_module('hashlib')
    stdlib_hmac = _stdlib_module('hmac')
    references = {
        algorithm: _Reference(algorithm, stdlib_hashlib, stdlib_hmac) for algorithm in _fastdigest._algorithms
    }
    active = {
        (family, selection[algorithms[0]])
        for selection in (fastdigest.implementation, fastdigest.batch_implementation)
        for family, algorithms in _fastdigest._families().items()
    }
    reports = []
    for index, (family, name, lanes, runs, capabilities) in enumerate(_fastdigest._kernels()):
        if not runs:
            reports.append(KernelReport(family, name, lanes, False, False, 0, ()))
            continue
        # One stream of inputs per kernel: a kernel's inputs do not depend on the others of the build.
        kernel = _Kernel(family, name, lanes, capabilities, random.Random(seed + index), references)
        kernel.run()
        reports.append(
            KernelReport(family, name, lanes, (family, name) in active, True, kernel.checks, tuple(kernel.failures))
        )
    return SelfTestReport(
        tuple(reports), seed, {algorithm: reference.name for algorithm, reference in references.items()}
    )


def format_report(report):
    """The report as the command line prints it: a line per kernel, a line per failure, a summary."""
    by_reference = {}
    for algorithm, reference in report.references.items():
        by_reference.setdefault(reference, []).append(algorithm)
    lines = [f'fastdigest self-test, seed {report.seed}: every kernel this CPU runs, against known answers and:']
    lines.extend(
        f'  {REFERENCE_NAMES[reference]} for {", ".join(algorithms)}' for reference, algorithms in by_reference.items()
    )
    for kernel in report.kernels:
        kind = 'single-stream' if kernel.lanes == 1 else f'{kernel.lanes} lanes'
        label = f'{kernel.family:<7} {kernel.kernel:<11} {kind:<13} {"active" if kernel.active else "":<6}'
        if not kernel.ran:
            lines.append(f'{label}  not run: this CPU (less FASTDIGEST_DISABLE) lacks its instructions')
            continue
        lines.append(f'{label}  {kernel.checks:5} checks  {"ok" if kernel.passed else "FAILED"}')
        lines.extend(f'    {failure}' for failure in kernel.failures[:FAILURES_PRINTED])
        if len(kernel.failures) > FAILURES_PRINTED:
            lines.append(f'    and {len(kernel.failures) - FAILURES_PRINTED} more')
    ran = [kernel for kernel in report.kernels if kernel.ran]
    failed = [kernel for kernel in ran if not kernel.passed]
    checks = sum(kernel.checks for kernel in ran)
    if failed:
        lines.append(f'FAILED: {len(failed)} of {len(ran)} kernels gave wrong results ({checks} checks)')
    else:
        lines.append(f'passed: {len(ran)} kernels, {checks} checks')
    return '\n'.join(lines) + '\n'
