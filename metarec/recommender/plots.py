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
#: Colours of the methods without a style (kNN AR*, a3r, the former default, ...): none of
#: the styled ones'.
_SPARE_COLOURS = ("C4", "C5", "C6", "C8", "C9", "C7")


def _figure(ax, path, *, figsize):
    """``(figure, axes)``: a new figure (headless when it is only saved), or ``ax``'s own."""
    if ax is not None:
        return ax.figure, ax
    import matplotlib

    if path is not None:
        matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    return plt.subplots(figsize=figsize)


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
    fig, ax = _figure(ax, path, figsize=(7, 4.5))
    mil = {}
    if result.summary is not None and len(result.summary):
        mil = dict(zip(result.summary["method"], result.summary["mil"], strict=True))
    spare = iter(_SPARE_COLOURS)
    for method, curve in result.curves.items():
        label = (
            f"{method} (MIL {mil[method]:.2f})" if np.isfinite(mil.get(method, np.nan)) else method
        )
        # a method without a style of its own gets a colour no other curve has
        style = _STYLES.get(method) or {"color": next(spare, "0.3"), "linestyle": "-."}
        ax.step(result.grid, curve, where="post", label=label, **style)
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

    Parameters
    ----------
    accuracy, time : array-like of shape (n,)
        The points' accuracy (higher is better) and time (lower is better).

    Returns
    -------
    ndarray of bool, shape (n,)
        ``True`` for the points on the front.
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


def plot_recommendation(frame, *, path=None, ax=None, title=None):
    """Expected accuracy against expected time of every ranked algorithm (log time).

    Each algorithm is a point labelled with its rank (the recommended order, listed with the
    names beside the plot); the first three are drawn larger in red, the Pareto front (no other
    algorithm both more accurate and faster) is a step line, and, when the frame has
    ``expected_accuracy_low``/``expected_accuracy_high``, vertical bars show that 80 % interval.

    Parameters
    ----------
    frame : DataFrame
        :meth:`Ranking.to_frame` output: ``algorithm``, ``rank``, ``expected_accuracy`` (a
        fraction; or the column of another success rate, ``expected_r2``,
        ``expected_roc_auc``..., as the commands name it) and ``expected_time`` (seconds).
    path : str or Path, optional
        Save the figure there (PNG, SVG or PDF by extension).
    ax : matplotlib Axes, optional
        Draw into it instead of a new figure.
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    from metarec.evaluation.plots import seconds_axis

    new = ax is None
    fig, ax = _figure(ax, path, figsize=(9.5, 5.5))
    if new:
        fig.subplots_adjust(left=0.08, right=0.74, top=0.9, bottom=0.11)
    frame = frame.sort_values("rank")
    success = next(
        (
            c
            for c in frame.columns
            if str(c).startswith("expected_")
            and str(c) not in ("expected_time", "expected_loss")
            and not str(c).startswith("expected_time")
            and not str(c).endswith(("_low", "_high"))
        ),
        "expected_accuracy",
    )
    accuracy = 100 * frame[success].to_numpy(dtype=float)
    time = frame["expected_time"].to_numpy(dtype=float)
    time = np.where(time > 0, time, np.nan)
    ranks = frame["rank"].to_numpy()
    names = frame["algorithm"].astype(str).to_numpy()
    top = ranks <= 3
    if {f"{success}_low", f"{success}_high"} <= set(frame.columns):
        low = 100 * frame[f"{success}_low"].to_numpy(dtype=float)
        high = 100 * frame[f"{success}_high"].to_numpy(dtype=float)
        ax.vlines(time, low, high, color="0.75", linewidth=1, zorder=1, label="80 % interval")
    front = pareto_front(accuracy, time)
    order = np.argsort(time[front])
    ax.step(
        time[front][order],
        accuracy[front][order],
        where="post",
        color="C2",
        linewidth=1.5,
        zorder=2,
        label="Pareto front: none is both\nfaster and more accurate",
    )
    ax.scatter(time[~top], accuracy[~top], s=30, color="C0", zorder=3, label="algorithm")
    ax.scatter(time[top], accuracy[top], s=110, color="C3", zorder=4, label="recommended 1-3")
    for i in np.flatnonzero(np.isfinite(time) & np.isfinite(accuracy)):
        ax.annotate(
            str(ranks[i]),
            (time[i], accuracy[i]),
            xytext=(4, 3),
            textcoords="offset points",
            fontsize="small" if top[i] else "x-small",
            fontweight="bold" if top[i] else "normal",
            color="C3" if top[i] else "0.2",
        )
    listing = "\n".join(
        f"{r:>2}. {n}" + ("  *" if f else "") for r, n, f in zip(ranks, names, front, strict=True)
    )
    ax.text(
        1.03,
        1.0,
        "Recommended order\n(* on the Pareto front)\n\n" + listing,
        transform=ax.transAxes,
        va="top",
        ha="left",
        family="monospace",
        fontsize="x-small",
    )
    seconds_axis(ax, time)
    ax.set_xlabel("expected training time (s, log scale)")
    what = success.removeprefix("expected_")
    ax.set_ylabel(f"expected {'R²' if what == 'r2' else what.replace('_', ' ')} (%)")
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(frameon=False, fontsize="small", loc="lower right")
    if title:
        ax.set_title(title)
    if path is not None:
        fig.savefig(path, dpi=130)
    return fig
