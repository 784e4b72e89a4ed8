"""Plots of recommender evaluations (matplotlib is imported only when a plot is drawn)."""

from __future__ import annotations

import numpy as np

__all__ = ["plot_loss_time", "plot_recommendation", "pareto_front"]

_STYLES = {
    "metarec": {"color": "C3", "linewidth": 2.5},
    "AR": {"color": "C0"},
    "global AR*": {"color": "C2"},
    "single best": {"color": "C1"},
    "random": {"color": "0.5", "linestyle": ":"},
    "bound": {"color": "k", "linestyle": "--"},
}


def plot_loss_time(result, *, path=None, ax=None, title=None):
    """Mean loss-time curves of every evaluated method, log time axis.

    Parameters
    ----------
    result : EvaluationResult
        From :func:`metarec.recommender.evaluate_recommender`.
    path : str or Path, optional
        Save the figure there (PNG by extension).
    ax : matplotlib Axes, optional
        Draw into it instead of a new figure.
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib

    if ax is None and path is not None:
        matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    if ax is None:
        fig, ax = plt.subplots(figsize=(7, 4.5))
    else:
        fig = ax.figure
    mil = {}
    if result.summary is not None and len(result.summary):
        mil = dict(zip(result.summary["method"], result.summary["mil"], strict=True))
    for method, curve in result.curves.items():
        label = (
            f"{method} (MIL {mil[method]:.2f})" if np.isfinite(mil.get(method, np.nan)) else method
        )
        ax.step(result.grid, curve, where="post", label=label, **_STYLES.get(method, {}))
    ax.set_xscale("log")
    ax.set_xlabel("cumulative training time (s, log scale)")
    ax.set_ylabel("loss (accuracy points below the best)")
    ax.set_xlim(result.t_lo, result.t_hi)
    ax.set_ylim(bottom=0)
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(frameon=False, fontsize="small")
    ax.set_title(title or "Loss-time curves, leave-one-dataset-out")
    fig.tight_layout()
    if path is not None:
        fig.savefig(path, dpi=120)
    return fig


def pareto_front(accuracy, time) -> np.ndarray:
    """Boolean mask of the points no other point beats on both accuracy and time.

    A point is on the front when no other point is at least as accurate and at least as fast,
    and strictly better in one of the two.  NaN points are never on it.
    """
    accuracy = np.asarray(accuracy, dtype=float)
    time = np.asarray(time, dtype=float)
    valid = np.isfinite(accuracy) & np.isfinite(time)
    a, t = accuracy[:, None], time[:, None]
    dominated = (
        (accuracy[None, :] >= a)
        & (time[None, :] <= t)
        & ((accuracy[None, :] > a) | (time[None, :] < t))
        & valid[None, :]
    ).any(axis=1)
    return valid & ~dominated


def plot_recommendation(frame, *, path=None, ax=None, title=None, n_labelled=None):
    """Expected accuracy against expected time of every ranked algorithm (log time).

    Each algorithm is a point labelled with its rank (the recommended order); the first
    choices are drawn larger, the Pareto front (no algorithm both more accurate and faster) is
    a line, and, when the frame has ``expected_accuracy_low``/``expected_accuracy_high``,
    vertical bars show that spread.

    Parameters
    ----------
    frame : DataFrame
        :meth:`Ranking.to_frame` output: ``algorithm``, ``rank``, ``expected_accuracy`` (a
        fraction) and ``expected_time`` (seconds).
    path : str or Path, optional
        Save the figure there (PNG or SVG by extension).
    ax : matplotlib Axes, optional
        Draw into it instead of a new figure.
    title : str, optional
    n_labelled : int, optional
        Name only the first ``n_labelled`` algorithms beside their point (default: all).

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib

    if ax is None and path is not None:
        matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    if ax is None:
        fig, ax = plt.subplots(figsize=(8, 5.5))
    else:
        fig = ax.figure
    frame = frame.sort_values("rank")
    accuracy = 100 * frame["expected_accuracy"].to_numpy(dtype=float)
    time = frame["expected_time"].to_numpy(dtype=float)
    time = np.where(time > 0, time, np.nan)
    ranks = frame["rank"].to_numpy()
    names = frame["algorithm"].astype(str).to_numpy()
    top = ranks <= 3
    if {"expected_accuracy_low", "expected_accuracy_high"} <= set(frame.columns):
        low = 100 * frame["expected_accuracy_low"].to_numpy(dtype=float)
        high = 100 * frame["expected_accuracy_high"].to_numpy(dtype=float)
        ax.vlines(time, low, high, color="0.75", linewidth=1, zorder=1, label="spread")
    front = pareto_front(accuracy, time)
    order = np.argsort(time[front])
    ax.step(
        time[front][order],
        accuracy[front][order],
        where="post",
        color="C2",
        linewidth=1.5,
        zorder=2,
        label="Pareto front (none both faster and more accurate)",
    )
    ax.scatter(time[~top], accuracy[~top], s=30, color="C0", zorder=3, label="algorithm")
    ax.scatter(
        time[top], accuracy[top], s=110, color="C3", zorder=4, label="recommended first (1-3)"
    )
    limit = len(names) if n_labelled is None else n_labelled
    for i in range(len(names)):
        if not (np.isfinite(time[i]) and np.isfinite(accuracy[i])):
            continue
        text = f"{ranks[i]}. {names[i]}" if ranks[i] <= limit else f"{ranks[i]}"
        ax.annotate(
            text,
            (time[i], accuracy[i]),
            xytext=(5, 3),
            textcoords="offset points",
            fontsize="x-small" if ranks[i] > 3 else "small",
            fontweight="bold" if ranks[i] <= 3 else "normal",
        )
    ax.set_xscale("log")
    ax.set_xlabel("expected training time (s, log scale)")
    ax.set_ylabel("expected accuracy (%)")
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(frameon=False, fontsize="small", loc="lower right")
    if title:
        ax.set_title(title)
    fig.tight_layout()
    if path is not None:
        fig.savefig(path, dpi=130)
    return fig
