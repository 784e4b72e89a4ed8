"""The loss-time curve of a search: the best score found so far against elapsed time."""

from __future__ import annotations

from typing import Any

import numpy as np

from metarec.automl._search import SearchResult

__all__ = ["plot_search"]


def plot_search(result: SearchResult) -> Any:
    """Draw the best CV score so far against the seconds since the search began.

    Each evaluated algorithm is a point at the time its last fold finished (log time axis);
    the step line is the best score found so far, the dashed line the chosen algorithm's.

    Returns
    -------
    matplotlib.figure.Figure
    """
    from metarec.evaluation.plots import _pyplot

    plt = _pyplot()
    done = sorted(
        (t for t in result.trials if t.complete and np.isfinite(t.finished)),
        key=lambda t: t.finished,
    )
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    if done:
        times = np.array([max(t.finished, 1e-2) for t in done])
        scores = np.array([t.cv_score for t in done])
        ax.scatter(times, scores, s=14, color="0.5", zorder=3)
        for t, x, y in zip(done, times, scores, strict=True):
            ax.annotate(t.algorithm, (x, y), fontsize=6, xytext=(2, 2), textcoords="offset points")
        ax.step(times, np.maximum.accumulate(scores), where="post", color="C0", label="best so far")
        if result.best:
            best = result.trial(result.best).cv_score
            ax.axhline(best, color="C1", ls="--", lw=1, label=f"chosen: {result.best}")
        ax.set_xscale("log")
        ax.legend(loc="lower right", fontsize=8)
    ax.set_xlabel("seconds since the search began")
    ax.set_ylabel(f"CV {result.settings.metric}")
    ax.set_title(f"{result.dataset}: budget {result.settings.budget:g} s", fontsize=10)
    fig.tight_layout()
    return fig
