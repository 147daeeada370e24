"""What tests/test_capi.py checks of the C API through the capi_probe extension (capi_probe.c), against hashlib
and hmac: in the test process, and in a child process per CPU level, as

    python capi_checks.py BUILD_FOLDER SEED

which runs every check with the kernels the child's import chose and prints a JSON object: each algorithm's
stream and batch kernel, as the C API names them. Only the standard library and fastdigest are imported here.
"""

import hashlib
import hmac
import json
import random
import sys

import fastdigest


def check_info(probe):
    """The API's description of itself and of each algorithm: the header's version, the running struct, the
    algorithm table in fastdigest's order, and the kernels fastdigest itself reports."""
    info = probe.info()
    assert (info['major'], info['minor']) == (1, 0), info
    # The struct of the running fastdigest is at least as long as the header that built the probe knows.
    assert info['size'] >= info['header_size']
    names = [row['name'] for row in info['algorithms']]
    assert names == list(fastdigest.implementation), names
    assert info['algorithm_count'] == len(names) and info['out_of_range']
    for row in info['algorithms']:
        reference = hashlib.new(row['name'])
        assert row['id'] == names.index(row['name'])
        assert (row['digest_size'], row['block_size']) == (reference.digest_size, reference.block_size), row
        assert 0 < row['state_size'] <= info['state_room'] and row['state_align'] in (1, 2, 4, 8, 16), row
        assert row['kernel'] == fastdigest.implementation[row['name']], row
        assert row['batch_kernel'] == fastdigest.batch_implementation[row['name']], row
    assert info['hmac_state_size'] > 0 and info['hmac_state_align'] in (1, 2, 4, 8, 16)
    return info


def views(rng, lengths):
    """Messages of the given lengths, each at a random offset into a buffer of its own, so that the kernels
    read them at every alignment."""
    messages = []
    for length in lengths:
        offset = rng.randrange(16)
        messages.append(memoryview(rng.randbytes(offset + length))[offset:])
    return messages


def check_streams(probe, name, rng, block):
    lengths = [0, 1, block - 9, block - 8, block - 1, block, block + 1, 2 * block + 3, rng.randrange(5000)]
    for length in lengths:
        (data,) = views(rng, [length])
        assert probe.digest(name, data) == hashlib.new(name, data).digest(), (name, length)
        # The same bytes in random parts, with a digest from a copy of the state after some of them.
        cuts = sorted(rng.sample(range(length + 1), min(length + 1, 4)))
        parts = [data[a:b] for a, b in zip([0, *cuts], [*cuts, length], strict=True)]
        ends = sorted(rng.sample(range(len(parts) + 1), min(len(parts) + 1, 3)))
        whole, copies = probe.stream(name, parts, ends)
        assert whole == hashlib.new(name, data).digest(), (name, length, cuts)
        prefixes = [sum(len(part) for part in parts[:end]) for end in ends]
        assert copies == [hashlib.new(name, data[:end]).digest() for end in prefixes], (name, length, cuts)


def check_batches(probe, name, rng, block):
    # Around a kernel's lane counts, and across the C API's chunks of 128 messages, of lengths alike and not.
    for count in (0, 1, 2, 15, 17, 129, 300):
        same = rng.randrange(3 * block)
        for lengths in ([same] * count, [rng.randrange(3 * block) for _ in range(count)]):
            messages = views(rng, lengths)
            want = [hashlib.new(name, m).digest() for m in messages]
            assert probe.digest_many(name, messages) == want, (name, count, lengths[:3])
            key = rng.randbytes(rng.choice((0, 3, block, block + 1)))
            want = [hmac.digest(key, m, name) for m in messages]
            assert probe.hmac_many(name, key, messages) == want, (name, count, len(key))


def check_hmac(probe, name, rng, block):
    for key_length in (0, 1, block - 1, block, block + 1, 3 * block):
        key = rng.randbytes(key_length)
        (data,) = views(rng, [rng.randrange(4 * block)])
        assert probe.hmac(name, key, data) == hmac.digest(key, data, name), (name, key_length)
        parts = [data[: len(data) // 3], data[len(data) // 3 :], b'', b'tail']
        macs, whole = probe.hmac_stream(name, key, parts)
        so_far = b''
        for part, mac in zip(parts, macs, strict=True):
            so_far += bytes(part)
            assert mac == hmac.digest(key, so_far, name), (name, key_length, len(so_far))
        assert whole == hmac.digest(key, so_far, name)


def check_pbkdf2(probe, name, rng, digest_size):
    for iterations in (1, 2, 17):
        for length in (1, digest_size - 1, digest_size, 3 * digest_size + 5):
            password, salt = rng.randbytes(rng.randrange(200)), rng.randbytes(rng.randrange(40))
            want = hashlib.pbkdf2_hmac(name, password, salt, iterations, length)
            assert probe.pbkdf2_hmac(name, password, salt, iterations, length) == want, (name, iterations, length)
    # Refused, with nothing written: what hashlib refuses with ValueError, and a key RFC 8018 does not allow.
    assert probe.pbkdf2_hmac(name, b'p', b's', 0, 32) is None
    assert probe.pbkdf2_hmac(name, b'p', b's', 1, 0) is None
    assert probe.pbkdf2_refuses_long_key(name) in (True, None)


def check_everything(probe, seed):
    """Every function of the API, for every algorithm, against the standard library. Returns the kernels."""
    rng = random.Random(seed)
    info = check_info(probe)
    for row in info['algorithms']:
        name = row['name']
        check_streams(probe, name, rng, row['block_size'])
        check_batches(probe, name, rng, row['block_size'])
        check_hmac(probe, name, rng, row['block_size'])
        check_pbkdf2(probe, name, rng, row['digest_size'])
    return {row['name']: [row['kernel'], row['batch_kernel']] for row in info['algorithms']}


if __name__ == '__main__':
    build, seed = sys.argv[1], int(sys.argv[2])
    sys.path.insert(0, build)
    import capi_probe

    print(json.dumps(check_everything(capi_probe, seed)))
