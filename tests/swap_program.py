"""Run by tests/test_swap.py in a fresh interpreter: python swap_program.py MODE PART.

MODE is how sys.modules is set up before anything below imports hashlib or hmac:
  none    nothing is replaced: the standard library's modules (the reference run)
  before  sys.modules['hashlib'] = fastdigest and sys.modules['hmac'] = fastdigest.hmac before the
          standard library's hashlib or hmac was ever imported
  after   the same, after the standard library's hashlib and hmac were imported (and used)
PART is what runs through the modules the name 'hashlib' and 'hmac' then give: 'modules' (every public
name of both, pass-throughs included), 'itsdangerous', 'flask' or 'django' (real signing and key
derivation, imported after the swap). The program prints one JSON object of results, which the test
compares with the reference run's; any exception, a RecursionError included, fails the run.
"""

import json
import os
import sys
import time
import types

MODE, PART = sys.argv[1], sys.argv[2]
# The names the standard library's modules have here, computed by the test with the real modules.
HASHLIB_NAMES, HMAC_NAMES = json.loads(sys.argv[3]), json.loads(sys.argv[4])

if MODE == 'after':
    import hashlib as stdlib_hashlib
    import hmac as stdlib_hmac

    stdlib_hmac.new(b'k', b'm', stdlib_hashlib.sha256).digest()
if MODE in ('before', 'after'):
    import fastdigest
    import fastdigest.hmac

    sys.modules['hashlib'] = fastdigest
    sys.modules['hmac'] = fastdigest.hmac

import hashlib  # noqa: E402
import hmac  # noqa: E402

# Recursion through the swapped names would take ~1000 frames; a limit this low makes it fail at once,
# and leaves enough for the libraries' own depth.
sys.setrecursionlimit(400)

results = {}


def record(label, value):
    if isinstance(value, bytes):
        value = value.hex()
    assert label not in results, label
    results[label] = value


def check_swap():
    if MODE == 'none':
        assert hashlib.__name__ == 'hashlib' and hmac.__name__ == 'hmac', (hashlib, hmac)
        return
    assert hashlib is fastdigest and hmac is fastdigest.hmac, (hashlib, hmac)
    # What fastdigest hands on goes to the standard library's modules, never to its own.
    for name, own in (('hashlib', fastdigest), ('hmac', fastdigest.hmac)):
        stdlib = fastdigest._stdlib_module(name)
        assert stdlib is not own and stdlib.__name__ == name, (name, stdlib)
        assert not stdlib.__file__.startswith(os.path.dirname(fastdigest.__file__)), stdlib.__file__


def hash_result(obj):
    if obj.name.startswith('shake'):
        return [obj.name, obj.hexdigest(20)]
    return [obj.name, obj.digest_size, obj.block_size, obj.hexdigest()]


def pep247_module(constructor):
    """A PEP 247 hash module made of a hash constructor: new(data) and digest_size."""
    module = types.ModuleType('pep247_' + constructor.__name__)
    module.new = lambda data=b'': constructor(data)
    module.digest_size = constructor().digest_size
    return module


def run_modules():
    import functools
    import io

    for name in HASHLIB_NAMES:
        value = getattr(hashlib, name)  # every public name of the standard library's hashlib is there
        if name in ('algorithms_available', 'algorithms_guaranteed'):
            record(name, sorted(value))
        elif name in ('new', 'file_digest', 'pbkdf2_hmac', 'scrypt'):
            continue  # below, with arguments of their own
        else:
            record(f'hashlib.{name}', hash_result(value(b'abc')))
            try:  # a TypeError before 3.14, and on 3.13 before CPython's backport: the same with the swap
                record(f'hashlib.{name} data=', hash_result(value(data=b'abc')))
            except TypeError as exc:
                record(f'hashlib.{name} data=', f'TypeError: {exc}')
    for name in sorted(hashlib.algorithms_available):
        record(f'new {name}', hash_result(hashlib.new(name, b'abc')))
    record('new SHA-256', hash_result(hashlib.new('SHA-256', b'abc')))
    record('new blake2b parameters', hash_result(hashlib.new('blake2b', b'abc', digest_size=20, key=b'k', person=b'p')))
    record('blake2s parameters', hash_result(hashlib.blake2s(b'abc', digest_size=12, salt=b's')))
    for name in ('sha256', 'sha1', 'sha3_256', 'blake2b', 'sha512_256'):
        record(f'pbkdf2_hmac {name}', hashlib.pbkdf2_hmac(name, b'password', b'salt', 3, 50))
    record('scrypt', hashlib.scrypt(b'password', salt=b'salt', n=16, r=8, p=1, dklen=32))
    if 'file_digest' in HASHLIB_NAMES:  # 3.11+ (fastdigest has it on 3.10 too)
        digests = {
            'sha256': 'sha256',
            'sha3_256': 'sha3_256',
            'hashlib.blake2s': hashlib.blake2s,
            'hashlib.sha1': hashlib.sha1,
        }
        for label, digest in digests.items():
            record(f'file_digest {label}', hash_result(hashlib.file_digest(io.BytesIO(b'abc' * 1000), digest)))

    for name in HMAC_NAMES:
        assert hasattr(hmac, name), name
    record('hmac.digest_size', hmac.digest_size)
    record('hmac.trans_5C', hmac.trans_5C)
    record('hmac.trans_36', hmac.trans_36)
    record('compare_digest', [hmac.compare_digest(b'abc', b'abc'), hmac.compare_digest('abc', 'abd')])

    def lazy_sha1(string=b''):  # itsdangerous's default digest_method, which signs every Flask session
        return hashlib.sha1(string)

    digestmods = {
        'sha256': 'sha256',
        'SHA512': 'SHA512',
        'sha3_256': 'sha3_256',
        'blake2b': 'blake2b',
        'hashlib.sha256': hashlib.sha256,
        'hashlib.sha3_384': hashlib.sha3_384,
        'hashlib.blake2b': hashlib.blake2b,
        'blake2s keyed (partial)': functools.partial(hashlib.blake2s, key=b'inner key'),
        'function': lazy_sha1,
        'PEP 247 module': pep247_module(hashlib.sha3_224),
        'PEP 247 module of sha256': pep247_module(hashlib.sha256),
    }
    key, msg = b'key' * 30, b'message' * 20
    for label, digestmod in digestmods.items():
        mac = hmac.new(key, msg[:10], digestmod)
        mac.update(msg[10:])
        copy = mac.copy()
        copy.update(b'more')
        record(f'hmac.new {label}', [mac.name, mac.digest_size, mac.block_size, mac.hexdigest(), copy.hexdigest()])
        record(f'hmac.HMAC {label}', hmac.HMAC(key, msg, digestmod=digestmod).digest())
        record(f'hmac.digest {label}', hmac.digest(key, msg, digestmod))
        record(f'hmac.new keywords {label}', hmac.new(key=key, msg=msg, digestmod=digestmod).digest())


def run_itsdangerous():
    import itsdangerous
    import itsdangerous.signer

    if MODE != 'none':
        assert itsdangerous.signer.hashlib is fastdigest and itsdangerous.signer.hmac is fastdigest.hmac
    secret = 'secret key'
    signer = itsdangerous.Signer(secret, salt='activate')
    signed = signer.sign('value')
    record('Signer', signed)
    record('Signer unsign', signer.unsign(signed))
    record('Signer sha256', itsdangerous.Signer(secret, digest_method=hashlib.sha256).sign(b'value'))
    record('Signer sha3_256', itsdangerous.Signer(secret, digest_method=hashlib.sha3_256).sign(b'value'))
    record('Signer none', itsdangerous.Signer(secret, key_derivation='none').sign(b'value'))
    record('Signer concat', itsdangerous.Signer(secret, key_derivation='concat').sign(b'value'))
    record('Signer hmac', itsdangerous.Signer(secret, key_derivation='hmac').sign(b'value'))
    serializer = itsdangerous.URLSafeSerializer(secret)
    token = serializer.dumps({'id': 5, 'name': 'itsdangerous'})
    record('URLSafeSerializer', token)
    record('URLSafeSerializer loads', serializer.loads(token))
    timed = itsdangerous.URLSafeTimedSerializer(secret, salt='reset')
    token = timed.dumps([1, 2, 3])
    record('URLSafeTimedSerializer', token)
    record('URLSafeTimedSerializer loads', timed.loads(token, max_age=60))
    try:
        timed.loads(token[:-1] + ('A' if token[-1] != 'A' else 'B'))
    except itsdangerous.BadSignature as error:
        record('bad signature', type(error).__name__)


def run_flask():
    import flask

    app = flask.Flask('swap')
    app.secret_key = 'flask secret'

    @app.route('/set/<value>')
    def set_value(value):
        flask.session['value'] = value
        return 'set'

    @app.route('/get')
    def get_value():
        return flask.session.get('value', 'nothing')

    client = app.test_client()
    response = client.get('/set/hello')
    record('flask set', [response.status_code, response.get_data(as_text=True), response.headers.get('Set-Cookie')])
    response = client.get('/get')
    record('flask get', [response.status_code, response.get_data(as_text=True)])


def run_django():
    import django
    from django.conf import settings

    settings.configure(
        SECRET_KEY='django secret',
        PASSWORD_HASHERS=[
            'django.contrib.auth.hashers.PBKDF2PasswordHasher',
            'django.contrib.auth.hashers.PBKDF2SHA1PasswordHasher',
        ],
        INSTALLED_APPS=['django.contrib.auth', 'django.contrib.contenttypes'],
    )
    django.setup()
    from django.contrib.auth import hashers
    from django.core import signing
    from django.utils import crypto

    if MODE != 'none':
        assert crypto.hashlib is fastdigest and crypto.hmac is fastdigest.hmac
    record('salted_hmac sha1', crypto.salted_hmac('salt', 'value').hexdigest())
    record('salted_hmac sha256', crypto.salted_hmac('salt', 'value', secret='s', algorithm='sha256').hexdigest())
    record('salted_hmac sha3_256', crypto.salted_hmac('salt', 'value', algorithm='sha3_256').hexdigest())
    record('pbkdf2 sha256', crypto.pbkdf2('password', 'salt', 1000, 40))
    record('pbkdf2 sha1', crypto.pbkdf2('password', 'salt', 100, digest=hashlib.sha1))
    record('constant_time_compare', [crypto.constant_time_compare('a', 'a'), crypto.constant_time_compare('a', 'b')])
    encoded = hashers.PBKDF2PasswordHasher().encode('correct horse', 'saltsalt', iterations=2000)
    record('PBKDF2PasswordHasher', encoded)
    record(
        'check_password', [hashers.check_password('correct horse', encoded), hashers.check_password('wrong', encoded)]
    )
    record('PBKDF2SHA1PasswordHasher', hashers.PBKDF2SHA1PasswordHasher().encode('pw', 'saltsalt', iterations=100))
    record('make_password', hashers.make_password('pw', salt='saltsalt', hasher='pbkdf2_sha256'))
    record('signing', signing.dumps({'a': 1}, salt='x', compress=True))
    record('Signer', signing.Signer(salt='y').sign('value'))
    record('Signer sha512', signing.Signer(salt='y', algorithm='sha512').sign('value'))


# Timestamps (itsdangerous, Flask's session cookie, Django's signing) must not differ between runs.
time.time = lambda: 1_800_000_000.0

check_swap()
{'modules': run_modules, 'itsdangerous': run_itsdangerous, 'flask': run_flask, 'django': run_django}[PART]()
print(json.dumps(results, sort_keys=True))
