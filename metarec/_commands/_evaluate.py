"""Command ``evaluate``: leave-one-dataset-out evaluation of the recommender and baselines."""

from __future__ import annotations

import click

from metarec._commands._output import echo_note, emit, format_option, open_kb, status
from metarec._commands._recommend import (
    FIGURE,
    METHOD_CHOICES,
    STRATEGY_CHOICES,
    k_option,
    ranker_options,
)
from metarec._commands._types import POSITIVE, SuggestingChoice


@click.command()
@k_option
@click.option("--n", "n", type=POSITIVE, help="Root of the time ratio in A3R [default: tuned].")
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
    "--metric", default="accuracy", show_default=True, help="Performance column of the KB runs."
)
@click.option(
    "--weights",
    type=SuggestingChoice(("none", "distance")),
    help="Neighbour weights [default: tuned].",
)
@click.option(
    "--distance",
    type=SuggestingChoice(("l1-range", "standardized")),
    help="Metafeature distance [default: tuned].",
)
@click.option(
    "--normalize/--no-normalize",
    default=None,
    help="Normalized metric per dataset [default: tuned].",
)
@click.option(
    "--random",
    "n_random",
    type=click.IntRange(min=1),
    default=20,
    show_default=True,
    help="Permutations of the random baseline.",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the random baseline.")
@click.option(
    "--task",
    type=click.Choice(["classification", "regression"]),
    default="classification",
    show_default=True,
    help="Evaluate on the KB's datasets of this task (losses in accuracy or R² points).",
)
@click.option(
    "-o",
    "--output",
    "output",
    type=FIGURE,
    help="Write the loss-time curves to FILE (.png/.svg/.pdf).",
)
@format_option()
@click.pass_context
def evaluate(
    ctx, k, n, strategy, method, metric, weights, distance, normalize, n_random, seed, task, output,
    fmt,
):  # fmt: skip
    """Evaluate the recommender by leave-one-dataset-out on the knowledge base.

    For every dataset, the algorithms are ranked from the other datasets and compared with
    what really happened: Spearman's correlation with the true A3R ranking, the loss of the
    top-1 and of the best of the top-3 (accuracy points; for --task regression, points of R²
    clipped at 0), and the mean interval loss (MIL) of
    the loss-time curve of running the algorithms in the ranking's run order (the "run"
    column of recommend; "metarec (run as ranked)" runs the table top down instead).  The
    baselines (AR, global AR*, kNN AR* (k=5, n=16), the classic a3r
    strategy unless it is the one evaluated, single best, random, and the bound
    "best single run within time t") are evaluated in the same run.

    \b
    Example:
      metarec evaluate -o loss_time.png
      metarec evaluate --k 10 --n 32 --format json
    """
    from metarec._commands._output import progress
    from metarec.recommender import PerformanceMatrix, evaluate_recommender

    ranker = ranker_options(
        method,
        strategy,
        task=task,
        k=k,
        n=n,
        weights=None if weights == "none" else weights,  # None: the strategy's default
        distance=distance,
        normalize=normalize,
    )
    if weights == "none":  # unweighted neighbours (None above meant "not given")
        ranker.set_params(weights=None)
    with status("Opening the knowledge base"):
        kb = open_kb(ctx, builtin_fallback=True)
        matrix = PerformanceMatrix.from_kb(kb, metric=metric, task=task)
    with progress("Leave-one-dataset-out") as advance:
        result = evaluate_recommender(
            matrix, ranker, n_random=n_random, random_state=seed, progress=advance
        )
    if output:
        from metarec.recommender.plots import plot_loss_time

        plot_loss_time(result, path=output)
        echo_note(f"Loss-time curves written to {output}")
    params = {key: value for key, value in result.params.items() if key != "features"}
    params_shown = {"strategy": ranker.strategy, **params, "metric": metric, "task": task}
    emit(
        result.summary,
        fmt,
        title=(
            f"Leave-one-dataset-out on {int(result.summary['n_datasets'].max())} {task} "
            f"datasets, losses in {'R²' if task == 'regression' else 'accuracy'} points (MIL over {result.t_lo:.3g}-{result.t_hi:.3g} s, log time)"
        ),
        json_extra={
            "task": task,
            "params": params_shown,
            "t_lo": result.t_lo,
            "t_hi": result.t_hi,
            "grid": result.grid,
            "curves": result.curves,
        },
    )
