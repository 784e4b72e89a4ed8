"""Figures of the evaluation science: metric surfaces, imbalance sensitivity, learning paths,
A3R against ARR.

matplotlib is imported inside each function (with the non-interactive Agg backend when no
backend was chosen), so importing :mod:`metarec.evaluation` never loads it.  Every function
returns a :class:`matplotlib.figure.Figure`; :func:`save_figure` writes it as PNG or SVG
according to the file extension.  The functions draw; what they draw is computed by
:mod:`metarec.evaluation`.

References
----------
.. [1] A. Ahmadzadeh, D. J. Kempton, P. C. Martens and R. A. Angryk, "Contingency Space: A
   Semimetric Space for Classification Evaluation", IEEE TPAMI 45(2), 2023 (Figs. 2, 3, 7).
.. [2] S. M. Abdulrahman and P. Brazdil, "Measures for Combining Accuracy and Time for
   Meta-learning", MetaSel at ECAI 2014 (Figs. 1, 2).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from metarec.evaluation._a3r import a3r, arr, arr_pole
from metarec.evaluation._contingency import (
    SURFACE_METRICS,
    LearningPath,
    imbalance_sensitivity,
    metric_surface,
)
from metarec.exceptions import InvalidInputError

__all__ = [
    "plot_metric_surfaces",
    "plot_imbalance_sensitivity",
    "plot_learning_path",
    "plot_a3r_vs_arr",
    "plot_simple_objects_effect",
    "save_figure",
    "FIGURE_FORMATS",
]

FIGURE_FORMATS = (".png", ".svg")
_CMAP = "RdBu_r"  # the paper's scale: -1 dark blue ... 1 dark red


def pyplot_module():
    import matplotlib

    if "matplotlib.pyplot" not in sys.modules:
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def seconds_axis(ax, seconds) -> None:
    """A log axis of seconds on ``ax``'s x labelled in plain numbers (``0.5``, ``20``).

    Minor ticks are labelled (at 2 and 5 times a power of ten) only when ``seconds`` span
    less than two decades: over more, the decades' labels suffice and the others overlap.
    """
    from matplotlib.ticker import FuncFormatter

    ax.set_xscale("log")
    ax.xaxis.set_major_formatter(FuncFormatter(lambda value, _pos: f"{value:g}"))
    shown = np.asarray(seconds, dtype=float)
    shown = shown[np.isfinite(shown) & (shown > 0)]
    span = np.log10(shown.max() / shown.min()) if shown.size else 0.0
    ax.xaxis.set_minor_formatter(
        FuncFormatter(
            lambda value, _pos: f"{value:g}" if span < 2 and _leading_digit(value) in (2, 5) else ""
        )
    )
    ax.tick_params(axis="x", which="minor", labelsize="x-small")


def _leading_digit(value: float) -> int:
    """The first significant digit of a positive number (``0.005`` -> 5)."""
    return int(f"{value:e}"[0]) if value > 0 else 0


def save_figure(fig: Any, path: str | Path, *, dpi: int = 130) -> Path:
    """Write ``fig`` to ``path`` as PNG or SVG (chosen by the extension) and close it.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure to write.
    path : str or Path
        The file, ending in ``.png`` or ``.svg``, in a folder that exists.
    dpi : int, default=130
        Resolution of a PNG file.

    Returns
    -------
    Path
        ``path``.

    Raises
    ------
    InvalidInputError
        For another extension, or a directory that does not exist.
    """
    path = Path(path)
    if path.suffix.lower() not in FIGURE_FORMATS:
        raise InvalidInputError(
            f"figure file {str(path)!r} must end in .png or .svg, got {path.suffix or 'none'!r}"
        )
    if not path.parent.exists():
        raise InvalidInputError(f"directory {str(path.parent)!r} of {str(path)!r} does not exist")
    fig.savefig(path, dpi=dpi, bbox_inches="tight")
    pyplot_module().close(fig)
    return path


def _draw_surface(ax: Any, surface: Any, *, levels: Any = None) -> Any:
    extent = (0.0, 1.0, 0.0, 1.0)
    image = ax.imshow(
        surface.values,
        origin="lower",
        extent=extent,
        cmap=_CMAP,
        vmin=-1.0,
        vmax=1.0,
        interpolation="bilinear",
        aspect="equal",
    )
    levels = np.linspace(-1, 1, 21) if levels is None else levels
    values = np.ma.masked_invalid(surface.values)
    ax.contour(
        surface.tnr, surface.tpr, values, levels=levels, colors="k", linewidths=0.4, alpha=0.5
    )
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    return image


def plot_metric_surfaces(
    metrics: Sequence[str] = ("accuracy", "f1", "heidke", "tau"),
    *,
    ratios: tuple[float, float] = (1.0, 5.0),
    resolution: int = 100,
) -> Any:
    """Metric surfaces side by side at two imbalance ratios (the paper's Fig. 2).

    One column per metric, one row per ratio; colours on the paper's [-1, 1] scale with
    contour lines every 0.1, x = tnr and y = tpr.

    Parameters
    ----------
    metrics : sequence of str
        Contingency-space metric names.
    ratios : (float, float), default=(1, 5)
        The two imbalance ratios (negatives per positive).
    resolution : int, default=100

    Returns
    -------
    matplotlib.figure.Figure
    """
    if not metrics:
        raise InvalidInputError("metrics is empty: name at least one metric")
    plt = pyplot_module()
    n = len(metrics)
    fig, axes = plt.subplots(
        len(ratios),
        n,
        figsize=(2.6 * n + 1.2, 2.6 * len(ratios) + 0.6),
        squeeze=False,
        constrained_layout=True,
    )
    image = None
    for col, name in enumerate(metrics):
        for row, r in enumerate(ratios):
            surface = metric_surface(name, ratio=r, resolution=resolution)
            ax = axes[row, col]
            image = _draw_surface(ax, surface)
            if row == 0:
                ax.set_title(SURFACE_METRICS[name].label, fontsize=11)
            if col == 0:
                ax.set_ylabel(f"r = 1:{r:g}\ntrue-positive rate (tpr)")
            if row == len(ratios) - 1:
                ax.set_xlabel("true-negative rate (tnr)")
    fig.colorbar(image, ax=axes, shrink=0.8, label="metric value")
    fig.suptitle("Metric surfaces in the contingency space at two imbalance ratios")
    return fig


def plot_imbalance_sensitivity(
    metrics: Sequence[str] = (
        "accuracy",
        "precision",
        "f1",
        "gilbert",
        "heidke",
        "doolittle",
        "tss",
        "tau",
    ),
    *,
    ratios: Any = None,
    resolution: int = 100,
) -> Any:
    """Imbalance sensitivity IS(r) against the imbalance ratio (the paper's Fig. 7).

    Parameters
    ----------
    metrics : sequence of str
    ratios : array-like, optional
        Ratios on the x axis; 1 to 32 by default.
    resolution : int, default=100

    Returns
    -------
    matplotlib.figure.Figure
    """
    if not metrics:
        raise InvalidInputError("metrics is empty: name at least one metric")
    plt = pyplot_module()
    r = np.arange(1, 33, dtype=float) if ratios is None else np.asarray(ratios, dtype=float)
    fig, ax = plt.subplots(figsize=(9.0, 4.8), constrained_layout=True)
    styles = ["-", "--", "-.", ":"]
    agnostic = []
    for i, name in enumerate(metrics):
        values = np.atleast_1d(imbalance_sensitivity(name, r, resolution=resolution))
        if np.all(values < 1e-12):
            agnostic.append(SURFACE_METRICS[name].label)
        ax.plot(
            r,
            values,
            styles[i % 4],
            marker="o",
            markersize=3,
            linewidth=1.6,
            label=SURFACE_METRICS[name].label,
        )
    if agnostic:
        ax.annotate(
            "IS = 0 (imbalance agnostic): " + ", ".join(agnostic),
            xy=(0.98, 0.03),
            xycoords="axes fraction",
            ha="right",
            va="bottom",
            fontsize=9,
            bbox={"boxstyle": "round", "facecolor": "white", "alpha": 0.9},
        )
    ax.set_xlabel("imbalance ratio r (negatives per positive)")
    ax.set_ylabel("imbalance sensitivity IS(r)")
    ax.set_title("Imbalance sensitivity: volume between the surfaces at 1 and r")
    ax.set_xlim(r.min(), r.max())
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.legend(title="metric", loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=9)
    return fig


def plot_learning_path(
    path: LearningPath | Any,
    *,
    metric: str = "f1",
    ratio: float | None = None,
    resolution: int = 100,
    label: str | None = None,
) -> Any:
    """A binary learning path drawn on a metric surface (the paper's Fig. 3).

    Parameters
    ----------
    path : LearningPath or array-like of shape (m, 2)
        Model points ``(tnr, tpr)``.
    metric : str, default="f1"
        Surface drawn underneath.
    ratio : float, optional
        Imbalance ratio of the surface; the path's first ratio by default (1 for bare points).
    resolution : int, default=100
    label : str, optional
        Legend text of the path.

    Returns
    -------
    matplotlib.figure.Figure
    """
    if isinstance(path, LearningPath):
        points = path.points
        if ratio is None:
            ratio = float(path.ratios[0])
        length = path.length
    else:
        points = np.asarray(path, dtype=float)
        from metarec.evaluation._contingency import learning_path_length

        length = learning_path_length(points)
    if points.ndim != 2 or points.shape[1] != 2:
        raise InvalidInputError(f"a drawable learning path has shape (m, 2), got {points.shape}")
    ratio = 1.0 if ratio is None else ratio
    plt = pyplot_module()
    fig, ax = plt.subplots(figsize=(6.4, 5.4), constrained_layout=True)
    surface = metric_surface(metric, ratio=ratio, resolution=resolution)
    image = _draw_surface(ax, surface)
    ax.plot(
        points[:, 0],
        points[:, 1],
        "-",
        color="black",
        linewidth=1.4,
        label=label or f"learning path (length {length:.2f})",
    )
    ax.scatter(
        points[:, 0],
        points[:, 1],
        c=np.arange(len(points)),
        cmap="Greys",
        s=22,
        edgecolors="black",
        linewidths=0.5,
        zorder=3,
    )
    ax.plot(
        *points[0],
        "o",
        color="gold",
        markeredgecolor="black",
        markersize=10,
        label="first step",
        zorder=4,
    )
    ax.plot(
        *points[-1],
        "*",
        color="lime",
        markeredgecolor="black",
        markersize=15,
        label="last step",
        zorder=4,
    )
    ax.plot(
        1,
        1,
        "P",
        color="white",
        markeredgecolor="black",
        markersize=10,
        label="perfect model",
        zorder=4,
        clip_on=False,
    )
    ax.set_xlabel("true-negative rate (tnr)")
    ax.set_ylabel("true-positive rate (tpr)")
    ax.set_title(f"Learning path on the {SURFACE_METRICS[metric].label} surface (r = 1:{ratio:g})")
    ax.legend(loc="lower left", fontsize=9, framealpha=0.9)
    fig.colorbar(image, ax=ax, shrink=0.85, label=SURFACE_METRICS[metric].label)
    return fig


def plot_a3r_vs_arr(
    *,
    n_values: Sequence[float] = (4, 8, 16),
    acc_d_values: Sequence[float] = (0.2, 0.3, 0.7),
    log2_range: tuple[float, float] = (-20.0, 20.0),
    points: int = 2001,
    ylim: tuple[float, float] = (-3.0, 5.0),
) -> Any:
    """ARR and A3R with a success-rate ratio of 1 against the time ratio.

    The paper's Figs. 1–2: ARR has a pole and turns negative, A3R decreases monotonically.

    Parameters
    ----------
    n_values : sequence of float
        Roots of A3R.
    acc_d_values : sequence of float
        AccD values of ARR; the pole of each is marked by a dotted line.
    log2_range : (float, float)
        Range of ``log2(T_p / T_q)`` on the x axis.
    points : int
    ylim : (float, float)
        Shared y limits (ARR is unbounded near its pole).

    Returns
    -------
    matplotlib.figure.Figure
    """
    plt = pyplot_module()
    log2_ratio = np.linspace(*log2_range, points)
    ratio = 2.0**log2_ratio
    fig, (ax_arr, ax_a3r) = plt.subplots(
        1, 2, figsize=(11, 4.4), sharey=True, constrained_layout=True
    )
    for acc_d in acc_d_values:
        values = np.asarray(arr(1.0, 1.0, ratio, 1.0, acc_d=acc_d), dtype=float)
        above = 1.0 + acc_d * np.log10(ratio) > 0  # the two branches either side of the pole
        (line,) = ax_arr.plot(
            log2_ratio[above], values[above], linewidth=1.6, label=f"AccD = {acc_d:g}"
        )
        ax_arr.plot(log2_ratio[~above], values[~above], linewidth=1.6, color=line.get_color())
        pole = arr_pole(acc_d)
        if pole > 0 and log2_range[0] < np.log2(pole) < log2_range[1]:
            ax_arr.axvline(np.log2(pole), color=line.get_color(), linestyle=":", linewidth=1)
    ax_arr.set_title("ARR = SRR / (1 + AccD log10 RT): pole, then negative")
    ax_arr.set_ylabel("score of algorithm p (SRR = 1)")
    for n in n_values:
        ax_a3r.plot(log2_ratio, a3r(1.0, 1.0, ratio, 1.0, n=n), linewidth=1.6, label=f"n = {n:g}")
    ax_a3r.set_title("A3R = SRR / RT^(1/n): monotonic")
    for ax in (ax_arr, ax_a3r):
        ax.axhline(1.0, color="grey", linewidth=0.8)
        ax.axhline(0.0, color="black", linewidth=0.6)
        ax.set_xlabel("log2 of the time ratio RT = T_p / T_q")
        ax.set_ylim(*ylim)
        ax.set_xlim(*log2_range)
        ax.grid(alpha=0.3)
        ax.legend(loc="upper right", fontsize=9)
    fig.suptitle("A3R against ARR as the time ratio varies (dotted: ARR's pole)")
    return fig


def plot_simple_objects_effect(effect: Any, *, names: Sequence[str] | None = None) -> Any:
    """Plain and NoSimple ROC AUC against the number of added simple objects.

    The NoSimple paper's Fig. 1.

    Parameters
    ----------
    effect : SimpleObjectsEffect
        From :func:`metarec.evaluation.simple_objects_effect`.
    names : sequence of str, optional
        Classifier names; "classifier 1", "classifier 2", ... by default.

    Returns
    -------
    matplotlib.figure.Figure
    """
    plt = pyplot_module()
    m = effect.plain_auc.shape[1]
    names = [f"classifier {j + 1}" for j in range(m)] if names is None else list(names)
    if len(names) != m:
        raise InvalidInputError(f"names has {len(names)} entries for {m} classifiers")
    fig, ax = plt.subplots(figsize=(7.5, 4.6), constrained_layout=True)
    x = effect.n_added
    for j, name in enumerate(names):
        (line,) = ax.plot(x, effect.plain_auc[:, j], "-o", markersize=4, label=f"{name}: ROC AUC")
        ax.plot(
            x,
            effect.nosimple_auc[:, j],
            "--s",
            markersize=4,
            color=line.get_color(),
            label=f"{name}: NoSimple ROC AUC",
        )
    if x.max() > 50:  # counts spanning decades: linear up to 1, logarithmic beyond
        ax.set_xscale("symlog", linthresh=1)
    ax.set_xlabel("number of simple objects added")
    ax.set_ylabel("ROC AUC")
    ax.set_ylim(0, 1.02)
    ax.grid(alpha=0.3)
    ax.set_title("Simple objects lift plain ROC AUC towards 1; NoSimple keeps classifiers apart")
    ax.legend(loc="lower right", fontsize=9)
    return fig
