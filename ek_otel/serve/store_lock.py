"""One ``ek-otel serve`` per store: an exclusive lock held for the server's lifetime.

Two servers on one store would score and export every run twice, so the second one is
refused with :class:`StoreInUse` (one line, exit 2, from the CLI).
"""

from __future__ import annotations

import os
from typing import Optional

from ..errors import InputError

__all__ = ["StoreLock", "StoreInUse"]


class StoreInUse(InputError):
    """Another ``ek-otel serve`` holds the store (two servers would score runs twice)."""


class StoreLock:
    """An exclusive lock on a store for one server's lifetime: ``PATH.lock``, ``flock``-ed.

    The kernel drops the lock when the process dies (``kill -9`` included), so a stale lock
    file never blocks a restart. The lock is on a side file, not on the database: closing
    any descriptor of the database file would drop SQLite's own POSIX locks.

    Example:
        >>> import os, tempfile
        >>> path = os.path.join(tempfile.mkdtemp(), "s.db")
        >>> first = StoreLock(path)
        >>> StoreLock(path)
        Traceback (most recent call last):
        ...
        ek_otel.serve.store_lock.StoreInUse: ...s.db: the store is in use by another ek-otel serve (pid ...)
        >>> first.release(); StoreLock(path).release()
    """

    def __init__(self, path: str):
        self.path = path
        self._fd: Optional[int] = None
        try:
            import fcntl
        except ImportError:  # pragma: no cover - not POSIX: no lock
            return
        fd = os.open(path + ".lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = os.read(fd, 32).decode(errors="replace").strip() or "?"
            os.close(fd)
            raise StoreInUse(f"{path}: the store is in use by another ek-otel serve "
                             f"(pid {holder})") from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._fd = fd

    def release(self) -> None:
        """Release the lock (safe to call twice)."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
