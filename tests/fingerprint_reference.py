"""A second implementation of docs/fingerprint.md (version 1) in pure Python, from the page's rules, and a decoder.

encode(obj) is the message the page defines for a value: the header and value(obj), whose hash is
fastdigest.fingerprint(name, obj). It shares no code with fastdigest's C: it reads values as Python and
NumPy give them (struct.pack for a float's bits, str.encode('utf-8', 'surrogatepass'), Decimal.as_tuple(),
ndarray.tobytes() of a little-endian copy) and Arrow values through tests/encoding_reference.py, itself a
restatement of docs/encoding.md.

decode(message) reads a message back into a tree of tuples that says what was encoded (the kind, then the
value's parts), and refuses anything but the one encoding the page allows of it: a value cut short or
followed by more bytes, an int in the long form that fits the short one or in more bytes than it needs, a
dict's keys or a set's elements out of their order, a digit that is no digit. canonical(obj) builds the same
tree from the value itself. tests/test_fingerprint.py checks decode(encode(x)) == canonical(x) on drawn
values: encode is then one-to-one on them (two values with one message have one tree), and every message is
a prefix code (decoding consumes exactly the value's bytes, and nesting keeps its boundaries).
"""

import dataclasses
import datetime
import decimal
import enum
import struct
import uuid

HEADER = b'fdfp\x01'
EPOCH = datetime.datetime(1970, 1, 1)
EPOCH_DATE = datetime.date(1970, 1, 1)
MICROSECOND = datetime.timedelta(microseconds=1)


def uvarint(n):
    """n >= 0 in unsigned LEB128: seven bits a byte, least significant first, the top bit on all but the last."""
    bits = bin(n)[2:]
    bits = '0' * (-len(bits) % 7) + bits  # whole groups of seven, the most significant first
    groups = [int(bits[i : i + 7], 2) for i in range(len(bits) - 7, -1, -7)]
    return bytes(group | 0x80 for group in groups[:-1]) + bytes(groups[-1:])


def svarint(n):
    """Any int: uvarint of its zigzag, 2n for n >= 0 and -2n - 1 below."""
    return uvarint(2 * n if n >= 0 else -2 * n - 1)


def text(s):
    """uvarint of the length of s's UTF-8 (surrogates as their three bytes), and that UTF-8."""
    data = s.encode('utf-8', 'surrogatepass')
    return uvarint(len(data)) + data


def try_numpy():
    import sys

    return sys.modules.get('numpy')


def is_arrow(obj):
    return hasattr(obj, '__arrow_c_stream__') or hasattr(obj, '__arrow_c_array__')


# ---- encoding -----------------------------------------------------------------------------------------------


def encode(obj):
    """The whole message: the header, then value(obj)."""
    return HEADER + value(obj)


def clock(microseconds, fold, offset):
    out = svarint(microseconds) + bytes([fold])
    if offset is None:
        return out + b'\x00'
    return out + b'\x01' + svarint(offset // MICROSECOND)


def wall_microseconds(dt):
    return (dt.replace(tzinfo=None, fold=0) - EPOCH) // MICROSECOND


def time_microseconds(t):
    return ((t.hour * 60 + t.minute) * 60 + t.second) * 1_000_000 + t.microsecond


def value(obj):  # noqa: C901 (one rule a kind, in the page's order)
    """value(v): the bytes of one value, its tag first."""
    t = type(obj)
    np = try_numpy()
    if obj is None:
        return b'N'
    if obj is False:
        return b'F'
    if obj is True:
        return b'T'
    if np is not None and isinstance(obj, np.ndarray):
        if t not in (np.ndarray, np.memmap):
            raise TypeError(f'a subclass of ndarray: {t}')
        shape = uvarint(obj.ndim) + b''.join(uvarint(d) for d in obj.shape)
        return b'n' + numpy_typestr(obj.dtype) + shape + numpy_values(obj)
    if np is not None and isinstance(obj, np.generic):
        # The scalar's own dtype, whose item may be narrower than its 0-d array's (bytes_(b'') is S0, its
        # array S1): its first itemsize bytes.
        return b'g' + numpy_typestr(obj.dtype) + numpy_values(np.asarray(obj))[: obj.dtype.itemsize]
    if isinstance(obj, enum.Enum):
        return b'E' + text(t.__module__) + text(t.__qualname__) + value(obj._value_)
    if isinstance(obj, (datetime.date, datetime.time, datetime.timedelta)):
        if t is datetime.datetime:
            offset = obj.utcoffset()
            return b'W' + clock(wall_microseconds(obj), obj.fold, offset)
        if t is datetime.date:
            return b'D' + svarint((obj - EPOCH_DATE).days)
        if t is datetime.time:
            return b'H' + clock(time_microseconds(obj), obj.fold, obj.utcoffset())
        if t is datetime.timedelta:
            return b'P' + svarint(obj // MICROSECOND)
        raise TypeError(f'a subclass of a datetime type: {t}')
    if isinstance(obj, int):
        return b'i' + svarint(int(obj))
    if isinstance(obj, float):
        return b'f' + struct.pack('<d', obj)
    if isinstance(obj, complex):
        return b'c' + struct.pack('<dd', obj.real, obj.imag)
    if isinstance(obj, str):
        return b's' + text(str(obj))
    if isinstance(obj, (bytes, bytearray, memoryview)):
        data = memoryview(obj).tobytes()
        return b'b' + uvarint(len(data)) + data
    if isinstance(obj, list):
        return b'l' + uvarint(len(obj)) + b''.join(value(item) for item in list.__iter__(obj))
    if isinstance(obj, tuple):
        return b't' + uvarint(len(obj)) + b''.join(value(item) for item in tuple.__iter__(obj))
    if isinstance(obj, dict):
        entries = sorted((value(k), value(v)) for k, v in dict.items(obj))
        return b'm' + uvarint(len(entries)) + b''.join(k + v for k, v in entries)
    if isinstance(obj, (set, frozenset)):
        members = set.__iter__(obj) if isinstance(obj, set) else frozenset.__iter__(obj)
        elements = sorted(value(e) for e in members)
        return b'u' + uvarint(len(elements)) + b''.join(elements)
    if isinstance(obj, decimal.Decimal):
        return decimal_value(obj)
    if isinstance(obj, uuid.UUID):
        return b'U' + obj.int.to_bytes(16, 'big')
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        fields = [f for f in dataclasses.fields(obj) if f.compare]
        return (
            b'C'
            + text(t.__module__)
            + text(t.__qualname__)
            + uvarint(len(fields))
            + b''.join(text(f.name) + value(getattr(obj, f.name)) for f in fields)
        )
    if is_arrow(obj):
        return arrow_value(obj)
    raise TypeError(f'no rule for {t}')


def decimal_value(d):
    sign, digits, exponent = d.as_tuple()
    kinds = {'F': 1, 'n': 2, 'N': 3}
    kind = kinds.get(exponent, 0) if isinstance(exponent, str) else 0
    if kind == 1:
        digits = ()
    digit_text = ''.join(map(str, digits)).encode()
    return b'd' + bytes([sign, kind]) + svarint(exponent if kind == 0 else 0) + uvarint(len(digit_text)) + digit_text


def numpy_typestr(dtype):
    name = dtype.newbyteorder('<').str.encode('ascii')
    return uvarint(len(name)) + name


def numpy_values(array):
    np = try_numpy()
    if array.dtype.kind == 'O':
        return b''.join(value(item) for item in array.ravel(order='C').tolist())
    if array.dtype.kind == 'b':
        return np.ascontiguousarray(array != 0, dtype=np.uint8).tobytes()
    little = array.astype(array.dtype.newbyteorder('<'), order='C', copy=True)
    return little.tobytes(order='C')


# ---- Arrow ---------------------------------------------------------------------------------------------------


def arrow_descriptor(t):
    """The type descriptor: the logical type, as docs/encoding.md tells types apart."""
    import pyarrow as pa

    import encoding_reference as reference

    if isinstance(t, pa.BaseExtensionType):
        return arrow_descriptor(t.storage_type)
    if pa.types.is_dictionary(t) or pa.types.is_run_end_encoded(t):
        return arrow_descriptor(t.value_type)
    if pa.types.is_null(t):
        return b'n'
    if pa.types.is_boolean(t):
        return b'b'
    if t == pa.uint64():
        return b'u'
    if pa.types.is_integer(t):
        return b'i'
    if pa.types.is_floating(t):
        return b'f'
    if pa.types.is_decimal(t):
        return b'd' + svarint(t.scale)
    if pa.types.is_date(t):
        return b'D'
    if pa.types.is_time(t):
        return b'H'
    if pa.types.is_timestamp(t):
        return b'W'
    if pa.types.is_duration(t):
        return b'P'
    if pa.types.is_interval(t):
        return b'V'
    if pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_string_view(t):
        return b's'
    if reference.is_bytes_like(t):
        return b'y'
    if pa.types.is_map(t):
        return b'm' + arrow_descriptor(t.key_type) + arrow_descriptor(t.item_type)
    if reference.is_list_like(t):
        return b'l' + arrow_descriptor(t.value_type)
    if pa.types.is_struct(t):
        return (
            b'r'
            + uvarint(t.num_fields)
            + b''.join(text(t.field(k).name) + arrow_descriptor(t.field(k).type) for k in range(t.num_fields))
        )
    raise TypeError(f'no descriptor for {t}')


def arrow_value(obj):
    """'A', the descriptor, field(v) of each value (a table's rows as its struct's values) and 02."""
    import pyarrow as pa

    import encoding_reference as reference

    array = pa.chunked_array(obj) if hasattr(obj, '__arrow_c_stream__') else pa.array(obj)
    rows = [reference.field_bytes(array.type, scalar) for scalar in array]
    return b'A' + arrow_descriptor(array.type) + b''.join(rows) + b'\x02'


# ---- decoding ------------------------------------------------------------------------------------------------


class Malformed(ValueError):
    pass


class Reader:
    def __init__(self, data):
        self.data = data
        self.at = 0

    def take(self, n):
        if n < 0 or self.at + n > len(self.data):
            raise Malformed(f'cut short at {self.at}: {n} bytes wanted')
        out = self.data[self.at : self.at + n]
        self.at += n
        return out

    def byte(self):
        return self.take(1)[0]

    def u64(self):
        """A fixed 8-byte little-endian number (a float's bits)."""
        return int.from_bytes(self.take(8), 'little')

    def uvarint(self):
        groups = []
        while True:
            b = self.byte()
            groups.append(b & 0x7F)
            if not b & 0x80:
                if b == 0 and len(groups) > 1:
                    raise Malformed('a varint in more bytes than it needs')
                return int(''.join(format(g, '07b') for g in reversed(groups)), 2)

    def svarint(self):
        z = self.uvarint()
        return z >> 1 if z % 2 == 0 else -(z >> 1) - 1

    def text(self):
        return self.take(self.uvarint()).decode('utf-8', 'surrogatepass')

    def flag(self):
        b = self.byte()
        if b > 1:
            raise Malformed(f'a flag of {b}')
        return b


def decode(message):
    """The tree of a whole message: its header, one value and nothing after it."""
    r = Reader(message)
    if r.take(len(HEADER)) != HEADER:
        raise Malformed('no header')
    tree = decode_value(r)
    if r.at != len(message):
        raise Malformed(f'{len(message) - r.at} bytes after the value')
    return tree


def decode_sorted(r, count, read_one):
    """count items read by read_one, each the bytes it spans and its tree; checks the canonical order."""
    items = []
    for _ in range(count):
        start = r.at
        tree = read_one()
        items.append((r.data[start : r.at], tree))
    for (a, _), (b, _) in zip(items, items[1:], strict=False):
        if a > b:
            raise Malformed('out of the canonical order')
    return tuple(tree for _, tree in items)


def decode_clock(r):
    microseconds = r.svarint()
    fold = r.flag()
    offset = r.svarint() if r.flag() else None
    return microseconds, fold, offset


def decode_value(r):  # noqa: C901
    tag = chr(r.byte())
    if tag == 'N':
        return ('None',)
    if tag in 'FT':
        return ('bool', tag == 'T')
    if tag == 'i':
        return ('int', r.svarint())
    if tag == 'f':
        return ('float', r.u64())
    if tag == 'c':
        return ('complex', r.u64(), r.u64())
    if tag == 's':
        return ('str', r.text())
    if tag == 'b':
        return ('bytes', r.take(r.uvarint()))
    if tag in 'lt':
        n = r.uvarint()
        return ('list' if tag == 'l' else 'tuple', tuple(decode_value(r) for _ in range(n)))
    if tag == 'm':
        return ('dict', decode_sorted(r, r.uvarint(), lambda: (decode_value(r), decode_value(r))))
    if tag == 'u':
        return ('set', decode_sorted(r, r.uvarint(), lambda: decode_value(r)))
    if tag == 'D':
        return ('date', r.svarint())
    if tag in 'WH':
        return ('datetime' if tag == 'W' else 'time', *decode_clock(r))
    if tag == 'P':
        return ('timedelta', r.svarint())
    if tag == 'd':
        sign, kind = r.flag(), r.byte()
        exponent = r.svarint()
        digits = r.take(r.uvarint()).decode('ascii')
        if kind > 3 or not all(c in '0123456789' for c in digits) or (kind != 0 and exponent != 0):
            raise Malformed('a Decimal that is not in its one form')
        if (kind == 0 and (not digits or (digits[0] == '0' and digits != '0'))) or (kind == 1 and digits):
            raise Malformed('a Decimal coefficient that is not in its one form')
        if kind >= 2 and digits.startswith('0'):
            raise Malformed('a NaN payload that is not in its one form')
        return ('decimal', sign, kind, exponent, digits)
    if tag == 'U':
        return ('uuid', r.take(16))
    if tag == 'E':
        return ('enum', r.text(), r.text(), decode_value(r))
    if tag == 'C':
        module, qualname = r.text(), r.text()
        fields = tuple((r.text(), decode_value(r)) for _ in range(r.uvarint()))
        return ('dataclass', module, qualname, fields)
    if tag in 'ng':
        typestr = r.take(r.uvarint()).decode('ascii')
        shape = tuple(r.uvarint() for _ in range(r.uvarint())) if tag == 'n' else ()
        count = 1
        for dim in shape:
            count *= dim
        if typestr == '|O':
            values = tuple(decode_value(r) for _ in range(count))
        else:
            values = r.take(count * typestr_itemsize(typestr))
        return ('ndarray' if tag == 'n' else 'numpy scalar', typestr, shape, values)
    if tag == 'A':
        descriptor = decode_descriptor(r)
        rows = []
        while True:
            mark = r.byte()
            if mark == 2:
                return ('arrow', descriptor, tuple(rows))
            r.at -= 1
            rows.append(decode_field(r, descriptor))
    raise Malformed(f'unknown tag {tag!r}')


def typestr_itemsize(typestr):
    """The item size of a NumPy typestr: '<i8', '|b1', '<U3' (4 bytes a character), '<M8[ns]'."""
    size = int(''.join(c for c in typestr[2:].split('[')[0] if c.isdigit()))
    return size * 4 if typestr[1] == 'U' else size


def decode_descriptor(r):
    code = chr(r.byte())
    if code in 'nbiufDHWPVsy':
        return (code,)
    if code == 'd':
        return ('d', r.svarint())
    if code == 'l':
        return ('l', decode_descriptor(r))
    if code == 'm':
        return ('m', decode_descriptor(r), decode_descriptor(r))
    if code == 'r':
        return ('r', tuple((r.text(), decode_descriptor(r)) for _ in range(r.uvarint())))
    raise Malformed(f'unknown descriptor {code!r}')


FIXED_VALUE_SIZES = {'b': 1, 'i': 8, 'u': 8, 'f': 8, 'D': 8, 'H': 16, 'W': 16, 'P': 16, 'V': 16}


def decode_field(r, descriptor):
    """field(v) of encoding.md: ('null',) or the value's tree (fixed-size values as their bytes)."""
    present = r.flag()
    if not present:
        return ('null',)
    code = descriptor[0]
    if code == 'n':
        raise Malformed('a value of the null type')
    if code in FIXED_VALUE_SIZES:
        return r.take(FIXED_VALUE_SIZES[code])
    if code in 'dsy':
        return r.take(r.u64())
    if code == 'l':
        return tuple(decode_field(r, descriptor[1]) for _ in range(r.u64()))
    if code == 'm':
        entries = []
        for _ in range(r.u64()):
            if r.byte() != 1:
                raise Malformed('a map entry without its 01')
            entries.append((decode_field(r, descriptor[1]), decode_field(r, descriptor[2])))
        return tuple(entries)
    return tuple(decode_field(r, field) for _, field in descriptor[1])


# ---- what a value is -----------------------------------------------------------------------------------------


def float_bits(x):
    return int.from_bytes(struct.pack('<d', x), 'little')


def canonical(obj):  # noqa: C901
    """The tree decode() gives the message of obj, built from obj itself (dicts and sets in no order: see
    unordered())."""
    np = try_numpy()
    t = type(obj)
    if obj is None:
        return ('None',)
    if isinstance(obj, bool):
        return ('bool', obj)
    if np is not None and isinstance(obj, (np.ndarray, np.generic)):
        array = np.asarray(obj)
        typestr = obj.dtype.newbyteorder('<').str
        if array.dtype.kind == 'O':
            values = tuple(canonical(item) for item in array.ravel().tolist())
        elif array.dtype.kind == 'b':
            values = bytes(int(bool(b)) for b in array.ravel().tolist())
        else:
            little = array.dtype.newbyteorder('<')
            values = b''.join(np.asarray(item, dtype=little).tobytes() for item in array.ravel())
        if isinstance(obj, np.generic):
            return ('numpy scalar', typestr, (), values[: obj.dtype.itemsize])
        return ('ndarray', typestr, tuple(array.shape), values)
    if isinstance(obj, enum.Enum):
        return ('enum', t.__module__, t.__qualname__, canonical(obj._value_))
    if t is datetime.datetime:
        offset = obj.utcoffset()
        return ('datetime', wall_microseconds(obj), obj.fold, None if offset is None else offset // MICROSECOND)
    if t is datetime.date:
        return ('date', obj.toordinal() - EPOCH_DATE.toordinal())
    if t is datetime.time:
        offset = obj.utcoffset()
        return ('time', time_microseconds(obj), obj.fold, None if offset is None else offset // MICROSECOND)
    if t is datetime.timedelta:
        return ('timedelta', (obj.days * 86400 + obj.seconds) * 10**6 + obj.microseconds)
    if isinstance(obj, int):
        return ('int', int(obj))
    if isinstance(obj, float):
        return ('float', float_bits(obj))
    if isinstance(obj, complex):
        return ('complex', float_bits(obj.real), float_bits(obj.imag))
    if isinstance(obj, str):
        return ('str', str(obj))
    if isinstance(obj, (bytes, bytearray, memoryview)):
        return ('bytes', bytes(memoryview(obj).tobytes()))
    if isinstance(obj, list):
        return ('list', tuple(canonical(item) for item in obj))
    if isinstance(obj, tuple):
        return ('tuple', tuple(canonical(item) for item in obj))
    if isinstance(obj, dict):
        return ('dict', tuple((canonical(k), canonical(v)) for k, v in obj.items()))
    if isinstance(obj, (set, frozenset)):
        return ('set', tuple(canonical(e) for e in obj))
    if isinstance(obj, decimal.Decimal):
        sign, digits, exponent = obj.as_tuple()
        kind = {'F': 1, 'n': 2, 'N': 3}.get(exponent, 0) if isinstance(exponent, str) else 0
        text_digits = '' if kind == 1 else ''.join(map(str, digits))
        return ('decimal', sign, kind, exponent if kind == 0 else 0, text_digits)
    if isinstance(obj, uuid.UUID):
        return ('uuid', obj.bytes)
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        fields = tuple((f.name, canonical(getattr(obj, f.name))) for f in dataclasses.fields(obj) if f.compare)
        return ('dataclass', t.__module__, t.__qualname__, fields)
    raise TypeError(f'no canonical form for {t}')


def unordered(tree):
    """tree with every dict's entries and set's elements in one order of their own (by repr): two trees of
    the same values compare equal whatever order their dicts and sets were read in."""
    if not isinstance(tree, tuple) or not tree:
        return tree
    kind = tree[0]
    if kind == 'dict':
        return ('dict', tuple(sorted(((unordered(k), unordered(v)) for k, v in tree[1]), key=repr)))
    if kind == 'set':
        return ('set', tuple(sorted((unordered(e) for e in tree[1]), key=repr)))
    return tuple(unordered(part) if isinstance(part, tuple) else part for part in tree)
