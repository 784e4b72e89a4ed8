"""The :class:`PerformanceMatrix`: a knowledge base's results as (datasets x algorithms) arrays.

Every ranking strategy is fitted on one of these instead of reading the knowledge base's
frames itself: the frames are read, aggregated and checked once, and a strategy can be
fitted on results that never were in a knowledge base (a run history, a hand-made matrix
in a test).

Missing and failed results: a failed or timed-out run counts as the majority-class accuracy
of its dataset (``majority_class_pct / 100``, else ``majority_class_size / n_instances``;
for other metrics, the worst value observed on the dataset) at the cost of the time it used
(if that is unknown, the longest time observed on the dataset).  Per-run rows (several per
dataset and algorithm) are first aggregated as ``KnowledgeBase.runs()`` does.  When only
some runs of an (algorithm, dataset) failed, the accuracy is the mean over all runs with
failed runs counted that way.  Datasets without any usable result are left out.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from metarec._names import check_names
from metarec.exceptions import InvalidInputError
from metarec.recommender._results import aggregate_run_rows, failure_baseline

__all__ = [
    "PerformanceMatrix",
    "datasets_of_task",
    "well_compared",
    "single_best_order",
    "MIN_COMPARED",
]


def datasets_of_task(datasets, task: str) -> set[str]:
    """Names in a ``KnowledgeBase.datasets()`` frame whose task is ``task``.

    Parameters
    ----------
    datasets : DataFrame
        Columns ``name`` and (optionally) ``task``.
    task : {"classification", "regression"}
        Binary and multiclass datasets, and those without a recorded task, are
        classification.

    Returns
    -------
    set of str
    """
    from metarec.data import task_family

    wanted = task_family(task)
    if "task" not in datasets.columns:
        return set(datasets["name"].astype(str)) if wanted == "classification" else set()
    is_regression = datasets["task"].eq("regression").fillna(False).to_numpy(bool)
    chosen = is_regression if wanted == "regression" else ~is_regression
    return set(datasets.loc[chosen, "name"].astype(str))


#: Datasets an algorithm must have been compared on (run beside another algorithm) for the
#: model's predictions of it to place it: with fewer, it is never the answer, nor in a
#: budget plan, and comes after the others in the model's order (basis "few datasets").  One comparison won would
#: otherwise make an algorithm the answer on every dataset.  A knowledge base whose
#: algorithms all have fewer asks only for the most any of them has.
MIN_COMPARED = 5


def well_compared(present: np.ndarray) -> np.ndarray:
    """Which algorithms (columns) were compared on enough datasets (see :data:`MIN_COMPARED`).

    Parameters
    ----------
    present : ndarray of bool, shape (n_datasets, n_algorithms)
        Which algorithm has a result on which dataset.

    Returns
    -------
    ndarray of bool, shape (n_algorithms,)
        Run beside another algorithm on at least ``min(MIN_COMPARED, the most any has)``
        datasets.
    """
    present = np.asarray(present, dtype=bool)
    compared = (present & (present.sum(axis=1) >= 2)[:, None]).sum(axis=0)
    return compared >= min(MIN_COMPARED, int(compared.max(initial=0)))


def single_best_order(accuracy: np.ndarray, present: np.ndarray) -> np.ndarray:
    """The algorithms (columns) from the single best down: the one definition of it.

    The single best solver (SBS) of algorithm selection is the constant answer that ignores
    the dataset, the one a recommendation must not lose to: the algorithm of best mean
    success rate over the datasets it has a result on (ASlib's definition; Lindauer et al.
    2019).  The others follow by that mean; ties go to the first column, and algorithms
    without any result come last.  The evaluation's ``single best`` baseline, the learned
    ranker's fallback (``answer_margin``) and the anchor of ``metarec run``'s answer all read
    it (through :meth:`PerformanceMatrix.single_best` or this function).

    On a complete matrix this is also the algorithm that beats every other on the mean of
    the datasets both ran on.  On an incomplete one, an algorithm run only on easy datasets
    gains from them; the pairwise rule (most wins on the datasets both ran on) would instead
    crown one run only where it shines (TabZilla's TabPFN, run on its small datasets only).

    Parameters
    ----------
    accuracy : ndarray of shape (n_datasets, n_algorithms)
        Success rates (NaN or anything where ``present`` is false).
    present : ndarray of bool, same shape
        Whether a result exists.

    Returns
    -------
    ndarray of int, shape (n_algorithms,)
        Every column, the single best first.

    Examples
    --------
    >>> acc = np.array([[0.9, 0.8, np.nan], [0.5, 0.7, np.nan]])
    >>> single_best_order(acc, np.isfinite(acc)).tolist()
    [1, 0, 2]
    """
    present = np.asarray(present, dtype=bool)
    counts = present.sum(axis=0)
    sums = np.where(present, accuracy, 0.0).sum(axis=0)
    mean = np.divide(sums, counts, out=np.full(sums.shape, -np.inf), where=counts > 0)
    return np.lexsort((np.arange(mean.size), -mean))


_COUNTS = ("dataset", "algorithm", "status", "n_runs", "n_failed")
#: Stored measures where lower is better (besides names ending in ``_loss`` or ``_time``).
_LOWER_IS_BETTER = ("mae", "mse", "rmse")


def _lower_is_better(measure: str) -> bool:
    """Whether a stored measure is a loss or a time (``*_loss``, ``*_time``, errors)."""
    return measure.endswith(("_loss", "_time")) or measure in _LOWER_IS_BETTER


@dataclass(frozen=True, eq=False)
class PerformanceMatrix:
    """Accuracy, time and status of every (dataset, algorithm) pair, with the metafeatures.

    Build it with :meth:`from_kb` or :meth:`from_frames`; the arrays are not copied again by
    the rankers, so do not modify them in place.

    Parameters
    ----------
    datasets : ndarray of str, shape (n_datasets,)
        Datasets with at least one usable result, sorted.
    algorithms : ndarray of str, shape (n_algorithms,)
        Algorithms, sorted.
    accuracy : ndarray of shape (n_datasets, n_algorithms)
        The metric (failed runs replaced as the module documentation says); NaN where there
        is no result.
    time : ndarray of shape (n_datasets, n_algorithms)
        Time in seconds; NaN where there is no result.
    present : ndarray of bool
        Whether the cell has a usable result.
    failed : ndarray of bool
        Whether every run of the cell failed.
    metafeatures : DataFrame
        Numeric metafeatures, one row per dataset in ``datasets``' order (NaN where
        missing).
    metric, time_column : str
        Names of the metric and time columns the matrix was read from.
    task : {"classification", "regression"}
        The task of its datasets (a matrix never mixes them): which defaults a ranker takes
        (:meth:`~metarec.recommender.LearnedRanker.for_task`).

    Examples
    --------
    >>> import pandas as pd
    >>> runs = pd.DataFrame({"dataset": ["a", "a", "b"], "algorithm": ["x", "y", "x"],
    ...                      "accuracy": [0.9, 0.8, 0.7], "fit_time": [1.0, 2.0, 3.0]})
    >>> m = PerformanceMatrix.from_frames(runs, pd.DataFrame({"dataset": ["a", "b"]}))
    >>> m.shape, m.present.tolist()
    ((2, 2), [[True, True], [True, False]])
    """

    datasets: np.ndarray
    algorithms: np.ndarray
    accuracy: np.ndarray
    time: np.ndarray
    present: np.ndarray
    failed: np.ndarray
    metafeatures: object
    metric: str = "accuracy"
    time_column: str = "fit_time"
    task: str = "classification"

    @property
    def shape(self) -> tuple[int, int]:
        """``(n_datasets, n_algorithms)``."""
        return (int(self.datasets.size), int(self.algorithms.size))

    @property
    def baseline(self) -> np.ndarray:
        """The value a failed run counts as on each dataset (see the module documentation)."""
        return failure_baseline(self.metafeatures, self.metric, self.accuracy, self.present)

    def single_best(self, *, exclude=()) -> str | None:
        """The single best algorithm (:func:`single_best_order`'s first).

        Parameters
        ----------
        exclude : iterable of str, default=()
            Datasets left out (a dataset's own results are no evidence about it); names
            the matrix does not hold are ignored.

        Returns
        -------
        str or None
            None when no algorithm has a result on the datasets kept.
        """
        kept = ~np.isin(self.datasets.astype(str), [str(d) for d in exclude])
        present = self.present[kept]
        if not present.any():
            return None
        best = single_best_order(self.accuracy[kept], present)[0]
        return str(self.algorithms[best])

    def subset(self, rows) -> PerformanceMatrix:
        """The matrix restricted to the datasets ``rows`` (boolean mask or indices), in its order.

        Parameters
        ----------
        rows : array-like of bool or int
            A mask over :attr:`datasets`, or the positions of the datasets to keep (their
            order and repeats do not matter).

        Returns
        -------
        PerformanceMatrix
            The same algorithms, metric and time column, and the datasets kept, in this
            matrix's order.
        """
        rows = np.asarray(rows)
        if rows.dtype != bool:
            mask = np.zeros(self.datasets.size, dtype=bool)
            mask[rows] = True
            rows = mask
        return PerformanceMatrix(
            self.datasets[rows],
            self.algorithms,
            self.accuracy[rows],
            self.time[rows],
            self.present[rows],
            self.failed[rows],
            self.metafeatures.loc[rows],
            self.metric,
            self.time_column,
            self.task,
        )

    @classmethod
    def from_kb(
        cls, kb, *, metric: str = "accuracy", time: str = "fit_time", task: str | None = None
    ):
        """Read a knowledge base (or any object with ``runs()`` and ``metafeatures()``).

        Parameters
        ----------
        kb : KnowledgeBase
            ``runs()`` returns one row per (dataset, algorithm) with columns ``dataset,
            algorithm``, the metric, the time and optionally ``status``, ``n_runs``,
            ``n_failed``; ``metafeatures()`` a wide frame with a ``dataset`` column.
        metric, time : str, keyword-only
            Columns of ``runs()`` used as the metric (higher is better) and the time.
        task : {"classification", "regression"}, optional
            Keep only the datasets of this task (``kb.datasets()``'s ``task``: binary and
            multiclass are classification; a dataset without a recorded task counts as
            classification), so that one matrix never mixes the tasks.  ``None``: the
            knowledge base's one task; one holding datasets of both (the built-in one) is
            refused, asking for ``task``.

        Returns
        -------
        PerformanceMatrix

        Raises
        ------
        InvalidInputError
            The knowledge base has no runs of ``task``, or ``task`` is None and it holds
            runs of both tasks.
        """
        runs, meta = kb.runs(), kb.metafeatures()
        if task is None and hasattr(kb, "datasets"):
            ran = set(runs["dataset"].astype(str)) if "dataset" in runs.columns else set()
            held = kb.datasets()
            if ran & datasets_of_task(held, "regression") and ran - datasets_of_task(
                held, "regression"
            ):
                raise InvalidInputError(
                    "the knowledge base holds runs of classification and of regression "
                    "datasets, and one matrix never mixes the tasks: pass "
                    "task='classification' or task='regression'"
                )
        if task is None and hasattr(kb, "datasets"):
            ran = set(runs["dataset"].astype(str)) if "dataset" in runs.columns else set()
            regression = datasets_of_task(kb.datasets(), "regression")
            task = "regression" if ran and ran <= regression else "classification"
        if task is not None and hasattr(kb, "datasets"):
            names = datasets_of_task(kb.datasets(), task)
            runs = runs[runs["dataset"].astype(str).isin(names)]
            if len(runs) == 0:
                raise InvalidInputError(f"the knowledge base has no runs of {task} datasets")
        return cls.from_frames(runs, meta, metric=metric, time=time, task=task)

    @classmethod
    def from_frames(
        cls,
        runs,
        meta,
        *,
        metric: str = "accuracy",
        time: str = "fit_time",
        task: str | None = "classification",
    ):
        """Build the matrix from a runs frame and a metafeatures frame (see :meth:`from_kb`).

        ``task`` (``"classification"`` or ``"regression"``; None: classification) is recorded,
        not checked: the frames are taken to hold datasets of that task.
        """
        if task not in (None, "classification", "regression"):
            raise InvalidInputError(f"task must be 'classification' or 'regression'; got {task!r}")
        import pandas as pd

        for column in ("dataset", "algorithm"):
            if column not in runs.columns:
                raise InvalidInputError(
                    f"the knowledge base's runs have no column {column!r} "
                    f"(columns: {', '.join(map(str, runs.columns))})"
                )
        measures = [c for c in runs.columns if c not in _COUNTS]
        check_names([metric], measures, what="metric", parameter="metric", option="--metric")
        if _lower_is_better(metric):
            kind = "a time" if metric.endswith("_time") else "a loss (lower is better)"
            scores = ", ".join(m for m in measures if not _lower_is_better(m))
            text = f"{metric!r} is {kind}; rankings need a score where higher is better: {scores}"
            raise InvalidInputError(f"metric: {text}", cli_message=f"--metric: {text}")
        check_names([time], measures, what="time column", parameter="time")
        if len(runs) == 0:
            raise InvalidInputError("the knowledge base has no runs to learn from")
        runs = runs.copy()
        runs["dataset"] = runs["dataset"].astype(str)
        runs["algorithm"] = runs["algorithm"].astype(str)
        if runs.duplicated(["dataset", "algorithm"]).any():
            runs = aggregate_run_rows(runs, metric, time)
        datasets = np.array(sorted(runs["dataset"].unique()), dtype=object)
        algorithms = np.array(sorted(runs["algorithm"].unique()), dtype=object)
        rows = pd.Index(datasets).get_indexer(runs["dataset"])
        cols = pd.Index(algorithms).get_indexer(runs["algorithm"])
        shape = (datasets.size, algorithms.size)

        def grid(values, fill=np.nan):
            out = np.full(shape, fill, dtype=float)
            out[rows, cols] = np.asarray(values, dtype=float)
            return out

        acc = grid(pd.to_numeric(runs[metric], errors="coerce"))
        tim = grid(pd.to_numeric(runs[time], errors="coerce"))
        present = np.zeros(shape, dtype=bool)
        present[rows, cols] = True
        if "status" in runs.columns:
            status_ok = runs["status"].fillna("ok").astype(str).eq("ok").to_numpy()
        else:
            status_ok = np.ones(len(runs), dtype=bool)
        n_runs = grid(runs["n_runs"] if "n_runs" in runs.columns else np.ones(len(runs)), 1.0)
        n_failed = grid(
            runs["n_failed"] if "n_failed" in runs.columns else np.zeros(len(runs)), 0.0
        )
        all_failed = np.zeros(shape, dtype=bool)
        all_failed[rows, cols] = ~status_ok
        all_failed |= present & np.isnan(acc)

        meta = meta.copy() if meta is not None else pd.DataFrame({"dataset": []})
        if "dataset" not in meta.columns:
            raise InvalidInputError("the knowledge base's metafeatures have no 'dataset' column")
        meta["dataset"] = meta["dataset"].astype(str)
        meta = meta.drop_duplicates("dataset", keep="last").set_index("dataset").reindex(datasets)
        numeric = meta.apply(pd.to_numeric, errors="coerce")

        baseline = failure_baseline(numeric, metric, acc, present & ~all_failed)
        partial = present & ~all_failed & (n_failed > 0) & (n_runs > 0)
        mixed = (acc * (n_runs - n_failed) + baseline[:, None] * n_failed) / np.where(
            n_runs > 0, n_runs, 1
        )
        acc = np.where(partial & np.isfinite(baseline)[:, None], mixed, acc)
        acc = np.where(all_failed, baseline[:, None], acc)
        longest = np.nanmax(np.where(present, tim, np.nan), axis=1, initial=-np.inf)
        tim = np.where(present & ~np.isfinite(tim), longest[:, None], tim)
        usable = present & np.isfinite(acc) & np.isfinite(tim)
        keep = usable.any(axis=1)  # datasets without any usable result cannot help
        usable = usable[keep]
        return cls(
            datasets=datasets[keep],
            algorithms=algorithms,
            accuracy=np.where(usable, acc[keep], np.nan),
            time=np.where(usable, tim[keep], np.nan),
            present=usable,
            failed=all_failed[keep] & usable,
            metafeatures=numeric.loc[keep],
            metric=metric,
            time_column=time,
            task=task or "classification",
        )
