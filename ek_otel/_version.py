"""The version of ek-otel: the one place it is written (``pyproject.toml`` reads it from
here), in a module of its own so that any part of the package, and ``ek-otel --version``,
can read it without importing anything else.

Example:
    >>> __version__.count(".") >= 2
    True
"""

__all__ = ["__version__"]

__version__ = "0.1.0"
