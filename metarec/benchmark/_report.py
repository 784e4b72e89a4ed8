"""What a benchmark reports: its counts, and the (dataset, algorithm) pairs that failed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["Failure", "BenchmarkReport"]


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
