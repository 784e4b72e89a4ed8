"""Fitting a search's answer on every row: the best algorithm, or the average of the best."""

from __future__ import annotations

import time
from typing import Any

from metarec.automl._model import AveragedClassifier, AveragedRegressor, LabelledClassifier

__all__ = ["refit_answer"]


def refit_answer(
    order,
    trials,
    ds,
    labels,
    codes,
    ensemble_size,
    random_state,
    deadline,
    refit_scale,
    notes,
    *,
    anchor=None,
):
    """Fit the answer on every row: the best algorithms whose refits fit the time left.

    Up to ``ensemble_size`` algorithms of ``order`` (best first) are refitted, each only
    when its expected time (known from its folds) fits what is left of the budget; the first
    one that fits is the best answer.  When none fits, the best whose refit is expected
    within :data:`LAST_RESORT_SECONDS` (else the quickest) is refitted anyway, so that a
    search hands back a model: a second over the budget rather than no model, or the
    majority-class predictor that is last in the order and always quick.

    An average (``ensemble_size`` of 2 or more) also takes ``anchor``, the knowledge base's
    single best algorithm, when it completed and is not among the members already (one
    member more): the constant answer a recommendation must not lose to is then part of the
    vote, and the other members outvote it only where most of them agree.  On small data,
    where the best inner-CV scores are noisy, the average of the best alone fell several
    points below that constant answer on some datasets (``benchmarks/run_vs_flaml.py``).

    On data of :data:`TIE_MIN_ROWS` rows or more the members after the first (the anchor
    too) join only when their fold scores are tied with the best's within the folds' noise
    (:func:`~metarec.automl._select.tied_with`): there an algorithm clearly below the best
    is simply worse, and averaging it in with an equal vote lowers the accuracy below the
    best alone.  One left out keeps its place among the ``ensemble_size`` (the next one down
    the order does not replace it: it is further from the best still).  Below that size
    every member joins: replayed on recorded searches (``benchmarks/run_answer_choice.py``),
    the test changed nothing on datasets of 1,000-3,000 rows and cost accuracy on those
    under 1,000 rows, where five small folds do not tell a worse model from a different one.

    The refits run in this process (a warm worker may have been stopped with the budget,
    and a fresh one would spend seconds importing).  After a SIGINT or SIGTERM
    (``deadline`` None) only the best whose refit is expected to take about a second is
    refitted, alone.

    Parameters
    ----------
    order : list of str
        Complete algorithms, best first.
    trials : dict of str to Trial
        Their trials (``fit_time``: mean fit time of a fold).
    ds : Dataset
        The data, refitted on every row.
    labels : ndarray or None
        The class labels in the order of their codes (None: regression).
    codes : ndarray
        Class codes (or the target) of every row.
    ensemble_size : int
        How many algorithms the answer averages at most.
    random_state : int
        Seed of every estimator.
    deadline : float or None
        ``time.perf_counter()`` by which the refits must be done; None after a signal.
    refit_scale : float
        Rows of the whole data over rows of a training fold (fold times to refit times).
    notes : list of str
        Appended: what was not refitted, and why.
    anchor : str, optional
        The knowledge base's single best algorithm (joins an average; see above).

    Returns
    -------
    (model, tuple of str)
        The fitted model (the single pipeline, or the average of the members) and the
        members' names, best first; ``(None, ())`` when nothing could be refitted.
    """
    from metarec.automl._select import TIE_Z, tied_with
    from metarec.benchmark import build_pipeline, default_portfolio

    portfolio = default_portfolio(task="all")
    fitted: list[tuple[str, Any]] = []
    size = ensemble_size if deadline is not None else 1  # stopped: no time to spare
    tried: set[str] = set()
    said: list[str] = []  # the notes, added at the end (a last resort replaces the skips')
    best_folds = trials[order[0]].fold_scores if order else ()
    untied: list[str] = []  # clearly below the best: left out of the average
    test_ties = len(codes) >= TIE_MIN_ROWS

    def tied(algorithm: str) -> bool:
        if not test_ties or tied_with(best_folds, trials[algorithm].fold_scores):
            return True
        untied.append(algorithm)
        return False

    def refit(algorithm: str, last_resort: bool = False) -> None:
        tried.add(algorithm)
        expected = trials[algorithm].fit_time * refit_scale
        left = 1.0 if deadline is None else deadline - time.perf_counter()
        if expected > left and not last_resort:
            said.append(
                f"{algorithm} not refitted: expected {expected:.3g} s, {max(left, 0):.3g} s left"
            )
            return
        pipeline = build_pipeline(
            portfolio[algorithm],
            numeric_columns=tuple(ds.numeric_columns),
            categorical_columns=tuple(ds.categorical_columns),
            random_state=random_state,
        )
        try:
            with _quiet():
                pipeline.fit(ds.X, codes)
        except Exception as exc:  # its own failure on every row: try the next one
            notes.append(f"refitting {algorithm} on all rows failed: {type(exc).__name__}: {exc}")
            return
        fitted.append((algorithm, pipeline))

    for algorithm in order:
        if len(fitted) + len(untied) >= size:  # one left out keeps its place: no one further down
            break
        if fitted and not tied(algorithm):
            continue
        refit(algorithm)
    if not fitted and deadline is not None:
        # nothing fits the time left: the best whose refit is expected within a second
        # (else the quickest) is refitted anyway, so that a search hands back a model
        for algorithm in _last_resorts(order, trials, refit_scale):
            refit(algorithm, last_resort=True)
            if fitted:
                said = [
                    f"no refit fitted the time left: {algorithm} refitted anyway (the best "
                    f"whose refit is expected within {LAST_RESORT_SECONDS:g} s, else the "
                    "quickest)"
                ]
                break
    if fitted and size >= 2 and anchor in order and anchor not in tried and tied(anchor):
        refit(anchor)
        if fitted[-1][0] == anchor:
            said.append(f"{anchor} joins the average as the knowledge base's single best")
    left_out = list(dict.fromkeys(untied))  # the anchor may be tested twice
    if left_out:
        said.append(
            f"{', '.join(left_out)} not averaged: clearly below {order[0]}'s fold scores "
            f"(more than {TIE_Z:g} standard errors of the paired difference)"
        )
    notes.extend(said)
    if not fitted:
        return None, ()
    names = tuple(name for name, _ in fitted)
    if labels is None:  # one regressor is an average of one: it reads any X the same way
        return AveragedRegressor.from_fitted(fitted, ds.X.columns), names
    if len(fitted) == 1:
        return LabelledClassifier.from_fitted(fitted[0][1], labels, ds.X.columns), names
    return AveragedClassifier.from_fitted(fitted, labels, ds.X.columns), names


#: A refit expected within this many seconds may overrun a spent budget (see refit_answer).
LAST_RESORT_SECONDS = 1.0
#: Rows from which an average leaves out members clearly below the best (see refit_answer).
TIE_MIN_ROWS = 3000


def _last_resorts(order, trials, refit_scale) -> list[str]:
    """``order`` (best first) with the refits expected within :data:`LAST_RESORT_SECONDS`
    first, then the others quickest first."""
    expected = {a: trials[a].fit_time * refit_scale for a in order}
    quick = [a for a in order if expected[a] <= LAST_RESORT_SECONDS]
    slow = sorted((a for a in order if a not in quick), key=expected.__getitem__)
    return quick + slow


def _quiet():
    import contextlib
    import warnings

    stack = contextlib.ExitStack()
    stack.enter_context(warnings.catch_warnings())
    warnings.simplefilter("ignore")
    return stack
