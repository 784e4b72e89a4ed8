"""Commands ``recommend`` (rank algorithms for a new dataset) and ``rank`` (stored rankings)."""

from __future__ import annotations

import click

from metarec._commands._output import (
    echo_note,
    emit,
    format_option,
    note_loaded,
    open_kb,
    status,
)
from metarec._commands._types import (
    POSITIVE,
    OutputFile,
    SuggestingChoice,
    as_classes_option,
    duration,
    target_option,
    task_option,
)


def _strategy_choices() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The ranking strategies' names (the registry's), and the classic ones."""
    from metarec.recommender import strategy_names

    names = strategy_names()
    return names, tuple(n for n in names if n != names[0])


STRATEGY_CHOICES, METHOD_CHOICES = _strategy_choices()


def _parse_k(value: str | None):
    if value is None:
        return None
    if value.lower() in ("all", "none"):
        return "all"
    try:
        k = int(value)
    except ValueError:
        raise click.BadParameter(f"expected a positive integer or 'all', got {value!r}") from None
    if k < 1:
        raise click.BadParameter(f"expected a positive integer or 'all', got {value!r}")
    return k


def check_k(ctx: click.Context, param: click.Parameter, value: str | None):
    """Click callback of ``--k``: a positive integer or ``all``, checked before any work."""
    return _parse_k(value)


#: ``--k``, shared by ``recommend`` and ``evaluate``.
k_option = click.option(
    "--k",
    "k",
    metavar="K|all",
    callback=check_k,
    help="Number of neighbouring datasets [default: tuned].",
)


#: A figure file (``-o``): checked while parsing (ending, folder, permission).
FIGURE = OutputFile((".png", ".svg", ".pdf"))


def parse_tried(values) -> dict[str, tuple[float, float]]:
    """Parse ``ALGO=ACC:TIME`` items (accuracy in [0, 1], time in seconds)."""
    tried: dict[str, tuple[float, float]] = {}
    for item in values:
        name, sep, rest = item.partition("=")
        acc_text, sep2, time_text = rest.partition(":")
        try:
            if not (sep and sep2 and name.strip()):
                raise ValueError
            accuracy, seconds = float(acc_text), float(time_text)
        except ValueError:
            raise click.BadParameter(
                f"expected ALGO=ACCURACY:SECONDS (e.g. random_forest=0.91:2.5), got {item!r}",
                param_hint="--tried",
            ) from None
        if not 0 <= accuracy <= 1 or not seconds >= 0:
            raise click.BadParameter(
                f"accuracy must be in [0, 1] and time >= 0 in {item!r}", param_hint="--tried"
            )
        tried[name.strip()] = (accuracy, seconds)
    return tried


def _stored_task(kb, name: str) -> str:
    """The task family the KB records for dataset ``name`` (classification when unrecorded)."""
    from metarec.data import task_family

    datasets = kb.datasets()
    if "task" not in datasets.columns:
        return "classification"
    task = datasets.loc[datasets["name"] == name, "task"]
    return task_family(task.iloc[0] if len(task) and isinstance(task.iloc[0], str) else None)


def _require_regression_results(kb, dataset) -> None:
    """Refuse, with the reason and the way out, a detected continuous target on a KB that
    holds no regression dataset (its values may well be class labels)."""
    from metarec.data import continuous_reason
    from metarec.exceptions import DataError

    if not (kb.datasets()["task"] == "regression").any():
        raise DataError(
            f"{dataset.name}: target column {dataset.target!r} looks continuous "
            f"({continuous_reason(dataset)}), and the knowledge base holds no regression "
            "results to rank regressors from; if these values are class labels, add "
            "--as-classes (or --task classification)"
        )


#: What the columns of a ranking are called for a regression: R², not accuracy.
R2_COLUMNS = {
    "expected_accuracy": "expected_r2",
    "expected_accuracy_low": "expected_r2_low",
    "expected_accuracy_high": "expected_r2_high",
}


def task_columns(frame, task: str, metric: str = "accuracy"):
    """``frame`` with the expected success rate's columns named for what they hold: R² for
    regression's ``accuracy`` (R² clipped at 0), else the metric ranked by."""
    if task == "regression" and metric == "accuracy":
        return frame.rename(columns=R2_COLUMNS)
    if metric == "accuracy":
        return frame
    return frame.rename(columns={c: c.replace("accuracy", str(metric)) for c in R2_COLUMNS})


def _note_forced_classes(y) -> None:
    """Say so when --task classification makes classes of a target that looks continuous."""
    from metarec.data import infer_task

    present = y.dropna()
    if infer_task(present) == "regression":
        echo_note(
            f"the target has {present.nunique():,} distinct values among {len(present):,} "
            "rows: taken as that many classes, as --task classification says (without it, "
            "a regression)"
        )


def ranker_options(
    method=None, strategy=None, *, task="classification", **options
):  # the options a ranking command was given
    """The ranker that ``--strategy``/``--method`` and ranking options name (``--method``
    overrides ``--strategy``; options left at None take the strategy's defaults for
    ``task``).

    Raises
    ------
    InvalidInputError
        An option the strategy does not take (``--n`` with ``arr``).
    """
    from metarec.recommender import make_ranker

    params = {name: value for name, value in options.items() if value is not None}
    if params.get("k") == "all":
        params["k"] = None
    return make_ranker(method or strategy or STRATEGY_CHOICES[0], task=task, **params)


def _recommender(kb, k, n, metric, method, strategy=None, task="classification"):
    """The recommender fitted on ``kb`` (from the on-disk cache when the KB has not changed)."""
    from metarec.recommender import Recommender, fitted_recommender

    ranker = ranker_options(method, strategy, task=task, k=k, n=n)
    return fitted_recommender(kb, Recommender(ranker, metric=metric, task=task))


def shown_params(model) -> dict:
    """The fitted recommender's strategy and parameters, as JSON output shows them."""
    ranker = model.ranker_
    params = {k: v for k, v in ranker.get_params().items() if k != "features"}
    return {"strategy": ranker.strategy, **params, "metric": model.metric, "task": model.task}


def _with_library(frame, kb):
    """Join each algorithm's library (``name==version``, from the KB's algorithms table)."""
    libraries = kb.algorithms().set_index("name")["library"]
    frame = frame.copy()
    at = list(frame.columns).index("algorithm") + 1
    frame.insert(at, "library", frame["algorithm"].map(libraries))
    return frame


def _not_installed(names) -> dict[str, str]:
    """Algorithms of the default portfolio among ``names`` that cannot run here -> install hint."""
    from metarec.algorithms import default_portfolio

    portfolio = {a.name: a for a in default_portfolio(task="all")}
    return {
        n: portfolio[n].install_hint
        for n in names
        if n in portfolio and not portfolio[n].is_installed()
    }


def _rank(ctx, data, *, target, task, as_classes, k, n, metric, method, strategy, tried, budget):
    """Load DATA, open the KB, fit (or reuse) the recommender and rank: the command's work."""
    from metarec.data import load_dataset, task_family

    with status(f"Loading {data}"):
        dataset = load_dataset(data, target=target, as_classes=as_classes, task=task)
    note_loaded(dataset)
    family = task_family(dataset.task)
    with status("Opening the knowledge base"):
        kb = open_kb(ctx, builtin_fallback=True)
    if family == "regression" and task is None:
        _require_regression_results(kb, dataset)
    with status("Fitting the recommender (cached per KB version)"):
        model = _recommender(kb, k, n, metric, method, strategy, task=family)
    with status(f"Computing the metafeatures of {dataset.name} and ranking"):
        # a classification target (--as-classes, --task classification, or so loaded): its
        # integer codes are labels, whatever their number (as text, so said)
        labels = as_classes or family != "regression"
        if labels and task is not None and not as_classes:
            _note_forced_classes(dataset.y)
        y = dataset.y.astype(str).where(dataset.y.notna()) if labels else dataset.y
        ranking = model.recommend(dataset.X, y, tried=tried or None, budget=budget)
    return dataset, kb, family, model, ranking


@click.command()
@click.argument("data")
@target_option
@task_option
@as_classes_option
@k_option
@click.option(
    "--n", "n", type=POSITIVE, help="Root of the time ratio in A3R (larger: time matters less)."
)
@click.option(
    "--metric", default="accuracy", show_default=True, help="Performance column of the KB runs."
)
@click.option(
    "--strategy",
    type=SuggestingChoice(STRATEGY_CHOICES),
    help="Ranking strategy [default: learned].",
)
@click.option(
    "--method",
    type=SuggestingChoice(METHOD_CHOICES),
    help="Classic ranking method (overrides --strategy).",
)
@click.option(
    "--budget",
    callback=duration,
    metavar="DURATION",
    help="Plan the runs that fit in a time budget: 90, 90s, 10m, 1h.",
)
@click.option(
    "--tried",
    multiple=True,
    metavar="ALGO=ACC:TIME",
    help="A result already obtained on DATA (repeatable): the algorithm is left out and the "
    "next ones are suggested. The classic strategies rank by the expected gain over the best "
    "ACC given; the default one starts each neighbouring dataset from its own result of the "
    "algorithm (ACC and TIME given are checked, not used).",
)
@click.option(
    "--configurations",
    is_flag=True,
    help="List every configuration of every algorithm (default: one row per algorithm, "
    "named with its configuration ranked first).",
)
@click.option(
    "-o",
    "--output",
    "output",
    type=FIGURE,
    help="Also draw expected accuracy against expected time (log) into FILE (.png/.svg/.pdf).",
)
@format_option()
@click.pass_context
def recommend(
    ctx,
    data,
    target,
    task,
    as_classes,
    k,
    n,
    metric,
    strategy,
    method,
    budget,
    tried,
    configurations,
    output,
    fmt,
):
    """Rank the knowledge base's algorithms for the dataset DATA, with the evidence.

    DATA is a CSV/TSV/Parquet/ARFF file, openml:ID or sklearn:NAME.  A classification target
    ranks classifiers by accuracy; a continuous target ranks regressors by R² (clipped at 0),
    from the KB's regression datasets only (--task overrides the detected task).  By
    default (strategy "learned") the first row is the answer: the algorithm of best accuracy
    predicted from DATA's metafeatures, its time discounted only beyond a second; then the
    runs a loss-time planner expects to close the gap to the best fastest (time counted from
    1 s), then the model's order.  The run column is the order to run them in, one after the
    other, to have a good model soonest: what is quick and good first, the answer when its
    turn comes.  The score column (expected_loss) is the expected loss,
    in points below the best, after running that row and every row above it.  Expected
    accuracy and time come with 80 % intervals; time is scaled to DATA's rows, features and
    classes.  An algorithm whose configurations the knowledge base knows is one row, named
    with its configuration ranked first (--configurations lists them all; a --budget plan
    lists the runs it plans).  The neighbouring datasets used are listed too.  Tables show times with units
    and accuracies in percent (R² with three decimals); JSON and CSV keep full precision.

    \b
    Example:
      metarec recommend iris.csv --target species
      metarec recommend sklearn:breast_cancer --budget 10 --format json
      metarec recommend data.csv --tried random_forest=0.91:2.5 -o plot.png
    """
    tried_results = parse_tried(tried)
    dataset, kb, family, model, ranking = _rank(
        ctx, data, target=target, task=task, as_classes=as_classes, k=k, n=n, metric=metric,
        method=method, strategy=strategy, tried=tried_results, budget=budget,
    )  # fmt: skip
    if not configurations:
        ranking = ranking.by_algorithm()
    frame = task_columns(_with_library(ranking.to_frame(), kb), family, ranking.metric)
    not_installed = _not_installed(frame["algorithm"])
    neighbours = ranking.neighbours_frame()
    title = f"Algorithms to try on {dataset.name} ({ranking.method}, {len(neighbours)} neighbours)"
    if output:
        from metarec.recommender.plots import plot_recommendation

        with status(f"Drawing {output}"):
            plot_recommendation(frame, path=output, title=title)
        echo_note(f"Figure written to {output}")
    emit(
        # a budget plan carries its expected loss as a column of its own already
        frame.rename(columns={"score": ranking.score_name})
        if fmt == "table" and ranking.score_name not in frame.columns
        else frame,
        fmt,
        title=title,
        json_extra={
            "dataset": dataset.name,
            "task": family,
            "method": ranking.method,
            "score_name": ranking.score_name,
            "params": shown_params(model),
            "neighbours": neighbours,
            "tried": {a: list(v) for a, v in tried_results.items()},
            "budget": budget,
            "explanation": ranking.explain(),
            "not_installed": not_installed,
        },
    )
    if fmt != "json":  # JSON carries them as "not_installed"
        for hint in sorted(set(not_installed.values())):
            names = ", ".join(n for n, h in not_installed.items() if h == hint)
            echo_note(f"not installed here: {names}; to run them: {hint}")
    if fmt == "table":
        emit(neighbours, fmt, title="Neighbouring datasets the ranking rests on")
        echo_note(ranking.explain())
    elif fmt == "csv":
        echo_note(ranking.explain() + " (use --format json to get the neighbours' distances)")


@click.command()
@click.option(
    "--dataset", "dataset", metavar="NAME", help="Ranking of the results stored for one dataset."
)
@click.option("--all", "all_", is_flag=True, help="Ranking aggregated over every stored dataset.")
@click.option("--method", type=SuggestingChoice(METHOD_CHOICES), default="a3r", show_default=True)
@click.option("--n", "n", type=POSITIVE, help="Root of the time ratio in A3R.")
@click.option(
    "--metric", default="accuracy", show_default=True, help="Performance column of the KB runs."
)
@click.option(
    "--task",
    type=click.Choice(["classification", "regression"]),
    help="Which datasets' results (default: the task of --dataset, else classification).",
)
@format_option()
@click.pass_context
def rank(ctx, dataset, all_, method, n, metric, task, fmt):
    """Rank the algorithms by the results stored in the knowledge base.

    With --dataset NAME, the true ranking on that dataset; with --all (the default), the
    ranking aggregated over every dataset (pairwise A3R, geometric mean over datasets).

    \b
    Example:
      metarec rank --all --method ar
      metarec rank --dataset iris --format json
    """
    if dataset and all_:
        raise click.UsageError("give --dataset NAME or --all, not both")
    with status("Opening the knowledge base"):
        kb = open_kb(ctx, builtin_fallback=True)
    stored = _stored_task(kb, dataset) if dataset else None
    if dataset and task and task != stored:
        raise click.UsageError(f"dataset {dataset!r} is stored as a {stored} dataset, not {task}")
    task = task or stored or "classification"
    with status("Fitting the recommender (cached per KB version)"):
        model = _recommender(kb, None, n, metric, method, task=task)
        ranking = model.rank(dataset)
    scope = f"dataset {dataset}" if dataset else f"all {len(ranking.neighbours)} datasets"
    frame = task_columns(ranking.to_frame(), task, ranking.metric)
    if dataset:  # the stored results themselves: no interval around them
        frame = frame.drop(columns=[c for c in frame.columns if c.endswith(("_low", "_high"))])
    emit(
        frame,
        fmt,
        title=f"Ranking by {method} on {scope}",
        json_extra={
            "method": method,
            "task": task,
            "datasets": [nb.name for nb in ranking.neighbours],
            "n": getattr(model.ranker_, "n", None),
            "metric": metric,
        },
    )
