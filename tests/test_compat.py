"""The binding's compatibility unit (src/_fastdigest/python/compat.c and compat.h): every decision about
the running CPython is made there, at import, and each one agrees with what the running interpreter's
hashlib and hmac do; no other source file tests the version; and the argument binders cannot be given an
out array of the wrong kind.

The decisions are read from the extension's _compat, the read-only mapping of the module state's, and each
is compared with hashlib or hmac itself, never with a version number written here.
"""

import hashlib
import hmac
import os
import pathlib
import re
import subprocess
import sys
import sysconfig
import warnings

import pytest

from conftest import HASHLIB_TAKES_DATA, unsupported
from fastdigest import _fastdigest

SOURCE_TREE = pathlib.Path(__file__).resolve().parent.parent
BINDING = SOURCE_TREE / 'src' / '_fastdigest' / 'python'
COMPAT = _fastdigest._compat


def test_the_decisions_are_the_documented_ones():
    assert set(COMPAT) == {
        'running_version',
        'data_keyword',
        'string_deprecation',
        'keyword_suggestions',
        'unsupported_algorithm',
        'missing_digestmod',
        'scrypt_in_all',
    }
    with pytest.raises(TypeError):
        COMPAT['data_keyword'] = not COMPAT['data_keyword']  # read-only: the C code reads its own copy


def test_running_version_is_the_interpreters():
    assert COMPAT['running_version'] == sys.hexversion


def test_data_keyword_is_hashlibs():
    assert COMPAT['data_keyword'] is HASHLIB_TAKES_DATA


def test_string_deprecation_is_hashlibs():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        hashlib.sha256(string=b'')
    messages = [str(w.message) for w in caught if issubclass(w.category, DeprecationWarning)]
    assert messages == ([] if COMPAT['string_deprecation'] is None else [COMPAT['string_deprecation']])


def test_keyword_wording_is_hashlibs():
    # A misspelt keyword to one of hashlib's Argument Clinic functions: 3.13+ words it as Python functions
    # do and suggests the near name; before, "'x' is an invalid keyword argument for f()".
    with pytest.raises(TypeError) as raised:
        hashlib.sha256(usedforsecurty=True)
    message = str(raised.value)
    if COMPAT['keyword_suggestions']:
        assert message.endswith("got an unexpected keyword argument 'usedforsecurty'. Did you mean 'usedforsecurity'?")
    else:
        assert message.startswith("'usedforsecurty' is an invalid keyword argument for ")
    with pytest.raises(TypeError) as raised:
        hmac.new(b'key', digestmd='sha256')
    assert ('Did you mean' in str(raised.value)) is COMPAT['keyword_suggestions']


def test_unsupported_algorithm_is_hashlibs():
    assert COMPAT['unsupported_algorithm'] == unsupported('')


def test_missing_digestmod_is_hmacs():
    with pytest.raises(TypeError) as raised:
        hmac.new(b'key')
    assert COMPAT['missing_digestmod'] == str(raised.value)


@pytest.mark.skipif(not hasattr(hashlib, 'scrypt'), reason='this Python has no OpenSSL scrypt to list')
def test_scrypt_in_all_is_hashlibs():
    assert COMPAT['scrypt_in_all'] is ('scrypt' in hashlib.__all__)


# --- no version test outside the unit -----------------------------------------------------------------

# What tests a CPython version in C (the macros of patchlevel.h, the run-time Py_Version) or in Python.
C_VERSION_TESTS = re.compile(r'\b(PY_VERSION_HEX|PY_(MAJOR|MINOR|MICRO)_VERSION|PY_RELEASE_LEVEL|Py_Version)\b')
PYTHON_VERSION_TESTS = re.compile(r'\b(version_info|hexversion)\b')


def version_tests(paths, pattern, root=SOURCE_TREE):
    return [
        f'{path.relative_to(root)}:{number}: {line.strip()}'
        for path in paths
        for number, line in enumerate(path.read_text(encoding='utf-8').splitlines(), 1)
        if pattern.search(line)
    ]


@pytest.mark.skipif(not BINDING.is_dir(), reason='the tests run away from the source tree (against a wheel)')
def test_only_the_compat_unit_tests_the_version():
    sources = sorted((SOURCE_TREE / 'src').rglob('*.[ch]'))
    assert BINDING / 'compat.c' in sources and BINDING / 'compat.h' in sources
    outside = [path for path in sources if path.parent != BINDING or path.stem != 'compat']
    assert version_tests(outside, C_VERSION_TESTS) == []
    # The package's Python code asks the extension's _compat instead (the stubs, read by type checkers
    # rather than run, keep their own `if sys.version_info` branches).
    package = sorted((SOURCE_TREE / 'fastdigest').rglob('*.py'))
    assert package and version_tests(package, PYTHON_VERSION_TESTS) == []


def test_version_scan_finds_a_version_test(tmp_path):
    # The scan above can fail: it reports a file that tests the version.
    source = tmp_path / 'probe.c'
    source.write_text('#include <Python.h>\n#if PY_VERSION_HEX >= 0x030D0000\n#endif\n', encoding='utf-8')
    assert version_tests([source], C_VERSION_TESTS, tmp_path) == ['probe.c:2: #if PY_VERSION_HEX >= 0x030D0000']


# --- the binders' slot counts ---------------------------------------------------------------------------

BIND_CALLS = {
    'an array': ('PyObject *out[2]; return fd_bind_arguments(c, &s, NULL, 0, NULL, out);', True),
    'one object': ('PyObject *out; return fd_bind_arguments(c, &s, NULL, 0, NULL, &out);', False),
    'NULL': ('return fd_bind_arguments(c, &s, NULL, 0, NULL, NULL);', False),
    'a pointer': ('PyObject *a[2], **out = a; return fd_bind_arguments(c, &s, NULL, 0, NULL, out);', False),
    'names from an array': ('static const fd_signature t = {FD_PARAMETERS(names)}; return (int)t.nparams;', True),
    'names from a pointer': (
        'const char *const *p = names; const fd_signature t = {FD_PARAMETERS(p)}; return 0;',
        False,
    ),
}


@pytest.mark.heavy
@pytest.mark.skipif(not BINDING.is_dir(), reason='the tests run away from the source tree (against a wheel)')
@pytest.mark.parametrize('label', BIND_CALLS)
def test_binders_take_arrays_only(tmp_path, label):
    # fd_bind_arguments passes the length of its out array, which must be an array: anything else (one
    # object's address, NULL, a pointer) is refused by the compiler, as is a parameter list given by pointer.
    body, compiles = BIND_CALLS[label]
    source = tmp_path / 'bind.c'
    source.write_text(
        '#include "python/binding.h"\n'
        'static const char *const names[] = {"a", "b"};\n'
        'int probe(const fd_compat *c);\n'
        'int probe(const fd_compat *c)\n'
        '{\n'
        '    static const fd_signature s = {.function = "f", FD_PARAMETERS(names)};\n'
        '    (void)c, (void)s;\n'
        f'    {body}\n'
        '}\n',
        encoding='utf-8',
    )
    compiler = (sysconfig.get_config_var('CC') or 'cc').split()
    includes = [sysconfig.get_paths()['include'], *filter(None, os.environ.get('CFLAGS', '').split())]
    command = [
        *compiler,
        '-std=c11',
        '-fsyntax-only',
        '-I',
        str(SOURCE_TREE / 'src' / '_fastdigest'),
        *(f'-I{path}' if not path.startswith('-') else path for path in includes),
        str(source),
    ]
    result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert (result.returncode == 0) is compiles, result.stdout
