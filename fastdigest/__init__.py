"""fastdigest: hashlib's MD5, SHA-1 and SHA-2, faster.

A drop-in for hashlib's constructors, new(), file_digest() and hash objects,
implemented in C with the algorithm state inline in each object. The rest of
hashlib's namespace (sha3_*, blake2b/blake2s, shake_*, scrypt, and new() for
their names) is the standard library's own, so that `import fastdigest as
hashlib` works for any code.
"""

import sys as _sys

# The source tree (a checkout, an unpacked sdist) has no compiled extension, and is imported before the
# installed package whenever Python runs in it, its folder being first on sys.path: say so, and what to do,
# rather than leave the import system's guess of a circular import. An extension that is there but fails to
# load (FASTDIGEST_BACKEND refused, a build for another CPU) raises its own error.
try:
    from fastdigest import _fastdigest
except ImportError:
    import importlib.machinery as _machinery
    import importlib.util as _importlib_util
    import os as _os

    if _importlib_util.find_spec('fastdigest._fastdigest') is not None:
        raise
    _folder = _os.path.dirname(_os.path.abspath(__file__))
    _suffixes = tuple(_machinery.EXTENSION_SUFFIXES)
    _others = sorted(
        name for name in _os.listdir(_folder) if name.startswith('_fastdigest.') and name.endswith(_suffixes)
    )
    raise ImportError(
        "fastdigest's compiled extension (_fastdigest%s) is not in %s%s, which is fastdigest's source tree: "
        'the Python files without the C extension built from them. Install fastdigest (python -m pip install . '
        'in the checkout) and run Python from another folder, or with -I (python -I -m fastdigest ...), so '
        'that the installed package is imported; or, to work on fastdigest, build the extension into the '
        'source tree: python -m pip install -e .'
        % (_suffixes[0], _folder, ' (only %s, built for another Python)' % ', '.join(_others) if _others else ''),
        name='fastdigest._fastdigest',
        path=_folder,
    ) from None
from fastdigest._fastdigest import _GIL_MINSIZE as _GIL_MINSIZE
from fastdigest._fastdigest import (
    HASH,
    DigestArray,
    DigestStream,
    cpu_features,
    digest,
    digest_array,
    digest_files,
    digest_many,
    digest_rows,
    fingerprint,
    from_state,
    get_gil_minsize,
    hexdigest,
    implementation,
    json_digest,
    json_digest_many,
    new,
    pbkdf2_hmac,
    set_gil_minsize,
    surrogate_key,
)
from fastdigest._version import __version__ as __version__

# A constructor for each of the extension's algorithms (md5, sha256, ...), named as hashlib names it: the
# extension makes them from its table of algorithms, and hands them over by name in _algorithms.
globals().update(_fastdigest._algorithms)

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
    'new',
    'pbkdf2_hmac',
    'S3ETagMatch',
    's3_checksum',
    's3_etag',
    's3_etag_matches',
    's3_part_digests',
    'self_test',
    'set_gil_minsize',
    'sha3_224',
    'sha3_256',
    'sha3_384',
    'sha3_512',
    'shake_128',
    'shake_256',
    'surrogate_key',
    *_fastdigest._algorithms,
]
# hashlib lists scrypt in its __all__ from 3.15, where it has it (from OpenSSL): so does fastdigest,
# without importing OpenSSL to find out. Which Pythons do is the extension's decision (its _compat), as is
# everything else that differs by version.
if _fastdigest._compat['scrypt_in_all']:
    import importlib.util as _importlib_util

    if _importlib_util.find_spec('_hashlib') is not None:
        __all__.append('scrypt')
    del _importlib_util

# --- the rest of hashlib's namespace -----------------------------------------------------------------
#
# These names are the standard library's own objects, passed through untouched. They are looked up on
# first use (module __getattr__), so that importing fastdigest does not import hashlib, and with it
# OpenSSL, which costs about as much again as fastdigest's own import: the command line tool never
# needs it. scrypt is absent where hashlib lacks it (Python built without OpenSSL) and, as in
# hashlib.__all__, is in __all__ from 3.15 only.
_FROM_HASHLIB = frozenset(
    (
        'blake2b',
        'blake2s',
        'sha3_224',
        'sha3_256',
        'sha3_384',
        'sha3_512',
        'shake_128',
        'shake_256',
        'scrypt',
    )
)
_SETS_FROM_HASHLIB = frozenset(('algorithms_available', 'algorithms_guaranteed'))
# The types self_test() returns, defined with it in _self_test, which is imported on first use (a star
# import of fastdigest included): it needs typing, which the command line's start-up does without.
_FROM_SELF_TEST = frozenset(('KernelReport', 'SelfTestReport'))
# S3's ETags and checksums (_s3), imported on first use as well: the command line's start-up does without
# base64, re and typing.
_FROM_S3 = frozenset(('S3ETagMatch', 's3_checksum', 's3_etag', 's3_etag_matches', 's3_part_digests'))
# git's ids (_git) and directory digests (_tree), the same way: the start-up does without their walks.
_FROM_GIT = frozenset(('git_object_id', 'git_object_ids', 'git_tree_id'))
_FROM_TREE = frozenset(('digest_tree',))

_stdlib_modules = {}


def _stdlib_module(name):
    """The standard library's module `name` ('hashlib', 'hmac' or 'json'), imported on the first call.

    A program may put fastdigest itself in sys.modules as 'hashlib', and fastdigest.hmac as 'hmac', to
    make every library use them. Importing the name would then give fastdigest's module back, and
    handing it a call fastdigest passes on would recurse; so the standard module is then loaded afresh
    from the standard library's folder, for fastdigest's use only (it is not put in sys.modules).
    """
    module = _stdlib_modules.get(name)
    if module is None:
        module = _sys.modules.get(name)
        if module is None:
            import importlib

            module = importlib.import_module(name)
        if _is_fastdigests(module):
            module = _load_stdlib_module(name)
        _stdlib_modules[name] = module
    return module


def _is_fastdigests(module):
    return getattr(module, '__name__', '').partition('.')[0] == __name__


def _load_stdlib_module(name):
    import importlib.machinery
    import importlib.util
    import os

    # The standard library's folder first, where os.py is, so that no module of that name elsewhere on
    # sys.path (fastdigest's own hmac.py, when its folder is the current one) is taken for it.
    spec = importlib.machinery.PathFinder.find_spec(name, [os.path.dirname(os.__file__)])
    if spec is None:
        spec = importlib.machinery.PathFinder.find_spec(name)
    if spec is None:
        raise ImportError(f'no standard library module named {name!r}', name=name)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    if _is_fastdigests(module):
        raise ImportError(f"{spec.origin} is fastdigest's module, not the standard library's {name!r}", name=name)
    return module


def _stdlib_hashlib():
    """The standard library's hashlib (see _stdlib_module)."""
    return _stdlib_module('hashlib')


# new(), pbkdf2_hmac() and fastdigest.hmac (in C) hand what they do not implement themselves (other
# algorithm names, other digestmods), with the caller's arguments as given, to the standard library's
# hashlib and hmac found here. This one call is everything the extension takes from the package: until
# it is made, the extension refuses those calls with ImportError rather than import a name the swap may
# have replaced.
_fastdigest._register(stdlib_module=_stdlib_module)


def __getattr__(name):
    if name in _FROM_HASHLIB:
        try:
            value = getattr(_stdlib_hashlib(), name)
        except AttributeError:
            raise AttributeError(f'module {__name__!r} has no attribute {name!r}') from None
    elif name == 'algorithms_guaranteed':
        # hashlib's set: what every Python's hashlib has. (It leaves out sha512_224 and sha512_256,
        # which fastdigest always has; `implementation` lists fastdigest's algorithms.)
        value = frozenset(_stdlib_hashlib().algorithms_guaranteed)
    elif name == 'algorithms_available':
        # hashlib's set and fastdigest's algorithms: every name new() accepts.
        value = frozenset(_stdlib_hashlib().algorithms_available | implementation.keys())
    elif name == 'batch_implementation':
        # Made on first use: the multi-buffer kernels are checked at the first batch, not at import.
        value = _fastdigest._batch_implementation()
    elif name in _FROM_SELF_TEST:
        from fastdigest import _self_test

        value = getattr(_self_test, name)
    elif name in _FROM_S3:
        from fastdigest import _s3

        value = getattr(_s3, name)
    elif name in _FROM_GIT:
        from fastdigest import _git

        value = getattr(_git, name)
    elif name in _FROM_TREE:
        from fastdigest import _tree

        value = getattr(_tree, name)
    else:
        raise AttributeError(f'module {__name__!r} has no attribute {name!r}')
    globals()[name] = value
    return value


def __dir__():
    present = (name for name in _FROM_HASHLIB if hasattr(_stdlib_hashlib(), name))
    return sorted(
        {
            *globals(),
            *present,
            *_SETS_FROM_HASHLIB,
            *_FROM_SELF_TEST,
            *_FROM_S3,
            *_FROM_GIT,
            *_FROM_TREE,
            'batch_implementation',
        }
    )


def get_include():
    """The folder of fastdigest's C header and Cython declarations (fastdigest.h, fastdigest.pxd); see the
    stubs (fastdigest/__init__.pyi) and docs/c-api.md."""
    import os

    return os.path.join(os.path.dirname(os.path.abspath(__file__)), 'include')


def self_test(*, seed=None):
    """Run every kernel this CPU runs against known answers and the standard library; see the stubs
    (fastdigest/__init__.pyi) for what it returns."""
    from fastdigest import _self_test

    return _self_test.run(seed)


def file_digest(fileobj, digest, /, *, _bufsize=2**18):
    """Hash the contents of a file-like object. Returns a digest object.

    *fileobj* must be a file-like object opened for reading in binary mode.
    It accepts file objects from open(), io.BytesIO(), and SocketIO objects.
    The function may bypass Python's I/O and use the file descriptor *fileno*
    directly.

    *digest* must either be a hash algorithm name as a *str*, a hash
    constructor, or a callable that returns a hash object.

    fastdigest also takes a tuple of those: then each block read is fed to
    every digest object, the file is read once, and the result is a tuple of
    the digest objects, in the same order.
    """
    # The semantics of hashlib.file_digest (Python 3.11+). Reads go through
    # readinto() into one reused buffer; both the read of a real file and
    # every update of at least get_gil_minsize() bytes run without the GIL.
    several = isinstance(digest, tuple)
    if several:
        if not digest:
            raise ValueError('file_digest() needs at least one algorithm, got ()')
        digestobjs = tuple(new(item) if isinstance(item, str) else item() for item in digest)
    elif isinstance(digest, str):
        digestobjs = (new(digest),)
    else:
        digestobjs = (digest(),)

    if hasattr(fileobj, 'getbuffer'):
        # io.BytesIO: hash its buffer in place, without a copy.
        with fileobj.getbuffer() as contents:
            for digestobj in digestobjs:
                digestobj.update(contents)
        return digestobjs if several else digestobjs[0]

    # Only binary files implement readinto().
    if not (hasattr(fileobj, 'readinto') and hasattr(fileobj, 'readable') and fileobj.readable()):
        raise ValueError(f"'{fileobj!r}' is not a file-like object in binary reading mode.")

    buf = bytearray(_bufsize)
    view = memoryview(buf)
    updates = [digestobj.update for digestobj in digestobjs]
    while True:
        size = fileobj.readinto(buf)
        if size is None:
            raise BlockingIOError('I/O operation would block.')
        if size == 0:
            break
        chunk = view[:size]
        for update in updates:
            update(chunk)
    return digestobjs if several else digestobjs[0]
