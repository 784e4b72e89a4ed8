"""``metarec run``: recommend, evaluate within a budget, and hand back the best model."""

from __future__ import annotations

import time

import click

from metarec._commands._interrupt import say_kept
from metarec._commands._output import (
    db_url,
    echo_note,
    emit,
    format_option,
    note_loaded,
    progress,
)
from metarec._commands._types import (
    OutputFile,
    SchedulerAddress,
    SuggestingChoice,
    as_classes_option,
    budget_duration,
    target_option,
    task_option,
)
from metarec.automl import ENSEMBLE_METHODS

PROTOCOL_CHOICES = ("auto", "cv10", "cv5", "holdout", "cv10x10", "bootstrap632", "loo")
METRIC_CHOICES = ("accuracy", "balanced_accuracy", "roc_auc", "tau", "r2")
DEFAULT_BUDGET = "5m"
MODEL = OutputFile((".joblib", ".pkl"), companion=".json")
FIGURE = OutputFile((".png", ".svg", ".pdf"))
COLUMNS = (
    "algorithm", "cv_score", "cv_sd", "selection_score", "fit_time", "expected_score",
    "expected_time", "planned", "order", "status", "message",
)  # fmt: skip


@click.command()
@click.argument("data")
@target_option
@task_option
@as_classes_option
@click.option(
    "--budget",
    default=DEFAULT_BUDGET,
    show_default=True,
    callback=budget_duration,
    metavar="DURATION",
    help="Wall clock for the whole command, start-up and refit included: 90, 90s, 10m, 1h "
    "(at least 1 s).",
)
@click.option(
    "--output",
    type=MODEL,
    help="Save the fitted model here (joblib), with a JSON sidecar beside it (.json).",
)
@click.option(
    "-j", "--jobs", "n_jobs", type=int, default=1, show_default=True,
    help="Algorithms evaluated at once, one single-threaded worker each (-1: all cores).",
)  # fmt: skip
@click.option(
    "--protocol",
    type=SuggestingChoice(PROTOCOL_CHOICES),
    default="auto",
    show_default=True,
    help="Evaluation protocol of each algorithm (the same folds for all); auto: cv5 below "
    "50,000 rows, from there a validation part of 10,000 rows and growing samples (every "
    "candidate that fits on 10,000 training rows, the best 3 on 4 times more, ..., on all).",
)
@click.option(
    "--metric",
    type=SuggestingChoice(METRIC_CHOICES),
    default="accuracy",
    show_default=True,
    help="Score that chooses the answer (regression: accuracy is R² clipped at 0, or r2). "
    "The knowledge base's expectations shrink the CV scores for accuracy only.",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of folds and models.")
@click.option(
    "-o",
    "--plot",
    "figure",
    type=FIGURE,
    help="Write the loss-time curve (best CV score so far against time) to this file.",
)
@click.option(
    "--scheduler",
    type=SchedulerAddress(),
    metavar="ADDRESS",
    help="Run the evaluations on this Dask scheduler (e.g. tcp://10.0.0.5:8786).",
)
@click.option(
    "--no-store",
    is_flag=True,
    help="Do not store the evaluated folds in the knowledge base.",
)
@click.option(
    "--ensemble",
    "ensemble_size",
    type=click.IntRange(min=1),
    help="The most distinct algorithms in the answer (1: the best alone). Default: an "
    "average of 3 (ensemble selection: as many as it chooses).",
)
@click.option(
    "--ensemble-method",
    "ensemble_method",
    type=click.Choice(ENSEMBLE_METHODS),
    default=ENSEMBLE_METHODS[0],
    show_default=True,
    help="average: an equal-weight average of the best ones and the knowledge base's single "
    "best (from 3,000 rows only those tied with the best within the folds' noise); "
    "selection: greedy ensemble selection over the out-of-fold predictions, weights = counts "
    "(on held-out data it does no better than the average).",
)
@click.option(
    "--memory-limit",
    "memory_limit",
    type=click.FloatRange(min=0, min_open=True),
    help="Megabytes a fit may add to its worker process; a fit that needs more fails as an "
    "error and the search goes on. Default: no cap.",
)
@click.option(
    "--portfolio",
    "portfolio_file",
    type=click.Path(exists=True, dir_okay=False),
    help="JSON file of extra algorithms, added to the default portfolio and its configurations.",
)
@format_option()
@click.pass_context
def run(
    ctx, data, target, task, as_classes, budget, output, n_jobs, protocol, metric, seed, figure,
    scheduler, no_store, ensemble_size, ensemble_method, memory_limit, portfolio_file, fmt,
):  # fmt: skip
    """Choose, evaluate and fit a classifier or regressor for DATA within a time budget.

    DATA is a CSV, TSV, Parquet or ARFF file, sklearn:NAME or openml:ID.  A continuous
    target chooses among regressors (scored by R² clipped at 0, or --metric r2), class labels
    among classifiers; --task overrides the detected task.  The recommender
    ranks metarec's algorithms for DATA from its metafeatures and the knowledge base; they
    are evaluated in that order with the same folds for all (single-threaded worker
    processes, -j at once), each result re-ranks the rest, an algorithm whose expected time
    (the top of its 80 % interval, corrected by the folds measured on DATA) does not fit
    what is left is skipped; when everything fits, the shortest run first.  An algorithm
    whose folds cannot end in time at their pace, and a fit still running when the time is
    up, are stopped.  On small data that runs everything; on large data, what fits.

    The answer is an equal-weight average of the three best (the leaderboard's order) and
    the knowledge base's single best algorithm (from 3,000 rows, only those tied with the
    best within the folds' noise); --ensemble-method selection selects it on the
    out-of-fold predictions of everything evaluated instead (Caruana et al. 2004: the best
    model, then 50 greedy rounds adding, with replacement, the one that most improves the
    averaged predictions; weights are the counts).  Each member is refitted on every row
    while the time left allows, the heaviest first (when no refit fits, the best expected
    within a second).  The leaderboard's order is the best CV score shrunk toward what the
    knowledge base expects of each algorithm (noisy folds do not crown a lucky algorithm).
    When no algorithm finishes its folds in time, the answer is the knowledge base's best
    expectation whose refit fits, fitted without evaluation.
    --output saves it with joblib: a fitted scikit-learn estimator whose predict and
    predict_proba take a DataFrame with DATA's feature columns, with a JSON sidecar
    (algorithm, parameters, CV score and spread, folds, seed, data fingerprint, versions).

    Every evaluated fold is stored in the knowledge base (--db; a new or empty one builds on
    the built-in one, read where metarec is installed, and holds only your runs), so the
    next recommendation on similar data knows more, and
    running the same command again reuses the stored folds instead of refitting them.
    Ctrl-C or SIGTERM stops within moments, keeps the finished folds and still reports
    (and saves) the best model so far when its refit takes about a second.

    \b
    Example:
      metarec run sklearn:breast_cancer --budget 30 --output model.joblib
      metarec run data.csv --target label --budget 10m -j 2 -o curve.png
    """
    from metarec._commands._clock import command_start
    from metarec.automl import AutoClassifier, AutoRegressor
    from metarec.benchmark import BenchmarkInterrupted
    from metarec.data import load_dataset
    from metarec.exceptions import BenchmarkError

    origin = command_start()  # the budget's start: the interpreter's (in-process: now)
    start_up = time.perf_counter() - origin  # the interpreter and metarec's imports
    if n_jobs == 0:
        raise click.BadParameter(
            "0 workers cannot run anything; use a positive number or -1 (all cores)",
            param_hint="'-j' / '--jobs'",
        )
    say_kept(ctx, "the finished folds are stored; run the same command again to reuse them")
    ds = load_dataset(data, target=target, as_classes=as_classes, task=task)
    note_loaded(ds)
    estimator = AutoRegressor if ds.task == "regression" else AutoClassifier
    auto = estimator(
        budget, kb=db_url(ctx), protocol=protocol, metric=metric, n_jobs=n_jobs,
        random_state=seed, store=not no_store, scheduler=scheduler,
        ensemble_size=ensemble_size or "auto", ensemble_method=ensemble_method,
        portfolio=portfolio_file, memory_limit_mb=memory_limit,
    )  # fmt: skip
    stopped = failed = None
    try:
        with progress("run") as advance:
            auto.fit_dataset(ds, start=origin, progress=advance)
    except BenchmarkInterrupted as stop:
        stopped = stop
        if not hasattr(auto, "search_"):  # before the search began: nothing to show
            if output:
                echo_note(f"no model written to {output}: interrupted before anything finished")
            echo_note(str(stop))
            ctx.exit(128 + int(stop.signal))
    except BenchmarkError as exc:  # nothing finished: show what was tried, then the error
        if not hasattr(auto, "search_"):
            raise
        failed = exc
    _show(auto, ds, output, figure, fmt, interrupted=stopped is not None, startup=start_up)
    if failed is not None:
        raise failed
    if stopped is not None:
        echo_note(str(stopped))
        ctx.exit(128 + int(stopped.signal))


def _show(auto, ds, output, figure, fmt, *, interrupted: bool, startup: float) -> None:
    """What the search found: notes, the leaderboard, the saved model and the figure."""
    result = auto.search_
    for note in (*auto.notes_, *result.notes):
        echo_note(note)
    frame = auto.leaderboard_[list(COLUMNS)]
    best = result.best
    title = f"run: {result.dataset}"
    if best:
        trial = result.trial(best)
        metric = result.settings.metric
        if ds.task == "regression":
            metric = "R²" if metric == "r2" else "R² (clipped at 0)"
        if trial.fold_scores:
            title += f"; best {best} (CV {metric}: {trial.cv_score:.4f} ± {trial.cv_sd:.4f})"
        else:
            title += f"; {best}, fitted without evaluation"
        if len(result.members) > 1 and result.answer == "selection":
            title += f"; the answer is an ensemble of {len(result.members)} (see the notes)"
        elif len(result.members) > 1:
            title += f"; the answer averages {', '.join(result.members)}"
    extra = {
        "best": best,
        "ensemble": list(result.members),
        "weights": list(result.weights),
        "answer": result.answer,
        "task": "regression" if ds.task == "regression" else "classification",
        "dataset": result.dataset,
        "seconds": round(result.seconds, 3),
        "budget": result.settings.budget,
        "runs_stored": result.runs_stored,
        "notes": list(result.notes),
        # the fit's phases count from the budget's start: the start-up is the first of them
        "phases": {
            "start-up": startup,
            **result.phases,
            "before the search": result.phases["before the search"] - startup,
        },
    }
    if output and hasattr(auto, "best_estimator_"):
        model_path, sidecar = auto.save(output)
        extra["model"] = str(model_path)
        echo_note(f"model saved to {model_path} (described in {sidecar})")
    elif output and interrupted:
        echo_note(
            f"no model written to {output}: no algorithm finished every fold before the "
            "interruption"
        )
    emit(frame, fmt, title=title, json_extra=extra)
    if figure:
        from metarec.automl.plots import plot_search
        from metarec.evaluation.plots import save_figure

        save_figure(plot_search(result), figure)
