"""The one output path of the CLI: ``--format table|json|csv``, progress bars, KB access.

Every command that prints results calls :func:`emit`; every command that does long work
wraps it in :func:`progress`, which draws a rich progress bar only when standard error is a
terminal (and ``CI`` is unset), and does nothing in pipes.  Heavy libraries (pandas, rich)
are imported inside these functions so that importing a command module stays cheap.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import sys
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import click

from metarec._text import one_line

__all__ = [
    "format_option",
    "db_option",
    "db_option_param",
    "emit",
    "progress",
    "status",
    "open_kb",
    "db_url",
    "echo_note",
]

FORMATS = ("table", "json", "csv")


#: Said in ``--help`` of every option accepted before and after the command name.
_PLACEMENT = "Accepted before or after the command name; if both are given, the one after wins."

DB_HELP = (
    "Knowledge base: an SQLAlchemy URL or a SQLite file path "
    "[env: METAREC_DB; default: kb.sqlite in the user data directory]. " + _PLACEMENT
)


def _root_obj(ctx: click.Context) -> dict:
    root = ctx.find_root()
    root.ensure_object(dict)
    return root.obj


def _store_db(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """Record ``--db`` in the root context; the value after the command name comes later,
    so it wins.  ``METAREC_DB`` is read by :func:`db_url` only when no ``--db`` was typed."""
    if value is not None:
        _root_obj(ctx)["db_url"] = value
    return value


#: The one definition of ``--db``, for the root and every command.
_DB_DECLS = ("--db", "db_url")


def _db_settings() -> dict:
    return {
        "metavar": "URL",
        "expose_value": False,
        "is_eager": True,
        "callback": _store_db,
        "help": DB_HELP,
    }


def db_option_param() -> click.Option:
    """A new ``--db`` option object (the root's); commands take it with :func:`db_option`."""
    return click.Option(list(_DB_DECLS), **_db_settings())


def db_option(f):
    """Decorator adding the shared ``--db`` option (see :func:`db_option_param`)."""
    return click.option(*_DB_DECLS, **_db_settings())(f)


def _resolve_format(default: str | None):
    def callback(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
        obj = _root_obj(ctx)
        if default is None:  # the root's --format: remember it for the command
            if value is not None:
                obj["fmt"] = value
            return value
        if value is not None:
            return value
        return obj.get("fmt") or default

    return callback


def format_option(default: str | None = "table"):
    """Decorator adding ``--format [table|json|csv]``, accepted before and after the command.

    On a command, the value after the command name wins, else the one before it (stored by
    the root's ``--format``, ``default=None``), else ``default``.
    """
    shown = f" [default: {default}]" if default else ""
    return click.option(
        "--format",
        "fmt",
        type=click.Choice(FORMATS),
        default=None,
        expose_value=default is not None,
        callback=_resolve_format(default),
        help=f"Output format{shown}. {_PLACEMENT}",
    )


def _jsonable(value: Any) -> Any:
    """Convert numpy / pandas scalars and containers into plain JSON values (NaN -> null)."""
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if hasattr(value, "to_dict") and hasattr(value, "columns"):  # DataFrame
        return [_jsonable(r) for r in value.to_dict(orient="records")]
    if hasattr(value, "tolist"):  # numpy array or scalar
        return _jsonable(value.tolist())
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    try:
        import pandas as pd

        if pd.isna(value):
            return None
    except (TypeError, ValueError):
        pass
    return str(value)


def _format_cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        if math.isnan(value):
            return "-"
        if value != 0 and (abs(value) >= 1e6 or abs(value) < 1e-3):
            return f"{value:.3g}"
        return f"{value:.4g}"
    if hasattr(value, "item"):
        return _format_cell(value.item())
    return str(value)


def _significant(value: float, digits: int) -> str:
    """``value`` rounded to ``digits`` significant digits, without scientific notation, and
    to at most :data:`MAX_DECIMALS` decimals (a smaller value is a rounding error of 0)."""
    if value == 0 or not math.isfinite(value):
        return f"{value:g}"
    decimals = min(max(digits - 1 - math.floor(math.log10(abs(value))), 0), MAX_DECIMALS)
    rounded = round(value, decimals)
    return "0" if rounded == 0 else f"{rounded:.{decimals}f}"


#: Most decimals a table shows (JSON and CSV keep full precision).
MAX_DECIMALS = 6


def format_seconds(value: Any) -> str:
    """A duration with its unit and two significant digits: ``4.2 ms``, ``0.03 s``, ``2.5 min``."""
    value = _as_float(value)
    if value is None:
        return "-"
    if value == 0:
        return "0 s"
    if abs(value) < 0.01:
        return f"{_significant(value * 1000, 2)} ms"
    if abs(value) < 120:
        return f"{_significant(value, 2)} s"
    if abs(value) < 7200:
        return f"{_significant(value / 60, 2)} min"
    return f"{_significant(value / 3600, 2)} h"


def format_percent(value: Any) -> str:
    """A fraction in [0, 1] as a percentage with one decimal: ``0.9234`` -> ``92.3 %``."""
    value = _as_float(value)
    return "-" if value is None else f"{100 * value:.1f} %"


def _as_float(value: Any) -> float | None:
    if value is None:
        return None
    try:
        value = float(value)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(value) else value


def _cell_formatter(name: str) -> Callable[[Any], str] | None:
    """How a table shows a column, chosen by its name (JSON and CSV keep full precision).

    ``*time`` -> seconds with a unit (2 significant digits); ``*accuracy*`` -> percent with one
    decimal; ``r2``, ``expected_r2*`` and the other ``expected_*`` success rates -> three
    decimals; ``expected_loss`` -> accuracy points; distances, weights, scores -> 3
    significant digits.  Other columns keep the generic format.
    """
    lowered = name.lower()
    is_time = lowered == "time" or lowered.endswith("_time") or lowered.startswith("time_")
    if is_time and "ratio" not in lowered:  # a ratio of times has no unit
        return format_seconds
    if "accuracy" in lowered:
        return format_percent
    if "r2" in lowered.split("_"):  # a regressor's R², a fraction that can be negative
        return lambda v: "-" if _as_float(v) is None else f"{_as_float(v):.3f}"
    if lowered == "expected_loss":  # already in accuracy points
        return lambda v: "-" if _as_float(v) is None else f"{_as_float(v):.1f} pts"
    if lowered.startswith("expected_"):  # another success rate ranked by (roc_auc, tau...)
        return lambda v: "-" if _as_float(v) is None else f"{_as_float(v):.3f}"
    if any(word in lowered for word in ("distance", "weight", "score")):
        return lambda v: "-" if _as_float(v) is None else _significant(_as_float(v), 3)
    return None


def table_cells(frame) -> tuple[list[str], list[list[str]], list[bool]]:
    """Headers, formatted rows and right-alignment flags of ``frame`` for a table.

    A column ``X`` with companions ``X_low`` and ``X_high`` is shown as ``value (low–high)``
    and the companions are not shown on their own.
    """
    columns = [str(c) for c in frame.columns]
    hidden = {
        f"{c}_{end}"
        for c in columns
        for end in ("low", "high")
        if f"{c}_low" in columns and f"{c}_high" in columns
    }
    shown = [c for c in columns if c not in hidden]
    formatters = {c: _cell_formatter(c) or _format_cell for c in columns}
    rows: list[list[str]] = []
    for record in frame.to_dict(orient="records"):
        cells = []
        for column in shown:
            text = formatters[column](record[column])
            if f"{column}_low" in hidden:
                low = formatters[column](record[f"{column}_low"])
                high = formatters[column](record[f"{column}_high"])
                if low != "-" and high != "-":
                    unit = ""
                    for suffix in (" %", " ms", " s", " min", " h", " pts"):
                        if low.endswith(suffix) and high.endswith(suffix):
                            low, unit = low[: -len(suffix)], suffix
                            high = high[: -len(suffix)]
                            break
                    text = f"{text} ({low}–{high}{unit})"
            cells.append(text)
        rows.append(cells)
    numeric = [frame[c].dtype.kind in "iuf" for c in shown]
    headers = [f"{c} (80 % interval)" if f"{c}_low" in hidden else c for c in shown]
    return headers, rows, numeric


def _to_frame(data: Any):
    import pandas as pd

    if isinstance(data, pd.DataFrame):
        return data
    if isinstance(data, pd.Series):
        return data.rename_axis("name").reset_index(name="value")
    if isinstance(data, Mapping):
        return pd.DataFrame({"name": list(data.keys()), "value": list(data.values())})
    return pd.DataFrame(list(data))


#: Narrowest a text column other than the first is squeezed to on a narrow terminal.
TEXT_MIN_WIDTH = 16


def emit(
    data: Any,
    fmt: str,
    *,
    title: str | None = None,
    json_extra: Mapping[str, Any] | None = None,
) -> None:
    """Print ``data`` in the chosen format.

    Parameters
    ----------
    data : DataFrame, Series, mapping or list of records
        What to print.  A mapping is shown as name/value rows.
    fmt : {"table", "json", "csv"}
        Output format.
    title : str, optional
        Caption of the table (table format only).
    json_extra : mapping, optional
        Further top-level members of the JSON document, which is always an object
        ``{"results": [...], **json_extra}`` (the rows under ``results``, as every command
        prints them).
    """
    frame = _to_frame(data)
    try:
        _print(frame, fmt, title, json_extra)
    except BrokenPipeError:
        _reader_gone()


def _reader_gone() -> None:
    """The reader of standard output went away (`| head`): it had what it wanted.  What is
    left of the output goes nowhere, and the command ends as it would, exit code and notes on
    standard error included (rich and click would exit with 1 at once)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


def _print(frame, fmt: str, title: str | None, json_extra) -> None:
    if fmt == "json":
        records = _jsonable(frame)
        document = {"results": records, **_jsonable(dict(json_extra or {}))}
        click.echo(json.dumps(document, indent=2, allow_nan=False))
    elif fmt == "csv":
        click.echo(frame.to_csv(index=False), nl=False)
    elif fmt == "table":
        from rich.console import Console
        from rich.table import Table

        class _Console(Console):
            def on_broken_pipe(self) -> None:
                _reader_gone()

        table = Table(title=title, show_edge=False, header_style="bold")
        headers, rows, numeric = table_cells(frame)
        for i, (header, right) in enumerate(zip(headers, numeric, strict=True)):
            # names (the first column) and numbers are never cut or wrapped; on a narrow
            # terminal the headers and the other text columns wrap instead
            widest = max((len(cells[i]) for cells in rows), default=0)
            keep = i == 0 or right
            table.add_column(
                header,
                justify="right" if right else "left",
                min_width=widest if keep else min(widest, TEXT_MIN_WIDTH),
                overflow="fold",  # a long header breaks over lines rather than losing its end
            )
        for cells in rows:
            table.add_row(*cells)
        # in a pipe or a file, do not cut names to an assumed 80-column terminal; cells are
        # plain text: no markup (a name like "svc[rbf]" stays whole), no highlighting
        width = None if sys.stdout.isatty() else 200
        console = _Console(soft_wrap=True, width=width, markup=False, highlight=False, emoji=False)
        console.print(table)
    else:  # pragma: no cover - click.Choice prevents it
        raise click.BadParameter(f"unknown format {fmt!r}")


def echo_note(message: str) -> None:
    """Print a note for the person at the terminal (to standard error, so pipes stay clean)."""
    click.echo(message, err=True)


def note_loaded(dataset) -> None:
    """Say on stderr what was read: rows, features, the target and why, the task, and the
    rows dropped for a missing label (a wrong target is then seen before any work)."""
    if dataset.n_dropped_target:
        echo_note(f"Dropped {dataset.n_dropped_target} rows whose target is missing.")
    echo_note(
        f"{dataset.name}: {dataset.n_instances} rows, {dataset.n_features} features, "
        f"target {dataset.target!r} ({dataset.target_reason}), task {dataset.task}"
    )


@contextlib.contextmanager
def warnings_as_notes() -> Iterator[None]:
    """While a command runs, a :class:`~metarec.exceptions.MetarecWarning` is a ``note:`` line.

    Other warnings (numpy's, scikit-learn's) are not shown to the person at the terminal:
    metarec catches those that matter where they arise and says what it did instead (a
    ``MetarecWarning``); ``METAREC_DEBUG=1`` shows them all, as Python would.
    """
    import warnings

    from metarec.exceptions import MetarecWarning

    if os.environ.get("METAREC_DEBUG"):
        yield
        return

    def show(message, category, filename, lineno, file=None, line=None):
        if issubclass(category, MetarecWarning):
            echo_note(f"note: {one_line(message)}")

    with warnings.catch_warnings():
        warnings.simplefilter("default")
        warnings.simplefilter("always", MetarecWarning)
        warnings.showwarning = show
        yield


def _interactive() -> bool:
    return sys.stderr.isatty() and not os.environ.get("CI")


@contextlib.contextmanager
def progress(description: str, total: int | None = None) -> Iterator[Callable[..., None]]:
    """Context manager yielding ``advance(n=1, total=None)``; a bar on a terminal only.

    Library functions accept such a callback (``progress=...``) and call it as work is done;
    ``total`` may be set late, once the amount of work is known.
    """
    if not _interactive():
        yield lambda n=1, total=None: None
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("eta"),
        TimeRemainingColumn(),
        transient=True,
        console=Console(stderr=True),  # stdout stays for the results
    ) as bar:
        task = bar.add_task(description, total=total)

        def advance(n: int = 1, total: int | None = None) -> None:
            if total is not None:
                bar.update(task, total=total)
            if n:
                bar.advance(task, n)

        yield advance


#: Seconds a step runs before :func:`status` shows a spinner (quick steps stay silent).
STATUS_DELAY = 1.0


@contextlib.contextmanager
def status(message: str, *, delay: float | None = None) -> Iterator[None]:
    """Say what is happening while a step runs: a spinner on standard error, terminal only.

    The spinner appears only once the step has taken ``delay`` seconds (default
    :data:`STATUS_DELAY`, 1 s) and disappears when it ends; in pipes and with ``CI`` set,
    nothing is printed.
    """
    if not _interactive():
        yield
        return
    import threading

    from rich.console import Console

    # _interactive() checked that standard error is a terminal
    spinner = Console(stderr=True, force_terminal=True).status(message, spinner="dots")
    lock = threading.Lock()
    state = {"started": False, "done": False}

    def start() -> None:
        with lock:
            if not state["done"]:
                spinner.start()
                state["started"] = True

    timer = threading.Timer(STATUS_DELAY if delay is None else delay, start)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
        with lock:
            state["done"] = True
            if state["started"]:
                spinner.stop()


def db_url(ctx: click.Context) -> str | None:
    """The knowledge-base URL given by ``--db`` (before or after the command) or ``METAREC_DB``."""
    return (ctx.find_root().obj or {}).get("db_url") or os.environ.get("METAREC_DB") or None


def open_kb(ctx: click.Context, *, builtin_fallback: bool = False):
    """Open the knowledge base named by the global ``--db`` option (or its defaults).

    ``builtin_fallback=True`` is for commands that only read: the KB is opened read-only
    when its file or folder is not writable, an explicit ``--db`` / ``METAREC_DB`` naming a
    missing file is an error (a mistyped path must not silently rank the built-in KB), and
    an empty or absent *default* KB is replaced by the built-in knowledge base shipped with
    metarec, with a note.  Commands that write create the KB as needed.
    """
    from metarec.storage import KnowledgeBase, open_builtin, open_or_builtin

    url = db_url(ctx)
    if builtin_fallback:
        if url is not None:
            kb = KnowledgeBase(url, create=False, read_only=None)
            if kb.has_runs():
                return kb
            kb.close()
            kb = open_builtin()
        else:
            kb = open_or_builtin(None)
        if kb.is_builtin:
            echo_note("Using the built-in knowledge base (no runs in your own KB).")
        return kb
    return KnowledgeBase(url)
