"""The benchmark runner: every algorithm of a portfolio on every dataset, into the KB.

:func:`run_benchmark` plans one job per (dataset, algorithm) pair, skips the pairs whose
runs are already stored (a rerun resumes), runs the rest in parallel with joblib (locally with
loky processes, or on a Dask cluster through joblib's dask backend), and stores per fold:
accuracy, balanced accuracy, ROC AUC, NoSimple AUC across the portfolio, Tau, log loss,
quadratic and informational loss, fit and predict CPU and wall times, status (ok, timeout,
error with its message) and the seed; the algorithm records carry the library version. The
dataset's metafeatures are stored too.

Results of finished jobs are also written to a cache directory as they arrive, so an
interrupted benchmark loses at most the jobs that were running.  A dataset's runs enter the
knowledge base together, once every planned algorithm has finished on it, because NoSimple AUC
compares the scores of all algorithms on the same objects (Eq. 2 of the NoSimple paper).
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from metarec.benchmark._folds import JobResult, JobSpec, fold_metrics, run_job
from metarec.benchmark._portfolio import Algorithm, Portfolio, default_portfolio
from metarec.exceptions import BenchmarkError

__all__ = ["BenchmarkReport", "Failure", "run_benchmark", "PROTOCOLS"]

PROTOCOLS = ("cv10x10", "cv10", "cv5", "loo", "bootstrap632", "holdout")
SOURCE = "benchmark"


@dataclass(frozen=True)
class Failure:
    """A (dataset, algorithm) pair with at least one failed fold."""

    dataset: str
    algorithm: str
    status: str
    n_failed: int
    message: str


@dataclass(frozen=True)
class BenchmarkReport:
    """Summary of one benchmark invocation."""

    datasets: int
    algorithms: int
    jobs_run: int
    jobs_cached: int
    jobs_skipped: int
    runs_stored: int
    failures: tuple[Failure, ...]
    seconds: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "datasets": self.datasets,
            "algorithms": self.algorithms,
            "jobs_run": self.jobs_run,
            "jobs_from_cache": self.jobs_cached,
            "jobs_already_stored": self.jobs_skipped,
            "runs_stored": self.runs_stored,
            "failed_jobs": len(self.failures),
            "seconds": round(self.seconds, 1),
        }


def _algorithm_key(algorithm: Algorithm) -> str:
    text = json.dumps([algorithm.estimator, algorithm.params, algorithm.scale], sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def _library_version(algorithm: Algorithm) -> str:
    return algorithm.library_version()  # e.g. xgboost-cpu==3.2.0 for the module xgboost


class _Cache:
    """Finished job results on disk, keyed by dataset content, algorithm config and protocol."""

    def __init__(self, directory: Path | None) -> None:
        self.directory = directory

    def _path(self, fingerprint: str, algorithm: Algorithm, protocol: str, seed: int) -> Path:
        assert self.directory is not None
        name = f"{algorithm.name}-{_algorithm_key(algorithm)}.pkl"
        return self.directory / f"{protocol}-seed{seed}" / fingerprint[:16] / name

    def load(self, fingerprint, algorithm, protocol, seed) -> JobResult | None:
        if self.directory is None:
            return None
        path = self._path(fingerprint, algorithm, protocol, seed)
        try:
            with path.open("rb") as handle:
                return pickle.load(handle)
        except FileNotFoundError:
            return None
        except (OSError, pickle.UnpicklingError, EOFError, AttributeError):
            return None  # a damaged cache entry is recomputed

    def save(self, fingerprint, algorithm, protocol, seed, result: JobResult) -> None:
        if self.directory is None:
            return
        path = self._path(fingerprint, algorithm, protocol, seed)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".tmp{os.getpid()}")
        with tmp.open("wb") as handle:
            pickle.dump(result, handle, protocol=pickle.HIGHEST_PROTOCOL)
        tmp.replace(path)


def _nosimple(results: Sequence[JobResult], y: np.ndarray, n_classes: int) -> dict:
    """NoSimple ROC AUC of every (algorithm, fold) across the algorithms run on one dataset.

    The standard simple objects of a fold are those every algorithm with informative scores
    ranks correctly (Eq. 1 and 2 of the NoSimple paper).  An algorithm whose scores are the
    same for every object of the fold (the majority baseline) ranks nothing, so it has no
    simple objects; letting it take part would leave the intersection always empty and make
    NoSimple AUC equal plain AUC.  Such algorithms are therefore left out of finding the
    simple objects, and their NoSimple AUC is 0.5, the AUC of constant scores.
    """
    from metarec.evaluation import nosimple_roc_auc_score

    values: dict[tuple[str, int], float] = {}
    n_folds = max((len(r.folds) for r in results), default=0)
    for fold in range(n_folds):
        members = [
            r
            for r in results
            if fold < len(r.folds)
            and r.folds[fold].status == "ok"
            and r.folds[fold].scores is not None
        ]
        if not members:
            continue
        y_test = y[members[0].folds[fold].test_index]
        if len(np.unique(y_test)) < 2:
            continue
        informative = []
        for r in members:
            scores = r.folds[fold].scores
            if np.ptp(scores, axis=0).max() > 0:
                informative.append(r)
            else:
                values[(r.algorithm, fold)] = 0.5
        if not informative:
            continue
        stacked = np.stack([r.folds[fold].scores for r in informative], axis=1)
        try:
            auc = nosimple_roc_auc_score(y_test, stacked, labels=np.arange(n_classes))
        except ValueError:
            continue  # undefined on this fold
        for r, value in zip(informative, np.asarray(auc, dtype=float), strict=True):
            values[(r.algorithm, fold)] = float(value)
    return values


def _rows(result: JobResult, nosimple: dict, y: np.ndarray, n_classes: int) -> list[dict]:
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
            "source_run_id": "/".join(
                [
                    result.dataset,
                    result.algorithm,
                    result.protocol,
                    str(result.seed),
                    str(fold.fold),
                ]
            ),
            "error": fold.error,
            "fit_wall_time": fold.fit_wall_time,
            "predict_wall_time": fold.predict_wall_time,
            **metrics,
            "nosimple_auc": nosimple.get((result.algorithm, fold.fold), np.nan),
        }
        rows.append(row)
    return rows


def _extract_metafeatures(name: str, X, y, seed: int) -> tuple[str, dict[str, float]]:
    from metarec.metafeatures import extract

    return name, dict(extract(X, y, random_state=seed))


def _load(source: Any, target: str | None):
    from metarec.data import Dataset, load_dataset

    return source if isinstance(source, Dataset) else load_dataset(source, target=target)


def _unsplittable(X, codes: np.ndarray, protocol: str, random_state: int) -> str | None:
    """Why ``protocol`` cannot split the data (a class smaller than the folds...), or None."""
    from metarec.evaluation import get_protocol
    from metarec.exceptions import InvalidInputError

    try:
        next(iter(get_protocol(protocol, random_state=random_state).split(X, codes)))
    except InvalidInputError as exc:
        return str(exc)
    return None


def run_benchmark(
    datasets: Iterable[Any],
    kb,
    *,
    portfolio: Portfolio | None = None,
    algorithms: Sequence[str] | None = None,
    protocol: str = "cv10",
    n_jobs: int = 1,
    timeout: float | None = None,
    memory_limit_mb: float | None = None,
    random_state: int = 0,
    scheduler: str | None = None,
    cache_dir: str | Path | None = None,
    target: str | None = None,
    progress: Callable[..., None] | None = None,
) -> BenchmarkReport:
    """Evaluate a portfolio on datasets and store every fold's results in ``kb``.

    Parameters
    ----------
    datasets : iterable
        Anything :func:`metarec.data.load_dataset` accepts (paths, ``sklearn:NAME``,
        ``openml:ID``, DataFrames) or loaded :class:`~metarec.data.Dataset` objects.
        Classification datasets only.
    kb : KnowledgeBase
        Where results go; runs already stored there (same protocol and seed, source
        ``benchmark``) are skipped.
    portfolio : Portfolio, optional
        Algorithms to run; the default portfolio when omitted.
    algorithms : sequence of str, optional
        Restrict to these names of the portfolio.
    protocol : {"cv10x10", "cv10", "cv5", "loo", "bootstrap632", "holdout"}, default="cv10"
    n_jobs : int, default=1
        Parallel jobs (joblib; -1 for all cores).  With ``scheduler`` the default 1 means every
        worker thread of the Dask cluster.
    timeout : float, optional
        Seconds allowed per fit; a fit that takes longer is killed and recorded as ``timeout``.
    memory_limit_mb : float, optional
        Address-space cap per fit; exceeding it is recorded as ``error``.
    random_state : int, default=0
        Seed of the splits and of every estimator.
    scheduler : str, optional
        Address of a Dask scheduler; jobs then run on that cluster via joblib's dask backend.
    cache_dir : str or Path, optional
        Where finished jobs are kept for resuming; ``<data dir>/benchmark-cache`` by default.
    target : str, optional
        Target column of file datasets (see :func:`metarec.data.load_dataset`).
    progress : callable, optional
        ``progress(n=1, total=None)`` called as jobs finish.

    Returns
    -------
    BenchmarkReport
    """
    import joblib
    import pandas as pd

    from metarec._config import data_dir

    if protocol not in PROTOCOLS:
        raise BenchmarkError(f"unknown protocol {protocol!r}; choose one of {', '.join(PROTOCOLS)}")
    if timeout is not None and timeout <= 0:
        raise BenchmarkError(f"timeout must be positive, got {timeout}")
    start = time.perf_counter()
    portfolio = (portfolio or default_portfolio()).select(algorithms)
    cache = _Cache(Path(cache_dir) if cache_dir is not None else data_dir() / "benchmark-cache")
    tick = progress or (lambda n=1, total=None: None)

    loaded = {}
    for source in datasets:
        ds = _load(source, target)
        if ds.task == "regression":
            raise BenchmarkError(
                f"dataset {ds.name!r}: the benchmark runner evaluates classifiers; "
                "its target looks continuous (regression)"
            )
        if ds.name in loaded and loaded[ds.name].fingerprint != ds.fingerprint:
            raise BenchmarkError(f"two different datasets are both named {ds.name!r}")
        loaded[ds.name] = ds
    if not loaded:
        raise BenchmarkError("no datasets given")
    encoded = {}
    for name, ds in loaded.items():
        classes, codes = np.unique(np.asarray(ds.y).astype(str), return_inverse=True)
        encoded[name] = (codes, len(classes))
    failures: list[Failure] = []
    for name in list(loaded):
        problem = _unsplittable(loaded[name].X, encoded[name][0], protocol, random_state)
        if problem is not None:  # e.g. a class smaller than the number of folds
            failures.append(Failure(name, "*", "error", 0, f"dataset skipped: {problem}"))
            del loaded[name], encoded[name]

    stored = kb.datasets()
    known = dict(zip(stored["name"], stored["fingerprint"], strict=True)) if len(stored) else {}
    for name, ds in loaded.items():
        if known.get(name) and known[name] != ds.fingerprint:
            raise BenchmarkError(
                f"the knowledge base already holds a different dataset named {name!r}; "
                "rename the file or use another knowledge base"
            )
    for algorithm in portfolio:
        kb.add_algorithm(
            algorithm.name,
            family=algorithm.family,
            library=_library_version(algorithm),
            parameters={
                "estimator": algorithm.estimator,
                **algorithm.params,
                "scale": algorithm.scale,
            },
        )
    for name, ds in loaded.items():
        kb.add_dataset(
            name,
            source=ds.source,
            source_id=ds.source_id,
            task=ds.task,
            n_instances=len(ds.y),
            n_features=ds.X.shape[1],
            fingerprint=ds.fingerprint,
        )

    done: set[tuple[str, str]] = set()
    existing = kb.runs(aggregate=False, datasets=list(loaded))
    if len(existing):
        mine = existing[
            (existing["source"] == SOURCE)
            & (existing["protocol"] == protocol)
            & (existing["seed"] == random_state)
        ]
        done = set(mine.groupby(["dataset", "algorithm"]).size().index)
    have_mf = set(kb.metafeatures(datasets=list(loaded))["dataset"]) if loaded else set()

    specs, cached = [], defaultdict(list)
    for name, ds in sorted(loaded.items(), key=lambda kv: -kv[1].X.size):
        codes, n_classes = encoded[name]
        for algorithm in portfolio:
            if (name, algorithm.name) in done:
                continue
            hit = cache.load(ds.fingerprint, algorithm, protocol, random_state)
            if hit is not None:
                cached[name].append(hit)
                continue
            specs.append(
                JobSpec(
                    name,
                    algorithm,
                    ds.X,
                    codes,
                    n_classes,
                    tuple(ds.numeric_columns),
                    tuple(ds.categorical_columns),
                    protocol,
                    random_state,
                    timeout,
                    memory_limit_mb,
                )
            )
    mf_jobs = [(name, ds) for name, ds in loaded.items() if name not in have_mf]
    pending = defaultdict(int)
    for spec in specs:
        pending[spec.dataset] += 1
    jobs_skipped = sum(1 for n in loaded for a in portfolio if (n, a.name) in done)
    tick(0, total=len(specs) + len(mf_jobs))

    results = defaultdict(list, {k: list(v) for k, v in cached.items()})
    runs_stored = 0

    def flush(name: str) -> None:
        nonlocal runs_stored
        batch = results.pop(name, [])
        if not batch:
            return
        codes, n_classes = encoded[name]
        nosimple = _nosimple(batch, codes, n_classes)
        rows = [row for result in batch for row in _rows(result, nosimple, codes, n_classes)]
        report = kb.import_runs(pd.DataFrame(rows), source=SOURCE, protocol=protocol)
        runs_stored += report.added
        for result in batch:
            bad = [f for f in result.folds if f.status != "ok"]
            if bad:
                failures.append(
                    Failure(name, result.algorithm, bad[0].status, len(bad), bad[0].error or "")
                )

    for name in list(results):
        if pending[name] == 0:
            flush(name)

    def tasks():
        for name, ds in mf_jobs:
            yield joblib.delayed(_extract_metafeatures)(name, ds.X, ds.y, random_state)
        for spec in specs:
            yield joblib.delayed(run_job)(spec)

    if specs or mf_jobs:
        client = None
        backend = "loky"
        if scheduler:
            try:
                from dask.distributed import Client
            except ImportError as exc:  # pragma: no cover
                raise BenchmarkError(
                    "--scheduler needs dask.distributed: pip install 'metarec[dask]'"
                ) from exc
            try:
                client = Client(scheduler, timeout="20s")
            except OSError as exc:
                raise BenchmarkError(
                    f"cannot reach the Dask scheduler at {scheduler}: {exc}"
                ) from exc
            backend = "dask"
            if n_jobs == 1:  # the default: as many jobs as the cluster has worker threads
                n_jobs = -1
        try:
            with joblib.parallel_config(
                backend=backend,
                n_jobs=n_jobs,
                inner_max_num_threads=1 if backend == "loky" else None,
            ):
                parallel = joblib.Parallel(return_as="generator_unordered")
                for item in parallel(tasks()):
                    if isinstance(item, JobResult):
                        spec_algorithm = portfolio[item.algorithm]
                        cache.save(
                            loaded[item.dataset].fingerprint,
                            spec_algorithm,
                            protocol,
                            random_state,
                            item,
                        )
                        results[item.dataset].append(item)
                        pending[item.dataset] -= 1
                        if pending[item.dataset] == 0:
                            flush(item.dataset)
                    else:
                        name, values = item
                        frame = pd.DataFrame([{"dataset": name, **values}])
                        kb.import_metafeatures(frame)
                    tick(1)
        finally:
            if client is not None:
                client.close()
    return BenchmarkReport(
        datasets=len(loaded),
        algorithms=len(portfolio),
        jobs_run=len(specs),
        jobs_cached=sum(len(v) for v in cached.values()),
        jobs_skipped=jobs_skipped,
        runs_stored=runs_stored,
        failures=tuple(failures),
        seconds=time.perf_counter() - start,
    )
