"""Pausing Python's cyclic garbage collector around bulk parsing and checking.

Scoring a result file parses the BFCL data and the results into hundreds of thousands of
dicts and lists, and builds a verdict per entry; none of it forms reference cycles, and
nearly all of it is freed (by reference counting) when the file is done. The cyclic
collector, triggered by those allocations, would walk these young objects again and again,
and now and then the whole heap (in a process that has imported a large stack, one full
collection costs more than scoring a category). :func:`paused_gc` turns it off for the
duration of such a block and back on afterwards, only if it was on: nothing is leaked,
and collections are just deferred to after the block.

Only code that creates no cyclic garbage in bulk runs under it (single-turn scoring,
reading result files, :func:`ek_otel.core.jsonable.to_jsonable` building a JSON report of
a million values); the multi-turn simulators keep the collector, and
:func:`resumed_gc` turns it back on for them inside a paused block (``ek-otel bfcl`` pauses
it for the whole command).

Example:
    >>> import gc
    >>> with paused_gc():
    ...     gc.isenabled()
    False
    >>> gc.isenabled()
    True
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

__all__ = ["paused_gc", "resumed_gc"]


@contextlib.contextmanager
def paused_gc() -> Iterator[None]:
    """Disable the cyclic garbage collector inside the block (re-enabled after it, only if
    it was enabled before: blocks nest).

    Example:
        >>> import gc
        >>> with paused_gc():
        ...     with paused_gc():
        ...         pass
        ...     gc.isenabled()
        False
    """
    was_enabled = gc.isenabled()
    if was_enabled:
        gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


@contextlib.contextmanager
def resumed_gc() -> Iterator[None]:
    """Inside a :func:`paused_gc` block, the collector on again for work that makes cyclic
    garbage (the multi-turn simulators). What exists when the block starts is frozen
    (:func:`gc.freeze`) out of its reach for the duration (the parsed data would only be
    walked again and again), and unfrozen after it. Outside a paused block it changes
    nothing.

    Example:
        >>> import gc
        >>> with paused_gc():
        ...     with resumed_gc():
        ...         gc.isenabled()
        ...     gc.isenabled()
        True
        False
    """
    if gc.isenabled():
        yield
        return
    gc.freeze()
    gc.enable()
    try:
        yield
    finally:
        gc.disable()
        gc.unfreeze()
