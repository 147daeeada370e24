"""A changed FASTDIGEST_CFLAGS takes effect on the next build, with build/ left as the last build left it.

setuptools rebuilds an extension only when a source is newer than the built library; setup.py's
build_ext also compares the effective flags with a stamp in build/ and rebuilds when they changed. This
builds a copy of the source tree three times in place (`setup.py build_ext --inplace`, which keeps its
objects and stamp in the copy's build/ as `pip install .` does in the checkout's): with the default
kernels, with the opt-out macro of this CPU's SHA-256 kernel, and with the same flags again, which must
not rebuild. -O0 keeps the three builds to seconds.
"""

import os
import pathlib
import shutil
import subprocess
import sys

import pytest

import fastdigest

# Heavy tier: three builds of the source tree.
pytestmark = pytest.mark.heavy

SOURCE_TREE = pathlib.Path(__file__).resolve().parent.parent

# The SHA-256 kernel this CPU runs -> the macro that leaves it out of the build.
OPT_OUT_MACROS = {'shani': 'FD_NO_SHANI', 'armv8': 'FD_NO_ARM_SHA2'}


@pytest.fixture(scope='module')
def source_copy(tmp_path_factory):
    if not (SOURCE_TREE / 'setup.py').is_file():
        pytest.skip('the tests run away from the source tree (against an installed wheel): nothing to build')
    copy = tmp_path_factory.mktemp('source')
    # setup.py alone, without pyproject.toml: build_ext needs no metadata, and so no setuptools recent
    # enough for the PEP 639 license field.
    shutil.copy(SOURCE_TREE / 'setup.py', copy)
    shutil.copytree(SOURCE_TREE / 'src', copy / 'src')
    shutil.copytree(
        SOURCE_TREE / 'fastdigest',
        copy / 'fastdigest',
        ignore=shutil.ignore_patterns('*.so', '*.pyd', '__pycache__'),
    )
    return copy


def build(copy, cflags):
    environment = dict(os.environ, FASTDIGEST_CFLAGS=cflags)
    environment.pop('FASTDIGEST_LDFLAGS', None)
    result = subprocess.run(
        [sys.executable, 'setup.py', 'build_ext', '--inplace', '--parallel', '2'],
        cwd=str(copy),
        env=environment,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout
    (library,) = (copy / 'fastdigest').glob('_fastdigest.*')
    return library


def sha256_kernel(copy):
    """fastdigest.implementation['sha256'] of the copy's build, in a fresh interpreter."""
    code = 'import fastdigest; print(fastdigest.__file__); print(fastdigest.implementation["sha256"])'
    environment = dict(os.environ, PYTHONPATH=str(copy))
    environment.pop('FASTDIGEST_BACKEND', None)
    # Run in the copy: `python -c` puts its working directory first on sys.path, and the checkout's own
    # fastdigest/ must not be found there.
    output = subprocess.check_output(
        [sys.executable, '-c', code], cwd=str(copy), env=environment, universal_newlines=True
    )
    module_file, kernel = output.split()
    assert pathlib.Path(module_file).is_relative_to(copy), module_file
    return kernel


def test_changed_cflags_take_effect_without_removing_build(source_copy):
    kernel = fastdigest.implementation['sha256']
    if kernel not in OPT_OUT_MACROS:
        pytest.skip(f'this CPU runs the {kernel} SHA-256 kernel, which has no opt-out macro to observe')

    library = build(source_copy, '-O0')
    assert sha256_kernel(source_copy) == kernel

    library = build(source_copy, f'-O0 -D{OPT_OUT_MACROS[kernel]}')
    assert sha256_kernel(source_copy) != kernel, 'the build kept the objects of the earlier flags'

    # The same flags again: up to date, nothing is rebuilt.
    built = library.stat().st_mtime_ns
    library = build(source_copy, f'-O0 -D{OPT_OUT_MACROS[kernel]}')
    assert library.stat().st_mtime_ns == built
    assert sha256_kernel(source_copy) != kernel
