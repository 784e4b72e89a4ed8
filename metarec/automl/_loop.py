"""The loop of ``metarec run``'s search: what to evaluate next, within the budget.

Active testing with real fits (Leite et al. 2012; Abdulrahman et al. 2018): the recommender
ranks the portfolio for the new dataset from its metafeatures; the first algorithms of the
ranking are evaluated on the user's data with the benchmark runner's protocol (the same folds
for every algorithm, warm single-threaded worker processes, ``n_jobs`` at once); each result
goes back to the recommender as ``tried``, which re-weights the neighbouring datasets by how
well they predicted it, and the next algorithm comes from the new ranking.  When the
knowledge base knows configurations, the portfolio chosen for this dataset
(:meth:`Recommender.portfolio <metarec.recommender.Recommender.portfolio>`,
:data:`PORTFOLIO_SIZE` configurations) comes first.

The budget is wall-clock seconds for the whole search, refit included.  An algorithm is
started only when its expected time for the folds still to run (the recommender's expected
fit time on a dataset of this size, per fold, calibrated on the folds measured so far:
:class:`~metarec.automl._foldtime.FoldTimes`) fits in what is left after keeping time for
the final refit, for storing the folds and for the end (:meth:`SearchLoop.reserve`); when
everything fits, the shortest run first.  A job whose folds cannot end in time at their pace
is stopped, a fold far slower than expected (:data:`FOLD_SLACK`) too, and a fold still
running when the time is up is killed.

The expected time an algorithm is admitted on is the top of its 80 % interval as calibrated
on the knowledge base's own sizes (:meth:`Recommender.time_spread
<metarec.recommender.Recommender.time_spread>`), also beyond them.  The interval a
recommendation shows widens past the largest dataset each algorithm has a time for (the
runtime model's ``extrapolation_width``), so that it covers the times of larger datasets;
the search corrects the same extrapolation error by measuring it (the calibration on this
dataset's finished folds), and a fold far slower than expected is stopped.  Counting the
error both ways would skip exactly the algorithms a large dataset needs and leave the budget
unused (``benchmarks/run_large.py`` measures it).

What is evaluated and how is this module's and :mod:`metarec.automl._trials`' (the jobs,
their folds and how they are recorded); the answer reads only the complete trials and their
results (:mod:`metarec.automl._answer`).
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import replace

import numpy as np

from metarec.automl._refit import planned_refit_seconds
from metarec.automl._storing import result_cache, store_seconds
from metarec.automl._trials import SearchState, Trial, record_job, record_stored

__all__ = [
    "AUTO",
    "SMALL_PROTOCOL",
    "SearchLoop",
    "TIED_EXPECTATION",
    "best_first_order",
    "END_MARGIN",
    "FOLD_SLACK",
    "MIN_FOLD_LIMIT",
    "PORTFOLIO_SIZE",
    "INTERRUPTED",
]

#: Why a job still running when a signal stopped the search has fewer folds.
INTERRUPTED = "interrupted"
#: Seconds kept for the work after the search (storing the folds, saving the model).
END_MARGIN = 1.0
#: A fold running this many times longer than its (calibrated) expected time is stopped ...
FOLD_SLACK = 5.0
#: ... but never before this many seconds (nor before a tenth of the budget).
MIN_FOLD_LIMIT = 2.0
#: Configurations chosen for the dataset at hand when the knowledge base knows them (then the
#: recommendation's order for the rest).
PORTFOLIO_SIZE = 20


#: The protocol of ``run`` by default: :data:`SMALL_PROTOCOL` below
#: :data:`~metarec.automl._rungs.LARGE_ROWS` rows, the rungs of a large dataset from there.
AUTO = "auto"
#: The folds of a search of ``AUTO`` below that size.
SMALL_PROTOCOL = "cv5"
#: Expected accuracies within this of the best remaining one count as tied for the order of
#: a rung (:func:`best_first_order`): the quickest of them runs first.
TIED_EXPECTATION = 0.005


def best_first_order(rows) -> list:
    """Ranking rows in the order a rung of a large dataset tries them.

    The best expected accuracy first; among the rows whose expectation is within
    :data:`TIED_EXPECTATION` (half a point) of the best one left, the quickest expected
    first: those are not told apart by the knowledge base, and the quicker leaves time for
    the others (on 200,000 rows a forest's refit takes ten times a boosting model's).
    """
    left = list(rows)
    order = []
    while left:
        accuracy = np.array([np.nan_to_num(r.expected_accuracy, nan=-1.0) for r in left])
        tied = [
            r for r, a in zip(left, accuracy, strict=True) if a >= accuracy.max() - TIED_EXPECTATION
        ]
        pick = min(tied, key=lambda r: np.nan_to_num(r.expected_time, nan=np.inf))
        order.append(pick)
        left.remove(pick)
    return order


class SearchLoop:
    """One search's plan and the callbacks of the worker pool: what to run next, each result.

    Built from the data and the recommender: the folds (the same for every algorithm), the
    first plan (every algorithm of the portfolio gets its :class:`~metarec.automl.Trial`,
    in the planned order; those the knowledge base does not know come last) and the trials
    whose every fold is stored already.  :meth:`run` hands the pool :meth:`next_task` (what
    to run next, re-planned after each result, skipping what does not fit the time left) and
    :meth:`on_job` (recording a finished job's folds in :attr:`state`).

    ``splits`` (keyword-only) replaces the protocol's folds by the given ``(train, test)``
    pairs (recorded under ``settings.protocol``), ``best_first`` plans
    the expected best first (:func:`best_first_order`, each only when it fits), after the
    algorithms ``first`` and before the algorithms ``last``, each in its given order (a rung
    after the first: the previous rung's best, then those it did not promote, by their
    measured scores), ``floors`` gives an algorithm's least seconds a fold (fit and
    predict, as measured on a smaller rung and scaled to this one's rows: the prediction
    of k nearest neighbours grows with the rows it searches, which an expected fit time
    does not say), ``carried_refit`` keeps seconds for refitting a smaller rung's best
    (the answer when this rung does not beat it), and
    ``reserve_refit=False`` admits a candidate without keeping time for its own refit on
    every row (the best so far keeps its refit): a rung of a large dataset's search
    (:mod:`metarec.automl._rungs`) before the last.

    Attributes
    ----------
    state : SearchState
        The trials and results, what the answer is chosen from.
    splits : list of (ndarray, ndarray)
        The folds every algorithm is evaluated on.
    n_folds : int
        Their number.
    n_classes : int
        Classes of the target (0: regression).
    refit_scale : float
        Rows of the data over rows of a training fold (a fold's time to a refit's).
    portfolio : Portfolio
        The algorithms evaluated (the configurations the knowledge base does not know left
        out).
    """

    def __init__(
        self, ds, name, codes, labels, settings, portfolio, recommender, metafeatures, stored,
        deadline, start, tick, n_workers, *, splits=None, best_first=False,
        reserve_refit=True, first=(), last=(), floors=None, carried_refit=0.0,
    ) -> None:  # fmt: skip
        from metarec.execution import JobSpec, fold_splits

        if settings.protocol == AUTO:  # one loop over folds: those of small data
            settings = replace(settings, protocol=SMALL_PROTOCOL)
        self.settings, self.portfolio, self.recommender = settings, portfolio, recommender
        self.metafeatures, self.stored, self.codes = metafeatures, stored, codes
        self.deadline, self.start, self.tick, self.n_workers = deadline, start, tick, n_workers
        self.best_first, self.reserve_refit = best_first, reserve_refit
        self.first, self.last = tuple(first), tuple(last)
        self.floors = dict(floors or {})
        self.carried_refit = float(carried_refit)
        self.growth: dict[str, float] = {}  # see growth_of
        self.n_classes = 0 if labels is None else len(labels)
        self.base_spec = JobSpec(
            name,
            next(iter(portfolio)),
            ds.X,
            codes,
            self.n_classes,
            tuple(ds.numeric_columns),
            tuple(ds.categorical_columns),
            settings.protocol,
            settings.random_state,
            memory_limit_mb=settings.memory_limit_mb,
        )
        # the protocol's folds, or the given ones (a large dataset's rung: one sample of the
        # rows and the validation rows, see metarec.automl._rungs)
        self.splits = fold_splits(self.base_spec) if splits is None else list(splits)
        rows = np.array([len(test) for _, test in self.splits], dtype=float)
        self.store_cost = store_seconds(rows, self.n_classes)  # each fold's, at the end
        self.n_folds = len(self.splits)
        n_train = float(np.mean([len(train) for train, _ in self.splits]))
        self.refit_scale = len(codes) / max(n_train, 1.0)
        self.known = set(recommender.algorithms_)
        # the configurations the knowledge base knows (and every default algorithm): one it
        # has no result of would be a blind guess among a hundred
        self.portfolio = portfolio = portfolio.select(
            [a.name for a in portfolio if a.configuration_of is None or a.name in self.known]
        )
        self.spread = recommender.time_spread()
        self.names = set(portfolio.names)
        self.state = SearchState(trials={}, stored=stored)
        self.running: dict = {}  # algorithm -> its job on a worker, until it is recorded
        self.chosen = self._chosen(settings.budget * n_workers)
        self.critical = contextlib.nullcontext  # defers a stopping signal (see search)
        self.fingerprint, self.cache = ds.fingerprint, result_cache()
        self._stored_seconds, self._results_counted = 0.0, 0  # storing kept, results counted
        self.planned = self._first_plan()

    def _first_plan(self) -> list[str]:
        """Every algorithm's :class:`Trial`, in the first plan's order; stored ones recorded."""
        first = self.plan({})
        planned = [row.algorithm for row in first]
        planned += [a.name for a in self.portfolio if a.name not in self.known]
        nan = float("nan")
        # the knowledge base's expectations are of accuracy (the success rate): a prior for
        # that metric only; another one is chosen on its CV scores alone
        prior = self.settings.metric == "accuracy"
        for position, algorithm in enumerate(planned, 1):
            row = next((r for r in first if r.algorithm == algorithm), None)
            expects = row is not None and prior
            self.state.trials[algorithm] = Trial(
                algorithm,
                position,
                expected_score=row.expected_accuracy if expects else nan,
                expected_score_low=row.expected_accuracy_low if expects else nan,
                expected_score_high=row.expected_accuracy_high if expects else nan,
                expected_time=row.expected_time if row else nan,
                expected_time_high=self.admission_time(row) if row else nan,
            )
        self.tick(0, total=len(planned))
        # algorithms whose every fold is stored: results without fitting anything, and their
        # predictions where the cache kept them (ensemble selection reads them)
        for algorithm, folds in self.stored.items():
            if algorithm in self.state.trials and all(i in folds for i in range(self.n_folds)):
                record_stored(self.state, algorithm, folds, self.n_folds, self.start)
                kept = self.cache.load(
                    self.fingerprint,
                    self.portfolio[algorithm],
                    self.settings.protocol,
                    self.settings.random_state,
                )
                if kept is not None and len(kept.folds) == self.n_folds:
                    self.state.reused.append(kept)
                self.tick(1)
        return planned

    def _chosen(self, budget: float) -> list[str]:
        """The portfolio chosen for this dataset among the configurations the knowledge base
        knows ([] when it knows none: the recommendation's order alone)."""
        known = [a for a in self.portfolio if a.name in self.known]
        if not any(a.configuration_of for a in known):
            return []
        return self.recommender.portfolio(
            metafeatures=self.metafeatures,
            size=PORTFOLIO_SIZE,
            budget=budget,
            n_folds=self.n_folds,
            candidates=[a.name for a in known],
        )

    def plan(self, tried: dict, budget: float | None = None) -> list:
        """The order to run the portfolio in.

        Without ``budget``, the recommendation's run order (``Ranking.run_sequence``: what
        reaches a good model soonest, the answer when its turn comes): the leaderboard's
        ``planned`` column; when the knowledge base knows configurations, the portfolio
        chosen for this dataset (:meth:`Recommender.portfolio`, :data:`PORTFOLIO_SIZE`
        configurations whose expected time fits the budget) comes first, in its greedy
        order, which is also the order when not everything fits.  When every
        algorithm's expected time (the top of its interval, calibrated on this dataset's
        folds) fits in ``budget``, shortest first: the order then changes nothing unless an
        expectation is wrong, and a long fit that overruns should not hold up the short ones
        behind it (equal expected times keep the run order).  Otherwise the loss-time
        planner's plan for ``budget`` comes first, then the run order.
        """
        recommend, metafeatures = self.recommender.recommend, self.metafeatures
        ranking = recommend(metafeatures=metafeatures, tried=tried or None)
        by_name = {row.algorithm: row for row in ranking}
        if self.best_first:  # a rung of a large dataset: the expected best first, what fits
            ends = set(self.first) | set(self.last)
            head = [by_name[a] for a in self.first if a in by_name and a in self.names]
            tail = [by_name[a] for a in self.last if a in by_name and a in self.names]
            middle = [r for r in ranking if r.algorithm in self.names and r.algorithm not in ends]
            return head + best_first_order(middle) + tail
        rows = [by_name[a] for a in ranking.run_sequence if a in self.names]
        if self.chosen:  # the portfolio chosen for this dataset first, in its greedy order
            head = [by_name[a] for a in self.chosen if a in by_name]
            rows = head + [r for r in rows if r.algorithm not in self.chosen]
        if budget is None:
            return rows
        state, n_folds = self.state, self.n_folds
        needs = [state.times.job_seconds(self.admission_time(r), n_folds) for r in rows]
        if sum(needs) <= budget * self.n_workers:
            # everything is expected to fit: shortest first (stable: ties in the recommended
            # order), so that an expensive fit slower than expected loses only its own time
            return [rows[i] for i in np.argsort(needs, kind="stable")]
        if self.chosen:  # the greedy order: each the most useful given those before it
            return rows
        # it does not all fit: the loss-time planner's plan for the time left comes first
        per_fold = budget * self.n_workers / n_folds / state.times.factor
        planned_rows = recommend(
            metafeatures=metafeatures, tried=tried or None, budget=max(per_fold, 1e-3)
        )
        head = [row.algorithm for row in planned_rows if row.algorithm in self.names]
        return [by_name[a] for a in head] + [r for r in rows if r.algorithm not in head]

    def tried(self) -> dict:
        """``algorithm -> (accuracy, fit time)`` of the finished trials the KB knows."""
        out = {}
        for trial in self.state.trials.values():
            accuracy = self.state.accuracy.get(trial.algorithm)
            if trial.algorithm in self.known and accuracy is not None:
                fit = trial.fit_time if np.isfinite(trial.fit_time) else 0.0
                out[trial.algorithm] = (float(np.clip(accuracy, 0, 1)), float(fit))
        return out

    def admission_time(self, row) -> float:
        """The top of a ranking row's expected-time interval as calibrated on the knowledge
        base's sizes: the row's own top without the widening beyond them."""
        high, spread = row.expected_time_high, self.spread.get(row.algorithm)
        if spread is None or np.isnan(high):
            return high
        return min(high, row.expected_time * spread)

    def kept_refit(self) -> float:
        """Seconds kept for refitting the best so far (0 before anything has finished), at
        least :attr:`carried_refit` (the refit of a smaller rung's best, which may be the
        answer)."""
        done = [t for t in self.state.trials.values() if t.complete and np.isfinite(t.fit_time)]
        if not done:
            return self.carried_refit
        return max(self._own_refit(done), self.carried_refit)

    def growth_of(self, trial) -> float:
        """How many times faster than the rows ``trial``'s fit time grows from a fold to
        every row (:attr:`growth`; 1 when not given)."""
        return max(float(self.growth.get(trial.algorithm, 1.0)), 1.0)

    def _own_refit(self, done) -> float:
        if not done:
            return 0.0
        best = max(done, key=lambda t: t.cv_score)
        return planned_refit_seconds(best.fit_time, self.refit_scale * self.growth_of(best))

    def reserve(self) -> float:
        """Seconds kept for refitting the best so far on every row, storing, and the end.

        Before anything has finished nothing is kept for a refit: each algorithm's own
        refit is counted when it is admitted (:meth:`next_task`), so that a slow first
        choice does not take the time of the quick ones before it has run.
        """
        results = self.state.results
        for result in results[self._results_counted :]:  # only the results new since last time
            folds = np.fromiter((f.fold for f in result.folds), dtype=int)
            self._stored_seconds += float(self.store_cost[folds].sum())
        self._results_counted = len(results)
        # and the folds of the jobs still running, all stored at the end however they end
        running = sum(float(self.store_cost[t.start :].sum()) for t in self.running.values())
        storing = self._stored_seconds + running if self.settings.store else 0.0
        return self.kept_refit() + 0.3 + END_MARGIN + storing

    def next_task(self):
        """The next algorithm's job (re-planned after each result), or None: skip what does
        not fit the time left."""
        from metarec.execution import job_task

        state, n_folds = self.state, self.n_folds
        now = time.perf_counter()
        if state.planned_version != state.tried_version:
            rows = self.plan(self.tried(), max(self.deadline - now - self.reserve(), 0.0))
            state.order = [r.algorithm for r in rows]
            state.order += [a for a in self.planned if a not in state.order]
            state.planned_version = state.tried_version
        left = self.deadline - now - self.reserve()
        for algorithm in state.order:
            trial = state.trials[algorithm]
            if trial.status != "not run" or algorithm in state.started:
                continue
            folds = self.stored.get(algorithm, {})
            first_missing = next(i for i in range(n_folds) if i not in folds)
            per_fold = max(
                state.times.fold_seconds(trial.expected_time_high),
                self.floors.get(algorithm, 0.0),
            )
            need = (n_folds - first_missing) * (per_fold + state.times.overhead)
            own = float(self.store_cost[first_missing:].sum()) if self.settings.store else 0.0
            need += own  # storing its folds at the end
            # and its own refit, should it become the best, beyond the one kept already (not
            # on a rung before the last: the rungs after it decide, and keep their refit)
            refit = (
                0.0
                if not self.reserve_refit
                else planned_refit_seconds(
                    state.times.fold_seconds(trial.expected_time),
                    self.refit_scale * self.growth_of(trial),
                )
            )
            refit = max(refit - self.kept_refit(), 0.0) if np.isfinite(refit) else 0.0
            if need + refit > left:
                state.trials[algorithm] = replace(
                    trial,
                    status="skipped",
                    message=(
                        f"expected up to {need:.3g} s for {n_folds - first_missing} folds"
                        + (f" and {refit:.3g} s to refit" if refit >= 0.05 else "")
                        + f", {max(left, 0):.3g} s left"
                    ),
                )
                self.tick(1)
                continue
            state.started[algorithm] = len(state.started) + 1
            # a fold far slower than expected is stopped: the budget is better spent elsewhere
            limit = max(FOLD_SLACK * per_fold, MIN_FOLD_LIMIT, 0.1 * self.settings.budget)
            limit = limit if np.isfinite(limit) else None
            spec = replace(self.base_spec, algorithm=self.portfolio[algorithm], timeout=limit)
            task = job_task(
                spec,
                self.splits,
                start=first_missing,
                deadline=self.deadline - self.reserve() - own,
            )
            self.running[algorithm] = task
            return task
        return None

    def on_job(self, task) -> None:
        """Record a finished job's folds; the next plan takes them into account.

        A stopping signal waits for the end of the recording: the job is then recorded, and
        no longer running, so it is neither lost nor recorded twice.
        """
        with self.critical():
            record_job(
                self.state, task, self.codes, self.n_classes, self.settings, self.n_folds,
                self.start,
            )  # fmt: skip
            self.running.pop(task.spec.algorithm.name, None)
            self.state.tried_version += 1
        self.tick(1)

    def run(self, pool, check):
        """Run jobs until the plan is done or the time is up; the signal that stopped it, or
        None.

        When a signal stops it, the folds a running job had finished are kept (stored, and
        reused by the next call) and its trial is stopped, not complete.
        """
        try:
            pool.run([], on_job=self.on_job, check=check, more=self.next_task)
        except BaseException as stop:
            from metarec.execution import Stop

            if not isinstance(stop, (Stop, KeyboardInterrupt)):
                raise
            import signal

            for task in self.running.values():
                if task.folds:
                    record_job(
                        self.state, task, self.codes, self.n_classes, self.settings,
                        self.n_folds, self.start, stopped=INTERRUPTED,
                    )  # fmt: skip
            self.running.clear()
            return getattr(stop, "signum", signal.SIGINT)
        return None
