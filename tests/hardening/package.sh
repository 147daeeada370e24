# Sourced by the hardening scripts (sanitize_python.sh, leaks.sh), which build
# the extension into a scratch package beside the checkout's own.
#
#   copy_package_python PACKAGE_DIR   every Python file of fastdigest and its
#                                     subpackages (fastdigest/cli/), with the
#                                     stubs and py.typed, into PACKAGE_DIR/fastdigest;
#                                     never the checkout's built extension
#
# Needs repo_root set by the caller.

copy_package_python() {
    (cd "$repo_root" && find fastdigest \( -name '*.py' -o -name '*.pyi' -o -name py.typed \) \
        -exec cp --parents {} "$1/" \;)
}
