"""Fitting a search's answer on every row, within the time left: the budgeted refit.

Which members make the answer is :mod:`metarec.automl._answer`'s; here they are fitted,
each built from the search's own portfolio (the algorithms it chose from, which need not
be the default ones).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from metarec.automl._model import AveragedClassifier, AveragedRegressor, LabelledClassifier

__all__ = [
    "refit_answer",
    "RefitData",
    "planned_refit_seconds",
    "LAST_RESORT_SECONDS",
    "REFIT_MARGIN",
    "Refit",
]

#: A refit is planned for its expected seconds and this share again (the folds' fit times
#: scaled to every row are an estimate).
REFIT_MARGIN = 1.2


def planned_refit_seconds(fold_seconds: float, refit_scale: float) -> float:
    """Seconds kept for refitting on every row an algorithm of ``fold_seconds`` a fold.

    Parameters
    ----------
    fold_seconds : float
        The algorithm's (expected or measured) fit time of one training fold.
    refit_scale : float
        Rows of the whole data over rows of a training fold.

    Returns
    -------
    float
        ``fold_seconds * refit_scale * REFIT_MARGIN``.
    """
    return fold_seconds * refit_scale * REFIT_MARGIN


def refit_answer(answer, trials, data, *, portfolio, random_state, deadline, refit_scale, notes):
    """Fit the answer's members on every row, those whose refits fit the time left.

    The members of ``answer`` (an :class:`~metarec.automl._answer.Answer`) are refitted in
    order, each only when its expected time (known from its folds) fits what is left of the
    budget; a member that does not fit gives its place, and its weight, to the next of
    ``answer.spares``.  When ``data.samples`` holds nested samples of the rows (a large
    dataset's rungs), a member whose refit on every row does not fit is refitted on the
    largest sample whose expected time (linear in rows) fits instead, and said; a member
    after the first (and the anchor) only on as many rows as the first or more (it was
    judged beside the best fitted on the same rows: on fewer it is a weaker model than the
    one judged), else not at all.  When none fits, the best whose
    refit is expected within :data:`LAST_RESORT_SECONDS` (else the quickest) is refitted
    anyway, alone, on the smallest sample if there are samples, so that a search hands back
    a model: a second over the budget rather than no model.  The anchor joins an average of at least one
    refitted member, with its weight in ``answer``.  After a SIGINT or SIGTERM (``deadline`` None) only the first member
    whose refit is expected to take about a second is refitted, alone.

    The refits run in this process (a warm worker may have been stopped with the budget, and
    a fresh one would spend seconds importing).

    Parameters
    ----------
    answer : Answer
        The members, their weights, spares and anchor.
    trials : mapping of str to Trial
        The trials (``fit_time``: mean fit time of a fold).
    data : RefitData
        The rows to fit on: the dataset, its class labels (None: regression) and codes.
    portfolio : Portfolio
        The search's algorithms: each member is built from its entry.
    random_state : int
        Seed of every estimator.
    deadline : float or None
        ``time.perf_counter()`` by which the refits must be done; None after a signal.
    refit_scale : float
        Rows of the whole data over rows of a training fold (fold times to refit times).
    notes : list of str
        Appended: what was not refitted, and why.

    Returns
    -------
    Refit
        The fitted model (the single pipeline, or the weighted average of the members), the
        members' names in refit order, their weights (those of ``answer``, normalised over
        the members refitted) and the rows each was fitted on; ``Refit(None, (), (), ())``
        when nothing could be refitted.
    """
    wanted = 1 if deadline is None else len(answer.members)  # stopped: the best alone
    weight = dict(zip(answer.members, answer.weights, strict=True))
    queue = list(answer.members) + list(answer.spares)
    fitted, rows, said = _refit_members(
        queue, wanted, weight, trials, data, portfolio, random_state, deadline, refit_scale,
        notes,
    )  # fmt: skip
    if not fitted and deadline is not None:
        # nothing fits the time left: one is refitted anyway, so that a search hands back a model
        last = _last_resort(queue, trials, data, portfolio, random_state, deadline, refit_scale,
                            notes)  # fmt: skip
        if last is not None:
            algorithm, pipeline, rows[algorithm], said = last
            fitted.append((algorithm, pipeline))
    if fitted and answer.anchor is not None and deadline is not None:
        pipeline, why, n_rows = _refit_one(
            portfolio[answer.anchor], trials, data, random_state, deadline, refit_scale,
            min_rows=rows[fitted[0][0]],
        )  # fmt: skip
        if pipeline is not None:
            fitted.append((answer.anchor, pipeline))
            rows[answer.anchor] = n_rows
            weight[answer.anchor] = answer.anchor_weight
            said.append(f"{answer.anchor} joins the average as the knowledge base's single best")
        elif why:
            said.append(why)
    if fitted:
        said.extend(answer.notes(fitted[0][0]))
    notes.extend(said)
    if not fitted:
        return Refit(None, (), (), ())
    names = tuple(name for name, _ in fitted)
    # a spare refitted as the last resort has no weight of its own: it is alone
    weights = np.array([weight.get(name, 1.0) for name in names])
    weights = tuple(float(w) for w in weights / weights.sum())
    return Refit(_model(fitted, weights, data), names, weights, tuple(rows[n] for n in names))


def _refit_members(queue, wanted, weight, trials, data, portfolio, random_state, deadline,
                   refit_scale, notes):  # fmt: skip
    """Refit ``queue`` in order until ``wanted`` are fitted: ``(fitted, rows, said)``.

    A spare fitted in a member's place takes its weight (``weight`` is updated).  After
    the first, a member is fitted on no fewer rows than the first: it tied with the best
    fitted on as many rows, and on fewer it is a weaker model than the one that tied.
    """
    fitted: list[tuple[str, Any]] = []
    rows: dict[str, int] = {}
    said: list[str] = []
    vacant: list[float] = []  # the weights of the members not refitted, in order
    for algorithm in queue:
        if len(fitted) >= wanted:
            break
        least = rows[fitted[0][0]] if fitted else 0
        pipeline, why, n_rows = _refit_one(
            portfolio[algorithm], trials, data, random_state, deadline, refit_scale,
            min_rows=least,
        )  # fmt: skip
        if pipeline is not None:
            fitted.append((algorithm, pipeline))
            rows[algorithm] = n_rows
            if algorithm not in weight:  # a spare takes the place, and the weight, of a member
                weight[algorithm] = vacant.pop(0) if vacant else 1.0 / wanted
            if why:
                said.append(why)
            continue
        if algorithm in weight:
            vacant.append(weight[algorithm])
        if why:
            (notes if why.startswith("refitting") else said).append(why)
    return fitted, rows, said


class Refit(NamedTuple):
    """A refitted answer: the model, its members, their weights and rows fitted on."""

    model: Any
    members: tuple
    weights: tuple
    rows: tuple


@dataclass(frozen=True)
class RefitData:
    """The rows a search's answer is refitted on.

    Parameters
    ----------
    ds : Dataset
        The data (its feature columns).
    labels : ndarray or None
        The class labels in the order of their codes (None: regression).
    codes : ndarray
        Class codes (or the target) of every row.
    samples : tuple of ndarray, default=()
        Nested samples of the rows (sorted positions, growing, each smaller than the data)
        a member may be refitted on when its refit on every row does not fit the time left.
    growth : mapping of str to float, default={}
        Per algorithm, how many times faster than the rows its fit time grows from a fold
        to every row (at least 1; the runtime model's power law: an SVM's quadratic cost
        on four times the rows is 16 times, not 4); 1 for the others.
    """

    ds: Any
    labels: Any
    codes: Any
    samples: tuple = ()
    growth: Any = field(default_factory=dict)

    def refit_seconds(self, name: str, fold_seconds: float, refit_scale: float) -> float:
        """Expected seconds of ``name``'s refit on every row from a fold's fit time."""
        return fold_seconds * refit_scale * max(float(self.growth.get(name, 1.0)), 1.0)


def _refit_one(
    algorithm, trials, data, random_state, deadline, refit_scale, last_resort=False, min_rows=0
):
    """``(pipeline of ``algorithm`` fitted, note or None, rows fitted on)``, or
    ``(None, why not, 0)``.

    On every row when its expected time fits the time left, else on the largest of
    ``data.samples`` of at least ``min_rows`` rows that fits (expected time proportional to
    rows); ``last_resort`` fits whatever is left: on the smallest sample, or on every row
    without samples.
    """
    name = algorithm.name
    n = len(data.codes)
    expected = data.refit_seconds(name, trials[name].fit_time, refit_scale)
    left = 1.0 if deadline is None else deadline - time.perf_counter()
    rows, note = None, None
    if expected > left:
        fits = [s for s in data.samples if s.size >= min_rows and expected * s.size / n <= left]
        if fits:
            rows = fits[-1]
        elif last_resort and data.samples:
            rows = data.samples[0]
        elif not last_resort:
            return (
                None,
                f"{name} not refitted: expected {expected:.3g} s, {max(left, 0):.3g} s left",
                0,
            )
        if rows is not None and not last_resort:
            note = (
                f"{name} refitted on a sample of {rows.size:,} of the {n:,} rows (every row "
                f"expected {expected:.3g} s, {max(left, 0):.3g} s left)"
            )
    ds = data.ds
    pipeline = algorithm.build_pipeline(
        numeric_columns=tuple(ds.numeric_columns),
        categorical_columns=tuple(ds.categorical_columns),
        random_state=random_state,
    )
    X, y = (ds.X, data.codes) if rows is None else (ds.X.iloc[rows], np.asarray(data.codes)[rows])
    try:
        with _quiet():
            pipeline.fit(X, y)
    except Exception as exc:  # its own failure on every row: try the next one
        return None, f"refitting {name} on all rows failed: {type(exc).__name__}: {exc}", 0
    return pipeline, note, n if rows is None else int(rows.size)


def _model(fitted, weights, data):
    """The fitted members as the answer's estimator."""
    columns = data.ds.X.columns
    if data.labels is None:  # one regressor is an average of one: it reads any X the same way
        return AveragedRegressor.from_fitted(fitted, columns, weights=weights)
    if len(fitted) == 1:
        return LabelledClassifier.from_fitted(fitted[0][1], data.labels, columns)
    return AveragedClassifier.from_fitted(fitted, data.labels, columns, weights=weights)


#: A refit expected within this many seconds may overrun a spent budget (see refit_answer).
LAST_RESORT_SECONDS = 1.0


def _last_resort(queue, trials, data, portfolio, random_state, deadline, refit_scale, notes):
    """``(algorithm, pipeline, rows, [note])`` of the best in ``queue`` whose refit is
    expected within :data:`LAST_RESORT_SECONDS` (else the quickest) fitted anyway, on the
    smallest sample when ``data`` has samples; None when every refit fails."""
    smallest = data.samples[0].size / len(data.codes) if data.samples else 1.0
    for algorithm in _last_resorts(queue, trials, refit_scale * smallest, data):
        pipeline, why, n_rows = _refit_one(
            portfolio[algorithm], trials, data, random_state, deadline, refit_scale,
            last_resort=True,
        )  # fmt: skip
        if pipeline is not None:
            sample = "" if n_rows == len(data.codes) else f" on a sample of {n_rows:,} rows"
            said = [
                f"no refit fitted the time left: {algorithm} refitted anyway{sample} (the "
                f"best whose refit is expected within {LAST_RESORT_SECONDS:g} s, else the "
                "quickest)"
            ]
            return algorithm, pipeline, n_rows, said
        notes.append(why)
    return None


def _last_resorts(order, trials, refit_scale, data=None) -> list[str]:
    """``order`` (best first) with the refits expected within :data:`LAST_RESORT_SECONDS`
    first, then the others quickest first."""
    expected = {
        a: trials[a].fit_time * refit_scale * (1.0 if data is None else data.growth.get(a, 1.0))
        for a in order
    }
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
