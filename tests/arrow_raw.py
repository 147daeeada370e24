"""Raw Arrow C Data Interface structs built with ctypes, for the tests of what producers may get wrong.

RawArray is one array of any type: a format, a length, buffers (bytes objects or None), children and a
dictionary (RawArrays themselves), an offset and a null count; it exports itself through
__arrow_c_array__ as a producer would, with release callbacks that record what was released (RELEASED).
RawStream exports RawArrays of one type as a stream (__arrow_c_stream__). exported_values and
exported_stream_values read a binary-like column back from what a producer (fastdigest's DigestArray and
DigestStream) exports. Nothing here needs pyarrow, so it also runs where pyarrow cannot be imported: in a
subinterpreter (tests/subinterpreter_work.py).
"""

import ctypes
import itertools
import sys


class ArrowSchema(ctypes.Structure):
    pass


ArrowSchema._fields_ = [
    ('format', ctypes.c_char_p),
    ('name', ctypes.c_char_p),
    ('metadata', ctypes.c_char_p),
    ('flags', ctypes.c_int64),
    ('n_children', ctypes.c_int64),
    ('children', ctypes.POINTER(ctypes.POINTER(ArrowSchema))),
    ('dictionary', ctypes.POINTER(ArrowSchema)),
    ('release', ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowSchema))),
    ('private_data', ctypes.c_void_p),
]


class ArrowArray(ctypes.Structure):
    pass


ArrowArray._fields_ = [
    ('length', ctypes.c_int64),
    ('null_count', ctypes.c_int64),
    ('offset', ctypes.c_int64),
    ('n_buffers', ctypes.c_int64),
    ('n_children', ctypes.c_int64),
    ('buffers', ctypes.POINTER(ctypes.c_void_p)),
    ('children', ctypes.POINTER(ctypes.POINTER(ArrowArray))),
    ('dictionary', ctypes.POINTER(ArrowArray)),
    ('release', ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowArray))),
    ('private_data', ctypes.c_void_p),
]

RELEASED = []


@ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowSchema))
def release_schema(schema):
    RELEASED.append('schema')
    schema.contents.release = ctypes.cast(None, type(schema.contents.release))


@ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowArray))
def release_array(array):
    RELEASED.append('array')
    array.contents.release = ctypes.cast(None, type(array.contents.release))


PyCapsule_New = ctypes.pythonapi.PyCapsule_New
PyCapsule_New.restype = ctypes.py_object
PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]

PyCapsule_GetPointer = ctypes.pythonapi.PyCapsule_GetPointer
PyCapsule_GetPointer.restype = ctypes.c_void_p
PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]

LITTLE_ENDIAN = sys.byteorder == 'little'


class RawArray:
    """One array as raw structs: format, length, buffers (bytes objects or None), children, dictionary."""

    def __init__(self, fmt, length, buffers, children=(), dictionary=None, offset=0, null_count=0, name=None):
        self.keep = [b if b is None else ctypes.create_string_buffer(b, len(b)) for b in buffers]
        self.pointers = (ctypes.c_void_p * max(len(buffers), 1))(
            *[None if b is None else ctypes.addressof(b) for b in self.keep]
        )
        self.children = list(children)
        self.dictionary = dictionary
        child_schemas = (ctypes.POINTER(ArrowSchema) * max(len(self.children), 1))(
            *[ctypes.pointer(c.schema) for c in self.children]
        )
        child_arrays = (ctypes.POINTER(ArrowArray) * max(len(self.children), 1))(
            *[ctypes.pointer(c.array) for c in self.children]
        )
        self.keep_children = (child_schemas, child_arrays)
        self.schema = ArrowSchema(
            format=fmt.encode(), name=None if name is None else name.encode(), flags=2,
            n_children=len(self.children), children=child_schemas, release=release_schema,
        )  # fmt: skip
        self.array = ArrowArray(
            length=length, null_count=null_count, offset=offset, n_buffers=len(buffers), buffers=self.pointers,
            n_children=len(self.children), children=child_arrays, release=release_array,
        )  # fmt: skip
        if dictionary is not None:
            self.schema.dictionary = ctypes.pointer(dictionary.schema)
            self.array.dictionary = ctypes.pointer(dictionary.array)

    def __arrow_c_array__(self, requested_schema=None):
        return (
            PyCapsule_New(ctypes.addressof(self.schema), b'arrow_schema', None),
            PyCapsule_New(ctypes.addressof(self.array), b'arrow_array', None),
        )


def ints(width, *values, signed=True):
    """values as width-byte integers in the machine's order (the C interface's)."""
    return b''.join(v.to_bytes(width, sys.byteorder, signed=signed) for v in values)


def int32s(*values):
    return ints(4, *values)


def int64s(*values):
    return ints(8, *values)


def bits(*flags):
    """A validity bitmap, least significant bit first."""
    out = bytearray((len(flags) + 7) // 8 or 1)
    for i, flag in enumerate(flags):
        if flag:
            out[i // 8] |= 1 << (i % 8)
    return bytes(out)


def view(length, data=b'', buffer_index=0, offset=0):
    """A binary view: inline up to 12 bytes, else a prefix, a buffer index and an offset."""
    if length <= 12:
        return int32s(length) + data.ljust(12, b'\0')
    return int32s(length) + data[:4].ljust(4, b'\0') + int32s(buffer_index, offset)


class ArrowArrayStream(ctypes.Structure):
    pass


ArrowArrayStream._fields_ = [
    ('get_schema', ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ArrowArrayStream), ctypes.POINTER(ArrowSchema))),
    ('get_next', ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ArrowArrayStream), ctypes.POINTER(ArrowArray))),
    # const char *, returned as an address: a callback cannot hand ctypes a char * that outlives it.
    ('get_last_error', ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.POINTER(ArrowArrayStream))),
    ('release', ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowArrayStream))),
    ('private_data', ctypes.c_void_p),
]


class RawStream:
    """RawArrays of one type (the first one's schema is the stream's) exported as an ArrowArrayStream.

    Each get_next hands over a copy of the next array's struct, whose release only marks that copy released
    (the RawArray keeps the buffers), then an array with no release callback: the end."""

    def __init__(self, arrays):
        self.arrays = list(arrays)
        self.taken = 0
        fields = dict(ArrowArrayStream._fields_)
        # Kept here: the struct holds only the functions' addresses.
        self.callbacks = (
            fields['get_schema'](self._get_schema),
            fields['get_next'](self._get_next),
            fields['get_last_error'](lambda stream: None),
            fields['release'](self._release),
        )
        self.stream = ArrowArrayStream(*self.callbacks, None)

    def _get_schema(self, stream, out):
        out[0] = self.arrays[0].schema
        return 0

    def _get_next(self, stream, out):
        if self.taken == len(self.arrays):
            out[0] = ArrowArray()
        else:
            out[0] = self.arrays[self.taken].array
            self.taken += 1
        return 0

    def _release(self, stream):
        stream.contents.release = ctypes.cast(None, type(stream.contents.release))

    def __arrow_c_stream__(self, requested_schema=None):
        return PyCapsule_New(ctypes.addressof(self.stream), b'arrow_array_stream', None)


def _column_values(fmt, array):
    """The values of one array of a binary-like format as bytes, None for a null: fixed_size_binary
    ('w:N'), binary or utf8 ('z', 'u'), large binary or utf8 ('Z', 'U'). Each buffer is copied out once."""
    first, count = array.offset, array.length
    validity, *buffers = array.buffers[: array.n_buffers]
    valid = [True] * count
    if validity:
        flags = ctypes.string_at(validity, (first + count + 7) // 8)
        valid = [bool(flags[row // 8] >> (row % 8) & 1) for row in range(first, first + count)]
    if fmt.startswith(b'w:'):
        width = int(fmt[2:])
        data = ctypes.string_at(buffers[0] + first * width, count * width) if count else b''
        starts = range(0, count * width, width)
        values = [data[start : start + width] for start in starts]
    else:
        offset_size = {b'z': 4, b'u': 4, b'Z': 8, b'U': 8}[fmt]
        raw = ctypes.string_at(buffers[0] + first * offset_size, (count + 1) * offset_size)
        offsets = [int.from_bytes(raw[i : i + offset_size], sys.byteorder) for i in range(0, len(raw), offset_size)]
        data = ctypes.string_at(buffers[1] + offsets[0], offsets[-1] - offsets[0]) if offsets[-1] > offsets[0] else b''
        values = [data[start - offsets[0] : end - offsets[0]] for start, end in itertools.pairwise(offsets)]
    return [value if is_valid else None for value, is_valid in zip(values, valid, strict=True)]


def exported_values(exportable):
    """The values of what exportable's __arrow_c_array__ exports (a binary-like column), as bytes."""
    schema_capsule, array_capsule = exportable.__arrow_c_array__()
    # The capsules own the structs, and release them when they go.
    schema = ctypes.cast(PyCapsule_GetPointer(schema_capsule, b'arrow_schema'), ctypes.POINTER(ArrowSchema))
    array = ctypes.cast(PyCapsule_GetPointer(array_capsule, b'arrow_array'), ctypes.POINTER(ArrowArray))
    return _column_values(schema.contents.format, array.contents)


def exported_stream_values(exportable):
    """The values of each array of what exportable's __arrow_c_stream__ exports, a list per array."""
    capsule = exportable.__arrow_c_stream__()
    stream = ctypes.cast(PyCapsule_GetPointer(capsule, b'arrow_array_stream'), ctypes.POINTER(ArrowArrayStream))
    schema = ArrowSchema()
    assert stream.contents.get_schema(stream, ctypes.pointer(schema)) == 0
    chunks = []
    while True:
        array = ArrowArray()
        assert stream.contents.get_next(stream, ctypes.pointer(array)) == 0
        if not array.release:
            break
        chunks.append(_column_values(schema.format, array))
        array.release(ctypes.pointer(array))
    schema.release(ctypes.pointer(schema))
    return chunks
