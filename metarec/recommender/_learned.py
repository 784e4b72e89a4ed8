"""The learned strategy: performance model predictions, planner evidence and the final order.

Functions of a fitted :class:`~metarec.recommender.Recommender` (``rec``), kept apart from
the classic strategies of :mod:`metarec.recommender._ranker`.

Planner evidence
    The loss-time planner (:mod:`metarec.recommender._planner`) takes expectations over
    *evidence rows*, each an (accuracy, time) row with a weight:

    - the ``k`` nearest datasets, with their similarity weights (the nearest weighs 1);
    - with ``prior_weight = λ > 0``, **every** dataset of the knowledge base (excluded ones
      aside), each weighing ``λ / N``: the global evidence counts as ``λ`` nearest
      neighbours.  This is a pseudo-count prior (as a Dirichlet prior of strength ``λ``):
      an algorithm's expected loss reduction and log time are the neighbours' weighted
      means shrunk toward the all-datasets means, the more so the fewer and the less
      similar the neighbours that ran it (only rows where the algorithm has a result count
      for it).  Above :data:`PRIOR_ROWS` datasets the all-datasets means are estimated
      from :data:`PRIOR_ROWS` of them, evenly spaced in the knowledge base's order (the
      same ones for every query), each weighing ``λ / PRIOR_ROWS``: a mean over 2,000
      datasets is within a few hundredths of a standard deviation of the mean over all
      (standard error ``σ / sqrt(2000)``), and a recommendation no longer grows with the
      knowledge base;
    - with ``model_weight = μ > 0``, one *pseudo-neighbour*: the performance model's
      predicted accuracy (predicted best minus predicted gap) and time for the new dataset,
      weighing ``μ``, with the new dataset's majority-class accuracy (when its
      metafeatures give it, else 0) as the start, and the best of those predicted
      accuracies as its best (as a real neighbour's best is the best of its results).

Leave-one-dataset-out
    ``recommend(..., exclude=[...])`` must not use a model that saw the excluded datasets:
    :func:`predict` refits the model without them.  The predictions are kept in
    ``rec.predictions_`` keyed by the excluded datasets' names, the exact bytes of the
    query's metafeature vector and the model parameters, so every strategy evaluated on the
    same left-out dataset shares one fit; the refitted models themselves are not kept.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from metarec._sklearn_errors import NotFittedError
from metarec.exceptions import InvalidInputError
from metarec.recommender._base import SR_FLOOR, TIME_FLOOR, BaseRanker
from metarec.recommender._matrix import single_best_order, well_compared
from metarec.recommender._scoring import pairwise_log_score

__all__ = [
    "LearnedRanker",
    "fit_model",
    "predict",
    "learned_order",
    "row_ratio",
    "query_vector",
    "PRIOR_ROWS",
]

#: Most datasets the prior's all-datasets means are taken over (see "Planner evidence").
PRIOR_ROWS = 2000
#: The parameters whose good values differ by task (:meth:`LearnedRanker.for_task`);
#: classification's are the class's defaults.  Regression's were chosen on a random half of
#: the built-in knowledge base's regression datasets and confirmed on the other half
#: (``python benchmarks/regression.py``): the regression part's fits are short, and on a
#: person's time axis an answer that takes a few seconds costs more than the R² it gains.
#: Regression's ``answer_margin`` was tuned within one collection of real datasets and
#: scored on another, both ways (the same script): on data unlike the knowledge base's the
#: model's predicted advantage over the single best regressor is often within its error;
#: the run order (``run_floor``, classification's) then keeps the quick regressors first.
TASK_DEFAULTS = {
    "classification": {
        "answer_n": float("inf"),
        "answer_patience": 1.0,
        "run_floor": 0.3,
        "answer_margin": None,
        "n_estimators": 100,
        "min_samples_leaf": 2,
    },
    "regression": {
        "answer_n": 2.0,
        "answer_patience": 0.5,
        "run_floor": 0.3,
        "answer_margin": 0.1,
        "n_estimators": 300,
        "min_samples_leaf": 5,
    },
}
#: Folds of the cross-fitted residuals that size the expected accuracy's interval.
CALIBRATION_FOLDS = 5


def fit_model(rec, rows: np.ndarray, *, n_estimators: int | None = None):
    """The performance model of ``rec`` fitted on the datasets ``rows`` (bool mask)."""
    from metarec.recommender._model import PerformanceModel

    X = rec.model_X_[rows]
    return PerformanceModel(
        n=float(rec.n),
        n_estimators=rec.n_estimators if n_estimators is None else n_estimators,
        min_samples_leaf=rec.min_samples_leaf,
        random_state=rec._seed(),
    ).fit(
        X,
        rec.accuracy_[rows],
        np.where(rec.present_[rows], rec._log_time(rows), np.nan),
        rec.present_[rows],
    )


def query_vector(rec, query: Mapping[str, float]) -> np.ndarray:
    """The new dataset's model metafeatures as a (1, n_features) row (NaN where missing).

    The model compares metafeatures in float32 (as scikit-learn's trees do): values beyond
    its range are compared as its largest value, and a :class:`MetarecWarning` names them.
    """
    import warnings

    from metarec.exceptions import MetarecWarning
    from metarec.recommender._model import FLOAT32_MAX

    x = np.full((1, len(rec.model_features_)), np.nan)
    for i, name in enumerate(rec.model_features_):
        try:
            x[0, i] = float(query.get(name, np.nan))
        except (TypeError, ValueError):
            continue
    x = np.where(np.isfinite(x), x, np.nan)
    beyond = np.abs(np.nan_to_num(x[0])) > FLOAT32_MAX
    if beyond.any():
        names = ", ".join(str(n) for n in np.asarray(rec.model_features_)[beyond])
        warnings.warn(
            f"metafeatures {names} hold values beyond float32 (+-3.4e38): the performance "
            "model compares them as the largest float32 value",
            MetarecWarning,
            stacklevel=2,
        )
    return x


def prediction_key(rec, x: np.ndarray, excluded: np.ndarray) -> tuple:
    """Cache key of a leave-out prediction: excluded names, query bytes, model parameters."""
    return (
        tuple(str(d) for d in rec.datasets_[excluded]),
        np.ascontiguousarray(x, dtype=float).tobytes(),
        int(rec.n_estimators),
        int(rec.min_samples_leaf),
        float(rec.n),
    )


def predict(rec, query: Mapping[str, float], excluded: np.ndarray) -> dict:
    """The model's predictions for a new dataset, from a model that never saw ``excluded``."""
    x = query_vector(rec, query)
    if not excluded.any():
        if getattr(rec, "model_", None) is None:
            raise NotFittedError(
                "this ranker was fitted without the learned strategy's model; fit a "
                "Recommender(LearnedRanker()) (the default) instead"
            )
        return rec.model_.predict(x)
    key = prediction_key(rec, x, excluded)
    if key not in rec.predictions_:
        rec.predictions_[key] = fit_model(rec, ~excluded).predict(x)
    return rec.predictions_[key]


def row_ratio(rec, query, idx) -> np.ndarray:
    """``n_instances`` of the new dataset over each row ``idx``'s (1 where unknown)."""
    try:
        rows = float(query.get("n_instances", np.nan))
    except (TypeError, ValueError):
        rows = np.nan
    if rec.n_instances_ is None or not rows > 0:
        return np.ones(idx.size)
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = rows / rec.n_instances_[idx]
    return np.where(np.isfinite(ratio) & (ratio > 0), ratio, 1.0)


def _query_majority(query) -> float:
    try:
        pct = float(query.get("majority_class_pct", np.nan))
    except (TypeError, ValueError):
        pct = np.nan
    return pct / 100.0 if np.isfinite(pct) else 0.0


def evidence(rec, query, idx, w, excluded, exp_acc, log_time, best_pred):
    """Planner evidence rows: accuracy, time, weight, best and start (see module doc)."""
    rows, weights = idx, np.asarray(w, dtype=float)
    lam = float(rec.prior_weight)
    if lam > 0:
        every = np.flatnonzero(~excluded)
        if every.size > PRIOR_ROWS:  # evenly spaced: the same sample for every query
            every = every[np.linspace(0, every.size - 1, PRIOR_ROWS).round().astype(np.int64)]
        rows = np.concatenate([idx, every])
        weights = np.concatenate([weights, np.full(every.size, lam / max(every.size, 1))])
    pres = rec.present_[rows]
    acc = np.where(pres, rec.accuracy_[rows], np.nan)
    time = np.where(pres, np.clip(rec.time_[rows], TIME_FLOOR, None), np.nan)
    if rec.time_scaling == "rows":
        time = time * row_ratio(rec, query, rows)[:, None]
    elif rec.time_scaling == "model":
        # each row's times, moved to the level the model predicts for the new dataset
        wm = np.where(pres, weights[:, None], 0.0)
        with np.errstate(invalid="ignore", divide="ignore"):
            level = (wm * np.nan_to_num(np.log(time))).sum(0) / wm.sum(0)
        shift = np.where(np.isfinite(level), log_time - level, 0.0)
        time = time * np.exp(shift)[None, :]
    with np.errstate(all="ignore"):
        best = np.nanmax(np.where(pres, acc, -np.inf), axis=1)
    start = np.where(np.isfinite(rec.baseline_[rows]), rec.baseline_[rows], 0.0)
    start = np.minimum(start, best)
    mu = float(rec.model_weight)
    if mu > 0:
        p_acc = np.where(np.isfinite(exp_acc), exp_acc, np.nan)
        # its best is the best of its own accuracies, as a real neighbour's: running every
        # algorithm leaves no loss on it (the model's separate prediction of the dataset's best
        # lies above them all, a floor no run removes; the planner's choices are the same)
        p_best = float(np.nanmax(p_acc)) if np.isfinite(p_acc).any() else float(best_pred)
        acc = np.vstack([acc, p_acc])
        time = np.vstack([time, np.clip(np.exp(log_time), TIME_FLOOR, None)])
        weights = np.append(weights, mu)
        best = np.append(best, p_best)
        start = np.append(start, min(_query_majority(query), p_best))
    return acc, time, weights, best, start


def learned_order(rec, query, idx, w, excluded, keep, tried, shared, *, run=True):
    """Order, scores, expected accuracy/time and basis of the ``"learned"`` strategy.

    ``shared`` is the base ranker's :class:`~metarec.recommender._base.Evidence` for the
    query (its expected times are the ones shown and the ones the answer is discounted by).

    The score of each algorithm is the planner evidence's expected loss (percentage points
    below the best) after running it and every algorithm ranked above it: it never
    increases down the ranking.  The sixth element is the run order (see
    :class:`LearnedRanker`'s ``run_floor``), or None when it is the ranking's own or
    ``run=False`` (a budgeted plan, which has its own).
    """
    from metarec.recommender._planner import plan_first

    pred = predict(rec, query, excluded)
    exp_acc = np.clip(pred["best"][0] - pred["gap"][0], 0.0, 1.0)
    log_time = pred["log_time"][0]
    acc, time, weights, best, start = evidence(
        rec, query, idx, w, excluded, exp_acc, log_time, pred["best"][0]
    )
    has = np.isfinite(acc) & np.isfinite(time)
    clock = np.zeros(acc.shape[0])
    for name in tried:
        t = rec.algorithm_index_.get(str(name))
        if t is not None:
            start = np.where(has[:, t], np.maximum(start, acc[:, t]), start)
            clock = clock + np.where(has[:, t], time[:, t], 0.0)
    horizon = float(np.max(rec.row_time_[~excluded], initial=0.0))
    supported = well_compared(rec.present_[~excluded])
    plannable = keep & supported if (keep & supported).any() else keep

    def anytime(floor: float) -> tuple[np.ndarray, list]:
        """The planner's picks on a log-time axis from ``floor``, then the model's order."""
        if rec.order == "rank":
            key = pred["rank"][0]
        else:
            key = -(
                np.log(np.clip(exp_acc, SR_FLOOR, None))
                - np.maximum(log_time, np.log(floor)) / float(rec.n)
            )
        j = np.flatnonzero(keep)
        model_order = j[np.lexsort((rec._ties(j), key[j], ~supported[j]))]
        picks, _ = plan_first(
            acc,
            time,
            weights,
            best,
            start,
            clock,
            plannable,
            n_plan=int(rec.n_plan),
            floor=floor,
            horizon=max(horizon, 10.0 * floor),
            rule=rec.plan_rule,
        )
        picked = set(picks)
        return np.asarray(
            picks + [int(a) for a in model_order if a not in picked], dtype=int
        ), picks

    order, picks = anytime(float(rec.time_floor))
    basis = np.full(rec.algorithms_.size, "model", dtype=object)
    basis[~supported] = "few datasets"
    basis[picks] = "planner"
    exp_time = shared.expected_time  # the runtime model's, scaled to the query's size
    if rec.answer_n is not None and order.size:
        answer = _answer(rec, exp_acc, exp_time, plannable)
        fallback = _fallback(rec, answer, exp_acc, excluded, plannable)
        if fallback is not None:  # the evidence is weak: the single best, then the answer
            order = np.concatenate(
                [[fallback, answer], order[(order != answer) & (order != fallback)]]
            )
            basis[fallback] = "single best"
        else:
            order = np.concatenate([[answer], order[order != answer]])
        basis[answer] = "answer"
    run_order = None  # the ranking's own order
    own = rec.answer_n is None and rec.run_floor == rec.time_floor
    if run and rec.run_floor is not None and not own:
        run_order = anytime(float(rec.run_floor))[0]
        if order.size and basis[order[0]] == "answer" and exp_time[order[0]] <= rec.run_floor:
            quick = order[0]  # a quick answer costs nothing on the run order's axis: first
            run_order = np.concatenate([[quick], run_order[run_order != quick]])
    scores = np.full(rec.algorithms_.size, np.nan)
    scores[order] = expected_loss_along(order, acc, weights, best, start)
    return order, scores, exp_acc, exp_time, basis, run_order


def expected_loss_along(order, acc, weights, best, start) -> np.ndarray:
    """Expected loss (points) after running ``order[:r + 1]``, for every ``r``.

    The weighted mean over evidence rows of ``100 * (best - max(start, best accuracy reached
    so far))``; an algorithm without a result on a row does not help there.
    """
    if order.size == 0:
        return np.zeros(0)
    reached = np.maximum.accumulate(np.nan_to_num(acc[:, order], nan=-np.inf), axis=1)
    loss = 100.0 * np.maximum(best[:, None] - np.maximum(start[:, None], reached), 0.0)
    total = weights.sum()
    if not total > 0:
        return np.full(order.size, np.nan)
    return weights @ loss / total


def _fallback(rec, answer: int, exp_acc, excluded, keep) -> int | None:
    """The single best, when the model's answer is not predicted clearly better than it.

    With ``answer_margin = m`` (None: never), the answer stands only when its expected
    success rate is above the single best's
    (:func:`~metarec.recommender._matrix.single_best_order`, over the datasets not excluded)
    by more than ``m`` times its interval's half-width: the model's advantage must stand out
    of its own error for a dataset unlike the knowledge base's to trust it.
    """
    margin = getattr(rec, "answer_margin", None)
    if margin is None:
        return None
    rows = ~excluded
    if not rec.present_[rows].any():
        return None
    sb = int(single_best_order(rec.accuracy_[rows], rec.present_[rows])[0])
    if sb == answer or not keep[sb]:
        return None
    advantage = exp_acc[answer] - exp_acc[sb]
    width = float(np.nan_to_num(rec.accuracy_width_[answer], nan=0.0))
    return None if advantage > margin * width else sb


def _answer(rec, exp_acc, exp_time, keep) -> int:
    """The first algorithm: best predicted accuracy, discounted beyond ``answer_patience``.

    ``score = log(accuracy) - max(0, log(time / answer_patience)) / answer_n``: an algorithm
    expected to finish within ``answer_patience`` seconds is judged on its accuracy alone;
    beyond, A3R's ``n``-th root of the time ratio discounts it.
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        over = np.maximum(np.log(np.maximum(exp_time, 1e-12) / rec.answer_patience), 0.0)
    score = np.log(np.clip(exp_acc, SR_FLOOR, None)) - np.nan_to_num(over, nan=0.0) / float(
        rec.answer_n
    )
    candidates = np.flatnonzero(keep & np.isfinite(score))
    if candidates.size == 0:
        candidates = np.flatnonzero(keep)
        score = np.zeros_like(score)
    return int(candidates[np.lexsort((rec._ties(candidates), -score[candidates]))][0])


class LearnedRanker(BaseRanker):
    """The performance model's order, its first picks chosen by the loss-time planner.

    The performance model (:mod:`metarec.recommender._model`) predicts every algorithm's
    A3R rank, accuracy and time from the new dataset's metafeatures; the loss-time planner
    (:mod:`metarec.recommender._planner`) picks the first ``n_plan`` algorithms from the
    evidence described in the module documentation; the model's order follows.

    Parameters
    ----------
    k : int or None, default=10
        Nearest datasets of the planner's evidence.
    n : float, default=32
        Root of the time ratio of the model's A3R rank target.
    n_plan : int, default=4
        Algorithms chosen by the planner before the model's order.
    time_floor : float, default=1.0
        Seconds below which a run costs the planner no log time ("time that matters").
    plan_rule : {"ratio", "area"}, default="ratio"
        Planner criterion: expected loss reduction per unit of log time, or expected area
        under the loss-versus-log-time curve.
    order : {"rank", "score"}, default="rank"
        Model order after the planner: predicted A3R rank, or A3R of the predicted accuracy
        and time (times floored at ``time_floor``).
    time_scaling : {None, "rows", "model"}, default=None
        How the planner scales neighbours' times to the new dataset: not at all, by the
        ratio of ``n_instances``, or to the model's predicted time level.
    prior_weight : float, default=4.0
        The global evidence counts as this many nearest neighbours.
    model_weight : float, default=16.0
        Weight of the model's prediction as one more pseudo-neighbour of the planner.
    answer_n : float or None, default=inf
        With a number, the first algorithm (the answer) is the one of best predicted
        accuracy, discounted by its expected time beyond ``answer_patience``:
        ``log(accuracy) - max(0, log(time / answer_patience)) / answer_n`` (``inf``: accuracy
        alone); ``None``: the planner's first.
    answer_patience : float, default=1.0
        Seconds an answer may take at no discount.
    run_floor : float or None, default=0.3
        The run order (``Ranking.run_order``: the order in which to run the algorithms to
        have a good model soonest, as opposed to the ranking, whose first row is the
        answer): the planner's picks on a log-time axis from ``run_floor`` seconds, then the
        model's order (with ``order="score"``, its times floored at ``run_floor``); an answer
        expected within ``run_floor`` seconds costs nothing on that axis and is run first.
        ``None``: the ranking's own order.  Not computed for a budgeted plan (its own order).
    answer_margin : float or None, default=None
        With a number ``m``, the knowledge base's single best algorithm is the first row
        unless the answer's expected success rate is above the single best's by more than
        ``m`` times the half-width of the answer's 80 % interval (the answer is then
        second): on data unlike the knowledge base's, a predicted advantage within the
        model's own error is no reason to leave the constant answer.  None: no fallback.
    n_estimators, min_samples_leaf : int, default=100, 2
        Trees of the performance model and their smallest leaf.
    normalize, distance, weights, features, tried_scale, random_state
        As in :class:`~metarec.recommender._base.BaseRanker`; ``random_state`` also seeds
        the model's trees (``None``: seed 0).

    Attributes
    ----------
    model_ : PerformanceModel
        The performance model fitted on every dataset.
    predictions_ : dict
        Predictions of models refitted without excluded datasets.
    """

    #: Read by instances pickled before the parameters existed (no run order, no fallback).
    run_floor = None
    answer_margin = None
    strategy = "learned"
    score_name = "expected_loss"

    def __init__(
        self,
        *,
        k: int | None = 10,
        n: float = 32,
        n_plan: int = 4,
        time_floor: float = 1.0,
        plan_rule: str = "ratio",
        order: str = "rank",
        time_scaling: str | None = None,
        prior_weight: float = 4.0,
        model_weight: float = 16.0,
        answer_n: float | None = float("inf"),
        answer_patience: float = 1.0,
        run_floor: float | None = 0.3,
        answer_margin: float | None = None,
        n_estimators: int = 100,
        min_samples_leaf: int = 2,
        normalize: bool = True,
        distance: str = "l1-range",
        weights: str | None = "distance",
        features=None,
        tried_scale: float = float("inf"),
        random_state=None,
    ) -> None:
        self.k = k
        self.n = n
        self.n_plan = n_plan
        self.time_floor = time_floor
        self.plan_rule = plan_rule
        self.order = order
        self.time_scaling = time_scaling
        self.prior_weight = prior_weight
        self.model_weight = model_weight
        self.answer_n = answer_n
        self.answer_patience = answer_patience
        self.run_floor = run_floor
        self.answer_margin = answer_margin
        self.n_estimators = n_estimators
        self.min_samples_leaf = min_samples_leaf
        self.normalize = normalize
        self.distance = distance
        self.weights = weights
        self.features = features
        self.tried_scale = tried_scale
        self.random_state = random_state

    def _validate_params(self) -> None:
        super()._validate_params()
        margin = self.answer_margin
        if margin is not None and not (
            isinstance(margin, (int, float)) and not isinstance(margin, bool) and margin >= 0
        ):
            raise InvalidInputError(
                f"answer_margin must be None or a non-negative number; got {margin!r}"
            )
        if int(self.n_plan) != self.n_plan or self.n_plan < 0:
            raise InvalidInputError(f"n_plan must be a non-negative integer; got {self.n_plan!r}")
        if not (np.isfinite(self.time_floor) and self.time_floor > 0):
            raise InvalidInputError(
                f"time_floor must be a positive number of seconds; got {self.time_floor!r}"
            )
        if self.plan_rule not in ("area", "ratio"):
            raise InvalidInputError(f"plan_rule must be 'area' or 'ratio'; got {self.plan_rule!r}")
        if self.time_scaling not in (None, "rows", "model"):
            raise InvalidInputError(
                f"time_scaling must be None, 'rows' or 'model'; got {self.time_scaling!r}"
            )
        for name in ("prior_weight", "model_weight"):
            value = getattr(self, name)
            if not (isinstance(value, (int, float)) and np.isfinite(value) and value >= 0):
                raise InvalidInputError(f"{name} must be a non-negative number; got {value!r}")
        if self.answer_n is not None and not (
            isinstance(self.answer_n, (int, float)) and self.answer_n > 0
        ):
            raise InvalidInputError(f"answer_n must be None or positive; got {self.answer_n!r}")
        if self.run_floor is not None and not (
            isinstance(self.run_floor, (int, float))
            and not isinstance(self.run_floor, bool)
            and np.isfinite(self.run_floor)
            and self.run_floor > 0
        ):
            raise InvalidInputError(
                f"run_floor must be None or a positive number of seconds; got {self.run_floor!r}"
            )
        if self.order not in ("rank", "score"):
            raise InvalidInputError(f"order must be 'rank' or 'score'; got {self.order!r}")
        for name in ("n_estimators", "min_samples_leaf"):
            value = getattr(self, name)
            if isinstance(value, (bool, np.bool_)) or not (
                isinstance(value, (int, np.integer)) and value >= 1
            ):
                raise InvalidInputError(f"{name} must be a positive whole number; got {value!r}")
        if not (
            isinstance(self.answer_patience, (int, float))
            and np.isfinite(self.answer_patience)
            and self.answer_patience > 0
        ):
            raise InvalidInputError(
                f"answer_patience must be a positive number of seconds; "
                f"got {self.answer_patience!r}"
            )

    def _fit_strategy(self) -> None:
        self.model_ = fit_model(self, np.ones(self.datasets_.size, dtype=bool))

    def _reuse_key(self) -> tuple:
        """The model and its calibration depend on these only (not on the planner's)."""
        features = None if self.features is None else tuple(self.features)
        model = (self.n, self.n_estimators, self.min_samples_leaf, self._seed(), features)
        return (type(self), self.normalize, model)

    def _share_strategy(self, fitted) -> None:
        self.model_ = fitted.model_
        self.predictions_ = fitted.predictions_

    @classmethod
    def for_task(cls, task: str = "classification", **params):
        """A learned ranker with the defaults of ``task`` (:data:`TASK_DEFAULTS`) and
        ``params``.

        Parameters
        ----------
        task : {"classification", "regression"}, default="classification"
            The task of the matrix it will be fitted on.
        **params
            Parameters that override the task's defaults.

        Returns
        -------
        LearnedRanker
        """
        if task not in TASK_DEFAULTS:
            raise InvalidInputError(f"task must be 'classification' or 'regression'; got {task!r}")
        return cls(**{**TASK_DEFAULTS[task], **params})

    def _strategy_scores(self, idx, m, w):
        # the stored results' own ranking: pairwise A3R with the model's root
        z = self.log_sr_[idx] - self._log_time(idx) / float(self.n)
        return pairwise_log_score(z, m, w)

    def _score_name(self, tried: bool) -> str:
        """The expected loss with ``tried=`` too: from the best accuracy already reached."""
        return self.score_name

    def _strategy_order(self, query, idx, w, excluded, keep, tried, evidence, *, run=True):
        return learned_order(self, query, idx, w, excluded, keep, tried, evidence, run=run)

    def _calibration_residuals(self) -> np.ndarray:
        """Cross-fitted residuals of the model's expected accuracy (the CV+ of Barber et al.).

        The calibration datasets are split in :data:`CALIBRATION_FOLDS` folds; each fold's
        expected accuracy comes from a model fitted on every other dataset with a fifth of
        the trees (at least 10: the folds together cost about one full fit; a smaller
        forest's residuals are a little wider, so the interval errs on the wide side).
        """
        rows = self._calibration_rows()
        residuals = np.full((rows.size, self.algorithms_.size), np.nan)
        if rows.size < 2:
            return residuals
        # a dataset and its subsamples (name@rows) in one fold, out of the model together;
        # the groups numbered in their order (without subsamples: every row its own)
        _, first, group = np.unique(
            self.sample_bases_[rows], return_index=True, return_inverse=True
        )
        rank = np.empty(first.size, dtype=int)
        rank[np.argsort(first, kind="stable")] = np.arange(first.size)
        folds = rank[group] % min(CALIBRATION_FOLDS, first.size)
        trees = max(10, int(self.n_estimators) // CALIBRATION_FOLDS)
        for fold in np.unique(folds):
            held = rows[folds == fold]
            train = ~np.isin(self.sample_bases_, self.sample_bases_[held])
            model = fit_model(self, train, n_estimators=trees)
            pred = model.predict(
                np.where(np.isfinite(self.model_X_[held]), self.model_X_[held], np.nan)
            )
            expected = np.clip(pred["best"][:, None] - pred["gap"], 0.0, 1.0)
            residuals[folds == fold] = np.where(
                self.present_[held], self.accuracy_[held] - expected, np.nan
            )
        return residuals
