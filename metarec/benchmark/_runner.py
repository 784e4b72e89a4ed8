"""The benchmark runner: every algorithm of a portfolio on every dataset, into the KB.

:func:`run_benchmark` plans one job per (dataset, algorithm) pair, skips the pairs whose
runs are already stored (a rerun resumes), runs the rest in parallel (on warm, single-threaded worker processes: :class:`metarec.execution.WorkerPool`
locally, :class:`metarec.execution.DaskPool` on a Dask cluster), and stores per fold: for classification accuracy, balanced
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

import dataclasses
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from metarec.algorithms import Portfolio, default_portfolio
from metarec.benchmark._dispatch import open_pool, run_jobs
from metarec.benchmark._report import BenchmarkReport, Failure
from metarec.data import task_family
from metarec.evaluation import PROTOCOLS
from metarec.exceptions import BenchmarkError, BenchmarkInterrupted
from metarec.execution import SOURCE as SOURCE
from metarec.execution import (
    JobResult,
    JobSpec,
    ResultCache,
    Signals,
    Stop,
    fold_splits,
    machine_description,
    register_algorithm,
    register_dataset,
    store_results,
    stored_name,
    unsplittable,
    worker_count,
)

__all__ = [
    "BenchmarkReport",
    "BenchmarkInterrupted",
    "Failure",
    "run_benchmark",
    "machine_description",
]


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
    settings = _Settings.checked(
        protocol=protocol,
        n_jobs=n_jobs,
        timeout=timeout,
        memory_limit_mb=memory_limit_mb,
        random_state=random_state,
        scheduler=scheduler,
        target=target,
        task=task,
    )
    portfolio = (portfolio or default_portfolio(task="all")).select(algorithms)
    state = _State()
    with Signals() as signals:
        try:
            return _benchmark(
                datasets, kb, portfolio, settings, cache_dir, progress, signals, state
            )
        except Stop as stop:
            raise BenchmarkInterrupted(stop.signum, state.runs_stored) from None
        except KeyboardInterrupt:  # not in the main thread: Python's own SIGINT handling
            import signal

            raise BenchmarkInterrupted(signal.SIGINT, state.runs_stored) from None


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

    @classmethod
    def checked(cls, *, protocol, n_jobs, timeout, memory_limit_mb, **rest) -> _Settings:
        """The settings, each checked (a one-line error naming the value)."""
        if protocol not in PROTOCOLS:
            raise BenchmarkError(
                f"unknown protocol {protocol!r}; choose one of {', '.join(PROTOCOLS)}"
            )
        if timeout is not None and not timeout > 0:
            raise BenchmarkError(f"timeout must be positive, got {timeout}")
        if memory_limit_mb is not None and not memory_limit_mb > 0:
            raise BenchmarkError(f"memory limit must be positive, got {memory_limit_mb}")
        return cls(
            protocol=protocol,
            n_jobs=n_jobs,
            n_workers=worker_count(n_jobs),
            timeout=timeout,
            memory_limit_mb=memory_limit_mb,
            **rest,
        )


def _benchmark(
    datasets, kb, portfolio: Portfolio, settings: _Settings, cache_dir, progress, signals, state
) -> BenchmarkReport:
    from metarec._config import data_dir

    start = time.perf_counter()
    cache = ResultCache(
        Path(cache_dir) if cache_dir is not None else data_dir() / "benchmark-cache"
    )
    tick = progress or (lambda n=1, total=None: None)
    machine = machine_description()
    # the workers start now (or the cluster is reached): their imports overlap the loading;
    # no more at first than there can be jobs, the pool adds the others when needed
    n_sources = len(datasets) if hasattr(datasets, "__len__") else 1
    first_workers = max(1, n_sources) * (len(portfolio) + 1)
    with open_pool(
        settings.scheduler, settings.n_jobs, settings.n_workers, portfolio, start=first_workers
    ) as pool:
        return _benchmark_with(
            pool, datasets, kb, portfolio, settings, signals, state, start, cache, tick, machine
        )


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
                # kept by content: the same rows may have had another name when it was run
                plan.cached[name].append(dataclasses.replace(hit, dataset=name))
                plan.jobs_cached += 1
                continue
            if hit is not None:  # the folds an interrupted run finished
                plan.partial[(name, algorithm.name)] = list(hit.folds)
            plan.specs.append(spec)
    return plan


def _store_dataset(kb, name, batch, encoded, machine, protocol, signals, state) -> None:
    """Store every fold of a dataset's finished jobs at once (NoSimple compares them all)."""
    with signals.critical():
        # a fold stored by an earlier, interrupted run keeps its first measurement
        state.runs_stored += store_results(kb, batch, encoded, protocol=protocol, machine=machine)


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

    if specs or mf_jobs:
        run_jobs(
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
    if not settings.scheduler and settings.n_jobs > settings.n_workers:
        notes.insert(
            0,
            f"-j {settings.n_jobs}: {settings.n_workers} worker process(es), as this machine "
            f"has {settings.n_workers} core(s)",
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
