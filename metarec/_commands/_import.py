"""``metarec import runs|metafeatures|datasets|algorithms FILE``: load a knowledge base's tables."""

from __future__ import annotations

import click

from metarec._commands._interrupt import say_kept
from metarec._commands._output import echo_note, emit, format_option, open_kb, progress
from metarec._commands._types import SuggestingChoice, existing_file


@click.group("import")
def import_group() -> None:
    """Import run histories, metafeatures, datasets or algorithms from CSV, TSV (optionally
    .gz) or Parquet files.

    An import is one transaction: a bad row rejects the whole file (nothing is stored) unless
    --skip-invalid is given. Re-importing the same file adds nothing. The four files of
    'metarec db export' go back in the order datasets, algorithms, runs, metafeatures.

    \b
    Example:
      metarec import runs results.csv
      metarec import metafeatures qualities.parquet
      metarec import datasets backup/datasets.parquet
    """


def _report(report, fmt: str) -> None:
    for problem in report.problems:
        echo_note(f"rejected: {problem}")
    for note in report.notes:
        echo_note(f"note: {note}")
    row = {
        "file": report.source,
        "added": report.added,
        "present": report.present,
        "updated": report.updated,
        "rejected": report.rejected,
        "replaced": report.replaced,
    }
    emit([row], fmt, title="Import", json_extra={"problems": list(report.problems)})


@import_group.command("runs")
@click.argument("file", type=click.Path(), callback=existing_file)
@click.option("--skip-invalid", is_flag=True, help="Import the valid rows and report the others.")
@click.option("--source", help="Source recorded for rows without one (e.g. 'lab-2024').")
@click.option("--protocol", help="Protocol recorded for rows without one (e.g. 'cv10').")
@click.option(
    "--on-conflict",
    "on_conflict",
    type=SuggestingChoice(["error", "keep", "replace"]),
    default="error",
    show_default=True,
    help="A run already stored (or repeated in FILE) under the same source and "
    "source_run_id with other values: refuse the file, keep the stored run, or replace it.",
)
@format_option()
@click.pass_context
def runs(ctx, file, skip_invalid, source, protocol, on_conflict, fmt):
    """Import runs: long format, one row per run (fold, seed).

    Required columns: dataset, algorithm, accuracy, time (seconds; or fit_time). Optional:
    protocol, seed, fold, status (ok/timeout/error), predict_time, source, source_run_id,
    error, machine. Any other numeric column is stored as a per-run metric. A run whose
    source and source_run_id (and machine) are already stored with other values is refused
    unless --on-conflict says what to do (replace reports old -> new).

    \b
    Example:
      metarec import runs results.csv
      metarec --db sqlite:///team.sqlite import runs folds.parquet --skip-invalid
    """
    kb = open_kb(ctx)
    say_kept(ctx, "nothing was imported; the knowledge base is unchanged")  # one transaction
    with progress("Importing runs") as advance:
        report = kb.import_runs(
            file,
            skip_invalid=skip_invalid,
            source=source,
            protocol=protocol,
            progress=advance,
            on_conflict=on_conflict,
        )
    _report(report, fmt)


@import_group.command("metafeatures")
@click.argument("file", type=click.Path(), callback=existing_file)
@click.option("--skip-invalid", is_flag=True, help="Import the valid rows and report the others.")
@format_option()
@click.pass_context
def metafeatures(ctx, file, skip_invalid, fmt):
    """Import metafeatures: wide format, a 'dataset' column and one column per metafeature.

    The datasets must already be in the knowledge base (import their runs first). OpenML
    quality names (NumberOfInstances, ClassEntropy, ...) are translated to metarec's names.

    \b
    Example:
      metarec import metafeatures metafeatures.csv
    """
    kb = open_kb(ctx)
    say_kept(ctx, "nothing was imported; the knowledge base is unchanged")  # one transaction
    with progress("Importing metafeatures") as advance:
        report = kb.import_metafeatures(file, skip_invalid=skip_invalid, progress=advance)
    _report(report, fmt)


@import_group.command("datasets")
@click.argument("file", type=click.Path(), callback=existing_file)
@format_option()
@click.pass_context
def datasets(ctx, file, fmt):
    """Import datasets: a 'name' column and any of source, source_id, task, n_instances,
    n_features, fingerprint (the datasets file of 'metarec db export').

    A stored dataset gets the values given (an empty cell changes nothing). Import it before
    the runs of a round trip: the runs file does not say which datasets are regression tasks.

    \b
    Example:
      metarec import datasets backup/datasets.csv
    """
    kb = open_kb(ctx)
    say_kept(ctx, "nothing was imported; the knowledge base is unchanged")  # one transaction
    _report(kb.import_datasets(file), fmt)


@import_group.command("algorithms")
@click.argument("file", type=click.Path(), callback=existing_file)
@format_option()
@click.pass_context
def algorithms(ctx, file, fmt):
    """Import algorithms: a 'name' column and any of family, library, parameters (the
    algorithms file of 'metarec db export').

    \b
    Example:
      metarec import algorithms backup/algorithms.csv
    """
    kb = open_kb(ctx)
    say_kept(ctx, "nothing was imported; the knowledge base is unchanged")  # one transaction
    _report(kb.import_algorithms(file), fmt)
