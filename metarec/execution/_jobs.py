"""Jobs: evaluate one algorithm on one dataset, fold by fold, and score each fold.

This is the work of a single job of the benchmark or of ``metarec run``, apart from any
executor: split the data with the chosen protocol (:func:`fold_splits`), fit the algorithm's
pipeline on each training part (:func:`evaluate_fold`, in a warm worker process of
:mod:`metarec.execution._pool`, locally or on a Dask worker: :func:`job_task` makes the
pool's task), and score the predictions with metarec's evaluation library.  The algorithm is
the caller's object: anything with ``name`` and ``build_pipeline(numeric_columns=...,
categorical_columns=..., random_state=...)`` (a portfolio's
:class:`~metarec.benchmark.Algorithm`).  Fit and
predict times are the CPU time (``time.process_time``, user + system) of the ``fit`` and
``predict`` calls themselves, in a process whose BLAS/OpenMP pools have one thread, so they do
not depend on how many jobs share the machine; wall-clock times of the same calls are stored
beside them (``fit_wall_time``, ``predict_wall_time``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from metarec._text import error_line

__all__ = [
    "JOB_MODULES",
    "unsplittable",
    "job_task",
    "run_fold",
    "FoldRecord",
    "JobSpec",
    "JobResult",
    "evaluate_fold",
    "fold_splits",
    "failed_fold",
    "score_predictions",
    "fold_metrics",
    "fit_predict",
    "ok_fold",
]

#: What a worker imports before its first job besides the algorithms' modules: what scores
#: the folds (so that no import lands in a measured time; the worker runs in this package).
JOB_MODULES = ("metarec.evaluation",)


@dataclass(frozen=True)
class JobSpec:
    """Everything a worker needs to evaluate one algorithm on one dataset.

    Parameters
    ----------
    dataset : str
        The dataset's name (the data key of the job's task: jobs of one dataset share data).
    algorithm : object
        The algorithm: anything with ``name`` and ``build_pipeline(numeric_columns=...,
        categorical_columns=..., random_state=...)`` (a portfolio's
        :class:`~metarec.benchmark.Algorithm`).
    X : DataFrame of shape (n_samples, n_features)
        The features; None in the copy :func:`job_task` sends with every job (the data
        travel apart).
    y : ndarray of shape (n_samples,)
        The target: integer class codes ``0..n_classes - 1``, or float values for
        regression; None where ``X`` is.
    n_classes : int
        The number of classes; 0 for regression.
    numeric_columns, categorical_columns : tuple of str
        The columns of ``X`` given to ``build_pipeline``.
    protocol : str
        The evaluation protocol (:data:`metarec.evaluation.PROTOCOLS`); with
        ``"bootstrap632"`` each fold also measures its resubstitution accuracy.
    seed : int
        The ``random_state`` of the splits and of the pipeline.
    timeout : float, optional
        Seconds (wall clock) a fold may run before its worker is killed; None for no limit.
    memory_limit_mb : float, optional
        Megabytes (2**20 bytes) of address space a fold's fit may add to what its worker
        process maps; None for no cap.
    """

    dataset: str
    algorithm: Any  # a portfolio's Algorithm: name and build_pipeline(...)
    X: Any  # pandas DataFrame
    y: np.ndarray  # integer class codes 0..K-1, or float targets for regression
    n_classes: int  # 0 for regression
    numeric_columns: tuple[str, ...]
    categorical_columns: tuple[str, ...]
    protocol: str
    seed: int
    timeout: float | None = None
    memory_limit_mb: float | None = None


@dataclass(frozen=True)
class FoldRecord:
    """The raw outcome of one fold: status, times and predictions (metrics come later).

    Keeping predictions rather than metrics means a cached job stays valid when a metric is
    added or changed: :func:`fold_metrics` scores it when the dataset's runs are stored.

    Parameters
    ----------
    fold : int
        The fold's index in the protocol's splits, from 0.
    status : str
        ``"ok"``, ``"error"`` (the algorithm raised, or its worker died) or ``"timeout"``
        (killed at the time limit or deadline, or not run after a fold that hit the limit).
    error : str or None
        The reason, one line; None when ``status`` is ``"ok"``.
    fit_time : float
        CPU seconds (``time.process_time``, user + system) of the ``fit`` call.  For a fold
        that did not finish, the wall-clock seconds it ran or was given
        (:func:`failed_fold`).
    predict_time : float
        CPU seconds of the ``predict`` call (and of ``predict_proba`` or
        ``decision_function``); 0.0 for a fold that did not finish.
    fit_wall_time : float
        Wall-clock seconds (``time.perf_counter()`` differences) of the ``fit`` call; the
        same value as ``fit_time`` for a fold that did not finish.
    predict_wall_time : float
        Wall-clock seconds of the prediction calls; 0.0 for a fold that did not finish.
    test_index : ndarray of shape (n_test,), optional
        Positions of the fold's test rows in the job's ``X`` and ``y``.
    y_pred : ndarray of shape (n_test,), optional
        The predictions: class codes, or floats for regression; None unless ``"ok"``.
    proba : ndarray of shape (n_test, n_classes), optional
        Class probabilities, column ``k`` for class code ``k`` (0 for a class the fit did not
        see); None for regression, an estimator without ``predict_proba`` or a failed fold.
    scores : ndarray of shape (n_test,) or (n_test, n_classes), optional
        Ranking scores, higher for more likely: for two classes the positive class's (code 1)
        probability or decision value, for more the per-class probabilities or decision
        values (a class the fit did not see gets less than every other score); None when the
        estimator gives neither, for regression and for a failed fold.
    resubstitution_accuracy : float, optional
        With ``"bootstrap632"``: the success rate on the fold's own training sample (accuracy,
        or :func:`metarec.evaluation.regression_success_score`); None otherwise.
    """

    fold: int
    status: str
    error: str | None
    fit_time: float
    predict_time: float
    fit_wall_time: float
    predict_wall_time: float
    test_index: np.ndarray | None = None
    y_pred: np.ndarray | None = None
    proba: np.ndarray | None = None  # (n_test, K) over all classes, or None
    scores: np.ndarray | None = None  # (n_test,) binary or (n_test, K) multiclass, or None
    resubstitution_accuracy: float | None = None


@dataclass(frozen=True)
class JobResult:
    """All folds of one (dataset, algorithm) job.

    Parameters
    ----------
    dataset : str
        The dataset's name.
    algorithm : str
        The algorithm's name.
    protocol : str
        The evaluation protocol of the folds.
    seed : int
        The ``random_state`` of the splits and of the pipelines.
    folds : tuple of FoldRecord
        The records of the job's folds, in the order they were recorded.
    """

    dataset: str
    algorithm: str
    protocol: str
    seed: int
    folds: tuple[FoldRecord, ...]


def fit_predict(spec: JobSpec, train: np.ndarray, test: np.ndarray, resubstitution: bool) -> dict:
    """Fit on ``train`` and predict ``test``; runs inside the isolated child."""
    pipeline = spec.algorithm.build_pipeline(
        numeric_columns=spec.numeric_columns,
        categorical_columns=spec.categorical_columns,
        random_state=spec.seed,
    )
    X_train, y_train = spec.X.iloc[train], spec.y[train]
    X_test = spec.X.iloc[test]
    wall, cpu = time.perf_counter(), time.process_time()
    pipeline.fit(X_train, y_train)
    fit_time, fit_wall = time.process_time() - cpu, time.perf_counter() - wall
    wall, cpu = time.perf_counter(), time.process_time()
    y_pred = pipeline.predict(X_test)
    classify = spec.n_classes > 0
    proba = decision = None
    if classify and hasattr(pipeline, "predict_proba"):
        proba = pipeline.predict_proba(X_test)
    if classify and proba is None and hasattr(pipeline, "decision_function"):
        decision = pipeline.decision_function(X_test)
    predict_time, predict_wall = time.process_time() - cpu, time.perf_counter() - wall
    out = {
        "y_pred": np.asarray(y_pred, dtype=None if classify else float).ravel(),
        "proba": None if proba is None else np.asarray(proba, dtype=float),
        "decision": None if decision is None else np.asarray(decision, dtype=float),
        "classes": np.asarray(pipeline.classes_) if classify else None,
        "fit_time": fit_time,
        "fit_wall_time": fit_wall,
        "predict_time": predict_time,
        "predict_wall_time": predict_wall,
    }
    if resubstitution:
        fitted = pipeline.predict(X_train)
        if classify:
            out["resubstitution_accuracy"] = float(np.mean(fitted == y_train))
        else:
            from metarec.evaluation import regression_success_score

            out["resubstitution_accuracy"] = regression_success_score(y_train, fitted)
    return out


def _align(matrix: np.ndarray, classes: np.ndarray, n_classes: int, fill: float) -> np.ndarray:
    """Place the columns of a per-class matrix at the positions of their class codes."""
    full = np.full((matrix.shape[0], n_classes), fill, dtype=float)
    full[:, classes.astype(int)] = matrix
    return full


def _scores(out: dict, n_classes: int) -> tuple[np.ndarray | None, np.ndarray | None]:
    """Return (probabilities over all classes or None, ranking scores or None)."""
    classes = out["classes"]
    proba = None
    if out["proba"] is not None:
        proba = _align(out["proba"], classes, n_classes, 0.0)
    if proba is not None:
        scores = proba[:, 1] if n_classes == 2 else proba
        return proba, scores
    decision = out["decision"]
    if decision is None:
        return None, None
    if decision.ndim == 1:  # binary decision function: positive class is classes[1]
        if n_classes != 2 or len(classes) != 2:
            return None, None
        return None, decision
    return None, _align(decision, classes, n_classes, float(np.min(decision)) - 1.0)


def score_predictions(
    y_test: np.ndarray,
    y_pred: np.ndarray,
    proba: np.ndarray | None,
    scores: np.ndarray | None,
    *,
    n_classes: int,
) -> dict[str, float]:
    """Score one fold with metarec's evaluation library (NaN where a metric is undefined).

    ROC AUC is the binary AUC of the positive-class score, or for several classes the macro
    average of one-vs-rest AUCs over the classes present in the fold (any real-valued
    per-class score works: probabilities or decision values).  Log loss, quadratic loss and
    informational loss need probabilities and are NaN for estimators without them.  Tau and
    ROC AUC are NaN on a fold whose true labels are all one class; balanced accuracy is then
    that class's recall (:func:`metarec.evaluation.balanced_accuracy_score`).

    Parameters
    ----------
    y_test : ndarray of shape (n_test,)
        The true class codes, ``0..n_classes - 1``.
    y_pred : ndarray of shape (n_test,)
        The predicted class codes.
    proba : ndarray of shape (n_test, n_classes) or None
        Class probabilities, column ``k`` for class code ``k`` (clipped at 1e-15 and rows
        renormalised before the losses); None when the estimator has none.
    scores : ndarray of shape (n_test,) or (n_test, n_classes), or None
        Ranking scores: for two classes those of class code 1, for more one column per
        class code; None when the estimator has none.
    n_classes : int
        The number of classes, at least 2.

    Returns
    -------
    dict of str to float
        ``balanced_accuracy``, ``tau`` and ``roc_auc`` (higher is better, in [0, 1]);
        ``log_loss`` (nats), ``quadratic_loss`` and ``informational_loss`` (bits), means over
        the fold's objects (lower is better).

    References
    ----------
    .. [1] Ahmadzadeh et al., "Contingency Space", IEEE TPAMI 2023, Defs. 5.4 and 5.7 (Tau).
    """
    from sklearn.metrics import roc_auc_score

    from metarec.evaluation import (
        balanced_accuracy_score,
        informational_loss,
        multiclass_tau_score,
        quadratic_loss,
        tau_score,
    )

    labels = np.arange(n_classes)
    balanced = balanced_accuracy_score(y_test, y_pred)
    tau = np.nan  # undefined on a fold with one true class (leave-one-out, tiny holdouts)
    if len(np.unique(y_test)) > 1:
        tau_function = tau_score if n_classes == 2 else multiclass_tau_score
        tau = float(tau_function(y_test, y_pred, labels=labels))
    metrics: dict[str, float] = {
        "balanced_accuracy": balanced,
        "tau": tau,
        "roc_auc": np.nan,
        "log_loss": np.nan,
        "quadratic_loss": np.nan,
        "informational_loss": np.nan,
    }
    if scores is not None:
        if n_classes == 2:
            if len(np.unique(y_test)) == 2:
                metrics["roc_auc"] = float(roc_auc_score(y_test, scores))
        else:
            onehot = y_test[:, None] == labels[None, :]
            present = onehot.any(axis=0) & (~onehot).any(axis=0)
            if present.any():
                metrics["roc_auc"] = float(
                    roc_auc_score(onehot[:, present], scores[:, present], average="macro")
                )
    if proba is not None:
        clipped = np.clip(proba, 1e-15, 1.0)
        clipped /= clipped.sum(axis=1, keepdims=True)
        bits = float(informational_loss(y_test, clipped, labels=labels))
        metrics["log_loss"] = bits * np.log(2.0)  # scikit-learn's log_loss, in nats
        metrics["quadratic_loss"] = float(quadratic_loss(y_test, clipped, labels=labels))
        metrics["informational_loss"] = bits
    return metrics


def fold_metrics(record: FoldRecord, y: np.ndarray, n_classes: int) -> dict[str, float]:
    """Score one successful fold; for the 0.632 bootstrap ``accuracy`` is the .632 estimate.

    ``accuracy`` is the task's success rate: the share of correct labels for classification
    (``n_classes > 0``), :func:`metarec.evaluation.regression_success_score` (R² clipped at
    0) for regression (``n_classes == 0``), which also stores RMSE, MAE and unclipped R².

    Parameters
    ----------
    record : FoldRecord
        A fold with status ``"ok"`` (its ``test_index`` and ``y_pred`` set).
    y : ndarray of shape (n_samples,)
        The job's whole target (class codes, or values for regression), indexed by
        ``record.test_index``.
    n_classes : int
        The number of classes; 0 for regression.

    Returns
    -------
    dict of str to float
        ``accuracy`` (higher is better, in [0, 1]) and, for classification, the metrics of
        :func:`score_predictions`; for regression ``rmse`` and ``mae`` (in the target's unit,
        lower is better) and ``r2``, all NaN when a prediction is not finite.  When the record
        has a resubstitution accuracy (the 0.632 bootstrap) also ``oob_accuracy`` (the
        out-of-bag success rate) and ``resubstitution_accuracy``, and ``accuracy`` is
        ``0.632 * oob_accuracy + 0.368 * resubstitution_accuracy``.
    """
    from metarec.evaluation import (
        bootstrap632_estimate,
        regression_scores,
        regression_success_score,
    )

    y_test = y[record.test_index]
    if n_classes == 0:
        y_pred = np.asarray(record.y_pred, dtype=float)
        if not np.all(np.isfinite(y_pred)):
            return {"accuracy": np.nan, "rmse": np.nan, "mae": np.nan, "r2": np.nan}
        accuracy = regression_success_score(y_test, y_pred)
        metrics = regression_scores(y_test, y_pred)
    else:
        accuracy = float(np.mean(record.y_pred == y_test))
        metrics = score_predictions(
            y_test, record.y_pred, record.proba, record.scores, n_classes=n_classes
        )
    if record.resubstitution_accuracy is not None:
        metrics["oob_accuracy"] = accuracy
        metrics["resubstitution_accuracy"] = record.resubstitution_accuracy
        accuracy = float(bootstrap632_estimate(accuracy, record.resubstitution_accuracy))
    metrics["accuracy"] = accuracy
    return metrics


def unsplittable(X, codes: np.ndarray, protocol: str, random_state: int) -> str | None:
    """Why ``protocol`` cannot split the data, or None.

    Parameters
    ----------
    X : DataFrame
        The features.
    codes : ndarray
        The target (class codes, or values for regression).
    protocol : str
        An evaluation protocol (:data:`metarec.evaluation.PROTOCOLS`).
    random_state : int
        Seed of the splits.

    Returns
    -------
    str or None
        The reason (a class smaller than the folds, ...), or None when it splits.
    """
    from metarec.evaluation import get_protocol
    from metarec.exceptions import InvalidInputError

    try:
        next(iter(get_protocol(protocol, random_state=random_state).split(X, codes)))
    except InvalidInputError as exc:
        return str(exc)
    return None


def fold_splits(spec: JobSpec) -> list[tuple[np.ndarray, np.ndarray]]:
    """The (train, test) index pairs of ``spec.protocol`` on ``spec``'s data, in order.

    Parameters
    ----------
    spec : JobSpec
        The job, with its data; ``spec.seed`` is the splits' ``random_state``.

    Returns
    -------
    list of (ndarray, ndarray)
        One ``(train, test)`` pair per fold: positions of rows of ``spec.X`` (a 0.632
        bootstrap's ``train`` repeats rows).

    Raises
    ------
    UnknownNameError
        ``spec.protocol`` is not a protocol's name.
    InvalidInputError
        The protocol cannot split the data (:func:`unsplittable` says why).
    """
    from metarec.evaluation import get_protocol

    protocol = get_protocol(spec.protocol, random_state=spec.seed)
    return list(protocol.split(spec.X, spec.y))


def failed_fold(index: int, status: str, error: str | None, seconds: float, test) -> FoldRecord:
    """The record of a fold that did not finish (its time is the time it was given).

    Parameters
    ----------
    index : int
        The fold's index.
    status : str
        ``"error"`` or ``"timeout"``.
    error : str or None
        The reason, one line.
    seconds : float
        Wall-clock seconds the fold ran or was given, recorded as its ``fit_time`` and
        ``fit_wall_time`` (its predict times are 0.0).
    test : ndarray of shape (n_test,)
        Positions of the fold's test rows, recorded as ``test_index``.

    Returns
    -------
    FoldRecord
        The record, without predictions.
    """
    return FoldRecord(index, status, error, seconds, 0.0, seconds, 0.0, test_index=test)


def run_fold(spec: JobSpec, data: tuple, index: int, train, test) -> FoldRecord:
    """What a worker runs for one fold of :func:`job_task`'s task: the data are sent apart."""
    from dataclasses import replace

    X, y = data
    return evaluate_fold(replace(spec, X=X, y=y), index, train, test)


def job_task(spec: JobSpec, splits, *, start: int = 0, folds=(), deadline=None):
    """The worker pool's task (:class:`~metarec.execution.JobTask`) of ``spec``'s folds.

    Parameters
    ----------
    spec : JobSpec
        The job, with its data (sent to a worker once per dataset, protocol, seed and size
        of the folds: the data and the folds a worker keeps are named by all of them).
    splits : sequence of (train, test)
        The folds (:func:`fold_splits`, or a search's own: a large dataset's sample under a
        protocol of its own, see :mod:`metarec.automl._rungs`).
    start : int, default=0
        The first fold to run.
    folds : sequence of FoldRecord, default=()
        Records of folds already finished (an interrupted job's).
    deadline : float, optional
        ``time.perf_counter()`` after which a running fold is killed.

    Returns
    -------
    JobTask
    """
    from dataclasses import replace

    from metarec.execution._pool import JobTask

    # a worker keeps the data and the folds of one key: the key names both (a large
    # dataset's samples are the same data with other folds: the protocol names the sample)
    key = (spec.dataset, spec.protocol, spec.seed, tuple(len(train) for train, _ in splits))
    return JobTask(
        run_fold,
        replace(spec, X=None, y=None),
        key,
        (spec.X, spec.y),
        splits,
        failed_fold,
        timeout=spec.timeout,
        start=start,
        folds=list(folds),
        deadline=deadline,
        spec=spec,
    )


def ok_fold(spec: JobSpec, index: int, test: np.ndarray, out: dict) -> FoldRecord:
    proba, scores = _scores(out, spec.n_classes) if spec.n_classes else (None, None)
    return FoldRecord(
        index,
        "ok",
        None,
        out["fit_time"],
        out["predict_time"],
        out["fit_wall_time"],
        out["predict_wall_time"],
        test_index=test,
        y_pred=out["y_pred"],
        proba=proba,
        scores=scores,
        resubstitution_accuracy=out.get("resubstitution_accuracy"),
    )


def _out_of_memory(exc: BaseException) -> bool:
    """Whether ``exc`` (or what caused it) is an allocation refused by the memory cap.

    Under ``RLIMIT_AS`` a refused allocation is a :class:`MemoryError` in Python code, but a
    native library may report it as ``OSError(ENOMEM)`` (a shared object that cannot be
    mapped), a C++ ``std::bad_alloc`` or its own exception naming the failed allocation.
    """
    import errno

    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, MemoryError):
            return True
        if isinstance(exc, OSError) and exc.errno == errno.ENOMEM:
            return True
        text = str(exc).lower()
        if "bad_alloc" in text or "cannot allocate memory" in text or "out of memory" in text:
            return True
        exc = exc.__cause__ or exc.__context__
    return False


def _address_space() -> int:
    """Bytes of address space this process maps now (``VmSize``; 0 where unknown)."""
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as status:
            for line in status:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError):
        pass
    return 0


def _non_finite(out: dict) -> str | None:
    """Why a fold's predictions cannot be scored (NaN or infinite values), or None.

    A model fitted on values near the float64 limit (``1e308``: standardised, they overflow)
    can predict NaN or infinity; such a fold is a failed fold with this reason, as a fit that
    raises is, rather than an error of the whole command when it is scored.
    """
    for key, what in (("y_pred", "predictions"), ("proba", "probabilities"),
                      ("decision", "decision values")):  # fmt: skip
        value = out.get(key)
        if value is None or value.dtype.kind not in "fc":
            continue
        bad = ~np.isfinite(value)
        if bad.any():
            rows = int(bad.reshape(len(value), -1).any(axis=1).sum())
            return (
                f"ValueError: the model predicted non-finite {what} (NaN or infinity) for "
                f"{rows} of {len(value)} test rows"
            )
    return None


def evaluate_fold(spec: JobSpec, index: int, train: np.ndarray, test: np.ndarray) -> FoldRecord:
    """Fit and score one fold in this process (a benchmark worker), under the memory cap.

    The times are those of ``fit`` and ``predict`` themselves, measured around the calls in
    this process (CPU: ``time.process_time``; wall: ``time.perf_counter``).  An exception of
    the algorithm becomes an ``error`` record; so does exceeding ``spec.memory_limit_mb``,
    the memory the fit may add to the worker's own address space (``RLIMIT_AS`` lowered to the
    worker's current size plus the limit for the duration of the fold), and so do
    predictions, probabilities or decision values that are not finite (NaN or infinity: the
    reason names how many test rows).

    Parameters
    ----------
    spec : JobSpec
        The job, with its data.
    index : int
        The fold's index, recorded as ``fold``.
    train : ndarray of shape (n_train,)
        Positions of the training rows of ``spec.X`` (repeated rows for the 0.632
        bootstrap).
    test : ndarray of shape (n_test,)
        Positions of the test rows.

    Returns
    -------
    FoldRecord
        Status ``"ok"`` with the predictions and times, or ``"error"`` with the message and,
        as its time, the wall-clock seconds from the call to the failure.
    """
    start = time.perf_counter()
    bootstrap = spec.protocol == "bootstrap632"
    limit = spec.memory_limit_mb
    restore = None
    try:
        if limit is not None:
            import resource

            restore = resource.getrlimit(resource.RLIMIT_AS)
            # the fit's allowance on top of what the warm worker already maps (its imported
            # libraries and thread arenas take more than a gigabyte of address space)
            cap = _address_space() + int(limit * 1024 * 1024)
            if restore[1] != resource.RLIM_INFINITY:
                cap = min(cap, restore[1])
            resource.setrlimit(resource.RLIMIT_AS, (cap, restore[1]))
        out = fit_predict(spec, train, test, bootstrap)
    except Exception as exc:  # the algorithm's own failure, recorded as data
        if limit is not None and _out_of_memory(exc):
            message = f"MemoryError: exceeded the memory cap of {limit} MB"
        else:
            message = error_line(exc)
        return failed_fold(index, "error", message, time.perf_counter() - start, test)
    finally:
        if restore is not None:
            import resource

            resource.setrlimit(resource.RLIMIT_AS, restore)
    problem = _non_finite(out)
    if problem is not None:  # the fit ran, its predictions cannot be scored
        return failed_fold(index, "error", problem, out["fit_time"], test)
    return ok_fold(spec, index, test, out)
