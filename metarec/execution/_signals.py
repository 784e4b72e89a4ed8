"""Stopping long work on SIGINT or SIGTERM: at once, but never in the middle of a write.

While a benchmark or a search runs in the main thread, both signals raise :class:`Stop` (a
``BaseException``, so no ``except Exception`` in an algorithm or a library swallows it);
inside :meth:`Signals.critical` (a knowledge-base transaction, a cache file being written)
the signal is only noted and raised when the section ends.  The caller turns it into
:class:`~metarec.exceptions.BenchmarkInterrupted`, which the CLI reports with exit status
128 + signal.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from typing import Any

__all__ = ["Signals", "Stop"]


class Stop(BaseException):
    """Raised by the signal handlers; a BaseException so no ``except Exception`` eats it.

    Parameters
    ----------
    signum : int
        The signal that came (``signal.SIGINT`` or ``signal.SIGTERM``), kept as ``signum``.
    """

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


class Signals:
    """SIGINT / SIGTERM raise :class:`Stop`, except inside ``critical()`` (deferred to its end).

    Handlers are installed only in the main thread (elsewhere signals cannot be handled) and
    the previous ones are restored on exit.
    """

    def __init__(self) -> None:
        self.previous: dict[int, Any] = {}
        self.depth = 0
        self.pending: int | None = None

    def _handle(self, signum, _frame) -> None:
        self.pending = signum  # also seen by check(), should the exception be swallowed
        if not self.depth:
            raise Stop(signum)

    def check(self) -> None:
        """Raise :class:`Stop` if a signal came (polled by the scheduling loop)."""
        if self.pending is not None and not self.depth:
            raise Stop(self.pending)

    def __enter__(self) -> Signals:
        if threading.current_thread() is threading.main_thread():
            for signum in (signal.SIGINT, signal.SIGTERM):
                if signal.getsignal(signum) is signal.SIG_IGN:
                    continue  # e.g. started with nohup, or in the background of a script
                self.previous[signum] = signal.signal(signum, self._handle)
        return self

    def __exit__(self, *exc) -> None:
        for signum, handler in self.previous.items():
            signal.signal(signum, handler)

    def critical(self):
        """A section of code that a signal does not interrupt: it raises :class:`Stop` at its end.

        A signal that comes inside the section is only noted (a later one replaces it).  When
        the outermost section ends (sections nest) and its block did not raise, :class:`Stop`
        is raised if a signal is noted, and the note is cleared.  A signal noted before the
        section (one already raised as :class:`Stop` outside any section included) is raised
        there too.  An exception of the block propagates unchanged and keeps the note.

        Returns
        -------
        contextlib.AbstractContextManager
            A context manager for one ``with`` block.

        Raises
        ------
        Stop
            On leaving the outermost section normally, when a signal is noted.
        """

        @contextlib.contextmanager
        def section():
            self.depth += 1
            try:
                yield
            finally:
                self.depth -= 1
            if not self.depth and self.pending is not None:
                signum, self.pending = self.pending, None
                raise Stop(signum)

        return section()
