"""Leave-one-dataset-out evaluation of a :class:`Recommender` against baselines.

For every dataset ``d`` of the knowledge base with at least two usable results, the ranking is
computed from the other datasets (``recommend(metafeatures=mf_d, exclude=[d])``; the learned
strategy's performance model is then refitted without ``d``, so it never sees it) and compared
with what really happened on ``d``.  Only algorithms with a result on ``d`` are compared;
the ranking is restricted to them in its own order.  Accuracy here is the KB's metric with
failed runs counted as the majority-class accuracy (as in the recommender).

Figures, per dataset, then averaged over datasets:

``spearman``
    Spearman's rank correlation between the recommended order and the true A3R ranking of
    ``d`` (algorithms ordered by the mean over competitors of
    :func:`metarec.evaluation.a3r` on ``d``, with the recommender's ``n``).
``top1_loss``, ``top3_loss``
    Best accuracy on ``d`` minus the accuracy of the first recommended algorithm / the best
    of the first three, in percentage points.
``mil`` (mean interval loss)
    Run the recommended algorithms in their run order (``Ranking.run_sequence``: the
    learned strategy's ``run_order``, else the ranking's order; top-1 and top-3 are always
    of the ranking).  A learned ranking's row is therefore a composite of two orders: the
    answer (what to use) and the order it advises to run them in; the figures of its
    ranking alone are the ``metarec (run as ranked)`` row.  After cumulative time ``t``
    the loss is
    ``100 * (best - max(majority, best accuracy among the finished runs))`` (the
    majority-class prediction is available at time 0), a step function of ``t``.  MIL is the
    mean of this loss over ``log t`` on the interval ``[t_lo, t_hi]``, computed exactly
    (integral of the step function over ``log t`` divided by ``log(t_hi / t_lo)``).  The
    interval is the same for every method and dataset of one evaluation: ``t_lo`` = the
    shortest single run time of any evaluated dataset, ``t_hi`` = the longest total time of
    running every algorithm of one dataset.  Curves stay flat after the last run.
``mil_1s`` (MIL on a person's time axis)
    The same mean over ``log t`` on ``[time_origin, max(t_hi, 10 * time_origin)]``, with
    ``time_origin`` = 1 s by default: what finished within the first second counts as done at
    once (a person does not tell 7 ms from 16 ms), while minutes and hours weigh as they do
    for MIL.  The interval's end is at least a decade past the origin, so that a KB whose
    fits all take milliseconds still measures the loss after the first second.
``loss_10s``, ``loss_60s``, ``loss_10min``
    The loss after 10 s, 60 s and 10 min of cumulative fit time (the step function above).
``top1_gap_closed``, ``top3_gap_closed``
    The share of the single-best-to-oracle gap a method closes (the standard measure of
    algorithm selection; ASlib, Lindauer et al. 2019):
    ``(loss_SBS - loss_method) / (loss_SBS - loss_oracle)`` of the mean top-1 / top-3 losses,
    where the oracle's loss is 0 and SBS is the ``single best`` baseline (the algorithm of
    best mean accuracy on the other datasets, left-one-out like every method).  1 is the
    oracle, 0 the single best, negative worse than it; NaN when the single best is perfect.
    Only with the baselines.

Methods evaluated in the same run:

``metarec``        the recommender as configured;
``metarec (run as ranked)``  the same ranking with its time figures of the ranked order
                   (whenever the ranking has a run order: what running the table top down
                   costs);
``AR``             same neighbours, average rank of accuracy (strategy ``"ar"``);
``global AR*``     every dataset, average rank of A3R with the same ``n`` (``k=None``);
``kNN AR*``        the 5 nearest datasets, unweighted average rank of A3R with ``n=16``;
``a3r``            pairwise A3R over the 5 nearest datasets, ``n=32`` (the classic strategy
                   with its former defaults; only when another strategy is evaluated);
``single best``    every dataset, algorithms by mean accuracy (single best first:
                   :func:`~metarec.recommender._matrix.single_best_order`);
``random``         random order, figures averaged over ``n_random`` permutations;
``bound``          best single run that fits within ``t`` (an oracle; MIL only).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from metarec.evaluation import a3r
from metarec.exceptions import InvalidInputError
from metarec.recommender._base import BaseRanker
from metarec.recommender._compare import add_gap_closed
from metarec.recommender._matrix import single_best_order
from metarec.recommender._registry import make_ranker, ranker_class

__all__ = [
    "EvaluationResult",
    "evaluate_recommender",
    "evaluate_active_testing",
    "loss_curve",
    "mean_interval_loss",
    "evaluate_transfer",
]

N_GRID = 200
#: Where a person's time axis starts (seconds): see ``mil_1s`` in the module docstring.
TIME_ORIGIN = 1.0
#: Cumulative fit times (seconds) at which the loss is reported: 10 s, a minute, 10 min.
CHECKPOINTS = {"loss_10s": 10.0, "loss_60s": 60.0, "loss_10min": 600.0}
#: Figures of one (method, dataset), averaged over datasets in the summary.
FIGURES = ("spearman", "top1_loss", "top3_loss", "mil", "mil_1s", *CHECKPOINTS)
#: The recommender's figures when its ranking is run in the ranked order rather than in its
#: run order (evaluated beside it whenever the ranking has a run order).
RUN_AS_RANKED = "metarec (run as ranked)"
#: The classic pairwise A3R ranking as it was shipped before the learned strategy.
A3R_PARAMS = {"k": 5, "n": 32, "weights": "distance"}


@dataclass(frozen=True)
class EvaluationResult:
    """What :func:`evaluate_recommender` measured.

    Parameters
    ----------
    summary : pandas.DataFrame
        One row per method: ``method``, the means of :data:`FIGURES` (``spearman,
        top1_loss, top3_loss, mil, mil_1s, loss_10s, loss_60s, loss_10min``), ``n_datasets``
        and, with the baselines, ``top1_gap_closed`` and ``top3_gap_closed``.
    per_dataset : pandas.DataFrame
        One row per (method, dataset) with the same figures.
    grid : ndarray
        Time grid (seconds, log-spaced over ``[t_lo, t_hi]``) of the curves.
    curves : dict of str to ndarray
        Mean loss (percentage points) over datasets at each grid time, per method.
    t_lo, t_hi : float
        The MIL interval.
    params : dict
        Parameters of the evaluated recommender.
    """

    summary: object
    per_dataset: object
    grid: np.ndarray
    curves: dict = field(default_factory=dict)
    t_lo: float = float("nan")
    t_hi: float = float("nan")
    params: dict = field(default_factory=dict)

    def to_frame(self):
        """The summary table.

        Returns
        -------
        pandas.DataFrame
            :attr:`summary` itself.
        """
        return self.summary


def loss_curve(order_acc, order_time, best, start):
    """Step function of one run-in-order: breakpoints (cumulative times) and losses.

    Returns
    -------
    times : ndarray of shape (m,)
        Cumulative time after each run.
    losses : ndarray of shape (m + 1,)
        Loss before the first run finishes, then after each run (percentage points).
    """
    times = np.cumsum(np.asarray(order_time, dtype=float))
    reached = np.maximum.accumulate(np.concatenate([[start], np.asarray(order_acc, float)]))
    return times, np.maximum(100.0 * (best - reached), 0.0)


def bound_curve(acc, time, best, start):
    """Loss of the best single run that fits within ``t``: breakpoints and losses."""
    order = np.argsort(time, kind="stable")
    times = np.asarray(time, float)[order]
    reached = np.maximum.accumulate(np.concatenate([[start], np.asarray(acc, float)[order]]))
    return times, np.maximum(100.0 * (best - reached), 0.0)


def mean_interval_loss(times, losses, t_lo, t_hi):
    """Exact mean over ``log t`` in ``[t_lo, t_hi]`` of a step function (see module doc)."""
    lo, hi = np.log(t_lo), np.log(t_hi)
    edges = np.clip(np.log(np.maximum(times, 1e-300)), lo, hi)
    bounds = np.concatenate([[lo], edges, [hi]])
    widths = np.diff(np.maximum.accumulate(bounds))
    return float((widths * losses).sum() / (hi - lo))


def _at(grid, times, losses):
    return losses[np.searchsorted(times, grid, side="right")]


def _true_a3r(acc, time, n):
    sr = np.clip(acc, 1e-3, None)
    t = np.clip(time, 1e-4, None)
    ratios = np.asarray(a3r(sr[:, None], sr[None, :], t[:, None], t[None, :], n=n), dtype=float)
    np.fill_diagonal(ratios, np.nan)
    return np.nanmean(ratios, axis=1) if acc.size > 1 else np.ones(acc.size)


def _spearman(order_positions, true_scores):
    from scipy.stats import spearmanr

    if order_positions.size < 2 or np.ptp(true_scores) == 0:
        return float("nan")
    return float(spearmanr(-order_positions, true_scores).statistic)


class _Case:
    """One left-out dataset: its true results and how to score an order of its algorithms."""

    def __init__(self, name, here, acc, time, best, start, true_scores, grid, t_lo, t_hi, origin):
        self.name, self.here, self.acc, self.time = name, here, acc, time
        self.best, self.start, self.true_scores = best, start, true_scores
        self.grid, self.t_lo, self.t_hi = grid, t_lo, t_hi
        self.origin, self.person_hi = origin, max(t_hi, 10.0 * origin)
        self.position = {int(j): p for p, j in enumerate(here)}

    def time_figures(self, times, losses) -> dict:
        """MIL, MIL from the time origin and the losses at the checkpoints of one curve."""
        at = _at(np.asarray(list(CHECKPOINTS.values())), times, losses)
        return {
            "mil": mean_interval_loss(times, losses, self.t_lo, self.t_hi),
            "mil_1s": mean_interval_loss(times, losses, self.origin, self.person_hi),
            **dict(zip(CHECKPOINTS, at.tolist(), strict=True)),
        }

    def local_order(self, algorithm_indices):
        """Positions (in ``here``) of the ranked algorithms that ran, then those not ranked."""
        seen = [self.position[j] for j in algorithm_indices if j in self.position]
        taken = set(seen)
        missing = [p for p in range(self.here.size) if p not in taken]
        return np.asarray(seen + missing, dtype=int)

    def record(self, method, order, run=None):
        """Figures of one method: ``order`` ranks, ``run`` (default ``order``) is run."""
        acc = self.acc
        run = order if run is None else run
        times, losses = loss_curve(acc[run], self.time[run], self.best, self.start)
        row = {
            "method": method,
            "dataset": self.name,
            "spearman": _spearman(np.argsort(order), self.true_scores),
            "top1_loss": 100.0 * (self.best - acc[order[0]]),
            "top3_loss": 100.0 * (self.best - acc[order[:3]].max()),
            **self.time_figures(times, losses),
        }
        return row, _at(self.grid, times, losses)


def _interval(present: np.ndarray, time: np.ndarray):
    """The MIL interval and curve grid of the evaluated datasets' results (see module doc)."""
    tim = np.clip(np.where(present, time, np.nan), 1e-4, None)
    t_lo = float(np.nanmin(tim))
    t_hi = float(np.nanmax(np.nansum(tim, axis=1)))
    if not t_hi > t_lo:
        t_hi = t_lo * 10.0
    return t_lo, t_hi, np.geomspace(t_lo, t_hi, N_GRID)


def _majority(raw) -> np.ndarray:
    """Majority-class accuracy of each dataset from its metafeatures (NaN where unknown)."""
    if "majority_class_pct" in raw.columns:
        return raw["majority_class_pct"].to_numpy(float) / 100.0
    return np.full(len(raw), np.nan)


def _root(ranker) -> float:
    """The root of the true A3R order a case's Spearman is against: the ranker's ``n``, else
    (``"arr"``, ``"ar"``) A3R's default."""
    n = getattr(ranker, "n", None)
    return float(A3R_PARAMS["n"] if n is None else n)


def _case(fitted, i, majority, grid, t_lo, t_hi, time_origin) -> _Case:
    """Dataset ``i`` of a fitted recommender's matrices as a case to score orders on."""
    here = np.flatnonzero(fitted.present_[i])
    acc = fitted.accuracy_[i, here]
    time = np.clip(fitted.time_[i, here], 1e-4, None)
    start = majority[i] if np.isfinite(majority[i]) else 0.0
    best = max(float(acc.max()), start)
    true_scores = _true_a3r(acc, time, _root(fitted))
    name = str(fitted.datasets_[i])
    return _Case(name, here, acc, time, best, start, true_scores, grid, t_lo, t_hi, time_origin)


class _Collected:
    """Per-dataset rows and loss curves of every method, and the summary built from them."""

    def __init__(self) -> None:
        self.rows: list[dict] = []
        self.curves: dict[str, list] = {}

    def add(self, row: dict, curve: np.ndarray) -> None:
        self.rows.append(row)
        self.curves.setdefault(row["method"], []).append(curve)

    def record(self, case: _Case, method: str, order, run=None) -> None:
        self.add(*case.record(method, order, run))

    def record_ranking(self, case: _Case, method: str, ranking, index) -> None:
        """A ranking's figures: top-k of its order, the time figures of its run order.

        ``index`` maps algorithm names to the case's columns; other names are left out.
        The recommender's own ranking (``method="metarec"``) with a run order is also
        recorded as run top down, as :data:`RUN_AS_RANKED`.
        """

        def local(names):
            return case.local_order([index[a] for a in names if a in index])

        order = local(ranking.algorithms)
        if not ranking.run_order:
            self.record(case, method, order)
            return
        self.record(case, method, order, local(ranking.run_order))
        if method == "metarec":
            self.record(case, RUN_AS_RANKED, order)

    def random_and_bound(self, case: _Case, rng, n_random: int) -> None:
        """The ``random`` baseline (mean of ``n_random`` permutations) and the ``bound``."""
        drawn = [case.record("random", rng.permutation(case.here.size)) for _ in range(n_random)]
        row = {"method": "random", "dataset": case.name}
        row.update({key: float(np.nanmean([r[key] for r, _ in drawn])) for key in FIGURES})
        self.add(row, np.mean([c for _, c in drawn], axis=0))
        times, losses = bound_curve(case.acc, case.time, case.best, case.start)
        row = {"method": "bound", "dataset": case.name, "spearman": np.nan}
        row.update({"top1_loss": np.nan, "top3_loss": np.nan})
        row.update(case.time_figures(times, losses))
        self.add(row, _at(case.grid, times, losses))

    def result(self, grid, t_lo, t_hi, params, *, gap: bool) -> EvaluationResult:
        import pandas as pd

        per_dataset = pd.DataFrame(self.rows)
        order = list(dict.fromkeys(per_dataset["method"]))
        summary = (
            per_dataset.groupby("method", sort=False)
            .agg(**{f: (f, "mean") for f in FIGURES}, n_datasets=("dataset", "nunique"))
            .reindex(order)
            .reset_index()
        )
        return EvaluationResult(
            summary=add_gap_closed(summary) if gap else summary,
            per_dataset=per_dataset,
            grid=grid,
            curves={m: np.mean(c, axis=0) for m, c in self.curves.items()},
            t_lo=t_lo,
            t_hi=t_hi,
            params=params,
        )


def evaluate_recommender(
    matrix,
    ranker=None,
    *,
    baselines: bool = True,
    datasets=None,
    extra_exclude=(),
    n_random: int = 20,
    random_state=0,
    progress=None,
    fitted: bool = False,
    time_origin: float = TIME_ORIGIN,
):
    """Leave-one-dataset-out evaluation of a ranker and the baselines (see module doc).

    Parameters
    ----------
    matrix : PerformanceMatrix or None
        The knowledge base's results of one task (:meth:`PerformanceMatrix.from_kb`); None
        with ``fitted=True`` (the ranker's own).
    ranker : BaseRanker or str, optional
        The ranker to evaluate (unfitted, or fitted on ``matrix`` with ``fitted=True``), or
        a strategy's name; default the learned strategy with the matrix's task's defaults.
    baselines : bool, default=True
        Also evaluate AR, global AR*, single best, random and the bound.
    datasets : iterable of str, optional
        Datasets to leave out in turn (default: all).
    extra_exclude : iterable of str, default=()
        Datasets excluded from the KB for every recommendation (nested evaluation).
    n_random : int, default=20
        Permutations averaged for the random baseline.
    random_state : int or None, default=0
        Seed of the random baseline.
    progress : callable, optional
        ``progress(n=1, total=None)`` called once per dataset.
    fitted : bool, default=False
        ``ranker`` is already fitted on ``matrix``: do not refit.
    time_origin : float, default=1.0
        Start of a person's time axis, in seconds (``mil_1s``; see the module docstring).

    Returns
    -------
    EvaluationResult
    """
    if not (np.isfinite(time_origin) and time_origin > 0):
        raise InvalidInputError(
            f"time_origin must be a positive number of seconds; got {time_origin!r}"
        )
    rec = _fitted_ranker(matrix, ranker, fitted, "evaluate_recommender")
    methods = {"metarec": rec}
    if baselines:
        methods["AR"] = _like(rec, "ar")
        methods["global AR*"] = _like(rec, "ar*", k=None, weights=None)
        methods["kNN AR*"] = _like(rec, "ar*", k=5, n=16, weights=None)
        if rec.strategy != "a3r":
            methods["a3r"] = _like(rec, "a3r", **A3R_PARAMS)
    names = (
        rec.datasets_ if datasets is None else np.asarray([str(d) for d in datasets], dtype=object)
    )
    unknown = [d for d in names if d not in rec.dataset_index_]
    if unknown:
        raise InvalidInputError(f"dataset(s) not in the knowledge base: {', '.join(unknown[:5])}")
    extra = [str(d) for d in ([extra_exclude] if isinstance(extra_exclude, str) else extra_exclude)]
    test = [d for d in names if rec.present_[rec.dataset_index_[d]].sum() >= 2 and d not in extra]
    if not test:
        raise InvalidInputError("no dataset has results of two or more algorithms to evaluate on")
    idx = np.array([rec.dataset_index_[d] for d in test])
    t_lo, t_hi, grid = _interval(rec.present_[idx], rec.time_[idx])
    rng = np.random.default_rng(random_state)
    kept = ~np.isin(rec.datasets_.astype(str), extra)  # what the single best learns from
    raw = rec.raw_metafeatures_
    majority = _majority(raw)

    collected = _Collected()
    for d in test:
        i = rec.dataset_index_[d]
        case = _case(rec, i, majority, grid, t_lo, t_hi, time_origin)
        query = {c: v for c, v in raw.iloc[i].items() if np.isfinite(v)}
        exclude = [d, *extra]
        for method, model in methods.items():
            ranking = model.rank(query, exclude=exclude)
            collected.record_ranking(case, method, ranking, model.algorithm_index_)
        if baselines:
            rows = kept.copy()
            rows[i] = False
            order = single_best_order(rec.accuracy_[rows], rec.present_[rows])
            collected.record(case, "single best", case.local_order(order))
            collected.random_and_bound(case, rng, max(1, n_random))
        if progress is not None:
            progress(1)
    return collected.result(grid, t_lo, t_hi, rec.get_params(), gap=baselines)


def evaluate_transfer(
    source,
    target,
    ranker=None,
    *,
    n_random: int = 20,
    random_state=0,
    time_origin: float = TIME_ORIGIN,
    fitted: bool = False,
):
    """How recommendations learned on one knowledge base fare on another's datasets.

    The ranker (and every baseline) is fitted on ``source`` once; each dataset of
    ``target`` with results of two or more algorithms is then a new dataset: it is ranked
    from its metafeatures alone and the order is scored against what really happened on it,
    with the figures of :func:`evaluate_recommender` (algorithms the source does not know
    come last, in the target's order).  Transfer is what a user meets: data unlike the
    knowledge base's, where leave-one-dataset-out within one collection can be optimistic.

    Parameters
    ----------
    source, target : PerformanceMatrix
        Where the ranker learns, and where it is scored (``source`` may be None with
        ``fitted=True``).
    ranker : BaseRanker or str, optional
        Default the learned strategy with the source's task's defaults; fitted on
        ``source`` unless ``fitted=True``.
    n_random, random_state, time_origin
        As for :func:`evaluate_recommender`.
    fitted : bool, default=False
        ``ranker`` is already fitted on ``source``.

    Returns
    -------
    EvaluationResult
        Methods ``metarec`` (and ``metarec (run as ranked)`` when its ranking has a run
        order), ``AR``, ``global AR*``, ``single best`` (the source's best mean
        accuracy), ``random`` and ``bound``, with the gap closed against that single best.
    """
    rec = _fitted_ranker(source, ranker, fitted, "evaluate_transfer")
    target = _as_matrix(target, rec, "evaluate_transfer")
    truth = make_ranker("ar", k=None).fit(target)  # the target's result matrices
    methods = {
        "metarec": rec,
        "AR": _like(rec, "ar"),
        "global AR*": _like(rec, "ar*", k=None, weights=None),
    }
    source_rank = {
        str(rec.algorithms_[j]): r
        for r, j in enumerate(single_best_order(rec.accuracy_, rec.present_))
    }
    test = np.flatnonzero(truth.present_.sum(axis=1) >= 2)
    if test.size == 0:
        raise InvalidInputError("no target dataset has results of two or more algorithms")
    t_lo, t_hi, grid = _interval(truth.present_[test], truth.time_[test])
    rng = np.random.default_rng(random_state)
    raw = truth.raw_metafeatures_
    majority = _majority(raw)
    collected = _Collected()
    for i in test:
        case = _case(truth, i, majority, grid, t_lo, t_hi, time_origin)
        query = {c: v for c, v in raw.iloc[i].items() if np.isfinite(v)}
        for method, model in methods.items():
            ranking = model.rank(query)
            collected.record_ranking(case, method, ranking, truth.algorithm_index_)
        names = [str(truth.algorithms_[j]) for j in case.here]
        by_source = sorted(
            range(case.here.size), key=lambda p: (source_rank.get(names[p], np.inf), p)
        )
        collected.record(case, "single best", np.asarray(by_source, dtype=int))
        collected.random_and_bound(case, rng, max(1, n_random))
    return collected.result(grid, t_lo, t_hi, rec.get_params(), gap=True)


#: Parameters every strategy's ranker takes (kept by the baselines of an evaluation).
SHARED = ("k", "n", "normalize", "distance", "weights", "features", "tried_scale", "random_state")


def _like(ranker: BaseRanker, strategy: str, **params) -> BaseRanker:
    """A ranker of ``strategy`` with ``ranker``'s shared parameters and ``params``, fitted on
    ``ranker``'s matrix (no second runtime fit: :meth:`BaseRanker.fit_like`)."""
    accepted = set(ranker_class(strategy)._get_param_names())
    shared = {p: getattr(ranker, p) for p in SHARED if p in accepted and hasattr(ranker, p)}
    if strategy == "ar" or shared.get("n", 0) is None:  # "ar*" keeps its own root
        shared.pop("n", None)
    other = make_ranker(strategy, task=getattr(ranker, "task_", "classification"))
    return other.set_params(**{**shared, **params}).fit_like(ranker)


def _as_matrix(data, ranker, where: str, stacklevel: int = 3, read: bool = True):
    """``data`` as a performance matrix; a knowledge base (the former spelling) is read
    with the metric, time and task of ``ranker`` (a Recommender's, or a fitted ranker's),
    unless ``read`` is false (only the warning then)."""
    from metarec.recommender._matrix import PerformanceMatrix

    if data is None or isinstance(data, PerformanceMatrix):
        return data
    import warnings

    warnings.warn(
        f"{where} takes a PerformanceMatrix (PerformanceMatrix.from_kb(kb, task=...)) and a "
        "ranker; a knowledge base is deprecated and will be refused in the next release",
        FutureWarning,
        stacklevel=stacklevel,
    )
    if not read:
        return None
    metric = getattr(ranker, "metric", None) or getattr(ranker, "metric_", "accuracy")
    time = getattr(ranker, "time", None) or getattr(ranker, "time_column_", "fit_time")
    task = getattr(ranker, "task", None)
    task = task if task in ("classification", "regression") else None
    if task is None and hasattr(ranker, "task_"):
        task = ranker.task_
    return PerformanceMatrix.from_kb(data, metric=metric, time=time, task=task)


def _fitted_ranker(matrix, ranker, fitted: bool, where: str) -> BaseRanker:
    """The ranker to evaluate, fitted on ``matrix`` (see :func:`evaluate_recommender`)."""
    from sklearn.base import clone

    from metarec.recommender._ranker import Recommender

    legacy = ranker if isinstance(ranker, Recommender) else None
    if fitted and matrix is not None:  # the fitted ranker's own matrix is used: not read
        _as_matrix(matrix, None, where, stacklevel=4, read=False)
        matrix = None
    matrix = _as_matrix(matrix, legacy, where, stacklevel=4)  # the caller of ``where``
    if legacy is not None:  # a Recommender: its ranker (fitted, when it is)
        ranker = legacy.__dict__.get("ranker_") if fitted else legacy._unfitted_ranker()
    if ranker is None or isinstance(ranker, str):
        task = matrix.task if matrix is not None else "classification"
        ranker = make_ranker(ranker or "learned", task=task)
    if not isinstance(ranker, BaseRanker):
        raise InvalidInputError(
            f"{where} takes a ranker (LearnedRanker(), A3RRanker(), ...) or a strategy's name; "
            f"got {type(ranker).__name__}"
        )
    if fitted:
        ranker._check_fitted()
        return ranker
    if matrix is None:
        raise InvalidInputError(f"{where} needs a PerformanceMatrix to fit the ranker on")
    return clone(ranker).fit(matrix)


def evaluate_active_testing(
    matrix,
    ranker=None,
    *,
    steps: int = 4,
    datasets=None,
    extra_exclude=(),
    fitted: bool = False,
):
    """Does re-ranking after each result (``tried=``) help?  Leave-one-dataset-out.

    For every dataset ``d``, two sequences of ``steps`` algorithms are run on it: *static*
    follows the initial ranking; *active* runs the first recommended algorithm, then asks
    ``recommend(..., tried=results so far)`` for the next one, and so on.  Both use only
    algorithms that ran on ``d`` and the KB without ``d`` (and without ``extra_exclude``).

    Parameters
    ----------
    matrix : PerformanceMatrix or None
        The knowledge base's results (None with ``fitted=True``).
    ranker : BaseRanker or str, optional
        As for :func:`evaluate_recommender`.
    steps : int, default=4
        Algorithms run on each dataset.
    datasets : iterable of str, optional
        Datasets to leave out in turn (default: all).
    extra_exclude : iterable of str, default=()
        Datasets excluded from the KB for every recommendation.
    fitted : bool, default=False
        ``ranker`` is already fitted on ``matrix``.

    Returns
    -------
    pandas.DataFrame
        One row per step: ``step``, mean ``static_loss`` and ``active_loss`` (best accuracy
        minus best reached so far, percentage points), mean cumulative ``static_time`` and
        ``active_time`` (seconds), and ``n_datasets``.
    """
    import pandas as pd

    if steps < 1:
        raise InvalidInputError(f"steps must be >= 1; got {steps!r}")
    rec = _fitted_ranker(matrix, ranker, fitted, "evaluate_active_testing")
    raw = rec.raw_metafeatures_
    extra = [str(d) for d in ([extra_exclude] if isinstance(extra_exclude, str) else extra_exclude)]
    names = rec.datasets_ if datasets is None else [str(d) for d in datasets]
    keys = ("static_loss", "active_loss", "static_time", "active_time")
    results = {key: np.zeros(steps) for key in keys}
    n = 0
    for d in names:
        i = rec.dataset_index_[d]
        ran = rec.present_[i]
        if ran.sum() < 2 or d in extra:
            continue
        n += 1
        query = {c: v for c, v in raw.iloc[i].items() if np.isfinite(v)}
        best = np.nanmax(np.where(ran, rec.accuracy_[i], np.nan))
        exclude = [d, *extra]
        static = _runnable(rec, rec.rank(query, exclude=exclude), ran, set())
        static = static[:steps]
        active: list[int] = []
        for _ in range(min(steps, int(ran.sum()))):
            tried = {rec.algorithms_[j]: (rec.accuracy_[i, j], rec.time_[i, j]) for j in active}
            ranking = rec.rank(query, exclude=exclude, tried=tried or None)
            active.append(_runnable(rec, ranking, ran, set(active))[0])
        for name, seq in (("static", static), ("active", active)):
            seq = seq + [seq[-1]] * (steps - len(seq))
            reached = np.maximum.accumulate(rec.accuracy_[i, seq])
            results[f"{name}_loss"] += 100.0 * (best - reached)
            results[f"{name}_time"] += np.cumsum(rec.time_[i, seq])
    if n == 0:
        raise InvalidInputError("no dataset has results of two or more algorithms to evaluate on")
    frame = pd.DataFrame({key: value / n for key, value in results.items()})
    frame.insert(0, "step", np.arange(1, steps + 1))
    frame["n_datasets"] = n
    return frame


def _runnable(rec, ranking, ran, done):
    """Indices of the ranked algorithms that ran on the dataset and are not done yet."""
    out = []
    for name in ranking.algorithms:
        j = rec.algorithm_index_[name]
        if ran[j] and j not in done:
            out.append(j)
    return out
