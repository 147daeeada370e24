"""Raw Arrow C Data Interface structs built with ctypes, for the tests of what producers may get wrong.

RawArray is one array of any type: a format, a length, buffers (bytes objects or None), children and a
dictionary (RawArrays themselves), an offset and a null count; it exports itself through
__arrow_c_array__ as a producer would, with release callbacks that record what was released (RELEASED).
"""

import ctypes
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
