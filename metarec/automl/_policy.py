"""What a search answers: which of the evaluated algorithms make the model, with what weights.

One pure rule (:class:`AnswerPolicy`), apart from the budgeted refit that fits the members
on every row (:func:`metarec.automl._refit.refit_answer`): it reads the complete trials of a
search, ranked best first, and returns an :class:`Answer`, the members wanted in the order
they are to be refitted and the ones that may take the place of a member whose refit does
not fit the time left.

The rule:

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

from metarec.automl._select import TIE_Z, tied_with

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
    """

    members: tuple[str, ...]
    weights: tuple[float, ...]
    spares: tuple[str, ...] = ()
    anchor: str | None = None
    left_out: tuple[str, ...] = ()

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
    ensemble_size : int, default=1
        How many of the best algorithms the answer averages (1: the best alone).
    tie_min_rows : int, default=TIE_MIN_ROWS
        Rows from which members clearly below the best are left out of an average.
    anchor : str, optional
        The knowledge base's single best algorithm: it joins an average.
    """

    def __init__(
        self, *, ensemble_size: int = 1, tie_min_rows: int = TIE_MIN_ROWS, anchor=None
    ) -> None:
        self.ensemble_size = ensemble_size
        self.tie_min_rows = tie_min_rows
        self.anchor = anchor

    def choose(
        self, order: Sequence[str], fold_scores: Mapping[str, Sequence[float]], n_rows: int
    ) -> Answer:
        """The answer's members among ``order`` (complete algorithms, best first).

        Parameters
        ----------
        order : sequence of str
            The complete algorithms, best first.
        fold_scores : mapping of str to sequence of float
            Each algorithm's fold scores (the same folds for all).
        n_rows : int
            Rows of the data (the tie test applies from :attr:`tie_min_rows`).

        Returns
        -------
        Answer
            No members when ``order`` is empty.
        """
        order = list(order)
        if not order:
            return Answer((), ())
        size = max(1, int(self.ensemble_size))
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
        )
