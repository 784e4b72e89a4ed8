"""The benchmark runner: evaluate a portfolio of algorithms on datasets, into the KB.

The portfolio's names (:class:`Algorithm`, :class:`Portfolio`, :func:`default_portfolio`,
...) are :mod:`metarec.algorithms`'s, imported here too.
"""

from metarec.algorithms import (
    Algorithm,
    Portfolio,
    build_pipeline,
    default_configurations,
    default_portfolio,
    load_portfolio,
    preload_modules,
    warm_up,
)
from metarec.benchmark._builtin import export_builtin
from metarec.benchmark._runner import (
    BenchmarkInterrupted,
    BenchmarkReport,
    Failure,
    machine_description,
    run_benchmark,
)

__all__ = [
    "Algorithm",
    "Portfolio",
    "default_portfolio",
    "default_configurations",
    "load_portfolio",
    "build_pipeline",
    "run_benchmark",
    "BenchmarkReport",
    "BenchmarkInterrupted",
    "machine_description",
    "Failure",
    "export_builtin",
    "preload_modules",
    "warm_up",
]
