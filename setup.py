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
"""

import glob
import os
import sys

from setuptools import Extension, setup

SOURCE_ROOT = os.path.join("src", "_fastdigest")
SOURCES = sorted(glob.glob(os.path.join(SOURCE_ROOT, "**", "*.c"), recursive=True))
HEADERS = sorted(glob.glob(os.path.join(SOURCE_ROOT, "**", "*.h"), recursive=True))


def compile_args():
    if sys.platform == "win32":
        return ["/std:c11"]
    args = ["-std=c11", "-O3"]
    if os.environ.get("FASTDIGEST_STRICT") == "1":
        args += ["-Wall", "-Wextra", "-Werror"]
    args += os.environ.get("FASTDIGEST_CFLAGS", "").split()
    return args


setup(
    ext_modules=[
        Extension(
            "fastdigest._fastdigest",
            sources=SOURCES,
            depends=HEADERS,
            include_dirs=[SOURCE_ROOT],
            extra_compile_args=compile_args(),
            extra_link_args=os.environ.get("FASTDIGEST_LDFLAGS", "").split(),
        )
    ],
)
