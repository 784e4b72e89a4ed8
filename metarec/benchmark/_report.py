"""What a benchmark reports: its counts, and the (dataset, algorithm) pairs that failed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["Failure", "BenchmarkReport"]


@dataclass(frozen=True)
class Failure:
    """A (dataset, algorithm) pair with at least one failed fold.

    Parameters
    ----------
    dataset : str
        The dataset's name.
    algorithm : str
        The algorithm's name; ``"*"`` for a dataset skipped as a whole.
    status : str
        The first failed fold's status (``"error"``, ``"timeout"``...).
    n_failed : int
        Folds that failed (0 for a skipped dataset).
    message : str
        The first failed fold's error message, or why the dataset was skipped.
    """

    dataset: str
    algorithm: str
    status: str
    n_failed: int
    message: str


@dataclass(frozen=True)
class BenchmarkReport:
    """Summary of one benchmark invocation.

    Parameters
    ----------
    datasets : int
        Datasets benchmarked (skipped ones left out).
    algorithms : int
        The portfolio's algorithms for the tasks of the datasets benchmarked.
    jobs_run : int
        (dataset, algorithm) jobs evaluated now.
    jobs_cached : int
        Jobs whose every fold was taken from the cache.
    jobs_skipped : int
        Jobs already stored in the knowledge base, not run again.
    runs_stored : int
        Runs (folds) this invocation stored in the knowledge base.
    failures : tuple of Failure
        The pairs with a failed fold, and the datasets skipped.
    seconds : float
        Wall-clock seconds of the invocation.
    notes : tuple of str
        Datasets stored under another name than their own, and why.
    """

    datasets: int
    #: The portfolio's algorithms for the tasks of the datasets benchmarked.
    algorithms: int
    jobs_run: int
    jobs_cached: int
    jobs_skipped: int
    runs_stored: int
    failures: tuple[Failure, ...]
    seconds: float
    #: Datasets stored under another name than their own, and why.
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """Return the report as plain JSON-ready values.

        Returns
        -------
        dict
            Counts by name (``failed_jobs`` is the number of failures) and ``seconds``.
        """
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
