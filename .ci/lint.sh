#!/usr/bin/env bash
# Lint and format checks; fails on any finding. Each check runs, and the run fails at the end if any
# found something, so that one run lists everything:
#
#   ruff check            every tracked Python file and stub, with pyproject.toml's [tool.ruff.lint]
#   ruff format --check   the same files, with [tool.ruff.format]
#   clang-format          every tracked C file (src/, tests/, benchmarks/) against .clang-format,
#                         as `clang-format --dry-run -Werror`
#   commit subjects       at most 72 characters, for every commit from the format commit (the first
#                         entry of .git-blame-ignore-revs) to HEAD; skipped, saying so, where the
#                         checkout has no history that reaches it
#
# CONTRIBUTING.md gives the command that fixes what a machine can fix.
#
# ruff is the lint extra's pinned version (pyproject.toml), installed with pip when the interpreter
# lacks it: another version finds other things. clang-format is Debian's `clang-format` package
# (bookworm's is version 14, which .clang-format is written for).
#
# Environment: PYTHON (default python3) is the interpreter whose ruff is used (`PYTHON -m ruff`);
# CLANG_FORMAT (default clang-format) the clang-format binary.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
CLANG_FORMAT=${CLANG_FORMAT:-clang-format}
SUBJECT_LIMIT=72

failed=()
step_start=$SECONDS
step_done() { # step_done NAME STATUS
    echo "$1: $([ "$2" -eq 0 ] && echo ok || echo FAILED), $((SECONDS - step_start)) s"
    [ "$2" -eq 0 ] || failed+=("$1")
    step_start=$SECONDS
}

# The files to check: git's list where this is a git checkout, else the tree's own files found by
# name (an unpacked sdist, say), outside build output.
in_git=false
git rev-parse --is-inside-work-tree >/dev/null 2>&1 && in_git=true
list_files() { # list_files PATTERN...: NUL-separated paths
    if $in_git; then
        git ls-files -z -- "$@"
    else
        local names=()
        for pattern in "$@"; do names+=(-o -name "$pattern"); done
        find . -path ./build -prune -o -path ./.git -prune -o -type f \( "${names[@]:1}" \) -print0
    fi
}
mapfile -d '' python_files < <(list_files '*.py' '*.pyi')
mapfile -d '' c_files < <(list_files '*.c' '*.h')

# ruff, at the pinned version.
requirement=$("$PYTHON" - <<'PY'
try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib
with open("pyproject.toml", "rb") as f:
    (requirement,) = tomllib.load(f)["project"]["optional-dependencies"]["lint"]
print(requirement)
PY
)
pinned=${requirement#ruff==}
if [ "$("$PYTHON" -m ruff --version 2>/dev/null)" != "ruff $pinned" ]; then
    "$PYTHON" -m pip install -q "$requirement"
    echo "installed $requirement: $((SECONDS - step_start)) s"
fi
step_start=$SECONDS

echo "== ruff check (${#python_files[@]} files)"
status=0
"$PYTHON" -m ruff check --no-cache -- "${python_files[@]}" || status=$?
step_done "ruff check" $status

echo "== ruff format --check"
status=0
"$PYTHON" -m ruff format --check --no-cache -- "${python_files[@]}" || status=$?
step_done "ruff format" $status

echo "== clang-format --dry-run -Werror (${#c_files[@]} files)"
status=0
if ! command -v "$CLANG_FORMAT" >/dev/null; then
    echo "$CLANG_FORMAT not found: apt-get install clang-format (or set CLANG_FORMAT)"
    status=1
else
    version=$("$CLANG_FORMAT" --version)
    echo "$version"
    # Versions differ in what they do with the same settings: a finding may be the version's.
    [[ $version =~ version\ 14\. ]] || echo "note: .clang-format is written for clang-format 14"
    printf '%s\0' "${c_files[@]}" | xargs -0 "$CLANG_FORMAT" --dry-run -Werror || status=$?
fi
step_done "clang-format" $status

echo "== commit subjects (at most $SUBJECT_LIMIT characters)"
status=0
format_commit=$(grep -m1 -E '^[0-9a-f]{40}' .git-blame-ignore-revs || true)
if ! $in_git; then
    echo "skipped: not a git checkout"
elif [ -z "$format_commit" ]; then
    echo "no commit listed in .git-blame-ignore-revs"
    status=1
elif ! git cat-file -e "$format_commit^{commit}" 2>/dev/null; then
    echo "skipped: the checkout's history does not reach the format commit $format_commit (a shallow clone?)"
else
    # The format commit and every commit after it: HEAD, less what the format commit's parents reach.
    # Python counts the characters (awk and bash may count bytes, by locale).
    git log -z --format='%h %s' HEAD --not $(git rev-parse "$format_commit^@") |
        "$PYTHON" -c '
import sys
limit = int(sys.argv[1])
entries = [entry for entry in sys.stdin.buffer.read().decode("utf-8", "replace").split("\0") if entry]
long = [(entry, len(entry.partition(" ")[2])) for entry in entries]
long = [(entry, length) for entry, length in long if length > limit]
for entry, length in long:
    print(f"{entry} ({length} characters)")
if long:
    sys.exit(f"{len(long)} of {len(entries)} subjects are longer than {limit} characters")
print(f"{len(entries)} commits checked")
' "$SUBJECT_LIMIT" || status=$?
fi
step_done "commit subjects" $status

if [ ${#failed[@]} -gt 0 ]; then
    echo "== failed: ${failed[*]}"
    exit 1
fi
