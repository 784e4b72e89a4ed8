"""The algorithms metarec evaluates: the catalogue, its configurations, and the pipelines.

A :class:`Portfolio` of :class:`Algorithm` records (a stable name, an estimator class by
import path, its parameters) is the one lookup of an algorithm for everything above: the
benchmark runner, and ``metarec run``'s search, refit and storing all build and register an
algorithm from the portfolio they were given.  metarec ships a default portfolio
(:func:`default_portfolio`) and the configurations of its main families
(:func:`default_configurations`, designed in :data:`SPACES` by
:func:`design_configurations`); users add their own from a file (:func:`load_portfolio`).
Every algorithm runs in a pipeline that accepts any tabular data (:func:`build_pipeline`:
:class:`MedianImputer`, :class:`CategoricalEncoder`, and :class:`EncodedLabels` for the
libraries outside scikit-learn).
"""

from metarec._names import configuration_base
from metarec.algorithms._adapters import EncodedLabels
from metarec.algorithms._catalogue import (
    TASKS,
    Algorithm,
    Portfolio,
    default_configurations,
    default_portfolio,
    load_portfolio,
    preload_modules,
    warm_up,
)
from metarec.algorithms._categorical import CategoricalEncoder
from metarec.algorithms._configurations import (
    DESIGN_SEED,
    SPACES,
    Dimension,
    design_configurations,
)
from metarec.algorithms._impute import MedianImputer
from metarec.algorithms._pipeline import build_pipeline

__all__ = [
    "Algorithm",
    "Portfolio",
    "TASKS",
    "default_portfolio",
    "default_configurations",
    "load_portfolio",
    "build_pipeline",
    "preload_modules",
    "warm_up",
    "configuration_base",
    "design_configurations",
    "Dimension",
    "SPACES",
    "DESIGN_SEED",
    "MedianImputer",
    "CategoricalEncoder",
    "EncodedLabels",
]
