"""Command group ``metric``: contingency-space surfaces, imbalance sensitivity, A3R vs ARR."""

from __future__ import annotations

import click

from metarec._commands._output import echo_note, emit, format_option
from metarec._commands._types import FiniteFloat, OutputFile, SuggestingChoice

#: Contingency-space metric names (kept equal to metarec.evaluation.surface_metric_names()).
METRIC_NAMES = (
    "accuracy",
    "balanced_accuracy",
    "geometric_mean",
    "precision",
    "recall",
    "f1",
    "gilbert",
    "doolittle",
    "heidke",
    "tss",
    "youden_j",
    "tau",
)


_OUTPUT = click.option(
    "-o",
    "--output",
    "output",
    type=OutputFile((".png", ".svg")),
    help="Write the figure to FILE (.png or .svg, chosen by the extension).",
)


def _metric_option(default: tuple[str, ...]):
    return click.option(
        "--metric",
        "metrics",
        type=SuggestingChoice(METRIC_NAMES),
        multiple=True,
        default=default,
        show_default=True,
        help="Metric to include (repeat the option for several).",
    )


def _save(fig, output: str) -> None:
    from metarec.evaluation.plots import save_figure

    path = save_figure(fig, output)
    echo_note(f"Figure written to {path}")


@click.group()
def metric() -> None:
    """Explore evaluation metrics: contingency-space surfaces, imbalance sensitivity, A3R.

    \b
    Example:
      metarec metric surface --metric f1 --metric tau --ratio 5 -o surfaces.png
      metarec metric sensitivity -o sensitivity.svg
      metarec metric a3r-vs-arr -o a3r.png
      metarec metric nosimple -o nosimple.png
    """


@metric.command()
@_metric_option(("accuracy", "f1", "heidke", "tau"))
@click.option(
    "--ratio",
    type=FiniteFloat(min=1.0),
    default=5.0,
    show_default=True,
    help="Imbalance ratio r (negatives per positive) compared with 1.",
)
@click.option(
    "--resolution",
    type=click.IntRange(min=2, max=2000),
    default=100,
    show_default=True,
    help="Grid cells per axis.",
)
@_OUTPUT
@format_option()
def surface(metrics, ratio, resolution, output, fmt):
    """Metric surfaces in the contingency space at ratio 1 and at ratio r.

    Each metric is evaluated on a grid of (true-negative rate, true-positive rate) points;
    the table gives its range and mean at both ratios and its imbalance sensitivity IS(r),
    the normalised volume between the two surfaces (0 = imbalance agnostic).  With -o the
    surfaces are drawn side by side.

    \b
    Example:
      metarec metric surface --metric precision --metric tss --ratio 10 -o surfaces.png
    """
    import numpy as np

    from metarec.evaluation import imbalance_sensitivity, metric_surface

    rows = []
    for name in metrics:
        s1 = metric_surface(name, ratio=1.0, resolution=resolution)
        sr = metric_surface(name, ratio=ratio, resolution=resolution)
        rows.append(
            {
                "metric": name,
                "ratio": ratio,
                "min": float(np.nanmin(sr.values)),
                "max": float(np.nanmax(sr.values)),
                "mean_at_1": float(np.nanmean(s1.values)),
                "mean_at_r": float(np.nanmean(sr.values)),
                "IS(r)": imbalance_sensitivity(name, ratio, resolution=resolution),
            }
        )
    if output:
        from metarec.evaluation.plots import plot_metric_surfaces

        _save(plot_metric_surfaces(metrics, ratios=(1.0, ratio), resolution=resolution), output)
    emit(rows, fmt, title=f"Metric surfaces at r = 1 and r = {ratio:g}")


@metric.command()
@_metric_option(("accuracy", "precision", "f1", "gilbert", "heidke", "doolittle", "tss", "tau"))
@click.option(
    "--max-ratio",
    type=FiniteFloat(min=2.0, max=1e6),
    default=32.0,
    show_default=True,
    help="Largest imbalance ratio.",
)
@click.option(
    "--resolution",
    type=click.IntRange(min=2, max=2000),
    default=100,
    show_default=True,
    help="Grid cells per axis.",
)
@_OUTPUT
@format_option()
def sensitivity(metrics, max_ratio, resolution, output, fmt):
    """Imbalance sensitivity IS(r) of metrics as the imbalance ratio grows.

    The table gives IS at r = 2, 4, 8, ... up to --max-ratio; with -o, IS is drawn against
    every integer ratio from 1 to --max-ratio.

    \b
    Example:
      metarec metric sensitivity --max-ratio 64 -o sensitivity.png
    """
    import numpy as np

    from metarec.evaluation import imbalance_sensitivity

    table_ratios = 2.0 ** np.arange(1, int(np.floor(np.log2(max_ratio))) + 1)
    rows = []
    for name in metrics:
        values = np.atleast_1d(imbalance_sensitivity(name, table_ratios, resolution=resolution))
        row = {"metric": name}
        row.update({f"IS(r={r:g})": float(v) for r, v in zip(table_ratios, values, strict=True)})
        row["imbalance_agnostic"] = bool(np.all(values < 1e-12))
        rows.append(row)
    if output:
        from metarec.evaluation.plots import plot_imbalance_sensitivity

        ratios = np.linspace(1.0, max_ratio, min(64, int(max_ratio)))
        _save(plot_imbalance_sensitivity(metrics, ratios=ratios, resolution=resolution), output)
    emit(rows, fmt, title="Imbalance sensitivity IS(r)")


@metric.command("a3r-vs-arr")
@click.option(
    "--n",
    "n_values",
    type=FiniteFloat(min=0.0, min_open=True),
    multiple=True,
    default=(4.0, 8.0, 16.0),
    show_default=True,
    help="Root n of A3R (repeat for several).",
)
@click.option(
    "--acc-d",
    "acc_d_values",
    type=FiniteFloat(min=0.0, min_open=True),
    multiple=True,
    default=(0.2, 0.3, 0.7),
    show_default=True,
    help="AccD of ARR (repeat for several).",
)
@_OUTPUT
@format_option()
def a3r_vs_arr(n_values, acc_d_values, output, fmt):
    """A3R and ARR of an algorithm as accurate as its competitor, against the time ratio.

    A3R divides the success-rate ratio by the n-th root of the time ratio and decreases
    monotonically; ARR divides it by 1 + AccD log10(time ratio), which reaches zero at the
    time ratio 10^(-1/AccD): there ARR jumps to infinity and below it turns negative.

    \b
    Example:
      metarec metric a3r-vs-arr --n 8 --acc-d 0.1 --acc-d 0.3 -o a3r.svg
    """
    import numpy as np

    from metarec.evaluation import a3r, arr, arr_pole

    time_ratios = np.array([1e-6, 1e-4, 1e-2, 0.1, 1.0, 10.0, 100.0, 1e4])
    rows = []
    for rt in time_ratios:
        row = {"time_ratio": float(rt)}
        for n in n_values:
            row[f"A3R n={n:g}"] = float(a3r(1.0, 1.0, rt, 1.0, n=n))
        for acc_d in acc_d_values:
            row[f"ARR AccD={acc_d:g}"] = float(arr(1.0, 1.0, rt, 1.0, acc_d=acc_d))
        rows.append(row)
    poles = {f"AccD={a:g}": arr_pole(a) for a in acc_d_values}
    if output:
        from metarec.evaluation.plots import plot_a3r_vs_arr

        _save(plot_a3r_vs_arr(n_values=n_values, acc_d_values=acc_d_values), output)
    if fmt == "table":
        echo_note(
            "ARR's pole (denominator 0) at time ratio: "
            + ", ".join(f"{k}: {v:.3g}" for k, v in poles.items())
        )
    emit(rows, fmt, title="A3R and ARR with success-rate ratio 1", json_extra={"arr_poles": poles})


@metric.command()
@click.option(
    "--max-added",
    type=click.IntRange(min=1, max=10**6),
    default=1000,
    show_default=True,
    help="Largest number of simple objects added.",
)
@_OUTPUT
@format_option()
def nosimple(max_added, output, fmt):
    """Simple objects inflate ROC AUC; NoSimple does not (the NoSimple paper's Fig. 1).

    Labels {0,0,0,1,1}; classifier 1 scores {1,2,110,6,120}, classifier 2 scores
    {100,150,2,130,3}.  Negatives scored 0 by both are added: plain ROC AUC of both rises
    towards 1, NoSimple ROC AUC (without the standard simple objects) stays at 5/6 and 1/2.

    \b
    Example:
      metarec metric nosimple --max-added 100 -o nosimple.svg
    """
    import numpy as np

    from metarec.evaluation import simple_objects_effect

    labels = np.array([0, 0, 0, 1, 1])
    scores = np.array([[1, 100], [2, 150], [110, 2], [6, 130], [120, 3]], dtype=float)
    steps = np.unique(np.r_[0, np.round(np.geomspace(1, max_added, 12)).astype(int)])
    effect = simple_objects_effect(labels, scores, steps)
    rows = [
        {
            "added": int(m),
            "auc_1": float(effect.plain_auc[i, 0]),
            "auc_2": float(effect.plain_auc[i, 1]),
            "nosimple_auc_1": float(effect.nosimple_auc[i, 0]),
            "nosimple_auc_2": float(effect.nosimple_auc[i, 1]),
        }
        for i, m in enumerate(effect.n_added)
    ]
    if output:
        from metarec.evaluation.plots import plot_simple_objects_effect

        _save(plot_simple_objects_effect(effect), output)
    emit(rows, fmt, title="ROC AUC with and without simple objects")
