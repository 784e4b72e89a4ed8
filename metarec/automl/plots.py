"""The loss-time curve of a search: the best score found so far against elapsed time."""

from __future__ import annotations

from typing import Any

import numpy as np

from metarec.automl._search import SearchResult

__all__ = ["plot_search", "labelled"]


def plot_search(result: SearchResult) -> Any:
    """Draw the best CV score so far against the seconds since the search began.

    Each evaluated algorithm is a point at the time its last fold finished (log time axis);
    the step line is the best score found so far, the dashed line the chosen algorithm's.
    Only the points that raised the best score and the members of the answer are named
    (:func:`labelled`): the others of a small dataset finish within the same second with
    close scores, where every name would print over its neighbours.

    Parameters
    ----------
    result : SearchResult
        A finished search, such as the ``search_`` of a fitted
        :class:`~metarec.automl.AutoClassifier`.

    Returns
    -------
    matplotlib.figure.Figure
    """
    from metarec.evaluation.plots import pyplot_module, seconds_axis

    plt = pyplot_module()
    done = sorted(
        (t for t in result.trials if t.complete and np.isfinite(t.finished)),
        key=lambda t: t.finished,
    )
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    if done:
        times = np.array([max(t.finished, 1e-2) for t in done])
        scores = np.array([t.cv_score for t in done])
        ax.scatter(times, scores, s=14, color="0.5", zorder=3)
        named = labelled([t.algorithm for t in done], scores, result.members)
        for i, k in enumerate(np.flatnonzero(named)):
            ax.annotate(
                done[k].algorithm,
                (times[k], scores[k]),
                fontsize=7,
                # alternately above and below: neighbours in time then do not print over
                # each other
                xytext=(3, 3 if i % 2 == 0 else -9),
                textcoords="offset points",
            )
        ax.step(times, np.maximum.accumulate(scores), where="post", color="C0", label="best so far")
        if result.best:
            best = result.trial(result.best).cv_score
            ax.axhline(best, color="C1", ls="--", lw=1, label=f"chosen: {result.best}")
        seconds_axis(ax, times)
        # at least a factor 4 wide: results reused from the knowledge base all arrive at once
        centre = np.sqrt(times.min() * times.max())
        ax.set_xlim(min(times.min() / 1.2, centre / 2), max(times.max() * 1.2, centre * 2))
        ax.legend(loc="lower right", fontsize=8)
    ax.set_xlabel("seconds since the search began")
    ax.set_ylabel(f"CV {result.settings.metric}")
    ax.set_title(f"{result.dataset}: budget {result.settings.budget:g} s", fontsize=10)
    fig.tight_layout()
    return fig


def labelled(algorithms, scores, members=()) -> np.ndarray:
    """Which points of the curve are named.

    Each point that raised the best score so far (the first included), and the answer's
    ``members``.

    Parameters
    ----------
    algorithms : sequence of str
        In the order their evaluations finished.
    scores : array-like of float
        Their CV scores, in the same order.
    members : sequence of str
        The algorithms of the answer.

    Returns
    -------
    ndarray of bool
    """
    scores = np.asarray(scores, dtype=float)
    before = np.concatenate([[-np.inf], np.maximum.accumulate(scores)[:-1]])
    return (scores > before) | np.isin(np.asarray(algorithms, dtype=object), list(members))
