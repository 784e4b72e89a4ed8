"""The benchmark runner: every algorithm of a portfolio on every dataset, into the KB.

:func:`run_benchmark` plans one job per (dataset, algorithm) pair, skips the pairs whose
runs are already stored (a rerun resumes), runs the rest in parallel (locally on warm,
single-threaded worker processes, :mod:`metarec.benchmark._workers`; or on a Dask cluster
through joblib's dask backend), and stores per fold: for classification accuracy, balanced
accuracy, ROC AUC, NoSimple AUC across the portfolio, Tau, log loss, quadratic and
informational loss; for regression the success rate (R² clipped at 0, in the ``accuracy``
column the rankers read), RMSE, MAE and R²; fit and
predict CPU and wall times, status (ok, timeout, error with its message), the seed and the
machine that measured the times; the algorithm records carry the library version.  The
dataset's metafeatures are stored too.

Results of finished jobs are written to a cache directory as they arrive, and on SIGINT or
SIGTERM the finished folds of the jobs that were running are written there too, so an
interrupted benchmark loses at most the folds that were being fitted.  A dataset's runs enter
the knowledge base together, once every planned algorithm has finished on it, because NoSimple
AUC compares the scores of all algorithms on the same objects (Eq. 2 of the NoSimple paper).
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

from metarec.benchmark._dispatch import preload_modules, run_locally, run_on_dask
from metarec.benchmark._folds import JobResult, JobSpec, fold_metrics, fold_splits
from metarec.benchmark._names import stored_name
from metarec.benchmark._portfolio import Algorithm, Portfolio, default_portfolio
from metarec.benchmark._report import BenchmarkReport, Failure
from metarec.benchmark._signals import BenchmarkInterrupted, Signals, Stop
from metarec.data import task_family
from metarec.evaluation import PROTOCOLS
from metarec.exceptions import BenchmarkError

__all__ = [
    "BenchmarkReport",
    "BenchmarkInterrupted",
    "Failure",
    "run_benchmark",
    "machine_description",
]

SOURCE = "benchmark"


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


def _algorithm_key(algorithm: Algorithm) -> str:
    config = [algorithm.estimator, algorithm.params, algorithm.scale]
    if algorithm.scale_target:
        config.append("scale_target")
    text = json.dumps(config, sort_keys=True)
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


def register_algorithm(kb, algorithm: Algorithm) -> None:
    """Record ``algorithm`` in ``kb``: family, library version and parameters."""
    kb.add_algorithm(
        algorithm.name,
        family=algorithm.family,
        library=_library_version(algorithm),
        parameters={
            "estimator": algorithm.estimator,
            **algorithm.params,
            "scale": algorithm.scale,
            **({"scale_target": True} if algorithm.scale_target else {}),
        },
    )


def register_dataset(kb, name: str, ds) -> None:
    """Record the loaded dataset ``ds`` in ``kb`` under ``name`` (with its fingerprint)."""
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
    """The knowledge base's run rows of one job: one per fold, with its metrics, NoSimple AUC
    (from :func:`nosimple_by_fold`) and the machine that measured it."""
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


def _load(source: Any, target: str | None, task: str | None = None):
    from metarec.data import Dataset, load_dataset

    if isinstance(source, Dataset):
        return source
    return load_dataset(source, target=target, task=task)


def _encode(ds) -> tuple[np.ndarray, int]:
    """The target as the workers take it: ``(class codes, K)``, or ``(floats, 0)`` for regression."""
    if ds.task == "regression":
        return np.asarray(ds.y, dtype=float), 0
    classes, codes = np.unique(np.asarray(ds.y).astype(str), return_inverse=True)
    return codes, len(classes)


def unsplittable(X, codes: np.ndarray, protocol: str, random_state: int) -> str | None:
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
    task: str | None = None,
    progress: Callable[..., None] | None = None,
) -> BenchmarkReport:
    """Evaluate a portfolio on datasets and store every fold's results in ``kb``.

    Parameters
    ----------
    datasets : iterable
        Anything :func:`metarec.data.load_dataset` accepts (paths, ``sklearn:NAME``,
        ``openml:ID``, DataFrames) or loaded :class:`~metarec.data.Dataset` objects,
        classification or regression: each dataset is evaluated with the portfolio's
        algorithms of its task (:attr:`Algorithm.task`).
    kb : KnowledgeBase
        Where results go; runs already stored there (same protocol and seed, source
        ``benchmark``) are skipped.
    portfolio : Portfolio, optional
        Algorithms to run; the default portfolio of both tasks when omitted.
    algorithms : sequence of str, optional
        Restrict to these names of the portfolio.
    protocol : {"cv10x10", "cv10", "cv5", "loo", "bootstrap632", "holdout"}, default="cv10"
    n_jobs : int, default=1
        Worker processes (-1 for all cores, -2 for all but one; 0 is an error).  With
        ``scheduler`` the default 1 means every worker thread of the Dask cluster.
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
    task : {"classification", "regression"}, optional
        Override the detected task of datasets loaded here (see
        :func:`metarec.data.load_dataset`).
    progress : callable, optional
        ``progress(n=1, total=None)`` called as jobs finish.

    Returns
    -------
    BenchmarkReport

    Raises
    ------
    BenchmarkInterrupted
        On SIGINT or SIGTERM (handled while this runs in the main thread): the workers are
        killed within moments, the datasets whose algorithms all finished are in ``kb``,
        finished jobs and folds of the others are in the cache, and the same call resumes.

    Notes
    -----
    Times: ``fit_time`` / ``predict_time`` are the CPU seconds (user + system) of one fold's
    ``fit`` / ``predict`` calls, measured inside a worker process whose BLAS and OpenMP pools
    have one thread, so they do not depend on ``n_jobs``; ``fit_wall_time`` /
    ``predict_wall_time`` are the elapsed seconds of the same calls.  Each run's
    ``machine`` names the machine that measured it (:func:`machine_description`).
    """
    if protocol not in PROTOCOLS:
        raise BenchmarkError(f"unknown protocol {protocol!r}; choose one of {', '.join(PROTOCOLS)}")
    if timeout is not None and not timeout > 0:
        raise BenchmarkError(f"timeout must be positive, got {timeout}")
    if memory_limit_mb is not None and not memory_limit_mb > 0:
        raise BenchmarkError(f"memory limit must be positive, got {memory_limit_mb}")
    n_workers = worker_count(n_jobs)
    portfolio = (portfolio or default_portfolio(task="all")).select(algorithms)
    state = _State()
    with Signals() as signals:
        try:
            settings = _Settings(
                protocol=protocol,
                n_jobs=n_jobs,
                n_workers=n_workers,
                timeout=timeout,
                memory_limit_mb=memory_limit_mb,
                random_state=random_state,
                scheduler=scheduler,
                target=target,
                task=task,
            )
            return _benchmark(
                datasets, kb, portfolio, settings, cache_dir, progress, signals, state
            )
        except Stop as stop:
            raise BenchmarkInterrupted(stop.signum, state.runs_stored) from None
        except KeyboardInterrupt:  # not in the main thread: Python's own SIGINT handling
            import signal

            raise BenchmarkInterrupted(signal.SIGINT, state.runs_stored) from None


def worker_count(n_jobs: int) -> int:
    """Worker processes for ``n_jobs`` (joblib's convention: -1 all cores, -2 all but one)."""
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, (int, np.integer)) or n_jobs == 0:
        raise BenchmarkError(
            f"-j/--jobs must be a number of parallel jobs (1, 2, ...) or -1 for all cores, "
            f"-2 for all but one; got {n_jobs}"
        )
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        cores = os.cpu_count() or 1
    return int(n_jobs) if n_jobs > 0 else max(1, cores + 1 + int(n_jobs))


@dataclass
class _State:
    runs_stored: int = 0


@dataclass(frozen=True)
class _Settings:
    """How a benchmark runs: what :func:`run_benchmark` was asked, checked."""

    protocol: str
    n_jobs: int
    n_workers: int
    timeout: float | None
    memory_limit_mb: float | None
    random_state: int
    scheduler: str | None
    target: str | None
    task: str | None = None


def _benchmark(
    datasets, kb, portfolio: Portfolio, settings: _Settings, cache_dir, progress, signals, state
) -> BenchmarkReport:
    from metarec._config import data_dir

    start = time.perf_counter()
    cache = _Cache(Path(cache_dir) if cache_dir is not None else data_dir() / "benchmark-cache")
    tick = progress or (lambda n=1, total=None: None)
    machine = machine_description()
    pool = None
    if not settings.scheduler:  # start the workers now: their imports overlap the loading
        from metarec.benchmark._workers import WorkerPool

        # no more at first than there can be jobs; the pool adds the others when needed
        n_sources = len(datasets) if hasattr(datasets, "__len__") else 1
        first_workers = max(1, n_sources) * (len(portfolio) + 1)
        pool = WorkerPool(settings.n_workers, preload_modules(portfolio), start=first_workers)
    try:
        return _benchmark_with(
            pool, datasets, kb, portfolio, settings, signals, state, start, cache, tick, machine
        )
    finally:
        if pool is not None:
            pool.close()


def _load_datasets(datasets, portfolio: Portfolio, settings: _Settings):
    """Stage 1: load every source; leave out, with the reason, what cannot be benchmarked.

    Returns ``(loaded, encoded, failures)``: datasets by name, their targets as the workers
    take them (:func:`_encode`), and a :class:`Failure` for each dataset left out.
    """
    protocol, random_state = settings.protocol, settings.random_state
    loaded = {}
    for source in datasets:
        ds = _load(source, settings.target, settings.task)
        if ds.name in loaded and loaded[ds.name].fingerprint != ds.fingerprint:
            raise BenchmarkError(f"two different datasets are both named {ds.name!r}")
        loaded[ds.name] = ds
    if not loaded:
        raise BenchmarkError("no datasets given")
    encoded = {name: _encode(ds) for name, ds in loaded.items()}
    failures: list[Failure] = []
    for name in list(loaded):
        if not len(portfolio.for_task(loaded[name].task)):
            task = task_family(loaded[name].task)
            failures.append(
                Failure(name, "*", "error", 0, f"dataset skipped: no {task} algorithm chosen")
            )
            del loaded[name], encoded[name]
    for name in list(loaded):
        problem = unsplittable(loaded[name].X, encoded[name][0], protocol, random_state)
        if problem is not None:  # e.g. a class smaller than the number of folds
            failures.append(Failure(name, "*", "error", 0, f"dataset skipped: {problem}"))
            del loaded[name], encoded[name]
    if not loaded:
        reasons = "; ".join(f"{f.dataset!r} skipped: {f.message[17:]}" for f in failures)
        raise BenchmarkError(f"nothing to benchmark with protocol {protocol}: {reasons}")
    return loaded, encoded, failures


def _tasks_of(loaded: dict) -> set[str]:
    """The task families (classification, regression) of the loaded datasets."""
    return {task_family(ds.task) for ds in loaded.values()}


def _register(kb, loaded: dict, encoded: dict, portfolio: Portfolio, signals) -> list[str]:
    """Stage 2: the name each dataset is stored under (renamed in ``loaded`` and ``encoded``
    when the knowledge base holds another dataset of its name; a changed file is refused,
    see :func:`metarec.benchmark._names.stored_name`); record datasets and algorithms.
    Returns the notes on renamed datasets."""
    stored = kb.datasets()
    names, notes = {}, []
    for name, ds in loaded.items():
        names[name], note = stored_name(ds, stored, own=name)
        if note:
            notes.append(f"{name}: {note}")
    if len(set(names.values())) < len(names):
        raise BenchmarkError("two of the datasets would be stored under one name")
    renamed = {names[n]: (loaded[n], encoded[n]) for n in loaded}
    loaded.clear()
    encoded.clear()
    for name, (ds, codes) in renamed.items():
        loaded[name], encoded[name] = ds, codes
    tasks = _tasks_of(loaded)
    with signals.critical():
        for algorithm in portfolio:
            if algorithm.task in tasks:
                register_algorithm(kb, algorithm)
        for name, ds in loaded.items():
            register_dataset(kb, name, ds)
    return notes


def _already_stored(kb, loaded: dict, settings: _Settings) -> tuple[set, set]:
    """Stage 3: the (dataset, algorithm) pairs stored by an earlier run with this protocol and
    seed, and the datasets whose metafeatures are stored."""
    done: set[tuple[str, str]] = set()
    existing = kb.runs(aggregate=False, datasets=list(loaded))
    if len(existing):
        mine = existing[
            (existing["source"] == SOURCE)
            & (existing["protocol"] == settings.protocol)
            & (existing["seed"] == settings.random_state)
        ]
        done = set(mine.groupby(["dataset", "algorithm"]).size().index)
    have_mf = set(kb.metafeatures(datasets=list(loaded))["dataset"]) if loaded else set()
    return done, have_mf


@dataclass
class _Plan:
    """Stage 4's outcome: the jobs to run, and what the cache already holds."""

    specs: list
    cached: dict
    partial: dict
    splits: dict
    jobs_cached: int


def _plan_jobs(loaded, encoded, portfolio: Portfolio, settings: _Settings, done, cache) -> _Plan:
    """Stage 4: one job per (dataset, algorithm of its task) not stored yet, largest data first;
    jobs the cache holds whole are not run, and the folds of an interrupted job are kept."""
    protocol, random_state = settings.protocol, settings.random_state
    plan = _Plan(specs=[], cached=defaultdict(list), partial={}, splits={}, jobs_cached=0)
    for name, ds in sorted(loaded.items(), key=lambda kv: -kv[1].X.size):
        codes, n_classes = encoded[name]
        for algorithm in portfolio.for_task(ds.task):
            if (name, algorithm.name) in done:
                continue
            spec = JobSpec(
                name,
                algorithm,
                ds.X,
                codes,
                n_classes,
                tuple(ds.numeric_columns),
                tuple(ds.categorical_columns),
                protocol,
                random_state,
                settings.timeout,
                settings.memory_limit_mb,
            )
            if name not in plan.splits:
                plan.splits[name] = fold_splits(spec)
            hit = cache.load(ds.fingerprint, algorithm, protocol, random_state)
            if hit is not None and len(hit.folds) >= len(plan.splits[name]):
                plan.cached[name].append(hit)
                plan.jobs_cached += 1
                continue
            if hit is not None:  # the folds an interrupted run finished
                plan.partial[(name, algorithm.name)] = list(hit.folds)
            plan.specs.append(spec)
    return plan


def _store_dataset(kb, name, batch, encoded, machine, protocol, signals, state) -> None:
    """Store every fold of a dataset's finished jobs at once (NoSimple compares them all)."""
    import pandas as pd

    codes, n_classes = encoded
    nosimple = nosimple_by_fold(batch, codes, n_classes) if n_classes else {}
    rows = [
        row for result in batch for row in run_rows(result, nosimple, codes, n_classes, machine)
    ]
    with signals.critical():
        # a fold stored by an earlier, interrupted run keeps its first measurement
        report = kb.import_runs(
            pd.DataFrame(rows), source=SOURCE, protocol=protocol, on_conflict="keep"
        )
        state.runs_stored += report.added


def _failures(name: str, batch) -> list[Failure]:
    """One :class:`Failure` per job of ``batch`` with a failed fold (the first one's status)."""
    out = []
    for result in batch:
        bad = [f for f in result.folds if f.status != "ok"]
        if bad:
            out.append(Failure(name, result.algorithm, bad[0].status, len(bad), bad[0].error or ""))
    return out


def _benchmark_with(
    pool, datasets, kb, portfolio, settings: _Settings, signals, state, start, cache, tick, machine
) -> BenchmarkReport:
    """Load, register, plan, run the jobs and store each dataset's runs when all are done."""
    import pandas as pd

    protocol, random_state = settings.protocol, settings.random_state
    loaded, encoded, failures = _load_datasets(datasets, portfolio, settings)
    notes = _register(kb, loaded, encoded, portfolio, signals)
    done, have_mf = _already_stored(kb, loaded, settings)
    plan = _plan_jobs(loaded, encoded, portfolio, settings, done, cache)
    specs, cached, partial, splits = plan.specs, plan.cached, plan.partial, plan.splits
    jobs_cached = plan.jobs_cached
    mf_jobs = [(name, ds) for name, ds in loaded.items() if name not in have_mf]
    pending = defaultdict(int)
    for spec in specs:
        pending[spec.dataset] += 1
    jobs_skipped = sum(
        1 for n, ds in loaded.items() for a in portfolio.for_task(ds.task) if (n, a.name) in done
    )
    tick(0, total=len(specs) + len(mf_jobs))

    results = defaultdict(list, {k: list(v) for k, v in cached.items()})

    def flush(name: str) -> None:
        batch = results.pop(name, [])
        if batch:
            _store_dataset(kb, name, batch, encoded[name], machine, protocol, signals, state)
            failures.extend(_failures(name, batch))

    def job_finished(result: JobResult) -> None:
        with signals.critical():
            cache.save(
                loaded[result.dataset].fingerprint,
                portfolio[result.algorithm],
                protocol,
                random_state,
                result,
            )
        results[result.dataset].append(result)
        pending[result.dataset] -= 1
        if pending[result.dataset] == 0:
            flush(result.dataset)
        tick(1)

    def metafeatures_finished(name: str, values: dict) -> None:
        with signals.critical():
            kb.import_metafeatures(pd.DataFrame([{"dataset": name, **values}]))
        tick(1)

    for name in list(results):
        if pending[name] == 0:
            flush(name)

    if settings.scheduler:
        run_on_dask(
            settings.scheduler,
            settings.n_jobs,
            specs,
            mf_jobs,
            random_state,
            job_finished,
            metafeatures_finished,
        )
    elif specs or mf_jobs:
        run_locally(
            pool,
            specs,
            splits,
            partial,
            mf_jobs,
            random_state,
            job_finished,
            metafeatures_finished,
            failures,
            save_partial=lambda spec, folds: cache.save(
                loaded[spec.dataset].fingerprint,
                spec.algorithm,
                protocol,
                random_state,
                JobResult(spec.dataset, spec.algorithm.name, protocol, random_state, folds),
            ),
            check=signals.check,
        )
    return BenchmarkReport(
        datasets=len(loaded),
        algorithms=sum(len(portfolio.for_task(f)) for f in _tasks_of(loaded)),
        jobs_run=len(specs),
        jobs_cached=jobs_cached,
        jobs_skipped=jobs_skipped,
        runs_stored=state.runs_stored,
        failures=tuple(failures),
        seconds=time.perf_counter() - start,
        notes=tuple(notes),
    )
