"""Pausing Python's cyclic garbage collector around bulk parsing and checking: the one
implementation is :mod:`ek_otel.core.gc_pause` (the JSON report is built under it too).

Example:
    >>> import gc
    >>> with paused_gc():
    ...     with resumed_gc():
    ...         gc.isenabled()
    ...     gc.isenabled()
    True
    False
"""

from __future__ import annotations

from ..core.gc_pause import paused_gc, resumed_gc

__all__ = ["paused_gc", "resumed_gc"]
