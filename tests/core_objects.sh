# Sourced by tests/c/run.sh and tests/fuzz/run.sh, which set src_dir (the
# repository's src/_fastdigest). Their drivers and fuzz targets all link the
# whole C core: it is compiled once per build (compiler and flags) into
# objects that each binary of that build links, instead of once per binary
# (under the sanitizers one compile of the core takes minutes of a core).
#
#   core_sources
#       prints every .c file of the C core: all of src/_fastdigest but the
#       Python binding (python/, the only code that includes Python.h)
#   core_objects DIR COMPILER FLAG... [-- SETTING...]
#       sets core_object_list to one object per core source, compiled with
#       COMPILER FLAG... into DIR (as many compilers at a time as there are
#       cores; only once while DIR/.complete exists: the caller empties DIR
#       when its run begins). With SETTINGs (-DNAME=VALUE), each source that
#       names one of their macros is compiled again with them, into a folder
#       of DIR of their own, and its object is listed instead.

core_sources() {
    find "$src_dir" -name '*.c' -not -path "$src_dir/python/*" | LC_ALL=C sort
}

# object_name SOURCE: a core source's object, named by its path under src_dir.
object_name() {
    local path=${1#"$src_dir/"}
    echo "${path//\//_}.o"
}

# compile_each DIR COMPILER FLAG... -- SOURCE...
compile_each() {
    local dir=$1 command=() source
    shift
    while [ "$1" != -- ]; do
        command+=("$1")
        shift
    done
    shift
    mkdir -p "$dir"
    for source in "$@"; do
        printf '%s\0%s\0' "$source" "$dir/$(object_name "$source")"
    done | xargs -0 -n 2 -P "$(nproc)" bash -c 'command=("${@:1:$#-2}")
        "${command[@]}" -c -o "${@: -1}" "${@: -2:1}"' compile "${command[@]}"
}

core_objects() {
    local dir=$1 command=() settings=() sources=() set_sources=() names=() setting name set_dir index
    local -A compiled_with_settings=()
    shift
    while [ $# -gt 0 ] && [ "$1" != -- ]; do
        command+=("$1")
        shift
    done
    [ $# -gt 0 ] && shift
    settings=("$@")
    mapfile -t sources < <(core_sources)
    if [ ! -e "$dir/.complete" ]; then
        rm -rf "$dir"
        compile_each "$dir" "${command[@]}" -- "${sources[@]}" || return 1
        touch "$dir/.complete"
    fi
    core_object_list=()
    for index in "${!sources[@]}"; do
        core_object_list[index]="$dir/$(object_name "${sources[$index]}")"
    done
    [ ${#settings[@]} -gt 0 ] || return 0

    for setting in "${settings[@]}"; do
        name=${setting#-D}
        names+=(-e "${name%%=*}")
    done
    mapfile -t set_sources < <(grep -l -w "${names[@]}" "${sources[@]}")
    if [ ${#set_sources[@]} = 0 ]; then
        echo "core_objects: no core source reads ${settings[*]}" >&2
        return 1
    fi
    set_dir="$dir/settings-$(printf '%s\n' "${settings[@]}" | cksum | cut -d' ' -f1)"
    rm -rf "$set_dir"
    compile_each "$set_dir" "${command[@]}" "${settings[@]}" -- "${set_sources[@]}" || return 1
    for name in "${set_sources[@]}"; do
        compiled_with_settings[$name]=1
    done
    for index in "${!sources[@]}"; do
        if [ -n "${compiled_with_settings[${sources[$index]}]:-}" ]; then
            core_object_list[index]="$set_dir/$(object_name "${sources[$index]}")"
        fi
    done
}
