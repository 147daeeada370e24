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

A change of any of these (or of CC, CFLAGS, LDFLAGS) rebuilds the extension
on the next build, even where build/ holds objects of an earlier one. The
sources compile one per core (`build_ext -j N` sets another number).
"""

import glob
import json
import os
import sys
from concurrent.futures import ThreadPoolExecutor

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

SOURCE_ROOT = os.path.join('src', '_fastdigest')
SOURCES = sorted(glob.glob(os.path.join(SOURCE_ROOT, '**', '*.c'), recursive=True))
HEADERS = sorted(glob.glob(os.path.join(SOURCE_ROOT, '**', '*.h'), recursive=True))


# core/parallel.c starts POSIX threads (digest_array on several cores). glibc before 2.34 (the
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
        }

    def compile_in_parallel(self):
        """Makes the compiler's compile() run one compiler process per source, as many at once as
        there are cores: setuptools compiles the sources of one extension one after another, and
        this one has some 40 (half a minute of every wheel, install and CI build, serially)."""
        compile_serially = self.compiler.compile
        jobs = self.parallel if isinstance(self.parallel, int) and self.parallel > 1 else os.cpu_count() or 1

        def compile_sources(sources, *args, **kwargs):
            if jobs == 1 or len(sources) < 2:
                return compile_serially(sources, *args, **kwargs)
            # The first alone: MSVC's compiler object initializes itself on its first compile.
            objects = compile_serially(sources[:1], *args, **kwargs)
            with ThreadPoolExecutor(jobs) as pool:
                for more in pool.map(lambda source: compile_serially([source], *args, **kwargs), sources[1:]):
                    objects += more
            return objects

        self.compiler.compile = compile_sources

    def build_extension(self, ext):
        if self.compiler.compile.__name__ != 'compile_sources':
            self.compile_in_parallel()
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


setup(
    cmdclass={'build_ext': build_ext_when_flags_change},
    ext_modules=[
        Extension(
            'fastdigest._fastdigest',
            sources=SOURCES,
            depends=HEADERS,
            include_dirs=[SOURCE_ROOT],
            extra_compile_args=compile_args(),
            extra_link_args=PTHREAD + os.environ.get('FASTDIGEST_LDFLAGS', '').split(),
        )
    ],
)
