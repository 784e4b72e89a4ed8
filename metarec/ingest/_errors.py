"""Errors raised while ingesting from outside sources."""

from __future__ import annotations

from metarec.exceptions import IngestError

__all__ = ["OpenMLError", "ScenarioError"]


class OpenMLError(IngestError):
    """The OpenML server could not be reached, refused a request or sent an unusable answer.

    Parameters
    ----------
    message : str
        One-line description naming the request that failed.
    code : int, optional
        OpenML's own error code when the server answered with one.
    """

    def __init__(self, message: str, code: int | None = None) -> None:
        super().__init__(message)
        self.code = code


class ScenarioError(IngestError):
    """A folder is not a readable ASlib scenario (missing or malformed file)."""
