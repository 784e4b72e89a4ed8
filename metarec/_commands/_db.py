"""``metarec db upgrade|info|export``: look after the knowledge-base database."""

from __future__ import annotations

import click

from metarec._commands._output import db_url, echo_note, emit, format_option


@click.group("db")
def db() -> None:
    """Inspect, migrate and export the knowledge base (--db URL or METAREC_DB).

    \b
    Example:
      metarec db info
      metarec --db postgresql+psycopg://me@dbhost/metarec db upgrade
      metarec db export backup/ --file-format csv
    """


@db.command("upgrade")
@click.pass_context
def upgrade(ctx):
    """Create the schema, or migrate an older knowledge base to this version's schema.

    \b
    Example:
      metarec db upgrade
    """
    from metarec.storage import KnowledgeBase

    kb = KnowledgeBase.open_for_upgrade(db_url(ctx))
    echo_note(f"{kb.url} is at schema revision {kb.revision}.")


def _builtin_summary(info: dict) -> str:
    return (
        f"{info['datasets']} datasets × {info['algorithms']} algorithms, "
        f"{info['runs']} runs, {info['metafeatures']} metafeature values"
    )


@db.command("info")
@click.option("--builtin", is_flag=True, help="Describe the built-in knowledge base instead.")
@format_option()
@click.pass_context
def info(ctx, builtin, fmt):
    """Show the knowledge base recommendations use now: URL, schema revision, rows per table.

    Without --db (and METAREC_DB), when your own knowledge base at the default location does
    not exist yet or holds no runs, 'recommend' uses the built-in one: this command says so
    and describes the built-in knowledge base (exit code 0).

    \b
    Example:
      metarec db info
      metarec db info --builtin --format json
    """
    from pathlib import Path

    from metarec._config import default_db_url
    from metarec.storage import KnowledgeBase

    url = db_url(ctx)
    if builtin:
        kb = KnowledgeBase.builtin()
        emit(kb.info(), fmt, title="Built-in knowledge base")
        return
    if url is not None:
        kb = KnowledgeBase(url, create=False, read_only=None)
        emit(kb.info(), fmt, title="Knowledge base")
        return
    default_path = Path(default_db_url().removeprefix("sqlite:///"))
    own = None
    if default_path.exists() and default_path.stat().st_size > 0:
        own = KnowledgeBase(default_db_url(), create=False, read_only=None)
        if own.has_runs():
            emit({**own.info(), "used_by_recommend": True}, fmt, title="Knowledge base")
            own.close()
            return
    kb = KnowledgeBase.builtin()
    details = kb.info()
    state = "does not exist yet" if own is None else "holds no runs yet"
    note = (
        f"Your KB ({default_path}) {state}; recommendations use the built-in KB "
        f"({_builtin_summary(details)})."
    )
    echo_note(note)
    emit(
        {
            **details,
            "used_by_recommend": True,
            "your_kb": str(default_path),
            "your_kb_runs": 0,
            **({} if fmt == "table" else {"note": note}),  # a table has it just above
        },
        fmt,
        title="Built-in knowledge base (used because your own KB " + state + ")",
    )


@db.command("export")
@click.argument("directory", type=click.Path(file_okay=False))
@click.option(
    "--file-format",
    "file_format",
    type=click.Choice(["parquet", "csv"]),
    default="parquet",
    show_default=True,
    help="File format of the exported tables.",
)
@click.option("--builtin", is_flag=True, help="Export the built-in knowledge base.")
@format_option()
@click.pass_context
def export(ctx, directory, file_format, builtin, fmt):
    """Write datasets, algorithms, runs and metafeatures into DIRECTORY.

    The runs and metafeatures files can be imported again with 'metarec import'.

    \b
    Example:
      metarec db export backup/
      metarec db export --builtin builtin-csv/ --file-format csv
    """
    from metarec.storage import KnowledgeBase

    kb = (
        KnowledgeBase.builtin()
        if builtin
        else KnowledgeBase(db_url(ctx), create=False, read_only=None)
    )
    written = kb.export(directory, format=file_format)
    emit([{"table": k, "file": str(v)} for k, v in written.items()], fmt, title="Exported")
