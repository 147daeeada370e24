"""The quick tier again, in a child process, at each lower CPU level this CPU can stand in for (heavy
tier).

The parent run tests the best kernels this CPU has. A user's CPU may lack some of its features, and
then other kernels run: FASTDIGEST_DISABLE hides features from the dispatcher, as if the CPU lacked
them. Each level is a job of the `jobs` pool (conftest.py), so the levels run side by side with the C
driver and the hardening jobs. The portable C everywhere (FASTDIGEST_BACKEND=portable) is no level
here: tests/hardening/sanitize_python.sh runs the quick tier with it under ASan and UBSan, and
test_hardening.py checks that that run had the portable kernels only.

Among the child runs' files is test_self_test.py: fastdigest.self_test() runs every kernel the level
leaves this CPU, against the known answers and hashlib, and checks that the level's own kernels are the
active ones (the test below checks that it ran).

Left out of the child runs: test_typing.py (mypy reads the stubs and runs no kernel). The rest of the
heavy tier does not depend on the level: the C driver and the fuzzers run every kernel themselves, the
multi-gigabyte updates test the stream layer's lengths, and Dask and Spark run the same digest_array as
test_arrow.py.
"""

import ast
import re
import sys
from pathlib import Path

import pytest

import fastdigest
from conftest import finished_job

TESTS = Path(__file__).resolve().parent

pytestmark = pytest.mark.heavy

# name -> (environment, the features the CPU must have for the level to differ from the ones above it,
# the kernels the level must not run (algorithm or '*' -> kernel name prefix), rough minutes on 2 cores).
# Each level hides one more feature than the one before it, from the top.
SHA512_FAMILY = ('sha384', 'sha512', 'sha512_224', 'sha512_256')
LEVELS = {
    # x86-64 without SHA-NI (Intel before Ice Lake), with and without AVX-512.
    'shani': ({'FASTDIGEST_DISABLE': 'shani'}, ('shani',), {'*': ('shani',)}, 2),
    'shani,avx512': ({'FASTDIGEST_DISABLE': 'shani,avx512'}, ('shani', 'avx512'), {'*': ('shani', 'avx512')}, 2),
    # AArch64 without the SHA-512 instructions (Cortex-A72, Graviton 2), then without any.
    'armsha512': ({'FASTDIGEST_DISABLE': 'armsha512'}, ('armsha512',), {name: ('armv8',) for name in SHA512_FAMILY}, 2),
    'armsha512,armsha2,armsha1': (
        {'FASTDIGEST_DISABLE': 'armsha512,armsha2,armsha1'},
        ('armsha2',),
        {'*': ('armv8',)},
        2,
    ),
}

REPORTED_KERNELS = re.compile(r'^fastdigest kernels: (\{.*\}) batch: (\{.*\})$', re.MULTILINE)
SUMMARY = re.compile(r'(\d+) passed')
# The self-test's file in the child's progress lines: every test passed (a dot) or was skipped (an s:
# the one about AVX-512 where the level hides it), none failed.
SELF_TEST_RAN = re.compile(r'^tests/test_self_test\.py \.[.s]* ', re.MULTILINE)


def child_run():
    return [sys.executable, '-m', 'pytest', '-p', 'no:cacheprovider', '--rootdir', TESTS.parent,
            TESTS, '--ignore', TESTS / 'test_typing.py']  # fmt: skip


# A quarter of each property test's examples: the parent run drew them all on the same kinds of input.
REPEAT_RUN = {'FASTDIGEST_TEST_EXAMPLES': '0.25'}


def level_param(name, environment, needs, minutes):
    missing = [feature for feature in needs if feature not in fastdigest.cpu_features]
    if missing:
        # Not a job at all: on this CPU it is the level above, which the parent run or another level tests.
        reason = f'this CPU has no {", ".join(missing)}: FASTDIGEST_DISABLE={name} is not a level of its own here'
        return pytest.param(name, marks=pytest.mark.skip(reason=reason))
    return pytest.param(
        name, marks=pytest.mark.job(f'levels/{name}', child_run(), minutes, {**environment, **REPEAT_RUN})
    )


@pytest.mark.parametrize(
    'level',
    [level_param(name, environment, needs, minutes) for name, (environment, needs, _, minutes) in LEVELS.items()],
)
def test_quick_tier_at_level(level, jobs):
    _, output = finished_job(jobs, f'levels/{level}')
    # The child reports the kernels it ran (conftest.py's header): the level took effect.
    reported = REPORTED_KERNELS.search(output)
    assert reported, output[-4000:]
    single, batch = (ast.literal_eval(kernels) for kernels in reported.groups())
    _, _, forbidden, _ = LEVELS[level]
    for kernels in (single, batch):
        for algorithm, kernel in kernels.items():
            for prefix in forbidden.get('*', ()) + forbidden.get(algorithm, ()):
                assert not kernel.startswith(prefix), (level, kernels)
    passed = SUMMARY.findall(output)
    assert passed and int(passed[-1]) > 1000, output[-4000:]
    assert SELF_TEST_RAN.search(output), output[-4000:]
