"""A second implementation of docs/encoding.md (version 2), in pure Python, from the page's rules.

It reads values as pyarrow gives them to Python (scalars, and the integers under temporal values through a
cast), never the C data, so that it shares nothing with fastdigest's C encoder but the page: tests compare
the two, and the golden file (tests/data/encoding_v1.json) froze what both gave.

value_bytes(type, scalar) is value(v) of the page, the bytes digest_array hashes for a non-null value;
field_bytes(type, scalar) is field(v), a null's 00 or 01 and the value, framed; row_bytes(types, scalars) is
what digest_rows hashes for a row.
"""

import bisect
import decimal
import math
import struct

import pyarrow as pa
import pyarrow.compute as pc

NANOSECONDS = {'s': 10**9, 'ms': 10**6, 'us': 10**3, 'ns': 1}
MILLISECONDS_PER_DAY = 86_400_000
CANONICAL_NAN = bytes.fromhex('000000000000f87f')


def le(value, size):
    """value as size bytes of little-endian two's complement."""
    return value.to_bytes(size, 'little', signed=True)


def min_big_endian(value):
    """The fewest bytes of big-endian two's complement that hold value (Java's BigInteger.toByteArray())."""
    magnitude = value if value >= 0 else -value - 1
    return value.to_bytes(magnitude.bit_length() // 8 + 1, 'big', signed=True)


def storage(arrow_type):
    """The type that holds a value: an extension type's storage, a dictionary's value type."""
    while True:
        if isinstance(arrow_type, pa.BaseExtensionType):
            arrow_type = arrow_type.storage_type
        elif pa.types.is_dictionary(arrow_type):
            arrow_type = arrow_type.value_type
        elif pa.types.is_run_end_encoded(arrow_type):
            arrow_type = arrow_type.value_type
        else:
            return arrow_type


def logical(scalar):
    """The scalar of the value itself: a dictionary's or extension's value."""
    while True:
        if isinstance(scalar, pa.ExtensionScalar):
            scalar = scalar.value
        elif isinstance(scalar, pa.DictionaryScalar):
            scalar = scalar.value if scalar.is_valid else None
        elif isinstance(scalar, pa.RunEndEncodedScalar):
            scalar = scalar.value
        else:
            return scalar
        if scalar is None:
            return None


def is_null(scalar):
    scalar = logical(scalar)
    return scalar is None or not scalar.is_valid


def is_bytes_like(t):
    return (
        pa.types.is_binary(t)
        or pa.types.is_large_binary(t)
        or pa.types.is_binary_view(t)
        or pa.types.is_string(t)
        or pa.types.is_large_string(t)
        or pa.types.is_string_view(t)
        or pa.types.is_fixed_size_binary(t)
    )


def is_list_like(t):
    return (
        pa.types.is_list(t)
        or pa.types.is_large_list(t)
        or pa.types.is_list_view(t)
        or pa.types.is_large_list_view(t)
        or pa.types.is_fixed_size_list(t)
    )


def integer_of(scalar):
    """The integer a temporal value is stored as (a count of its unit)."""
    width = pa.int32() if scalar.type.bit_width == 32 else pa.int64()
    return scalar.cast(width).as_py()


def value_bytes(arrow_type, scalar):
    """value(v): the bytes of a non-null value of arrow_type."""
    t = storage(arrow_type)
    scalar = logical(scalar)
    if pa.types.is_boolean(t):
        return b'\x01' if scalar.as_py() else b'\x00'
    if pa.types.is_integer(t):
        value = scalar.as_py()
        return value.to_bytes(8, 'little', signed=pa.types.is_signed_integer(t))
    if pa.types.is_floating(t):
        value = float(scalar.as_py())
        if math.isnan(value):
            return CANONICAL_NAN
        return struct.pack('<d', 0.0 if value == 0 else value)
    if pa.types.is_decimal(t):
        with decimal.localcontext() as context:
            context.prec = 100
            unscaled = int(scalar.as_py().scaleb(t.scale))
        return min_big_endian(unscaled)
    if pa.types.is_date32(t):
        return le(integer_of(scalar) * MILLISECONDS_PER_DAY, 8)
    if pa.types.is_date64(t):
        return le(integer_of(scalar), 8)
    if pa.types.is_time(t) or pa.types.is_timestamp(t) or pa.types.is_duration(t):
        return le(integer_of(scalar) * NANOSECONDS[t.unit], 16)
    if t == pa.month_day_nano_interval():
        months, days, nanoseconds = scalar.as_py()
        return le(months, 4) + le(days, 4) + le(nanoseconds, 8)
    if is_bytes_like(t):
        if pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_string_view(t):
            # The bytes as stored, checked for nothing: a utf8 value of invalid UTF-8 too.
            binary = {pa.string(): pa.binary(), pa.large_string(): pa.large_binary()}.get(t, pa.binary_view())
            return pa.array([scalar], t).view(binary)[0].as_py()
        return scalar.as_py()
    if pa.types.is_map(t):
        entries = scalar.values
        out = le(len(entries), 8)
        for k in range(len(entries)):
            out += (
                b'\x01' + field_bytes(t.key_type, entries.field(0)[k]) + field_bytes(t.item_type, entries.field(1)[k])
            )
        return out
    if is_list_like(t):
        elements = scalar.values
        return le(len(elements), 8) + b''.join(field_bytes(t.value_type, element) for element in elements)
    if pa.types.is_struct(t):
        return b''.join(field_bytes(t.field(k).type, scalar[k]) for k in range(t.num_fields))
    raise TypeError(f'the reference encoder has no rule for {arrow_type}')


def is_variable(t):
    """Types whose value(v) has a length the type does not fix: framed with it."""
    return is_bytes_like(t) or pa.types.is_decimal(t)


def field_bytes(arrow_type, scalar):
    """field(v): 00 for a null, else 01, the value's length for the variable-size types, and value(v)."""
    if is_null(scalar):
        return b'\x00'
    value = value_bytes(arrow_type, scalar)
    if is_variable(storage(arrow_type)):
        return b'\x01' + le(len(value), 8) + value
    return b'\x01' + value


def row_bytes(types, scalars):
    """A row of digest_rows: the field() of each column, in order."""
    return b''.join(field_bytes(t, s) for t, s in zip(types, scalars, strict=True))


def decoded(array):
    """array with its run ends decoded (each of its scalars a value of its own), chunks joined."""
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks() if array.num_chunks else pa.array([], array.type)
    if pa.types.is_run_end_encoded(array.type):
        try:
            array = pc.run_end_decode(array)
        except pa.ArrowNotImplementedError:
            # Older pyarrow decodes no struct values: each row's run found by its end (the logical offset applies
            # to the run ends).
            ends = array.run_ends.to_pylist()
            runs = [bisect.bisect_right(ends, i) for i in range(array.offset, array.offset + len(array))]
            array = array.values.take(pa.array(runs, pa.int64()))
    return array


def column_values(array):
    """value(v) of each element of a column, None for a null: what digest_array hashes.

    A struct of one field is a one-column table, which digest_array takes as that column (null where the
    struct or the field is): the C Data Interface does not tell the two apart. So is such a struct in any
    layout, dictionary-encoded or run-end encoded (version 2): the value, decoded, is its field's.
    """
    t = storage(array.type)
    array = decoded(array)
    if pa.types.is_struct(t) and t.num_fields == 1:
        field_type = t.field(0).type
        out = []
        for scalar in array:
            row = logical(scalar)
            if row is None or not row.is_valid or is_null(row[0]):
                out.append(None)
            else:
                out.append(value_bytes(field_type, row[0]))
        return out
    return [None if is_null(scalar) else value_bytes(array.type, scalar) for scalar in array]


def table_rows(table, columns=None):
    """row_bytes of each row of a table or record batch, over columns (all when None)."""
    names = table.column_names if columns is None else columns
    arrays = [decoded(table.column(name)) for name in names]
    types = [array.type for array in arrays]
    return [row_bytes(types, [array[i] for array in arrays]) for i in range(table.num_rows)]
