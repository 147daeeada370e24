"""git_object_id, git_object_ids and git_tree_id against the git command itself.

Every id here is compared with what git prints for the same bytes or the same folder: `git hash-object`
(--stdin, --stdin-paths, -t KIND --literally) and `git add --all --force` then `git write-tree` in a fresh
repository made in the folder, SHA-1 and SHA-256 repositories alike (`git init --object-format=sha256`).
"""

import os
import shutil
import socket
import stat
import subprocess
import sys
import textwrap

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fastdigest

pytestmark = pytest.mark.skipif(
    shutil.which('git') is None, reason='needs the git command (Debian: apt-get install git)'
)

FORMATS = ('sha1', 'sha256')

# No user's or system's configuration: a test sees git's defaults, with core.filemode and core.symlinks on
# (as `git init` sets them on Linux) whatever the machine's settings say.
GIT_ENV = {
    'PATH': os.environ.get('PATH', '/usr/bin:/bin'),
    'HOME': '/nonexistent',
    'GIT_CONFIG_NOSYSTEM': '1',
    'GIT_CONFIG_GLOBAL': os.devnull,
    'LC_ALL': 'C',
}


def git(*arguments, cwd, stdin=b''):
    completed = subprocess.run(
        ['git', '-c', 'core.filemode=true', '-c', 'core.symlinks=true', *arguments],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        env=GIT_ENV,
        check=True,
        timeout=60,
    )
    return completed.stdout


def git_repository(path, object_format):
    """A fresh repository of that format at path (made if missing), for commands that need one."""
    path.mkdir(exist_ok=True)
    git('init', '-q', '--object-format=' + object_format, '.', cwd=path)
    return path


def git_hash_objects(paths, object_format, repository):
    lines = b''.join(os.fsencode(path) + b'\n' for path in paths)
    return git('hash-object', '--stdin-paths', cwd=repository, stdin=lines).decode('ascii').split()


def git_write_tree(directory, object_format):
    """The tree git makes of the folder: a repository made in it, everything staged, the index written."""
    git('init', '-q', '--object-format=' + object_format, '.', cwd=directory)
    git('add', '--all', '--force', cwd=directory)
    return git('write-tree', cwd=directory).decode('ascii').strip()


# ---- blobs -----------------------------------------------------------------------

SIZES = [0, 1, 55, 56, 63, 64, 65, 4096, 2**18 - 1, 2**18, 2**18 + 1, 3 * 2**20 + 17]


@pytest.mark.parametrize('object_format', FORMATS)
def test_object_ids_equal_git_hash_object(tmp_path, object_format):
    repository = git_repository(tmp_path / 'repository', object_format)
    paths = []
    for size in SIZES:
        path = tmp_path / ('file %d' % size)
        path.write_bytes(os.urandom(size))
        paths.append(path)
    expected = git_hash_objects(paths, object_format, repository)
    assert fastdigest.git_object_ids(paths, object_format=object_format) == expected
    assert fastdigest.git_object_ids(paths, object_format=object_format, threads=1) == expected
    assert [fastdigest.git_object_id(path, object_format=object_format) for path in paths] == expected
    # The bytes themselves, in place: bytes, a bytearray, a memoryview of part of a buffer.
    for path, id_ in zip(paths, expected, strict=True):
        data = path.read_bytes()
        assert fastdigest.git_object_id(data, object_format=object_format) == id_
        assert fastdigest.git_object_id(bytearray(data), object_format=object_format) == id_
        assert fastdigest.git_object_id(memoryview(b'xx' + data)[2:], object_format=object_format) == id_


@pytest.mark.threads
def test_many_object_ids_on_threads(tmp_path):
    repository = git_repository(tmp_path / 'repository', 'sha1')
    paths = []
    for index in range(300):
        path = tmp_path / ('%d' % index)
        path.write_bytes(os.urandom(index * 37 % 9000))
        paths.append(str(path))
    expected = git_hash_objects(paths, 'sha1', repository)
    assert fastdigest.git_object_ids(paths, threads=2) == expected
    assert fastdigest.git_object_ids(iter(paths), threads=4) == expected


@pytest.mark.parametrize('object_format', FORMATS)
@pytest.mark.parametrize('kind', ['blob', 'tree', 'commit', 'tag'])
def test_kinds_equal_git_hash_object_literally(tmp_path, kind, object_format):
    repository = git_repository(tmp_path / 'repository', object_format)
    data = b'not checked: --literally\n\x00\xff'
    path = tmp_path / 'object'
    path.write_bytes(data)
    expected = git('hash-object', '-t', kind, '--literally', '--stdin', cwd=repository, stdin=data).decode().strip()
    assert fastdigest.git_object_id(data, kind=kind, object_format=object_format) == expected
    assert fastdigest.git_object_id(path, kind=kind, object_format=object_format) == expected
    assert fastdigest.git_object_ids([path], kind=kind, object_format=object_format) == [expected]


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=3000), object_format=st.sampled_from(FORMATS))
def test_data_equals_git_hash_object_stdin(tmp_path, data, object_format):
    repository = git_repository(tmp_path / object_format, object_format)
    expected = git('hash-object', '--stdin', cwd=repository, stdin=data).decode().strip()
    assert fastdigest.git_object_id(data, object_format=object_format) == expected


def test_object_id_follows_a_link_as_git_hash_object_does(tmp_path):
    target = tmp_path / 'target'
    target.write_bytes(b'through the link\n')
    link = tmp_path / 'link'
    link.symlink_to('target')
    repository = git_repository(tmp_path / 'repository', 'sha1')
    assert fastdigest.git_object_ids([link]) == git_hash_objects([link], 'sha1', repository)


def test_argument_errors(tmp_path):
    path = tmp_path / 'file'
    path.write_bytes(b'x')
    with pytest.raises(ValueError, match=r"object_format must be 'sha1' or 'sha256', not 'md5'"):
        fastdigest.git_object_id(b'x', object_format='md5')
    with pytest.raises(ValueError, match=r"kind must be one of 'blob', 'tree', 'commit', 'tag', not 'file'"):
        fastdigest.git_object_ids([path], kind='file')
    with pytest.raises(ValueError, match='object_format'):
        fastdigest.git_tree_id(tmp_path, object_format='SHA1')
    with pytest.raises(TypeError, match='bytes-like object, str or os.PathLike object, not int'):
        fastdigest.git_object_id(1)
    with pytest.raises(TypeError):
        fastdigest.git_object_ids(str(path))  # a single path, not an iterable of them
    with pytest.raises(FileNotFoundError) as info:
        fastdigest.git_object_ids([path, tmp_path / 'missing'])
    assert info.value.filename == str(tmp_path / 'missing')


# ---- faults ----------------------------------------------------------------------


@pytest.mark.skipif(not os.path.exists('/proc/self/status'), reason="needs Linux's /proc, whose files are of size 0")
def test_a_file_longer_than_its_size_raises_naming_it():
    # /proc's files say they are empty and read as text: the header's size would not be the content's.
    with pytest.raises(OSError, match='changed size while it was read') as info:
        fastdigest.git_object_ids(['/proc/self/status'])
    assert info.value.filename == '/proc/self/status'


def test_a_file_that_grows_or_shrinks_while_read_raises(tmp_path):
    # A file that grows as it is read: a FIFO cannot stand in (it has no size); a file cut short or
    # lengthened between the open and the end is what /proc and /sys show, and a regular file when another
    # process writes it. Here the grown file is simulated by /sys's files, of size 4096 and shorter content.
    sysfs = '/sys/kernel/mm/transparent_hugepage/enabled'
    if not os.path.isfile(sysfs) or os.path.getsize(sysfs) <= len(open(sysfs, 'rb').read()):
        pytest.skip("needs Linux's /sys, whose files say 4096 bytes and hold fewer")
    with pytest.raises(OSError, match='changed size while it was read') as info:
        fastdigest.git_object_id(sysfs)
    assert info.value.filename == sysfs


def test_a_device_raises_naming_it():
    if not os.path.exists('/dev/null'):
        pytest.skip('needs /dev/null')
    with pytest.raises(OSError, match='Not a regular file') as info:
        fastdigest.git_object_ids(['/dev/null'])
    assert info.value.filename == '/dev/null'


def run_without_root_privileges(program):
    """Runs program in a child that is refused what the permissions refuse: as this process when it is
    not root, and as root without CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH (util-linux's setpriv) when
    it is. Skips when neither can be had."""
    command = [sys.executable, '-c', textwrap.dedent(program)]
    if hasattr(os, 'geteuid') and os.geteuid() == 0:
        if shutil.which('setpriv') is None:
            pytest.skip("runs as root, and needs util-linux's setpriv to drop root's capabilities")
        command = ['setpriv', '--bounding-set=-dac_override,-dac_read_search', *command]
    completed = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)
    assert completed.returncode == 0, completed.stderr
    return completed.stdout


@pytest.mark.skipif(sys.platform == 'win32', reason='POSIX permissions')
def test_unreadable_folder_and_file_raise_with_the_path(tmp_path):
    folder = tmp_path / 'tree' / 'locked'
    folder.mkdir(parents=True)
    (folder / 'inside').write_bytes(b'x')
    secret = tmp_path / 'secret'
    secret.write_bytes(b'y')
    folder.chmod(0)
    secret.chmod(0)
    try:
        output = run_without_root_privileges(
            f"""
            import fastdigest
            for call, path in ((fastdigest.git_tree_id, {str(tmp_path / 'tree')!r}),
                               (lambda p: fastdigest.git_object_ids([p]), {str(secret)!r})):
                try:
                    call(path)
                except PermissionError as error:
                    print(error.filename)
            """
        )
    finally:
        folder.chmod(0o755)
    assert output.split('\n')[:2] == [str(folder), str(secret)]


# ---- trees -----------------------------------------------------------------------


def make_tree(root):
    """A folder with what git's trees hold and leave out: modes, links, nesting, empty folders, names
    that sort around a folder's NAME/, spaces, newlines and bytes that are not UTF-8, and a FIFO."""
    root = os.fsencode(root)

    def write(path, data, mode=0o644):
        full = os.path.join(root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, 'wb') as file:
            file.write(data)
        os.chmod(full, mode)

    write(b'a.b', b'')
    write(b'a-', b'dash')
    write(b'a0', b'zero')
    write(b'a/inner', b'in a folder named a\n')
    write(b'a/b/deeper', os.urandom(5000))
    write(b'run.sh', b'#!/bin/sh\necho hi\n', 0o755)
    write(b'group-exec', b'only the group may run it', 0o654)
    write(b'with space', b' ')
    write(b'new\nline', b'\n')
    write(b'\xff\xfe not utf-8', b'latin-1 \xe9')
    write(b'big', os.urandom(2**20 + 3))
    os.makedirs(os.path.join(root, b'empty/empty too'))
    os.makedirs(os.path.join(root, b'only-empty-below/x'))
    os.symlink(b'a/inner', os.path.join(root, b'link'))
    os.symlink(b'nowhere', os.path.join(root, b'dangling'))
    os.symlink(b'a', os.path.join(root, b'folder-link'))
    os.symlink(b'\xff', os.path.join(root, b'a/b/odd-link'))
    os.symlink(b'loop', os.path.join(root, b'loop'))
    if hasattr(os, 'mkfifo'):
        os.mkfifo(os.path.join(root, b'fifo'))


@pytest.mark.parametrize('object_format', FORMATS)
def test_tree_id_equals_git_write_tree(tmp_path, object_format):
    make_tree(tmp_path)
    ours = fastdigest.git_tree_id(tmp_path, object_format=object_format)
    assert ours == git_write_tree(tmp_path, object_format)
    # With the repository's .git now at the top, left out; and a str path, a bytes path, on one thread.
    assert fastdigest.git_tree_id(str(tmp_path), object_format=object_format, threads=1) == ours
    assert fastdigest.git_tree_id(os.fsencode(tmp_path), object_format=object_format) == ours


@pytest.mark.parametrize('object_format', FORMATS)
def test_empty_folder_is_git_empty_tree(tmp_path, object_format):
    (tmp_path / 'only' / 'folders').mkdir(parents=True)
    assert fastdigest.git_tree_id(tmp_path, object_format=object_format) == git_write_tree(tmp_path, object_format)


def test_a_socket_is_left_out(tmp_path):
    if not hasattr(socket, 'AF_UNIX'):
        pytest.skip('needs Unix sockets')
    (tmp_path / 'file').write_bytes(b'x')
    with socket.socket(socket.AF_UNIX) as listener:
        listener.bind(str(tmp_path / 'socket'))
        assert fastdigest.git_tree_id(tmp_path) == git_write_tree(tmp_path, 'sha1')


# Names of one path component: what git stages (POSIX names but '/', NUL, '.', '..' and .git's forms), with
# names that sort around a folder's NAME/ ('a-' < 'a.b' < 'a/' < 'a0') often among them.
_names = st.one_of(
    st.sampled_from([b'a', b'a-', b'a.b', b'a0', b'a b', b'a\nb', b'\xff']),
    st.binary(min_size=1, max_size=12),
).filter(lambda name: b'/' not in name and b'\0' not in name and name not in (b'.', b'..') and name.lower() != b'.git')


@st.composite
def trees(draw):
    """A list of (path components, kind, payload): files of either mode, links, and folders by nesting."""
    entries = []
    for _ in range(draw(st.integers(0, 12))):
        depth = draw(st.integers(1, 3))
        components = [draw(_names) for _ in range(depth - 1)]
        leaf = draw(_names)
        kind = draw(st.sampled_from(['file', 'exec', 'link', 'folder']))
        entries.append((components, leaf, kind, draw(st.binary(max_size=200))))
    return entries


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(entries=trees(), object_format=st.sampled_from(FORMATS))
def test_generated_trees_equal_git_write_tree(tmp_path_factory, entries, object_format):
    root = os.fsencode(tmp_path_factory.mktemp('tree'))
    for components, leaf, kind, payload in entries:
        folder = os.path.join(root, *components)
        try:
            os.makedirs(folder, exist_ok=True)
            path = os.path.join(folder, leaf)
            if os.path.lexists(path):
                continue
            if kind == 'folder':
                os.mkdir(path)
                with open(os.path.join(path, b'f'), 'wb') as file:
                    file.write(payload)
            elif kind == 'link':
                os.symlink(payload.replace(b'\0', b'') or b'x', path)
            else:
                with open(path, 'wb') as file:
                    file.write(payload)
                os.chmod(path, 0o755 if kind == 'exec' else 0o644)
        except OSError:  # a component that is a file already, a name the file system refuses
            continue
    if any(name.lower().split(b':')[0].rstrip(b'. ') in (b'.git', b'git~1') for name in _all_names(root)):
        with pytest.raises(ValueError, match='git refuses'):
            fastdigest.git_tree_id(root, object_format=object_format)
        return
    assert fastdigest.git_tree_id(root, object_format=object_format) == git_write_tree(root, object_format)


def _all_names(root):
    for _, folders, files in os.walk(root):
        yield from folders
        yield from files


# A PNG's signature holds CRLF, and its chunks NULs: git takes it for binary under text=auto.
PNG_LIKE = b'\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR'


@pytest.mark.parametrize(
    'attributes',
    [
        b'* text=auto\n',
        b'*.png binary\n*.md linguist-documentation -text\n# filter=lfs in a comment\n',
        b'"with space.txt" -text\n[attr]mine -diff\n*.txt mine\n',
    ],
)
@pytest.mark.parametrize('object_format', FORMATS)
def test_gitattributes_that_change_nothing_equal_git(tmp_path, attributes, object_format):
    (tmp_path / '.gitattributes').write_bytes(attributes)
    (tmp_path / 'lf.txt').write_bytes(b'one\ntwo\n')
    (tmp_path / 'image.png').write_bytes(PNG_LIKE)
    (tmp_path / 'with space.txt').write_bytes(b'lone\rcr\n')
    assert fastdigest.git_tree_id(tmp_path, object_format=object_format) == git_write_tree(tmp_path, object_format)


@pytest.mark.parametrize(
    ('attributes', 'content', 'message'),
    [
        (b'* text=auto\n', b'crlf\r\ntext\r\n', 'holds CRLF'),  # git stages it with LF
        (b'*.png eol=crlf\n', PNG_LIKE, 'holds CRLF'),  # eol forces text: even a binary's CRLF goes
        (b'*.bin filter=lfs diff=lfs merge=lfs -text\n', b'x', 'sets filter'),
        (b'*.c ident\n', b'x', 'sets ident'),
        (b'*.txt working-tree-encoding=UTF-16\n', b'x', 'sets working-tree-encoding'),
    ],
)
def test_gitattributes_that_may_change_content_raise(tmp_path, attributes, content, message):
    (tmp_path / 'sub').mkdir()
    (tmp_path / 'sub' / '.gitattributes').write_bytes(attributes)
    (tmp_path / 'file.png').write_bytes(content)
    with pytest.raises(ValueError, match=message):
        fastdigest.git_tree_id(tmp_path)


def test_crlf_under_text_auto_is_what_git_changes(tmp_path):
    # The case the check is for: git stages the CRLF file with LF, a tree of other bytes than
    # those on disk, which is refused rather than given wrong.
    for name, content in (('crlf', b'a\r\nb\r\n'), ('lf', b'a\nb\n')):
        (tmp_path / name).mkdir()
        (tmp_path / name / '.gitattributes').write_bytes(b'* text=auto\n')
        (tmp_path / name / 'file.txt').write_bytes(content)
    with pytest.raises(ValueError, match='holds CRLF'):
        fastdigest.git_tree_id(tmp_path / 'crlf')
    assert git_write_tree(tmp_path / 'crlf', 'sha1') == fastdigest.git_tree_id(tmp_path / 'lf')
    # The repository's own attributes count too, once the folder is its work tree.
    (tmp_path / 'crlf' / '.gitattributes').unlink()
    (tmp_path / 'crlf' / '.git' / 'info').mkdir(parents=True, exist_ok=True)
    (tmp_path / 'crlf' / '.git' / 'info' / 'attributes').write_bytes(b'* text\n')
    with pytest.raises(ValueError, match='holds CRLF'):
        fastdigest.git_tree_id(tmp_path / 'crlf')


def test_a_name_git_refuses_raises(tmp_path):
    for name in ('.GIT', '.git.', 'GIT~1', '.git '):
        folder = tmp_path / name.strip().replace('~', '_')
        folder.mkdir()
        (folder / name).write_bytes(b'x')
        with pytest.raises(subprocess.CalledProcessError):
            git_write_tree(folder, 'sha1')  # git itself refuses it: "invalid path"
        with pytest.raises(ValueError, match='git refuses to add'):
            fastdigest.git_tree_id(folder)


def test_a_repository_below_the_top_raises(tmp_path):
    (tmp_path / 'top.txt').write_bytes(b'x')
    git_repository(tmp_path / 'nested', 'sha1')
    (tmp_path / 'nested' / 'file').write_bytes(b'y')
    with pytest.raises(ValueError, match='submodule'):
        fastdigest.git_tree_id(tmp_path)


def test_a_link_loop_does_not_hang(tmp_path):
    # git stages a link as its target's bytes, never following it: loops are plain links.
    (tmp_path / 'self').symlink_to('self')
    (tmp_path / 'sub').mkdir()
    (tmp_path / 'sub' / 'up').symlink_to('..')
    (tmp_path / 'sub' / 'f').write_bytes(b'z')
    assert fastdigest.git_tree_id(tmp_path) == git_write_tree(tmp_path, 'sha1')


def test_tree_errors(tmp_path):
    with pytest.raises(FileNotFoundError):
        fastdigest.git_tree_id(tmp_path / 'missing')
    (tmp_path / 'file').write_bytes(b'x')
    with pytest.raises(NotADirectoryError):
        fastdigest.git_tree_id(tmp_path / 'file')
    assert stat.S_ISREG(os.stat(tmp_path / 'file').st_mode)


# ---- the command line: fastdigest --git ------------------------------------------


def run_cli(arguments, stdin=b''):
    import io

    from fastdigest import cli

    stdout, stderr = io.BytesIO(), io.BytesIO()
    status = cli.run(arguments, io.BytesIO(stdin), stdout, stderr)
    return status, stdout.getvalue(), stderr.getvalue()


@pytest.mark.parametrize('object_format', FORMATS)
def test_cli_git_equals_git_hash_object(tmp_path, object_format):
    repository = git_repository(tmp_path / 'repository', object_format)
    names = []
    for index, size in enumerate([0, 5, 70000]):
        path = tmp_path / ('file %d' % index)
        path.write_bytes(os.urandom(size))
        names.append(str(path))
    arguments = ['--git', *names] if object_format == 'sha1' else ['--git', '-a', 'sha256', *names]
    expected = git('hash-object', *names, cwd=repository)
    assert run_cli(arguments) == (0, expected, b'')
    # '-' is standard input, as `git hash-object --stdin`, in its place among the files.
    data = b'from standard input\n'
    from_stdin = git('hash-object', '--stdin', cwd=repository, stdin=data)
    lines = expected.splitlines(keepends=True)
    assert run_cli([*arguments[:-1], '-', arguments[-1]], data) == (
        0,
        b''.join(lines[:-1]) + from_stdin + lines[-1],
        b'',
    )
    assert run_cli(arguments[: arguments.index('--git') + (3 if object_format == 'sha256' else 1)], data) == (
        0,
        from_stdin,
        b'',
    )


def test_cli_git_stops_at_the_first_unreadable_file(tmp_path):
    good = tmp_path / 'good'
    good.write_bytes(b'good\n')
    missing = str(tmp_path / 'missing')
    status, out, err = run_cli(['--git', str(good), missing, str(good)])
    assert status == 1
    assert out == (fastdigest.git_object_id(good) + '\n').encode()
    assert err == b'fastdigest: ' + missing.encode() + b': No such file or directory\n'


@pytest.mark.parametrize(
    ('arguments', 'message'),
    [
        (['--git', '-a', 'md5'], b"--git takes -a sha1 or -a sha256: the repository's object format"),
        (['--git', '-a', 'sha1,sha256'], b'--git takes -a sha1 or -a sha256'),
        (['--git', '-c'], b'the --check option is meaningless with --git'),
        (['--git', '-r'], b'the --recursive option is meaningless with --git'),
        (['--git', '--tag'], b'the --tag option is meaningless with --git'),
        (['--git', '-z'], b'the --zero option is meaningless with --git'),
        (['--git', '-b'], b'the --binary and --text options are meaningless with --git'),
    ],
)
def test_cli_git_usage_errors(arguments, message):
    status, out, err = run_cli(arguments)
    assert (status, out) == (1, b'')
    assert err.startswith(b'fastdigest: ' + message)
