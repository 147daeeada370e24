"""HMAC (RFC 2104) on fastdigest's hashes: a drop-in for the standard library's hmac module.

new(), digest(), compare_digest, the HMAC type and digest_size behave as hmac's do. For the eight
algorithms fastdigest implements, given by name (as hashlib.new() accepts them), as a fastdigest
constructor such as fastdigest.sha256, or as hashlib's own constructor such as hashlib.sha256, the
work is done in C: the key's inner and outer states are computed once per object and kept inline,
and long messages are hashed with the GIL released.

Any other digestmod (a name fastdigest lacks such as 'sha3_256', another callable, or a PEP 247
module) is handed to the standard library's hmac with the same arguments, so it works as it does
there and fails with the standard library's own exceptions; the object returned is then the
standard library's hmac.HMAC.

One difference: new() and HMAC() accept a key in any C-contiguous buffer (memoryview, array, ...),
where the standard library takes only bytes and bytearray. A str key is refused with hmac's
TypeError.
"""

from hmac import compare_digest

from fastdigest._fastdigest import HMAC, _hmac_digest, _hmac_new

__all__ = ["HMAC", "compare_digest", "digest", "digest_size", "new"]

# As in the standard library: the size of an HMAC depends on its hash, so the module-level value is
# None. Read digest_size from an HMAC object instead.
digest_size = None

# The C functions themselves, not wrappers, so that a call costs no extra Python frame. Their
# signatures are hmac's: new(key, msg=None, digestmod='') and digest(key, msg, digest).
new = _hmac_new
digest = _hmac_digest

del _hmac_new, _hmac_digest
