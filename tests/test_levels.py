"""The quick tier again, in a child process, at each lower CPU level this CPU can stand in for (heavy
tier).

The parent run tests the best kernels this CPU has. A user's CPU may lack some of its features, and
then other kernels run: FASTDIGEST_DISABLE hides features from the dispatcher, as if the CPU lacked
them; FASTDIGEST_BACKEND=portable gives the portable C everywhere, the lowest level. Each level is a job
of the `jobs` pool (conftest.py), so the levels run side by side with the C driver and the hardening
jobs.

Among the child runs' files is test_self_test.py: fastdigest.self_test() runs every kernel the level
leaves this CPU, against the known answers and hashlib, and checks that the level's own kernels are the
active ones (the test below checks that it ran).

Left out of the child runs: the files whose tests no kernel choice reaches (LEVEL_INDEPENDENT: mypy
reading the stubs, hashlib and hmac swapped under web frameworks, resident sets and allocation counts,
the paths in comments, the layers, the documentation's examples, the benchmark scripts, the GIL
thresholds, the C API's extensions, which test every kernel this CPU runs themselves). The rest of the
heavy tier does not depend on the level either: the C driver and the fuzzers run every kernel
themselves, the multi-gigabyte updates test the stream layer's lengths, and Dask and Spark run the same
digest_array as test_arrow.py.
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
# the kernels the level must not run (algorithm or '*' -> kernel name prefixes; None: any but the portable
# C), rough minutes on 2 cores). Each level hides one more feature than the one before it, from the top.
SHA512_FAMILY = ('sha384', 'sha512', 'sha512_224', 'sha512_256')
LEVELS = {
    # x86-64 without SHA-NI (Intel before Ice Lake), with and without AVX-512.
    'shani': ({'FASTDIGEST_DISABLE': 'shani'}, ('shani',), {'*': ('shani',)}, 4),
    'shani,avx512': ({'FASTDIGEST_DISABLE': 'shani,avx512'}, ('shani', 'avx512'), {'*': ('shani', 'avx512')}, 4),
    # AArch64 without the SHA-512 instructions (Cortex-A72, Graviton 2), then without any.
    'armsha512': ({'FASTDIGEST_DISABLE': 'armsha512'}, ('armsha512',), {name: ('armv8',) for name in SHA512_FAMILY}, 2),
    'armsha512,armsha2,armsha1': (
        {'FASTDIGEST_DISABLE': 'armsha512,armsha2,armsha1'},
        ('armsha2',),
        {'*': ('armv8',)},
        2,
    ),
    # The portable C, on every CPU: below every level above.
    'portable': ({'FASTDIGEST_BACKEND': 'portable'}, (), None, 4),
}

REPORTED_KERNELS = re.compile(r'^fastdigest kernels: (\{.*\}) batch: (\{.*\})$', re.MULTILINE)
SUMMARY = re.compile(r'(\d+) passed')
# The self-test's file in the child's progress lines: every test passed (a dot) or was skipped (an s:
# the one about AVX-512 where the level hides it), none failed.
SELF_TEST_RAN = re.compile(r'^tests/test_self_test\.py \.[.s]* ', re.MULTILINE)


LEVEL_INDEPENDENT = (
    'test_typing.py', 'test_swap.py', 'test_memory.py', 'test_allocations.py', 'test_comment_paths.py',
    'test_layers.py', 'test_docs_examples.py', 'test_bench_rows.py', 'test_bench_many.py',
    'test_bench_compare.py', 'test_gil_minsize.py', 'test_capi.py',
)  # fmt: skip


def child_run():
    ignored = [argument for name in LEVEL_INDEPENDENT for argument in ('--ignore', TESTS / name)]
    return [sys.executable, '-m', 'pytest', '-p', 'no:cacheprovider', '--rootdir', TESTS.parent, TESTS, *ignored]


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
            if forbidden is None:
                assert kernel == 'portable', (level, kernels)
                continue
            for prefix in forbidden.get('*', ()) + forbidden.get(algorithm, ()):
                assert not kernel.startswith(prefix), (level, kernels)
    passed = SUMMARY.findall(output)
    assert passed and int(passed[-1]) > 1000, output[-4000:]
    assert SELF_TEST_RAN.search(output), output[-4000:]
