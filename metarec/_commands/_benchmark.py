"""``metarec benchmark``: run a portfolio of algorithms on datasets into the knowledge base."""

from __future__ import annotations

import click

from metarec._commands._interrupt import say_kept
from metarec._commands._output import echo_note, emit, format_option, open_kb, progress
from metarec._commands._types import (
    POSITIVE,
    OutputFolder,
    SchedulerAddress,
    SuggestingChoice,
    as_classes_option,
    task_option,
)

PROTOCOL_CHOICES = ("cv10x10", "cv10", "cv5", "loo", "bootstrap632", "holdout")
DATA_SUFFIXES = (".csv", ".tsv", ".csv.gz", ".tsv.gz", ".parquet", ".arff", ".arff.gz")


def _expand(sources: tuple[str, ...]) -> list[str]:
    """Directories stand for the data files they contain (sorted); a file must exist; other
    sources (``sklearn:NAME``, ``openml:ID``) pass through."""
    from pathlib import Path

    expanded: list[str] = []
    for source in sources:
        path = Path(source)
        if path.is_dir():
            files = sorted(p for p in path.iterdir() if p.name.lower().endswith(DATA_SUFFIXES))
            if not files:
                raise click.BadParameter(f"no data files in directory {source}", param_hint="DATA")
            expanded.extend(str(p) for p in files)
        elif not source.startswith(("sklearn:", "openml:")) and not path.exists():
            # refused before the knowledge base is opened (or created)
            raise click.BadParameter(f"no such file or folder: {source}", param_hint="DATA")
        else:
            expanded.append(source)
    return expanded


@click.command()
@click.argument("data", nargs=-1)
@click.option(
    "--protocol",
    type=SuggestingChoice(PROTOCOL_CHOICES),
    default="cv10",
    show_default=True,
    help="Evaluation protocol: stratified 10x10 / 10 / 5-fold CV, leave-one-out, "
    "0.632 bootstrap (10 replicates), stratified train/validation/test holdout.",
)
@click.option(
    "--algorithm",
    "algorithm_names",
    multiple=True,
    metavar="NAME",
    help="Run only this algorithm of the portfolio (repeatable; default: every installed one).",
)
@click.option(
    "--algorithms",
    "-a",
    metavar="NAMES",
    help="Comma-separated algorithm names (same as repeating --algorithm).",
)
@click.option(
    "--portfolio",
    "portfolio_file",
    type=click.Path(dir_okay=False),
    help="JSON file of extra algorithms, added to the default portfolio.",
)
@click.option(
    "-j",
    "--jobs",
    "n_jobs",
    type=int,
    default=1,
    show_default=True,
    help="Worker processes fitting in parallel (-1: all cores, -2: all but one). "
    "Stored CPU times do not depend on it.",
)
@click.option(
    "--timeout",
    type=POSITIVE,
    metavar="SECONDS",
    help="Time limit per fit; slower fits are killed and recorded as 'timeout'.",
)
@click.option(
    "--memory-limit",
    type=POSITIVE,
    metavar="MB",
    help="Memory a fit may use on top of its worker's own (address space, MB); a fit that "
    "exceeds it is recorded as 'error'.",
)
@click.option(
    "--scheduler",
    type=SchedulerAddress(),
    metavar="ADDRESS",
    help="Run on a Dask cluster (e.g. tcp://10.0.0.5:8786) via joblib's dask backend.",
)
@click.option(
    "--seed",
    type=int,
    default=0,
    show_default=True,
    help="Seed of the splits and of every estimator.",
)
@click.option("--target", help="Target column of file datasets.")
@task_option
@as_classes_option
@click.option(
    "--cache-dir",
    type=OutputFolder(),
    help="Where finished jobs are kept for resuming [default: in the data directory].",
)
@click.option(
    "--list",
    "list_only",
    is_flag=True,
    help="List the portfolio's algorithms and exit (no DATA needed).",
)
@format_option()
@click.pass_context
def benchmark(
    ctx,
    data,
    protocol,
    algorithm_names,
    algorithms,
    portfolio_file,
    n_jobs,
    timeout,
    memory_limit,
    scheduler,
    seed,
    target,
    task,
    as_classes,
    cache_dir,
    list_only,
    fmt,
):
    """Evaluate every algorithm on every DATA set and store the results in the KB.

    DATA is a file (CSV, TSV, gzip, Parquet, ARFF), a directory of such files,
    sklearn:NAME or openml:ID.  Each dataset runs the portfolio's algorithms of its task:
    classifiers for a classification target (scored by accuracy), regressors for a
    continuous one (scored by R² clipped at 0, with RMSE, MAE and R² stored); --task
    overrides the detected task (--as-classes is --task classification).  Runs already stored are skipped, so an interrupted
    benchmark resumes where it stopped: Ctrl-C or SIGTERM stops it within moments (exit
    130 / 143), keeping every dataset whose algorithms all finished in the KB and the
    finished folds of the others in the cache; run the same command again to resume.

    Times, per fold (one stored run): fit_time and predict_time are the CPU seconds
    (user + system) of the fit and predict calls alone, measured inside a worker process
    whose BLAS/OpenMP pools have one thread, so they do not depend on -j;
    fit_wall_time and predict_wall_time are the elapsed seconds of the same calls (they
    grow when the machine is busy).  They are the times of THIS machine: its CPU model,
    cores and library versions are stored with every run (its machine column).

    \b
    Example:
      metarec benchmark sklearn:iris sklearn:wine --protocol cv5 -j 2
      metarec benchmark data/ --algorithm knn --algorithm lightgbm --timeout 300
      metarec benchmark --list
    """
    from metarec.algorithms import load_portfolio
    from metarec.benchmark import BenchmarkInterrupted, run_benchmark

    if not data and not list_only:
        raise click.UsageError("Missing argument 'DATA...'.", ctx=ctx)
    task = task or ("classification" if as_classes else None)
    portfolio = load_portfolio(portfolio_file)
    names = list(algorithm_names) + [n.strip() for n in (algorithms or "").split(",") if n.strip()]
    names = names or None
    if list_only:
        _list(portfolio if names is None else [portfolio[n] for n in names], fmt)
        return
    if n_jobs == 0:
        raise click.BadParameter(
            "0 workers cannot run anything; use a positive number, -1 (all cores) "
            "or -2 (all but one)",
            param_hint="'-j' / '--jobs'",
        )
    portfolio.select(names)  # unknown or uninstalled names fail here, before any work
    if names is None and portfolio.missing():
        missing = portfolio.missing()
        hints = "; ".join(sorted({a.install_hint for a in missing}))
        echo_note(f"skipping {', '.join(a.name for a in missing)}: not installed ({hints})")
    # until the runner takes the signals over (it reports what it stored itself)
    say_kept(ctx, "0 runs stored; run the same command again to resume")
    try:
        sources = _expand(data)
        kb = _open_growing_kb(ctx)
        with progress("benchmark") as advance:
            report = run_benchmark(
                sources,
                kb,
                portfolio=portfolio,
                algorithms=names,
                protocol=protocol,
                n_jobs=n_jobs,
                timeout=timeout,
                memory_limit_mb=memory_limit,
                random_state=seed,
                scheduler=scheduler,
                cache_dir=cache_dir,
                target=target,
                task=task,
                progress=advance,
            )
    except BenchmarkInterrupted as stop:
        echo_note(str(stop))
        ctx.exit(128 + int(stop.signal))
    _report(report, fmt)


def _list(algorithms, fmt) -> None:
    """``benchmark --list``: the portfolio's algorithms."""
    rows = [
        {
            "algorithm": a.name,
            "task": a.task,
            "family": a.family,
            "estimator": a.estimator,
            "installed": a.is_installed(),
            "description": a.description,
        }
        for a in algorithms
    ]
    emit(rows, fmt)


def _report(report, fmt) -> None:
    """What a benchmark did: its notes, its counts and the jobs with failed folds."""
    import pandas as pd

    for note in report.notes:
        echo_note(note)
    failures = [
        {
            "dataset": f.dataset,
            "algorithm": f.algorithm,
            "status": f.status,
            "failed_folds": f.n_failed,
            "message": f.message,
        }
        for f in report.failures
    ]
    summary = report.to_dict()
    # one object column, so CSV and tables print counts as integers beside the seconds
    frame = pd.DataFrame(
        {"name": list(summary), "value": pd.Series(list(summary.values()), dtype=object)}
    )
    emit(frame, fmt, title="benchmark", json_extra={"failures": failures})
    if failures and fmt == "table":
        echo_note(f"{len(failures)} (dataset, algorithm) pairs had failed folds:")
        emit(failures, fmt)


def _open_growing_kb(ctx):
    """The knowledge base to store into; the default one starts from the built-in one.

    ``recommend`` uses your own knowledge base as soon as it holds runs: a default one that
    held none would then know only the datasets just benchmarked.  As with ``run``, a new or
    empty default knowledge base builds on the built-in one (read where metarec is
    installed; with a note); a knowledge base named with ``--db`` or ``METAREC_DB`` is used
    as it is.
    """
    from metarec._commands._output import db_url

    if db_url(ctx) is not None:
        return open_kb(ctx)
    from metarec.storage import open_seeded

    kb, seeded = open_seeded(None)
    if seeded:
        echo_note(
            "your knowledge base was empty: it builds on the built-in one (read where metarec "
            "is installed) and stores your runs"
        )
    return kb
