"""fingerprint(): the encoding of docs/fingerprint.md, checked against a second implementation and a decoder.

The reference is tests/fingerprint_reference.py, a pure-Python encoder written from the page, with hashlib; its
decoder reads a message back and refuses any encoding but the page's one. Checked here: drawn nested values of
every kind (hypothesis) against the reference, and decode(encode(x)) against what x is (so that no two values
share a message and every message parses one way: nesting keeps its boundaries); the golden digests of
tests/data/fingerprint_v1.json; what the page says hashes alike and what never does; Arrow values against
docs/encoding.md's bytes (tests/encoding_reference.py) and across producers; the walk under values that change
their containers, lie about their length, nest past the recursion limit or come from other threads; the
arguments and the errors.
"""

import dataclasses
import datetime
import decimal
import enum
import hashlib
import json
import os
import struct
import subprocess
import sys
import threading
import uuid

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fastdigest
import fingerprint_cases
import fingerprint_reference as reference
from conftest import ALGORITHMS, FREE_THREADED, examples

np = pytest.importorskip('numpy', reason='numpy (a test-arrow dependency) is not installed or has no wheel here')

GOLDEN = os.path.join(os.path.dirname(__file__), 'data', 'fingerprint_v1.json')


def expected(obj, name='sha256', hex=False):
    h = hashlib.new(name, reference.encode(obj))
    return h.hexdigest() if hex else h.digest()


def check(obj, name='sha256', hex=False):
    """fingerprint() is the reference's message hashed, and the message decodes to what obj is."""
    message = reference.encode(obj)
    want = hashlib.new(name, message)
    assert fastdigest.fingerprint(name, obj, hex=hex) == (want.hexdigest() if hex else want.digest())
    assert reference.unordered(reference.decode(message)) == reference.unordered(reference.canonical(obj))


def fp(obj, name='sha256'):
    return fastdigest.fingerprint(name, obj)


# ---- values as hypothesis draws them ----------------------------------------------------------------------------


class Color(enum.Enum):
    RED = 1
    GREEN = 'green'
    BLUE = (1, 2)


class Size(enum.IntEnum):
    SMALL = 1
    LARGE = 2


@dataclasses.dataclass(frozen=True)
class Point:
    x: object
    y: object


@dataclasses.dataclass
class Box:
    content: object
    note: str = dataclasses.field(default='', compare=False)


def from_bits(bits):
    return struct.unpack('<d', struct.pack('<Q', bits))[0]


INT_EDGES = [0, 1, -1, 2**63 - 1, -(2**63), 2**63, -(2**63) - 1, 2**64 - 1, 2**64, -(2**64), -(2**64) - 1]
ints = st.one_of(
    st.integers(),
    st.sampled_from(INT_EDGES),
    st.builds(lambda e, s, d: s * 2**e + d, st.integers(60, 600), st.sampled_from([1, -1]), st.integers(-2, 2)),
)
floats = st.one_of(st.floats(), st.integers(0, 2**64 - 1).map(from_bits))
# Every code point, surrogates included (a str may hold them: surrogateescape'd file names).
texts = st.text(st.characters(codec=None, categories=None), max_size=12) | st.sampled_from(
    ['', 'é', '€', '😀', '\ud800']
)
zones = st.builds(
    lambda minutes, micro: datetime.timezone(datetime.timedelta(minutes=minutes, microseconds=micro)),
    st.integers(-1439, 1439),
    st.sampled_from([0, 0, 7]),
)
datetimes = st.datetimes(timezones=st.none() | zones, allow_imaginary=True).flatmap(
    lambda dt: st.sampled_from([dt, dt.replace(fold=1)])
)
times = st.times(timezones=st.none() | zones).flatmap(lambda t: st.sampled_from([t, t.replace(fold=1)]))
decimals = st.one_of(
    st.decimals(allow_nan=False),
    st.sampled_from([decimal.Decimal(t) for t in ('-0', '0E+5', 'Infinity', '-Infinity', 'NaN', '-NaN12', '1.20')]),
)
hashable_leaves = st.one_of(
    st.none(),
    st.booleans(),
    ints,
    floats,
    texts,
    st.binary(max_size=12),
    st.dates(),
    datetimes,
    times,
    st.timedeltas(),
    decimals,
    st.uuids(),
    st.sampled_from([Color.RED, Color.GREEN, Color.BLUE, Size.SMALL, Size.LARGE]),
    st.complex_numbers(),
)
hashables = st.recursive(
    hashable_leaves,
    lambda inner: st.one_of(
        st.tuples(inner, inner),
        st.lists(inner, max_size=3).map(tuple),
        st.frozensets(inner, max_size=3),
        st.builds(Point, inner, inner),
    ),
    max_leaves=6,
)


def bytes_like(data, kind):
    if kind == 'bytearray':
        return bytearray(data)
    if kind == 'memoryview':
        return memoryview(data)
    if kind == 'strided memoryview':
        return (
            memoryview(bytes(2 * len(data)))[::2]
            if not data
            else memoryview(bytes(b for c in data for b in (c, 0)))[::2]
        )
    return data


leaves = st.one_of(
    hashable_leaves,
    st.builds(
        bytes_like, st.binary(max_size=12), st.sampled_from(['bytes', 'bytearray', 'memoryview', 'strided memoryview'])
    ),
    decimals.map(lambda d: d.copy_abs() if d.is_nan() else d) | st.just(decimal.Decimal('-sNaN7')),
)

NUMPY_DTYPES = ['?', 'i1', 'u1', '<i2', '>i2', '<u4', '>i8', '<f2', '>f4', '<f8', '>f8', '<c8', '>c16', 'S3', '<U2',
                '>U2', '<M8[ns]', '>M8[D]', '<m8[s]', 'V4', 'O']  # fmt: skip


@st.composite
def numpy_arrays(draw, elements):
    dtype = np.dtype(draw(st.sampled_from(NUMPY_DTYPES)))
    shape = tuple(draw(st.lists(st.integers(0, 4), max_size=3)))
    count = int(np.prod(shape)) if shape else 1
    if dtype.kind == 'O':
        array = np.empty(count, dtype=object)
        for i, item in enumerate(draw(st.lists(elements, min_size=count, max_size=count))):
            array[i] = item
        array = array.reshape(shape)
    else:
        raw = draw(st.binary(min_size=count * dtype.itemsize, max_size=count * dtype.itemsize))
        array = np.frombuffer(raw, dtype=dtype).reshape(shape).copy()
        if dtype.kind == 'b':
            array = array.view(np.uint8).copy().view(bool)  # any byte, as a view of other data may hold
    layout = draw(st.sampled_from(['C', 'F', 'reversed', 'strided', 'scalar']))
    if layout == 'F':
        array = np.asfortranarray(array)
    elif layout == 'reversed' and array.ndim:
        array = array[::-1]
    elif layout == 'strided' and array.ndim:
        array = np.repeat(array, 2, axis=-1)[..., ::2]
    elif layout == 'scalar' and dtype.kind not in 'OV':
        return array.reshape(-1)[0] if count else array
    return array


values = st.recursive(
    leaves,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.lists(inner, max_size=4).map(tuple),
        st.dictionaries(hashables, inner, max_size=4),
        st.sets(hashables, max_size=4),
        st.frozensets(hashables, max_size=4),
        st.builds(Box, inner, texts),
        st.builds(Point, inner, inner),
        numpy_arrays(inner),
    ),
    max_leaves=12,
)


@settings(max_examples=examples(400), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(obj=values, name=st.sampled_from(ALGORITHMS), hex=st.booleans())
def test_drawn_values_against_the_reference_and_the_decoder(obj, name, hex):
    check(obj, name, hex)


@settings(max_examples=examples(200), deadline=None)
@given(a=values, b=values)
def test_two_drawn_values_share_a_fingerprint_only_when_they_are_one_value(a, b):
    same = fp(a) == fp(b)
    assert same == (reference.unordered(reference.canonical(a)) == reference.unordered(reference.canonical(b)))


# ---- the golden digests -----------------------------------------------------------------------------------------


def test_golden_digests():
    """Version 1, frozen: the messages and digests that the reference and the C gave when it was written.

    A change of the C, of the reference or of a case breaks this; the page's version then changes too."""
    with open(GOLDEN) as f:
        golden = json.load(f)
    assert golden['version'] == 1
    cases = fingerprint_cases.cases()
    if 'pyarrow' not in sys.modules:
        golden['cases'] = {k: v for k, v in golden['cases'].items() if not k.startswith('arrow ')}
    assert sorted(golden['cases']) == sorted(cases)
    for name, make in cases.items():
        want = golden['cases'][name]
        assert reference.encode(make()).hex() == want['message'], name
        assert hashlib.sha256(bytes.fromhex(want['message'])).hexdigest() == want['sha256'], name
        assert fastdigest.fingerprint('sha256', make(), hex=True) == want['sha256'], name
        assert fastdigest.fingerprint('md5', make()) == hashlib.md5(bytes.fromhex(want['message'])).digest(), name


def test_the_page_s_worked_example():
    record = {'id': 7, 'tags': ('a', 'b'), 'ok': True}
    # Keys in the order of their encodings: 's' 02 'id' < 's' 02 'ok' < 's' 04 'tags'; 7 is zigzag 14, 0e.
    message = bytes.fromhex('6664667001' '6d03' '7302' '6964' '690e' '7302' '6f6b' '54' '7304' '74616773'
                            '7402' '7301' '61' '7301' '62')  # fmt: skip
    assert fastdigest.fingerprint('sha256', record) == hashlib.sha256(message).digest()


# ---- what is one value and what is not ---------------------------------------------------------------------------


def test_the_issue_s_values_all_differ():
    values = [1, 1.0, True, '1', b'1', [1], (1,), {1}, {1: None}, 1 + 0j, decimal.Decimal(1), np.int64(1),
              np.array([1]), np.array(1), Size.SMALL, None, 0, False, '', b'', [], (), set(), {}]  # fmt: skip
    digests = [fp(v) for v in values]
    assert len(set(digests)) == len(values)


def test_nesting_keeps_its_boundaries():
    distinct = [
        [['ab', 'cd']], [['abcd']], [['a', 'bcd']], [['ab'], ['cd']], ['ab', 'cd'],
        [[1], [2]], [[1, 2]], [[1], [], [2]], [[], [1, 2]],
        ('a', ('b',)), (('a',), 'b'), ('a', 'b'),
        {'a': 'bc'}, {'ab': 'c'}, {'a': ['b', 'c']},
        [None], [], [[]], [None, None],
    ]  # fmt: skip
    assert len({fp(v) for v in distinct}) == len(distinct)


def test_floats_keep_their_bits():
    """-0.0 and 0.0 differ (1 / x and copysign tell them apart), and so does every NaN's bit pattern."""
    nans = [float('nan'), -float('nan'), from_bits(0x7FF0000000000001), from_bits(0x7FF8000000000001)]
    digests = [fp(x) for x in [0.0, -0.0, *nans]]
    assert len(set(digests)) == len(digests)
    assert fp(float('nan')) == fp(float('nan'))  # one bit pattern, two objects
    for x in [0.0, -0.0, *nans]:
        check(x)


def test_strings_with_surrogates():
    # A surrogate is its three bytes (surrogatepass): distinct from U+FFFD and from the pair it may half make.
    values = ['\ud800', '\ufffd', '\ud83d\ude00', '😀', 'caf\udcff', 'caf\xff']
    assert len({fp(v) for v in values}) == len(values)
    assert fp('\ud800') == expected('\ud800')
    assert reference.encode('\ud800')[-3:] == b'\xed\xa0\x80'


def test_bytes_bytearray_and_memoryview_are_one_kind():
    data = b'\x00hello\xff' * 1000  # long enough to be hashed in place
    want = fp(data)
    assert fp(bytearray(data)) == want
    assert fp(memoryview(data)) == want
    assert fp(memoryview(b'x' + data)[1:]) == want
    strided = bytes(b for c in data for b in (c, 0))
    assert fp(memoryview(strided)[::2]) == want
    assert fp(memoryview(np.frombuffer(data, np.uint8).reshape(-1, 7))) == want
    assert fp(data) != fp(data.decode('latin-1'))


def test_set_and_frozenset_are_one_kind_and_order_is_not_hashed():
    items = [3, 'a', (1, 2), b'x', 2.5, None]
    assert fp(set(items)) == fp(frozenset(reversed(items))) == fp(set(items[::2] + items[1::2]))
    forward = dict(zip('abcdef', range(6), strict=True))
    backward = dict(reversed(list(forward.items())))
    assert list(forward) != list(backward) and fp(forward) == fp(backward)
    assert fp(forward) != fp(list(forward.items()))


def test_the_hash_seed_does_not_matter():
    program = (
        'import fastdigest; '
        "print(fastdigest.fingerprint('sha256', [{'b': {1, 2, 'x'}, 'a': frozenset('xyz')}, {str(i) for i in range(50)}],"
        ' hex=True))'
    )
    outputs = set()
    for seed in ('0', '1', '12345'):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        result = subprocess.run([sys.executable, '-c', program], env=env, capture_output=True, text=True, check=True)
        outputs.add(result.stdout.strip())
    assert len(outputs) == 1
    assert outputs == {expected([{'b': {1, 2, 'x'}, 'a': frozenset('xyz')}, {str(i) for i in range(50)}], hex=True)}


def test_dict_keys_of_one_encoding_are_ordered_by_their_values():
    a, b = float('nan'), float('nan')
    assert fp({a: 1, b: 2}) == fp({b: 2, a: 1}) == fp({a: 2, b: 1})
    assert fp({a: 1, b: 2}) == expected({a: 1, b: 2})
    assert fp({a: 1, b: 2}) != fp({a: 1, b: 3})


def test_subclasses_of_built_in_types_are_those_types():
    class MyInt(int):
        pass

    class MyStr(str):
        pass

    class Lying(list):
        def __len__(self):
            return 5

        def __iter__(self):
            return iter(['not', 'these'])

    class Items(dict):
        def items(self):
            return [('x', 1)]

    Pair = __import__('collections').namedtuple('Pair', 'a b')
    from collections import Counter, OrderedDict, defaultdict

    assert fp(MyInt(5)) == fp(5)
    assert fp(MyInt(2**100)) == fp(2**100)
    assert fp(MyStr('é')) == fp('é')
    assert fp(Lying([1, 2])) == fp([1, 2])
    assert fp(Items(a=1)) == fp({'a': 1})
    assert fp(Pair(1, 2)) == fp((1, 2))
    assert fp(OrderedDict(b=1, a=2)) == fp({'a': 2, 'b': 1}) == fp(defaultdict(int, a=2, b=1))
    assert fp(Counter('aab')) == fp({'a': 2, 'b': 1})
    assert fp(type('S', (frozenset,), {})({1, 2})) == fp({1, 2})
    assert fp(type('B', (bytes,), {})(b'ab')) == fp(b'ab')


def test_dates_and_times():
    utc = datetime.timezone.utc
    minus5 = datetime.timezone(datetime.timedelta(hours=-5))
    noon = datetime.datetime(2024, 2, 29, 12, 0)
    # One instant in two zones, and one wall time naive and aware: all different values.
    distinct = [noon, noon.replace(tzinfo=utc), noon.replace(tzinfo=utc).astimezone(minus5), noon.replace(fold=1),
                noon.date(), noon.time(), noon.time().replace(tzinfo=utc), datetime.timedelta(0)]  # fmt: skip
    assert len({fp(v) for v in distinct}) == len(distinct)
    # A zone is its offset there: a fixed offset and a zone that gives the same one agree.
    fold0 = datetime.datetime(2021, 11, 7, 1, 30, tzinfo=fingerprint_cases.Repeated())
    assert fp(fold0) == fp(fold0.replace(tzinfo=datetime.timezone(datetime.timedelta(hours=-4), 'EDT')))
    assert fp(fold0.replace(fold=1)) != fp(
        fold0.replace(fold=1, tzinfo=datetime.timezone(datetime.timedelta(hours=-4)))
    )
    assert fp(noon.replace(tzinfo=utc)) == fp(noon.replace(tzinfo=datetime.timezone(datetime.timedelta(0), 'Z')))
    for value in distinct + [fold0, fold0.replace(fold=1), datetime.datetime.min, datetime.datetime.max,
                             datetime.timedelta.min, datetime.timedelta.max, datetime.date.min, datetime.date.max]:  # fmt: skip
        check(value)


def test_a_tzinfo_whose_offset_is_none_is_naive():
    class NoOffset(datetime.tzinfo):
        def utcoffset(self, dt):
            return None

    noon = datetime.datetime(2024, 2, 29, 12)
    assert fp(noon.replace(tzinfo=NoOffset())) == fp(noon)
    assert fp(datetime.time(12, tzinfo=NoOffset())) == fp(datetime.time(12))


def test_decimals_keep_their_exponent_and_sign():
    d = decimal.Decimal
    values = [d('1.2'), d('1.20'), d('-0'), d('0'), d('0E+2'), d('Infinity'), d('-Infinity'), d('NaN'), d('-NaN'),
              d('NaN1'), d('sNaN'), d('1E+3'), d('1000')]  # fmt: skip
    assert len({fp(v) for v in values}) == len(values)
    for v in values:
        check(v)
    with decimal.localcontext() as context:
        context.capitals = 0  # str() would say 1e+3: the encoding reads as_tuple()
        assert fp(d('1E+3')) == expected(d('1E+3'))


def test_enums_and_dataclasses_name_their_class():
    class Other(enum.Enum):
        RED = 1

    assert fp(Color.RED) != fp(Other.RED) != fp(1)
    assert fp(Size.SMALL) != fp(1)
    assert fp(Point(1, 2)) != fp(Point(2, 1)) != fp((1, 2))
    assert fp(Box([1], note='a')) == fp(Box([1], note='b'))  # compare=False is not hashed
    Flags = enum.Flag('Flags', 'A B')
    check(Flags.A | Flags.B)

    @dataclasses.dataclass
    class Boxed:
        content: object

    assert fp(Boxed(1)) != fp(Box(1))


def test_uuids():
    u = uuid.UUID('f79c3e09-677c-4bbd-a479-3f349cb785e7')
    assert fastdigest.fingerprint('md5', u) == hashlib.md5(b'fdfp\x01U' + u.bytes).digest()
    assert fp(u) != fp(u.bytes) != fp(str(u))


# ---- NumPy --------------------------------------------------------------------------------------------------------


def test_numpy_layouts_and_byte_orders_hash_alike():
    base = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    want = fp(base)
    assert fp(np.asfortranarray(base)) == want
    assert fp(base.astype('>i4')) == want
    assert fp(np.repeat(base, 2, axis=2)[:, :, ::2]) == want
    assert fp(base[::-1][::-1]) == want
    assert fp(base.transpose(2, 0, 1).transpose(1, 2, 0)) == want
    assert fp(base.astype(np.int64)) != want  # the dtype is part of the value
    assert fp(base.reshape(6, 4)) != want  # and so is the shape
    assert fp(base.tolist()) != want
    assert fp(np.array([1.5, -0.0], '>f8')) == fp(np.array([1.5, -0.0]))
    assert fp(np.array(['ab', 'c'], '>U2')) == fp(np.array(['ab', 'c']))
    assert fp(np.array([1 + 2j], '>c16')) == fp(np.array([1 + 2j]))
    assert fp(np.array(['2020-01-01'], '>M8[D]')) == fp(np.array(['2020-01-01'], 'M8[D]'))


def test_numpy_contiguous_arrays_are_their_buffer():
    array = np.arange(100_000, dtype=np.float64)
    header = b'fdfp\x01n' + b'\x03<f8' + b'\x01' + bytes([0xA0, 0x8D, 0x06])  # 100,000 = 0x186a0 in LEB128
    assert fp(array) == hashlib.sha256(header + array.tobytes()).digest()


def test_numpy_bools_are_their_truth():
    assert fp(np.array([2, 0, 255], np.uint8).view(bool)) == fp(np.array([True, False, True]))


def test_numpy_scalars_are_not_their_python_values_nor_0d_arrays():
    assert len({fp(np.float64(1.5)), fp(1.5), fp(np.array(1.5)), fp(np.float32(1.5))}) == 4
    for scalar in [np.float64(1.5), np.int8(-1), np.str_('ab'), np.bytes_(b'x'), np.bool_(True), np.datetime64('2020-01-01'),
                   np.timedelta64(5, 's'), np.complex64(1j), np.uint64(2**64 - 1)]:  # fmt: skip
        check(scalar)


def test_numpy_object_arrays_are_their_elements():
    array = np.empty((2, 2), dtype=object)
    array[0, 0], array[0, 1], array[1, 0], array[1, 1] = 1, 'a', [None], {'k': np.float32(2)}
    check(array)
    check(np.asfortranarray(array))
    assert fp(array) == fp(np.asfortranarray(array))
    array[1, 1] = object()
    with pytest.raises(TypeError, match='object'):
        fp(array)


@pytest.mark.filterwarnings('ignore:the matrix subclass:PendingDeprecationWarning')
@pytest.mark.parametrize(
    ('make', 'message'),
    [
        (lambda: np.zeros(2, dtype=[('a', 'i4'), ('b', 'f8')]), 'structured'),
        (lambda: np.zeros(2, dtype=np.longdouble), 'long double'),
        (lambda: np.ma.masked_array([1, 2], mask=[0, 1]), 'MaskedArray'),
        (lambda: np.matrix([[1, 2]]), 'matrix'),
        (lambda: np.array(['a'], dtype=np.dtypes.StringDType()), 'kind'),
    ],
)
def test_numpy_arrays_the_encoding_has_no_rule_for_are_refused(make, message):
    if np.dtype(np.longdouble).itemsize == 8 and message == 'long double':
        pytest.skip('long double is float64 on this platform, and hashes as float64')
    with pytest.raises(TypeError, match=message):
        fp(make())


# ---- Arrow --------------------------------------------------------------------------------------------------------


pa = pytest.importorskip('pyarrow', reason='pyarrow (test extra) is not installed or has no wheel here')
pc = pytest.importorskip('pyarrow.compute', reason='pyarrow (test extra) is not installed or has no wheel here')


def test_arrow_values_are_the_encoding_s_fields():
    import encoding_reference

    table = pa.table({'id': [1, 2, None], 'name': ['a', None, 'ccc'], 'tags': [['x'], [], None]})
    # The rows are digest_rows' bytes, each after 01.
    rows = encoding_reference.table_rows(table)
    descriptor = b'r\x03' + b'\x02idi' + b'\x04names' + b'\x04tagsls'  # struct of (name, type) * 3
    message = b'fdfp\x01A' + descriptor + b''.join(b'\x01' + row for row in rows) + b'\x02'
    assert fp(table) == hashlib.sha256(message).digest()
    check_arrow(table)
    for name in table.column_names:
        check_arrow(table.column(name))


def check_arrow(obj, name='sha256'):
    message = reference.encode(obj)
    assert fastdigest.fingerprint(name, obj) == hashlib.new(name, message).digest()
    reference.decode(message)  # a prefix code here too


def test_arrow_layouts_producers_and_widths_hash_alike():
    values = [1, None, -3, 2**31 - 1]
    want = fp(pa.array(values, pa.int64()))
    for same in [pa.array(values, pa.int32()), pa.chunked_array([values[:1], values[1:]]), pa.array(values).slice(0),
                 pa.array(values, pa.int64()).dictionary_encode(), pc.run_end_encode(pa.array(values))]:  # fmt: skip
        assert fp(same) == want, same.type
    table = pa.table({'a': values, 's': ['x', 'y', None, 'x']})
    want = fp(table)
    assert fp(table.to_batches()[0]) == want
    assert fp(pa.RecordBatchReader.from_batches(table.schema, table.to_batches(max_chunksize=1))) == want
    assert (
        fp(pa.table({'a': pa.array(values, pa.int32()), 's': pa.array(['x', 'y', None, 'x'], pa.large_string())}))
        == want
    )
    assert (
        fp(table.to_struct_array() if hasattr(table, 'to_struct_array') else table.to_batches()[0].to_struct_array())
        == want
    )
    polars = pytest.importorskip('polars', reason='polars (test extra) is not installed or has no wheel here')
    assert fp(polars.from_arrow(table)) == want
    pandas = pytest.importorskip('pandas', reason='pandas (test extra) is not installed or has no wheel here')
    assert fp(table.to_pandas(types_mapper=pandas.ArrowDtype)) == want
    duckdb = pytest.importorskip('duckdb', reason='duckdb (test extra) is not installed or has no wheel here')
    assert fp(duckdb.from_arrow(table)) == want


def test_arrow_values_never_equal_python_values():
    assert fp(pa.array([1, 2, 3])) != fp([1, 2, 3])
    assert fp(pa.array(['a'])) != fp(['a'])
    assert fp(pa.array([1, 2, 3])) != fp(np.array([1, 2, 3]))


def test_arrow_types_the_descriptor_tells_apart():
    distinct = [
        pa.array([], pa.int64()), pa.array([], pa.bool_()), pa.array([], pa.string()), pa.array([], pa.binary()),
        pa.array([1], pa.uint64()), pa.array([1], pa.int64()), pa.array([-1], pa.int64()), pa.array([2**64 - 1], pa.uint64()),
        pa.array(['a']), pa.array([b'a']),
        pa.array([decimal.Decimal('1.25')], pa.decimal128(5, 2)), pa.array([decimal.Decimal('0.125')], pa.decimal128(5, 3)),
        pa.table({'a': [1]}), pa.table({'b': [1]}), pa.array([1.0]),
        pa.array([[('k', 1)]], pa.map_(pa.string(), pa.int64())),
        pa.array([[{'key': 'k', 'value': 1}]], pa.list_(pa.struct([('key', pa.string()), ('value', pa.int64())]))),
    ]  # fmt: skip
    assert len({fp(v) for v in distinct}) == len(distinct)
    for v in distinct:
        check_arrow(v)
    # encoding.md's one rule across widths that the descriptor keeps: decimal precisions agree at one scale.
    assert fp(pa.array([decimal.Decimal('1.25')], pa.decimal128(5, 2))) == fp(
        pa.array([decimal.Decimal('1.25')], pa.decimal256(40, 2))
    )


def test_arrow_inside_python_values_and_errors():
    check_arrow(pa.array([1]))
    assert fp({'frame': pa.table({'a': [1]})}) == fp({'frame': pa.table({'a': pa.array([1], pa.int8())})})
    union = pa.UnionArray.from_sparse(pa.array([0], pa.int8()), [pa.array([1]), pa.array(['a'])])
    with pytest.raises(TypeError, match='fingerprint'):
        fp(union)


# ---- bad input ----------------------------------------------------------------------------------------------------


def test_unknown_types_are_refused_by_name():
    import pathlib

    for value, name in [(object(), 'object'), (pathlib.PurePosixPath('/x'), r'pathlib\.\S*PurePosixPath'),
                        ([1, {'a': range(3)}], 'range'), (Point, 'type'), (len, 'builtin_function_or_method')]:  # fmt: skip
        with pytest.raises(TypeError, match=f'type {name}'):
            fp(value)


def test_subclasses_of_datetime_types_are_refused():
    class Stamp(datetime.datetime):
        pass

    with pytest.raises(TypeError, match='subclass of datetime.date'):
        fp(Stamp(2020, 1, 1))
    pandas = pytest.importorskip('pandas', reason='pandas (test extra) is not installed or has no wheel here')
    with pytest.raises(TypeError, match='Timestamp'):
        fp(pandas.Timestamp('2020-01-01T00:00:00.000000001'))


def test_a_container_that_holds_itself_raises_recursion_error():
    loop = []
    loop.append(loop)
    with pytest.raises(RecursionError):
        fp(loop)
    d = {}
    d['d'] = d
    with pytest.raises(RecursionError):
        fp(d)
    t = []
    t.append((t, frozenset([1])))
    with pytest.raises(RecursionError):
        fp(t)


def test_deep_nesting_raises_recursion_error_or_hashes_right():
    """Nesting beyond what the interpreter allows C code raises RecursionError (3.10 to 3.13 count levels; from
    3.14 the limit is the thread's stack, which these levels may fit), never a crash."""
    depth = 100_000
    lists, mixed = None, None
    for _ in range(depth):
        lists = [lists]
        mixed = ({'k': mixed},)
    for value, level in ((lists, b'l\x01'), (mixed, b't\x01m\x01s\x01k')):
        try:
            digest = fp(value)
        except RecursionError:
            continue
        assert digest == hashlib.sha256(b'fdfp\x01' + level * depth + b'N').digest()
    assert fp([[[[1]]]] * 10) == expected([[[[1]]]] * 10)  # the limit is depth, not size


def test_huge_integers():
    for n in (10**5000, -(10**5000), 2 ** (8 * 10**5) - 1, -(2 ** (8 * 10**5))):
        assert fp(n) == expected(n)


def test_values_that_change_their_containers_during_the_walk():
    """Each container is read once, when the walk reaches it: its items then are what is hashed, whatever code
    that runs later (here a dataclass field's read) does to it or to the containers around it."""
    target = {'a': 1, 'b': 2}
    items = [1, 2, 3]
    armed = [True]

    @dataclasses.dataclass
    class Saboteur:
        value: int

        def __getattribute__(self, name):
            if name == 'value' and armed[0]:
                target.clear()
                target.update({str(i): i for i in range(100)})
                items[:] = range(50)
                outer.clear()
                around.clear()
            return object.__getattribute__(self, name)

    outer = [target, Saboteur(1), items]
    around = {'first': outer, 'second': items}
    got = fp(around)
    armed[0] = False
    # 'first' sorts before 'second'. The outer list was read before the saboteur ran, and so was target (its
    # first item); items, its last item, after; and 'second' is the same list, read again after.
    want = fp({'first': [{'a': 1, 'b': 2}, Saboteur(1), list(range(50))], 'second': list(range(50))})
    assert got == want
    assert outer == [] and around == {}


def test_a_dict_changed_while_its_keys_are_encoded():
    """A dict's entries are taken before its keys are encoded; nothing calls __hash__ or __eq__."""
    armed = [True]
    calls = []

    @dataclasses.dataclass(frozen=True, eq=False)
    class Key:
        name: str

        def __getattribute__(self, attribute):
            if attribute == 'name' and armed[0]:
                holder.clear()
                holder.update({f'new{i}': i for i in range(10)})
            return object.__getattribute__(self, attribute)

        def __hash__(self):
            calls.append('hash')
            return 1

        def __eq__(self, other):
            calls.append('eq')
            return self is other

    holder = {}
    a, b = Key('a'), Key('b')
    holder[a] = 1
    holder[b] = 2
    calls.clear()
    got = fp({'holder': holder, 'and again': holder})
    armed[0] = False
    assert calls == []
    # 'holder' sorts first (its encoding, whose length comes first, is shorter): the dict as it was; then
    # 'and again', read after the keys refilled it.
    assert got == fp({'holder': {Key('a'): 1, Key('b'): 2}, 'and again': {f'new{i}': i for i in range(10)}})


def test_a_lying_len_is_never_called():
    class Huge(list):
        def __len__(self):
            return 2**62

    class Negative(dict):
        def __len__(self):
            return -1

    assert fp(Huge([1])) == fp([1])
    assert fp(Negative(a=1)) == fp({'a': 1})


def test_an_enum_whose_value_has_no_rule_is_refused():
    class Odd(enum.Enum):
        A = object()

    with pytest.raises(TypeError, match='object'):
        fp(Odd.A)


def test_a_broken_arrow_producer():
    class Broken:
        def __arrow_c_stream__(self, requested_schema=None):
            raise RuntimeError('no stream today')

    with pytest.raises(RuntimeError, match='no stream today'):
        fp([1, Broken()])


@pytest.mark.threads
def test_containers_changed_by_another_thread():
    """On a free-threaded build another thread may change a container while it is walked: the digest is that of
    one state of each container (each read under its lock), or an error, never a crash."""
    shared_list = list(range(200))
    shared_dict = {i: str(i) for i in range(200)}
    shared_set = set(range(200))
    stop = threading.Event()

    def mutate():
        n = 0
        while not stop.is_set():
            n += 1
            shared_list.append(n)
            shared_list.pop(0)
            shared_dict[n % 300] = n
            shared_dict.pop((n + 7) % 300, None)
            shared_set.add(n % 300)
            shared_set.discard((n + 3) % 300)

    thread = threading.Thread(target=mutate)
    thread.start()
    digests = set()
    try:
        for _ in range(300 if FREE_THREADED else 30):
            try:
                digests.add(fp([shared_list, shared_dict, shared_set]))
            except RuntimeError as error:
                assert 'changed size' in str(error)  # a set changed size under its iterator
    finally:
        stop.set()
        thread.join()
    assert digests and all(len(d) == 32 for d in digests)
    assert fp([shared_list, shared_dict, shared_set]) == expected([shared_list, shared_dict, shared_set])


# ---- arguments ----------------------------------------------------------------------------------------------------


def test_arguments():
    assert fastdigest.fingerprint(fastdigest.sha256, 'x') == fp('x')
    assert fastdigest.fingerprint('SHA256', 'x') == fp('x')
    assert fastdigest.fingerprint('md5', 'x', hex=True) == expected('x', 'md5', hex=True)
    assert fastdigest.fingerprint('md5', 'x', hex=1) == expected('x', 'md5', hex=True)
    with pytest.raises(TypeError, match='expected 2 positional arguments, got 1'):
        fastdigest.fingerprint('md5')
    with pytest.raises(TypeError, match='expected 2 positional arguments, got 3'):
        fastdigest.fingerprint('md5', 1, True)
    with pytest.raises(TypeError, match='keyword'):
        fastdigest.fingerprint('md5', 1, binary=True)
    with pytest.raises(ValueError, match='unsupported'):
        fastdigest.fingerprint('blake3', 1)
    with pytest.raises(TypeError, match='argument 1'):
        fastdigest.fingerprint(None, 1)
