"""fingerprint() of lists whose strs and ints it writes in place, against the reference encoder.

A list's run of compact ASCII strs of up to 127 code units and ints of int64's range is built through a cursor
for as long as the buffer has room for the longest such item, and every other item goes the general way: each
length on both sides of 127, non-ASCII and long strs, ints at and beyond int64's ends, at every place in the
stream's buffer (the leading str shifts them), under a 64-byte and a 128-byte block, at the top and nested.
"""

import hashlib

import fastdigest
import fingerprint_reference as reference

WORDS = ['x' * n for n in range(140)] + ['\xe9' * 3, '\u20ac', '\U0001f600', 'a' * 5000]
INTS = [0, 1, -1, 63, -64, 64, 2**30, -(2**30), 2**62, 2**63 - 1, -(2**63), 2**63, -(2**63) - 1, 10**40]


def test_lists_of_short_strs_and_ints_at_every_place_in_the_buffer():
    for shift in range(0, 200, 7):
        items = [item for pair in zip(WORDS * 3, INTS * 30, strict=False) for item in pair]
        for value in (['y' * shift, *items], {'k': ['y' * shift, *items], 'j': [items, 'z' * shift]}):
            for name in ('md5', 'sha512'):
                assert fastdigest.fingerprint(name, value) == hashlib.new(name, reference.encode(value)).digest()
