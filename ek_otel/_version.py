"""The installed version of ek-otel, in a module of its own so that any part of the package
can read it without importing the package root (and everything the root exports).

Example:
    >>> isinstance(__version__, str) and len(__version__) > 0
    True
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version as _version

__all__ = ["__version__"]

try:
    __version__ = _version("ek-otel")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.0.0+unknown"
