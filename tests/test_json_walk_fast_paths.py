"""json_digest's fast paths against json.dumps: the sorted order of keys it remembers, and strings written in place.

The walk remembers how the keys of a dict sort, by the key objects themselves, for the next dict with the same keys
in the same order; and it writes a Latin-1 string straight into its buffer, eight bytes at a time, where the buffer
has room for the string's longest text. These tests give those paths what could fool them: dicts with the same keys
in other orders, other keys of the same count, keys made and freed while the walk goes on (an address used again),
and strings with a byte that needs escaping at every place of a word, at every place of the buffer.
"""

import hashlib
import itertools
import json
import random

import pytest

import fastdigest
from fastdigest import _fastdigest


def assert_like_json(obj, **options):
    text = json.dumps(obj, **options).encode()
    assert _fastdigest._json_text(obj, **options) == text
    assert fastdigest.json_digest('sha256', obj, **options) == hashlib.sha256(text).digest()


# --- the sorted order of keys, remembered ----------------------------------------------------------------------


def test_dicts_of_the_same_keys_in_other_orders():
    keys = ['id', 'title', 'tags', 'score', 'weights', 'active', 'parent', 'meta']
    rng = random.Random(1)
    dicts = []
    for _ in range(60):
        order = keys[:]
        if rng.random() < 0.5:
            rng.shuffle(order)
        dicts.append({key: i for i, key in enumerate(order)})
    assert_like_json(dicts, sort_keys=True)


def test_dicts_of_every_count_of_keys_share_slots():
    # Counts on both sides of the most remembered (16), several to a slot, nested in each other.
    rng = random.Random(2)
    words = [''.join(rng.choice('abcé') for _ in range(rng.randrange(1, 6))) for _ in range(200)]
    doc = []
    for count in itertools.chain(range(1, 24), range(23, 0, -1), range(1, 24, 3)):
        keys = rng.sample(sorted(set(words)), count)
        inner = {key: count for key in rng.sample(keys, len(keys))}
        doc.append({key: inner for key in keys})
        doc.append({key: [inner, {key: 0}] for key in reversed(keys)})
    assert_like_json(doc, sort_keys=True)
    assert_like_json(doc, sort_keys=True, indent=1)


@pytest.mark.parametrize(
    'keys',
    [['ab', 'a', 'abc', 'b', ''], ['ß', 'z', 'é', 'ÿ', 'a'], ['ā', 'a', 'aā', 'a😀', 'aa', '😀', '\uffff'],
     ['prefix_000010', 'prefix_000002', 'prefix_0000100', 'prefix_00001']],
    ids=['prefixes', 'latin-1', 'wider kinds', 'long prefixes'],
)  # fmt: skip
def test_keys_compared_by_code_point(keys):
    assert_like_json([{key: key for key in order} for order in itertools.permutations(keys)], sort_keys=True)


def test_keys_made_and_freed_during_the_walk():
    # default= makes a dict of two new keys each time, freed before the next call makes two more: the allocator
    # gives the new keys the freed ones' addresses, in the same order, and the walk must not take them for the keys
    # that were there, which sorted the other way round.
    class Fresh:
        def __init__(self, seed):
            self.seed = seed

    def default(obj):
        first, second = ''.join(['k', 'ab'[obj.seed % 2]]), ''.join(['k', 'ba'[obj.seed % 2]])
        return {second: obj.seed, first: -obj.seed}

    assert_like_json([Fresh(seed) for seed in range(50)], sort_keys=True, default=default)
    assert_like_json([Fresh(seed) for seed in range(50)], sort_keys=True, default=default, indent=1)


# --- Latin-1 strings written in place ----------------------------------------------------------------------------

# A byte of every class the scan tells apart: plain, the edges of plain, escaped, DEL, and Latin-1 above ASCII.
SPECIAL = ['"', '\\', '\x00', '\x1f', ' ', '~', '\x7f', '\x80', 'é', 'ÿ', '\n', '/']


@pytest.mark.parametrize('ensure_ascii', [True, False])
def test_a_special_byte_at_every_place_of_a_word(ensure_ascii):
    texts = [
        'abcdefghijklmnopqrstuvwxyz'[:length][:place] + special + 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'[: length - place - 1]
        for special in SPECIAL
        for length in range(1, 26)
        for place in range(length)
    ]
    texts += ['', 'a', 'a' * 8, 'é' * 8, '"' * 9, 'é"\\\x01' * 5]
    assert_like_json(texts, ensure_ascii=ensure_ascii)
    assert_like_json({text: text for text in texts}, ensure_ascii=ensure_ascii, sort_keys=True)


@pytest.mark.parametrize('ensure_ascii', [True, False])
@pytest.mark.parametrize('length', [255, 256, 257, 1500])
def test_strings_around_the_longest_written_in_place(length, ensure_ascii):
    rng = random.Random(length)
    texts = [''.join(rng.choice('ab"é\x01\x7f') for _ in range(length)) for _ in range(4)] + ['é' * length]
    assert_like_json(texts, ensure_ascii=ensure_ascii)


@pytest.mark.parametrize('ensure_ascii', [True, False])
def test_strings_at_every_place_of_the_buffer(ensure_ascii):
    # The hash's buffer is 8 KiB: padding of every length near it puts each string across its end, where there
    # is no room to write it in place.
    strings = ['"quoted"', 'délta', 'x' * 30, '\x01' * 12, 'plain text of some words']
    for padding in range(8150, 8200):
        assert_like_json(['p' * padding, *strings], ensure_ascii=ensure_ascii)
