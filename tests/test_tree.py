"""digest_tree against the tools whose digests it gives: the dirhash package, checksumdir, and the
manifest of `fastdigest -r` (and of coreutils' sha256sum over `find`, where the two list the same files).

Each digest here is compared with the tool's own function run on the same generated folder; what each
format does with links, special files and unreadable folders is checked against the tool where the tool
gives an answer, and against the documented error where it hangs or passes over a folder silently.
"""

import errno
import hashlib
import os
import shutil
import socket
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fastdigest
from conftest import unsupported
from test_git import run_without_root_privileges

dirhash = pytest.importorskip('dirhash', reason='needs the dirhash package (the test extra installs it)')
checksumdir = pytest.importorskip('checksumdir', reason='needs the checksumdir package (the test extra installs it)')

# checksumdir's algorithms; dirhash takes any of hashlib's.
NAMES = ('md5', 'sha1', 'sha256', 'sha512')


def write(root, path, data=b'', mode=0o644):
    full = os.path.join(os.fsencode(root), path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, 'wb') as file:
        file.write(data)
    os.chmod(full, mode)


def make_tree(root, utf8_names=True):
    """Files at several depths, names with spaces and newlines (and, unless utf8_names, bytes that
    are not UTF-8), an empty file, a big one, empty folders, links to files and folders, a dangling
    link."""
    root = os.fsencode(root)
    write(root, b'top.txt', b'top\n')
    write(root, b'empty', b'')
    write(root, b'with space/inner file', b'inner\n')
    write(root, b'new\nline/x', b'newline folder')
    write(root, b'a/b/c/deep', os.urandom(3000))
    write(root, b'a/b/same', b'top\n')  # the same content as top.txt
    write(root, b'a/.hidden', b'hidden')
    write(root, b'big', os.urandom(2**20 + 5))
    write(root, 'caf\u00e9 \u2603'.encode(), b'unicode name')
    if not utf8_names:
        write(root, b'\xff\xfe/latin-1 \xe9', b'not utf-8')
    os.makedirs(os.path.join(root, b'empty folder/empty below'))
    os.symlink(b'top.txt', os.path.join(root, b'link to file'))
    os.symlink(b'a/b', os.path.join(root, b'link to folder'))
    os.symlink(b'nowhere', os.path.join(root, b'dangling'))


@pytest.mark.parametrize('name', NAMES)
def test_dirhash_equals_the_dirhash_package(tmp_path, name):
    make_tree(tmp_path)
    expected = dirhash.dirhash(str(tmp_path), name)
    assert fastdigest.digest_tree(name, tmp_path) == expected
    assert fastdigest.digest_tree(name, str(tmp_path), format='dirhash', threads=1) == expected


@pytest.mark.parametrize('name', NAMES)
def test_checksumdir_equals_checksumdir(tmp_path, name):
    make_tree(tmp_path, utf8_names=False)
    (tmp_path / 'self loop').symlink_to('self loop')  # checksumdir: missing, the digest of no bytes
    (tmp_path / 'a' / 'up').symlink_to('..')  # a link to a folder: not followed
    expected = checksumdir.dirhash(str(tmp_path), name)
    assert fastdigest.digest_tree(name, tmp_path, format='checksumdir') == expected
    assert fastdigest.digest_tree(name, tmp_path, format='checksumdir', threads=1) == expected


def test_checksumdir_of_an_empty_folder(tmp_path):
    assert fastdigest.digest_tree('md5', tmp_path, format='checksumdir') == checksumdir.dirhash(str(tmp_path))


def cli_manifest(directory, name):
    """The lines `fastdigest -r -a NAME .` prints in the folder."""
    return subprocess.run(
        [sys.executable, '-I', '-m', 'fastdigest', '-r', '-a', name, '.'],  # -I: not a fastdigest in the folder
        cwd=directory,
        capture_output=True,
        check=True,
        timeout=60,
    ).stdout


@pytest.mark.parametrize('name', NAMES)
def test_sha256sum_is_the_digest_of_the_cli_manifest(tmp_path, name):
    make_tree(tmp_path, utf8_names=False)
    write(tmp_path, b'back\\slash', b'escaped in the manifest')
    # -r reports a dangling link as the error its open gives, and so does the format.
    with pytest.raises(FileNotFoundError) as info:
        fastdigest.digest_tree(name, tmp_path, format='sha256sum')
    assert info.value.filename == os.path.join(str(tmp_path), 'dangling')
    (tmp_path / 'dangling').unlink()
    manifest = cli_manifest(tmp_path, name)
    assert b'\\' in manifest and b'./link to file' in manifest  # escaped names; links to files listed
    expected = hashlib.new(name, manifest).hexdigest()
    assert fastdigest.digest_tree(name, tmp_path, format='sha256sum') == expected


@pytest.mark.skipif(
    not all(shutil.which(tool) for tool in ('find', 'sort', 'xargs', 'sha256sum')),
    reason="needs GNU find, sort, xargs and coreutils' sha256sum",
)
def test_sha256sum_equals_coreutils_over_find(tmp_path):
    # Without links, `find -type f` lists the files -r lists, and sha256sum escapes names as -r does.
    make_tree(tmp_path, utf8_names=False)
    for link in ('link to file', 'link to folder', 'dangling'):
        (tmp_path / link).unlink()
    manifest = subprocess.run(
        'find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum',
        shell=True,
        cwd=tmp_path,
        capture_output=True,
        check=True,
        timeout=60,
    ).stdout
    assert fastdigest.digest_tree('sha256', tmp_path, format='sha256sum') == hashlib.sha256(manifest).hexdigest()


# ---- links, special files, unreadable folders ------------------------------------


def test_dirhash_link_loops_raise_rather_than_hang(tmp_path):
    write(tmp_path, b'sub/file', b'x')
    (tmp_path / 'sub' / 'up').symlink_to('..')  # back to a folder on its own path
    with pytest.raises(Exception, match='Symlink recursion'):
        dirhash.dirhash(str(tmp_path), 'sha256')
    with pytest.raises(OSError) as info:
        fastdigest.digest_tree('sha256', tmp_path)
    assert info.value.errno == errno.ELOOP and info.value.filename == str(tmp_path / 'sub' / 'up')
    (tmp_path / 'sub' / 'up').unlink()
    (tmp_path / 'self').symlink_to('self')  # a link to itself: dirhash raises ELOOP too
    with pytest.raises(OSError) as expected:
        dirhash.dirhash(str(tmp_path), 'sha256')
    with pytest.raises(OSError) as info:
        fastdigest.digest_tree('sha256', tmp_path)
    assert (
        (info.value.errno, info.value.filename)
        == (expected.value.errno, expected.value.filename)
        == (
            errno.ELOOP,
            str(tmp_path / 'self'),
        )
    )


def test_dirhash_leaves_out_what_is_not_a_file_once_followed(tmp_path):
    write(tmp_path, b'file', b'x')
    (tmp_path / 'dangling').symlink_to('nowhere')
    assert fastdigest.digest_tree('sha256', tmp_path) == dirhash.dirhash(str(tmp_path), 'sha256')
    (tmp_path / 'dangling').unlink()  # which -r reports, and the manifest's format raises for
    if hasattr(os, 'mkfifo'):
        os.mkfifo(tmp_path / 'fifo')
    with socket.socket(socket.AF_UNIX) as listener:
        listener.bind(str(tmp_path / 'socket'))
        assert fastdigest.digest_tree('sha256', tmp_path) == dirhash.dirhash(str(tmp_path), 'sha256')
        assert (
            fastdigest.digest_tree('sha256', tmp_path, format='sha256sum')
            == hashlib.sha256(cli_manifest(tmp_path, 'sha256')).hexdigest()
        )


def test_dirhash_errors_where_dirhash_does(tmp_path):
    (tmp_path / 'only' / 'folders').mkdir(parents=True)
    with pytest.raises(ValueError, match='Nothing to hash'):
        dirhash.dirhash(str(tmp_path), 'sha256')
    with pytest.raises(ValueError, match='nothing to hash'):
        fastdigest.digest_tree('sha256', tmp_path)
    write(tmp_path, b'\xff', b'x')
    with pytest.raises(UnicodeEncodeError):
        dirhash.dirhash(str(tmp_path), 'sha256')
    with pytest.raises(ValueError, match='UTF-8'):
        fastdigest.digest_tree('sha256', tmp_path)


@pytest.mark.skipif(not hasattr(os, 'mkfifo'), reason='needs FIFOs')
def test_checksumdir_refuses_a_fifo_it_would_wait_on(tmp_path):
    # checksumdir opens the FIFO and waits for a writer forever: not run here.
    write(tmp_path, b'file', b'x')
    os.mkfifo(tmp_path / 'fifo')
    with pytest.raises(OSError, match='not a regular file'):
        fastdigest.digest_tree('md5', tmp_path, format='checksumdir')


@pytest.mark.skipif(sys.platform == 'win32', reason='POSIX permissions')
@pytest.mark.parametrize('format', ['dirhash', 'checksumdir', 'sha256sum'])
def test_unreadable_folder_raises_with_its_path(tmp_path, format):
    write(tmp_path, b'tree/readable', b'x')
    locked = tmp_path / 'tree' / 'locked'
    write(tmp_path, b'tree/locked/inside', b'y')
    locked.chmod(0)
    try:
        output = run_without_root_privileges(
            f"""
            import fastdigest
            try:
                fastdigest.digest_tree('sha256', {str(tmp_path / 'tree')!r}, format={format!r})
            except PermissionError as error:
                print(error.filename)
            """
        )
    finally:
        locked.chmod(0o755)
    assert output.strip() == str(locked)


def test_argument_errors(tmp_path):
    write(tmp_path, b'file', b'x')
    with pytest.raises(ValueError, match="format must be one of 'dirhash', 'checksumdir', 'sha256sum', not 'md5sum'"):
        fastdigest.digest_tree('md5', tmp_path, format='md5sum')
    with pytest.raises(ValueError, match=f'^{unsupported("sha3_256")}$'):
        fastdigest.digest_tree('sha3_256', tmp_path)
    with pytest.raises(TypeError, match='argument 1 must be str'):
        fastdigest.digest_tree(hashlib.md5, tmp_path)
    with pytest.raises(NotADirectoryError):
        fastdigest.digest_tree('md5', tmp_path / 'file')
    with pytest.raises(NotADirectoryError):
        fastdigest.digest_tree('md5', tmp_path / 'missing')


# ---- generated trees -------------------------------------------------------------

_names = st.text(
    alphabet=st.characters(blacklist_categories=('Cs',), blacklist_characters='/\0'), min_size=1, max_size=10
).filter(lambda name: name not in ('.', '..'))


@st.composite
def trees(draw):
    return draw(
        st.lists(
            st.tuples(st.lists(_names, min_size=1, max_size=3), st.binary(max_size=300)),
            max_size=15,
        )
    )


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(entries=trees(), name=st.sampled_from(NAMES))
@pytest.mark.threads
def test_generated_trees_equal_the_packages(tmp_path_factory, entries, name):
    root = tmp_path_factory.mktemp('tree')
    for components, data in entries:
        try:
            write(root, os.fsencode(os.path.join(*components)), data)
        except OSError:  # a component that is a file already, a name too long
            continue
    assert fastdigest.digest_tree(name, root, format='checksumdir', threads=2) == checksumdir.dirhash(str(root), name)
    if any(files for _, _, files in os.walk(root)):
        assert fastdigest.digest_tree(name, root, threads=2) == dirhash.dirhash(str(root), name)
    manifest = cli_manifest(root, name) if entries else b''
    assert fastdigest.digest_tree(name, root, format='sha256sum') == hashlib.new(name, manifest).hexdigest()
