"""The C sources' includes run one way: between folders, down the layers, and between files, in no circle.

docs/architecture.md draws src/_fastdigest/ as layers, python -> data, files -> hash -> dispatch ->
platform -> kernels: a file includes only its own folder and the folders below it, so that everything
under python/ can be tested, fuzzed and benchmarked without the interpreter, and the kernels without
the rest. Within the layers no two files may depend on each other both ways, not even through a third:
a .c file and its header are one unit (what the header declares, the .c file defines), and a unit that
includes another's header depends on it, so a circle of units is a circle of calls (the batch driver
settling kernels through the known-answer checks, which run PBKDF2, which runs the batch driver, was
one). This reads every `#include "..."` of the sources and fails naming the include that breaks a rule.
The public C API's header (fastdigest/include/), which the binding implements, is included by python/
alone.
"""

import itertools
import re
from pathlib import Path

import pytest

SOURCE_ROOT = Path(__file__).resolve().parent.parent / 'src' / '_fastdigest'
if not SOURCE_ROOT.is_dir():
    pytest.skip('the C sources are not beside these tests (a copy of tests/ run against an installed package): '
                'the run in the checkout reads them', allow_module_level=True)  # fmt: skip
# The public C API's header (fastdigest/include/fastdigest.h), the build's other include directory:
# what the binding implements, and so included by python/ alone.
PUBLIC_INCLUDE = SOURCE_ROOT.parent.parent / 'fastdigest' / 'include'

# Each folder's layer: a file may include its own folder and any folder of a lower layer. data/ and
# files/ share one, and so include neither the other.
LAYERS = {'kernels': 0, 'platform': 1, 'dispatch': 2, 'hash': 3, 'data': 4, 'files': 4, 'python': 5}

INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*([<"])([^>"]+)[>"]', re.MULTILINE)


def sources():
    found = sorted(path for path in SOURCE_ROOT.rglob('*') if path.suffix in ('.c', '.h'))
    if not found:
        pytest.fail(f'no C sources under {SOURCE_ROOT}')
    return found


def relative(path):
    return path.relative_to(SOURCE_ROOT).as_posix()


def includes(path):
    """(quoted?, name) of each include of the file, comments and all: an include in a comment is
    none, but none of the sources has one."""
    return [(match.group(1) == '"', match.group(2)) for match in INCLUDE.finditer(path.read_text(encoding='utf-8'))]


def unit(name):
    """The unit a file belongs to: its path without .c or .h."""
    return name.rsplit('.', 1)[0]


def folder(name):
    return name.split('/', 1)[0]


def test_every_folder_has_a_layer():
    unknown = sorted({folder(relative(path)) for path in sources()} - LAYERS.keys())
    assert not unknown, f'folders of src/_fastdigest with no place in LAYERS (and docs/architecture.md): {unknown}'


def test_no_folder_shadows_a_layer():
    # A quoted include is looked up beside the including file first: a folder hash inside python
    # would make every "hash/..." include of a file in python find that folder, not the core's.
    shadowing = [
        relative(path)
        for path in SOURCE_ROOT.rglob('*')
        if path.is_dir() and path.parent != SOURCE_ROOT and path.name in LAYERS
    ]
    assert not shadowing, f'folders named as a layer, which shadow it for the includes beside them: {shadowing}'


def is_public_header(name):
    return not (SOURCE_ROOT / name).is_file() and (PUBLIC_INCLUDE / name).is_file()


def test_includes_name_files_of_the_tree_from_its_root():
    # The rules below read an include's folder from its name: every quoted include is spelled from
    # src/_fastdigest/, never relative to the including file, or is the public API's header.
    wrong = [
        f'{relative(path)} includes "{name}"'
        for path in sources()
        for quoted, name in includes(path)
        if quoted and not (SOURCE_ROOT / name).is_file() and not is_public_header(name)
    ]
    assert not wrong, 'includes that are not a path from src/_fastdigest/:\n' + '\n'.join(wrong)


def test_only_the_binding_includes_the_public_header():
    wrong = [
        f'{relative(path)} includes "{name}"'
        for path in sources()
        for quoted, name in includes(path)
        if quoted and is_public_header(name) and folder(relative(path)) != 'python'
    ]
    assert not wrong, "the public C API's header outside python/:\n" + '\n'.join(wrong)


def test_only_the_binding_includes_python_h():
    wrong = [
        f'{relative(path)} includes {name}'
        for path in sources()
        for _, name in includes(path)
        if name == 'Python.h' and folder(relative(path)) != 'python'
    ]
    assert not wrong, 'Python.h outside python/:\n' + '\n'.join(wrong)


def test_folders_include_only_themselves_and_the_layers_below():
    wrong = []
    for path in sources():
        source = relative(path)
        for quoted, name in includes(path):
            if not quoted or folder(name) not in LAYERS:
                continue
            here, there = folder(source), folder(name)
            if there != here and LAYERS[there] >= LAYERS[here]:
                wrong.append(f'{source} includes "{name}": {here}/ may include only layers below it')
    assert not wrong, (
        'includes against the layers (python -> data, files -> hash -> dispatch -> platform -> kernels):\n'
        + '\n'.join(wrong)
    )


def unit_graph():
    """unit -> {unit: the include that makes the edge}: each unit's dependencies on other units."""
    graph = {}
    for path in sources():
        source = relative(path)
        edges = graph.setdefault(unit(source), {})
        for quoted, name in includes(path):
            if quoted and unit(name) != unit(source) and not is_public_header(name):
                edges.setdefault(unit(name), f'{source} includes "{name}"')
    return graph


def find_circle(graph):
    """A list of units u0, u1, ..., u0 that depend on each other in a circle, or None."""
    state = {}  # unit -> 'open' while on the current path, 'done' once every path from it is searched

    def search(node, path):
        state[node] = 'open'
        path.append(node)
        for successor in sorted(graph.get(node, ())):
            if state.get(successor) == 'open':
                return path[path.index(successor) :] + [successor]
            if successor not in state:
                circle = search(successor, path)
                if circle:
                    return circle
        path.pop()
        state[node] = 'done'
        return None

    for node in sorted(graph):
        if node not in state:
            circle = search(node, [])
            if circle:
                return circle
    return None


def test_no_two_files_depend_on_each_other():
    graph = unit_graph()
    circle = find_circle(graph)
    if circle:
        steps = [graph[a][b] for a, b in itertools.pairwise(circle)]
        pytest.fail('a circle of files (a .c file and its header count as one):\n' + '\n'.join(steps))


def test_a_circle_is_found():
    # The search itself, on the circle this test was written against and on a tree without one.
    circle = {
        'hash/batch': {'hash/known_answers': ''},
        'hash/known_answers': {'hash/hmac': ''},
        'hash/hmac': {'hash/batch': ''},
    }
    assert find_circle(circle) == ['hash/batch', 'hash/known_answers', 'hash/hmac', 'hash/batch']
    circle['hash/hmac'] = {'dispatch/dispatch': ''}
    assert find_circle(circle) is None
