# Sourced by the test scripts that install what they miss from Debian
# (tests/c/run.sh, tests/fuzz/run.sh, tests/hardening/leaks.sh): a missing
# tool is installed, never a reason to skip. Needs root, or sudo.
#
#   apt_install PACKAGE...   apt-get install, after one apt-get update per run
#                            (and after any other script's apt_install ends)
#
# Progress goes to stderr, so that callers may capture a command's output.

as_root() {
    if [ "$(id -u)" = 0 ]; then
        "$@"
    elif command -v sudo >/dev/null; then
        sudo "$@"
    else
        echo "$(basename "$0"): need root (or sudo) to run: $*" >&2
        return 1
    fi
}

apt_updated=no
apt_install() {
    echo "== installing $* with apt-get" >&2
    # One apt-get at a time: the hardening jobs run side by side and may each
    # install their tool (apt-get fails at once on a lock another one holds).
    exec {apt_lock}>"${TMPDIR:-/tmp}/fastdigest-apt.lock"
    flock "$apt_lock"
    if [ "$apt_updated" = no ]; then
        as_root apt-get update -q >&2
        apt_updated=yes
    fi
    as_root env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -q --no-install-recommends "$@" >&2
    exec {apt_lock}>&-
}
