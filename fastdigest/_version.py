# The one place the version is written: pyproject.toml reads it from here for the package metadata
# ([tool.setuptools.dynamic]), and fastdigest.__version__ imports it.
__version__ = '0.1.0'
