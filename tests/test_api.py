"""The API surface: hashlib's, as the running Python's hashlib has it, for md5, sha1 and the SHA-2 family.

Constructors and new() take their data as this Python's hashlib does: `string=` before 3.14; `data=` and
`string=` (mutually exclusive) from 3.14, where string= warns from 3.15. Every argument error and warning
is compared with the interpreter's own hashlib call by call in tests/test_hashlib_words.py; this file
checks the forms that work, the values they take and the objects they make.
"""

import _hashlib
import array
import ctypes
import hashlib
import importlib
import importlib.machinery
import importlib.metadata
import io
import mmap
import pickle
import re
import sys
import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fastdigest
from conftest import HASHLIB_TAKES_DATA, examples

ALGORITHMS = ('md5', 'sha1', 'sha224', 'sha256', 'sha384', 'sha512', 'sha512_224', 'sha512_256')

# The keyword the constructors take their data by on this Python (new() takes data= on every one).
DATA_KEYWORD = 'data' if HASHLIB_TAKES_DATA else 'string'
STR_DATA = 'Strings must be encoded before hashing'
NOT_A_BUFFER = 'object supporting the buffer API required'


def raises(exc_type, func, message):
    """Calls func and asserts it raises exactly exc_type with str(exc) equal to message, or matching it when
    message is a compiled regular expression."""
    with pytest.raises(BaseException) as info:
        func()
    assert type(info.value) is exc_type, f'{type(info.value).__name__}: {info.value}'
    text = str(info.value)
    if isinstance(message, re.Pattern):
        assert message.fullmatch(text), text
    else:
        assert text == message


def outcome(func):
    """(exception type, message) when func raises, else ('ok', digest)."""
    try:
        result = func()
    except Exception as exc:
        return type(exc), str(exc)
    return 'ok', result.digest()


def construct(module, name, *args):
    """module's named constructor. For hashlib, _hashlib.new: hashlib has no sha512_224 attribute, and
    hashlib.new, on any ValueError from OpenSSL's constructor (a released memoryview, a non-contiguous
    array), retries with its built-in constructors and for sha512_224 reports 'unsupported hash type'."""
    if module is hashlib:
        return _hashlib.new(name, *args)
    return getattr(module, name)(*args)


def construct_by_new(module, name, *args):
    if module is hashlib:
        return _hashlib.new(name, *args)
    return module.new(name, *args)


def updated(hash_object, data):
    hash_object.update(data)
    return hash_object


def same_as_hashlib(make):
    """make(module) is called with hashlib and with fastdigest; both must give the same digest or raise the
    same exception type with the same message."""
    expected = outcome(lambda: make(hashlib))
    assert outcome(lambda: make(fastdigest)) == expected


# --- the module ------------------------------------------------------------------------------------


def test_algorithm_sets():
    # hashlib's sets (fastdigest.new accepts every name in them), frozen, the available ones with
    # fastdigest's own; `implementation` names those that fastdigest implements, these among them.
    assert fastdigest.algorithms_guaranteed == hashlib.algorithms_guaranteed
    assert fastdigest.algorithms_available == hashlib.algorithms_available | set(fastdigest.implementation)
    assert type(fastdigest.algorithms_guaranteed) is frozenset
    assert type(fastdigest.algorithms_available) is frozenset
    assert set(ALGORITHMS) <= set(fastdigest.implementation)
    assert set(ALGORITHMS) <= fastdigest.algorithms_available


def test_version_is_the_installed_distributions():
    # One source: fastdigest/_version.py, which the package metadata reads too.
    try:
        installed = importlib.metadata.version('fastdigest')
    except importlib.metadata.PackageNotFoundError:
        pytest.skip('fastdigest is not installed (an in-place build on PYTHONPATH): no metadata to compare')
    assert fastdigest.__version__ == installed
    assert re.fullmatch(r'\d+\.\d+\.\d+([ab]|rc)?\d*', fastdigest.__version__)


def test_gil_threshold():
    assert fastdigest._GIL_MINSIZE == 2048


def test_built_as_extension_and_reexported():
    extension = importlib.import_module('fastdigest._fastdigest')
    assert extension.__file__.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))
    for name in ALGORITHMS:
        assert getattr(fastdigest, name) is getattr(extension, name)
        # Not hashlib's objects in disguise.
        assert not type(getattr(fastdigest, name)()).__module__.startswith(('_hashlib', 'hashlib', '_sha', '_md5'))


def test_the_source_tree_says_it_has_no_extension(tmp_path):
    """Python started in a checkout imports its fastdigest/ folder, which holds no compiled extension: the
    error says so and what to do, not a circular import."""
    import shutil
    import subprocess

    package = tmp_path / 'fastdigest'
    shutil.copytree(importlib.import_module('fastdigest').__path__[0], package,
                    ignore=shutil.ignore_patterns('_fastdigest.*', '__pycache__'))  # fmt: skip
    # -S: no site-packages, whose installed (or editable) fastdigest would supply the extension.
    command = [sys.executable, '-S', '-c', 'import fastdigest']
    result = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert result.returncode == 1
    last_line = result.stderr.splitlines()[-1]
    assert last_line.startswith(
        "ImportError: fastdigest's compiled extension (_fastdigest%s) is not in %s, which is fastdigest's "
        'source tree' % (importlib.machinery.EXTENSION_SUFFIXES[0], package)
    ), result.stderr
    assert 'python -m pip install .' in last_line and 'circular' not in result.stderr
    # One built for another Python is named.
    (package / ('_fastdigest.cpython-39' + importlib.machinery.EXTENSION_SUFFIXES[-1])).write_bytes(b'')
    result = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert (
        '(only _fastdigest.cpython-39%s, built for another Python)' % importlib.machinery.EXTENSION_SUFFIXES[-1]
        in result.stderr.splitlines()[-1]
    ), result.stderr


# --- constructors ------------------------------------------------------------------------------------


def test_constructor_forms(algorithm):
    constructor = getattr(fastdigest, algorithm)
    expected = hashlib.new(algorithm, b'abc').digest()
    empty = hashlib.new(algorithm).digest()
    assert constructor().digest() == empty
    assert constructor(b'').digest() == empty
    assert constructor(b'abc').digest() == expected
    assert constructor(**{DATA_KEYWORD: b'abc'}).digest() == expected
    assert constructor(b'abc', usedforsecurity=False).digest() == expected
    assert constructor(**{DATA_KEYWORD: b'abc'}, usedforsecurity=True).digest() == expected
    assert constructor(usedforsecurity=False, **{DATA_KEYWORD: b'abc'}).digest() == expected
    assert fastdigest.new(algorithm).digest() == empty
    assert fastdigest.new(algorithm, b'abc').digest() == expected
    assert fastdigest.new(algorithm, data=b'abc').digest() == expected
    assert fastdigest.new(name=algorithm, data=b'abc', usedforsecurity=False).digest() == expected
    assert fastdigest.new(algorithm, b'abc', usedforsecurity=False).digest() == expected


@pytest.mark.skipif(not HASHLIB_TAKES_DATA, reason="string= is this hashlib's data keyword (tested above)")
def test_constructor_string_keyword(algorithm):
    # A hashlib that takes data= takes string= too, for the code written before; 3.15 deprecates it (the warning is compared with
    # hashlib's in test_hashlib_words.py).
    constructor = getattr(fastdigest, algorithm)
    expected = hashlib.new(algorithm, b'abc').digest()
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', DeprecationWarning)
        assert constructor(string=b'abc').digest() == expected
        assert constructor(usedforsecurity=False, string=b'abc').digest() == expected
        assert fastdigest.new(algorithm, string=b'abc').digest() == expected


@pytest.mark.skipif(sys.version_info >= (3, 15), reason='3.15 deprecates string=')
def test_no_warning_before_3_15(algorithm):
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        getattr(fastdigest, algorithm)(string=b'abc')
        fastdigest.new(algorithm, data=b'abc')
        if HASHLIB_TAKES_DATA:
            fastdigest.new(algorithm, string=b'abc')


@pytest.mark.parametrize('flag', [True, False, 0, 1, 2, None, '', 'no', [], [0], 0.0, object()])
def test_usedforsecurity_takes_any_truth_value(algorithm, flag):
    expected = hashlib.new(algorithm, b'xyz').digest()
    assert getattr(fastdigest, algorithm)(b'xyz', usedforsecurity=flag).digest() == expected
    assert fastdigest.new(algorithm, b'xyz', usedforsecurity=flag).digest() == expected


def test_constructor_errors_are_hashlibs(algorithm):
    # A few of the calls test_hashlib_words.py generates, here for each algorithm: sha512_224 and
    # sha512_256, which hashlib lacks, against hashlib.new's result for the data and sha512's words.
    theirs = getattr(hashlib, algorithm, None)
    for args, kwargs in [(('abc',), {}), ((1,), {}), ((None,), {}), ((), {DATA_KEYWORD: 'x'}), ((b'a', b'b'), {})]:
        got = outcome(lambda: getattr(fastdigest, algorithm)(*args, **kwargs))
        if theirs is not None:
            assert got == outcome(lambda: theirs(*args, **kwargs))
        else:
            expected = outcome(lambda: hashlib.sha512(*args, **kwargs))
            assert got == (expected[0], expected[1].replace('openssl_sha512(', f'openssl_{algorithm}('))


# Calls of new() with a name that is none of the eight: hashlib.new answers them, so each gives exactly
# hashlib.new's result or exception and message, on any Python version.
FOREIGN_NEW_CALLS = [
    (('nope',), {}),
    (('',), {}),
    (('nope', 1), {}),
    (('nope', 'x'), {}),
    (('nope', None), {}),
    (('nope', b'a', b'b'), {}),
    (('nope',), {'foo': 1}),
    (('nope', b'a'), {'string': b'b'}),
    (('nope',), {'data': b'a', 'string': b'b'}),
    (('sha3_256', b'a', b'b'), {}),
    (('sha3_256', 'text'), {}),
    (('sha3_256',), {'digest_size': 16}),
    (('blake2b', b'a'), {'digest_size': 65}),
    (('blake2b', b'a'), {'nope': 1}),
    (('sha3_256', b'a'), {'name': 'sha3_256'}),
    ((), {'name': 'sha3_256', 'data': b'a'}),
    (('ripemd160', b'a'), {'usedforsecurity': False}),
]


def foreign_outcome(func):
    """('ok', type, name, digest) when func returns a hash object, else (exception type, message)."""
    try:
        result = func()
    except Exception as exc:
        return type(exc), str(exc)
    digest = result.digest(16) if result.name.startswith('shake') else result.digest()
    return 'ok', type(result), result.name, digest


@pytest.mark.parametrize(('args', 'kwargs'), FOREIGN_NEW_CALLS)
def test_new_other_names_are_hashlibs(args, kwargs):
    expected = foreign_outcome(lambda: hashlib.new(*args, **kwargs))
    assert foreign_outcome(lambda: fastdigest.new(*args, **kwargs)) == expected


# --- new(): the names hashlib.new accepts for the eight algorithms ------------------------------------

# OpenSSL 3's names and aliases for the eight digests, CPython's own spellings, and their OIDs.
BASE_SPELLINGS = [
    'md5', 'ssl3-md5', '1.2.840.113549.2.5',
    'sha1', 'sha-1', 'ssl3-sha1', '1.3.14.3.2.26',
    'sha224', 'sha-224', 'sha2-224', '2.16.840.1.101.3.4.2.4',
    'sha256', 'sha-256', 'sha2-256', '2.16.840.1.101.3.4.2.1',
    'sha384', 'sha-384', 'sha2-384', '2.16.840.1.101.3.4.2.2',
    'sha512', 'sha-512', 'sha2-512', '2.16.840.1.101.3.4.2.3',
    'sha512_224', 'sha512-224', 'sha-512/224', 'sha2-512/224', '2.16.840.1.101.3.4.2.5',
    'sha512_256', 'sha512-256', 'sha-512/256', 'sha2-512/256', '2.16.840.1.101.3.4.2.6',
]  # fmt: skip

# Names that look like the eight but are not them, and names of other algorithms that hashlib has.
NEAR_MISSES = [
    '', ' ', 'sha', 'md', 'sha2', 'sha2_256', 'sha512/224', 'sha512/256', 'sha-2-256', 'sha_256', 'sha 256',
    'sha2_512_224', 'sha-512-224', 'sha512224', 'sha-512_224', 'sha-1-', 'ssl3_md5', 'ssl3md5', 'md_5',
    'sha256/192', 'md4', 'md5-sha1', 'sha3-256', 'sha3_256', 'sha3_512', 'shake128', 'shake_128', 'blake2b',
    'blake2b512', 'blake2s256', 'ripemd160', 'rmd160', 'sm3', 'whirlpool', 'mdc2', 'null',
    '2.16.840.1.101.3.4.2.8', '2.16.840.1.101.3.4.2.7', '2.16.840.1.101.3.4.2.1.', '2.16.840.1.101.3.4.2',
    '1.2.840.113549.2.4',
    # Unicode look-alikes: 'ſ' (U+017F) upper-cases to 'S', 'ﬀ'-style ligatures and full-width forms.
    'ſha256', 'ſſl3-md5', 'ｓｈａ２５６', 'sha２５６', 'ѕha256', 'sha256\u200b',
]  # fmt: skip


def case_variants(name):
    variants = {name, name.lower(), name.upper(), name.capitalize(), name.swapcase()}
    variants.add(''.join(c.upper() if i % 2 else c for i, c in enumerate(name)))
    variants.add(''.join(c.upper() if i % 2 == 0 else c for i, c in enumerate(name)))
    return variants


def spelling_candidates():
    candidates = set()
    for name in BASE_SPELLINGS + NEAR_MISSES:
        for variant in case_variants(name):
            candidates.add(variant)
            for wrapped in (f' {variant}', f'{variant} ', f'\t{variant}', f'{variant}\n'):
                candidates.add(wrapped)
    for name in BASE_SPELLINGS:
        candidates.add(name.replace('-', '_'))
        candidates.add(name.replace('_', '-'))
        candidates.add(name.replace('/', '_'))
        candidates.add(name.replace('/', '-'))
        candidates.add(name.replace('-', ''))
    return sorted(candidates)


def hashlib_verdict(name):
    """The algorithm hashlib.new(name) gives when it is one of the eight, else None."""
    try:
        result = hashlib.new(name).name
    except ValueError:
        return None
    return result if result in ALGORITHMS else None


def spelling_problem(name):
    """None when fastdigest.new treats name as hashlib.new does, else a description of the difference."""
    expected_algorithm = hashlib_verdict(name)
    if expected_algorithm is None:
        # None of the eight: hashlib.new's to answer, whether it knows the name (sha3-256) or not.
        expected = foreign_outcome(lambda: hashlib.new(name, b'abc'))
        got = foreign_outcome(lambda: fastdigest.new(name, b'abc'))
        if got != expected:
            return f'{name!r}: {got}, hashlib.new gives {expected}'
        if got[0] == 'ok' and got[1] is fastdigest.HASH:
            return f'{name!r}: a fastdigest object, for an algorithm that is not one of the eight'
        return None
    try:
        hash_object = fastdigest.new(name, b'abc')
        without_data = fastdigest.new(name, usedforsecurity=False)
    except ValueError as exc:
        return f'{name!r}: rejected ({exc}), hashlib gives {expected_algorithm}'
    if type(hash_object) is not fastdigest.HASH:
        return f'{name!r}: a {type(hash_object).__name__} object, not fastdigest.HASH'
    if not (hash_object.name == without_data.name == expected_algorithm):
        return f'{name!r}: name {hash_object.name}, hashlib gives {expected_algorithm}'
    if hash_object.digest() != hashlib.new(expected_algorithm, b'abc').digest():
        return f'{name!r}: digest differs from hashlib'
    return None


def test_new_accepts_exactly_hashlibs_spellings():
    """Every spelling hashlib.new accepts for the eight algorithms gives the same algorithm, as a fastdigest
    object; every other candidate (near misses, other algorithms' names, look-alikes, and the mixed-case forms
    of CPython's 'sha512_224' and 'sha512_256', which hashlib matches only in lower or upper case) gets
    hashlib.new's own answer: its object for a name it knows, else its ValueError."""
    candidates = spelling_candidates()
    accepted = [name for name in candidates if hashlib_verdict(name) is not None]
    # The comparison means something only if hashlib accepts a good share of the candidates here: every
    # base spelling in lower case and upper case at least.
    for name in BASE_SPELLINGS:
        assert hashlib_verdict(name) is not None, f'hashlib on this machine rejects {name!r}'
        assert hashlib_verdict(name.upper()) is not None, f'hashlib on this machine rejects {name.upper()!r}'
    assert len(accepted) > 100
    problems = [problem for problem in map(spelling_problem, candidates) if problem]
    assert not problems, f'{len(problems)} of {len(candidates)} names differ from hashlib.new:\n' + '\n'.join(problems)


@settings(max_examples=examples(300), deadline=None, derandomize=True, database=None)
@given(st.sampled_from(BASE_SPELLINGS), st.lists(st.booleans(), min_size=16, max_size=16))
def test_new_any_letter_case(base, upper_mask):
    name = ''.join(c.upper() if upper_mask[i % 16] else c for i, c in enumerate(base))
    assert spelling_problem(name) is None, spelling_problem(name)


@pytest.mark.parametrize('name', ['md5\x00', 'sha256\x00', 'sha256\x00x', '\x00sha1', 'md5\x00sha1'])
def test_new_embedded_nul_is_rejected(name):
    # hashlib raises TypeError or ValueError here depending on the version; a C-string comparison that
    # stops at the NUL would wrongly accept it.
    with pytest.raises((TypeError, ValueError)):
        fastdigest.new(name)


def test_new_name_is_canonical(algorithm):
    assert fastdigest.new(algorithm.upper()).name == algorithm
    assert fastdigest.new(algorithm.upper()).copy().name == algorithm


# --- hash objects ------------------------------------------------------------------------------------


def test_attributes_match_hashlib(algorithm):
    reference = hashlib.new(algorithm)
    for hash_object in (getattr(fastdigest, algorithm)(), fastdigest.new(algorithm), fastdigest.new(algorithm).copy()):
        assert hash_object.name == reference.name == algorithm
        assert hash_object.digest_size == reference.digest_size
        assert hash_object.block_size == reference.block_size
        assert type(hash_object.name) is str
        assert type(hash_object.digest_size) is int
        assert type(hash_object.block_size) is int


@pytest.mark.parametrize('attribute', ['name', 'digest_size', 'block_size'])
def test_attributes_are_read_only(algorithm, attribute):
    hash_object = fastdigest.new(algorithm)
    not_writable = re.compile(rf"attribute '{attribute}' of '[\w.]+' objects is not writable")
    raises(AttributeError, lambda: setattr(hash_object, attribute, 1), not_writable)
    with pytest.raises(AttributeError):
        delattr(hash_object, attribute)
    assert getattr(hash_object, attribute) == getattr(hashlib.new(algorithm), attribute)


def test_no_new_attributes(algorithm):
    hash_object = fastdigest.new(algorithm)
    raises(
        AttributeError,
        lambda: setattr(hash_object, 'foo', 1),
        re.compile(r"'[\w.]+' object has no attribute 'foo'( and no __dict__ for setting new attributes)?"),
    )
    raises(AttributeError, lambda: hash_object.foo, re.compile(r"'[\w.]+' object has no attribute 'foo'"))


def test_update_digest_hexdigest(algorithm):
    hash_object = fastdigest.new(algorithm)
    reference = hashlib.new(algorithm)
    assert hash_object.update(b'hello ') is None
    reference.update(b'hello ')
    digest = hash_object.digest()
    assert type(digest) is bytes
    assert len(digest) == hash_object.digest_size
    assert digest == reference.digest()
    hexdigest = hash_object.hexdigest()
    assert type(hexdigest) is str
    assert hexdigest == digest.hex() == reference.hexdigest()
    assert hexdigest == hexdigest.lower()


def test_digest_does_not_change_the_object(algorithm):
    hash_object = fastdigest.new(algorithm, b'first part ')
    first = hash_object.digest()
    assert hash_object.digest() == first
    assert hash_object.hexdigest() == first.hex()
    hash_object.update(b'second part')
    assert hash_object.digest() == hashlib.new(algorithm, b'first part second part').digest()
    assert hash_object.digest() == hashlib.new(algorithm, b'first part second part').digest()


def test_copy_is_independent(algorithm):
    original = fastdigest.new(algorithm, b'common ')
    duplicate = original.copy()
    assert type(duplicate) is type(original)
    assert duplicate is not original
    assert duplicate.name == original.name
    assert duplicate.digest() == original.digest()
    original.update(b'left')
    duplicate.update(b'right')
    assert original.digest() == hashlib.new(algorithm, b'common left').digest()
    assert duplicate.digest() == hashlib.new(algorithm, b'common right').digest()
    # A copy of a copy, and a copy after the original was finalized.
    triplicate = duplicate.copy()
    duplicate.update(b'!')
    assert triplicate.digest() == hashlib.new(algorithm, b'common right').digest()
    assert duplicate.digest() == hashlib.new(algorithm, b'common right!').digest()


def test_failed_update_leaves_state(algorithm):
    hash_object = fastdigest.new(algorithm, b'abc')
    for bad in ('text', 1, None, memoryview(b'abcdef')[::2]):
        with pytest.raises((TypeError, BufferError)):
            hash_object.update(bad)
    assert hash_object.digest() == hashlib.new(algorithm, b'abc').digest()


def test_repr_names_the_algorithm(algorithm):
    assert algorithm in repr(fastdigest.new(algorithm))
    assert algorithm in repr(fastdigest.new(algorithm.upper()))


def test_type_cannot_be_instantiated(algorithm):
    hash_type = type(fastdigest.new(algorithm))
    raises(TypeError, lambda: hash_type(), re.compile(r"cannot create '[\w.]+' instances"))
    raises(TypeError, lambda: hash_type(b'abc'), re.compile(r"cannot create '[\w.]+' instances"))


def test_method_signature_errors(algorithm):
    hash_object = fastdigest.new(algorithm, b'a')
    method = r'[\w.]*'
    raises(TypeError, lambda: hash_object.update('abc'), STR_DATA)
    raises(TypeError, lambda: hash_object.update(1), NOT_A_BUFFER)
    raises(TypeError, lambda: hash_object.update(None), NOT_A_BUFFER)
    raises(
        TypeError,
        lambda: hash_object.update(),
        re.compile(rf'{method}update\(\) takes exactly one argument \(0 given\)'),
    )
    raises(
        TypeError,
        lambda: hash_object.update(b'a', b'b'),
        re.compile(rf'{method}update\(\) takes exactly one argument \(2 given\)'),
    )
    raises(
        TypeError, lambda: hash_object.update(data=b'b'), re.compile(rf'{method}update\(\) takes no keyword arguments')
    )
    raises(
        TypeError, lambda: hash_object.update(b'b', c=1), re.compile(rf'{method}update\(\) takes no keyword arguments')
    )
    raises(TypeError, lambda: hash_object.digest(5), re.compile(rf'{method}digest\(\) takes no arguments \(1 given\)'))
    raises(TypeError, lambda: hash_object.digest(x=1), re.compile(rf'{method}digest\(\) takes no keyword arguments'))
    raises(
        TypeError,
        lambda: hash_object.hexdigest(1),
        re.compile(rf'{method}hexdigest\(\) takes no arguments \(1 given\)'),
    )
    raises(TypeError, lambda: hash_object.copy(1), re.compile(rf'{method}copy\(\) takes no arguments \(1 given\)'))
    raises(TypeError, lambda: hash_object.copy(x=1), re.compile(rf'{method}copy\(\) takes no keyword arguments'))
    assert hash_object.digest() == hashlib.new(algorithm, b'a').digest()


# --- buffers -----------------------------------------------------------------------------------------


def anonymous_mmap(content):
    mapping = mmap.mmap(-1, len(content))
    mapping.write(content)
    return mapping


SAMPLE = bytes(range(256)) * 3 + b'tail'

BUFFER_MAKERS = {
    'bytes': lambda: SAMPLE,
    'empty bytes': lambda: b'',
    'bytearray': lambda: bytearray(SAMPLE),
    'empty bytearray': lambda: bytearray(),
    'bytes subclass': lambda: type('B', (bytes,), {})(SAMPLE),
    'memoryview': lambda: memoryview(SAMPLE),
    'memoryview slice': lambda: memoryview(SAMPLE)[5:700],
    'memoryview step 1': lambda: memoryview(SAMPLE)[::1],
    'readonly memoryview': lambda: memoryview(bytearray(SAMPLE)).toreadonly(),
    'empty memoryview': lambda: memoryview(b''),
    'memoryview 2-D': lambda: memoryview(SAMPLE[:768]).cast('B', (24, 32)),
    'memoryview format I': lambda: memoryview(SAMPLE[:768]).cast('I'),
    'memoryview 3-D format H': lambda: memoryview(SAMPLE[:768]).cast('H', (4, 8, 12)),
    'array B': lambda: array.array('B', SAMPLE),
    'array I': lambda: array.array('I', range(1000)),
    'array d': lambda: array.array('d', [1.5, -2.25, 1e300]),
    'mmap': lambda: anonymous_mmap(SAMPLE),
    'ctypes uint32 array': lambda: (ctypes.c_uint32 * 5)(1, 2, 3, 4, 0xFFFFFFFF),
    'pickle buffer': lambda: pickle.PickleBuffer(bytearray(SAMPLE)),
    'large bytearray': lambda: bytearray(SAMPLE * 20),
}


@pytest.mark.parametrize('kind', sorted(BUFFER_MAKERS))
def test_buffer_inputs(algorithm, kind):
    make = BUFFER_MAKERS[kind]
    expected = outcome(lambda: _hashlib.new(algorithm, make()))
    assert expected[0] == 'ok'
    constructor = getattr(fastdigest, algorithm)
    assert outcome(lambda: constructor(make())) == expected
    assert outcome(lambda: constructor(**{DATA_KEYWORD: make()})) == expected
    assert outcome(lambda: fastdigest.new(algorithm, make())) == expected
    assert outcome(lambda: fastdigest.new(algorithm, data=make())) == expected

    def by_update(module):
        hash_object = construct_by_new(module, algorithm, b'prefix')
        hash_object.update(make())
        hash_object.update(make())
        return hash_object

    same_as_hashlib(by_update)


def released_memoryview():
    view = memoryview(b'abc')
    view.release()
    return view


BAD_BUFFER_MAKERS = {
    'str': lambda: 'abc',
    'empty str': lambda: '',
    'int': lambda: 1,
    'None': lambda: None,
    'list': lambda: [1, 2],
    'object': lambda: object(),
    'non-contiguous memoryview': lambda: memoryview(SAMPLE)[::2],
    'negative-stride memoryview': lambda: memoryview(SAMPLE)[::-1],
    'non-contiguous 2-D memoryview': lambda: memoryview(SAMPLE[:768]).cast('B', (24, 32))[::2],
    'released memoryview': released_memoryview,
}


@pytest.mark.parametrize('kind', sorted(BAD_BUFFER_MAKERS))
def test_bad_buffer_inputs(algorithm, kind):
    make = BAD_BUFFER_MAKERS[kind]
    expected = outcome(lambda: _hashlib.new(algorithm, make()))
    assert expected[0] in (TypeError, BufferError, ValueError)
    same_as_hashlib(lambda module: construct(module, algorithm, make()))
    same_as_hashlib(lambda module: construct_by_new(module, algorithm, make()))
    same_as_hashlib(lambda module: updated(construct_by_new(module, algorithm), make()))


def test_numpy_arrays(algorithm):
    np = pytest.importorskip('numpy')
    good = {
        '1-D uint8': lambda: np.arange(1000, dtype=np.uint8),
        '1-D float64': lambda: np.linspace(0, 1, 333),
        '2-D C-contiguous': lambda: np.arange(60, dtype=np.int32).reshape(3, 20),
        '3-D C-contiguous': lambda: np.arange(120, dtype=np.uint16).reshape(2, 3, 20),
        'empty': lambda: np.zeros(0, dtype=np.uint8),
        'large': lambda: np.arange(100_000, dtype=np.int64),
    }
    bad = {
        'strided 1-D': lambda: np.arange(100, dtype=np.uint8)[::2],
        'transposed 2-D': lambda: np.arange(60, dtype=np.int32).reshape(3, 20).T,
        'column slice 2-D': lambda: np.arange(60, dtype=np.int32).reshape(3, 20)[:, :5],
        'Fortran order': lambda: np.asfortranarray(np.arange(60, dtype=np.int32).reshape(3, 20)),
    }
    for make in list(good.values()) + list(bad.values()):
        same_as_hashlib(lambda module, make=make: construct(module, algorithm, make()))
        same_as_hashlib(lambda module, make=make: updated(construct_by_new(module, algorithm, b'x'), make()))
    for make in bad.values():
        assert outcome(lambda make=make: _hashlib.new(algorithm, make()))[0] is ValueError


# --- file_digest ------------------------------------------------------------------------------------


@pytest.mark.parametrize('size', [0, 1, 63, 2**18 - 1, 2**18, 2**18 + 1, 3 * 2**18 + 5])
def test_file_digest_bytesio_and_files(algorithm, size, tmp_path):
    content = bytes((i * 7 + 3) & 0xFF for i in range(size))
    expected = hashlib.new(algorithm, content).digest()
    path = tmp_path / 'data.bin'
    path.write_bytes(content)
    hash_type = type(fastdigest.new(algorithm))
    for digest in (algorithm, algorithm.upper(), getattr(fastdigest, algorithm), lambda: fastdigest.new(algorithm)):
        results = [fastdigest.file_digest(io.BytesIO(content), digest)]
        with open(path, 'rb') as buffered:
            results.append(fastdigest.file_digest(buffered, digest))
        with open(path, 'rb', buffering=0) as raw:
            results.append(fastdigest.file_digest(raw, digest))
        for result in results:
            assert type(result) is hash_type
            assert result.name == algorithm
            assert result.digest() == expected


@pytest.mark.skipif(
    not hasattr(hashlib, 'file_digest'), reason='hashlib.file_digest, the reference, is new in Python 3.11'
)
def test_file_digest_bytesio_reads_from_start_of_buffer(algorithm):
    # hashlib hashes the whole getbuffer() whatever the position; so must fastdigest.
    content = io.BytesIO(b'0123456789' * 1000)
    content.seek(5000)
    same_as_hashlib(lambda module: module.file_digest(content, algorithm))


def test_file_digest_callable_returning_other_object():
    # Any zero-argument callable is accepted, as in hashlib: here one returning a hashlib object.
    result = fastdigest.file_digest(io.BytesIO(b'abc'), hashlib.sha3_256)
    assert result.digest() == hashlib.sha3_256(b'abc').digest()


@pytest.mark.skipif(
    not hasattr(hashlib, 'file_digest'), reason='hashlib.file_digest, the reference, is new in Python 3.11'
)
def test_file_digest_errors(tmp_path):
    path = tmp_path / 'text.txt'
    path.write_text('some text\n')

    def both(make_args):
        expected = outcome(lambda: hashlib.file_digest(*make_args()))
        assert expected[0] != 'ok'
        assert outcome(lambda: fastdigest.file_digest(*make_args())) == expected

    with open(path) as text_file:
        both(lambda: (text_file, 'sha256'))
    with open(path, 'wb') as write_only:
        both(lambda: (write_only, 'sha256'))
    string_io = io.StringIO('abc')
    both(lambda: (string_io, 'sha256'))
    both(lambda: (b'abc', 'sha256'))
    both(lambda: (None, 'sha256'))
    not_a_file = object()  # one object for both calls: the message holds its repr
    both(lambda: (not_a_file, 'md5'))
    # The digest is made before the file is inspected.
    both(lambda: (io.StringIO('abc'), 'nope'))
    both(lambda: (io.BytesIO(b'abc'), 'nope'))
    both(lambda: (io.BytesIO(b'abc'), 1))
    both(lambda: (io.BytesIO(b'abc'), lambda: 5))
    both(lambda: (io.BytesIO(b'abc'), None))
    # Names hashlib has but fastdigest does not implement: hashlib's objects, as hashlib.file_digest gives.
    for name in ('blake2b', 'sha3_256'):
        expected = hashlib.file_digest(io.BytesIO(b'abc'), name)
        got = fastdigest.file_digest(io.BytesIO(b'abc'), name)
        assert (type(got), got.digest()) == (type(expected), expected.digest())
    # Positional-only parameters.
    with pytest.raises(TypeError):
        fastdigest.file_digest(fileobj=io.BytesIO(b'abc'), digest='sha256')
    with pytest.raises(TypeError):
        fastdigest.file_digest(io.BytesIO(b'abc'))


class WouldBlock(io.RawIOBase):
    """A readable binary stream whose readinto reports 'no data yet', as a non-blocking file does."""

    def readable(self):
        return True

    def readinto(self, buffer):
        return None


def test_file_digest_non_blocking_file():
    # CPython 3.14's text; 3.11's hashlib instead hashes the whole read buffer.
    raises(BlockingIOError, lambda: fastdigest.file_digest(WouldBlock(), 'sha256'), 'I/O operation would block.')
