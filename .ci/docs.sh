#!/usr/bin/env bash
# Builds the documentation site strictly: installs the `docs` extra's packages and runs
# `mkdocs build --strict` into a temporary folder, which fails on any warning, among them a link to a
# missing page or anchor, a page left out of the nav, a missing include, and a name the API reference
# cannot find in the stubs (mkdocs.yml's `validation` settings). The site is thrown away: this checks
# the documentation, it does not publish it.
#
#   .ci/docs.sh [SITE_DIR]      keep the built site in SITE_DIR instead
#
# Only the extra's requirements are installed (read from pyproject.toml), not fastdigest itself: the
# reference is rendered from the type stubs, so the build needs no compiled extension. The examples
# of the pages run as tests in the suite (tests/test_docs_examples.py), not here.
#
# Environment: PYTHON (default python3) is the interpreter whose pip and mkdocs are used.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}

start=$SECONDS
mapfile -t requirements < <("$PYTHON" - <<'PY'
import sys
try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib
with open("pyproject.toml", "rb") as f:
    print("\n".join(tomllib.load(f)["project"]["optional-dependencies"]["docs"]))
PY
)
"$PYTHON" -m pip install -q "${requirements[@]}"
echo "docs extra installed (${requirements[*]}): $((SECONDS - start)) s"

site=${1:-}
if [ -z "$site" ]; then
    site=$(mktemp -d)
    trap 'rm -rf "$site"' EXIT
fi
start=$SECONDS
# mkdocs-material prints a notice about MkDocs 2.0 on every build; it is not about this site.
NO_MKDOCS_2_WARNING=1 "$PYTHON" -m mkdocs build --strict --site-dir "$site"
echo "mkdocs build --strict: $((SECONDS - start)) s"
