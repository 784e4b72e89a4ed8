"""``metarec db upgrade|info|export``: look after the knowledge-base database."""

from __future__ import annotations

from pathlib import Path

import click

from metarec._commands._interrupt import say_kept
from metarec._commands._output import db_url, echo_note, emit, format_option
from metarec._commands._types import OutputFile, OutputFolder, SuggestingChoice


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
@click.option(
    "--backup",
    "backup_path",
    type=OutputFile(),
    help="Where to copy an older SQLite knowledge base before migrating it "
    "[default: beside it, as NAME.backup-revNNNN.sqlite].",
)
@click.option(
    "--no-backup",
    is_flag=True,
    help="Migrate without a copy (for PostgreSQL, once you have one from pg_dump).",
)
@click.pass_context
def upgrade(ctx, backup_path, no_backup):
    """Create the schema, or migrate an older knowledge base to this version's schema.

    Before migrating a SQLite file it writes a copy with SQLite's online backup API and says
    where.  The migration keeps every row: it runs in one transaction that is rolled back,
    leaving the knowledge base as it was, if any table would lose a row or a reference would
    dangle.  Then the rows an earlier metarec copied from the built-in knowledge base (equal
    to it) are removed: the knowledge base reads the built-in one where metarec is
    installed from then on, and keeps only your rows.  metarec cannot copy a PostgreSQL database: back it up with pg_dump, then run
    this command with --no-backup.

    \b
    Example:
      metarec db upgrade
      metarec --db team.sqlite db upgrade --backup /backups/team-before-upgrade.sqlite
    """
    from sqlalchemy.engine import make_url

    from metarec._config import redact_url, resolve_db_url
    from metarec.storage import SCHEMA_REVISION, KnowledgeBase, NoKnowledgeBaseError

    if backup_path and no_backup:
        raise click.UsageError("--backup and --no-backup exclude each other")
    url = resolve_db_url(db_url(ctx))
    try:
        revision = KnowledgeBase.revision_of(url)
    except NoKnowledgeBaseError:
        revision = None  # a new SQLite file: created below
    is_sqlite = make_url(url).get_backend_name() == "sqlite"
    old = revision is not None and revision != SCHEMA_REVISION
    if old and not is_sqlite and not no_backup:
        database = make_url(url).database or "DBNAME"
        raise click.ClickException(
            f"{redact_url(url)} is at schema revision {revision} and metarec cannot copy a "
            f"{make_url(url).get_backend_name()} database before migrating it: back it up "
            f"first (pg_dump --format=custom --file={database}-rev{revision}.dump {database}), "
            "then run 'metarec db upgrade --no-backup'"
        )
    backup = False if no_backup else (backup_path or True)
    kept = "nothing was migrated; the knowledge base is unchanged"  # one transaction
    if old and is_sqlite and backup:
        from metarec.storage import default_backup_path, sqlite_path

        copy = (
            Path(backup)
            if backup is not True
            else default_backup_path(sqlite_path(url), str(revision))
        )
        kept += f" (its copy {copy} may be written already: the next upgrade makes another)"
    say_kept(ctx, kept)
    kb = KnowledgeBase.open_for_upgrade(url, backup=backup)
    report = kb.last_upgrade
    try:
        removed = kb.absorb_builtin_copy() if not kb.read_only else {}
    finally:
        kb.close()
    if report is None or (report.from_revision is not None and not report.migrated):
        # (a copy made while another process migrated the same file is said too)
        echo_note(f"{kb.url} is at schema revision {kb.revision}: nothing to upgrade.")
        if report is not None and report.backup is not None:
            echo_note(f"A copy made before it was found upgraded is at {report.backup}.")
    elif report.from_revision is None:
        echo_note(f"Created a knowledge base at {kb.url} (schema revision {kb.revision}).")
    else:
        if report.backup is not None:
            echo_note(f"Copied {kb.url} at revision {report.from_revision} to {report.backup}.")
        kept = ", ".join(f"{table} {rows:,}" for table, rows in report.rows.items())
        echo_note(
            f"Upgraded {kb.url} from schema revision {report.from_revision} to "
            f"{report.to_revision}; every row kept ({kept})."
        )
    if removed.get("runs"):
        echo_note(
            f"Removed the copy of the built-in knowledge base an earlier metarec put in it "
            f"({removed['runs']:,} runs, {removed['datasets']:,} datasets, "
            f"{removed['algorithms']:,} algorithms): it now reads the built-in one where "
            "metarec is installed and keeps only your rows; every read sees the same runs."
        )


def _own_or_builtin(ctx, *, read_only):
    """The knowledge base named by ``--db`` / ``METAREC_DB``, else the default file; when
    neither is given and the default file does not exist (or is empty), the built-in one, with
    a note: the knowledge base recommendations use then."""
    from metarec._config import default_db_url
    from metarec.storage import KnowledgeBase, open_builtin

    url = db_url(ctx)
    if url is None:
        default_path = Path(default_db_url().removeprefix("sqlite:///"))
        if not default_path.exists() or default_path.stat().st_size == 0:
            echo_note(
                f"your KB ({default_path}) does not exist yet; this is the built-in KB, "
                "the one recommendations use"
            )
            return open_builtin()
    return KnowledgeBase(url, create=False, read_only=read_only)


@db.command("check")
@format_option()
@click.pass_context
def check(ctx, fmt):
    """Check the knowledge base: file integrity, schema, references, matrix, row counts.

    Reads only.  Exit code 0 when every check passes, 1 otherwise (the table says which
    failed).  The performance matrix is compared with the aggregates recomputed from the runs.
    Without --db (and METAREC_DB), while your own knowledge base does not exist yet, the
    built-in one is checked.

    \b
    Example:
      metarec db check
      metarec --db team.sqlite db check --format json
    """
    kb = _own_or_builtin(ctx, read_only=True)
    try:
        checks = kb.check()
    finally:
        kb.close()
    emit(
        [
            {"check": c.name, "status": "ok" if c.ok else "FAILED", "detail": c.detail}
            for c in checks
        ],
        fmt,
        title=f"Checks of {kb.url}",
    )
    failed = [c.name for c in checks if not c.ok]
    if failed:
        raise click.ClickException(f"{len(failed)} check(s) failed: {', '.join(failed)}")


def _configuration_rows(info: dict) -> str:
    if not info["configurations"]:
        return ""
    return (
        f" (run on {info['configuration_datasets']} datasets and samples of at most "
        f"{info['configuration_rows']:,} rows, covering {info['configuration_sources']} of "
        f"the {info['sources']} datasets)"
    )


def _builtin_summary(info: dict) -> str:
    return (
        f"{info['classification_datasets']} classification and {info['regression_datasets']} "
        f"regression datasets ({info['subsamples']} of them samples of larger ones) × "
        f"{info['base_algorithms']} algorithms and "
        f"{info['configurations']} configurations{_configuration_rows(info)}, "
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
    from metarec.storage import KnowledgeBase, open_builtin

    url = db_url(ctx)
    if builtin:
        kb = open_builtin()
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
    kb = open_builtin()
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
@click.argument("directory", type=OutputFolder())
@click.option(
    "--file-format",
    "file_format",
    type=SuggestingChoice(["parquet", "csv"]),
    default="parquet",
    show_default=True,
    help="File format of the exported tables.",
)
@click.option("--builtin", is_flag=True, help="Export the built-in knowledge base.")
@format_option()
@click.pass_context
def export(ctx, directory, file_format, builtin, fmt):
    """Write datasets, algorithms, runs and metafeatures into DIRECTORY.

    'metarec import datasets|algorithms|runs|metafeatures FILE', in that order, reads them
    back into a knowledge base.  Without --db (and METAREC_DB), while your own knowledge base
    does not exist yet, the built-in one is exported (as with --builtin).

    \b
    Example:
      metarec db export backup/
      metarec db export --builtin builtin-csv/ --file-format csv
    """
    from metarec.storage import open_builtin

    kb = open_builtin() if builtin else _own_or_builtin(ctx, read_only=None)
    written = kb.export(directory, format=file_format)
    emit([{"table": k, "file": str(v)} for k, v in written.items()], fmt, title="Exported")
