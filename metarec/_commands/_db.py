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


@db.command("info")
@click.option("--builtin", is_flag=True, help="Describe the built-in knowledge base instead.")
@format_option()
@click.pass_context
def info(ctx, builtin, fmt):
    """Show the database URL (password hidden), schema revision and rows per table.

    \b
    Example:
      metarec db info
      metarec db info --builtin --format json
    """
    from metarec.storage import KnowledgeBase

    kb = (
        KnowledgeBase.builtin()
        if builtin
        else KnowledgeBase(db_url(ctx), create=False, read_only=None)
    )
    emit(kb.info(), fmt, title="Knowledge base")


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
