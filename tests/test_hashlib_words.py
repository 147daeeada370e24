"""Each Python's hashlib and hmac, exactly: a generated matrix of calls, good and bad, goes to fastdigest's
function and to the running interpreter's own, and both must end the same way: the same exception type
and message (3.14's Argument Clinic words, 3.13's "Did you mean", 3.10's "invalid keyword argument"...),
or the same result; with the same warnings (3.15's DeprecationWarning for string=), from the same line.
No expected text is written here: every one comes from the interpreter's hashlib or hmac.

The matrix, per function: every number of positional arguments up to two more than it takes, each
position with each wrong value in turn, times every keyword and every ordered pair of keywords from a pool
of its parameter names, other functions' names, misspellings and unknown names, with right and wrong
values.
"""

import hashlib
import hmac
import inspect
import io
import itertools
import sys
import warnings

import pytest

import fastdigest
import fastdigest.hmac as fd_hmac

CONSTRUCTORS = ['md5', 'sha1', 'sha224', 'sha256', 'sha384', 'sha512']


class NoTruth:
    """A usedforsecurity whose truth cannot be taken."""

    def __bool__(self):
        raise ZeroDivisionError('no truth here')

    def __repr__(self):
        return 'NoTruth()'


TWO_DIMENSIONAL = memoryview(bytes(8)).cast('B', (2, 4))
WRONG_VALUES = ['text', None, 1, 2.5, TWO_DIMENSIONAL]
# Parameter names of every function here, hashlib's older and newer ones, misspellings (3.13+ suggests the
# nearest name) and names nothing has.
KEYWORD_NAMES = [
    'data', 'string', 'usedforsecurity', 'name', 'key', 'msg', 'digestmod', 'digest', 'hash_name',
    'password', 'salt', 'iterations', 'dklen', 'self', 'dat', 'strin', 'Data', 'usedforsecurty', 'msgg',
    'digestmode', 'iteration', '_', 'foo',
]  # fmt: skip
KEYWORD_VALUES = [b'kw', 'text', None, 1]


def outcome(function, args, kwargs):
    """How a call ends: ('ok', result) or (exception type, message), and the warnings it gave, each as
    (category, message, file, line)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        try:
            result = call(function, args, kwargs)
        except Exception as error:  # noqa: BLE001 - any exception is a result to compare
            ended = (type(error), str(error))
        else:
            ended = ('ok', describe(result))
    return ended, [(w.category, str(w.message), w.filename, w.lineno) for w in caught]


def call(function, args, kwargs):
    return function(*args, **kwargs)  # the line every warning of a C function points at


def describe(result):
    if result is None or isinstance(result, (bool, int, str)):
        return result
    if isinstance(result, bytes):
        return result.hex()
    if hasattr(result, 'hexdigest'):
        return (result.name, result.hexdigest())
    raise AssertionError(f'unexpected result {result!r}')


def positional_variants(valid, extra=b'extra'):
    """(arguments, all valid) for every count of positional arguments up to two past valid, with valid
    values, and for each position of each count with each wrong value in turn."""
    for count in range(len(valid) + 3):
        base = [*valid, extra, extra][:count]
        yield tuple(base), True
        for index in range(count):
            for wrong in WRONG_VALUES:
                yield tuple(base[:index] + [wrong] + base[index + 1 :]), False


def keyword_variants(pool):
    yield {}
    entries = [(name, value) for name in pool for value in KEYWORD_VALUES]
    for name, value in entries:
        yield {name: value}
    for (first, first_value), (second, second_value) in itertools.permutations(entries[::2], 2):
        if first != second:
            yield {first: first_value, second: second_value}
    yield dict.fromkeys(pool[:5], b'kw')  # more keywords than any function takes


def matrix(valid, keyword_pool):
    """The calls: every keyword variant with the valid positional arguments, the first few with the
    wrong ones."""
    keywords = list(keyword_variants(keyword_pool))
    for args, all_valid in positional_variants(valid):
        for kwargs in keywords if all_valid else keywords[:40]:
            yield args, kwargs


def compare(mine, theirs, calls, same_place=True):
    """Every call ends the same way for both functions; returns how many calls ran."""
    mismatches = []
    count = 0
    for args, kwargs in calls:
        count += 1
        got = outcome(mine, args, kwargs)
        expected = outcome(theirs, args, kwargs)
        if not same_place:
            got = (got[0], [w[:2] for w in got[1]])
            expected = (expected[0], [w[:2] for w in expected[1]])
        if got != expected:
            mismatches.append(f'{args!r} {kwargs!r}:\n   fastdigest: {got}\n   expected:   {expected}')
    assert not mismatches, f'{len(mismatches)} of {count} calls differ:\n' + '\n'.join(mismatches[:20])
    return count


@pytest.mark.parametrize(
    ('mine', 'theirs'),
    [
        *((getattr(fastdigest, name), getattr(hashlib, name)) for name in CONSTRUCTORS),
        (fastdigest.sha512_224, hashlib.sha512),
        (fastdigest.new, hashlib.new),
        (fastdigest.pbkdf2_hmac, hashlib.pbkdf2_hmac),
        (fd_hmac.new, hmac.new),
        (fd_hmac.HMAC, hmac.HMAC),
        (fd_hmac.digest, hmac.digest),
    ],
    ids=lambda function: function.__name__,
)
def test_signatures_are_hashlibs(mine, theirs):
    # What inspect.signature() and help() show: this Python's signatures (new(name, *args, **kwargs) from 3.14,
    # new(name, data=b'', **kwargs) before; the constructors' data or string).
    assert inspect.signature(mine) == inspect.signature(theirs)


@pytest.mark.parametrize('name', CONSTRUCTORS)
def test_constructors(name):
    calls = list(matrix([b'abc'], KEYWORD_NAMES))
    assert compare(getattr(fastdigest, name), getattr(hashlib, name), calls) > 1000


@pytest.mark.parametrize('name', ['sha512_224', 'sha512_256'])
def test_constructors_hashlib_lacks(name):
    # hashlib has no sha512_224(); its sha512() takes the same arguments, and its words name it.
    theirs = hashlib.sha512
    if theirs.__name__ != 'openssl_sha512':
        pytest.skip(f"hashlib's sha512 is {theirs.__name__}, not OpenSSL's: fastdigest words OpenSSL's")

    calls = list(matrix([b'abc'], KEYWORD_NAMES))
    mismatches = []
    for args, kwargs in calls:
        got = outcome(getattr(fastdigest, name), args, kwargs)
        expected = outcome(theirs, args, kwargs)
        if expected[0][0] == 'ok':
            # The same data hashed with the other algorithm: what hashlib.new(name) gives for it.
            data = args[0] if args else kwargs.get('data', kwargs.get('string', b''))
            expected = (('ok', describe(hashlib.new(name, data))), expected[1])
        else:
            expected = ((expected[0][0], expected[0][1].replace('openssl_sha512(', f'openssl_{name}(')), expected[1])
        if got != expected:
            mismatches.append(f'{args!r} {kwargs!r}:\n   fastdigest: {got}\n   expected:   {expected}')
    assert not mismatches, '\n'.join(mismatches[:20])


NEW_NAMES = ['sha256', 'SHA512', 'sha512_224', 'sha3_256', 'nope', 1, None, b'md5', []]


def test_new():
    # The name comes first by position, or by keyword.
    calls = list(matrix(['sha256', b'abc'], KEYWORD_NAMES))
    calls += [((name, *args), kwargs) for name in NEW_NAMES for args, kwargs in matrix([b'abc'], KEYWORD_NAMES[:8])]
    calls += [((), {'name': name, **kwargs}) for name in NEW_NAMES for kwargs in keyword_variants(KEYWORD_NAMES[:6])]
    # hashlib.new is a Python function in hashlib.py, which calls the C new(): a warning from the C function
    # points into hashlib.py. fastdigest.new is the C function itself, so its warning points at the caller.
    assert compare(fastdigest.new, hashlib.new, calls, same_place=False) > 5000


@pytest.mark.skipif(
    sys.version_info < (3, 15), reason='string= is deprecated from 3.15; before, it warns nothing (compared above)'
)
@pytest.mark.parametrize('name', [*CONSTRUCTORS, 'sha512_224', 'sha512_256'])
def test_string_warning_points_at_the_caller(name):
    for function, args in ((getattr(fastdigest, name), ()), (fastdigest.new, (name,))):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter('always')
            line = sys._getframe().f_lineno + 1
            function(*args, string=b'abc')
        [warning] = caught
        assert warning.category is DeprecationWarning
        assert (warning.filename, warning.lineno) == (__file__, line)
        # -W error makes it the exception hashlib's gives.
        with warnings.catch_warnings():
            warnings.simplefilter('error')
            with pytest.raises(DeprecationWarning) as mine:
                function(*args, string=b'abc')
            with pytest.raises(DeprecationWarning) as theirs:
                hashlib.new(name, string=b'abc')
        assert str(mine.value) == str(theirs.value) == str(warning.message)


PBKDF2_KEYWORDS = ['hash_name', 'password', 'salt', 'iterations', 'dklen', 'iteration', 'name', 'data', 'foo']


@pytest.mark.parametrize('hash_name', ['sha256', 'SHA1', 'sha3_256', 'nope'])
def test_pbkdf2_hmac(hash_name):
    calls = list(matrix([hash_name, b'password', b'salt', 2, 20], PBKDF2_KEYWORDS))
    for iterations in (0, -1, 2**31 - 1 + 1, 2**63, True, 1.0):
        calls.append(((hash_name, b'p', b's', iterations), {}))
    for dklen in (0, -1, 2**31, 2**63, None, 1.0, True):
        calls.append(((hash_name, b'p', b's', 1, dklen), {}))
        calls.append(((hash_name, b'p', b's', 1), {'dklen': dklen}))
    assert compare(fastdigest.pbkdf2_hmac, hashlib.pbkdf2_hmac, calls) > 1000


HMAC_KEYWORDS = ['key', 'msg', 'digestmod', 'digest', 'self', 'msgg', 'digestmode', 'data', 'foo']
DIGESTMODS = ['sha256', 'SHA384', 'sha3_256', 'nope', '', None, 1, hashlib.sha256, hashlib.sha3_224]


@pytest.mark.parametrize('digestmod', DIGESTMODS, ids=repr)
@pytest.mark.parametrize('function', ['new', 'HMAC', 'digest'])
def test_hmac_functions(function, digestmod):
    calls = list(matrix([b'key', b'msg', digestmod], HMAC_KEYWORDS))
    calls += [((b'key',), {'digestmod': digestmod, 'msg': msg}) for msg in WRONG_VALUES]
    assert compare(getattr(fd_hmac, function), getattr(hmac, function), calls) > 500


@pytest.mark.parametrize('method', ['update', 'digest', 'hexdigest', 'copy'])
def test_hmac_methods(method):
    def bound(module):
        # A new object for each call, so that updates do not pile up differently.
        return lambda *args, **kwargs: getattr(module.new(b'key', b'msg', 'sha256'), method)(*args, **kwargs)

    assert compare(bound(fd_hmac), bound(hmac), matrix([b'more'], HMAC_KEYWORDS)) > 500


@pytest.mark.parametrize('method', ['update', 'digest', 'hexdigest', 'copy'])
def test_hash_methods(method):
    def bound(module):
        return lambda *args, **kwargs: getattr(module.sha256(b'abc'), method)(*args, **kwargs)

    assert compare(bound(fastdigest), bound(hashlib), matrix([b'more'], KEYWORD_NAMES[:6])) > 500


@pytest.mark.skipif(not hasattr(hashlib, 'file_digest'), reason='hashlib.file_digest is new in 3.11')
def test_file_digest():
    files = [io.BytesIO(b'abc'), 'sha256']

    def fresh(function):
        def run(*args, **kwargs):
            args = tuple(io.BytesIO(b'abc') if isinstance(a, io.BytesIO) else a for a in args)
            return function(*args, **kwargs)

        return run

    calls = list(matrix(files, ['fileobj', 'digest', '_bufsize', 'digestmod', 'foo']))
    calls += [((io.BytesIO(b'abc'), digest), {}) for digest in ['sha3_256', 'nope', hashlib.sha1, None, 1]]
    assert compare(fresh(fastdigest.file_digest), fresh(hashlib.file_digest), calls) > 300


@pytest.mark.parametrize('function', [fastdigest.digest, fastdigest.hexdigest])
@pytest.mark.parametrize('name', ['nope', '', 'sha3_256', 'blake2b'])
def test_one_shots_unknown_name_is_hashlibs_words(function, name):
    # hashlib has no one-shots; for a name they do not take they say what hashlib.new says of a name it
    # does not know.
    with pytest.raises(ValueError) as unknown:
        hashlib.new('no such algorithm')
    prefix = str(unknown.value)[: -len('no such algorithm')]
    with pytest.raises(ValueError) as got:
        function(name, b'abc')
    assert str(got.value) == prefix + name
