"""Large data: a holdout, and the candidates evaluated on a little data before more.

On large data cross-validation of every candidate on every row does not fit a budget
counted in seconds or minutes: five folds of a boosting model on 262,000 rows take about
as long as a person is willing to wait for the whole answer.  From :data:`LARGE_ROWS` rows
on (and from :data:`MIN_HOLDOUT_ROWS` rows when five folds of the best expected candidates
would take more than half the budget: :func:`holdout_wanted`), a search therefore

1. holds out one validation part (:data:`VALIDATION_ROWS` rows, at most a fifth of the
   data, stratified by class) instead of k folds: with 10,000 rows an accuracy's standard
   error is at most half a point, the size of the differences worth choosing on;
2. evaluates the candidates on **growing samples** of the other rows (successive halving
   over the data, Jamieson and Talwalkar 2016; FLAML's growing sample): the first *rung*
   trains every candidate that fits on :data:`FIRST_RUNG` rows, each next rung on
   :data:`GROWTH` times more (the last on every training row), and only the best
   :data:`PROMOTE` of a rung go on to the next.  The samples are nested (each rung's rows
   contain the previous one's) and stratified, and every rung is scored on the same
   validation rows, so scores compare across candidates and rungs; a candidate a rung had
   no time to start waits for the next one.  A rung runs the promoted first (by their
   scores on the rung before), then the waiting ones by expected accuracy; on the last
   rung the others the rungs before completed follow (those of the rung before by their
   scores, then those of the rungs before it: :func:`later_candidates`), each only while
   its expected time fits what is left, so that the budget is used;
3. answers with the complete trials of the rung whose best candidate scored highest (the
   larger on a tie: a model that did well on a sample does about as well or better on
   every row, so a last rung that ran out of time with only quick, weaker candidates does
   not make the answer), refitted on every row (the refit's time is the rung's fit scaled
   to all rows).

The first rung takes at most :data:`FIRST_RUNG_SHARE` of the budget, so that the rungs
that decide, on more data, have time.  A rung's expected times are the recommender's for a
dataset of the rung's size (its size metafeatures replaced), calibrated on the folds
measured (as on small data, and carried from one rung to the next); within a rung the
candidates start in the order of their expected accuracy, each only when its expected time
(at least its fold's seconds, fit and predict, on the rung it was last measured on, times the
growth in rows: the prediction of k nearest neighbours grows with the rows it searches)
fits what is left (on a sample, the best expected models are quick to try, and trying them
first is what the growing samples are for).

Only the folds of the last rung (every training row) are stored in the knowledge base,
under the protocol :data:`LARGE_PROTOCOL`: a fold of a sample is a result on other data
than the dataset's, and would teach the runtime model a wrong size.

References
----------
.. [1] Jamieson, K. and Talwalkar, A. (2016). Non-stochastic best arm identification and
   hyperparameter optimization. AISTATS.
.. [2] Wang, C., Wu, Q., Weimer, M. and Zhu, E. (2021). FLAML: a fast and lightweight
   AutoML library. MLSys.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from metarec.automl._loop import AUTO, END_MARGIN, SMALL_PROTOCOL, SearchLoop
from metarec.automl._refit import planned_refit_seconds

__all__ = [
    "AUTO",
    "FIRST_RUNG",
    "FIRST_RUNG_SHARE",
    "fit_times",
    "GROWTH",
    "LARGE_PROTOCOL",
    "later_candidates",
    "LARGE_ROWS",
    "MIN_HOLDOUT_ROWS",
    "HOLDOUT_SHARE",
    "holdout_wanted",
    "PROMOTE",
    "RungPlan",
    "SMALL_PROTOCOL",
    "run_rungs",
    "VALIDATION_ROWS",
    "promoted",
    "rung_metafeatures",
    "rung_plan",
]

#: From this many rows on, a search holds out one validation part and grows its samples.
LARGE_ROWS = 50_000
#: Below this many rows a search runs five folds whatever its budget.
MIN_HOLDOUT_ROWS = 20_000
#: Between :data:`MIN_HOLDOUT_ROWS` and :data:`LARGE_ROWS` rows a search holds out when five
#: folds of the :data:`PROMOTE` best expected candidates would take more than this share of
#: the budget's worker-seconds (:func:`holdout_wanted`).
HOLDOUT_SHARE = 0.5
#: Rows of the validation part (at most a fifth of the data).
VALIDATION_ROWS = 10_000
#: Training rows of the first rung.
FIRST_RUNG = 10_000
#: Each rung trains on this many times the rows of the one before (the last on all).
GROWTH = 4
#: Candidates promoted from one rung to the next.
PROMOTE = 3
#: The last rung (every training row) has at least this many times the rows of the one
#: before (160,000 rows of 161,315 would evaluate the same candidates twice).
LAST_GROWTH = 1.5
#: Standard errors of a rung's validation score within which candidates are tied for
#: promotion (:func:`promoted`).
PROMOTE_Z = 2.0
#: The first rung ends at this share of the budget (what it has not started is skipped).
FIRST_RUNG_SHARE = 0.35
#: The knowledge base's times are of folds training on about this share of a dataset (cv10
#: 0.9, cv5 0.8): a rung training on ``s`` rows is read as a dataset of ``s / FOLD_SHARE``.
FOLD_SHARE = 0.85
#: The protocol name of the last rung's folds (one holdout fold on every training row).
LARGE_PROTOCOL = "holdout-large"


@dataclass(frozen=True)
class RungPlan:
    """The splits of a large-data search.

    Attributes
    ----------
    validation : ndarray
        The rows every rung is scored on (sorted).
    sizes : tuple of int
        Training rows of each rung, growing; the last is every training row.
    splits : tuple of (ndarray, ndarray)
        Each rung's ``(train, validation)`` rows (sorted positions).
    """

    validation: np.ndarray
    sizes: tuple[int, ...]
    splits: tuple

    @property
    def n_rungs(self) -> int:
        return len(self.sizes)


def _stratified_order(codes: np.ndarray | None, n: int, rng) -> np.ndarray:
    """A permutation of ``range(n)`` each of whose prefixes holds every class in about its
    share (the rows of a class spread evenly over the order); uniform without classes."""
    if codes is None:
        return rng.permutation(n)
    key = np.empty(n)
    for k in np.unique(codes):
        rows = np.flatnonzero(codes == k)
        # the i-th row of the class (in random order) at (i + u) / count: evenly spread
        key[rng.permutation(rows)] = (np.arange(rows.size) + rng.random(rows.size)) / rows.size
    return np.argsort(key, kind="stable")


def rung_plan(codes, *, classification: bool, random_state: int = 0) -> RungPlan:
    """The validation rows and the nested, stratified training samples of a large dataset.

    Parameters
    ----------
    codes : ndarray of shape (n_rows,)
        Class codes (classification) or the target (regression).
    classification : bool
        Stratify by ``codes``.
    random_state : int, default=0

    Returns
    -------
    RungPlan
        ``sizes`` are :data:`FIRST_RUNG` times powers of :data:`GROWTH` below the training
        rows, then every training row.

    Examples
    --------
    >>> plan = rung_plan(np.arange(262_000) % 2, classification=True)
    >>> plan.sizes, plan.validation.size
    ((10000, 40000, 160000, 252000), 10000)
    """
    codes = np.asarray(codes)
    n = codes.size
    rng = np.random.default_rng(random_state)
    strata = codes if classification else None
    order = _stratified_order(strata, n, rng)
    n_validation = min(VALIDATION_ROWS, n // 5)
    validation = np.sort(order[:n_validation])
    rest = order[n_validation:]
    # the training rows in a stratified order of their own: each prefix a stratified sample
    rest = rest[_stratified_order(None if strata is None else strata[rest], rest.size, rng)]
    sizes = []
    size = FIRST_RUNG
    while size * LAST_GROWTH <= rest.size:  # the last rung at least half again the one before
        sizes.append(size)
        size *= GROWTH
    sizes.append(int(rest.size))
    splits = tuple((np.sort(rest[:s]), validation) for s in sizes)
    return RungPlan(validation=validation, sizes=tuple(sizes), splits=splits)


def rung_metafeatures(metafeatures: dict, rows: int) -> dict:
    """The dataset's metafeatures with its size as a dataset of ``rows`` rows: what the
    recommender's expected times and accuracies for a rung are read from."""
    out = dict(metafeatures)
    out["n_instances"] = float(rows)
    out["log_n_instances"] = math.log(max(rows, 1))
    features = out.get("n_features")
    if features is not None and np.isfinite(features):
        out["dimensionality"] = float(features) / max(rows, 1)
    return out


def holdout_wanted(ranking, names, *, budget: float, n_workers: int, n_folds: int = 5) -> bool:
    """Whether a dataset of :data:`MIN_HOLDOUT_ROWS` to :data:`LARGE_ROWS` rows is searched
    as a large one: when ``n_folds`` folds of the :data:`PROMOTE` candidates of best expected
    accuracy (among ``names``, the portfolio's) are expected to take more than
    :data:`HOLDOUT_SHARE` of the budget's worker-seconds.

    With five folds at that size the best expected candidates, often boosting models of
    several classes, do not fit a budget of a minute on two cores, and a search that has
    evaluated only the quick ones answers with one of them (on 49,000 rows of eight classes,
    a logistic regression eight points below LightGBM's defaults); a holdout evaluates them
    on samples first.  A larger budget keeps the five folds where they fit.

    Parameters
    ----------
    ranking : sequence of RankedAlgorithm
        The recommendation for the dataset (expected accuracy and fit time of a fold).
    names : collection of str
        The algorithms the search may run.
    budget : float
        Seconds.
    n_workers : int
        Folds run at once.
    n_folds : int, default=5

    Returns
    -------
    bool

    Examples
    --------
    >>> from types import SimpleNamespace as Row
    >>> ranking = [Row(algorithm="boosting", expected_accuracy=0.72, expected_time=8.0),
    ...            Row(algorithm="forest", expected_accuracy=0.71, expected_time=4.0),
    ...            Row(algorithm="linear", expected_accuracy=0.69, expected_time=0.3)]
    >>> names = {"boosting", "forest", "linear"}
    >>> holdout_wanted(ranking, names, budget=60, n_workers=2)  # 5 x 12.3 s > 60 s
    True
    >>> holdout_wanted(ranking, names, budget=300, n_workers=2)
    False
    """
    from metarec.automl._loop import best_first_order

    rows = best_first_order([r for r in ranking if r.algorithm in names])[:PROMOTE]
    seconds = [r.expected_time for r in rows if np.isfinite(r.expected_time)]
    return n_folds * float(np.sum(seconds)) > HOLDOUT_SHARE * budget * max(n_workers, 1)


def promoted(trials, limit: int = PROMOTE, *, expected=None, n_validation=None) -> list[str]:
    """The algorithms a rung promotes: the complete trials' best ``limit`` by validation
    score (ties: the first planned).

    With ``expected`` (each algorithm's expected accuracy on every row, the recommender's)
    and ``n_validation``, the trials whose score is within :data:`PROMOTE_Z` standard
    errors of the best one's (the binomial ``sqrt(s (1 - s) / n)`` of an accuracy ``s`` on
    ``n`` validation rows, at least that of 0.95; for R² a stand-in) are tied, and go
    first in the order of their expectation on every row: on a sample of 10,000 rows a
    linear model often ties with boosting models that pull ahead on 100,000 (learning
    curves cross), which is what the knowledge base's expectation at the full size says.

    Examples
    --------
    >>> from types import SimpleNamespace as T
    >>> rung = [T(algorithm=a, complete=True, fold_scores=(s,), cv_score=s, planned=i)
    ...         for i, (a, s) in enumerate([("ridge", 0.710), ("lda", 0.709),
    ...                                     ("catboost", 0.708), ("lightgbm", 0.706),
    ...                                     ("tree", 0.650)])]
    >>> promoted(rung)
    ['ridge', 'lda', 'catboost']
    >>> promoted(rung, expected={"catboost": 0.78, "lightgbm": 0.77, "ridge": 0.69,
    ...                          "lda": 0.69, "tree": 0.72}, n_validation=10_000)
    ['catboost', 'lightgbm', 'ridge']
    """
    complete = [t for t in trials if t.complete and t.fold_scores]
    complete.sort(key=lambda t: (-t.cv_score, t.planned))
    if expected is None or not n_validation or not complete:
        return [t.algorithm for t in complete[:limit]]
    best = float(np.clip(complete[0].cv_score, 0.0, 1.0))
    error = math.sqrt(max(best * (1.0 - best), 0.95 * 0.05) / n_validation)
    tied = [t for t in complete if t.cv_score >= complete[0].cv_score - PROMOTE_Z * error]
    tied.sort(key=lambda t: -np.nan_to_num(expected.get(t.algorithm, np.nan), nan=-np.inf))
    rest = [t for t in complete if t not in tied]
    return [t.algorithm for t in (tied + rest)[:limit]]


def later_candidates(trials, ahead, before=()) -> list[str]:
    """What the last rung runs after the promoted ones and the waiting ones, while time is
    left: this rung's other complete trials by score (:func:`promoted`), then those of the
    rungs before (``before``, in their order) that this rung did not run.

    A candidate that did well on a smaller sample is still worth its time on every row when
    the budget has time left: without the earlier rungs' ones, a search whose middle rung
    ran only the promoted few would end with most of its budget unused.

    Examples
    --------
    >>> from types import SimpleNamespace as T
    >>> rung = [T(algorithm=a, complete=True, fold_scores=(s,), cv_score=s, planned=i)
    ...         for i, (a, s) in enumerate([("lgbm", 0.72), ("cat", 0.73), ("lda", 0.70)])]
    >>> later_candidates(rung, ["cat"], ["lgbm", "ridge", "tree"])
    ['lgbm', 'lda', 'ridge', 'tree']
    """
    here = [a for a in promoted(trials, limit=len(trials)) if a not in ahead]
    return here + [a for a in before if a not in here and a not in ahead]


def run_rungs(ds, name, codes, labels, settings, portfolio, recommender, metafeatures, kb,
              deadline, start, tick, n_workers, pool, check, critical=None,
              ranking=None):  # fmt: skip
    """Run a large dataset's search rung by rung (see the module documentation).

    ``ranking`` is the recommendation for ``metafeatures`` (every row) when the caller has
    it already; None: asked here.

    Returns
    -------
    (SearchLoop, int or None, dict of str to Trial, tuple of ndarray, SearchLoop or None)
        The loop of the rung with the best complete trial (:func:`_best_rung`), the
        signal that stopped the search (None), the trials of the earlier rungs of
        algorithms that loop did not evaluate, for the leaderboard, and the samples an
        answer may be refitted on when every row does not fit the time left (each rung's
        training rows with the validation rows, but the last), and the last rung's loop when
        the search reached it (its folds, on every training row, are the ones stored).
    """
    import copy
    import time
    from dataclasses import replace

    from metarec.automl._storing import stored_search_folds

    plan = rung_plan(codes, classification=labels is not None, random_state=settings.random_state)
    candidates, loops, times = portfolio, [], None
    first: list[str] = []
    last_ones: list[str] = []
    measured: dict[str, tuple[float, int]] = {}  # an algorithm's fold seconds, and rows
    carried, best_score = 0.0, -np.inf  # the refit of the best so far on any rung
    full = ranking if ranking is not None else recommender.recommend(metafeatures=metafeatures)
    at_full = {row.algorithm: row.expected_accuracy for row in full}  # breaks a rung's ties
    # a refit trains on every row: the times of a dataset whose folds train on as many
    full_time = fit_times(recommender, metafeatures, len(codes))
    tried: set[str] = set()  # evaluated (or failed) on some rung
    interrupted = None
    for index, (size, split) in enumerate(zip(plan.sizes, plan.splits, strict=True)):
        last = index == plan.n_rungs - 1
        if last:
            rung_settings = replace(settings, protocol=LARGE_PROTOCOL)
        else:  # a sample's folds are not the dataset's: not stored
            rung_settings = replace(settings, protocol=f"{LARGE_PROTOCOL}@{size}", store=False)
        rung_deadline = deadline
        if index == 0 and plan.n_rungs > 1:
            now = time.perf_counter()
            rung_deadline = now + FIRST_RUNG_SHARE * max(deadline - now, 0.0)
        stored = stored_search_folds(kb, name, rung_settings) if last else {}
        loop = SearchLoop(
            ds, name, codes, labels, rung_settings, candidates, recommender,
            rung_metafeatures(metafeatures, round(size / FOLD_SHARE)), stored,
            rung_deadline, start, tick, n_workers, splits=[split], best_first=True,
            reserve_refit=last, first=first, last=last_ones if last else (),
            floors={a: seconds * size / rows for a, (seconds, rows) in measured.items()},
            carried_refit=carried,
        )  # fmt: skip
        loop.growth = _growth(fit_times(recommender, metafeatures, size), full_time,
                              loop.refit_scale)  # fmt: skip
        if times is not None:  # the calibration of the expected times measured so far
            loop.state.times = times
        if critical is not None:
            loop.critical = critical
        interrupted = loop.run(pool, check)
        times = copy.deepcopy(loop.state.times)
        trials = loop.state.trials.values()
        for trial in trials:  # fit and predict seconds of a fold, measured at this size
            if trial.complete and trial.algorithm in times.walls:
                measured[trial.algorithm] = (times.walls[trial.algorithm][0], size)
            if trial.complete and trial.fold_scores and trial.cv_score > best_score:
                best_score = trial.cv_score  # the answer unless a later rung beats it
                carried = planned_refit_seconds(
                    trial.fit_time if np.isfinite(trial.fit_time) else 0.0,
                    loop.refit_scale * loop.growth_of(trial),
                )
        loops.append(loop)
        if interrupted is not None or last:
            break
        ahead = promoted(trials, expected=at_full, n_validation=plan.validation.size)
        if not ahead or time.perf_counter() >= deadline - END_MARGIN:
            break
        # the best of this rung, and those no rung has had the time to try yet; on the last
        # rung (every row) also the others this rung completed, best first, while time is left
        waiting = [t.algorithm for t in trials if t.status in ("skipped", "not run")]
        untried = [a for a in waiting if a not in ahead and a not in tried]
        tried.update(t.algorithm for t in trials if t.status not in ("skipped", "not run"))
        first = ahead
        last_ones = later_candidates(trials, ahead, last_ones)
        nearly = index + 1 == plan.n_rungs - 1
        candidates = portfolio.select(ahead + untried + (last_ones if nearly else []))
    chosen = _best_rung(loops)
    complete = len(loops) == plan.n_rungs  # the last rung ran: its folds are the dataset's
    earlier = _earlier_trials(loops, chosen, last_reached=complete)
    samples = tuple(np.union1d(train, validation) for train, validation in plan.splits[:-1])
    return chosen, interrupted, earlier, samples, loops[-1] if complete else None


def fit_times(recommender, metafeatures: dict, rows: int) -> dict:
    """Each algorithm's expected seconds of a fit on ``rows`` training rows of this data.

    The knowledge base's times are of folds, which train on about :data:`FOLD_SHARE` of a
    dataset's rows, so the recommender's expected time for a dataset of ``n`` rows is that
    of a fit on about ``0.85 n``: a fit on ``rows`` rows is read from the recommendation for
    a dataset of ``rows / FOLD_SHARE`` rows (:func:`rung_metafeatures`).  Read for ``n``
    rows instead, a refit on every row would be expected as a fit on 85 % of them: for an
    RBF support vector machine, whose time grows with the square of the rows, 28 % short.

    Examples
    --------
    >>> from types import SimpleNamespace as Row
    >>> class Recommender:
    ...     def recommend(self, metafeatures):
    ...         n = metafeatures["n_instances"]
    ...         return [Row(algorithm="svc_rbf", expected_time=(n / 10_000) ** 2)]
    >>> fit_times(Recommender(), {"n_instances": 42_015.0}, 34_000)  # (40,000 / 10,000)²
    {'svc_rbf': 16.0}
    """
    ranking = recommender.recommend(
        metafeatures=rung_metafeatures(metafeatures, round(rows / FOLD_SHARE))
    )
    return {row.algorithm: row.expected_time for row in ranking}


def _growth(at_rung, at_all, refit_scale: float) -> dict:
    """Per algorithm, the runtime model's growth of its fit time from the rung's training
    rows to every row, over the growth of the rows (at least 1): an SVM's quadratic cost
    makes its refit on four times the rows sixteen times its fold, not four.

    A configuration grows at least as fast as its family's default: its own times were
    measured on small samples only, where the runtime model cannot tell its growth with the
    rows, while its default's were measured up to every row of the large datasets (an RBF
    support vector machine's configuration is as quadratic as the default).

    Parameters
    ----------
    at_rung, at_all : mapping of str to float
        Each algorithm's expected time of a fit on the rung's training rows and on every
        row (:func:`fit_times`).
    refit_scale : float
        Every row over the rung's training rows.

    Examples
    --------
    >>> g = _growth({"svc_rbf": 1.0, "svc_rbf_c01": 1.0, "ridge": 1.0},
    ...             {"svc_rbf": 64.0, "svc_rbf_c01": 5.0, "ridge": 4.0}, 4.0)
    >>> g == {"svc_rbf": 16.0, "svc_rbf_c01": 16.0, "ridge": 1.0}
    True
    """
    from metarec._names import configuration_base

    out = {}
    for algorithm, rung_time in at_rung.items():
        full_time = at_all.get(algorithm, np.nan)
        if np.isfinite(rung_time) and rung_time > 0 and np.isfinite(full_time):
            out[algorithm] = max(full_time / rung_time / refit_scale, 1.0)
    for algorithm in list(out):
        base = configuration_base(algorithm)
        if base is not None and base in out:
            out[algorithm] = max(out[algorithm], out[base])
    return out


def _earlier_trials(loops, chosen, *, last_reached: bool = False) -> dict:
    """The leaderboard's trials of the rungs other than ``chosen``: each algorithm's on the
    largest other rung that ran it, unless ``chosen`` completed it (or it completed nowhere
    else); one complete on a sample but not on ``chosen`` says both."""
    from dataclasses import replace

    earlier: dict = {}
    for other in loops:
        if other is chosen:
            continue
        every = other is loops[-1] and last_reached
        for trial in other.state.trials.values():
            if trial.status != "not run" or trial.algorithm not in earlier:
                note = _rung_note(trial, other.splits[0][0].size, every=every)
                earlier[trial.algorithm] = replace(trial, message=note)
    rows = chosen.splits[0][0].size
    for algorithm in list(earlier):
        trial = chosen.state.trials.get(algorithm)
        if trial is None or trial.status == "not run":
            continue
        if trial.complete or not earlier[algorithm].complete:
            del earlier[algorithm]
        else:  # complete on a sample, not on the chosen rung: both said, the sample's scores
            why = trial.message or trial.status
            note = f"{earlier[algorithm].message}; on {rows:,} training rows: {why}"
            earlier[algorithm] = replace(earlier[algorithm], message=note)
    return earlier


def _best_rung(loops):
    """The rung the answer comes from: the one whose best complete trial scored highest on
    the validation rows (every rung's are the same, so the scores compare), the larger on
    a tie; the first rung when none completed a trial.  A model that did well on a sample
    does at least about as well on every row (learning curves rise), so a rung that ran out
    of time with only quick, weaker candidates complete does not make the answer."""

    def best(loop) -> float:
        scores = [t.cv_score for t in loop.state.trials.values() if t.complete and t.fold_scores]
        return max(scores) if scores else -np.inf

    ranked = max(range(len(loops)), key=lambda i: (best(loops[i]), i))
    return loops[ranked] if np.isfinite(best(loops[ranked])) else loops[0]


def _rung_note(trial, rows: int, *, every: bool = False) -> str:
    """A trial of a rung other than the answer's, as the leaderboard says it (``every``:
    the last rung, on every training row)."""
    if trial.complete and every:
        return f"validated on all {rows:,} training rows, below the answer's"
    if trial.complete:
        return f"validated on a sample of {rows:,} training rows, not promoted"
    return trial.message or "not run"
