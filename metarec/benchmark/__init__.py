"""The benchmark runner: evaluate a portfolio of algorithms on datasets, into the KB."""

from metarec.benchmark._builtin import export_builtin
from metarec.benchmark._folds import score_predictions
from metarec.benchmark._isolation import IsolatedOutcome, run_isolated
from metarec.benchmark._portfolio import (
    Algorithm,
    Portfolio,
    build_pipeline,
    default_portfolio,
    load_portfolio,
)
from metarec.benchmark._runner import (
    PROTOCOLS,
    BenchmarkInterrupted,
    BenchmarkReport,
    Failure,
    machine_description,
    run_benchmark,
    run_machine,
)

__all__ = [
    "Algorithm",
    "Portfolio",
    "default_portfolio",
    "load_portfolio",
    "build_pipeline",
    "run_benchmark",
    "BenchmarkReport",
    "BenchmarkInterrupted",
    "machine_description",
    "run_machine",
    "Failure",
    "PROTOCOLS",
    "run_isolated",
    "IsolatedOutcome",
    "score_predictions",
    "export_builtin",
]
