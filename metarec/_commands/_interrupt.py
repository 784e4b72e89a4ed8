"""One interruption contract for every command: Ctrl-C exits 130, SIGTERM 143, one line each.

While a command runs in the main thread, SIGTERM raises :class:`Terminated` (a
``KeyboardInterrupt``), so it unwinds exactly like Ctrl-C: open transactions roll back and
``finally`` blocks run.  The CLI's group (:class:`metarec.cli.LazyGroup`) then prints
``interrupted: <what was kept>`` on standard error and exits with ``128 + signal``.  A command
says what an interruption keeps with :func:`say_kept` (one clause, no period); without it the
line says :data:`KEPT_BY_DEFAULT`.  The benchmark, which handles both signals itself to stop
between writes, reports the runs it stored the same way.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator

import click

__all__ = ["KEPT_BY_DEFAULT", "Terminated", "say_kept", "sigterm_unwinds", "interrupted"]

#: What a command that did not say otherwise keeps when it is interrupted.
KEPT_BY_DEFAULT = (
    "nothing was left half-written (every write to the knowledge base is one transaction)"
)
_KEY = "kept_on_interrupt"


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread so that it unwinds like Ctrl-C."""


def say_kept(ctx: click.Context, kept: str) -> None:
    """Say what an interruption of this command from now on keeps (one clause, no period)."""
    root = ctx.find_root()
    root.ensure_object(dict)
    root.obj[_KEY] = kept


@contextlib.contextmanager
def sigterm_unwinds() -> Iterator[None]:
    """While the block runs in the main thread, SIGTERM raises :class:`Terminated`."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum, frame):
        raise Terminated()

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def interrupted(ctx: click.Context, exc: KeyboardInterrupt) -> click.exceptions.Exit:
    """Print the one line of an interruption; return the exit to raise (130 or 143)."""
    signum = signal.SIGTERM if isinstance(exc, Terminated) else signal.SIGINT
    kept = (ctx.find_root().obj or {}).get(_KEY, KEPT_BY_DEFAULT)
    click.echo(f"interrupted: {kept}", err=True)
    return click.exceptions.Exit(128 + int(signum))
