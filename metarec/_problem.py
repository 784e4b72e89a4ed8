"""``Problem``: one problem found in an input, as text and as its parts."""

from __future__ import annotations

__all__ = ["Problem"]


class Problem(str):
    """One problem of an input: a line of text that also carries what it names.

    The text is what a person reads (``"runs.csv, line 7, column 'accuracy': 1.5 is outside
    [0, 1]"``); the parts are what a program uses, so that no caller parses the text back.
    A ``str`` subclass: every place that prints or joins problems keeps working.

    Parameters
    ----------
    text : str
        The whole line.
    source : str
        The file or frame the problem is in (``"<DataFrame>"`` for a frame).
    row : int or None, keyword-only
        Position of the offending row among the input's data rows, from 0; None when the
        problem is not about one row.
    column : str or None, keyword-only
        The offending column, if any.
    message : str or None, keyword-only
        What is wrong, without the place (defaults to ``text``).

    Examples
    --------
    >>> p = Problem("a.csv, line 3, column 'x': 'abc' is not a number", source="a.csv",
    ...             row=1, column="x", message="'abc' is not a number")
    >>> p.row, p.column, p.message
    (1, 'x', "'abc' is not a number")
    >>> p.startswith("a.csv")
    True
    """

    source: str
    row: int | None
    column: str | None
    message: str

    def __new__(
        cls,
        text: str,
        *,
        source: str = "",
        row: int | None = None,
        column: str | None = None,
        message: str | None = None,
    ) -> Problem:
        problem = super().__new__(cls, text)
        problem.source = source
        problem.row = row
        problem.column = column
        problem.message = text if message is None else message
        return problem

    def __reduce__(self):
        return (_rebuild, (str(self), self.source, self.row, self.column, self.message))


def _rebuild(text, source, row, column, message) -> Problem:
    return Problem(text, source=source, row=row, column=column, message=message)
