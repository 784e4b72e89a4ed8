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

__all__ = ["format_option", "emit", "progress", "open_kb", "db_url", "echo_note"]

FORMATS = ("table", "json", "csv")


def format_option(default: str = "table"):
    """Decorator adding ``--format [table|json|csv]`` to a command."""
    return click.option(
        "--format",
        "fmt",
        type=click.Choice(FORMATS),
        default=default,
        show_default=True,
        help="Output format.",
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


def _to_frame(data: Any):
    import pandas as pd

    if isinstance(data, pd.DataFrame):
        return data
    if isinstance(data, pd.Series):
        return data.rename_axis("name").reset_index(name="value")
    if isinstance(data, Mapping):
        return pd.DataFrame({"name": list(data.keys()), "value": list(data.values())})
    return pd.DataFrame(list(data))


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
        Further top-level members of the JSON document; with it the JSON output is an
        object ``{"results": [...], **json_extra}`` instead of a bare list.
    """
    frame = _to_frame(data)
    if fmt == "json":
        records = _jsonable(frame)
        document: Any = (
            records if json_extra is None else {"results": records, **_jsonable(json_extra)}
        )
        click.echo(json.dumps(document, indent=2, allow_nan=False))
    elif fmt == "csv":
        click.echo(frame.to_csv(index=False), nl=False)
    elif fmt == "table":
        from rich.console import Console
        from rich.table import Table

        table = Table(title=title, show_edge=False, header_style="bold")
        for column in frame.columns:
            numeric = frame[column].dtype.kind in "iuf"
            table.add_column(str(column), justify="right" if numeric else "left")
        for row in frame.itertuples(index=False):
            table.add_row(*(_format_cell(v) for v in row))
        # in a pipe or a file, do not cut names to an assumed 80-column terminal
        width = None if sys.stdout.isatty() else 200
        Console(soft_wrap=True, width=width).print(table)
    else:  # pragma: no cover - click.Choice prevents it
        raise click.BadParameter(f"unknown format {fmt!r}")


def echo_note(message: str) -> None:
    """Print a note for the person at the terminal (to standard error, so pipes stay clean)."""
    click.echo(message, err=True)


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
        console=None,
    ) as bar:
        task = bar.add_task(description, total=total)

        def advance(n: int = 1, total: int | None = None) -> None:
            if total is not None:
                bar.update(task, total=total)
            if n:
                bar.advance(task, n)

        yield advance


def db_url(ctx: click.Context) -> str | None:
    """The knowledge-base URL given by the global ``--db`` option (or ``METAREC_DB``)."""
    return (ctx.find_root().obj or {}).get("db_url")


def open_kb(ctx: click.Context, *, builtin_fallback: bool = False):
    """Open the knowledge base named by the global ``--db`` option (or its defaults).

    ``builtin_fallback=True`` is for commands that only read: the KB is opened read-only
    when its file or folder is not writable, an explicit ``--db`` / ``METAREC_DB`` naming a
    missing file is an error (a mistyped path must not silently rank the built-in KB), and
    an empty or absent *default* KB is replaced by the built-in knowledge base shipped with
    metarec, with a note.  Commands that write create the KB as needed.
    """
    from metarec.storage import KnowledgeBase

    url = db_url(ctx)
    if builtin_fallback:
        if url is not None:
            kb = KnowledgeBase(url, create=False, read_only=None)
            if kb.count("runs") > 0:
                return kb
            kb.close()
            kb = KnowledgeBase.builtin()
        else:
            kb = KnowledgeBase.open_or_builtin(None)
        if kb.is_builtin:
            echo_note("Using the built-in knowledge base (no runs in your own KB).")
        return kb
    return KnowledgeBase(url)
