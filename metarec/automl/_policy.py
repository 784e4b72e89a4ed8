"""What a search answers: which of the evaluated algorithms make the model, with what weights.

One pure rule (:class:`AnswerPolicy`), apart from the budgeted refit that fits the members
on every row (:func:`metarec.automl._refit.refit_answer`): it reads the complete trials of a
search, ranked best first, and returns an :class:`Answer`, the members wanted in the order
they are to be refitted and the ones that may take the place of a member whose refit does
not fit the time left.

The rule, by ``method``:

- ``"selection"``: greedy ensemble selection over the evaluated algorithms'
  out-of-fold predictions on the user's data (:mod:`metarec.automl._ensemble`: sorted
  initialisation with the best, a fixed number of rounds with replacement, weights =
  counts); ``ensemble_size`` caps the number of distinct members (None: no cap; 1: the best
  alone).  The members are refitted by weight, the heaviest first; the rest of the order
  are spares.  Algorithms whose predictions are not at hand (folds reused from the
  knowledge base) are not candidates; with no predictions at all, the best alone.
- ``"average"`` (the default: on small data selection fits the noise of the out-of-fold
  predictions, ``docs/benchmarks/run-ensemble.md``): an equal-weight average;
- ``ensemble_size == 1``: the best alone;
- an average of ``ensemble_size`` (2 or more): the best ones of the order; on data of
  :data:`TIE_MIN_ROWS` rows or more a member after the first joins only when its fold scores
  are tied with the best's within the folds' noise (:func:`~metarec.automl._select.tied_with`:
  there an algorithm clearly below the best is simply worse, and averaging it in costs
  accuracy), and one left out keeps its place (the next one down the order is further from
  the best still); below that size every member joins (five small folds do not tell a worse
  model from a different one: ``benchmarks/run_answer_choice.py``);
- an average also takes the knowledge base's single best algorithm (the ``anchor``), when it
  completed, is not a member already and passes the same tie test: the constant answer a
  recommendation must not lose to is part of the vote.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from metarec.automl._ensemble import ROUNDS, ensemble_selection
from metarec.automl._select import TIE_Z, tied_with
from metarec.exceptions import InvalidInputError

__all__ = ["Answer", "AnswerPolicy", "TIE_MIN_ROWS"]

#: Rows from which an average leaves out members clearly below the best.
TIE_MIN_ROWS = 3000


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
            Out-of-fold predictions (see :func:`metarec.automl._ensemble.out_of_fold`), on
            the rows of ``y``; needed by the selection.
        y : ndarray, optional
            The target of those rows (class codes or values).
        metric : str, default="accuracy"
            What the selection maximises (:func:`metarec.automl._ensemble.ensemble_score`).

        Returns
        -------
        Answer
            No members when ``order`` is empty.

        Raises
        ------
        InvalidInputError
            An unknown method.
        """
        if self.method not in ("selection", "average"):
            raise InvalidInputError(
                f"the answer's method must be 'selection' or 'average'; got {self.method!r}"
            )
        order = list(order)
        if not order:
            return Answer((), ())
        if self.ensemble_size == 1:
            return Answer((order[0],), (1.0,), spares=tuple(order[1:]))
        if self.method == "selection":
            return self._selection(order, predictions or {}, y, metric)
        return self._average(order, fold_scores, n_rows)

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

    def _average(self, order, fold_scores, n_rows) -> Answer:
        size = 3 if self.ensemble_size is None else max(1, int(self.ensemble_size))
        test = n_rows >= self.tie_min_rows and size > 1
        best = fold_scores[order[0]]

        def tied(algorithm: str) -> bool:
            return not test or tied_with(best, fold_scores[algorithm])

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
            left_out=left_out,
            method="average" if len(members) + (anchor is not None) > 1 else "best",
        )
