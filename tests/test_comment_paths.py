"""Every file or folder of the project that a comment names exists.

Comments and docstrings send the reader to other files ("the layers are drawn in docs/architecture.md",
"as tests/c/run.sh does"). When a file is renamed or removed they point nowhere, and nothing else
notices. This reads the comments of every tracked C, Python, shell, TOML and YAML file (C's /* */ and
//, Python's # and its docstrings, # elsewhere), takes each path that starts with a folder of the
project's own (a top-level one, or one under src/_fastdigest/: hash/, kernels/, x86/, ...), and fails
listing each one that exists nowhere: not from the root of the checkout, not from src/_fastdigest/, not
from the folder of the file that names it or one above. The documentation's Markdown is left to the
strict docs build (.ci/docs.sh), which checks its links.

Not names, and left alone: paths with a wildcard, or with a placeholder in capitals that no file of the
project is called (kernels/x86/ISA/, where benchmarks/README.md is a name); URLs; absolute paths; and
other projects' files, which start with no folder of this project's (CPython's Lib/hashlib.py).
"""

import ast
import io
import re
import subprocess
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE_C = ROOT / 'src' / '_fastdigest'

C_SUFFIXES = {'.c', '.h'}
PYTHON_SUFFIXES = {'.py', '.pyi'}
HASH_COMMENT_SUFFIXES = {'.sh', '.toml', '.yml', '.yaml'}
# Tracked files without a suffix whose comments start with #.
HASH_COMMENT_FILES = {'.ci/run', '.clang-format', '.gitignore', '.git-blame-ignore-revs', 'MANIFEST.in'}


def tracked_files():
    try:
        listed = subprocess.run(
            ['git', 'ls-files', '-z'], cwd=ROOT, capture_output=True, check=True, timeout=60
        ).stdout.decode()
    except (OSError, subprocess.CalledProcessError) as error:
        pytest.skip(f'needs the git checkout, whose file list says what the project holds: {error}')
    return [name for name in listed.split('\0') if name]


def c_comments(text):
    """The text of each /* */ and // comment of C source, outside string and character literals."""
    comments = []
    index, length = 0, len(text)
    while index < length:
        char = text[index]
        if text.startswith('/*', index):
            end = text.find('*/', index + 2)
            end = length if end < 0 else end
            comments.append(text[index + 2 : end])
            index = end + 2
        elif text.startswith('//', index):
            end = text.find('\n', index)
            end = length if end < 0 else end
            comments.append(text[index + 2 : end])
            index = end
        elif char in '"\'':
            index += 1
            while index < length and text[index] not in (char, '\n'):
                index += 2 if text[index] == '\\' else 1
            index += 1
        else:
            index += 1
    return comments


def python_comments(text):
    """The text of each # comment and of each string that stands as a statement: docstrings of modules,
    classes and functions, and the attribute docstrings that the stubs put under a name."""
    comments = [
        token.string[1:]
        for token in tokenize.generate_tokens(io.StringIO(text).readline)
        if token.type == tokenize.COMMENT
    ]
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            comments.append(node.value.value)
    return comments


def hash_comments(text):
    """The text after each # that begins a word outside quotes (shell, TOML, YAML)."""
    comments = []
    for line in text.splitlines():
        quote = None
        for index, char in enumerate(line):
            if quote:
                if char == quote:
                    quote = None
            elif char in '"\'':
                quote = char
            elif char == '#' and (index == 0 or line[index - 1] in ' \t'):
                comments.append(line[index + 1 :])
                break
    return comments


def comments_of(name):
    path = ROOT / name
    suffix = path.suffix
    if suffix in C_SUFFIXES:
        read = c_comments
    elif suffix in PYTHON_SUFFIXES:
        read = python_comments
    elif suffix in HASH_COMMENT_SUFFIXES or name in HASH_COMMENT_FILES:
        read = hash_comments
    else:
        return []
    return read(path.read_text(encoding='utf-8'))


def project_folders(files):
    """The first components that start a path of the project's own: its top-level folders, and every
    folder under src/_fastdigest/ (the C names its files from there, or from the kernels' folders)."""
    folders = {name.split('/')[0] for name in files if '/' in name}
    for name in files:
        if name.startswith('src/_fastdigest/'):
            folders.update(name.split('/')[2:-1])
    return folders


def places(name):
    """Where a path that the file `name` names may start: the checkout's root, src/_fastdigest/, and
    the file's own folder and each one above it."""
    folder = (ROOT / name).parent
    return {PACKAGE_C, folder, *(parent for parent in folder.parents if parent.is_relative_to(ROOT))}


URL = re.compile(r'\b[a-z][a-z0-9+.-]*://\S*')
# A run of path characters with a slash in it, not preceded by one (which would make it absolute, or
# part of a longer path) nor by a word character.
PATH = re.compile(r'(?<![\w/.$-])\.?[\w-]+(?:/[\w.*-]+)+/?')
CAPITALS = re.compile(r'[A-Z][A-Z0-9_]*')


def named_paths(comment, folders, stems):
    """The paths of the project's own that *comment* names; *stems* are the names of the project's files
    and folders up to their first dot, which tell a file in capitals from a placeholder."""
    for match in PATH.finditer(URL.sub(' ', comment)):
        path = match.group().rstrip('.')
        parts = path.rstrip('/').split('/')
        if parts[0] not in folders or '*' in path:
            continue
        if any(CAPITALS.fullmatch(part.split('.')[0]) and part.split('.')[0] not in stems for part in parts):
            continue
        yield path


def test_every_path_a_comment_names_exists():
    files = tracked_files()
    folders = project_folders(files)
    stems = {part.split('.')[0] for name in files for part in name.split('/')}
    missing = []
    for name in files:
        starts = places(name)
        for comment in comments_of(name):
            for path in named_paths(comment, folders, stems):
                if not any((start / path).exists() for start in starts):
                    missing.append(f'{name}: {path}')
    assert not missing, 'comments name files that do not exist:\n' + '\n'.join(sorted(set(missing)))
