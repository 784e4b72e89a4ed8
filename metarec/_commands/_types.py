"""Click parameter types shared by every command: checked while parsing, before any work.

* :class:`FiniteFloat` - every float option: never NaN, infinite only where it means something,
  within the option's bounds (click's own ``FloatRange`` lets ``nan`` through every bound);
* :class:`OutputFile` - every file a command writes (``-o``, ``--backup``): its folder exists and
  can be written, it is not a folder itself, and its ending is one the writer knows;
* :class:`SuggestingChoice` - a fixed set of values that names the closest ones on a typo.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import click

from metarec._names import closest

__all__ = ["FiniteFloat", "OutputFile", "SuggestingChoice", "POSITIVE"]


class FiniteFloat(click.FloatRange):
    """A float option within bounds that refuses ``nan`` and, unless ``allow_inf``, ``inf``.

    Parameters
    ----------
    min, max : float, optional
        Bounds, as for :class:`click.FloatRange`.
    min_open, max_open : bool, default=False
        Whether the bounds themselves are excluded.
    allow_inf : bool, default=False
        Accept an infinite value (within the bounds).
    """

    name = "number"

    def __init__(
        self,
        min: float | None = None,
        max: float | None = None,
        *,
        min_open: bool = False,
        max_open: bool = False,
        allow_inf: bool = False,
    ) -> None:
        super().__init__(min=min, max=max, min_open=min_open, max_open=max_open)
        self.allow_inf = allow_inf

    def convert(self, value, param, ctx):
        number = super().convert(value, param, ctx)
        if math.isnan(number):
            self.fail(f"{value!r} is not a number", param, ctx)
        if math.isinf(number) and not self.allow_inf:
            self.fail(f"{value!r} is not a finite number", param, ctx)
        return number


#: A positive, finite number (A3R's n, a time budget, a timeout, a memory limit).
POSITIVE = FiniteFloat(min=0, min_open=True)


class OutputFile(click.Path):
    """A file a command will write, checked before the command does any work.

    The file is opened for writing once (and removed again when it did not exist), so that a
    folder where nothing can be created (a read-only mount, ``/proc``) fails here too.

    Parameters
    ----------
    suffixes : tuple of str, optional
        The endings the writer knows (``(".png", ".svg", ".pdf")``); any when ``None``.
    companion : str, optional
        The suffix of a second file written beside it (``".json"``: ``model.joblib`` and
        ``model.json``), checked the same way.
    """

    name = "file"

    def __init__(
        self, suffixes: tuple[str, ...] | None = None, *, companion: str | None = None
    ) -> None:
        super().__init__(dir_okay=False)
        self.suffixes = suffixes
        self.companion = companion

    def convert(self, value, param, ctx):
        text = os.fspath(value)
        if Path(text).is_dir():
            self.fail(f"cannot write {text}: it is a folder", param, ctx)
        if self.suffixes is not None and not text.lower().endswith(self.suffixes):
            self.fail(f"{text!r} must end in {', '.join(self.suffixes)}", param, ctx)
        paths = [Path(text)]
        if self.companion is not None:
            paths.append(paths[0].with_suffix(self.companion))
        for path in paths:
            problem = _unwritable(path)
            if problem:
                self.fail(f"cannot write {path}: {problem}", param, ctx)
        return text


def _unwritable(path: Path) -> str | None:
    """Why ``path`` cannot be written, or None (it is opened once to find out)."""
    if path.is_dir():
        return "it is a folder"
    folder = path.parent
    if not folder.exists():
        return f"folder {folder} does not exist"
    if not folder.is_dir():
        return f"{folder} is not a folder"
    existed = path.exists()
    if not os.access(path if existed else folder, os.W_OK):
        return "permission denied"
    try:
        if existed:
            with open(path, "ab"):
                pass
        else:
            os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
            os.unlink(path)
    except OSError as exc:
        return exc.strerror.lower() if exc.strerror else type(exc).__name__
    return None


class OutputFolder(click.Path):
    """A folder a command will write into, checked before the command does any work.

    A missing folder is created once and removed again (with any missing parent), and a file
    is created and removed in an existing one, so that a place where nothing can be written
    (a read-only mount, ``/proc``, a path through a file) fails here.
    """

    name = "folder"

    def __init__(self) -> None:
        super().__init__(file_okay=False)

    def convert(self, value, param, ctx):
        text = os.fspath(value)
        problem = _unwritable_folder(Path(text))
        if problem:
            self.fail(f"cannot write into {text}: {problem}", param, ctx)
        return text


def _unwritable_folder(path: Path) -> str | None:
    """Why nothing can be written into the folder ``path``, or None (found out by trying)."""
    import tempfile

    missing = []
    existing = path
    while not existing.exists():
        missing.append(existing)
        if existing.parent == existing:
            break
        existing = existing.parent
    if not existing.is_dir():
        return "it is a file" if existing == path else f"{existing} is a file"
    made = []
    try:
        for folder in reversed(missing):
            folder.mkdir()
            made.append(folder)
        handle, name = tempfile.mkstemp(dir=path, prefix=".metarec-check-")
        os.close(handle)
        os.unlink(name)
    except OSError as exc:
        return exc.strerror.lower() if exc.strerror else type(exc).__name__
    finally:
        for folder in reversed(made):
            folder.rmdir()
    return None


class SchedulerAddress(click.ParamType):
    """The address of a Dask scheduler: ``tcp://host:port``, ``host:port`` or another scheme's
    ``scheme://...``, checked before any work (the cluster itself is reached later)."""

    name = "address"

    def convert(self, value, param, ctx):
        import re

        text = str(value).strip()
        if re.fullmatch(r"[A-Za-z][A-Za-z0-9+.-]*://\S+", text) and not re.fullmatch(
            r"(tcp|tls)://[^:/\s]+", text
        ):
            return text
        if re.fullmatch(r"[^:/\s]+:\d+", text):
            return text
        self.fail(
            f"{value!r} is not a scheduler address; write it as tcp://HOST:PORT "
            "(e.g. tcp://10.0.0.5:8786)",
            param,
            ctx,
        )


class SuggestingChoice(click.Choice):
    """:class:`click.Choice` whose error on an unknown value names the closest choices."""

    def convert(self, value, param, ctx):
        try:
            return super().convert(value, param, ctx)
        except click.BadParameter:
            near = closest(str(value), [str(c) for c in self.choices])
            hint = f" (did you mean {' or '.join(map(repr, near))}?)" if near else ""
            self.fail(
                f"{value!r} is not one of {', '.join(map(repr, self.choices))}{hint}",
                param,
                ctx,
            )


def existing_file(ctx, param, value):
    """Click callback of an input file argument: a missing file (or a folder) is a problem
    with the input (exit code 1, as when a dataset file is missing), not with the usage."""
    if value is None:
        return value
    path = Path(value)
    if path.is_dir():
        raise click.ClickException(f"{value} is a folder; give a file")
    if not path.exists():
        raise click.ClickException(f"file not found: {value}")
    return value


#: ``--target`` of the commands that read one dataset.
target_option = click.option(
    "--target", help="Target column [default: 'target', else 'class', else the last column]."
)
#: ``--as-classes``: take a numeric target's values as class labels.
task_option = click.option(
    "--task",
    type=click.Choice(["classification", "regression"]),
    help="Override the detected task (--as-classes is --task classification).",
)
as_classes_option = click.option(
    "--as-classes",
    is_flag=True,
    help="Treat the target's values as class labels even if they look continuous.",
)


def budget_duration(ctx, param, value):
    """Click callback of a search's ``--budget``: a duration of at least a second (see
    :func:`metarec.automl._estimator.parse_budget`), checked before any work."""
    from metarec.automl import parse_budget
    from metarec.exceptions import InvalidInputError

    try:
        return parse_budget(value)
    except InvalidInputError as exc:
        raise click.BadParameter(str(exc)) from None


def duration(ctx, param, value):
    """Click callback of a ``--budget``: ``90``, ``90s``, ``10m``, ``1h`` as seconds (None
    stays None), checked before any work."""
    from metarec._duration import parse_duration
    from metarec.exceptions import InvalidInputError

    if value is None:
        return None
    try:
        return parse_duration(value)
    except InvalidInputError as exc:
        raise click.BadParameter(str(exc)) from None
