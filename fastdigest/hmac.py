"""HMAC (RFC 2104) on fastdigest's hashes: a drop-in for the standard library's hmac module.

new(), digest(), compare_digest, the HMAC type and digest_size behave as hmac's do. For the
algorithms fastdigest implements, given by name (as hashlib.new() accepts them), as a fastdigest
constructor such as fastdigest.sha256, or as one of the constructors hashlib is made of (hashlib.sha256,
that is _hashlib.openssl_sha256 or the builtin _sha2.sha256), the work is done in C: the key's inner and
outer states are computed once per object and kept inline, and long messages are hashed with the GIL
released.

Any other digestmod (a name fastdigest lacks such as 'sha3_256', another callable, such as a wrapper
or a mock that replaced hashlib.sha256, or a PEP 247 module) is handed to the standard library's hmac
with the same arguments, so it works as it does there and fails with the standard library's own
exceptions; the HMAC object then hands every call to the standard library's hmac.HMAC it holds.

HMAC may be subclassed as hmac.HMAC is: a subclass overrides __init__, calls
super().__init__(key, msg, digestmod), and adds attributes and methods.

The arguments are taken as the running Python's hmac takes them, and refused with its words: new()
and HMAC() take the key as bytes or bytearray only, digest() in any buffer.

A program may put this module in sys.modules as 'hmac' (and fastdigest as 'hashlib'), so that every
library uses it: what it hands on then still goes to the standard library's hmac, never back here.
"""

from fastdigest import _stdlib_module
from fastdigest._fastdigest import HMAC, _hmac_digest, _hmac_digest_many, _hmac_new

try:
    # The standard library's hmac.compare_digest itself (OpenSSL's CRYPTO_memcmp), taken from where hmac
    # takes it, so that importing this module does not import hmac.
    from _hashlib import compare_digest
except ImportError:  # pragma: no cover - Python built without OpenSSL
    from _operator import _compare_digest as compare_digest

__all__ = ['HMAC', 'compare_digest', 'digest', 'digest_many', 'digest_size', 'new', 'trans_36', 'trans_5C']


def __getattr__(name):
    # The key-padding tables of the standard library's hmac, which code computing HMAC or PBKDF2 by
    # hand imports from it: its own objects, looked up on first use.
    if name in ('trans_5C', 'trans_36'):
        value = getattr(_stdlib_module('hmac'), name)
        globals()[name] = value
        return value
    raise AttributeError(f'module {__name__!r} has no attribute {name!r}')


def __dir__():
    return sorted({*globals(), 'trans_5C', 'trans_36'})


# As in the standard library: the size of an HMAC depends on its hash, so the module-level value is
# None. Read digest_size from an HMAC object instead.
digest_size = None

# The C functions themselves, not wrappers, so that a call costs no extra Python frame. Their
# signatures are hmac's: new(key, msg=None, digestmod='') and digest(key, msg, digest); digest_many(key,
# messages, digest, /, *, threads=None, out=None) is fastdigest's own.
new = _hmac_new
digest = _hmac_digest
digest_many = _hmac_digest_many

del _hmac_new, _hmac_digest, _hmac_digest_many
