"""Published test vectors: FIPS 180 / RFC 1321 examples and NIST CAVP SHAVS response files.

The CAVP files come from PyPI's `cryptography-vectors` (a test extra). Without it these tests fail with a
message saying so: a missing vector set must never pass as "nothing to check".
"""

import hashlib
import importlib
import importlib.resources

import pytest

import fastdigest

ALGORITHMS = ('md5', 'sha1', 'sha224', 'sha256', 'sha384', 'sha512', 'sha512_224', 'sha512_256')

# --- FIPS 180 and RFC 1321 examples -----------------------------------------------------------------

ABC = b'abc'
# The two-block (448-bit) message of the 32-bit-word examples and the 896-bit one of the 64-bit-word examples.
MSG_448 = b'abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq'
MSG_896 = (
    b'abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu'
)
MILLION_A = b'a' * 1_000_000

# Sources: FIPS 180-2 (2002) Appendix A (SHA-1), B (SHA-256), C (SHA-512), D (SHA-384); FIPS 180-2 Change
# Notice 1 and RFC 3874 section 3 (SHA-224); NIST CSRC "Examples with Intermediate Values", files
# SHA512_224.pdf and SHA512_256.pdf (SHA-512/224, SHA-512/256: "abc" and the 896-bit message only).
FIPS_180_EXAMPLES = {
    'sha1': {
        ABC: 'a9993e364706816aba3e25717850c26c9cd0d89d',
        MSG_448: '84983e441c3bd26ebaae4aa1f95129e5e54670f1',
        MILLION_A: '34aa973cd4c4daa4f61eeb2bdbad27316534016f',
    },
    'sha224': {
        ABC: '23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7',
        MSG_448: '75388b16512776cc5dba5da1fd890150b0c6455cb4f58b1952522525',
        MILLION_A: '20794655980c91d8bbb4c1ea97618a4bf03f42581948b2ee4ee7ad67',
    },
    'sha256': {
        ABC: 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
        MSG_448: '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
        MILLION_A: 'cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0',
    },
    'sha384': {
        ABC: 'cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7',
        MSG_896: '09330c33f71147e83d192fc782cd1b4753111b173b3b05d22fa08086e3b0f712fcc7c71a557e2db966c3e9fa91746039',
        MILLION_A: '9d0e1809716474cb086e834e310a4a1ced149e9c00f248527972cec5704c2a5b07b8b3dc38ecc4ebae97ddd87f3d8985',
    },
    'sha512': {
        ABC: 'ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a'
        '2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f',
        MSG_896: '8e959b75dae313da8cf4f72814fc143f8f7779c6eb9f7fa17299aeadb6889018'
        '501d289e4900f7e4331b99dec4b5433ac7d329eeb6dd26545e96e55b874be909',
        MILLION_A: 'e718483d0ce769644e2e42c7bc15b4638e1f98b13b2044285632a803afa973eb'
        'de0ff244877ea60a4cb0432ce577c31beb009c5c2c49aa2e4eadb217ad8cc09b',
    },
    'sha512_224': {
        ABC: '4634270f707b6a54daae7530460842e20e37ed265ceee9a43e8924aa',
        MSG_896: '23fec5bb94d60b23308192640b0c453335d664734fe40e7268674af9',
    },
    'sha512_256': {
        ABC: '53048e2681941ef99b2e29b76b4c7dabe4c2d0c634fc6d46e0e2f13107e7af23',
        MSG_896: '3928e184fb8690f840da3988121d31be65cb9d3ef83ee6146feac861e19b563a',
    },
}

# Source: RFC 1321, appendix A.5 ("test suite").
RFC_1321_SUITE = {
    b'': 'd41d8cd98f00b204e9800998ecf8427e',
    b'a': '0cc175b9c0f1b6a831c399e269772661',
    b'abc': '900150983cd24fb0d6963f7d28e17f72',
    b'message digest': 'f96b697d7cb7938d525a2f31aaf161d0',
    b'abcdefghijklmnopqrstuvwxyz': 'c3fcd3d76192e4007dfb496cca67e13b',
    b'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789': 'd174ab98d277d9f5a5611c2c9f419d9f',
    b'1234567890' * 8: '57edf4a22be3c955ac49da2e2107b67a',
}

PUBLISHED = dict(FIPS_180_EXAMPLES, md5=RFC_1321_SUITE)

MILLION_A_CHUNK_SIZES = (1, 3, 63, 64, 65, 127, 128, 129, 1000, 4096)


def message_label(message):
    labels = {MSG_448: '448-bit', MSG_896: '896-bit', MILLION_A: 'million-a'}
    return labels.get(message, f'{len(message)}-bytes')


@pytest.mark.parametrize(
    ('name', 'message', 'expected'),
    [
        pytest.param(name, message, expected, id=f'{name}-{message_label(message)}')
        for name, table in PUBLISHED.items()
        for message, expected in table.items()
    ],
)
def test_published_example(name, message, expected):
    assert fastdigest.new(name, message).hexdigest() == expected
    assert getattr(fastdigest, name)(message).hexdigest() == expected
    # The published value must also be what this machine's hashlib computes: a typo here would otherwise
    # pass as a fastdigest bug, or hide one.
    assert hashlib.new(name, message).hexdigest() == expected


@pytest.mark.parametrize('chunk_size', MILLION_A_CHUNK_SIZES)
@pytest.mark.parametrize('name', ALGORITHMS)
def test_million_a_in_chunks(name, chunk_size):
    """'a' * 1,000,000 fed in pieces of chunk_size bytes.

    Against hashlib for every algorithm, and against the published value where one is named above (FIPS 180-2
    for SHA-1, SHA-224, SHA-256, SHA-384, SHA-512; no source we can name gives it for MD5, SHA-512/224 and
    SHA-512/256, so those are checked against hashlib only).
    """
    view = memoryview(MILLION_A)
    hash_object = fastdigest.new(name)
    for start in range(0, len(MILLION_A), chunk_size):
        hash_object.update(view[start : start + chunk_size])
    assert hash_object.hexdigest() == hashlib.new(name, MILLION_A).hexdigest()
    published = FIPS_180_EXAMPLES.get(name, {}).get(MILLION_A)
    if published is not None:
        assert hash_object.hexdigest() == published


# --- NIST CAVP SHAVS response files (byte-oriented), via cryptography-vectors -------------------------

# algorithm -> (folder under cryptography_vectors/hashes/, file-name stem)
CAVP_FILES = {
    'sha1': ('SHA1', 'SHA1'),
    'sha224': ('SHA2', 'SHA224'),
    'sha256': ('SHA2', 'SHA256'),
    'sha384': ('SHA2', 'SHA384'),
    'sha512': ('SHA2', 'SHA512'),
    'sha512_224': ('SHA2', 'SHA512_224'),
    'sha512_256': ('SHA2', 'SHA512_256'),
}


def vector_file(*parts):
    """The text of cryptography_vectors/hashes/<parts>; fails the test when the package is missing."""
    try:
        package = importlib.import_module('cryptography_vectors')
    except ImportError:
        pytest.fail(
            'the NIST/RFC test vectors need the test extra cryptography-vectors '
            '(pip install cryptography-vectors); without it nothing would be checked'
        )
    resource = importlib.resources.files(package).joinpath('hashes', *parts)
    if not resource.is_file():
        pytest.fail(f'cryptography-vectors has no hashes/{"/".join(parts)} (package at {package.__file__})')
    return resource.read_text(encoding='ascii')


def parse_response_file(text):
    """The records of a CAVP .rsp file (or the RFC 1321 file in the same format): a list of dicts.

    Lines are 'Key = value'; '#' starts a comment line; '[L = n]' sets the digest length for the records that
    follow (kept under the key 'L'); a blank line ends a record. Keys are kept as written.
    """
    records = []
    current = {}
    section = {}
    for raw_line in text.splitlines():
        line = raw_line.strip()
        if line.startswith('#'):
            continue
        if not line:
            if current:
                records.append(dict(section, **current))
                current = {}
            continue
        if line.startswith('[') and line.endswith(']'):
            key, _, value = line[1:-1].partition('=')
            section[key.strip()] = value.strip()
            continue
        key, separator, value = line.partition('=')
        assert separator, f'unparsed line in vector file: {raw_line!r}'
        current[key.strip()] = value.strip()
    if current:
        records.append(dict(section, **current))
    return records


def message_records(text):
    """(message bytes, expected digest bytes) pairs of a ShortMsg/LongMsg-style file."""
    pairs = []
    for record in parse_response_file(text):
        bit_length = int(record['Len'])
        assert bit_length % 8 == 0, 'byte-oriented files only'
        # A Len = 0 record carries Msg = 00: the message is the first Len // 8 bytes.
        message = bytes.fromhex(record['Msg'])[: bit_length // 8]
        assert len(message) == bit_length // 8
        pairs.append((message, bytes.fromhex(record['MD'])))
    return pairs


def ragged_pieces(message):
    """message cut into pieces whose sizes cycle over values around the block sizes."""
    sizes = (1, 63, 64, 65, 0, 127, 128, 129, 7)
    pieces = []
    start = 0
    index = 0
    while start < len(message):
        size = sizes[index % len(sizes)]
        pieces.append(message[start : start + size])
        start += size
        index += 1
    return pieces


def check_message_records(name, pairs):
    constructor = getattr(fastdigest, name)
    mismatches = []
    for message, expected in pairs:
        one_shot = constructor(message).digest()
        incremental = fastdigest.new(name)
        for piece in ragged_pieces(message):
            incremental.update(piece)
        if one_shot != expected or incremental.digest() != expected:
            mismatches.append(len(message))
    assert not mismatches, f'{name}: wrong digests for message lengths (bytes) {mismatches}'


@pytest.mark.parametrize('name', sorted(CAVP_FILES))
def test_cavp_short_messages(name):
    folder, stem = CAVP_FILES[name]
    text = vector_file(folder, f'{stem}ShortMsg.rsp')
    digest_size = hashlib.new(name).digest_size
    assert {record['L'] for record in parse_response_file(text)} == {str(digest_size)}
    pairs = message_records(text)
    # One record per byte length 0 .. block size.
    block_size = hashlib.new(name).block_size
    assert [len(message) for message, _ in pairs] == list(range(block_size + 1))
    check_message_records(name, pairs)


@pytest.mark.parametrize('name', sorted(CAVP_FILES))
def test_cavp_long_messages(name):
    folder, stem = CAVP_FILES[name]
    pairs = message_records(vector_file(folder, f'{stem}LongMsg.rsp'))
    assert len(pairs) == hashlib.new(name).block_size
    check_message_records(name, pairs)


@pytest.mark.parametrize('name', sorted(CAVP_FILES))
def test_cavp_monte_carlo(name):
    """SHAVS Monte Carlo: MD0 = MD1 = MD2 = Seed; for i in 3..1002: MDi = H(MDi-3 || MDi-2 || MDi-1);
    the checkpoint MD1002 is compared and seeds the next of the 100 checkpoints."""
    folder, stem = CAVP_FILES[name]
    records = parse_response_file(vector_file(folder, f'{stem}Monte.rsp'))
    seed = bytes.fromhex(records[0]['Seed'])
    checkpoints = [bytes.fromhex(record['MD']) for record in records if 'MD' in record]
    assert [int(record['COUNT']) for record in records if 'MD' in record] == list(range(100))
    constructor = getattr(fastdigest, name)
    for count, expected in enumerate(checkpoints):
        md0 = md1 = md2 = seed
        for _ in range(3, 1003):
            md0, md1, md2 = md1, md2, constructor(md0 + md1 + md2).digest()
        assert md2 == expected, f'{name}: Monte Carlo checkpoint COUNT = {count}'
        seed = md2


def test_rfc_1321_file():
    """MD5: the RFC 1321 test suite as shipped by cryptography-vectors (hashes/MD5/rfc-1321.txt)."""
    pairs = message_records(vector_file('MD5', 'rfc-1321.txt'))
    assert {message: expected.hex() for message, expected in pairs} == RFC_1321_SUITE
    check_message_records('md5', pairs)
