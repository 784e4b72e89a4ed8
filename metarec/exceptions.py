"""The exceptions metarec raises.

Every error metarec raises on purpose derives from :class:`MetarecError`, so a caller can
catch one class.  The concrete classes also derive from the built-in exception a Python
programmer would expect (``ValueError`` for bad values, ``LookupError`` for unknown names),
following scikit-learn's habit.  The library never prints or exits; the command-line
interface turns these errors into a one-line ``Error: ...`` message.
"""

from __future__ import annotations

__all__ = [
    "MetarecError",
    "InvalidInputError",
    "DataError",
    "ImportRejectedError",
    "KnowledgeBaseError",
    "UnknownNameError",
    "NotFittedError",
    "IngestError",
    "OpenMLError",
    "BenchmarkError",
    "BenchmarkInterrupted",
    "MetarecWarning",
]


class MetarecError(Exception):
    """Root of every exception metarec raises on purpose.

    Parameters
    ----------
    *args
        The message for Python callers (it names parameters and methods).
    cli_message : str, optional
        The same said for the command line (it names options and commands); the CLI prints
        it instead of the Python message.
    """

    def __init__(self, *args, cli_message: str | None = None) -> None:
        super().__init__(*args)
        self.cli_message = cli_message


class InvalidInputError(MetarecError, ValueError):
    """An argument has an unusable value (empty array, mismatched lengths, negative time...).

    Parameters
    ----------
    *args
        The message for Python callers (see :class:`MetarecError`).
    cli_message : str, optional
        The message for the command line, printed instead (see :class:`MetarecError`).
    """


class DataError(MetarecError, ValueError):
    """A dataset cannot be used: missing or unreadable file, unknown target, no rows, one class.

    Parameters
    ----------
    *args
        The message for Python callers (see :class:`MetarecError`).
    cli_message : str, optional
        The message for the command line, printed instead (see :class:`MetarecError`).
    """


class ImportRejectedError(MetarecError, ValueError):
    """A file or frame given to the knowledge base was rejected; nothing was stored.

    Parameters
    ----------
    message : str
        One-line summary naming the file, line and column of the first problem.
    problems : list of str, optional
        Every problem found, one line each (:class:`metarec.storage.Problem` for rows of an
        import: the line also names its source, row, column and message).
    cli_message : str, optional
        The message for the command line, printed instead (see :class:`MetarecError`).
    """

    def __init__(
        self, message: str, problems: list[str] | None = None, *, cli_message: str | None = None
    ) -> None:
        super().__init__(message, cli_message=cli_message)
        self.problems = list(problems or [])


class KnowledgeBaseError(MetarecError):
    """The database cannot be used as a knowledge base (not a metarec KB, corrupt, unreachable).

    Parameters
    ----------
    *args
        The message for Python callers (see :class:`MetarecError`).
    cli_message : str, optional
        The message for the command line, printed instead (see :class:`MetarecError`).
    """


class UnknownNameError(MetarecError, LookupError):
    """A named dataset, algorithm, metric or metafeature group does not exist.

    Parameters
    ----------
    *args
        The message for Python callers (see :class:`MetarecError`).
    cli_message : str, optional
        The message for the command line, printed instead (see :class:`MetarecError`).
    """


class NotFittedError(MetarecError, ValueError, AttributeError):
    """An estimator was used before ``fit``.

    Parameters
    ----------
    *args
        The message for Python callers (see :class:`MetarecError`).
    cli_message : str, optional
        The message for the command line, printed instead (see :class:`MetarecError`).
    """


class IngestError(MetarecError):
    """Importing from an outside source (OpenML, ASlib) failed.

    Parameters
    ----------
    *args
        The message for Python callers (see :class:`MetarecError`).
    cli_message : str, optional
        The message for the command line, printed instead (see :class:`MetarecError`).
    """


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


class BenchmarkError(MetarecError):
    """The benchmark runner was given an unusable portfolio, protocol or dataset.

    Parameters
    ----------
    *args
        The message for Python callers (see :class:`MetarecError`).
    cli_message : str, optional
        The message for the command line, printed instead (see :class:`MetarecError`).
    """


class BenchmarkInterrupted(BenchmarkError):
    """The benchmark stopped on SIGINT or SIGTERM; what finished is stored or cached.

    Parameters
    ----------
    signum : int
        The signal that stopped it (``signal.SIGINT`` or ``signal.SIGTERM``).
    runs_stored : int
        Runs this invocation stored in the knowledge base before it stopped.

    Attributes
    ----------
    signal : int
        The signal that stopped it (``signum``).
    runs_stored : int
        Runs stored before it stopped.
    """

    def __init__(self, signum: int, runs_stored: int) -> None:
        super().__init__(
            f"interrupted: {runs_stored} runs stored; run the same command again to resume"
        )
        self.signal = signum
        self.runs_stored = runs_stored


class MetarecWarning(UserWarning):
    """Something about an answer a person should know (the CLI prints it as a ``note:`` line).

    metarec raises no library's raw warnings at its users: where numpy or scikit-learn would
    warn about something that matters for the answer, metarec says what it did instead.
    """
