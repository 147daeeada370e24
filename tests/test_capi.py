"""The C API (fastdigest/include/fastdigest.h, the capsule fastdigest._fastdigest._C_API), tested as its users use
it: C extensions and a Cython module built with setuptools against the installed package's header
(fastdigest.get_include()), imported, and compared with hashlib and hmac.

tests/capi/capi_probe.c hands every function of the API to Python (tests/capi/capi_checks.py compares each with
the standard library) and is built with warnings as errors, so that the header builds cleanly in a user's strict
build; it is built again against a header of the next major version, and requiring a newer minor version, for
the version checks. The documentation's examples (docs/c-api.md) are built from the page and run.

The builds need a C compiler and the Python headers: without them the tests that build skip, saying so. The C
builds take a few seconds; the Cython module's, longer, is in the heavy tier.
"""

import hashlib
import hmac
import importlib
import itertools
import json
import os
import random
import re
import shutil
import subprocess
import sys
import sysconfig
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fastdigest
from conftest import ALGORITHMS, examples

TESTS = Path(__file__).resolve().parent
sys.path.insert(0, str(TESTS / 'capi'))
import capi_checks  # noqa: E402

PROBE = TESTS / 'capi' / 'capi_probe.c'
CHECKS = TESTS / 'capi' / 'capi_checks.py'
DOCS = TESTS.parent / 'docs' / 'c-api.md'
HEADER = Path(fastdigest.get_include()) / 'fastdigest.h'

# What a strict build of the user's sees of the header (GCC, Clang); MSVC builds with its defaults.
STRICT = [] if sys.platform == 'win32' else ['-std=c11', '-Wall', '-Wextra', '-Werror']
# Clang calls a flag of the interpreter's own CFLAGS that it ignores (-fno-strict-overflow beside
# -fwrapv, as the TSan build of 3.13t passes them) a warning, which -Werror would make an error of the
# interpreter's, not the header's.
if 'clang' in (sysconfig.get_config_var('CC') or ''):
    STRICT.append('-Wno-unused-command-line-argument')


def compiler_problem():
    """Why no extension can be built here, or None."""
    if not (Path(sysconfig.get_paths()['include']) / 'Python.h').is_file():
        return "this Python's headers (Python.h) are not installed"
    if sys.platform == 'win32':
        from setuptools._distutils.ccompiler import new_compiler

        try:
            new_compiler().initialize()
        except Exception as error:  # what each setuptools raises where no MSVC is found differs
            return f'no MSVC found: {error}'
        return None
    compiler = (sysconfig.get_config_var('CC') or 'cc').split()[0]
    if shutil.which(compiler) is None:
        return f'no C compiler: {compiler}, the compiler this Python was built with, is not installed'
    return None


def build(folder, setup_text, environment=None):
    """`python setup.py build_ext --inplace` of setup_text in folder, as a user builds an extension."""
    (folder / 'setup.py').write_text(setup_text, encoding='utf-8')
    result = subprocess.run(
        [sys.executable, 'setup.py', 'build_ext', '--inplace', '--parallel', '2'],
        cwd=folder,
        env=dict(os.environ, **(environment or {})),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout


@pytest.fixture(scope='session')
def compiler():
    problem = compiler_problem()
    if problem:
        pytest.skip(problem)


@pytest.fixture(scope='session')
def probe_folder(compiler, tmp_path_factory):
    """The probe built three times: against the installed header; against a copy whose major version is the
    next one (a module built for a future fastdigest); and requiring the next minor version."""
    folder = tmp_path_factory.mktemp('capi')
    # A copy of the source for each, as each object file is named after its source.
    for name in ('capi_probe', 'capi_probe_major', 'capi_probe_minor'):
        shutil.copy(PROBE, folder / f'{name}.c')
    future = folder / 'future'
    future.mkdir()
    header = HEADER.read_text(encoding='utf-8')
    major = int(re.search(r'#define FASTDIGEST_C_API_MAJOR (\d+)', header)[1])
    minor = int(re.search(r'#define FASTDIGEST_C_API_MINOR (\d+)', header)[1])
    future_header = header.replace(
        f'#define FASTDIGEST_C_API_MAJOR {major}', f'#define FASTDIGEST_C_API_MAJOR {major + 1}'
    )
    (future / 'fastdigest.h').write_text(future_header, encoding='utf-8')
    build(
        folder,
        f"""
from setuptools import Extension, setup

def probe(name, include, macros=()):
    return Extension(name, [name + '.c'], include_dirs=[include], extra_compile_args={STRICT!r},
                     define_macros=[('PROBE_MODULE', name), *macros])

setup(name='capi_probe', ext_modules=[
    probe('capi_probe', {fastdigest.get_include()!r}),
    probe('capi_probe_major', {str(future)!r}),
    probe('capi_probe_minor', {fastdigest.get_include()!r}, [('FASTDIGEST_C_API_REQUIRED_MINOR', '{minor + 1}')]),
])
""",
    )
    sys.path.insert(0, str(folder))
    return folder


@pytest.fixture(scope='session')
def probe(probe_folder):
    return importlib.import_module('capi_probe')


# ---- the package's files -----------------------------------------------------------------------------------


def test_get_include_has_the_header_and_the_pxd():
    include = Path(fastdigest.get_include())
    assert include.is_absolute() and include.parent == Path(fastdigest.__file__).resolve().parent
    assert {'fastdigest.h', 'fastdigest.pxd'} <= {path.name for path in include.iterdir()}
    assert type(fastdigest._fastdigest._C_API).__name__ == 'PyCapsule'
    assert 'fastdigest._fastdigest._C_API' in repr(fastdigest._fastdigest._C_API)


def test_the_ids_of_header_and_pxd_are_the_algorithm_table():
    """The header's ids (which python/capi.c checks against FD_ALGORITHMS when it compiles) name the algorithms
    in fastdigest's order, and the .pxd declares each of the header's constants."""
    header = HEADER.read_text(encoding='utf-8')
    ids = {name.lower(): int(value) for name, value in re.findall(r'#define FASTDIGEST_(\w+) (\d+)$', header, re.M)}
    assert [
        name for name, _ in sorted(ids.items(), key=lambda item: item[1]) if name in fastdigest.implementation
    ] == list(fastdigest.implementation)
    assert [ids[name] for name in fastdigest.implementation] == list(range(len(fastdigest.implementation)))
    pxd = (HEADER.parent / 'fastdigest.pxd').read_text(encoding='utf-8')
    constants = set(re.findall(r'#define (FASTDIGEST_\w+) ', header)) - {
        'FASTDIGEST_CAPSULE_NAME',
        'FASTDIGEST_C_API_REQUIRED_MINOR',
    }
    assert constants == set(re.findall(r'^        (FASTDIGEST_\w+)$', pxd, re.M))


# ---- the probe ------------------------------------------------------------------------------------------------


def test_every_function_against_hashlib(probe):
    kernels = capi_checks.check_everything(probe, seed=41)
    assert kernels == {
        name: [fastdigest.implementation[name], fastdigest.batch_implementation[name]] for name in ALGORITHMS
    }


@settings(max_examples=examples(200), deadline=None)
@given(
    name=st.sampled_from(ALGORITHMS),
    data=st.binary(max_size=700),
    cuts=st.lists(st.integers(0, 700), max_size=6),
    ends=st.lists(st.integers(0, 7), max_size=3),
)
def test_stream_in_any_parts(probe, name, data, cuts, ends):
    bounds = sorted({0, len(data), *(cut % (len(data) + 1) for cut in cuts)})
    parts = [data[a:b] for a, b in zip(bounds[:-1], bounds[1:], strict=True)] or [b'']
    ends = sorted({end % (len(parts) + 1) for end in ends})
    whole, copies = probe.stream(name, parts, ends)
    assert whole == fastdigest.new(name, data).digest() == hashlib.new(name, data).digest()
    assert copies == [hashlib.new(name, b''.join(parts[:end])).digest() for end in ends]


def test_algorithm_by_name(probe):
    for index, name in enumerate(fastdigest.implementation):
        assert probe.by_name(name.encode()) == index
        assert probe.by_name(name.upper().encode()) == index
    for unknown in (b'', b'sha', b'sha2566', b'sha-256', b'blake2b', b'sha256 ', b'md5\xc3\xa9'):
        assert probe.by_name(unknown) is None, unknown


def cpu_levels():
    """Each FASTDIGEST_DISABLE setting worth running, beside FASTDIGEST_BACKEND=portable: every subset of the
    features this CPU has that decide between kernels (kernels/: docs/kernels.md), on top of what this
    process's environment already hides."""
    deciding = sorted(
        {'shani', 'avx512', 'avx2', 'ssse3', 'sha512ni', 'armsha1', 'armsha2', 'armsha512'} & fastdigest.cpu_features
    )
    hidden = os.environ.get('FASTDIGEST_DISABLE', '')
    levels = [{'FASTDIGEST_BACKEND': 'portable', 'FASTDIGEST_DISABLE': hidden}]
    for size in range(len(deciding) + 1):
        for subset in itertools.combinations(deciding, size):
            levels.append({'FASTDIGEST_BACKEND': 'best', 'FASTDIGEST_DISABLE': ','.join([hidden, *subset])})
    # Each family's batch kernel refused, so that the next of its list hashes the batches: the one way the C API
    # reaches a kernel that no level selects first, such as MD5's eight AVX-512 lanes, which have the features of
    # its sixteen and come after them (dispatch.c: a narrower kernel, which only batches on threads run otherwise).
    multi_buffer = {
        (family, name) for family, name, lanes, _runs, _capabilities in fastdigest._fastdigest._kernels() if lanes > 1
    }
    # The best backend's choices, asked of a child: this process may run the portable C
    # (test_levels.py's portable level), which chooses no batch kernel.
    chosen = subprocess.run(
        [sys.executable, '-c', 'import json, fastdigest; print(json.dumps(fastdigest.batch_implementation))'],
        env=dict(os.environ, FASTDIGEST_BACKEND='best', FASTDIGEST_DISABLE=hidden),
        capture_output=True,
        text=True,
        check=True,
    )
    best = json.loads(chosen.stdout)
    first_choices = {
        (family, best[algorithms[0]]) for family, algorithms in fastdigest._fastdigest._families().items()
    } & multi_buffer
    if first_choices:
        refused = ','.join(f'{family}:{kernel}' for family, kernel in sorted(first_choices))
        levels.append(
            {'FASTDIGEST_BACKEND': 'best', 'FASTDIGEST_DISABLE': hidden, 'FASTDIGEST_TEST_FAIL_CHECK': refused}
        )
    return levels


def test_every_kernel_this_cpu_runs(probe_folder):
    """Every function through the capsule at every CPU level, each in a child process (the kernels are chosen at
    import): together they reach every kernel of the build this CPU runs, single-stream and multi-buffer."""

    def run(level):
        result = subprocess.run(
            [sys.executable, str(CHECKS), str(probe_folder), '41'],
            env=dict(os.environ, **level),
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert result.returncode == 0, (level, result.stdout, result.stderr)
        return json.loads(result.stdout)

    with ThreadPoolExecutor(2) as pool:
        reached = set()
        for kernels in pool.map(run, cpu_levels()):
            for family, algorithms in fastdigest._fastdigest._families().items():
                for algorithm in algorithms:
                    reached.update((family, kernel) for kernel in kernels[algorithm])
    runnable = {
        (family, name) for family, name, _lanes, runs, _capabilities in fastdigest._fastdigest._kernels() if runs
    }
    assert runnable - reached == set()


@pytest.mark.threads
def test_threads_the_interpreter_never_saw(probe):
    """Native threads started by the extension, with no thread state, hash through the API at once."""
    rng = random.Random(7)
    for name in ALGORITHMS:
        data = rng.randbytes(rng.randrange(1, 3000))
        want = hashlib.new(name, data).digest()
        assert probe.threads_digest(name, data, 4, 20) == [(want, want, want)] * 4


@pytest.mark.threads
def test_python_threads_with_the_gil_released(probe):
    """Python threads whose calls release the GIL around every function of the API, all at once."""

    def work(seed):
        rng = random.Random(seed)
        name = ALGORITHMS[seed % len(ALGORITHMS)]
        for _ in range(20):
            messages = capi_checks.views(rng, [rng.randrange(400) for _ in range(rng.randrange(40))])
            assert probe.digest_many(name, messages) == [hashlib.new(name, m).digest() for m in messages]
            key = rng.randbytes(20)
            assert probe.hmac_many(name, key, messages) == [hmac.digest(key, m, name) for m in messages]
            data = b''.join(messages)
            assert probe.stream(name, messages, [])[0] == hashlib.new(name, data).digest()

    with ThreadPoolExecutor(4) as pool:
        list(pool.map(work, range(16)))


# ---- versions ----------------------------------------------------------------------------------------------


def test_a_module_built_for_another_major_version_does_not_import(probe_folder):
    with pytest.raises(ImportError) as raised:
        importlib.import_module('capi_probe_major')
    assert str(raised.value) == (
        'fastdigest C API version mismatch: this module was built for major version 2 (fastdigest.h 2.0), but the '
        "installed fastdigest provides 1.0; rebuild the module against the installed fastdigest's header"
    )


def test_a_module_that_needs_a_newer_minor_version_does_not_import(probe_folder):
    with pytest.raises(ImportError) as raised:
        importlib.import_module('capi_probe_minor')
    assert str(raised.value) == (
        'fastdigest C API version mismatch: this module needs version 1.1 or a newer minor version, but the '
        'installed fastdigest provides 1.0; upgrade fastdigest'
    )


# ---- the documentation's examples ----------------------------------------------------------------------------


def docs_block(title_start):
    """The text of docs/c-api.md's one code block whose title starts with title_start."""
    from test_docs_examples import fenced_blocks

    found = [
        block.text
        for block in fenced_blocks(DOCS)
        if (re.search(r'title="([^"]*)"', block.info) or [None, ''])[1].startswith(title_start)
    ]
    assert len(found) == 1, (title_start, len(found))
    return found[0]


def run_docs_example(folder, title_start):
    sys.path.insert(0, str(folder))
    try:
        exec(compile(docs_block(title_start), str(DOCS), 'exec'), {'__name__': '__docs_example__'})
    finally:
        sys.path.remove(str(folder))


@pytest.mark.skipif(not DOCS.exists(), reason='the documentation is not beside these tests (an installed copy)')
def test_docs_c_example(compiler, tmp_path):
    (tmp_path / 'hashext.c').write_text(docs_block('hashext.c'), encoding='utf-8')
    # Warnings as errors: the example builds cleanly in a strict build too.
    build(
        tmp_path, docs_block('Not run: setup.py, which'), {'CFLAGS': ' '.join([os.environ.get('CFLAGS', ''), *STRICT])}
    )
    run_docs_example(tmp_path, 'Not run: needs hashext built')
    import hashext

    assert hashext.kernels('sha256') == (fastdigest.implementation['sha256'], fastdigest.batch_implementation['sha256'])
    with pytest.raises(ValueError, match='^unsupported hash type sha3_256$'):
        hashext.digest_joined('sha3_256', [])


# Heavy tier: Cython's translation and the compilation of what it writes take seconds.
@pytest.mark.heavy
@pytest.mark.skipif(not DOCS.exists(), reason='the documentation is not beside these tests (an installed copy)')
def test_docs_cython_example(compiler, tmp_path):
    pytest.importorskip('Cython', reason='Cython (in the test-core extra) is not installed')
    (tmp_path / 'prefixes.pyx').write_text(docs_block('prefixes.pyx'), encoding='utf-8')
    build(tmp_path, docs_block('Not run: setup.py for the Cython module'))
    run_docs_example(tmp_path, 'Not run: needs prefixes built')
    import prefixes

    for name in ALGORITHMS:
        data = bytes(range(7)) * 50
        assert prefixes.prefix_digests(name, data, 64) == [
            hashlib.new(name, data[:end]).digest() for end in [*range(64, len(data), 64), len(data)]
        ]
