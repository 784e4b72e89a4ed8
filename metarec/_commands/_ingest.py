"""``metarec ingest openml|aslib``: grow the knowledge base from outside sources."""

from __future__ import annotations

import click

from metarec._commands._output import echo_note, emit, format_option, open_kb, progress


def _ids(value: str | None, what: str) -> list[int] | None:
    if value is None:
        return None
    ids = []
    for part in value.replace(" ", ",").split(","):
        if not part:
            continue
        try:
            ids.append(int(part))
        except ValueError:
            raise click.BadParameter(
                f"{part!r} is not an OpenML {what} id", param_hint=f"'--{what}s'"
            ) from None
    return ids


@click.group("ingest")
def ingest() -> None:
    """Grow the knowledge base from OpenML run histories or ASlib scenarios.

    CSV and Parquet run files are imported with `metarec import runs FILE`.

    \b
    Example:
      metarec ingest openml --suite 99 --limit 50000
      metarec ingest aslib ./OPENML-WEKA-2017
    """


@ingest.command("openml")
@click.option("--suite", metavar="ID", help="Only runs on the tasks of this benchmark suite.")
@click.option("--tasks", metavar="IDS", help="Only runs on these tasks (comma-separated ids).")
@click.option("--flows", metavar="IDS", help="Only runs of these flows (comma-separated ids).")
@click.option(
    "--measure",
    default="predictive_accuracy",
    show_default=True,
    help="OpenML measure stored as the runs' accuracy (higher is better).",
)
@click.option(
    "--time-measure",
    default="usercpu_time_millis",
    show_default=True,
    help="OpenML runtime measure (milliseconds) stored as time in seconds; 'none' for none.",
)
@click.option("--limit", type=click.IntRange(min=1), help="Stop after N evaluations.")
@click.option(
    "--page-size",
    type=click.IntRange(1, 10_000),
    default=1000,
    show_default=True,
    help="Evaluations per request (the server allows at most 10,000).",
)
@click.option(
    "--qualities/--no-qualities",
    default=True,
    show_default=True,
    help="Store the datasets' OpenML qualities as metafeatures.",
)
@click.option(
    "--server",
    metavar="URL",
    envvar="METAREC_OPENML_SERVER",
    help="OpenML REST endpoint [env: METAREC_OPENML_SERVER; default: openml's configuration].",
)
@click.option(
    "--cache-dir",
    type=click.Path(file_okay=False),
    help="openml's cache folder [default: openml's configuration or OPENML_CACHE_DIR].",
)
@format_option()
@click.pass_context
def openml_command(
    ctx: click.Context,
    suite: str | None,
    tasks: str | None,
    flows: str | None,
    measure: str,
    time_measure: str,
    limit: int | None,
    page_size: int,
    qualities: bool,
    server: str | None,
    cache_dir: str | None,
    fmt: str,
) -> None:
    """Store OpenML runs, their datasets and the datasets' qualities in the knowledge base.

    Pages through OpenML's evaluations of --measure, looks up --time-measure for the same
    runs and commits page by page: a rerun skips stored runs (OpenML run ids are unique keys),
    so an interrupted ingest resumes where it stopped.  The API key is read from
    OPENML_APIKEY or openml's configuration file; it is never stored or shown.

    \b
    Example:
      metarec ingest openml --tasks 31,37 --limit 2000
      metarec ingest openml --suite 99 --flows 8353,8365 --time-measure usercpu_time_millis_training
    """
    from metarec.ingest import OpenMLClient, ingest_openml

    task_ids, flow_ids = _ids(tasks, "task"), _ids(flows, "flow")
    kb = open_kb(ctx)
    client = OpenMLClient(server=server, cache_dir=cache_dir)
    no_time = time_measure.strip().lower() in ("", "none")
    with progress("Ingesting OpenML runs", total=limit) as advance:
        report = ingest_openml(
            kb,
            suite=suite,
            tasks=task_ids,
            flows=flow_ids,
            measure=measure,
            time_measure=None if no_time else time_measure,
            limit=limit,
            page_size=page_size,
            qualities=qualities,
            client=client,
            progress=advance,
        )
    for line in report.problems[:10]:
        echo_note(f"Note: {line}")
    if len(report.problems) > 10:
        echo_note(f"Note: ... and {len(report.problems) - 10} more problems")
    if report.runs_without_time and not no_time:  # with "none" no time was asked for
        echo_note(
            f"Note: {report.runs_without_time} run(s) have no {time_measure} on OpenML; "
            "they were kept without a time."
        )
    emit(report.to_dict(), fmt, title="OpenML ingest")


@ingest.command("aslib")
@click.argument("directory", metavar="DIR", type=click.Path())
@click.option(
    "--skip-invalid",
    is_flag=True,
    help="Store the valid rows and list the invalid ones, instead of storing nothing.",
)
@format_option()
@click.pass_context
def aslib_command(ctx: click.Context, directory: str, skip_invalid: bool, fmt: str) -> None:
    """Store an ASlib scenario (runs and instance features) in the knowledge base.

    DIR must hold description.txt, algorithm_runs.arff and feature_values.arff.  Each
    instance becomes a dataset "aslib:<scenario>:<instance>"; ingesting twice stores nothing
    new.  All or nothing: one invalid row (cited by ARFF file, line and attribute) and
    nothing is stored, unless --skip-invalid.

    \b
    Example:
      metarec ingest aslib ./OPENML-WEKA-2017
      metarec --db team.sqlite ingest aslib ./SAT11-HAND --format json
      metarec ingest aslib ./MY-SCENARIO --skip-invalid
    """
    from metarec.ingest import ingest_aslib, read_aslib_scenario

    scenario = read_aslib_scenario(directory)  # checks the folder before opening the KB
    kb = open_kb(ctx)
    with progress(f"Ingesting {scenario.scenario_id}", total=len(scenario.runs)) as advance:
        report = ingest_aslib(kb, scenario, skip_invalid=skip_invalid, progress=advance)
    for line in [*report.notes(), *report.problems[:10]]:
        echo_note(f"Note: {line}")
    if len(report.problems) > 10:
        echo_note(f"Note: ... and {len(report.problems) - 10} more problems")
    emit(report.to_dict(), fmt, title="ASlib ingest")
