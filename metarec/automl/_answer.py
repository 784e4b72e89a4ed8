"""What ``metarec run`` answers: which evaluated algorithms make the model, with what weights.

Everything that decides the answer is here; the budgeted refit that fits its members on
every row is :mod:`metarec.automl._refit`, the evaluations it reads are the search's trials
(:mod:`metarec.automl._trials`).  :func:`final_answer` assembles it:

1. **The order** (:func:`answer_order`): the complete trials by their CV mean shrunk toward
   the knowledge base's expectation of each algorithm (the selection score:
   :func:`~metarec.automl._select.posterior_scores`), ties to the faster expected fit, then
   to the first name.  It is also the leaderboard's order.
2. **The anchor**: the knowledge base's single best algorithm
   (:meth:`Recommender.single_best <metarec.recommender.Recommender.single_best>`, the
   performance matrix's one definition), this dataset's own stored folds left out.
3. **The members and their weights**: one pure rule, :class:`AnswerPolicy`, by ``method``
   (one of :data:`~metarec.automl._methods.ENSEMBLE_METHODS`):

   - ``"selection"``: greedy ensemble selection over the evaluated algorithms'
     out-of-fold predictions on the user's data (:mod:`metarec.automl._ensemble`: sorted
     initialisation with the best, a fixed number of rounds with replacement, weights =
     counts); ``ensemble_size`` caps the number of distinct members (None: no cap; 1: the
     best alone).  The members are refitted by weight, the heaviest first; the rest of the
     order are spares.  Algorithms whose predictions are not at hand (folds reused from
     the knowledge base) are not candidates; with no predictions at all, the best alone.
   - ``"average"`` (the default: on small data selection fits the noise of the
     out-of-fold predictions, ``docs/benchmarks/run-ensemble.md``): an equal-weight
     average of ``ensemble_size`` (None: 3) of the best ones of the order; on data of
     :data:`TIE_MIN_ROWS` rows or more a member after the first joins only when its fold
     scores are tied with the best's within the folds' noise
     (:func:`~metarec.automl._select.tied_with`: there an algorithm clearly below the best
     is simply worse, and averaging it in costs accuracy; on a holdout, one score each,
     the rows of the validation part: :func:`~metarec.automl._select.tied_on_rows`), and
     one left out keeps its
     place (the next one down the order is further from the best still); below that size
     every member joins (five small folds do not tell a worse model from a different one:
     ``benchmarks/run_answer_choice.py``).  The anchor joins an average, with a member's
     weight, when it completed, is not a member already and passes the same tie test: the
     constant answer a recommendation must not lose to is part of the vote.
   - ``ensemble_size == 1``: the best alone.

4. **The fallback**: when no algorithm finished its folds in time, the knowledge base's
   best expectation whose refit is expected to fit the time left, fitted without
   evaluation (when none fits, the best expected within
   :data:`~metarec.automl._refit.LAST_RESORT_SECONDS`: a second over the budget rather
   than no model); after a signal, none.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from metarec.automl._ensemble import ROUNDS, ensemble_selection, out_of_fold
from metarec.automl._methods import ENSEMBLE_METHODS
from metarec.automl._refit import (
    LAST_RESORT_SECONDS,
    planned_refit_seconds,
    refit_answer,
)
from metarec.automl._select import (
    TIE_Z,
    posterior_scores,
    selection_order,
    tied_on_rows,
    tied_with,
)
from metarec.exceptions import InvalidInputError

__all__ = [
    "Answer",
    "AnswerPolicy",
    "FinalAnswer",
    "answer_order",
    "final_answer",
    "SELECTION_METRICS",
    "TIE_MIN_ROWS",
]

#: Rows from which an average leaves out members clearly below the best.
TIE_MIN_ROWS = 3000
#: What the selection maximises for each metric a search selects by (Tau: accuracy, whose
#: argmax it shares; regression's success rate is R² clipped at 0).
SELECTION_METRICS = {
    ("classification", "accuracy"): "accuracy",
    ("classification", "balanced_accuracy"): "balanced_accuracy",
    ("classification", "roc_auc"): "roc_auc",
    ("classification", "tau"): "accuracy",
    ("regression", "accuracy"): "success",
    ("regression", "r2"): "r2",
}


@dataclass(frozen=True)
class Answer:
    """The members a search's answer is made of.

    Parameters
    ----------
    members : tuple of str
        The algorithms wanted, in the order they are refitted (the best first).
    weights : tuple of float
        Each member's weight in the model (they sum to 1; equal for a plain average).
    spares : tuple of str
        Algorithms that take, in order, the place of a member whose refit does not fit the
        time left.
    anchor : str or None
        The knowledge base's single best, when it joins (after the members).
    anchor_weight : float
        The anchor's weight beside the members' (0 without an anchor); the weights of the
        members refitted and of the anchor are normalised to sum to 1.
    left_out : tuple of str
        Algorithms of the first ``ensemble_size`` left out as clearly below the best.
    method : str
        How the members were chosen: ``"best"``, ``"average"`` or ``"selection"``.
    oof_score : float
        The selected ensemble's score on the out-of-fold predictions (NaN: not selected).
    """

    members: tuple[str, ...]
    weights: tuple[float, ...]
    spares: tuple[str, ...] = ()
    anchor: str | None = None
    anchor_weight: float = 0.0
    left_out: tuple[str, ...] = ()
    method: str = "best"
    oof_score: float = float("nan")

    def notes(self, best: str) -> list[str]:
        """What a person is told about the choice (the left-out members, and why)."""
        if not self.left_out:
            return []
        return [
            f"{', '.join(self.left_out)} not averaged: clearly below {best}'s fold scores "
            f"(more than {TIE_Z:g} standard errors of the paired difference)"
        ]


class AnswerPolicy:
    """Choose the members of a search's answer (see the module documentation).

    Parameters
    ----------
    method : {"average", "selection"}, default="average"
        An equal-weight average, or ensemble selection over out-of-fold predictions.
    ensemble_size : int or None, default=None
        Selection: the most distinct members (None: no cap).  Average: how many of the best
        it averages (None: 3).  1: the best alone, either way.
    tie_min_rows : int, default=TIE_MIN_ROWS
        Rows from which members clearly below the best are left out of an average.
    anchor : str, optional
        The knowledge base's single best algorithm: it joins an average.
    rounds : int, default=ROUNDS
        The selection's greedy rounds.
    """

    def __init__(
        self,
        *,
        method: str = "average",
        ensemble_size: int | None = None,
        tie_min_rows: int = TIE_MIN_ROWS,
        anchor=None,
        rounds: int = ROUNDS,
    ) -> None:
        self.method = method
        self.ensemble_size = ensemble_size
        self.tie_min_rows = tie_min_rows
        self.anchor = anchor
        self.rounds = rounds

    def choose(
        self,
        order: Sequence[str],
        fold_scores: Mapping[str, Sequence[float]],
        n_rows: int,
        *,
        predictions: Mapping[str, np.ndarray] | None = None,
        y: np.ndarray | None = None,
        metric: str = "accuracy",
    ) -> Answer:
        """The answer's members among ``order`` (complete algorithms, best first).

        Parameters
        ----------
        order : sequence of str
            The complete algorithms, best first.
        fold_scores : mapping of str to sequence of float
            Each algorithm's fold scores (the same folds for all).
        n_rows : int
            Rows of the data (the average's tie test applies from :attr:`tie_min_rows`).
        predictions : mapping of str to ndarray, optional
            Out-of-fold predictions (see :func:`~metarec.automl._ensemble.out_of_fold`), on
            the rows of ``y``; needed by the selection.
        y : ndarray, optional
            The target of those rows (class codes or values).
        metric : str, default="accuracy"
            What the selection maximises (:func:`~metarec.automl._ensemble.ensemble_score`).

        Returns
        -------
        Answer
            No members when ``order`` is empty.

        Raises
        ------
        InvalidInputError
            An unknown method.
        """
        if self.method not in ENSEMBLE_METHODS:
            raise InvalidInputError(
                f"the answer's method must be one of {', '.join(map(repr, ENSEMBLE_METHODS))}; "
                f"got {self.method!r}"
            )
        order = list(order)
        if not order:
            return Answer((), ())
        if self.ensemble_size == 1:
            return Answer((order[0],), (1.0,), spares=tuple(order[1:]))
        if self.method == "selection":
            return self._selection(order, predictions or {}, y, metric)
        return self._average(order, fold_scores, n_rows, predictions or {}, y)

    def _selection(self, order, predictions, y, metric) -> Answer:
        candidates = [a for a in order if a in predictions]
        if not candidates or y is None or len(y) == 0:
            return Answer((order[0],), (1.0,), spares=tuple(order[1:]))
        selection = ensemble_selection(
            [predictions[a] for a in candidates],
            np.asarray(y),
            metric=metric,
            rounds=self.rounds,
            max_members=self.ensemble_size,
        )
        chosen = np.flatnonzero(selection.counts)
        by_weight = sorted(chosen, key=lambda i: (-selection.counts[i], i))
        members = tuple(candidates[i] for i in by_weight)
        weights = tuple(float(selection.weights[i]) for i in by_weight)
        spares = tuple(a for a in order if a not in members)
        return Answer(
            members, weights, spares=spares, method="selection", oof_score=selection.score
        )

    def _average(self, order, fold_scores, n_rows, predictions=None, y=None) -> Answer:
        size = 3 if self.ensemble_size is None else max(1, int(self.ensemble_size))
        test = n_rows >= self.tie_min_rows and size > 1
        best = fold_scores[order[0]]
        predictions = predictions or {}

        def tied(algorithm: str) -> bool:
            if not test:
                return True
            one_fold = len(best) == 1 and len(fold_scores[algorithm]) == 1
            if one_fold and y is not None and order[0] in predictions and algorithm in predictions:
                # a holdout: the rows of its validation part tell the noise
                return tied_on_rows(predictions[order[0]], predictions[algorithm], y)
            return tied_with(best, fold_scores[algorithm])

        head, rest = order[:size], order[size:]
        members = [order[0]] + [a for a in head[1:] if tied(a)]
        left_out = tuple(a for a in head[1:] if not tied(a))
        spares = tuple(a for a in rest if tied(a)) if size > 1 else tuple(rest)
        anchor = None
        if size > 1 and self.anchor in order and self.anchor not in members:
            if tied(self.anchor):
                anchor = self.anchor
                spares = tuple(a for a in spares if a != anchor)
            elif self.anchor not in left_out:
                left_out = (*left_out, self.anchor)
        weight = 1.0 / (len(members) + (anchor is not None))
        return Answer(
            tuple(members),
            (weight,) * len(members),
            spares=spares,
            anchor=anchor,
            anchor_weight=weight if anchor is not None else 0.0,
            left_out=left_out,
            method="average" if len(members) + (anchor is not None) > 1 else "best",
        )


@dataclass(frozen=True)
class FinalAnswer:
    """The answer of a search, fitted.

    Parameters
    ----------
    model : estimator or None
        The members fitted on every row (one pipeline, or their weighted average); None
        when nothing could be fitted.
    best : str or None
        The best algorithm among the members (the first of them in :func:`answer_order`),
        or the one fitted without evaluation.
    members : tuple of str
        The algorithms fitted, in refit order.
    weights : tuple of float
        Their weights in the model (summing to 1).
    method : str
        ``"best"`` (one member), ``"average"`` or ``"selection"``.
    notes : tuple of str
        What a person is told: what was refitted or left out, and why.
    """

    model: Any
    best: str | None
    members: tuple[str, ...]
    weights: tuple[float, ...]
    method: str
    notes: tuple[str, ...] = ()


def answer_order(state) -> list[str]:
    """The complete trials from best to worst: the answer's order and the leaderboard's.

    Each one's selection score (set on its trial) is its CV mean shrunk toward the
    knowledge base's expectation (:func:`~metarec.automl._select.posterior_scores`); ties go
    to the faster expected fit, then to the first name
    (:func:`~metarec.automl._select.selection_order`).
    """
    complete = [t for t in state.trials.values() if t.complete and t.fold_scores]
    if not complete:
        return []
    posterior = posterior_scores(
        [np.asarray(t.fold_scores) for t in complete],
        np.array([t.expected_score for t in complete]),
        np.array([t.expected_score_low for t in complete]),
        np.array([t.expected_score_high for t in complete]),
    )
    for trial, value in zip(complete, posterior, strict=True):
        state.trials[trial.algorithm] = replace(trial, selection_score=float(value))
    # ties go to the faster expected fit (the knowledge base's: the same on every call),
    # then to the first name; a measured time would make the same seed answer otherwise
    order = selection_order(
        posterior,
        np.array([t.expected_time for t in complete]),
        [t.algorithm for t in complete],
    )
    return [complete[i].algorithm for i in order]


def final_answer(
    state, data, portfolio, settings, *, recommender, name, deadline, refit_scale
) -> FinalAnswer:
    """The search's answer, fitted on every row (see the module documentation).

    Parameters
    ----------
    state : SearchState
        The trials and the jobs' results (their out-of-fold predictions).
    data : RefitData
        The rows evaluated and refitted on (their codes are the out-of-fold target).
    portfolio : Portfolio
        The algorithms the search chose from (what is refitted is built from it).
    settings : RunSettings
        The ensemble method and size, the metric and the seed.
    recommender : Recommender
        Fitted: the anchor is its single best (:meth:`Recommender.single_best`).
    name : str
        The dataset's name in the knowledge base, left out of the single best.
    deadline : float or None
        ``time.perf_counter()`` by which the refits must be done; None after a signal
        (the best alone, if its refit takes about a second; nothing unevaluated).
    refit_scale : float
        Rows of the whole data over rows of a training fold.

    Returns
    -------
    FinalAnswer
    """
    notes: list[str] = []
    order = answer_order(state)
    if order:
        anchor = recommender.single_best(exclude=[name])
        answer = _chosen(order, state, data, settings, anchor)
        model, members, weights, rows = refit_answer(
            answer,
            state.trials,
            data,
            portfolio=portfolio,
            random_state=settings.random_state,
            deadline=deadline,
            refit_scale=refit_scale,
            notes=notes,
        )
        # the best evaluated algorithm among the members (the leaderboard's first of them)
        best = next((a for a in order if a in members), None)
        method = answer.method if len(members) > 1 else "best"
        notes.extend(_notes(answer, members, weights, rows, len(data.codes)))
        return FinalAnswer(model, best, members, weights, method, tuple(notes))
    if deadline is not None:
        model, members, weights = _unevaluated(
            state, data, portfolio, settings, deadline, refit_scale, notes
        )
        if members:
            return FinalAnswer(model, members[0], members, weights, "best", tuple(notes))
        notes.append("no algorithm finished every fold within the budget")
    return FinalAnswer(None, None, (), (), "best", tuple(notes))


def _chosen(order, state, data, settings, anchor) -> Answer:
    """The answer's members (:class:`AnswerPolicy`) among the complete trials ``order``."""
    policy = AnswerPolicy(
        method=settings.ensemble_method, ensemble_size=settings.ensemble_size, anchor=anchor
    )
    codes = np.asarray(data.codes)
    n_classes = 0 if data.labels is None else len(data.labels)
    complete = set(order)
    results = [r for r in (*state.reused, *state.results) if r.algorithm in complete]
    rows, predictions = out_of_fold(results, len(codes), n_classes)
    task = "regression" if n_classes == 0 else "classification"
    return policy.choose(
        order,
        {a: state.trials[a].fold_scores for a in order},
        n_rows=len(codes),
        predictions=predictions,
        y=codes[rows],
        metric=SELECTION_METRICS[(task, settings.metric)],
    )


def _notes(answer, members, weights, rows, n_rows: int) -> list[str]:
    """What a person is told about the answer that was refitted (a member refitted on a
    sample has said so already)."""
    if not members:
        return []
    if any(r != n_rows for r in rows):
        if len(members) == 1:
            return []
        shares = ", ".join(
            f"{m} {w:.2f} on {r:,} rows" for m, w, r in zip(members, weights, rows, strict=True)
        )
        return [f"the answer averages {shares}"]
    if len(members) == 1:
        return [f"{members[0]} refitted on all {n_rows:,} rows"]
    if answer.method == "selection":
        shares = ", ".join(f"{m} {w:.2f}" for m, w in zip(members, weights, strict=True))
        return [
            f"the answer is an ensemble selected on the out-of-fold predictions "
            f"(weights {shares}; out-of-fold score {answer.oof_score:.4f}), each member "
            f"refitted on all {n_rows:,} rows"
        ]
    return [f"the answer averages {', '.join(members)}, each refitted on all {n_rows:,} rows"]


def _unevaluated(state, data, portfolio, settings, deadline, refit_scale, notes):
    """When no algorithm finished its folds in time: the knowledge base's best expectation
    whose refit on every row is expected to fit the time left, fitted without evaluation.

    The trials are taken by expected score, best first (the first ranking's order where
    there is no expectation: another metric); each one's refit is expected to take its
    expected fit time of a fold times ``refit_scale``.  When none fits the time left, the
    best whose refit is expected within :data:`~metarec.automl._refit.LAST_RESORT_SECONDS`
    is fitted anyway (a second over the budget rather than no model).  ``(None, (), ())``
    when not even that exists.
    """
    candidates = [
        t
        for t in state.trials.values()
        if t.status not in ("error",) and np.isfinite(t.expected_time)
    ]
    candidates.sort(
        key=lambda t: (-t.expected_score if np.isfinite(t.expected_score) else 0.0, t.planned)
    )
    left = deadline - time.perf_counter()
    fits = [t for t in candidates if planned_refit_seconds(t.expected_time, refit_scale) <= left]
    if not fits:  # none fits what is left: one expected within a second, a little over
        fits = [t for t in candidates if t.expected_time * refit_scale <= LAST_RESORT_SECONDS]
    for trial in fits:
        expected = {trial.algorithm: replace(trial, fit_time=trial.expected_time)}
        model, members, weights, rows = refit_answer(
            Answer((trial.algorithm,), (1.0,)),
            expected,
            data,
            portfolio=portfolio,
            random_state=settings.random_state,
            deadline=deadline,
            refit_scale=refit_scale,
            notes=notes,
        )
        if members:
            expectation = (
                f"; expected {settings.metric} {trial.expected_score:.3f}"
                if np.isfinite(trial.expected_score)
                else ""
            )
            notes.append(
                f"no algorithm finished every fold within the budget: the answer is "
                f"{trial.algorithm}, the knowledge base's best expectation whose refit fits "
                f"the time left{expectation}, fitted on "
                + ("every row" if rows[0] == len(data.codes) else f"a sample of {rows[0]:,} rows")
                + " without evaluation"
            )
            state.trials[trial.algorithm] = replace(
                state.trials[trial.algorithm],
                message="the answer, fitted without evaluation (no algorithm finished its "
                "folds in time)",
            )
            return model, members, weights
    return None, (), ()
