# Type stubs for fastdigest, written by hand and checked against the runtime by
# `python -m mypy.stubtest fastdigest` (tests/test_typing.py).
#
# The signatures follow typeshed's hashlib/_hashlib stubs, per Python version as
# the runtime's: from 3.14 the constructors take `data` positionally or by
# keyword, plus the deprecated keyword `string`; before, `string`. Stubs are never executed, so importing typing_extensions
# here adds no runtime dependency: type checkers bundle it with typeshed.
#
# The docstrings are the API reference: the documentation site renders them (docs/reference/), so each
# says what a call returns and every exception it raises, as the runtime does (tests/test_api.py and
# tests/test_docs_examples.py check the behaviour they describe).

"""hashlib's MD5, SHA-1 and SHA-2, faster: a drop-in for hashlib, written in C.

Every public name of hashlib is here. MD5, SHA-1 and SHA-2 (md5, sha1, sha224, sha256, sha384,
sha512, sha512_224, sha512_256) are fastdigest's own; the rest of hashlib's namespace (sha3_*,
shake_*, blake2b, blake2s, scrypt, and new() or pbkdf2_hmac() for their names) is the standard
library's own objects, passed through untouched. Beyond hashlib: the one-shots digest() and
hexdigest(), digest_many(), digest_files(), digest_array(), digest_rows(), surrogate_key(), several algorithms in
one read (file_digest() with a tuple), resumable states (HASH.state(), from_state()), the GIL
threshold, what the CPU runs (implementation, batch_implementation, cpu_features), and a self-test
of every kernel this CPU runs (self_test()).
"""

import os
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence

# The rest of hashlib's namespace is the standard library's own objects at runtime, so it is typed by
# typeshed's hashlib stubs. (scrypt exists only where hashlib has it.)
from hashlib import _Hash as _StdlibHash
from hashlib import blake2b as blake2b
from hashlib import blake2s as blake2s
from hashlib import scrypt as scrypt
from hashlib import sha3_224 as sha3_224
from hashlib import sha3_256 as sha3_256
from hashlib import sha3_384 as sha3_384
from hashlib import sha3_512 as sha3_512
from hashlib import shake_128 as shake_128
from hashlib import shake_256 as shake_256
from typing import (
    Any,
    Literal,
    NamedTuple,
    Protocol,
    SupportsIndex,
    TypeAlias,
    TypeVar,
    final,
    overload,
    type_check_only,
)

from typing_extensions import Self

# Anything that exposes a contiguous buffer: bytes, bytearray, memoryview,
# array.array, mmap, numpy arrays. str is not one, and is rejected at runtime.
if sys.version_info >= (3, 12):
    from collections.abc import Buffer as _Buffer
else:
    from typing_extensions import Buffer as _Buffer

# dbt_utils.generate_surrogate_key(columns) of every row of an Arrow table, as
# utf8 lowercase hex with no nulls: a record batch gives a DigestArray, a stream
# (tables, DataFrames, relations) a DigestStream.
@overload
def surrogate_key(
    table: _ArrowArrayExportable,
    columns: Sequence[str],
    /,
    *,
    name: _Algorithm = 'md5',
    separator: str = '-',
    null: str = '_dbt_utils_surrogate_key_null_',
    threads: SupportsIndex | None = None,
) -> DigestArray:
    """Return dbt_utils' `generate_surrogate_key(columns)` of every row of an Arrow table, with no Python object per row.

    Row by row the key that dbt's SQL gives on DuckDB, PostgreSQL and Spark alike: each value cast
    to text as those engines cast it, a null written as the `null` token, the texts joined by
    `separator`, hashed with `name` and written in lowercase hex. The texts: strings as they are;
    integers of every width in decimal digits (`-128`); booleans `true`, `false`; dates
    `YYYY-MM-DD`; decimals with exactly their scale's digits after the point (`-0.50`, `5`). A
    type the engines write differently is refused: cast it first. The table's buffers are read in
    place, the rows hashed on up to `threads` threads with the GIL released, each thread in a
    working set of its own of fixed size; the result is one buffer that pyarrow, polars and DuckDB
    import without a copy.

    Args:
        table: An object with `__arrow_c_array__` (pyarrow record batches and struct arrays) or
            `__arrow_c_stream__` (pyarrow Tables, polars DataFrames, DuckDB relations) whose type
            is a struct of columns, or a pandas DataFrame (its columns named converted by
            pyarrow's Table.from_pandas, without the index).
        columns: The names of the columns to key on, in order (a list or tuple of str, one or
            more; a name may repeat).
        name: As for digest(): one of fastdigest's algorithms, or a fastdigest constructor. dbt
            uses md5.
        separator: What is written between two columns' texts.
        null: What is written for a null (dbt's variable `surrogate_key_treat_nulls_as_empty_strings`
            means `null=''`).
        threads: As for digest_array(): the most threads one array is hashed on, None for every
            CPU the process may run on, 1 for the calling thread alone.

    Returns:
        A DigestArray for a record batch, a DigestStream (one result array per input array) for a
            stream: utf8 lowercase hex, one row per row, no nulls, named `'surrogate_key'`.

    Raises:
        KeyError: the table has no column of one of the names (the message names it, and the
            table's columns).
        TypeError: table has no Arrow PyCapsule interface, or is a column (a pyarrow Array or
            ChunkedArray, a polars or pandas Series) rather than a table; columns is a str or holds anything but str; a column's type has no text that
            DuckDB, PostgreSQL and Spark agree on (floats, timestamps, times, durations, binary,
            decimals of negative scale or of scale equal to their precision, nested and
            dictionary-encoded columns: the message says why, cast it first); separator or null is
            not a str; name or threads as for digest_array().
        ValueError: columns is empty; two columns of the table have the name asked for; a date is
            outside years 1 to 9999 or a date64 value is no whole day (the message names the row
            and column); name, threads or the producer's C structs as for digest_array().
        MemoryError: the result does not fit in memory, or a stream reports ENOMEM.
        OSError: a stream reports any other error, with the producer's message.
    """

@overload
def surrogate_key(
    table: _ArrowStreamExportable,
    columns: Sequence[str],
    /,
    *,
    name: _Algorithm = 'md5',
    separator: str = '-',
    null: str = '_dbt_utils_surrogate_key_null_',
    threads: SupportsIndex | None = None,
) -> DigestStream: ...

_ReadableBuffer: TypeAlias = _Buffer

__all__ = [
    'HASH',
    'DigestArray',
    'DigestStream',
    'KernelReport',
    'SelfTestReport',
    'algorithms_available',
    'algorithms_guaranteed',
    'batch_implementation',
    'blake2b',
    'blake2s',
    'cpu_features',
    'digest',
    'digest_array',
    'digest_files',
    'digest_many',
    'digest_rows',
    'digest_tree',
    'file_digest',
    'fingerprint',
    'from_state',
    'get_gil_minsize',
    'get_include',
    'git_object_id',
    'git_object_ids',
    'git_tree_id',
    'hexdigest',
    'implementation',
    'json_digest',
    'json_digest_many',
    'md5',
    'new',
    'pbkdf2_hmac',
    'S3ETagMatch',
    's3_checksum',
    's3_etag',
    's3_etag_matches',
    's3_part_digests',
    'self_test',
    'set_gil_minsize',
    'sha1',
    'sha224',
    'sha256',
    'sha384',
    'sha3_224',
    'sha3_256',
    'sha3_384',
    'sha3_512',
    'sha512',
    'sha512_224',
    'sha512_256',
    'shake_128',
    'shake_256',
    'surrogate_key',
]
# As hashlib's __all__ from 3.15.
if sys.version_info >= (3, 15):
    __all__ += ['scrypt']

__version__: str
"""The version of fastdigest, as in the package metadata (for example `'0.1.0'`)."""

algorithms_guaranteed: frozenset[str]
"""hashlib.algorithms_guaranteed, as a frozenset: the names every Python's hashlib has.

Like hashlib's, it leaves out sha512_224 and sha512_256, which fastdigest always has; the keys of
`implementation` are fastdigest's algorithms. Looked up in hashlib on first use.
"""

algorithms_available: frozenset[str]
"""hashlib.algorithms_available and fastdigest's algorithms, as a frozenset: every name new() accepts.

Looked up in hashlib on first use.
"""

implementation: dict[str, str]
"""The kernel each of fastdigest's algorithms runs in this process for one message at a time (hash
objects, the one-shots, HMAC, PBKDF2, files), by algorithm name.

Chosen once, at import, from the CPU's features (less those FASTDIGEST_DISABLE hides), or the
portable C everywhere when FASTDIGEST_BACKEND=portable. A value names the instruction set the
kernel uses (`'shani'`: the SHA extensions, `'avx2'`, `'ssse3'`, `'avx512'`, `'sha512ni'`: Intel's
SHA512 instructions, `'armv8'`), or is `'portable'` (plain C) or, for MD5, `'tuned'` (plain C
arranged for MD5's critical path: no CPU has MD5 instructions), for example `{'md5': 'tuned',
'sha1': 'shani', ..., 'sha512': 'avx512', ...}`. docs/kernels.md lists every kernel.
"""

batch_implementation: dict[str, str]
"""The kernel that digest_many(), hmac.digest_many(), digest_array(), digest_rows() and
surrogate_key() run in this process, by algorithm name.

A multi-buffer kernel that hashes several messages side by side, named after its instruction set
and the number of messages it hashes at once (`'avx512_x16'`: 16 in AVX-512 lanes, `'avx512_x8'`,
`'avx2_x8'`, `'avx2_x4'`, `'shani_x2'`: two interleaved through the SHA extensions) or, where this
CPU has none for the algorithm (or its known-answer check refused it), the single-stream kernel of
`implementation`. Made on first use, which checks the multi-buffer kernels that no batch has
checked yet.
"""

cpu_features: frozenset[str]
"""The CPU features the kernels may use: those the CPU and operating system have, less the ones
FASTDIGEST_DISABLE names.

The names are `'ssse3'`, `'sse41'`, `'avx'`, `'avx2'`, `'bmi1'`, `'bmi2'`, `'shani'`, `'avx512'`
(AVX-512 F, VL and BW together), `'sha512ni'` (Intel's SHA512 instructions), `'armsha1'`,
`'armsha2'` and `'armsha512'`.
FASTDIGEST_BACKEND=portable does not change it.
"""

class KernelReport(NamedTuple):
    """What `self_test()` found of one kernel: a single-stream kernel (as `implementation` names
    them) or a multi-buffer one (as `batch_implementation` names them)."""

    family: str
    """The hash family whose algorithms the kernel hashes: `'md5'`, `'sha1'`, `'sha256'` (SHA-224 and
    SHA-256) or `'sha512'` (SHA-384, SHA-512, SHA-512/224 and SHA-512/256)."""
    kernel: str
    """The kernel's name, for example `'shani'` or `'avx512_x16'`."""
    lanes: int
    """1 for a single-stream kernel; for a multi-buffer kernel, the messages it hashes side by side."""
    active: bool
    """Whether this process hashes with it: it is in `implementation` or `batch_implementation`."""
    ran: bool
    """Whether it was run: False where this CPU lacks its instructions, or FASTDIGEST_DISABLE hides
    them."""
    checks: int
    """How many results were compared."""
    failures: tuple[str, ...]
    """One line for each result that differed, saying which input and what came out; empty when
    every result matched."""
    @property
    def passed(self) -> bool:
        """True when the kernel ran and every result matched."""

class SelfTestReport(NamedTuple):
    """What `self_test()` found: a `KernelReport` for every kernel of this build."""

    kernels: tuple[KernelReport, ...]
    """Every kernel of the build, family by family, each family's in the order the import prefers
    them; those this CPU does not run have `ran` False."""
    seed: int
    """The seed of the random inputs: `self_test(seed=...)` runs the same inputs again."""
    references: Mapping[str, str]
    """What each algorithm's results were compared with, by algorithm name: `'hashlib'` (the
    standard library's hashlib, hmac and hashlib.pbkdf2_hmac), or `'portable'` where this Python's
    hashlib lacks the algorithm (this build's portable C kernel, with HMAC and PBKDF2 computed over
    it by the self-test itself)."""
    @property
    def passed(self) -> bool:
        """True when every kernel that ran passed: what `python -m fastdigest --self-test` exits 0
        for."""

def self_test(*, seed: int | None = None) -> SelfTestReport:
    """Run every kernel this CPU runs against known answers and the standard library: what to run on
    a new machine, or after building fastdigest with another compiler.

    fastdigest checks the kernels it selects against a few known answers (the import the
    single-stream ones, a family's first batch its multi-buffer one), and warns of any it refuses. This goes further, through every kernel of the build whose instructions this CPU has
    (less those FASTDIGEST_DISABLE hides), selected or not: the same known answers, then messages of
    random lengths at random alignments against the standard library's hashlib, and HMAC and PBKDF2
    (with each kernel's own code for them, where it has some) against hmac and
    hashlib.pbkdf2_hmac; a multi-buffer kernel hashes batches of such messages, and derives PBKDF2
    keys through its lanes where it can. An algorithm this Python's hashlib lacks is compared with
    this build's portable C kernel instead, and the report's `references` say which was used. It takes well under a second on a current CPU.
    `python -m fastdigest --self-test` prints the report and exits 1 if anything differed.

    The kernels are run directly, never installed: what this process hashes with stays as it was,
    so other threads may hash while it runs, and several self-tests may run at once.

    Args:
        seed: The seed of the random inputs; by default a new one each time (the report says which).

    Returns:
        The report: `.passed` is True when every result matched; `.kernels` has the details.
        A wrong result is reported there, never raised.
    """

def get_include() -> str:
    """Return the folder of fastdigest's C API: the header `fastdigest.h` and the Cython declarations
    `fastdigest.pxd`.

    Give it to the compiler (`include_dirs=[fastdigest.get_include()]` of a setuptools `Extension`)
    and, for Cython, to `cythonize(..., include_path=[fastdigest.get_include()])`; see
    [From C and Cython](../c-api.md).

    Returns:
        The absolute path of the folder `include` inside the installed package.
    """

_GIL_MINSIZE: int
"""The default GIL threshold, 2048 bytes (hashlib's HASHLIB_GIL_MINSIZE)."""

def get_gil_minsize() -> int:
    """Return the GIL threshold in force for the whole process.

    Updates, constructors and the other calls that hash this many bytes or more do so with the
    GIL released (on a free-threaded build: with the thread detached).

    Returns:
        The threshold in bytes: 2048 unless FASTDIGEST_GIL_MINSIZE (read at import) or
            set_gil_minsize() changed it.
    """

def set_gil_minsize(minsize: SupportsIndex, /) -> int:
    """Set the GIL threshold for the whole process: every thread and interpreter.

    0 releases the GIL for every input; a value larger than any buffer never releases it (an int
    too large for the platform's ssize_t means the same).

    Args:
        minsize: The new threshold in bytes: an int, or any object with `__index__`.

    Returns:
        The threshold it replaces.

    Raises:
        TypeError: minsize is not an integer (`'str' object cannot be interpreted as an integer`).
        ValueError: minsize is negative (`set_gil_minsize() argument must be 0 or more`).
    """

@final
class HASH:
    """A hash object of one of fastdigest's algorithms, as hashlib's are.

    Made by the constructors (md5() ... sha512_256()), new(), file_digest() and from_state();
    calling HASH itself raises TypeError (`cannot create 'fastdigest.HASH' instances`). Beyond
    hashlib's objects, it has state(), and it can be pickled and copied with copy.copy() and
    copy.deepcopy(). Every method may be called from several threads at once: each object has a
    lock, and every update lands whole.
    """

    @property
    def name(self) -> str:
        """The algorithm's name as hashlib spells it: `'md5'`, `'sha1'`, ..., `'sha512_256'`."""
    @property
    def digest_size(self) -> int:
        """The size of the digest in bytes (16 for MD5, 20 for SHA-1, 28 to 64 for SHA-2)."""
    @property
    def block_size(self) -> int:
        """The algorithm's block size in bytes: 64, or 128 for the SHA-512 family."""
    def update(self, data: _ReadableBuffer, /) -> None:
        """Hash more data: any C-contiguous buffer.

        From get_gil_minsize() bytes on (2048 unless changed) the GIL is released while it hashes,
        and the buffer stays exported: resizing a bytearray being hashed raises BufferError.

        Args:
            data: bytes, bytearray, memoryview, array.array, mmap, a NumPy array, ...

        Raises:
            TypeError: data is a str (`Strings must be encoded before hashing`) or has no buffer
                (`object supporting the buffer API required`).
            BufferError: data is not C-contiguous.
        """
    def digest(self) -> bytes:
        """Return the digest of the data hashed so far.

        The object is not consumed: update() may follow, and digest() again.

        Returns:
            digest_size bytes.
        """
    def hexdigest(self) -> str:
        """Return the digest of the data hashed so far as lowercase hexadecimal digits.

        Returns:
            A str of 2 * digest_size characters.
        """
    def copy(self) -> Self:
        """Return an independent copy of the object, at the same point of the same message."""
    def state(self) -> bytes:
        """Return the object's state in fastdigest's portable state format (version 1).

        from_state() makes an object that continues from it, in any process, on any machine and
        version of Python; pickling and copy use it too. The state holds the buffered tail of the
        data hashed so far (less than one block), so keep it as private as that data.

        Returns:
            16 + C + T bytes: a 16-byte header, the C bytes of chaining words and the T buffered
                bytes (32 to 207 bytes in all, depending on the algorithm).
        """
    def __copy__(self) -> Self:
        """copy.copy(): the same as copy()."""
    def __deepcopy__(self, memo: dict[int, Any], /) -> Self:
        """copy.deepcopy(): the same as copy(); the state refers to no other object."""

# hashlib's names of fastdigest's algorithms. new() accepts them, and their aliases ('sha-256', OIDs), as
# hashlib.new() does; a name typed as a plain str may be one of them or any other.
_FastdigestName: TypeAlias = Literal['md5', 'sha1', 'sha224', 'sha256', 'sha384', 'sha512', 'sha512_224', 'sha512_256']

# fastdigest's hash object for its algorithms; any other name, with every keyword, goes to
# hashlib.new, whose object (typed as typeshed types hashlib.new's) or exception it returns. The
# signatures are those of this Python's hashlib: from 3.14, new(name, *args, **kwargs) in front of
# OpenSSL's new(name, data=b'', *, usedforsecurity=True, string=None), and the constructors take
# data or (deprecated from 3.15) string; before 3.14, new(name, data=b'', **kwargs), whose one keyword
# for fastdigest's algorithms is usedforsecurity, and constructors that take string. (3.13 took 3.14's signatures in a
# patch release, which fastdigest follows at run time; a stub can only tell minor versions apart, so these
# give 3.13 its first releases' signatures.)
# The reference (docs/reference) renders the last definition of each name: the newest Python's.
if sys.version_info < (3, 14):
    @overload
    def new(name: _FastdigestName, data: _ReadableBuffer = b'', *, usedforsecurity: bool = True) -> HASH: ...
    @overload
    def new(name: str, data: _ReadableBuffer = b'', **kwargs: Any) -> HASH | _StdlibHash: ...
    def md5(string: _ReadableBuffer = b'', *, usedforsecurity: bool = True) -> HASH: ...
    def sha1(string: _ReadableBuffer = b'', *, usedforsecurity: bool = True) -> HASH: ...
    def sha224(string: _ReadableBuffer = b'', *, usedforsecurity: bool = True) -> HASH: ...
    def sha256(string: _ReadableBuffer = b'', *, usedforsecurity: bool = True) -> HASH: ...
    def sha384(string: _ReadableBuffer = b'', *, usedforsecurity: bool = True) -> HASH: ...
    def sha512(string: _ReadableBuffer = b'', *, usedforsecurity: bool = True) -> HASH: ...
    def sha512_224(string: _ReadableBuffer = b'', *, usedforsecurity: bool = True) -> HASH: ...
    def sha512_256(string: _ReadableBuffer = b'', *, usedforsecurity: bool = True) -> HASH: ...

else:
    @overload
    def new(
        name: _FastdigestName,
        data: _ReadableBuffer = b'',
        *,
        usedforsecurity: bool = True,
        string: _ReadableBuffer | None = None,
    ) -> HASH:
        """Return a new hash object of the named algorithm, optionally fed data, as hashlib.new() does.

        For fastdigest's algorithms, name is any spelling hashlib.new() accepts for them: OpenSSL's in
        any letter case (`'sha256'`, `'SHA256'`, `'Sha-256'`, `'SHA2-256'`, `'sha512-224'`, the OIDs
        such as `'2.16.840.1.101.3.4.2.1'`), and CPython's `'sha512_224'` and `'sha512_256'` in lower
        or upper case only (`'Sha512_224'` is refused, as hashlib refuses it). Any other name goes to the standard library's hashlib.new()
        with every argument as given (`new('sha3_256', data)`, `new('blake2b', digest_size=16)`), which
        returns its own object or raises its own error.

        Args:
            name: The algorithm's name.
            data: Initial data: any C-contiguous buffer.
            usedforsecurity: Accepted as hashlib accepts it; fastdigest has no FIPS mode and restricts
                nothing.
            string: The old name of data, as in hashlib: give one or the other. Python 3.15's hashlib
                deprecates it, and so does fastdigest there (DeprecationWarning).

        Returns:
            A HASH for fastdigest's algorithms; for any other name, what hashlib.new() returns.

        Raises:
            TypeError: name is not a str (`new() argument 'name' must be str, not int`); data is a
                str or has no buffer (as update()); data and string are both given (`'data' and
                'string' are mutually exclusive ...`); an unknown keyword or too many
                arguments, in the words of this Python's hashlib.
            BufferError: data is not C-contiguous.
            ValueError: name is known neither to fastdigest nor to hashlib (`unsupported hash type
                NAME`; from Python 3.15 `unsupported hash algorithm NAME`, as hashlib words it).
        """
    @overload
    def new(name: str, data: _ReadableBuffer = b'', **kwargs: Any) -> HASH | _StdlibHash: ...
    def md5(
        data: _ReadableBuffer = b'', *, usedforsecurity: bool = True, string: _ReadableBuffer | None = None
    ) -> HASH:
        """Return a new MD5 hash object, optionally fed data: hashlib.md5().

        Args:
            data: Initial data: any C-contiguous buffer (bytes, bytearray, memoryview, array.array,
                mmap, a NumPy array, ...). Before Python 3.14 this parameter is named string, as in
                that Python's hashlib, and data is no keyword.
            usedforsecurity: Accepted as hashlib accepts it; fastdigest has no FIPS mode and restricts
                nothing.
            string: The old name of data, as in hashlib: give one or the other. Python 3.15's hashlib
                deprecates it, and so does fastdigest there (DeprecationWarning).

        Returns:
            A HASH whose name is `'md5'` and digest_size 16.

        Raises:
            TypeError: data is a str (`Strings must be encoded before hashing`) or has no buffer
                (`object supporting the buffer API required`); data and string are both given
                (`'data' and 'string' are mutually exclusive ...`); an unknown keyword or more than
                one positional argument.
            BufferError: data is not C-contiguous.
        """
    def sha1(
        data: _ReadableBuffer = b'', *, usedforsecurity: bool = True, string: _ReadableBuffer | None = None
    ) -> HASH:
        """Return a new SHA-1 hash object, optionally fed data: hashlib.sha1().

        Args:
            data: Initial data: any C-contiguous buffer (bytes, bytearray, memoryview, array.array,
                mmap, a NumPy array, ...). Before Python 3.14 this parameter is named string, as in
                that Python's hashlib, and data is no keyword.
            usedforsecurity: Accepted as hashlib accepts it; fastdigest has no FIPS mode and restricts
                nothing.
            string: The old name of data, as in hashlib: give one or the other. Python 3.15's hashlib
                deprecates it, and so does fastdigest there (DeprecationWarning).

        Returns:
            A HASH whose name is `'sha1'` and digest_size 20.

        Raises:
            TypeError: data is a str (`Strings must be encoded before hashing`) or has no buffer
                (`object supporting the buffer API required`); data and string are both given
                (`'data' and 'string' are mutually exclusive ...`); an unknown keyword or more than
                one positional argument.
            BufferError: data is not C-contiguous.
        """
    def sha224(
        data: _ReadableBuffer = b'', *, usedforsecurity: bool = True, string: _ReadableBuffer | None = None
    ) -> HASH:
        """Return a new SHA-224 hash object, optionally fed data: hashlib.sha224().

        Args:
            data: Initial data: any C-contiguous buffer (bytes, bytearray, memoryview, array.array,
                mmap, a NumPy array, ...). Before Python 3.14 this parameter is named string, as in
                that Python's hashlib, and data is no keyword.
            usedforsecurity: Accepted as hashlib accepts it; fastdigest has no FIPS mode and restricts
                nothing.
            string: The old name of data, as in hashlib: give one or the other. Python 3.15's hashlib
                deprecates it, and so does fastdigest there (DeprecationWarning).

        Returns:
            A HASH whose name is `'sha224'` and digest_size 28.

        Raises:
            TypeError: data is a str (`Strings must be encoded before hashing`) or has no buffer
                (`object supporting the buffer API required`); data and string are both given
                (`'data' and 'string' are mutually exclusive ...`); an unknown keyword or more than
                one positional argument.
            BufferError: data is not C-contiguous.
        """
    def sha256(
        data: _ReadableBuffer = b'', *, usedforsecurity: bool = True, string: _ReadableBuffer | None = None
    ) -> HASH:
        """Return a new SHA-256 hash object, optionally fed data: hashlib.sha256().

        Args:
            data: Initial data: any C-contiguous buffer (bytes, bytearray, memoryview, array.array,
                mmap, a NumPy array, ...). Before Python 3.14 this parameter is named string, as in
                that Python's hashlib, and data is no keyword.
            usedforsecurity: Accepted as hashlib accepts it; fastdigest has no FIPS mode and restricts
                nothing.
            string: The old name of data, as in hashlib: give one or the other. Python 3.15's hashlib
                deprecates it, and so does fastdigest there (DeprecationWarning).

        Returns:
            A HASH whose name is `'sha256'` and digest_size 32.

        Raises:
            TypeError: data is a str (`Strings must be encoded before hashing`) or has no buffer
                (`object supporting the buffer API required`); data and string are both given
                (`'data' and 'string' are mutually exclusive ...`); an unknown keyword or more than
                one positional argument.
            BufferError: data is not C-contiguous.
        """
    def sha384(
        data: _ReadableBuffer = b'', *, usedforsecurity: bool = True, string: _ReadableBuffer | None = None
    ) -> HASH:
        """Return a new SHA-384 hash object, optionally fed data: hashlib.sha384().

        Args:
            data: Initial data: any C-contiguous buffer (bytes, bytearray, memoryview, array.array,
                mmap, a NumPy array, ...). Before Python 3.14 this parameter is named string, as in
                that Python's hashlib, and data is no keyword.
            usedforsecurity: Accepted as hashlib accepts it; fastdigest has no FIPS mode and restricts
                nothing.
            string: The old name of data, as in hashlib: give one or the other. Python 3.15's hashlib
                deprecates it, and so does fastdigest there (DeprecationWarning).

        Returns:
            A HASH whose name is `'sha384'` and digest_size 48.

        Raises:
            TypeError: data is a str (`Strings must be encoded before hashing`) or has no buffer
                (`object supporting the buffer API required`); data and string are both given
                (`'data' and 'string' are mutually exclusive ...`); an unknown keyword or more than
                one positional argument.
            BufferError: data is not C-contiguous.
        """
    def sha512(
        data: _ReadableBuffer = b'', *, usedforsecurity: bool = True, string: _ReadableBuffer | None = None
    ) -> HASH:
        """Return a new SHA-512 hash object, optionally fed data: hashlib.sha512().

        Args:
            data: Initial data: any C-contiguous buffer (bytes, bytearray, memoryview, array.array,
                mmap, a NumPy array, ...). Before Python 3.14 this parameter is named string, as in
                that Python's hashlib, and data is no keyword.
            usedforsecurity: Accepted as hashlib accepts it; fastdigest has no FIPS mode and restricts
                nothing.
            string: The old name of data, as in hashlib: give one or the other. Python 3.15's hashlib
                deprecates it, and so does fastdigest there (DeprecationWarning).

        Returns:
            A HASH whose name is `'sha512'` and digest_size 64.

        Raises:
            TypeError: data is a str (`Strings must be encoded before hashing`) or has no buffer
                (`object supporting the buffer API required`); data and string are both given
                (`'data' and 'string' are mutually exclusive ...`); an unknown keyword or more than
                one positional argument.
            BufferError: data is not C-contiguous.
        """
    def sha512_224(
        data: _ReadableBuffer = b'', *, usedforsecurity: bool = True, string: _ReadableBuffer | None = None
    ) -> HASH:
        """Return a new SHA-512/224 hash object, optionally fed data: hashlib.sha512_224(), which hashlib has only as new('sha512_224').

        Args:
            data: Initial data: any C-contiguous buffer (bytes, bytearray, memoryview, array.array,
                mmap, a NumPy array, ...). Before Python 3.14 this parameter is named string, as in
                that Python's hashlib, and data is no keyword.
            usedforsecurity: Accepted as hashlib accepts it; fastdigest has no FIPS mode and restricts
                nothing.
            string: The old name of data, as in hashlib: give one or the other. Python 3.15's hashlib
                deprecates it, and so does fastdigest there (DeprecationWarning).

        Returns:
            A HASH whose name is `'sha512_224'` and digest_size 28.

        Raises:
            TypeError: data is a str (`Strings must be encoded before hashing`) or has no buffer
                (`object supporting the buffer API required`); data and string are both given
                (`'data' and 'string' are mutually exclusive ...`); an unknown keyword or more than
                one positional argument.
            BufferError: data is not C-contiguous.
        """
    def sha512_256(
        data: _ReadableBuffer = b'', *, usedforsecurity: bool = True, string: _ReadableBuffer | None = None
    ) -> HASH:
        """Return a new SHA-512/256 hash object, optionally fed data: hashlib.sha512_256(), which hashlib has only as new('sha512_256').

        Args:
            data: Initial data: any C-contiguous buffer (bytes, bytearray, memoryview, array.array,
                mmap, a NumPy array, ...). Before Python 3.14 this parameter is named string, as in
                that Python's hashlib, and data is no keyword.
            usedforsecurity: Accepted as hashlib accepts it; fastdigest has no FIPS mode and restricts
                nothing.
            string: The old name of data, as in hashlib: give one or the other. Python 3.15's hashlib
                deprecates it, and so does fastdigest there (DeprecationWarning).

        Returns:
            A HASH whose name is `'sha512_256'` and digest_size 32.

        Raises:
            TypeError: data is a str (`Strings must be encoded before hashing`) or has no buffer
                (`object supporting the buffer API required`); data and string are both given
                (`'data' and 'string' are mutually exclusive ...`); an unknown keyword or more than
                one positional argument.
            BufferError: data is not C-contiguous.
        """

# hashlib.pbkdf2_hmac's signature (typeshed's hashlib stub); names fastdigest lacks are
# handed to hashlib.pbkdf2_hmac.
def pbkdf2_hmac(
    hash_name: str, password: _ReadableBuffer, salt: _ReadableBuffer, iterations: int, dklen: int | None = None
) -> bytes:
    """Derive a key from a password with PBKDF2-HMAC (PKCS #5 v2.0, RFC 8018), as hashlib.pbkdf2_hmac().

    For fastdigest's algorithms the whole derivation runs in C without the GIL; any other name goes to
    the standard library's hashlib.pbkdf2_hmac() with the arguments as given.

    Args:
        hash_name: The HMAC's hash, by any name new() accepts.
        password: The password: any C-contiguous buffer.
        salt: The salt: any C-contiguous buffer.
        iterations: The iteration count, 1 to 2**31 - 1.
        dklen: The length of the derived key in bytes; None for the hash's digest size.

    Returns:
        The derived key, dklen bytes.

    Raises:
        TypeError: hash_name is not a str; password or salt is a str or has no buffer (`a
            bytes-like object is required, not 'str'`); iterations or dklen is not an integer.
        ValueError: iterations is less than 1 (`iteration value must be greater than 0.`); dklen
            is less than 1 (`key length must be greater than 0.`); hash_name is known neither to
            fastdigest nor to hashlib (hashlib's error: on OpenSSL builds
            hashlib.UnsupportedDigestmodError, a ValueError).
        BufferError: password or salt is not C-contiguous.
        OverflowError: iterations is 2**31 or more (`iteration value is too great.`); dklen is
            2**31 or more (`key length is too great.`); password or salt is longer than
            2**31 - 1 bytes.
    """

def from_state(data: _ReadableBuffer, /) -> HASH:
    """Return a new hash object that continues from a state saved by HASH.state().

    The object continues exactly where the saved one stopped, and is independent of it. An accepted
    state exports back byte for byte. The format has no checksum: store states with whatever
    integrity protection your storage needs.

    Args:
        data: A state in fastdigest's portable format: any C-contiguous buffer.

    Returns:
        A HASH of the state's algorithm.

    Raises:
        TypeError: data is not a bytes-like object (`from_state() argument must be a bytes-like
            object, not 'str'`).
        ValueError: data is not a valid state, with a message that says what is wrong and starts
            `invalid fastdigest state:`. The magic is not `FDST`; it is shorter than the header, or
            shorter or longer than its header says; the version or the algorithm is unknown; the
            buffered length is not less than the block size, or not the byte count modulo the
            block size; the byte count is 2**61 or more for SHA-1 or SHA-224/256; a state of less
            than one block does not hold the algorithm's initial chaining values.
    """

# file_digest accepts what hashlib.file_digest accepts: a binary file opened for
# reading, or an object with getbuffer() such as io.BytesIO; and a digest given
# by name, or as a constructor of any hashlib-like object (typeshed's _HashObject),
# whose kind of object it then returns.
@type_check_only
class _BytesIOLike(Protocol):
    def getbuffer(self) -> _ReadableBuffer: ...

@type_check_only
class _FileDigestFileObj(Protocol):
    def readinto(self, buf: bytearray, /) -> int: ...
    def readable(self) -> bool: ...

@type_check_only
class _HashObject(Protocol):
    @property
    def digest_size(self) -> int: ...
    @property
    def block_size(self) -> int: ...
    @property
    def name(self) -> str: ...
    def copy(self) -> Self: ...
    def digest(self) -> bytes: ...
    def hexdigest(self) -> str: ...
    def update(self, obj: _ReadableBuffer, /) -> None: ...

_HashObjectT = TypeVar('_HashObjectT', bound=_HashObject)

@overload
def file_digest(
    fileobj: _BytesIOLike | _FileDigestFileObj, digest: _FastdigestName, /, *, _bufsize: int = 262144
) -> HASH:
    """Hash the contents of a binary file, as hashlib.file_digest() (Python 3.11+) does, on any Python.

    The file is read with readinto() into one reused buffer; io.BytesIO is hashed in place. Reads
    and updates of get_gil_minsize() bytes or more run without the GIL.

    Several algorithms in one read: with a tuple of names or callables as digest, each block read
    is fed to every hash object, and the result is a tuple of them in the same order
    (`md5, sha256 = file_digest(f, ('md5', 'sha256'))`); hashlib has no such form.

    Args:
        fileobj: A file opened for reading in binary mode, or an object with getbuffer() such as
            io.BytesIO.
        digest: An algorithm name as new() takes it (any name hashlib knows), or a callable that
            returns a new hash object (fastdigest.sha256, hashlib.sha3_256, ...); or a tuple of
            them.

    Returns:
        The hash object, fed the whole file: a HASH for fastdigest's algorithms, else what digest
            (or hashlib.new()) returns; for a tuple, a tuple of those.

    Raises:
        ValueError: fileobj is not a file opened for reading in binary mode (`'<...>' is not a
            file-like object in binary reading mode.`); digest is an unknown name, or an empty
            tuple (`file_digest() needs at least one algorithm, got ()`).
        BlockingIOError: fileobj is non-blocking and has no data ready (`I/O operation would
            block.`).
        OSError: what reading fileobj raises.
    """

@overload
def file_digest(
    fileobj: _BytesIOLike | _FileDigestFileObj, digest: str, /, *, _bufsize: int = 262144
) -> HASH | _StdlibHash: ...
@overload
def file_digest(
    fileobj: _BytesIOLike | _FileDigestFileObj, digest: Callable[[], _HashObjectT], /, *, _bufsize: int = 262144
) -> _HashObjectT: ...
@overload
def file_digest(
    fileobj: _BytesIOLike | _FileDigestFileObj,
    digest: tuple[str | Callable[[], _HashObject], ...],
    /,
    *,
    _bufsize: int = 262144,
) -> tuple[_HashObject, ...]: ...

# The one-shots: new(name, data).digest() and .hexdigest() in one call. name is
# an algorithm name as for new(), or one of the constructors above.
_Algorithm: TypeAlias = str | Callable[..., HASH]

def digest(name: _Algorithm, data: _ReadableBuffer, /) -> bytes:
    """Return the digest of data: new(name, data).digest() in one call, with no hash object made.

    Args:
        name: One of fastdigest's algorithms, by any name new() accepts for it, or one of fastdigest's
            constructors (fastdigest.sha256).
        data: The message: any C-contiguous buffer.

    Returns:
        The digest, as bytes.

    Raises:
        ValueError: name is not one of fastdigest's algorithms (`unsupported hash type NAME`; the
            one-shots do not pass other names to hashlib).
        TypeError: name is neither a str nor a fastdigest constructor (`digest() argument 1 must
            be str or a fastdigest constructor, not ...`); data is a str or has no buffer; not
            exactly two arguments (`digest expected 2 arguments, got 1`).
        BufferError: data is not C-contiguous.
    """

def hexdigest(name: _Algorithm, data: _ReadableBuffer, /) -> str:
    """Return the digest of data as hex digits: new(name, data).hexdigest() in one call.

    Args:
        name: As for digest().
        data: The message: any C-contiguous buffer.

    Returns:
        The digest as lowercase hexadecimal digits.

    Raises:
        ValueError: name is not one of fastdigest's algorithms (`unsupported hash type NAME`).
        TypeError: name is neither a str nor a fastdigest constructor; data is a str or has no
            buffer; not exactly two arguments.
        BufferError: data is not C-contiguous.
    """

# What digest_many() takes as messages: any iterable of buffers, or a 2-D buffer whose rows are the messages (the
# stub cannot say the number of dimensions: a 1-D buffer is iterated, and bytes give ints, which are refused).
_Messages: TypeAlias = Iterable[_ReadableBuffer] | _Buffer
# out=: any writable buffer, returned as it was given.
_OutT = TypeVar('_OutT', bound=_Buffer)

@overload
def digest_many(
    name: _Algorithm,
    messages: _Messages,
    /,
    *,
    hex: Literal[False] = False,
    threads: SupportsIndex | None = None,
    out: None = None,
) -> list[bytes]:
    """Return the digests of many messages, in order: `[digest(name, m) for m in messages]` in one call.

    With hex=True, their hex digits instead: `[hexdigest(name, m) for m in messages]`, a list of str.

    Multi-buffer kernels hash several messages side by side where the CPU has them
    (batch_implementation), and the GIL is released while a batch is hashed. A list or tuple is
    read in place, and so are the rows of a 2-D buffer; any other iterable is gathered into a tuple
    first. A batch with enough work is hashed on several threads: other threads hash it chunk by
    chunk while the calling thread reads the next chunk's items.

    With out=, the digests are written one after another into that buffer, which is returned: no
    object is made per message (with hex=True, each digest's hex digits as ASCII bytes). It is held
    (exported) from the start of the call to its end, so a bytearray cannot be resized meanwhile; on
    an error, the digests of the messages before the bad one may have been written, and none after
    it.

    Args:
        name: As for digest(): one of fastdigest's algorithms, or a fastdigest constructor.
        messages: Any iterable of C-contiguous buffers; or a 2-D buffer whose rows are each
            contiguous (a C-contiguous NumPy `(n, k)` array, rows of one picked at a stride, a
            memoryview cast to two dimensions), which is n messages of its rows' bytes, read in
            place. Any other buffer is iterated, as before: a NumPy array's items, a bytes object's
            ints (refused as items).
        hex: False for each digest's bytes, True for its lowercase hex digits (taken for its truth,
            as digest_array() takes it).
        threads: The most threads the batch is hashed on, the calling thread included: None for
            every CPU the process may run on, 1 for the calling thread alone. A batch gets one
            thread for every MiB or so of work (each message counts its length plus one block), so
            a small one stays on the calling thread; the digests and errors are the same for any
            value.
        out: None for a list; or a writable C-contiguous buffer of exactly n x digest_size bytes
            (n x 2 x digest_size with hex=True), of any shape and item size (a bytearray, a
            memoryview, a NumPy `(n, digest_size)` uint8 array, or with hex=True an `(n,)` array of
            dtype `S64` for SHA-256), that shares no byte with any message.

    Returns:
        A list of digests, one bytes object per message (with hex=True one str), in the messages'
        order; with out=, out.

    Raises:
        ValueError: name is not one of fastdigest's algorithms (`unsupported hash type NAME`); threads
            is less than 1; out is not exactly the digests' size (`digest_many() argument 'out'
            must be 64 bytes long (2 digests of 32 bytes), not 63`); an item shares memory with
            out (`digest_many() item 3 shares memory with argument 'out'`).
        TypeError: name is neither a str nor a fastdigest constructor; messages is not iterable;
            an item is a str or has no buffer, named by its position (`digest_many() item 3:
            Strings must be encoded before hashing`: the first such item, whatever the threads);
            threads is a bool, a float or anything without `__index__`; out is read-only or no
            buffer (`digest_many() argument 'out' must be read-write bytes-like object, not
            bytes`) or not C-contiguous (`digest_many() argument 'out' must be contiguous buffer,
            not memoryview`).
        BufferError: an item is not C-contiguous (`digest_many() item N: ...`).
        RuntimeError: another thread changed the length of the messages list during the call
            (`digest_many() list changed size during the call`).
    """

@overload
def digest_many(
    name: _Algorithm,
    messages: _Messages,
    /,
    *,
    hex: Literal[True],
    threads: SupportsIndex | None = None,
    out: None = None,
) -> list[str]: ...
@overload
def digest_many(
    name: _Algorithm, messages: _Messages, /, *, hex: bool, threads: SupportsIndex | None = None, out: None = None
) -> list[bytes] | list[str]: ...
@overload
def digest_many(
    name: _Algorithm, messages: _Messages, /, *, hex: bool = False, threads: SupportsIndex | None = None, out: _OutT
) -> _OutT: ...

# What json.dumps takes as default=: a function of one object that returns something it can write.
_JSONDefault: TypeAlias = Callable[[Any], Any]

@overload
def json_digest(
    name: _Algorithm,
    obj: object,
    /,
    *,
    skipkeys: bool = False,
    ensure_ascii: bool = True,
    check_circular: bool = True,
    allow_nan: bool = True,
    indent: int | str | None = None,
    separators: tuple[str, str] | None = None,
    default: _JSONDefault | None = None,
    sort_keys: bool = False,
    hex: Literal[False] = False,
) -> bytes:
    """Return the digest of obj's JSON text: `new(name, json.dumps(obj, ...).encode()).digest()` in one call.

    The same bytes as that idiom, a cache key's usual recipe, and the same exceptions, with no JSON
    text made: the walk over obj writes the text json.dumps would write, encoded in UTF-8, into a
    buffer of fixed size that is hashed as it fills. It follows the running Python's own json
    (its C encoder, or from 3.10 to 3.12 the pure-Python one that indent= selects), so that
    default= is called on the same objects in the same order, a container's own items(),
    `__iter__` or `__len__` is called where json calls it, a dict or list that default= changes
    meanwhile is read as json reads it, and an error has json's type, words and (3.14+) notes.
    Where the options are of a kind json.dumps takes but json_digest does not model (a
    separators= of other than two str, an indent= that is neither an int nor a str, a flag
    whose truth is a method), and where the text's UTF-8 would hold a lone surrogate (only
    with ensure_ascii=False), the call is handed to the standard library's json.dumps and
    str.encode(), whose bytes are hashed: the result or exception is theirs, and default=
    may then be called a second time on what it was called on before.

    Args:
        name: One of the eight algorithms, by any name new() accepts, or one of fastdigest's
            constructors; or any other name hashlib.new() accepts (sha3_256, blake2b), whose hash
            object is given the text in pieces through update().
        obj: Anything json.dumps writes: dict (keys str, int, float, bool or None), list, tuple,
            str, int, float, bool, None and their subclasses, and whatever default= turns into
            those.
        skipkeys: As json.dumps takes it: True to leave out keys of other types than str, int,
            float, bool and None instead of raising TypeError.
        ensure_ascii: As json.dumps takes it: True to write every non-ASCII character as a
            \\uXXXX escape, False to write it as it is (in UTF-8).
        check_circular: As json.dumps takes it: False to skip the check for circular references
            (one then ends in RecursionError).
        allow_nan: As json.dumps takes it: False to raise ValueError for nan and the infinities
            instead of writing NaN, Infinity and -Infinity.
        indent: As json.dumps takes it: None for one line; an int (that many spaces) or a str to
            indent each level by.
        separators: As json.dumps takes it: (item_separator, key_separator); None for
            (', ', ': '), or (',', ': ') with indent=.
        default: As json.dumps takes it: a function called with each object json cannot write,
            returning one it can write, or raising TypeError.
        sort_keys: As json.dumps takes it: True to write each dict's keys in sorted order.
        hex: True for the digest as hexadecimal digits (`hexdigest()`).

    Returns:
        The digest as bytes, or with hex=True as a str of lowercase hexadecimal digits.

    Raises:
        TypeError: what json.dumps raises (`Object of type X is not JSON serializable`, `keys
            must be str, int, float, bool or None, not X`, keys that sort_keys cannot order); a
            name that is neither a str nor a fastdigest constructor; not exactly two positional
            arguments, or a keyword json_digest does not take (cls= among them).
        ValueError: what json.dumps raises (`Circular reference detected`, `Out of range float
            values are not JSON compliant`, an int of more digits than
            sys.get_int_max_str_digits()); a name hashlib does not know (`unsupported hash type
            NAME`).
        UnicodeEncodeError: with ensure_ascii=False, a str of the text holds a lone surrogate,
            which `.encode()` refuses, as `str.encode()` raises it.
        RecursionError: nesting deeper than json.dumps writes. Up to 3.13 the same depth is
            refused; from 3.14 json refuses by the C stack's use, so the depths differ near it.
    """

@overload
def json_digest(
    name: _Algorithm,
    obj: object,
    /,
    *,
    skipkeys: bool = False,
    ensure_ascii: bool = True,
    check_circular: bool = True,
    allow_nan: bool = True,
    indent: int | str | None = None,
    separators: tuple[str, str] | None = None,
    default: _JSONDefault | None = None,
    sort_keys: bool = False,
    hex: Literal[True],
) -> str: ...
@overload
def json_digest(
    name: _Algorithm,
    obj: object,
    /,
    *,
    skipkeys: bool = False,
    ensure_ascii: bool = True,
    check_circular: bool = True,
    allow_nan: bool = True,
    indent: int | str | None = None,
    separators: tuple[str, str] | None = None,
    default: _JSONDefault | None = None,
    sort_keys: bool = False,
    hex: bool,
) -> bytes | str: ...
@overload
def json_digest_many(
    name: _Algorithm,
    objs: Iterable[object],
    /,
    *,
    skipkeys: bool = False,
    ensure_ascii: bool = True,
    check_circular: bool = True,
    allow_nan: bool = True,
    indent: int | str | None = None,
    separators: tuple[str, str] | None = None,
    default: _JSONDefault | None = None,
    sort_keys: bool = False,
    hex: Literal[False] = False,
    out: None = None,
) -> list[bytes]:
    """Return the digests of many objects' JSON texts, in order: `[json_digest(name, obj, ...) for obj in objs]`.

    The texts are written one after another into chunks of 64 KiB and hashed side by side on the
    multi-buffer kernels (batch_implementation), a text longer than a chunk on its own as it is
    written: the memory used is the chunk's, whatever the number or size of the objects. Any
    iterable is gathered into a tuple first. The digests and exceptions are those of the loop:
    the first object that raises stops the call. The options from skipkeys= to sort_keys= are
    json.dumps's, as json_digest() takes them, for every object.

    With out=, the digests are written one after another into that buffer, which is returned (with
    hex=True, their hexadecimal digits as ASCII bytes).

    Args:
        name: As for json_digest(); a name of hashlib's own gets a hashlib object per object.
        objs: Any iterable of objects, as json_digest() takes each.
        hex: True for hexadecimal digits instead of bytes.
        out: None for a list; or a writable C-contiguous buffer of exactly n x digest_size bytes
            (twice that with hex=True).

    Returns:
        A list of digests (bytes, or str with hex=True), one per object in order; with out=, out.

    Raises:
        TypeError, ValueError, UnicodeEncodeError, RecursionError: as json_digest() raises them for
            the first object that fails; objs is not iterable; out is no writable contiguous buffer
            (`json_digest_many() argument 'out' must be read-write bytes-like object, not bytes`).
        ValueError: out is not exactly the digests' size (`json_digest_many() argument 'out' must be
            64 bytes long (2 digests of 32 bytes), not 63`).
    """

@overload
def json_digest_many(
    name: _Algorithm,
    objs: Iterable[object],
    /,
    *,
    skipkeys: bool = False,
    ensure_ascii: bool = True,
    check_circular: bool = True,
    allow_nan: bool = True,
    indent: int | str | None = None,
    separators: tuple[str, str] | None = None,
    default: _JSONDefault | None = None,
    sort_keys: bool = False,
    hex: Literal[True],
    out: None = None,
) -> list[str]: ...
@overload
def json_digest_many(
    name: _Algorithm,
    objs: Iterable[object],
    /,
    *,
    skipkeys: bool = False,
    ensure_ascii: bool = True,
    check_circular: bool = True,
    allow_nan: bool = True,
    indent: int | str | None = None,
    separators: tuple[str, str] | None = None,
    default: _JSONDefault | None = None,
    sort_keys: bool = False,
    hex: bool = False,
    out: _OutT,
) -> _OutT: ...

# What open() takes as a file name (but a file descriptor): typeshed's StrOrBytesPath.
_Path: TypeAlias = str | bytes | os.PathLike[str] | os.PathLike[bytes]

@overload
def digest_files(name: _Algorithm, paths: Iterable[_Path], /, *, threads: SupportsIndex | None = None) -> list[bytes]:
    """Return the digests of many files, in order: each file's digest as file_digest() of the open file.

    The files are opened, read and hashed in C without the GIL, on several threads at once: each
    thread takes the next file, reads it to its end in chunks of 256 KiB into a buffer of its own
    and hashes each chunk, while the other threads do the same with other files; a thread with no
    file left to take helps hash a big one (8 MiB or more). With a tuple of
    algorithms, each file is read once and every chunk fed to each of them. The calling thread
    takes the GIL back for a moment about every 100 ms, and at once when a signal interrupts a
    read, to run the signal handlers: Ctrl-C raises KeyboardInterrupt from the call.

    Args:
        name: As for digest_many(): one of fastdigest's algorithms, or a fastdigest constructor; or
            a tuple of them (repeats allowed), for one tuple of digests per file, in that order.
        paths: Any iterable of str, bytes or os.PathLike paths (not a single str or bytes), as
            open() takes them; relative to the current directory. Symbolic links are followed. A
            FIFO is read as open() reads it: the call waits for a writer and then for the end,
            so a FIFO that never gets one blocks the call (Ctrl-C still stops it when the calling
            thread is the one waiting); a character device is read to its end of file.
        threads: The most threads to read and hash on, the calling thread included: None for
            every CPU the process may run on, 1 for the calling thread alone; never more than
            there are paths, but for a big file, which takes two.

    Returns:
        A list with one item per path, in the paths' order: the digest as bytes, or for a tuple of
            algorithms a tuple of bytes.

    Raises:
        OSError: a file cannot be opened or read, as open() and its read raise it
            (FileNotFoundError, PermissionError, IsADirectoryError, NotADirectoryError, ...),
            with its errno, message and os.fspath(path) as filename; when several cannot, the
            first in the paths' order, whatever the threads. Nothing is returned then. On
            Windows the error carries winerror, as the system reported it (a directory is
            PermissionError there, as for open()).
        ValueError: name is not one of fastdigest's algorithms (`unsupported hash type NAME`), or an
            empty tuple; a path holds a NUL (`embedded null byte`); threads is less than 1.
        TypeError: name is neither a str, a fastdigest constructor nor a tuple of them; paths is
            not iterable, or is a single str or bytes; an item is no path, named by its position
            (`digest_files() item 3: expected str, bytes or os.PathLike object, not int`); threads
            is a bool, a float or anything without `__index__`.
        MemoryError: no memory for the threads' buffers.
        KeyboardInterrupt: Ctrl-C during the call (or what another signal handler raises).
    """

@overload
def digest_files(
    name: tuple[_Algorithm, ...], paths: Iterable[_Path], /, *, threads: SupportsIndex | None = None
) -> list[tuple[bytes, ...]]: ...

# git's object types and repository formats (docs/objects.md#git).
_GitKind: TypeAlias = Literal['blob', 'tree', 'commit', 'tag']
_GitFormat: TypeAlias = Literal['sha1', 'sha256']

def git_object_id(
    data_or_path: _ReadableBuffer | str | os.PathLike[str] | os.PathLike[bytes],
    /,
    *,
    kind: _GitKind = 'blob',
    object_format: _GitFormat = 'sha1',
) -> str:
    """Return the id git gives an object, in hex: `git hash-object` of a file, or of the bytes given.

    The id is the hash of the header `KIND SIZE\\0` (SIZE in decimal) followed by the object's
    bytes: SHA-1, or SHA-256 for a repository made with `git init --object-format=sha256`.
    A bytes-like object is hashed in place, with no copy (`git hash-object --stdin`); a str or
    os.PathLike is a file's path, read once as git_object_ids() reads it. Nothing checks that
    the bytes are a valid object of a kind other than blob (`git hash-object -t KIND
    --literally`).

    Args:
        data_or_path: The object's bytes (any C-contiguous buffer), or the path of a file
            holding them (bytes are data: pass a path in bytes as os.fsdecode(path) or a
            pathlib.Path).
        kind: The object's type: 'blob' (a file's content), 'tree', 'commit' or 'tag'.
        object_format: The repository's hash, 'sha1' or 'sha256'.

    Returns:
        The id as git prints it: 40 hex digits, or 64 for 'sha256'.

    Raises:
        ValueError: kind or object_format is none of those.
        TypeError: data_or_path is neither a buffer, a str nor an os.PathLike.
        OSError: as for git_object_ids().
    """

def git_object_ids(
    paths: Iterable[_Path],
    /,
    *,
    kind: _GitKind = 'blob',
    object_format: _GitFormat = 'sha1',
    threads: SupportsIndex | None = None,
) -> list[str]:
    """Return the ids git gives the files as objects, in hex and in order (`git hash-object --stdin-paths`).

    Each file is read once, by digest_files()'s reader, on every core: the header `KIND SIZE\\0`
    with the size the open found is hashed first, then the content, which must be exactly that
    size, to its end of file. Symbolic links are followed, as `git hash-object` follows them.

    Args:
        paths: As for digest_files().
        kind: As for git_object_id().
        object_format: As for git_object_id().
        threads: As for digest_files(); a file is read by one thread.

    Returns:
        A list of hex ids, one per path, in the paths' order.

    Raises:
        OSError: a file cannot be opened or read, as for digest_files(); or (with no errno, the
            path as filename and in the message) its size changed while it was read, or it is no
            regular file (a FIFO or a device, whose size the header needs before the content).
            The first in the paths' order.
        ValueError: kind or object_format is none of those; as for digest_files().
        TypeError: as for digest_files().
    """

def git_tree_id(
    directory: _Path, /, *, object_format: _GitFormat = 'sha1', threads: SupportsIndex | None = None
) -> str:
    """Return the id of the tree `git add --all --force` then `git write-tree` make of a directory.

    As git stages a working tree (core.filemode and core.symlinks on, as on Linux and macOS): a
    regular file is a blob of mode 100644, or 100755 when its owner may execute it; a symbolic
    link a blob of its target's bytes, mode 120000, never followed; a folder a tree, mode 40000,
    left out when it holds no file at any depth; a FIFO, socket or device is left out; `.git`
    in the directory itself is left out. Entries are sorted by their names' bytes, a tree's
    name taken as NAME/. The files are read once each on every core, as git_object_ids() reads
    them. An empty directory gives git's empty tree.

    Args:
        directory: The folder to read, as the work tree's top.
        object_format: As for git_object_id().
        threads: As for digest_files().

    Returns:
        The tree's id in hex, as `git write-tree` prints it.

    Raises:
        OSError: a folder cannot be listed or a file read, with its path as filename (where git
            warns and goes on past a folder it cannot list); as for git_object_ids().
        ValueError: object_format is neither; a folder below the top holds `.git` (git would
            stage it as a submodule); a name git refuses to add (`.GIT`, `.git.`, `git~1`, ...,
            as core.protectNTFS refuses them); a `.gitattributes` (or the top's
            `.git/info/attributes`) sets `filter`, `ident` or `working-tree-encoding`, or asks
            for end-of-line conversion while a file holds CRLF: git would stage other bytes than
            the files hold. Git's own configuration (core.autocrlf, core.attributesFile) is not
            read: the id is that of git's defaults.
    """

# The directory digests digest_tree() computes (docs/objects.md#directories).
_TreeFormat: TypeAlias = Literal['dirhash', 'checksumdir', 'sha256sum']

def digest_tree(
    name: _FastdigestName, directory: _Path, /, *, format: _TreeFormat = 'dirhash', threads: SupportsIndex | None = None
) -> str:
    """Return a directory's digest in hex, as another tool computes it, reading each file once on every core.

    - 'dirhash': the Dirhash standard, as `dirhash.dirhash(directory, name)` computes it with its
      defaults: links to files and folders followed; a dangling link, a FIFO, a socket or a
      device left out; folders without files left out; names in UTF-8.
    - 'checksumdir': as `checksumdir.dirhash(directory, name)`: the contents of every file
      below, links to folders not followed, names not counted; a dangling link counts as an
      empty file.
    - 'sha256sum': the digest of the lines `cd DIRECTORY && fastdigest -r -a NAME .` prints
      (`HEX  ./PATH`, in the paths' byte order, names escaped as coreutils escapes them).

    Args:
        name: One of the eight algorithms, the files' and the combining hash.
        directory: The folder.
        format: One of the three above.
        threads: As for digest_files().

    Returns:
        The hex digest, as the tool prints it.

    Raises:
        OSError: a folder cannot be listed or a file read, with its path as filename (where
            checksumdir passes over a folder it cannot list); for 'dirhash', a link that loops
            (ELOOP), or a link back to a folder on its own path (ELOOP, where dirhash raises its
            SymlinkRecursionError); for 'checksumdir', a FIFO, socket or device, which
            checksumdir would read. NotADirectoryError: directory is not a folder.
        ValueError: format is none of those; name is not one of the eight algorithms
            (`unsupported hash type NAME`); for 'dirhash', a name that is not UTF-8, or no file
            at all in the tree (dirhash's "Nothing to hash").
        TypeError: name is not a str.
    """

# S3's ETags and checksums (fastdigest/_s3.py over the extension's _hash_parts; docs/objects.md).

def s3_etag(
    path: _Path,
    /,
    *,
    part_size: SupportsIndex = 8388608,
    threshold: SupportsIndex | None = None,
    threads: SupportsIndex | None = None,
) -> str:
    """Return the ETag S3 gives the file uploaded in parts of part_size, as boto3 and aws-cli upload it.

    For a file of threshold bytes or more (by default the part size, as boto3's and aws-cli's
    multipart_threshold is their multipart_chunksize), an upload in parts: the hex MD5 of the
    concatenated MD5 digests of its parts, then `-` and the number of parts
    (`'a94f4ee8acccec15a2eaf780c5f2b29a-3'`). For a smaller file, or an empty one, one PUT: the
    file's hex MD5. Without the double quotes that S3's ETag header and boto3's `ETag` field put
    around it. Holds for objects stored with SSE-S3 or no encryption; an object encrypted with
    SSE-KMS or SSE-C has an ETag that is no MD5 of its data.

    The file is read once: its parts are hashed side by side, as lanes of the multi-buffer kernels,
    on several threads, each holding a stripe of each of its parts at a time, so that memory stays
    about a megabyte per thread whatever the file's size; without the GIL, which the calling
    thread takes back about every 100 ms to run signal handlers (Ctrl-C).

    Args:
        path: A str, bytes or os.PathLike path of a regular file, as open() takes it.
        part_size: The size of every part but the last, in bytes: boto3's and aws-cli's 8 MiB by
            default (`TransferConfig(multipart_chunksize=...)`, `aws configure set
            default.s3.multipart_chunksize`).
        threshold: The size from which the file goes up in parts (`multipart_threshold`): None for
            part_size.
        threads: The most threads to hash on, the calling one included: None for every CPU the
            process may run on, 1 for the calling thread alone; never more than there are parts.

    Returns:
        The ETag as a str of 32 lowercase hex digits, with `-N` for an upload in N parts.

    Raises:
        ValueError: part_size is below S3's minimum part size of 5 MiB or above its maximum of 5
            GiB; the file would take more than S3's limit of 10,000 parts (the message says the
            part size boto3 and aws-cli grow to for it); a file below the threshold has more than
            the 5 GiB S3 takes in one PUT; threshold is negative; threads is less than 1; the path
            is no regular file (its size is not known up front); the path holds a NUL.
        OSError: the file cannot be opened or read, as open() raises it, with the path as
            filename; or the file changed while it was hashed: it ended before the size it had
            when it was opened, or its size or modification time differ after the last read (the
            message names the file). No ETag is returned then.
        TypeError: part_size, threshold or threads is no integer; path is no path.
        MemoryError: no memory for any thread's buffers.
    """

def s3_checksum(
    path: _Path,
    /,
    name: Literal['sha256', 'sha1', 'md5'] = 'sha256',
    *,
    part_size: SupportsIndex = 8388608,
    threshold: SupportsIndex | None = None,
    threads: SupportsIndex | None = None,
) -> str:
    """Return S3's checksum of the file uploaded as s3_etag() says: `ChecksumSHA256`, `ChecksumSHA1`
    or `ChecksumMD5`.

    For an upload in parts, the composite checksum: the base64 of the hash of the concatenated
    digests of the parts, then `-` and the number of parts, as S3's documentation gives it (Amazon
    S3 User Guide, "Checking object integrity", checksums of multipart uploads). moto's S3 gives
    the same value without the `-N`. For one PUT, the base64 of the file's digest. Read and hashed
    as s3_etag() does.

    Args:
        path: As for s3_etag().
        name: The checksum's algorithm, as S3's `ChecksumAlgorithm` names it, in any case:
            `'sha256'`, `'sha1'` or `'md5'`. (S3's CRC checksums are not computed here.)
        part_size: As for s3_etag().
        threshold: As for s3_etag().
        threads: As for s3_etag().

    Returns:
        The checksum as a str: base64, with `-N` for an upload in N parts.

    Raises:
        ValueError: name is none of those three; and as s3_etag() raises it.
        TypeError: name is no str; and as s3_etag() raises it.
        OSError: as s3_etag() raises it.
        MemoryError: as s3_etag() raises it.
    """

def s3_part_digests(
    path: _Path,
    /,
    name: _Algorithm = 'md5',
    *,
    part_size: SupportsIndex = 8388608,
    threshold: SupportsIndex | None = None,
    threads: SupportsIndex | None = None,
) -> list[bytes]:
    """Return the digests of the parts of the file uploaded as s3_etag() says, in order: what S3
    lists for each part (a part's ETag is the hex of its MD5, a part's `ChecksumSHA256` the base64
    of its SHA-256).

    Args:
        path: As for s3_etag().
        name: Any of the eight algorithms, as new() takes it, or a fastdigest constructor.
        part_size: As for s3_etag().
        threshold: As for s3_etag().
        threads: As for s3_etag().

    Returns:
        A list of one digest per part as bytes; for a file below the threshold (one PUT), a list of
            one, the digest of the whole file.

    Raises:
        ValueError: name is not one of the eight algorithms; and as s3_etag() raises it.
        TypeError: as s3_etag() raises it.
        OSError: as s3_etag() raises it.
        MemoryError: as s3_etag() raises it.
    """

class S3ETagMatch(NamedTuple):
    """What s3_etag_matches() found: the upload that gives the file that ETag."""

    part_size: int | None
    """The part size in bytes, or None for an ETag of one PUT. For an upload in one part, the smallest
    common part size that makes one part of the file."""
    parts: int
    """The number of parts: the ETag's `-N`, or 1 for one PUT."""

def s3_etag_matches(path: _Path, etag: str, /, *, threads: SupportsIndex | None = None) -> S3ETagMatch | None:
    """Return how the file uploaded to S3 gives this ETag, or None when no common upload of it does.

    An ETag without `-N` is checked against the file's MD5 (one PUT). An ETag of N parts is checked
    against the file's ETag for each part size that cuts the file into N parts within S3's limits,
    in this order, until one matches: the part size boto3 and aws-cli use for a file of this size (8
    MiB, doubled until the file takes no more than 10,000 parts), then 8, 5, 16, 15 and 64 MiB, then
    every other whole number of MiB from the smallest up, at most 64 of them. Each tried size reads
    the file once, as s3_etag() does.

    Args:
        path: As for s3_etag().
        etag: The ETag as S3 gives it: 32 hex digits, in any case, with `-N` after them for an upload
            in N parts; with or without its double quotes, and surrounding white space.
        threads: As for s3_etag().

    Returns:
        An S3ETagMatch with the part size and number of parts that give the ETag, or None.

    Raises:
        ValueError: etag is no ETag of that form.
        TypeError: etag is no str.
        OSError: as s3_etag() raises it.
        MemoryError: as s3_etag() raises it.
    """

# The Arrow PyCapsule interface: __arrow_c_array__ returns (ArrowSchema capsule,
# ArrowArray capsule), __arrow_c_stream__ an ArrowArrayStream capsule.
@type_check_only
class _ArrowArrayExportable(Protocol):
    def __arrow_c_array__(self, requested_schema: object | None = None) -> tuple[object, object]: ...

@type_check_only
class _ArrowStreamExportable(Protocol):
    def __arrow_c_stream__(self, requested_schema: object | None = None) -> object: ...

@final
class DigestArray:
    """The digests of an Arrow array's rows, made by digest_array(), digest_rows() or surrogate_key() from
    array input.

    An Arrow array (the PyCapsule interface's `__arrow_c_array__`) of fixed_size_binary(digest_size),
    or of utf8 hex (large_utf8 when the hex passes 2 GiB), with the input's nulls, named as the
    input column (digest_array's) or as the function that made it (`'digest_rows'`,
    `'surrogate_key'`). Import it with pyarrow.array(), polars.Series() or DuckDB, any number of
    times, without a copy: every import shares the same buffers, freed once this object and every
    imported array are gone.

    It is also a sequence of Python objects, one a row (bytes, or str in hex; None where null),
    for what takes one: `list()`, iteration, indexing, `to_pylist()`, NumPy (an object array),
    and a pandas column (`df['digest'] = result`), which stores a str or bytes object a row; a
    column backed by the Arrow buffers themselves is
    `pd.arrays.ArrowExtensionArray(pyarrow.chunked_array(result))`.
    """

    def __arrow_c_array__(self, requested_schema: object | None = None) -> tuple[object, object]:
        """Export the digests through the Arrow C Data Interface.

        Returns:
            A pair of PyCapsules: an ArrowSchema and an ArrowArray.
        """
    def __len__(self) -> int:
        """The number of rows."""
    def __getitem__(self, index: SupportsIndex, /) -> bytes | str | None:
        """Row `index`'s digest: bytes, or str in hex; None where the row is null."""
    def __iter__(self) -> Iterator[bytes | str | None]:
        """The rows' digests, as `to_pylist()` gives them."""
    def to_pylist(self) -> list[bytes | str | None]:
        """The digests as a list, one a row: bytes, or str in hex; None where the row is null."""
    def __array__(self, dtype: Any = None, copy: bool | None = None) -> Any:
        """A one-dimensional NumPy array of the rows as `to_pylist()` gives them, of dtype object
        (or `dtype`); `copy=False` raises ValueError, since each row is copied into an object."""

@final
class DigestStream:
    """The digests of an Arrow stream's rows, made by digest_array(), digest_rows() or surrogate_key()
    from stream input.

    An Arrow stream (`__arrow_c_stream__`) of one result array per input array, in order, each as
    DigestArray describes. Import it with pyarrow.chunked_array(), polars.Series() or DuckDB, any
    number of times. Like DigestArray, it is also a sequence of Python objects, one a row, over
    all the stream's arrays.
    """

    def __arrow_c_stream__(self, requested_schema: object | None = None) -> object:
        """Export the digests as an Arrow C stream.

        Returns:
            A PyCapsule holding an ArrowArrayStream.
        """
    def __len__(self) -> int:
        """The number of rows, over all the stream's arrays."""
    def __getitem__(self, index: SupportsIndex, /) -> bytes | str | None:
        """Row `index`'s digest, counted over all the stream's arrays: bytes, or str in hex; None
        where the row is null."""
    def __iter__(self) -> Iterator[bytes | str | None]:
        """The rows' digests, as `to_pylist()` gives them."""
    def to_pylist(self) -> list[bytes | str | None]:
        """The digests as a list, one a row: bytes, or str in hex; None where the row is null."""
    def __array__(self, dtype: Any = None, copy: bool | None = None) -> Any:
        """A one-dimensional NumPy array of the rows as `to_pylist()` gives them, of dtype object
        (or `dtype`); `copy=False` raises ValueError, since each row is copied into an object."""

# The digest of every value of an Arrow column of any type but unions (the
# bytes of docs/encoding.md: a string's UTF-8, a binary's bytes, an integer's
# eight little-endian bytes, ...), as fixed_size_binary(digest_size) or, with
# hex=True, utf8 hex; nulls kept. Array input gives a DigestArray, stream input
# (chunked arrays, polars Series, DuckDB relations, pandas) a DigestStream.
# threads: the most threads to hash an array on, 1 or more (a bool is refused
# at runtime), or None for every CPU the process may run on.
@overload
def digest_array(
    name: _Algorithm, array: _ArrowArrayExportable, /, *, hex: bool = False, threads: SupportsIndex | None = None
) -> DigestArray:
    """Return the digest of every value of an Arrow column, as an Arrow column, with no Python object per row.

    The column's buffers are read in place through the Arrow PyCapsule interface (fastdigest needs
    no Arrow library); the rows go to the multi-buffer kernels, on up to `threads` threads, with
    the GIL released for an array of at least get_gil_minsize() bytes' worth of blocks (one block
    a row); the digests are written into one buffer that pyarrow, polars and DuckDB
    import without a copy. Each value is hashed as the bytes the encoding page (docs/encoding.md,
    version 2) defines for its type: a string as its UTF-8 bytes, as `v.encode()` gives them, a
    binary as its bytes, an integer of any width as eight little-endian bytes, a float as its
    float64 (every zero and every NaN alike), a timestamp of any unit or zone as its nanoseconds,
    a dictionary-encoded or run-end encoded value as its decoded value, a list or struct with
    its elements' or fields' nullness and lengths, so that layouts and producers agree.

    Args:
        name: As for digest(): one of fastdigest's algorithms, or a fastdigest constructor.
        array: An object with `__arrow_c_array__` (pyarrow arrays and record batches) or
            `__arrow_c_stream__` (chunked arrays, tables, polars Series and DataFrames, DuckDB
            relations, pandas Series 3.0+), of any Arrow type but a union (an extension type as
            its storage), with any offset and validity bitmap; or a pandas DataFrame (converted
            by pyarrow's Table.from_pandas, without its index). A table, record batch or stream
            of exactly one column means that column; of several columns, a column of struct rows,
            whose digests are those of digest_rows().
        hex: False for fixed_size_binary(digest_size) digests, True for utf8 lowercase hex.
        threads: The most threads one array is hashed on, the calling thread included: None for
            every CPU the process may run on, 1 for the calling thread alone. An array is cut into
            ranges of at least 16,384 rows, one a thread; the digests are the same for any value.

    Returns:
        A DigestArray for array input, a DigestStream (one result array per input array) for stream
            input: the same number of rows, null where the input row is null.

    Raises:
        TypeError: array has no Arrow PyCapsule interface; its type, or a type nested in it, is a
            union or a format the C Data Interface does not define (`cannot hash Arrow format
            '+ud:0,1' (a dense union)`), or is nested more than 64 levels deep; name is neither a
            str nor a fastdigest constructor; threads is a bool, a float or anything without
            `__index__`.
        ValueError: name is not one of fastdigest's algorithms (`unsupported hash type NAME`); threads
            is less than 1; the C structs the producer exported are inconsistent (a capsule already
            consumed, a negative or overflowing length or offset, a wrong buffer or child count,
            decreasing offsets, a list or view outside its child or buffers, run ends that do not
            increase, a dictionary index out of range: the message names the row); a stream
            reports a bad argument.
        MemoryError: the result does not fit in memory, or a stream reports ENOMEM.
        OSError: a stream reports any other error, with the producer's message.
    """

@overload
def digest_array(
    name: _Algorithm, array: _ArrowStreamExportable, /, *, hex: bool = False, threads: SupportsIndex | None = None
) -> DigestStream: ...

# The digest of every row of a table over the given columns (all when None),
# each field framed with its nullness and length (docs/encoding.md); no nulls.
@overload
def digest_rows(
    name: _Algorithm,
    table: _ArrowArrayExportable,
    /,
    columns: Sequence[str] | None = None,
    *,
    hex: bool = False,
    threads: SupportsIndex | None = None,
) -> DigestArray:
    """Return the digest of every row of an Arrow table, as an Arrow column, with no Python object per row.

    Each row is hashed as the concatenation, column by column in the order given, of each value's
    field bytes as the encoding page (docs/encoding.md, version 2) defines them: 00 for a null,
    01 and the value's bytes for any other, with its length first where the type does not fix
    it, so that no two different rows give the same bytes (`('123-', '456')` and
    `('123', '-456')`, `(None, 'a')` and `('a', None)`, `None` and `''` all differ), and the
    same row from any producer or layout gives the same digest. A row of nulls has a digest.

    Args:
        name: As for digest(): one of fastdigest's algorithms, or a fastdigest constructor.
        table: An object with `__arrow_c_array__` or `__arrow_c_stream__` whose Arrow type is a
            struct: a pyarrow Table, RecordBatch or RecordBatchReader, a polars or pandas
            DataFrame, a DuckDB relation, a struct array (whose null rows hash as rows of nulls).
            A pandas DataFrame's index is not hashed, and only its columns named are converted
            to Arrow (by pyarrow's Table.from_pandas).
        columns: The names of the columns to hash, in that order (a name may repeat); None for
            every column in the table's order. Columns not named are not read (but a producer may
            compute them to export the table: select them out of a DuckDB query first).
        hex: False for fixed_size_binary(digest_size) digests, True for utf8 lowercase hex.
        threads: As for digest_array().

    Returns:
        A DigestArray for array input (a record batch), a DigestStream (one result array per
            record batch) for stream input: a digest for every row, no nulls, named
            `'digest_rows'`.

    Raises:
        KeyError: a name in columns that no column has (the message names it, and the table's
            columns).
        TypeError: table has no Arrow PyCapsule interface or is not a struct (a table); columns is
            a str, or holds anything but str; a column named is of a type that cannot be hashed
            (as for digest_array()); name is neither a str nor a fastdigest constructor; threads
            is a bool, a float or anything without `__index__`.
        ValueError: a name in columns that several columns have; and as for digest_array().
        MemoryError: the result does not fit in memory, or a stream reports ENOMEM.
        OSError: a stream reports any other error, with the producer's message.
    """

@overload
def digest_rows(
    name: _Algorithm,
    table: _ArrowStreamExportable,
    /,
    columns: Sequence[str] | None = None,
    *,
    hex: bool = False,
    threads: SupportsIndex | None = None,
) -> DigestStream: ...

# The digest of a Python value under the typed encoding of docs/fingerprint.md
# (version 1): bytes, or with hex=True a str of lowercase hex digits.
@overload
def fingerprint(name: _Algorithm, obj: object, /, *, hex: Literal[False] = False) -> bytes:
    """Return the digest of a Python value under the fingerprint encoding (docs/fingerprint.md, version 1).

    Every value is written with its type, so that no two different values give the same bytes (`1`,
    `1.0`, `True`, `'1'`, `b'1'`, `[1]`, `(1,)` and `{1}` all differ) and nesting keeps its
    boundaries; a dict's keys and a set's elements are written in the order of their encoded bytes,
    whatever their insertion order or the hash seed; and the bytes are the same in every process,
    platform, Python version and fastdigest release. Floats keep their bits (`-0.0` is not `0.0`),
    a str with lone surrogates is written as Python's surrogatepass gives it, and a NumPy array of
    fixed-size items is hashed from its buffer after a header of its dtype and shape, in C order
    and little-endian whatever its layout. Each container is read once, when the walk reaches it,
    from its own storage (a subclass's `__len__`, `__iter__` or `items` is never called).

    Args:
        name: As for digest(): one of fastdigest's algorithms, or a fastdigest constructor.
        obj: None, a bool, int (any size), float, complex, str, bytes, bytearray or memoryview; a
            list, tuple, dict, set or frozenset of such values (subclasses as their base types);
            a datetime.date, time, datetime or timedelta (not their subclasses); a
            decimal.Decimal; a uuid.UUID; an enum member (its class and value); a dataclass
            instance (its class and the fields it compares); a NumPy array or scalar; or an object
            with the Arrow PyCapsule interface (a pyarrow, polars or pandas table or column, a
            DuckDB relation), hashed by docs/encoding.md's bytes.
        hex: False for the digest as bytes, True for a str of lowercase hex digits.

    Returns:
        The digest of the encoding's message: bytes of the algorithm's digest_size, or its hex.

    Raises:
        TypeError: obj holds a value of a type the encoding has no rule for (never hashed through
            repr() or pickle), a subclass of a datetime type, a NumPy array of a structured,
            long double or string dtype or of an ndarray subclass, or an Arrow union; name is
            neither a str nor a fastdigest constructor.
        ValueError: an algorithm name fastdigest does not know (hashlib's message); malformed
            Arrow data.
        RecursionError: obj nests deeper than the interpreter's recursion limit allows (a
            container that holds itself).
        RuntimeError: a set subclass changed size while it was read.
    """

@overload
def fingerprint(name: _Algorithm, obj: object, /, *, hex: Literal[True]) -> str: ...
@overload
def fingerprint(name: _Algorithm, obj: object, /, *, hex: bool) -> bytes | str: ...
