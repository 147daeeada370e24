"""json_digest and json_digest_many against the idiom they replace: hashlib over json.dumps(...).encode().

Everything is compared with the running Python's own json.dumps and hashlib, so that the suite checks
each version's json where it runs (every Python CI has): the digest, or the exception's type, words and
(3.14+) notes. Hypothesis draws documents of every type json.dumps takes and every option; the tables
after it name each error json raises, the containers that change while they are written, the
subclasses whose methods json calls or ignores, deep nesting, and json_digest_many's chunks.
"""

import builtins
import collections
import contextlib
import decimal
import enum
import gc
import hashlib
import json
import math
import random
import struct
import sys
import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fastdigest
from conftest import examples
from fastdigest import _fastdigest

ALGORITHMS = ('md5', 'sha1', 'sha224', 'sha256', 'sha384', 'sha512', 'sha512_224', 'sha512_256')


def idiom(name, obj, hex=False, **options):
    """What json_digest replaces."""
    hasher = hashlib.new(name, json.dumps(obj, **options).encode())
    return hasher.hexdigest() if hex else hasher.digest()


def ours(name, obj, **options):
    """json_digest called from a Python frame, as idiom() calls json.dumps: at the same depth."""
    return fastdigest.json_digest(name, obj, **options)


def outcome(call, *args, **kwargs):
    """A call's result, or its exception's type, words and notes."""
    try:
        return 'returned', call(*args, **kwargs)
    except Exception as error:  # noqa: BLE001 - every exception json.dumps raises is compared
        return 'raised', type(error), str(error), getattr(error, '__notes__', None)


def assert_like_json(obj, name='sha256', **options):
    """json_digest(name, obj, **options) gives what the idiom gives, and the text is json.dumps's."""
    want = outcome(idiom, name, obj, **options)
    assert outcome(fastdigest.json_digest, name, obj, **options) == want
    if want[0] == 'returned':
        dumps_options = {key: value for key, value in options.items() if key != 'hex'}
        text = _fastdigest._json_text(obj, **dumps_options)
        # None: the call goes to the standard library (a surrogate in the text, an option it must decide).
        assert text is None or text == json.dumps(obj, **dumps_options).encode()
    return want


# --- documents of every kind, with every option ------------------------------------------------------------


class Point:
    def __init__(self, x, y):
        self.x, self.y = x, y


def default_function(obj):
    """A default= that turns the drawn objects json cannot write into ones it can."""
    if isinstance(obj, Point):
        return {'x': obj.x, 'y': obj.y}
    if isinstance(obj, (set, frozenset)):
        return sorted(obj, key=repr)
    if isinstance(obj, complex):
        return [obj.real, obj.imag]
    if isinstance(obj, decimal.Decimal):
        return str(obj)
    raise TypeError(f'no default for {type(obj).__name__}')


class Color(enum.IntEnum):
    RED = 1
    GREEN = 22


class Ratio(float):
    def __repr__(self):
        return 'Ratio(...)'


class Name(str):
    def __repr__(self):
        return 'Name(...)'


floats = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.floats(min_value=1e-4, max_value=1e15),
    st.builds(lambda n, k: round(n / 10**k, k), st.integers(-(10**9), 10**9), st.integers(0, 8)),
)
texts = st.one_of(
    st.text(),
    st.text(alphabet=st.characters(max_codepoint=0xFF)),
    st.sampled_from(['', 'é', '\x7f', '\u2028', '😀', '\ud800', '"\\\n\t\x00']),
)
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(-(2**70), 2**70),
    floats,
    texts,
    st.sampled_from([Color.RED, Color.GREEN, Ratio(2.5), Ratio('nan'), Name('key'), 10**400]),
    # json cannot write these itself: default= can, or they raise.
    st.builds(Point, st.integers(), st.text(max_size=3)),
    st.sets(st.integers(), max_size=3),
    st.complex_numbers(allow_nan=False, max_magnitude=1e6),
    st.builds(decimal.Decimal, st.integers()),
)
keys = st.one_of(
    texts,
    st.integers(),
    floats,
    st.booleans(),
    st.none(),
    st.sampled_from([Color.GREEN, Name('k'), Ratio(0.5), (1, 2), decimal.Decimal(3)]),
)
documents = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=6),
        st.lists(children, max_size=6).map(tuple),
        st.dictionaries(keys, children, max_size=6),
        st.dictionaries(st.text(max_size=5), children, max_size=6),
    ),
    max_leaves=30,
)
separators = st.sampled_from([None, (',', ':'), (', ', ': '), [';', '='], ('\u00a0,', ' : '), ('😀', '→')])
indents = st.sampled_from([None, 0, 1, 2, 4, -1, '', '\t', '  ', '→', True])
options = st.fixed_dictionaries(
    {},
    optional={
        'skipkeys': st.booleans(),
        'ensure_ascii': st.booleans(),
        'check_circular': st.booleans(),
        'allow_nan': st.booleans(),
        'indent': indents,
        'separators': separators,
        'default': st.sampled_from([None, default_function]),
        'sort_keys': st.booleans(),
        'hex': st.booleans(),
    },
)


@settings(max_examples=examples(1500), deadline=None)
@given(obj=documents, options=options, name=st.sampled_from(ALGORITHMS))
def test_documents_match_json_dumps_and_hashlib(obj, options, name):
    assert_like_json(obj, name, **options)


@settings(max_examples=examples(200), deadline=None)
@given(obj=documents, options=options)
def test_documents_match_under_hashlibs_own_algorithms(obj, options):
    # Names fastdigest hands to hashlib: the text streams into a hashlib object's update().
    assert_like_json(obj, 'sha3_256', **options)
    assert_like_json(obj, 'blake2b', **options)


@settings(max_examples=examples(300), deadline=None)
@given(objs=st.lists(documents, max_size=12), options=options, name=st.sampled_from(ALGORITHMS + ('sha3_224',)))
def test_many_matches_a_loop_of_json_digest(objs, options, name):
    want = outcome(lambda: [idiom(name, obj, **options) for obj in objs])
    assert outcome(fastdigest.json_digest_many, name, objs, **options) == want
    assert outcome(fastdigest.json_digest_many, name, iter(objs), **options) == want


# --- floats: float.__repr__'s shortest digits --------------------------------------------------------------


def random_doubles(rng, count):
    """Doubles of every kind: any bit pattern, the ranges data's floats take, short decimals, powers of
    two (whose lower neighbour is nearer) and their neighbours, near-ties of 16 and 17 digits."""
    values = []
    while len(values) < count:
        kind = rng.randrange(6)
        if kind == 0:
            x = struct.unpack('<d', rng.getrandbits(64).to_bytes(8, 'little'))[0]
        elif kind == 1:
            x = rng.uniform(1e-4, 1e15) * 10.0 ** -rng.randrange(0, 6)
        elif kind == 2:
            x = round(rng.uniform(-1e6, 1e6), rng.randrange(0, 18))
        elif kind == 3:
            x = math.ldexp(1.0, rng.randrange(-20, 60))
            x = math.nextafter(x, rng.choice([0.0, math.inf])) if rng.random() < 0.5 else x
        elif kind == 4:
            x = float(f'{rng.randrange(10**15, 10**17)}e{rng.randrange(-22, 0)}')
        else:
            x = rng.random()
        if math.isfinite(x):
            values.append(x if rng.random() < 0.8 else -x)
    return values


@pytest.mark.parametrize('seed', range(4))
def test_floats_are_written_as_float_repr(seed):
    # One call writes them all; a mismatch is then found one by one, to name it.
    values = random_doubles(random.Random(seed), 100_000)
    if _fastdigest._json_text(values) != json.dumps(values).encode():
        wrong = [x for x in values if _fastdigest._json_text(x) != repr(x).encode()]
        assert wrong == []


@pytest.mark.parametrize(
    'x',
    [0.0, -0.0, 1e-4, 9.999999999999999e-05, 0.0001000000000000001, 1e15, 999999999999999.9, 1e16, 1e22, 5e-324,
     2.2250738585072014e-308, 1.7976931348623157e308, 0.1, 0.3, 2 / 3, 1 / 3, 123456789012345.67, 9007199254740993.0,
     4.35, 0.30000000000000004, 1e-5, 1.5e300, 100.0],
)  # fmt: skip
def test_float_edges(x):
    assert _fastdigest._json_text(x) == repr(x).encode()
    assert_like_json([x, -x, {x: x}])


# --- strings -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize('ensure_ascii', [True, False])
@pytest.mark.parametrize(
    'text',
    ['', 'plain ascii', '"quoted" \\ back', '\x00\x01\x08\x09\x0a\x0b\x0c\x0d\x1f\x20\x7e\x7f\x80\x9f\xa0\xff',
     'ā€ 𝄞 😀', '\u2028\u2029', 'é' * 5000 + '"' + 'x' * 9000 + '\n', '😀' * 3000, 'a' * 8191 + 'é' + 'b' * 8200,
     '\x7f' * 20 + 'z'],
)  # fmt: skip
def test_strings(text, ensure_ascii):
    # Long ones cross the 8 KiB buffer at every kind of character.
    assert_like_json(text, ensure_ascii=ensure_ascii)
    assert_like_json([text, {text: text}], ensure_ascii=ensure_ascii, sort_keys=True)


@pytest.mark.parametrize(
    'obj',
    [['\ud800'], {'\udfff': 1}, ['ok', 'a\ud83d\ude00b', '\ud800\udc00'], 'x' * 10000 + '\udcff'],
    ids=['in a value', 'in a key', 'a run of two', 'after the buffer'],
)
def test_a_lone_surrogate_is_str_encodes_error_without_ensure_ascii(obj):
    want = assert_like_json(obj, ensure_ascii=False)
    assert want[:2] == ('raised', UnicodeEncodeError)
    # With ensure_ascii, json escapes it: no error.
    assert assert_like_json(obj)[0] == 'returned'


def test_a_surrogate_error_comes_after_json_dumps_errors():
    # json.dumps finishes (and raises) before .encode() sees the surrogate.
    want = assert_like_json(['\ud800', object()], ensure_ascii=False)
    assert want[:3] == ('raised', TypeError, 'Object of type object is not JSON serializable')


@pytest.mark.parametrize('options', [{'separators': (',\ud800', ':')}, {'indent': '\udc00'}])
def test_a_surrogate_in_a_separator_or_indent(options):
    assert assert_like_json({'a': [1, 2]}, **options)[:2] == ('raised', UnicodeEncodeError)
    assert assert_like_json({}, **options)[0] == 'returned'


# --- every error json.dumps raises -------------------------------------------------------------------------


def circular_list():
    a = [1]
    a.append(a)
    return a


def circular_dict():
    d = {'a': 1}
    d['self'] = [d]
    return {'outer': d}


ERRORS = {
    'unserializable': ([1, {'a': object()}], {}),
    'unserializable top': (object(), {}),
    'unserializable set': ({'k': [{1, 2}]}, {}),
    'circular list': (circular_list(), {}),
    'circular dict': (circular_dict(), {}),
    'circular through default': ([1j], {'default': lambda o: [o]}),
    'default returns itself': ([1j], {'default': lambda o: o}),
    'default raises': ([1, [1j]], {'default': lambda o: 1 / 0}),
    'default not callable': ({'a': object()}, {'default': 3}),
    'default returns unserializable': ([[1j]], {'default': lambda o: [object()] if isinstance(o, complex) else 1 / 0}),
    'nan': ([1.0, float('nan')], {'allow_nan': False}),
    'inf key': ({float('inf'): 1}, {'allow_nan': False}),
    'float subclass nan': ([Ratio('-inf')], {'allow_nan': False}),
    'nan indented': ({'a': [float('nan')]}, {'allow_nan': False, 'indent': 2}),
    'bad key': ({(1, 2): 3}, {}),
    'bad key nested': ([{'a': {decimal.Decimal(1): 2}}], {}),
    'bad key indented': ({(1, 2): 3}, {'indent': 1}),
    'bad key skipped': ({(1, 2): 3, 'b': 4}, {'skipkeys': True}),
    'unsortable keys': ({1: 'a', 'b': 2}, {'sort_keys': True}),
    'unsortable keys indented': ([{'b': 2, 1: 'a'}], {'sort_keys': True, 'indent': 2}),
    'unsortable nested': ({'x': {None: 1, 0: 2}}, {'sort_keys': True}),
    'nan keys sort': ({float('nan'): 1, float('nan'): 2, 0.5: 3}, {'sort_keys': True}),
    'separators of three': ({'a': 1}, {'separators': (',', ':', '!')}),
    'separators of ints': ({'a': 1}, {'separators': (1, 2)}),
    'separators not iterable': ({'a': 1}, {'separators': 5}),
    'indent float': ([1], {'indent': 2.5}),
    'indent list': ([1], {'indent': [1]}),
    'huge indent': ([], {'indent': 10**30}),
}


@pytest.mark.parametrize('case', list(ERRORS), ids=list(ERRORS))
def test_every_error_is_json_dumps_error(case):
    obj, options = ERRORS[case]
    assert_like_json(obj, **options)
    assert outcome(fastdigest.json_digest_many, 'sha256', [obj], **options) == outcome(
        lambda: [idiom('sha256', obj, **options)]
    )


def test_huge_ints_follow_the_int_max_str_digits_limit():
    limit = sys.get_int_max_str_digits()
    try:
        for digits_limit in (0, 640, 4300):
            sys.set_int_max_str_digits(digits_limit)
            for obj in ([10**700], {10**700: 1}, [2**63, -(2**63), 2**64, -(2**64) - 1]):
                assert_like_json(obj)
                assert_like_json(obj, indent=1)
    finally:
        sys.set_int_max_str_digits(limit)


# --- what json calls, and what it does not ------------------------------------------------------------------


class LyingList(list):
    def __len__(self):
        return 0

    def __iter__(self):
        return iter([9])


class EmptyIteratingList(list):
    def __iter__(self):
        return iter([])


class BadIterList(list):
    def __iter__(self):
        return 5


class FalseDict(dict):
    def __len__(self):
        return 0

    def items(self):
        return [('z', 1)]


class TripleItemsDict(dict):
    def items(self):
        return [('z', 1, 2)]


class OddItemsDict(dict):
    def items(self):
        return [1]


class EmptyItemsDict(dict):
    def items(self):
        return []


class ListItemsDict(dict):
    def items(self):
        return [['k', 'v']]


class SelfUnequalFloat(float):
    """The pure-Python encoder asks `o != o` for NaN and `o == inf`: this float says it is NaN."""

    def __eq__(self, other):
        return False

    def __ne__(self, other):
        return True

    __hash__ = float.__hash__


class InfiniteFloat(float):
    def __eq__(self, other):
        return other == math.inf

    __hash__ = float.__hash__


class WordyInt(int):
    """json writes int.__repr__, never the subclass's own texts."""

    def __repr__(self):
        return 'WordyInt(...)'

    def __str__(self):
        return 'wordy'

    def __index__(self):
        return 5


class WordyFloat(float):
    def __repr__(self):
        return 'WordyFloat(...)'

    def __str__(self):
        return 'wordy'


SUBCLASSES = {
    'lying list': LyingList([1, 2]),
    'empty iterating list': EmptyIteratingList([1]),
    'bad iter list': [BadIterList([1])],
    'false dict': FalseDict(a=1),
    'empty false dict': FalseDict(),
    'triple items': TripleItemsDict(a=1),
    'odd items': [OddItemsDict(a=1)],
    'empty items': EmptyItemsDict(a=1),
    'list items': ListItemsDict(a=1),
    'named tuple': collections.namedtuple('P', 'x y')(1, [2]),
    'ordered dict': collections.OrderedDict([('b', 1), ('a', 2)]),
    'counter': collections.Counter('hello'),
    'int enum keys': {Color.GREEN: Color.RED, Color.RED: [Color.GREEN]},
    'str subclass': {Name('b'): Name('v'), 'a': Name('w')},
    'float subclass': [Ratio(1.25), {Ratio(2.5): Ratio(-0.0)}],
    'bool keys': {True: 1, False: 2, None: 3},
    'mixed number keys': {1: 'a', 2.5: 'b', -3: 'c'},
    'self-unequal float': [SelfUnequalFloat(1.5), {SelfUnequalFloat(2.5): SelfUnequalFloat('nan')}],
    'infinite float': [InfiniteFloat(0.25), {InfiniteFloat(-1.0): 1}],
    'wordy numbers': [WordyInt(7), WordyFloat(0.5), {WordyInt(-3): WordyFloat(1e300), WordyFloat(2.0): 0}],
}


@pytest.mark.parametrize('options', [{}, {'sort_keys': True}, {'indent': 2}, {'indent': 2, 'sort_keys': True}],
                         ids=['plain', 'sorted', 'indented', 'indented sorted'])  # fmt: skip
@pytest.mark.parametrize('case', list(SUBCLASSES), ids=list(SUBCLASSES))
def test_subclasses_as_json_reads_them(case, options):
    assert_like_json(SUBCLASSES[case], **options)
    assert_like_json(SUBCLASSES[case], allow_nan=False, **options)


@pytest.mark.skipif(not hasattr(builtins, 'frozendict'), reason='frozendict is new in 3.15')
def test_frozendict():
    frozendict = builtins.frozendict
    for obj in (frozendict(b=1, a=[2]), [frozendict()], {'x': frozendict(z=object())}):
        for options in ({}, {'sort_keys': True}, {'indent': 1}):
            assert_like_json(obj, **options)


# --- containers that change while they are written -----------------------------------------------------------


def mutating_dict_case(change, **options):
    def run(call):
        d = {'a': 1, 'b': Point(1, 2), 'c': 3, 'd': 4}

        def default(obj):
            change(d)
            return 'replaced'

        return outcome(call, d, default=default, **options)

    assert run(lambda obj, **o: idiom('sha256', obj, **o)) == run(
        lambda obj, **o: fastdigest.json_digest('sha256', obj, **o)
    )


DICT_CHANGES = {
    'adds': lambda d: d.setdefault('new', 5),
    'removes a later key': lambda d: d.pop('c', None),
    'removes the current key': lambda d: d.pop('b', None),
    'clears': lambda d: d.clear(),
    'replaces values': lambda d: d.update({k: [k] for k in list(d)}),
    'grows a lot': lambda d: d.update({f'k{i}': i for i in range(100)}) if len(d) < 50 else None,
}


@pytest.mark.parametrize('options', [{}, {'sort_keys': True}, {'indent': 1}, {'indent': 1, 'sort_keys': True}],
                         ids=['plain', 'sorted', 'indented', 'indented sorted'])  # fmt: skip
@pytest.mark.parametrize('change', list(DICT_CHANGES), ids=list(DICT_CHANGES))
def test_default_changing_the_dict_being_written(change, options):
    mutating_dict_case(DICT_CHANGES[change], **options)


LIST_CHANGES = {
    'appends': lambda items: items.append(7) if len(items) < 8 else None,
    'shrinks': lambda items: items.__delitem__(slice(1, None)),
    'clears': lambda items: items.clear(),
    'replaces': lambda items: items.__setitem__(slice(None), [Point(0, 0)] * 3) if len(items) < 9 else None,
}


@pytest.mark.parametrize('options', [{}, {'indent': 1}], ids=['plain', 'indented'])
@pytest.mark.parametrize('change', list(LIST_CHANGES), ids=list(LIST_CHANGES))
def test_default_changing_the_list_being_written(change, options):
    def run(call):
        items = [1, Point(1, 2), 3, Point(3, 4), 5]

        def default(obj):
            LIST_CHANGES[change](items)
            gc.collect()
            return [obj.x]

        return outcome(call, items, default=default, **options)

    assert run(lambda obj, **o: idiom('sha256', obj, **o)) == run(
        lambda obj, **o: fastdigest.json_digest('sha256', obj, **o)
    )


def test_default_changing_the_separators_list():
    # The separators are read before the walk: a list of them changed meanwhile changes nothing.
    def run(call):
        seps = [',', ':']
        return outcome(call, {'a': Point(1, 2), 'b': 2}, separators=seps, default=lambda o: seps.clear() or [o.x])

    assert run(lambda obj, **o: idiom('sha256', obj, **o)) == run(
        lambda obj, **o: fastdigest.json_digest('sha256', obj, **o)
    )


class ShrinkingList(list):
    """A list whose iteration empties it and collects the garbage."""

    def __iter__(self):
        for item in list.__iter__(self.copy()):
            self.clear()
            gc.collect()
            yield item


@pytest.mark.parametrize('options', [{}, {'indent': 1}], ids=['plain', 'indented'])
def test_a_list_emptied_by_its_own_iteration(options):
    # Each call gets a list of its own: the first empties it.
    def make():
        return [ShrinkingList([[1, 2], {'a': 'b'}, 'x' * 100])]

    assert outcome(fastdigest.json_digest, 'sha256', make(), **options) == outcome(idiom, 'sha256', make(), **options)


# Hostile walks, drawn: containers (and their subclasses whose __len__, __iter__ or items() change them)
# changed by default= and by their own methods in every way, garbage collected meanwhile. Under
# tests/hardening/sanitize_python.sh (ASan) this is the walk's fuzzer; everywhere it holds the walk to
# json.dumps, change for change.


class HostileList(list):
    """A list whose __len__ and __iter__ run the next changes of the program first."""

    def __len__(self):
        self.program.step()
        return list.__len__(self)

    def __iter__(self):
        self.program.step()
        return list.__iter__(list(list.__iter__(self)))


class HostileDict(dict):
    """A dict whose __len__ and items() run the next changes of the program first."""

    def __len__(self):
        self.program.step()
        return dict.__len__(self)

    def items(self):
        self.program.step()
        return list(dict.items(self))


class Marker:
    """An object json cannot write: default= runs the next changes and writes its number."""

    def __init__(self, n):
        self.n = n


class Program:
    """Changes to the containers of one document, run one or two at a time as the walk calls back."""

    def __init__(self, ops, containers):
        self.ops, self.containers, self.next = ops, containers, 0

    def step(self):
        for _ in range(2):
            if self.next >= len(self.ops):
                return
            op, target, n = self.ops[self.next]
            self.next += 1
            container = self.containers[target % len(self.containers)]
            self.apply(op, container, n)

    @staticmethod
    def apply(op, container, n):
        if op == 'collect':
            gc.collect(0)  # the youngest generation: what the walk's objects are in, and quick
        elif isinstance(container, dict):
            keys = list(dict.keys(container))
            if op == 'add':
                dict.__setitem__(container, f'n{n}', [n, Marker(n)] if n % 3 == 0 else n)
            elif op == 'remove' and keys:
                dict.__delitem__(container, keys[n % len(keys)])
            elif op == 'clear':
                dict.clear(container)
            elif op == 'replace' and keys:
                dict.__setitem__(container, keys[n % len(keys)], {'r': n})
        else:
            items = list(list.__iter__(container))
            if op == 'add':
                list.append(container, Marker(n) if n % 3 == 0 else n)
            elif op == 'remove' and items:
                list.__delitem__(container, n % len(items))
            elif op == 'clear':
                list.clear(container)
            elif op == 'replace' and items:
                list.__setitem__(container, n % len(items), [n])


# A document's shape: ('list' | 'dict' | 'hostile list' | 'hostile dict', children) or a leaf.
shapes = st.recursive(
    st.one_of(st.integers(-5, 5), st.sampled_from(['s', 'é', 1.5, None, True]), st.builds(Marker, st.integers(0, 9))),
    lambda children: st.tuples(
        st.sampled_from(['list', 'dict', 'hostile list', 'hostile dict']), st.lists(children, max_size=5)
    ),
    max_leaves=20,
)
programs = st.lists(
    st.tuples(
        st.sampled_from(['add', 'remove', 'clear', 'replace', 'collect']), st.integers(0, 50), st.integers(0, 99)
    ),
    max_size=30,
)


def build(shape, ops):
    """The document of a shape, with its program: a fresh one per call, so that each walk gets its own."""
    containers = []
    program = Program(ops, containers)

    def make(node):
        if not isinstance(node, tuple):
            return Marker(node.n) if isinstance(node, Marker) else node
        kind, children = node
        if kind.endswith('dict'):
            made = (HostileDict if kind.startswith('hostile') else dict)()
            for i, child in enumerate(children):
                dict.__setitem__(made, f'k{i}', make(child))
        else:
            made = (HostileList if kind.startswith('hostile') else list)(make(child) for child in children)
        if kind.startswith('hostile'):
            made.program = program
        containers.append(made)
        return made

    document = make(shape)
    if not containers:
        containers.append([document])

    def default(obj):
        program.step()
        if isinstance(obj, Marker):
            return [obj.n] if obj.n % 2 else {'m': obj.n}
        raise TypeError(f'Object of type {type(obj).__name__} is not JSON serializable')

    return document, default


@settings(max_examples=examples(300), deadline=None)
@given(shape=shapes, ops=programs, options=st.sampled_from([{}, {'sort_keys': True}, {'indent': 1},
                                                             {'indent': 1, 'sort_keys': True}, {'check_circular': False}]))  # fmt: skip
def test_hostile_walks_are_json_dumps(shape, ops, options):
    document, default = build(shape, ops)
    want = outcome(idiom, 'sha256', document, default=default, **options)
    document, default = build(shape, ops)
    assert outcome(fastdigest.json_digest, 'sha256', document, default=default, **options) == want
    # Three such documents sharing one program, side by side in json_digest_many's chunk, and in a loop.
    documents, default = build(('list', [shape] * 3), ops)
    want = outcome(lambda: [idiom('sha256', d, default=default, **options) for d in list(documents)])
    documents, default = build(('list', [shape] * 3), ops)
    assert outcome(fastdigest.json_digest_many, 'sha256', list(documents), default=default, **options) == want


@pytest.mark.parametrize('options', [{}, {'sort_keys': True}, {'indent': 1}], ids=['plain', 'sorted', 'indented'])
def test_a_document_other_threads_change(options):
    # Two threads change the lists and dicts of one document while two others hash it. On a free-threaded
    # build they run at once, each container read under its lock: each call gives a digest or json's
    # RuntimeError for a dict that changed size, and never reads a freed item. With a GIL the walk, which
    # calls no Python code here, runs whole between two switches, and every call gives a digest.
    document = {'rows': [[i, str(i)] for i in range(50)], 'index': {str(i): [i] for i in range(50)}}
    stop = threading.Event()
    outcomes, failures = [], []

    def change(seed):
        rng = random.Random(seed)
        while not stop.is_set():
            rows, index = document['rows'], document['index']
            key = str(rng.randrange(100))
            if rng.random() < 0.5:
                if len(rows) < 100:
                    rows.append([key, {key: key}])
                else:
                    # The other changer may shorten the list between len() and pop() on a free-threaded
                    # build: a pop past its end is that race of the test's own, not of the walk.
                    with contextlib.suppress(IndexError):
                        rows.pop(rng.randrange(len(rows)))
            else:
                index[key] = [key] if key not in index else index.pop(key, None)

    def hash_it():
        try:
            for _ in range(200):
                try:
                    outcomes.append(len(fastdigest.json_digest('sha256', document, **options)))
                except RuntimeError as error:
                    outcomes.append(str(error))
        except BaseException as error:  # noqa: BLE001 - reported below, in the main thread
            failures.append(error)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    threads = [threading.Thread(target=change, args=(seed,)) for seed in range(2)]
    threads += [threading.Thread(target=hash_it) for _ in range(2)]
    try:
        for thread in threads:
            thread.start()
        for thread in threads[2:]:
            thread.join()
    finally:
        stop.set()
        for thread in threads:
            thread.join()
        sys.setswitchinterval(interval)
    assert failures == []
    assert len(outcomes) == 400
    assert set(outcomes) <= {32, 'dictionary changed size during iteration', 'dictionary keys changed during iteration'}


# --- deep nesting -------------------------------------------------------------------------------------------


class Wrapper:
    def __init__(self, inner):
        self.inner = inner


def unwrap(obj):
    return [obj.inner]


def nested(depth, kind):
    """depth levels of lists, of dicts, or of objects default=unwrap makes lists of."""
    obj = []
    for _ in range(depth):
        obj = [obj] if kind == 'list' else {'a': obj} if kind == 'dict' else Wrapper(obj)
    return obj


@pytest.mark.parametrize('options', [{}, {'indent': 1}], ids=['plain', 'indented'])
@pytest.mark.parametrize('kind', ['list', 'dict', 'object', 'endless default'])
def test_nesting_past_the_limit_raises_recursion_error(kind, options):
    if kind == 'endless default':
        # default= returns the object again, which json then writes again, unchecked.
        obj, options = object(), dict(options, default=lambda o: [o], check_circular=False)
    else:
        obj = nested(200_000, kind)
    if kind == 'object':
        options = dict(options, default=unwrap)
    want = outcome(idiom, 'sha256', obj, **options)
    got = outcome(ours, 'sha256', obj, **options)
    assert want[:2] == got[:2] == ('raised', RecursionError)
    # 3.14+ finds the limit by the C stack's use, which it names (the same at the limit), and notes every
    # level of the nesting it reached, which depends on the frames' sizes; before, everything is equal.
    if sys.version_info >= (3, 14):
        assert got[2] == want[2]
        assert len(got[3]) > 1000 and set(got[3]) <= set(want[3])
    elif kind == 'endless default' and 'indent' in options and sys.version_info < (3, 12):
        # Before 3.12 the pure-Python encoder's generators, isinstance() and calls all count with the one
        # recursion limit, and which of them meets it first within a level of default='s recursion is
        # not modelled: the same depth is refused (test_the_deepest_nesting_is_json_dumps), in other words.
        assert got[2].startswith('maximum recursion depth exceeded')
    else:
        assert got[2:] == want[2:]


def deepest(call, kind, options, limit=3000):
    """The deepest nesting call writes (bisected)."""
    low, high = 0, limit
    while low < high:
        middle = (low + high + 1) // 2
        try:
            call(nested(middle, kind), **options)
            low = middle
        except RecursionError:
            high = middle - 1
    return low


@pytest.mark.skipif(sys.version_info >= (3, 14), reason='3.14+ limits nesting by the C stack, whose frames differ')
@pytest.mark.parametrize('options', [{}, {'indent': 1}], ids=['plain', 'indented'])
@pytest.mark.parametrize('kind', ['list', 'dict', 'object'])
def test_the_deepest_nesting_is_json_dumps(kind, options):
    # The same depth is refused, counting json.dumps's own frames where they count.
    if kind == 'object':
        options = dict(options, default=unwrap)
    theirs = deepest(lambda obj, **o: json.dumps(obj, **o), kind, options, limit=20_000)
    ours = deepest(lambda obj, **o: fastdigest.json_digest('sha256', obj, **o), kind, options, limit=20_000)
    assert ours == theirs


# --- json_digest_many's chunks -----------------------------------------------------------------------------


@pytest.mark.parametrize('name', ['md5', 'sha256', 'sha512'])
def test_many_across_chunks_and_streamed_documents(name):
    rng = random.Random(5)
    objs = []
    for i in range(700):
        size = rng.choice([0, 1, 10, 100, 3000, 70_000]) if i % 50 else 200_000
        objs.append({'i': i, 'text': 'é' * (size // 4) + 'x' * rng.randrange(size + 1)})
    want = [idiom(name, obj) for obj in objs]
    assert fastdigest.json_digest_many(name, objs) == want
    assert fastdigest.json_digest_many(name, objs, hex=True) == [digest.hex() for digest in want]


def test_many_with_a_surrogate_among_them():
    objs = [{'a': 'x' * 70_000}, 'ok', ['\ud800'], 'after']
    assert outcome(fastdigest.json_digest_many, 'sha1', objs, ensure_ascii=False) == outcome(
        lambda: [idiom('sha1', obj, ensure_ascii=False) for obj in objs]
    )
    objs = ['x' * 70_000 + '\ud800']
    assert fastdigest.json_digest_many('sha1', objs) == [idiom('sha1', obj) for obj in objs]


@pytest.mark.parametrize('hex', [False, True])
@pytest.mark.parametrize('name', ['sha256', 'sha3_256'])
def test_many_into_out(name, hex):
    objs = [{'n': n} for n in range(300)]
    size = hashlib.new(name).digest_size * (2 if hex else 1)
    out = bytearray(len(objs) * size)
    assert fastdigest.json_digest_many(name, objs, out=out, hex=hex) is out
    want = [idiom(name, obj, hex=hex) for obj in objs]
    assert bytes(out) == (''.join(want).encode() if hex else b''.join(want))
    with pytest.raises(ValueError, match='must be'):
        fastdigest.json_digest_many(name, objs, out=bytearray(len(out) - 1), hex=hex)
    with pytest.raises(TypeError, match='read-write'):
        fastdigest.json_digest_many(name, objs, out=bytes(len(out)), hex=hex)


def test_many_errors_in_order():
    objs = [1, {'a': object()}, float('nan')]
    assert outcome(fastdigest.json_digest_many, 'md5', objs, allow_nan=False) == outcome(
        lambda: [idiom('md5', obj, allow_nan=False) for obj in objs]
    )
    with pytest.raises(TypeError, match='not iterable'):
        fastdigest.json_digest_many('md5', 5)


# --- the calls themselves ------------------------------------------------------------------------------------


@pytest.mark.parametrize('name', ALGORITHMS + ('SHA256', 'sha-256', 'sha3_512', 'blake2s'))
def test_names_as_new_takes_them(name):
    obj = {'b': [1, 2.5, 'three'], 'a': None}
    assert fastdigest.json_digest(name, obj) == hashlib.new(name, json.dumps(obj).encode()).digest()
    assert fastdigest.json_digest(name, obj, hex=True) == hashlib.new(name, json.dumps(obj).encode()).hexdigest()


def test_a_constructor_as_name():
    assert fastdigest.json_digest(fastdigest.sha1, [1]) == hashlib.sha1(b'[1]').digest()
    assert fastdigest.json_digest_many(fastdigest.md5, [[1]]) == [hashlib.md5(b'[1]').digest()]


def test_bad_calls():
    with pytest.raises(ValueError, match='unsupported hash'):
        fastdigest.json_digest('nonesuch', [1])
    with pytest.raises(TypeError, match='must be str or a fastdigest constructor'):
        fastdigest.json_digest(5, [1])
    with pytest.raises(TypeError, match='expected 2 positional arguments, got 1'):
        fastdigest.json_digest('sha256')
    with pytest.raises(TypeError, match='expected 2 positional arguments, got 3'):
        fastdigest.json_digest('sha256', [1], True)
    with pytest.raises(TypeError, match='cls'):
        fastdigest.json_digest('sha256', [1], cls=json.JSONEncoder)
    with pytest.raises(TypeError, match='out'):
        fastdigest.json_digest('sha256', [1], out=bytearray(32))
    with pytest.raises(TypeError, match='expected 2 positional arguments'):
        fastdigest.json_digest_many('sha256')


def test_flags_that_are_not_bools_go_to_json():
    class Truth:
        def __init__(self, value):
            self.value = value
            self.asked = 0

        def __bool__(self):
            self.asked += 1
            return self.value

    for key in ('skipkeys', 'ensure_ascii', 'check_circular', 'allow_nan', 'sort_keys'):
        for value in (0, 1, 2, Truth(True), Truth(False)):
            assert_like_json({'b': 'é', 'a': [float('nan')], (1,): 2}, **{key: value})
