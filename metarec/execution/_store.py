"""The run store: registering datasets and algorithms in a knowledge base and writing fold rows.

What the benchmark and ``metarec run`` both write: a dataset under the name it is stored under
(:func:`stored_name`), the algorithms with their library versions and parameters, the
dataset's metafeatures, and one run row per fold with its metrics (for classification NoSimple
AUC across the algorithms run on the same folds: :func:`nosimple_by_fold`), its times and the
machine that measured them.  The knowledge base is the caller's object (anything with
:class:`~metarec.storage.KnowledgeBase`'s ``add_dataset``, ``add_algorithm``,
``import_metafeatures``, ``import_runs``, ``datasets`` and ``runs``), so this layer does not
depend on the storage's implementation.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from metarec.execution._jobs import JobResult, fold_metrics
from metarec.execution._names import stored_name

__all__ = [
    "ResultCache",
    "SOURCE",
    "machine_description",
    "register_algorithm",
    "register_dataset",
    "nosimple_by_fold",
    "run_rows",
    "store_results",
    "stored_folds",
    "stored_name",
]

#: The ``source`` of the runs the benchmark and ``metarec run`` store.
SOURCE = "benchmark"


def _algorithm_key(algorithm) -> str:
    config = [algorithm.estimator, algorithm.params, algorithm.scale]
    if algorithm.scale_target:
        config.append("scale_target")
    text = json.dumps(config, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


class ResultCache:
    """Finished jobs on disk, with their predictions, for resuming and for ensembles.

    A job's :class:`~metarec.execution.JobResult` (its folds' records, predictions
    included) is kept under the dataset's content (fingerprint), the algorithm's
    configuration (estimator, parameters, scaling), the protocol and the seed: what the
    knowledge base's rows do not hold.  An interrupted benchmark resumes from it, and a
    search whose folds are reused from the knowledge base finds the out-of-fold predictions
    ensemble selection needs.  A damaged or foreign entry (another version's classes) is
    treated as missing; writes go to a temporary name and are renamed into place.

    Parameters
    ----------
    directory : Path or None
        Where the entries are kept (None: nothing is kept).
    """

    def __init__(self, directory: Path | None) -> None:
        self.directory = None if directory is None else Path(directory)

    def _path(self, fingerprint: str, algorithm, protocol: str, seed: int) -> Path:
        name = f"{algorithm.name}-{_algorithm_key(algorithm)}.pkl"
        return self.directory / f"{protocol}-seed{seed}" / fingerprint[:16] / name

    def load(self, fingerprint: str, algorithm, protocol: str, seed: int) -> JobResult | None:
        """The job kept for these keys, or None.

        Parameters
        ----------
        fingerprint : str
            The dataset's content hash.
        algorithm : Algorithm
            The portfolio's algorithm (name and configuration).
        protocol : str
            The evaluation protocol.
        seed : int
            The seed of the folds.

        Returns
        -------
        JobResult or None
        """
        if self.directory is None:
            return None
        path = self._path(fingerprint, algorithm, protocol, seed)
        try:
            with path.open("rb") as handle:
                result = pickle.load(handle)
        except FileNotFoundError:
            return None
        except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError):
            return None  # a damaged or foreign entry is recomputed
        return result if isinstance(result, JobResult) else None

    def save(self, fingerprint: str, algorithm, protocol: str, seed: int, result) -> None:
        """Keep ``result`` (a :class:`~metarec.execution.JobResult`) under these keys.

        Parameters
        ----------
        fingerprint : str
            The dataset's content hash.
        algorithm : Algorithm
            The portfolio's algorithm.
        protocol : str
            The evaluation protocol.
        seed : int
            The seed of the folds.
        result : JobResult
            The job.
        """
        if self.directory is None:
            return
        from metarec._files import atomic_path

        path = self._path(fingerprint, algorithm, protocol, seed)
        path.parent.mkdir(parents=True, exist_ok=True)
        with atomic_path(path) as tmp, tmp.open("wb") as handle:
            pickle.dump(result, handle, protocol=pickle.HIGHEST_PROTOCOL)


def machine_description() -> str:
    """One line naming the machine and libraries that measured the times.

    CPU model, logical cores, operating system and architecture, and the versions of Python,
    numpy, scipy and scikit-learn, e.g. ``"Intel(R) Xeon(R) CPU @ 2.20GHz; 2 cores; Linux
    x86_64; python 3.11.7; numpy 2.4.6; scipy 1.16.0; scikit-learn 1.9.1"``.

    Returns
    -------
    str
        The parts joined by ``"; "``.
    """
    import platform
    from importlib import metadata

    cpu = ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as handle:
            for line in handle:
                if line.lower().startswith(("model name", "hardware", "cpu model")):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    cpu = " ".join((cpu or platform.processor() or platform.machine() or "unknown CPU").split())
    parts = [cpu, f"{os.cpu_count()} cores", f"{platform.system()} {platform.machine()}"]
    parts.append(f"python {platform.python_version()}")
    for package in ("numpy", "scipy", "scikit-learn"):
        try:
            parts.append(f"{package} {metadata.version(package)}")
        except metadata.PackageNotFoundError:  # pragma: no cover
            pass
    return "; ".join(parts)


def register_algorithm(kb, algorithm) -> None:
    """Record ``algorithm`` in ``kb``: its family, library version and parameters.

    The parameters stored are ``estimator``, the algorithm's ``params``, ``scale``, and
    ``scale_target`` when it is set.

    Parameters
    ----------
    kb : KnowledgeBase
        Where it is recorded (anything with ``add_algorithm``).
    algorithm : Algorithm
        A portfolio's :class:`~metarec.benchmark.Algorithm` (its ``name``, ``family``,
        ``library_version()``, ``estimator``, ``params``, ``scale`` and ``scale_target``
        are read).
    """
    kb.add_algorithm(
        algorithm.name,
        family=algorithm.family,
        library=algorithm.library_version(),
        parameters={
            "estimator": algorithm.estimator,
            **algorithm.params,
            "scale": algorithm.scale,
            **({"scale_target": True} if algorithm.scale_target else {}),
        },
    )


def register_dataset(kb, name: str, ds) -> None:
    """Record the loaded dataset ``ds`` in ``kb`` under ``name`` (with its fingerprint).

    Parameters
    ----------
    kb : KnowledgeBase
        Where it is recorded (anything with ``add_dataset``).
    name : str
        The name it is stored under (:func:`stored_name`).
    ds : Dataset
        The loaded dataset: its ``source``, ``source_id``, ``task`` and ``fingerprint``, and
        the shape of its ``X`` and ``y`` (instances and features) are recorded.
    """
    kb.add_dataset(
        name,
        source=ds.source,
        source_id=ds.source_id,
        task=ds.task,
        n_instances=len(ds.y),
        n_features=ds.X.shape[1],
        fingerprint=ds.fingerprint,
    )


def nosimple_by_fold(results: Sequence[JobResult], y: np.ndarray, n_classes: int) -> dict:
    """NoSimple ROC AUC of every (algorithm, fold) across the algorithms run on one dataset.

    The standard simple objects of a fold are those every algorithm with informative scores
    ranks correctly (Eq. 1 and 2 of the NoSimple paper).  An algorithm whose scores are the
    same for every object of the fold (the majority baseline) ranks nothing, so it has no
    simple objects; letting it take part would leave the intersection always empty and make
    NoSimple AUC equal plain AUC.  Such algorithms are therefore left out of finding the
    simple objects, and their NoSimple AUC is 0.5, the AUC of constant scores.

    Parameters
    ----------
    results : sequence of JobResult
        The classification jobs of one dataset, run on the same folds.
    y : ndarray of shape (n_samples,)
        The dataset's class codes, ``0..n_classes - 1``, indexed by the folds' ``test_index``.
    n_classes : int
        The number of classes, at least 2.

    Returns
    -------
    dict of (str, int) to float
        NoSimple ROC AUC (higher is better, in [0, 1]) by (algorithm name, fold index), for
        the folds with status ``"ok"`` and ranking scores.  A fold whose test objects are
        all one class, or on which the AUC is undefined, has no entry.
    """
    from metarec.evaluation import nosimple_roc_auc_score

    values: dict[tuple[str, int], float] = {}
    by_fold = [{record.fold: record for record in r.folds} for r in results]
    folds = sorted({number for records in by_fold for number in records})
    for fold in folds:
        members = [
            (r, records[fold])
            for r, records in zip(results, by_fold, strict=True)
            if fold in records and records[fold].status == "ok" and records[fold].scores is not None
        ]
        if not members:
            continue
        y_test = y[members[0][1].test_index]
        if len(np.unique(y_test)) < 2:
            continue
        informative = []
        for r, record in members:
            if np.ptp(record.scores, axis=0).max() > 0:
                informative.append((r, record))
            else:
                values[(r.algorithm, fold)] = 0.5
        if not informative:
            continue
        stacked = np.stack([record.scores for _, record in informative], axis=1)
        try:
            auc = nosimple_roc_auc_score(y_test, stacked, labels=np.arange(n_classes))
        except ValueError:
            continue  # undefined on this fold
        for (r, _), value in zip(informative, np.asarray(auc, dtype=float), strict=True):
            values[(r.algorithm, fold)] = float(value)
    return values


def run_rows(
    result: JobResult, nosimple: dict, y: np.ndarray, n_classes: int, machine: str
) -> list[dict]:
    """The knowledge base's run rows of one job: one per fold, with its metrics.

    Parameters
    ----------
    result : JobResult
        The job.
    nosimple : dict of (str, int) to float
        NoSimple AUC by (algorithm name, fold index) (:func:`nosimple_by_fold`); ``{}`` for
        regression.
    y : ndarray of shape (n_samples,)
        The target the job was run on (class codes, or values for regression).
    n_classes : int
        The number of classes; 0 for regression.
    machine : str
        The machine that measured the times (:func:`machine_description`), cut to 255
        characters.

    Returns
    -------
    list of dict
        One row per fold, in the order of ``result.folds``: ``dataset``, ``algorithm``,
        ``protocol``, ``seed``, ``fold``, ``status``, ``error``, ``accuracy``, ``time`` (the
        fit's CPU seconds), ``predict_time`` (CPU seconds), ``fit_wall_time`` and
        ``predict_wall_time`` (wall-clock seconds), ``source`` (:data:`SOURCE`),
        ``source_run_id`` (``dataset/algorithm/protocol/seed/fold``), ``machine``, the other
        metrics of :func:`~metarec.execution.fold_metrics` and ``nosimple_auc``.  A fold that
        is not ``"ok"`` has no other metrics and a NaN ``accuracy``; ``nosimple_auc`` is NaN
        where ``nosimple`` has no entry.
    """
    rows = []
    for fold in result.folds:
        metrics = fold_metrics(fold, y, n_classes) if fold.status == "ok" else {}
        row = {
            "dataset": result.dataset,
            "algorithm": result.algorithm,
            "protocol": result.protocol,
            "seed": result.seed,
            "fold": fold.fold,
            "status": fold.status,
            "accuracy": metrics.pop("accuracy", np.nan),
            "time": fold.fit_time,
            "predict_time": fold.predict_time,
            "source": SOURCE,
            "source_run_id": _run_id(result, fold.fold),
            "error": fold.error,
            "machine": machine[:255],
            "fit_wall_time": fold.fit_wall_time,
            "predict_wall_time": fold.predict_wall_time,
            **metrics,
            "nosimple_auc": nosimple.get((result.algorithm, fold.fold), np.nan),
        }
        rows.append(row)
    return rows


def _run_id(result: JobResult, fold: int) -> str:
    """``dataset/algorithm/protocol/seed/fold``, within the column's 255 characters."""
    key = "/".join([result.dataset, result.algorithm, result.protocol, str(result.seed), str(fold)])
    return key[:255]


def store_results(kb, results: Sequence[JobResult], encoded, *, protocol: str, machine=None):
    """Write the fold rows of ``results`` (one dataset's jobs) into ``kb``.

    Parameters
    ----------
    kb : KnowledgeBase
        Where the runs go (their dataset and algorithms registered already).
    results : sequence of JobResult
        The jobs of one dataset, run on the same folds.
    encoded : (ndarray, int)
        The target as the workers took it and the number of classes (0: regression).
    protocol : str
        The evaluation protocol of the folds.
    machine : str, optional
        The machine that measured the times (default :func:`machine_description`).

    Returns
    -------
    int
        Runs added (a fold stored by an earlier, interrupted run keeps its first measurement).
    """
    import pandas as pd

    codes, n_classes = encoded
    if not results:
        return 0
    machine = machine_description() if machine is None else machine
    nosimple = nosimple_by_fold(results, codes, n_classes) if n_classes else {}
    rows = [
        row for result in results for row in run_rows(result, nosimple, codes, n_classes, machine)
    ]
    report = kb.import_runs(
        pd.DataFrame(rows), source=SOURCE, protocol=protocol, on_conflict="keep"
    )
    return int(report.added)


def stored_folds(kb, name: str, *, protocol: str, seed: int, metric: str) -> dict:
    """The folds of ``name`` stored with ``protocol`` and ``seed`` that a new run can reuse.

    Only the benchmark's and searches' runs (source :data:`SOURCE`) count.  Folds that failed
    with an error are deterministic and reused as failures; only a prefix of folds can be
    resumed (folds run in order), so a gap ends what is reused.

    Parameters
    ----------
    kb : KnowledgeBase
        The knowledge base (anything with ``datasets()`` and ``runs(aggregate=False,
        datasets=[...])``).
    name : str
        The name the dataset is stored under (:func:`stored_name`).
    protocol : str
        The evaluation protocol of the folds.
    seed : int
        The ``random_state`` of the splits.
    metric : str
        The column of ``kb.runs`` returned as each fold's score (``"balanced_accuracy"``,
        say).

    Returns
    -------
    dict of str to dict of int to tuple
        ``algorithm -> {fold: (status, score, fit_time, accuracy)}``: ``status`` ``"ok"``
        or ``"error"``, ``score`` the fold's ``metric``, ``fit_time`` the fit's CPU seconds
        and ``accuracy`` its success rate, as floats (NaN where not stored); for each
        algorithm the folds ``0..k - 1`` stored without a gap (k may be 0).  Empty when
        ``name`` is not stored or has no runs, or ``metric`` is not a column of its runs.
    """
    if name not in set(kb.datasets()["name"]):
        return {}
    runs = kb.runs(aggregate=False, datasets=[name])
    if not len(runs) or metric not in runs.columns:
        return {}
    mine = runs[
        (runs["source"] == SOURCE)
        & (runs["protocol"] == protocol)
        & (runs["seed"] == seed)
        & runs["status"].isin(["ok", "error"])
    ]
    out: dict[str, dict[int, tuple[str, float, float, float]]] = {}
    for row in mine.itertuples(index=False):
        score = getattr(row, metric)
        accuracy = row.accuracy
        out.setdefault(row.algorithm, {})[int(row.fold)] = (
            row.status,
            float(score),
            float(row.fit_time),
            float(accuracy),
        )
    for algorithm, folds in out.items():
        prefix = {}
        for index in range(len(folds) + 1):
            if index not in folds:
                break
            prefix[index] = folds[index]
        out[algorithm] = prefix
    return out
