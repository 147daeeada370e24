"""Build of the C extension fastdigest._fastdigest.

Every .c file under src/_fastdigest/ (the core, the dispatcher, the kernels
and the binding in python/) is compiled into the one extension. The
instruction-set kernels carry target attributes (or pragmas) of their own, so
the default flags build a package that runs on any CPU of the architecture and
picks its kernels at import.

Environment:
  FASTDIGEST_STRICT=1   add -Wall -Wextra -Werror (CI builds this way)
  FASTDIGEST_CFLAGS     extra compiler flags, split on white space (for
                        sanitizer builds and the opt-out macros such as
                        -DFD_NO_SHANI)
  FASTDIGEST_LDFLAGS    extra linker flags, split on white space
  FASTDIGEST_SHA512NI_CC  a compiler (one word, such as clang) for the
                        SHA512-instruction kernel alone, where CC does not
                        build it (below)

A change of any of these (or of CC, CFLAGS, LDFLAGS) rebuilds the extension
on the next build, even where build/ holds objects of an earlier one. The
sources compile one per core (`build_ext -j N` sets another number).

Where the compiler knows Intel's SHA512 instructions (GCC 14, Clang 17:
kernels/x86/sha512ni/sha512ni.h), one small file first checks that it also
builds them: GCC hands them to the system's assembler, which may be older
than they are. If it cannot, the build adds -DFD_NO_SHA512NI and says so.
With FASTDIGEST_SHA512NI_CC set, a compiler too old to know them fails the
check too, and that compiler builds the kernel's file instead (the build
fails if it cannot either), so that no build lacks the kernel.
"""

import copy
import glob
import json
import os
import sys
from concurrent.futures import ThreadPoolExecutor

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

try:
    from setuptools.errors import CompileError
except ImportError:  # setuptools before 59
    from distutils.errors import CompileError

SOURCE_ROOT = os.path.join('src', '_fastdigest')
SOURCES = sorted(glob.glob(os.path.join(SOURCE_ROOT, '**', '*.c'), recursive=True))
# The C API's public header (python/capi.c implements it), shipped in the package for other extensions.
PUBLIC_INCLUDE = os.path.join('fastdigest', 'include')
HEADERS = sorted(glob.glob(os.path.join(SOURCE_ROOT, '**', '*.h'), recursive=True)) + [
    os.path.join(PUBLIC_INCLUDE, 'fastdigest.h')
]


# platform/parallel.c starts POSIX threads (digest_array on several cores). glibc before 2.34 (the
# manylinux2014 wheels' 2.17) keeps pthread_create in libpthread, and not every interpreter's LDSHARED
# says -pthread (pyenv's builds do not), so the extension asks for it itself, but on macOS (the
# threads are in libSystem) and Windows (threads of its own, and MSVC's flags).
PTHREAD = [] if sys.platform in ('win32', 'darwin') else ['-pthread']


def compile_args():
    if sys.platform == 'win32':
        return ['/std:c11']
    args = ['-std=c11', '-O3'] + PTHREAD
    if os.environ.get('FASTDIGEST_STRICT') == '1':
        args += ['-Wall', '-Wextra', '-Werror']
    args += os.environ.get('FASTDIGEST_CFLAGS', '').split()
    return args


# The SHA512 instructions in the kernel's header and target attribute: compiles to nothing where the
# header leaves the kernel out, and fails where the compiler knows the intrinsics but its assembler does
# not know the instructions. The kernel's folder, whose files FASTDIGEST_SHA512NI_CC would build.
SHA512NI_FOLDER = os.path.join(SOURCE_ROOT, 'kernels', 'x86', 'sha512ni')
SHA512NI_PROBE = r"""
#include "kernels/x86/sha512ni/sha512ni.h"
#if defined(FD_SHA512NI_PROBE_REQUIRE) && defined(FD_X86_64) && !defined(FD_NO_SHA512NI) && \
    !defined(FD_HAVE_SHA512NI)
#error "this compiler does not know the SHA512 intrinsics"
#endif
#ifdef FD_HAVE_SHA512NI
#include <immintrin.h>
FD_TARGET_SHA512NI
__m256i fd_sha512ni_probe(__m256i a, __m256i b, __m128i c)
{
    return _mm256_sha512msg2_epi64(_mm256_sha512msg1_epi64(_mm256_sha512rnds2_epi64(a, b, c), c), b);
}
#endif
"""


class build_ext_when_flags_change(build_ext):
    """build_ext that also rebuilds an extension when its compile or link flags changed.

    setuptools rebuilds an extension only when a source or header is newer than the built library,
    so a second `pip install .` with other FASTDIGEST_CFLAGS (say -DFD_NO_SHANI) would reuse the
    library in build/ and silently keep the old kernels. This writes the effective flags of each
    extension, the compiler's own command lines (which carry CC, CFLAGS and LDFLAGS) and the
    Extension's arguments, to a stamp file in build_temp beside the objects, and forces the
    rebuild when they differ from the stamp (or there is none: an unknown past build).
    """

    # The attributes of distutils' compiler classes that hold their command lines: Unix compilers
    # (gcc, clang) and MSVC.
    COMPILER_COMMANDS = ('compiler_so', 'linker_so', 'compile_options', 'ldflags_shared')

    def build_flags(self, ext):
        commands = {name: getattr(self.compiler, name, None) for name in self.COMPILER_COMMANDS}
        return {
            'compiler': {name: value for name, value in commands.items() if value is not None},
            'extra_compile_args': ext.extra_compile_args,
            'extra_link_args': ext.extra_link_args,
            'define_macros': ext.define_macros,
            'undef_macros': ext.undef_macros,
            'include_dirs': ext.include_dirs,
            'libraries': ext.libraries,
            'debug': bool(self.debug),
            'sha512ni_compiler': getattr(self.sha512ni_compiler, 'compiler_so', None),
        }

    def compile_in_parallel(self):
        """Makes the compiler's compile() run one compiler process per source, as many at once as
        there are cores: setuptools compiles the sources of one extension one after another, and
        this one has some 40 (half a minute of every wheel, install and CI build, serially)."""
        compile_serially = self.compiler.compile
        jobs = self.parallel if isinstance(self.parallel, int) and self.parallel > 1 else os.cpu_count() or 1

        def compile_one(source, *args, **kwargs):
            if self.sha512ni_compiler is not None and os.path.dirname(os.path.normpath(source)) == SHA512NI_FOLDER:
                return self.sha512ni_compiler.compile([source], *args, **kwargs)
            return compile_serially([source], *args, **kwargs)

        def compile_sources(sources, *args, **kwargs):
            if jobs == 1 or len(sources) < 2:
                return [obj for source in sources for obj in compile_one(source, *args, **kwargs)]
            # The first alone: MSVC's compiler object initializes itself on its first compile.
            objects = compile_one(sources[0], *args, **kwargs)
            with ThreadPoolExecutor(jobs) as pool:
                for more in pool.map(lambda source: compile_one(source, *args, **kwargs), sources[1:]):
                    objects += more
            return objects

        self.compiler.compile = compile_sources

    sha512ni_compiler = None

    def builds_sha512ni_probe(self, compiler, ext, probe, macros):
        try:
            # The object lands beside the probe.
            compiler.compile(
                [probe], macros=macros, include_dirs=ext.include_dirs, extra_postargs=ext.extra_compile_args
            )
        except CompileError:
            return False
        return True

    def choose_sha512ni_compiler(self, ext):
        """Where the compiler cannot build SHA512NI_PROBE: FASTDIGEST_SHA512NI_CC for the kernel's
        folder, or else FD_NO_SHA512NI in EXT's macros."""
        if ('FD_NO_SHA512NI', '1') in ext.define_macros:
            return
        os.makedirs(self.build_temp, exist_ok=True)
        probe = os.path.join(self.build_temp, 'sha512ni_probe.c')
        with open(probe, 'w', encoding='utf-8') as file:
            file.write(SHA512NI_PROBE)
        alternate = os.environ.get('FASTDIGEST_SHA512NI_CC')
        # With another compiler at hand, the kernel must be in: the probe then also fails where the
        # header leaves it out for the compiler's version.
        macros = [('FD_SHA512NI_PROBE_REQUIRE', '1')] if alternate else []
        if self.builds_sha512ni_probe(self.compiler, ext, probe, macros):
            return
        if alternate:
            # The same command line with the other compiler, and the class's own compile(), not the
            # instance's parallel one that compile_in_parallel installed.
            other = copy.copy(self.compiler)
            vars(other).pop('compile', None)
            other.compiler_so = [alternate] + self.compiler.compiler_so[1:]
            if not self.builds_sha512ni_probe(other, ext, probe, macros):
                raise CompileError(f'FASTDIGEST_SHA512NI_CC={alternate} cannot build the SHA512 instructions either')
            print(f'fastdigest: the sha512ni kernel is built by {alternate}: the compiler does not build it')
            self.sha512ni_compiler = other
            # For the other files, whose compiler may not know the intrinsics (sha512ni.h).
            ext.define_macros.append(('FD_SHA512NI_OTHER_COMPILER', '1'))
            return
        print(
            'fastdigest: the compiler knows the SHA512 intrinsics but cannot build them (an assembler older '
            'than the instructions?): building without the sha512ni kernel (-DFD_NO_SHA512NI)'
        )
        ext.define_macros.append(('FD_NO_SHA512NI', '1'))

    def build_extension(self, ext):
        if self.compiler.compile.__name__ != 'compile_sources':
            self.compile_in_parallel()
        self.choose_sha512ni_compiler(ext)
        stamp = os.path.join(self.build_temp, ext.name + '.flags.json')
        flags = json.dumps(self.build_flags(ext), indent=1, sort_keys=True)
        try:
            with open(stamp, encoding='utf-8') as file:
                previous_flags = file.read()
        except FileNotFoundError:
            previous_flags = None
        forced = self.force
        if previous_flags != flags:
            self.force = True
        try:
            super().build_extension(ext)
        finally:
            self.force = forced
        os.makedirs(self.build_temp, exist_ok=True)
        with open(stamp, 'w', encoding='utf-8') as file:
            file.write(flags)


# The `fastdigest` command. On POSIX systems it is the plain script scripts/fastdigest, not a
# console-script entry point: pip's wrapper for an entry point imports `re` before it calls the
# package, a large share of what a short command costs. Windows runs scripts through the
# launcher pip makes only for entry points, so it keeps one, to the same run().
if sys.platform == 'win32':
    COMMAND = {'entry_points': {'console_scripts': ['fastdigest = fastdigest.__main__:run']}}
else:
    COMMAND = {'scripts': ['scripts/fastdigest']}

setup(
    **COMMAND,
    cmdclass={'build_ext': build_ext_when_flags_change},
    ext_modules=[
        Extension(
            'fastdigest._fastdigest',
            sources=SOURCES,
            depends=HEADERS,
            include_dirs=[SOURCE_ROOT, PUBLIC_INCLUDE],
            extra_compile_args=compile_args(),
            extra_link_args=PTHREAD + os.environ.get('FASTDIGEST_LDFLAGS', '').split(),
        )
    ],
)
