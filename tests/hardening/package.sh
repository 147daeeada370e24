# Sourced by the hardening scripts (sanitize_python.sh, leaks.sh,
# tsan_python.sh), which build the extension into a scratch package beside
# the checkout's own.
#
#   use_build_dir NAME                sets build_dir: BUILD_DIR (made if
#                                     missing) and keep_build_dir=yes, or
#                                     a new folder fastdigest-NAME.* under
#                                     ${TMPDIR:-/tmp} and keep_build_dir=no
#                                     (the caller removes it when it passes)
#   copy_package_python PACKAGE_DIR   every Python file of fastdigest and its
#                                     subpackages (fastdigest/cli/), with the
#                                     stubs, py.typed and the C API's header and
#                                     .pxd (fastdigest/include/, which
#                                     get_include() names and tests/test_capi.py
#                                     builds against), into PACKAGE_DIR/fastdigest;
#                                     never the checkout's built extension
#
# Needs repo_root set by the caller.

copy_package_python() {
    (cd "$repo_root" && find fastdigest \( -name '*.py' -o -name '*.pyi' -o -name py.typed \
        -o -path 'fastdigest/include/*' \) \
        -exec cp --parents {} "$1/" \;)
}

use_build_dir() {
    if [ -n "${BUILD_DIR:-}" ]; then
        build_dir=$BUILD_DIR
        mkdir -p "$build_dir"
        keep_build_dir=yes
    else
        build_dir=$(mktemp -d "${TMPDIR:-/tmp}/fastdigest-$1.XXXXXX")
        keep_build_dir=no
    fi
}
