"""Commands ``recommend`` (rank algorithms for a new dataset) and ``rank`` (stored rankings)."""

from __future__ import annotations

import click

from metarec._commands._output import echo_note, emit, format_option, open_kb

METHOD_CHOICES = ("a3r", "arr", "ar", "ar*")


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


def _recommender(kb, k, n, metric, method):
    from metarec.recommender._cache import fitted_recommender

    params = {"metric": metric}
    if k is not None:
        params["k"] = None if k == "all" else k
    if n is not None:
        params["n"] = n
    if method is not None:
        params["method"] = method
    return fitted_recommender(kb, **params)


@click.command()
@click.argument("data")
@click.option("--target", help="Target column [default: 'target', 'class' or the last column].")
@click.option("--k", "k", metavar="K|all", help="Number of neighbouring datasets [default: tuned].")
@click.option(
    "--n", "n", type=float, help="Root of the time ratio in A3R (larger: time matters less)."
)
@click.option(
    "--metric", default="accuracy", show_default=True, help="Performance column of the KB runs."
)
@click.option("--method", type=click.Choice(METHOD_CHOICES), help="Ranking method [default: a3r].")
@click.option(
    "--budget", type=float, metavar="SECONDS", help="Plan the runs that fit in a time budget."
)
@click.option(
    "--tried",
    multiple=True,
    metavar="ALGO=ACC:TIME",
    help="A result already obtained on DATA (repeatable); the next algorithms are suggested.",
)
@format_option()
@click.pass_context
def recommend(ctx, data, target, k, n, metric, method, budget, tried, fmt):
    """Rank the knowledge base's algorithms for the dataset DATA, with the evidence.

    DATA is a CSV/TSV/Parquet/ARFF file, openml:ID or sklearn:NAME.  The ranking comes from
    the pairwise A3R (accuracy / time trade-off) of the algorithms on the most similar
    datasets of the knowledge base; the neighbours used are listed too.

    \b
    Example:
      metarec recommend iris.csv --target species
      metarec recommend sklearn:breast_cancer --budget 10 --format json
      metarec recommend data.csv --tried random_forest=0.91:2.5
    """
    k_value = _parse_k(k)
    tried_results = parse_tried(tried)
    from metarec.data import load_dataset

    dataset = load_dataset(data, target=target)  # a bad DATA fails before any KB work
    kb = open_kb(ctx, builtin_fallback=True)
    model = _recommender(kb, k_value, n, metric, method)
    ranking = model.recommend(dataset.X, dataset.y, tried=tried_results or None, budget=budget)
    frame = ranking.to_frame()
    neighbours = ranking.neighbours_frame()
    title = f"Algorithms to try on {dataset.name} ({ranking.method}, {len(neighbours)} neighbours)"
    emit(
        frame,
        fmt,
        title=title,
        json_extra={
            "dataset": dataset.name,
            "method": ranking.method,
            "params": {k2: v for k2, v in model.get_params().items() if k2 != "features"},
            "neighbours": neighbours,
            "tried": {a: list(v) for a, v in tried_results.items()},
            "budget": budget,
            "explanation": ranking.explain(),
        },
    )
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
@click.option("--method", type=click.Choice(METHOD_CHOICES), default="a3r", show_default=True)
@click.option("--n", "n", type=float, help="Root of the time ratio in A3R.")
@click.option(
    "--metric", default="accuracy", show_default=True, help="Performance column of the KB runs."
)
@format_option()
@click.pass_context
def rank(ctx, dataset, all_, method, n, metric, fmt):
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
    kb = open_kb(ctx, builtin_fallback=True)
    model = _recommender(kb, None, n, metric, method)
    ranking = model.rank(dataset)
    scope = f"dataset {dataset}" if dataset else f"all {len(ranking.neighbours)} datasets"
    emit(
        ranking.to_frame(),
        fmt,
        title=f"Ranking by {method} on {scope}",
        json_extra={
            "method": method,
            "datasets": [nb.name for nb in ranking.neighbours],
            "n": model.n,
            "metric": metric,
        },
    )
