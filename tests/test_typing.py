"""The hand-written stubs (fastdigest/__init__.pyi) match the runtime and type user code as intended.

Both checks run mypy in a subprocess. mypy is a test extra: without it these tests fail rather than skip,
so that a CI without it cannot pass quietly with the stubs unchecked.
"""

import ast
import os
import pathlib
import subprocess
import sys
import sysconfig
import textwrap

import pytest

import fastdigest
from conftest import ALGORITHMS, HASHLIB_TAKES_DATA

# The directory that holds the fastdigest package being tested. mypy resolves `fastdigest` from its
# working directory first, so running it there makes it read this package's __init__.pyi, and stubtest
# import this package's extension, for an in-place or editable build (whose import hook mypy cannot
# follow). An installed copy mypy finds by itself, as a PEP 561 package in the interpreter's
# site-packages; there it runs from an empty directory instead, since from site-packages itself every
# installed module (typing_extensions, mypy_extensions) would shadow the library of that name.
PACKAGE_PARENT = pathlib.Path(fastdigest.__file__).resolve().parent.parent
INSTALLED = PACKAGE_PARENT in {pathlib.Path(sysconfig.get_path(kind)).resolve() for kind in ('purelib', 'platlib')}


def require_mypy():
    try:
        import mypy.stubtest  # noqa: F401
        import mypy.version
    except ImportError as error:
        pytest.fail('mypy is needed to check the stubs (pip install mypy, or the test extra): %s' % error)
    release = tuple(int(part) for part in mypy.version.__version__.split('+')[0].split('.')[:2])
    if release < (1, 19):
        # The stubs are the same on every Python, and are checked wherever a current mypy installs.
        pytest.skip(
            f"mypy {mypy.version.__version__} is older than 1.19: it reads neither the cli module's "
            '`TYPE_CHECKING = False` idiom (so stubtest takes its typing-only imports for runtime names) nor '
            'reports a surplus positional argument under [call-arg]. It is what installs on free-threaded '
            '3.13: mypy 1.19+ needs librt, which has no cp313t wheels.'
        )


@pytest.fixture(scope='module')
def run_mypy(tmp_path_factory):
    """Runs `python ARGUMENTS` (mypy or stubtest) in the directory described above, with a shared cache
    outside the source tree; returns the completed process."""
    environment = dict(os.environ)
    environment['MYPY_CACHE_DIR'] = str(tmp_path_factory.mktemp('mypy_cache'))
    # Nothing from the caller's MYPYPATH may shadow the package under test.
    environment.pop('MYPYPATH', None)
    directory = tmp_path_factory.mktemp('mypy_cwd') if INSTALLED else PACKAGE_PARENT

    def run(arguments):
        return subprocess.run(
            [sys.executable, *arguments],
            cwd=str(directory),
            env=environment,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=300,
        )

    return run


def test_stubs_match_runtime(run_mypy, tmp_path):
    require_mypy()
    arguments = ['-m', 'mypy.stubtest', 'fastdigest']
    if sys.version_info[:2] == (3, 13) and HASHLIB_TAKES_DATA:
        # The one allowlist: a stub's branches go by minor version, and 3.13 changed the constructors'
        # signature in a patch release (CPython's backport of data=), which fastdigest follows at run time;
        # the stubs give 3.13 the signature of its first releases. Everything else is still compared.
        allowlist = tmp_path / 'allowlist.txt'
        allowlist.write_text(''.join(f'fastdigest.{name}\n' for name in ('new', *ALGORITHMS)))
        arguments += ['--allowlist', str(allowlist), '--ignore-unused-allowlist']
    # Otherwise no allowlist: every difference between __init__.pyi and the module is an error.
    result = run_mypy(arguments)
    assert result.returncode == 0, result.stdout


# Each line's expected outcome is stated in the line itself: assert_type() fails if the stub gives another
# type (Any included), and each `type: ignore[code]` must be needed, since --warn-unused-ignores reports one
# that the stub makes unnecessary (for instance if str were accepted as data).
USAGE = """
    import io
    import pathlib
    import hashlib
    import sys
    from typing_extensions import assert_type

    import fastdigest
    from fastdigest import hmac as fast_hmac

    assert_type(fastdigest.sha256(b'x').hexdigest(), str)
    assert_type(fastdigest.md5().digest(), bytes)
    assert_type(fastdigest.new('sha512_256', bytearray(3)), fastdigest.HASH)
    assert_type(fastdigest.sha1(memoryview(b'x'), usedforsecurity=False).copy(), fastdigest.HASH)
    assert_type(fastdigest.sha512(string=b'x').name, str)
    # The constructors take data= from 3.14, as hashlib's.
    if sys.version_info >= (3, 14):
        assert_type(fastdigest.sha384(data=b'x').digest_size, int)
    else:
        fastdigest.sha384(data=b'x')  # type: ignore[call-arg]
    assert_type(fastdigest.sha224().block_size, int)
    assert_type(fastdigest.sha512_224().update(b'more'), None)
    assert_type(fastdigest.algorithms_guaranteed, frozenset[str])
    assert_type(fastdigest.file_digest(io.BytesIO(b'x'), 'sha256'), fastdigest.HASH)
    assert_type(fastdigest.file_digest(io.BytesIO(b'x'), fastdigest.sha256), fastdigest.HASH)
    assert_type(fastdigest.file_digest(io.BytesIO(b'x'), hashlib.sha256).hexdigest(), str)
    assert_type(fastdigest.file_digest(io.BytesIO(b'x'), ('md5', hashlib.sha256))[1].digest(), bytes)
    assert_type(fastdigest.digest_files('sha256', ['a', b'b', pathlib.Path('c')]), list[bytes])
    assert_type(fastdigest.digest_files(('md5', fastdigest.sha1), ['a'], threads=2), list[tuple[bytes, ...]])
    fastdigest.digest_files('sha256', [3])  # type: ignore[list-item]
    assert_type(fastdigest.digest_many('sha256', [b'a', bytearray(b'b')]), list[bytes])
    assert_type(fastdigest.digest_many('md5', (b'a',), threads=2, out=bytearray(16)), bytearray)
    assert_type(fastdigest.digest_many('md5', memoryview(b'ab').cast('B', (1, 2))), list[bytes])
    fastdigest.digest_many('md5', ['text'])  # type: ignore[list-item]
    assert_type(fast_hmac.digest_many(b'key', [b'a'], 'sha256'), list[bytes])
    assert_type(fast_hmac.digest_many(b'key', [b'a'], fastdigest.sha1, out=memoryview(bytearray(20))), memoryview)
    assert_type(fastdigest.digest_many('sha256', [b'a'], hex=True), list[str])
    assert_type(fastdigest.digest_many('sha256', [b'a'], hex=False), list[bytes])
    assert_type(fastdigest.digest_many('md5', [b'a'], hex=True, out=bytearray(32)), bytearray)
    assert_type(fastdigest.digest_many('md5', [b'a'], hex=bool(sys.argv)), list[bytes] | list[str])
    assert_type(fast_hmac.digest_many(b'key', [b'a'], 'sha256', hex=True), list[str])
    assert_type(fastdigest.__version__, str)

    # Arrow results: exported to Arrow, or read as Python values, one a row.
    class Column:
        def __arrow_c_array__(self, requested_schema: object | None = None) -> tuple[object, object]:
            raise NotImplementedError

    class Table:
        def __arrow_c_stream__(self, requested_schema: object | None = None) -> object:
            raise NotImplementedError

    def results() -> None:
        digests = fastdigest.digest_array('md5', Column(), hex=True)
        assert_type(digests, fastdigest.DigestArray)
        assert_type(digests.to_pylist(), list[bytes | str | None])
        assert_type(digests[-1], bytes | str | None)
        assert_type(list(digests), list[bytes | str | None])
        rows = fastdigest.digest_rows('sha256', Table(), ['id'])
        assert_type(rows, fastdigest.DigestStream)
        assert_type([digest for digest in rows], list[bytes | str | None])
        assert_type(fastdigest.surrogate_key(Table(), ['id']).to_pylist(), list[bytes | str | None])
        digests['0']  # type: ignore[index]

    # The rest of hashlib's namespace, typed as typeshed types hashlib's.
    assert_type(fastdigest.sha3_256(b'x').hexdigest(), str)
    assert_type(fastdigest.blake2b(b'x', digest_size=16, key=b'k', person=b'p').digest(), bytes)
    assert_type(fastdigest.blake2s(b'x', salt=b's', last_node=True).digest_size, int)
    assert_type(fastdigest.shake_128(b'x').hexdigest(16), str)
    assert_type(fastdigest.scrypt(b'password', salt=b'salt', n=2, r=8, p=1), bytes)
    assert_type(fastdigest.new('sha3_256', b'x', usedforsecurity=False).hexdigest(), str)
    assert_type(fastdigest.new('blake2b', digest_size=16).digest(), bytes)
    assert_type(fastdigest.file_digest(io.BytesIO(b'x'), 'sha3_256').hexdigest(), str)
    # A name that is not literally one of the eight may give hashlib's object, which has no state().
    fastdigest.new('SHA3-256').state()  # type: ignore[union-attr]
    fastdigest.file_digest(io.BytesIO(b'x'), 'blake2b').state()  # type: ignore[union-attr]

    fastdigest.sha256('text')  # type: ignore[arg-type]
    fastdigest.new('md5', 'text')  # type: ignore[call-overload]
    fastdigest.new('sha3_256', 'text')  # type: ignore[call-overload]
    fastdigest.md5().update('text')  # type: ignore[arg-type]
    fastdigest.sha256(b'x', True)  # type: ignore[call-arg]
    fastdigest.sha1().name = 'md5'  # type: ignore[misc]

    class Subclass(fastdigest.HASH):  # type: ignore[misc]
        pass
"""


def test_stubs_type_user_code(run_mypy, tmp_path):
    require_mypy()
    usage = tmp_path / 'usage.py'
    usage.write_text(textwrap.dedent(USAGE))
    result = run_mypy(
        ['-m', 'mypy', '--strict', '--warn-unused-ignores', '--no-error-summary', '--show-error-codes', str(usage)]
    )
    assert result.returncode == 0, result.stdout


def stub_constructors(tree):
    """The constructors of the stubs, branch by branch of the `if sys.version_info` that defines new():
    in each branch, the names of the functions that return a bare HASH, new() aside, in their order."""
    switch = next(
        node
        for node in tree.body
        if isinstance(node, ast.If) and any(isinstance(d, ast.FunctionDef) and d.name == 'new' for d in node.body)
    )
    return [
        [
            node.name
            for node in branch
            if isinstance(node, ast.FunctionDef) and node.name != 'new' and ast.unparse(node.returns) == 'HASH'
        ]
        for branch in (switch.body, switch.orelse)
    ]


def test_stubs_list_exactly_the_extensions_algorithms():
    # The stubs are written by hand; the extension makes its constructors and names from its table of
    # algorithms (kernels/kernel.h's FD_ALGORITHMS). Each constructor, each name of the Literal that new()
    # and the other functions take, and each name in __all__ must be one of the table's, and all of them.
    table = list(fastdigest._fastdigest._algorithms)
    tree = ast.parse((PACKAGE_PARENT / 'fastdigest' / '__init__.pyi').read_text(encoding='utf-8'))
    literal = next(
        node.value
        for node in tree.body
        if isinstance(node, ast.AnnAssign) and ast.unparse(node.target) == '_FastdigestName'
    )
    assert [element.value for element in literal.slice.elts] == table
    assert stub_constructors(tree) == [table, table]
    stub_all = next(
        ast.literal_eval(node.value)
        for node in tree.body
        if isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == '__all__'
    )
    assert set(table) <= set(stub_all)
    assert [name for name in stub_all if name in fastdigest.implementation or name in table] == sorted(table)
