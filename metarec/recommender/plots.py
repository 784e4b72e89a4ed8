"""Plots of recommender evaluations (matplotlib is imported only when a plot is drawn)."""

from __future__ import annotations

import numpy as np

__all__ = ["plot_loss_time"]

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
