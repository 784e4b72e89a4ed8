"""Errors raised while ingesting from outside sources."""

from __future__ import annotations

import re

from metarec.exceptions import IngestError, OpenMLError

__all__ = ["OpenMLError", "ScenarioError", "plain_numbers"]

_NUMPY_REPR = re.compile(r"\b(?:np|numpy)\.(?:float|int|uint)\d*\(([^()]*)\)")


def plain_numbers(message: str) -> str:
    """Return ``message`` with numpy scalar reprs written as plain numbers.

    ``"accuracy np.float64(80.0) is outside [0, 1]"`` -> ``"accuracy 80.0 is outside [0, 1]"``:
    messages are for people, who never typed ``np.float64``.

    Parameters
    ----------
    message : str
        Any text.

    Returns
    -------
    str
        ``message`` with every ``np.float64(...)``, ``numpy.int64(...)``... replaced by
        the number inside.
    """
    return _NUMPY_REPR.sub(r"\1", message)


class ScenarioError(IngestError):
    """A folder is not a readable ASlib scenario (missing or malformed file).

    Parameters
    ----------
    *args
        The message for Python callers (see :class:`~metarec.exceptions.MetarecError`).
    cli_message : str, optional
        The message for the command line, printed instead (see
        :class:`~metarec.exceptions.MetarecError`).
    """
