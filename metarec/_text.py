"""One way to turn a message or an exception into one line of text."""

from __future__ import annotations

__all__ = ["ERROR_LENGTH", "error_line", "one_line"]

#: The longest exception message kept with a stored run or a failed fold.
ERROR_LENGTH = 500


def one_line(text: object) -> str:
    """Return ``text`` with every run of whitespace (newlines included) as one space.

    Parameters
    ----------
    text : object
        Anything; its ``str``.

    Returns
    -------
    str
    """
    return " ".join(str(text).split())


def error_line(exc: BaseException) -> str:
    """Return ``"<ExceptionType>: <message on one line>"``, the message cut at ERROR_LENGTH.

    Parameters
    ----------
    exc : BaseException

    Returns
    -------
    str
    """
    return f"{type(exc).__name__}: {one_line(exc)[:ERROR_LENGTH]}"
