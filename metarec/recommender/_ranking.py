"""The records a recommendation returns: a :class:`Ranking` of algorithms and its neighbours.

Records are frozen dataclasses so that they can be passed between layers (library, CLI,
evaluation) without being modified on the way.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field

from metarec.exceptions import InvalidInputError

__all__ = ["RankedAlgorithm", "Neighbour", "Ranking"]


def metric_label(metric: str, task: str | None) -> str:
    """What a ranking's success rate is called in words: ``"R²"`` for regression's
    ``accuracy`` (R² clipped at 0), else the metric's own name."""
    return "R²" if task == "regression" and metric == "accuracy" else str(metric)


@dataclass(frozen=True)
class RankedAlgorithm:
    """One algorithm of a ranking.

    Parameters
    ----------
    algorithm : str
        Algorithm name, as stored in the knowledge base.
    score : float
        The ranking score.  For ``method="a3r"`` and ``"arr"`` the mean, over competitors, of
        the geometric mean over neighbours of the pairwise ratio (higher is better, 1 is
        "as good as the average competitor"); for ``"ar"`` and ``"ar*"`` the average rank
        (lower is better).  NaN when no neighbour has a result for the algorithm.
    rank : int
        Position in the ranking, 1 = try first.
    expected_accuracy : float
        Similarity-weighted mean of the metric over the neighbours that ran the algorithm
        (failed runs count as the majority-class accuracy).
    expected_time : float
        Similarity-weighted geometric mean of the training time (seconds) over those neighbours.
    n_datasets : int
        Number of neighbours with a result for the algorithm: the evidence the score rests on.
    n_failed : int
        How many of those results are failed or timed-out runs.
    expected_accuracy_low, expected_accuracy_high : float
        The lowest and highest accuracy of the algorithm among those neighbours: the spread
        of the evidence, not a confidence interval (NaN without evidence).
    basis : str
        What the position rests on: ``"planner"`` (chosen by the loss-time planner from the
        neighbours' accuracies and times, by default shrunk toward every dataset of the
        knowledge base and the model's prediction: ``prior_weight``, ``model_weight``),
        ``"model"`` (the learned performance model's
        predicted A3R order), ``"neighbours"`` (the classic strategies' aggregation over the
        neighbours), ``"answer"`` (the best expected accuracy), ``"single best"`` (the
        knowledge base's single best, first because the answer did not stand out of its
        error: ``answer_margin``), ``"budget plan"`` or ``"stored results"``.
    expected_time_low, expected_time_high : float
        The 80 % interval of the expected time (NaN when unknown).
    configuration : str or None
        In a ranking by algorithm (:meth:`Ranking.by_algorithm`), the algorithm's
        configuration ranked first (its default's own name when the default is); None in a
        ranking of every configuration.
    """

    algorithm: str
    score: float
    rank: int
    expected_accuracy: float
    expected_time: float
    n_datasets: int
    n_failed: int = 0
    expected_accuracy_low: float = float("nan")
    expected_accuracy_high: float = float("nan")
    basis: str = "neighbours"
    expected_time_low: float = float("nan")
    expected_time_high: float = float("nan")
    configuration: str | None = None


@dataclass(frozen=True)
class Neighbour:
    """A dataset of the knowledge base used to build a ranking.

    Parameters
    ----------
    name : str
        Dataset name.
    distance : float
        Distance to the new dataset in metafeature space (see :mod:`metarec.recommender`).
    weight : float
        Weight of the dataset in the aggregation (1 unless similarity weights or active
        testing re-weighting are used).
    n_features_compared : int
        Number of metafeatures available for both datasets.
    """

    name: str
    distance: float
    weight: float
    n_features_compared: int = 0


@dataclass(frozen=True)
class Ranking:
    """An ordered recommendation, with the evidence behind it.

    Parameters
    ----------
    entries : tuple of RankedAlgorithm
        Algorithms in the recommended order.
    neighbours : tuple of Neighbour
        Datasets the ranking was computed from, nearest first.
    method : str
        Ranking strategy (``"learned"``, ``"a3r"``, ``"arr"``, ``"ar"``, ``"ar*"``).
    metric, time : str
        Names of the performance and time columns used.
    budget : float or None
        Time budget in seconds, when the ranking is a budgeted plan.
    tried : tuple of str
        Algorithms already run on the new dataset (dropped from the ranking).
    plan : tuple of (float, float)
        For budgeted plans only: for each entry, the expected cumulative time and the expected
        loss (percentage points below the best neighbour accuracy) after running it.
    score_name : str
        What ``score`` is (the table's column name).
    time_note : str
        Why the expected times deserve caution (a dataset far larger than the knowledge
        base's); "" when they do not.  :meth:`explain` ends with it.
    task : {"classification", "regression"}
        The task ranked for: what :meth:`explain` calls the success rate (accuracy, or R²
        clipped at 0).
    run_order : tuple of str
        The same algorithms in the order to run them one after the other to have a good
        model soonest, when it differs from the ranking's (the learned strategy's
        ``run_floor``): the ranking puts first the algorithm to use (the answer), which may
        be a slow one; the run order puts first what reaches a low loss quickly.  Empty:
        run them in the ranking's order.  :attr:`run_sequence` is either.
    """

    entries: tuple[RankedAlgorithm, ...]
    neighbours: tuple[Neighbour, ...] = ()
    method: str = "a3r"
    metric: str = "accuracy"
    time: str = "fit_time"
    budget: float | None = None
    tried: tuple[str, ...] = ()
    plan: tuple[tuple[float, float], ...] = field(default=())
    score_name: str = "score"
    time_note: str = ""
    task: str = "classification"
    run_order: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.run_order and sorted(self.run_order) != sorted(self.algorithms):
            raise InvalidInputError(
                "run_order must hold the ranking's algorithms, each once; got "
                f"{len(self.run_order)} name(s) for {len(self.entries)} entries"
            )

    @property
    def algorithms(self) -> list[str]:
        """Algorithm names in the recommended order."""
        return [entry.algorithm for entry in self.entries]

    @property
    def run_sequence(self) -> list[str]:
        """Algorithm names in the order to run them (:attr:`run_order`, else the ranking's)."""
        return list(self.run_order) if self.run_order else self.algorithms

    def __len__(self) -> int:
        return len(self.entries)

    def __iter__(self) -> Iterator[RankedAlgorithm]:
        return iter(self.entries)

    def __getitem__(self, index: int) -> RankedAlgorithm:
        return self.entries[index]

    def by_algorithm(self) -> Ranking:
        """The ranking with each algorithm's configurations folded into one row.

        A configuration ``<algorithm>_cNN`` (the naming rule of the configurations) belongs
        to ``<algorithm>``; every algorithm keeps the row of its configuration ranked first
        (its default or one of the configurations), under the algorithm's name, with that
        configuration named in :attr:`RankedAlgorithm.configuration`.  Ranks are renumbered
        and the run order keeps each algorithm at its first configuration's place.  A
        ranking without configurations, or a budgeted plan (a sequence of runs whose
        cumulative times count every row), is returned as it is.

        Returns
        -------
        Ranking
        """
        import dataclasses

        from metarec._names import configuration_base

        def family(name: str) -> str:
            return configuration_base(name) or name

        if self.plan or all(configuration_base(e.algorithm) is None for e in self.entries):
            return self
        kept: dict[str, RankedAlgorithm] = {}
        for entry in self.entries:
            kept.setdefault(family(entry.algorithm), entry)
        entries = tuple(
            dataclasses.replace(e, algorithm=name, rank=i + 1, configuration=e.algorithm)
            for i, (name, e) in enumerate(kept.items())
        )
        run_order = tuple(dict.fromkeys(family(a) for a in self.run_order))
        tried = tuple(dict.fromkeys(family(a) for a in self.tried))
        return dataclasses.replace(self, entries=entries, run_order=run_order, tried=tried)

    def to_frame(self):
        """The ranking as a DataFrame.

        Returns
        -------
        pandas.DataFrame
            Columns ``algorithm, score, rank, run, expected_accuracy,
            expected_accuracy_low, expected_accuracy_high, expected_time, expected_time_low,
            expected_time_high, n_datasets, n_failed, basis`` (``run``: position in
            :attr:`run_sequence`; ``n_datasets`` = supporting datasets), ``configuration``
            after ``algorithm`` in a ranking by algorithm (:meth:`by_algorithm`) and, for
            budgeted plans, ``cumulative_time`` and ``expected_loss``.
        """
        import pandas as pd

        run = {name: i + 1 for i, name in enumerate(self.run_sequence)}

        frame = pd.DataFrame(
            {
                "algorithm": [e.algorithm for e in self.entries],
                "score": [float(e.score) for e in self.entries],
                "rank": [int(e.rank) for e in self.entries],
                "run": [run[e.algorithm] for e in self.entries],
                "expected_accuracy": [float(e.expected_accuracy) for e in self.entries],
                "expected_accuracy_low": [float(e.expected_accuracy_low) for e in self.entries],
                "expected_accuracy_high": [float(e.expected_accuracy_high) for e in self.entries],
                "expected_time": [float(e.expected_time) for e in self.entries],
                "expected_time_low": [float(e.expected_time_low) for e in self.entries],
                "expected_time_high": [float(e.expected_time_high) for e in self.entries],
                "n_datasets": [int(e.n_datasets) for e in self.entries],
                "n_failed": [int(e.n_failed) for e in self.entries],
                "basis": [e.basis for e in self.entries],
            }
        )
        if any(e.configuration is not None for e in self.entries):
            frame.insert(1, "configuration", [e.configuration for e in self.entries])
        if self.plan:
            frame["cumulative_time"] = [p[0] for p in self.plan]
            frame["expected_loss"] = [p[1] for p in self.plan]
        return frame

    def neighbours_frame(self):
        """The neighbours as a DataFrame with columns ``name, distance, weight, n_features_compared``.

        Returns
        -------
        pandas.DataFrame
            One row per neighbour, nearest first.
        """
        import pandas as pd

        return pd.DataFrame(
            {
                "name": [nb.name for nb in self.neighbours],
                "distance": [float(nb.distance) for nb in self.neighbours],
                "weight": [float(nb.weight) for nb in self.neighbours],
                "n_features_compared": [int(nb.n_features_compared) for nb in self.neighbours],
            }
        )

    def explain(self) -> str:
        """One paragraph saying what the ranking rests on.

        Returns
        -------
        str
            The method, the neighbours and the evidence behind the first algorithm (or why
            nothing is ranked), ending with :attr:`time_note` when there is one.
        """
        if not self.entries:
            if self.tried:
                return (
                    f"Nothing left to rank: every algorithm with results is already tried "
                    f"({', '.join(self.tried)})."
                )
            if self.budget is not None:
                return f"No algorithm is expected to finish within the budget of {self.budget:g} s."
            return "No algorithm has results on the neighbouring datasets."
        top = self.entries[0]
        names = ", ".join(nb.name for nb in self.neighbours[:5])
        more = "" if len(self.neighbours) <= 5 else f" and {len(self.neighbours) - 5} more"
        evidence = (
            f"{top.n_datasets} dataset(s)"
            if not math.isnan(top.score)
            else "no dataset (no evidence)"
        )
        score = metric_label(self.metric, self.task)
        if self.budget is not None:
            expected = " and the performance model's" if self.method == "learned" else ""
            text = (
                f"A plan for a budget of {self.budget:g} s: the algorithms to run, in this "
                "order, each the one of most expected loss removed per expected second among "
                f"those that still fit, from the expectations of {len(self.neighbours)} "
                f"neighbouring dataset(s) ({names}{more}){expected}; the first step is "
                f"{top.algorithm} ({evidence} ran it; predicted {score} "
                f"{top.expected_accuracy:.3f}, time {top.expected_time:.3g} s). What to use "
                "is the first row of the ranking without a budget."
            )
            if self.tried:
                text += f" Already tried: {', '.join(self.tried)}."
            if self.time_note:
                text += f" {self.time_note}"
            return text
        if self.method == "learned":
            planned = [i + 1 for i, e in enumerate(self.entries) if e.basis == "planner"]
            where = (
                f"position{'s' if len(planned) > 1 else ''} {_spans(planned)} chosen by the "
                "loss-time planner from "
                if planned
                else "evidence from "
            )
            text = (
                f"Ranked by the learned performance model (predicted A3R order from the "
                f"metafeatures); {where}{len(self.neighbours)} neighbouring dataset(s) "
                f"({names}{more}); the first choice, {_named(top)}, is "
                f"{_BASIS.get(top.basis, top.basis).format(score=score)}"
                f" ({evidence} ran it; predicted {score} {top.expected_accuracy:.3f}, "
                f"time {top.expected_time:.3g} s)."
            )
        else:
            text = (
                f"Ranked by {self.method} over {len(self.neighbours)} neighbouring dataset(s) "
                f"({names}{more}); the first choice, {_named(top)}, rests on {evidence}."
            )
        if self.run_order and list(self.run_order) != self.algorithms:
            first = ", ".join(self.run_order[:3]) + (", ..." if len(self.run_order) > 3 else "")
            text += (
                f" To have a good model soonest, run them in the order of the run column ({first})."
            )
        if self.tried:
            text += f" Already tried: {', '.join(self.tried)}."
        if self.time_note:
            text += f" {self.time_note}"
        return text


#: What the first choice of a learned ranking is, by its basis.
_BASIS = {
    "answer": "the best expected {score}",
    "single best": (
        "the knowledge base's single best, kept first because the model's answer (second) "
        "is not expected to beat it by more than its own error"
    ),
    "planner": "the loss-time planner's first pick",
    "model": "the performance model's first",
    "neighbours": "the neighbours' first",
}


def _named(entry: RankedAlgorithm) -> str:
    """``lightgbm`` or, by algorithm, ``lightgbm (configuration lightgbm_c07)``."""
    if entry.configuration and entry.configuration != entry.algorithm:
        return f"{entry.algorithm} (configuration {entry.configuration})"
    return entry.algorithm


def _spans(positions: list[int]) -> str:
    """``[2, 3, 4, 5, 7]`` -> ``"2-5, 7"``: ascending positions as runs."""
    runs: list[list[int]] = []
    for p in positions:
        if runs and p == runs[-1][1] + 1:
            runs[-1][1] = p
        else:
            runs.append([p, p])
    return ", ".join(f"{a}-{b}" if b > a else f"{a}" for a, b in runs)
