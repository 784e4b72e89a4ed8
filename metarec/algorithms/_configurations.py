"""Hyper-parameter configurations of the portfolio's main families, as data.

Each family that matters on tabular data (the gradient-boosting libraries, scikit-learn's
histogram boosting, random forests and extremely randomised trees, a linear model, the RBF
support vector machine, k nearest neighbours and the multi-layer perceptron; for both tasks)
has a **configuration space** (:data:`SPACES`) and a seeded **design** of configurations in
it: the first ``n`` points of a scrambled Sobol sequence (:func:`scipy.stats.qmc.Sobol`,
seed :data:`DESIGN_SEED`), mapped to each dimension's range (uniform or logarithmic, whole
numbers rounded, real numbers to three significant digits, choices by equal shares).  A
low-discrepancy design covers a space more evenly than random points of the same number.

A configuration of the algorithm ``A`` of the default portfolio is named ``A_cNN`` (``NN``
from 01), with ``A``'s estimator, preprocessing and fixed parameters and the design's values;
``A`` itself (the library's defaults) is always a member of its family's configurations.
The names are stable: the design is data (``metarec/_resources/default_configurations.json``,
written by :func:`design_configurations` and checked against it by a test), so knowledge
bases built anywhere use the same name for the same configuration.

Ranges were chosen from the libraries' documented tuning advice and the spaces of TabRepo
and auto-sklearn 2, kept to what a single CPU fits in seconds to minutes on the built-in
knowledge base's datasets (at most 500 trees of boosting, 300 for CatBoost; at most 70 % of
the features per split of a forest).

References
----------
.. [1] Salinas, D., Erickson, N. (2024). TabRepo: a large scale repository of tabular model
   evaluations and its AutoML applications. AutoML Conference 2024.
.. [2] Feurer, M., Eggensperger, K., Falkner, S., Lindauer, M., Hutter, F. (2022).
   Auto-sklearn 2.0: hands-free AutoML via meta-learning. JMLR 23(261).
.. [3] Owen, A. B. (1998). Scrambling Sobol' and Niederreiter-Xing points. Journal of
   Complexity 14(4), 466-489.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from importlib import resources
from typing import Any

from metarec._names import CONFIGURATION_NAME, configuration_base

__all__ = [
    "Dimension",
    "SPACES",
    "DESIGN_SEED",
    "design_configurations",
    "configuration_base",
    "CONFIGURATION_NAME",
]

#: Seed of the scrambled Sobol design.
DESIGN_SEED = 20261127


@dataclass(frozen=True)
class Dimension:
    """One hyper-parameter of a configuration space.

    Parameters
    ----------
    name : str
        The estimator's parameter.
    low, high : float
        Range of a numeric parameter (inclusive).
    log : bool
        Sample the range on a logarithmic scale.
    integer : bool
        Round to a whole number.
    choices : tuple, optional
        The values of a categorical parameter (then ``low``, ``high`` are ignored).
    """

    name: str
    low: float = 0.0
    high: float = 1.0
    log: bool = False
    integer: bool = False
    choices: tuple = ()

    def value(self, u: float) -> Any:
        """The parameter's value at a point of the unit interval.

        Parameters
        ----------
        u : float
            A point in [0, 1): its share of the range (on a log scale with ``log``), or of
            the choices.

        Returns
        -------
        object
            A choice, a whole number (``integer``), or a number to three significant
            digits.
        """
        if self.choices:
            return self.choices[min(int(u * len(self.choices)), len(self.choices) - 1)]
        if self.log:
            x = math.exp(math.log(self.low) + u * (math.log(self.high) - math.log(self.low)))
        else:
            x = self.low + u * (self.high - self.low)
        if self.integer:
            return int(min(max(round(x), self.low), self.high))
        return float(f"{x:.3g}")


def _boosting(trees: str, depth: Dimension, leaves: Dimension) -> tuple[Dimension, ...]:
    return (
        Dimension(trees, 50, 500, log=True, integer=True),
        Dimension("learning_rate", 0.01, 0.3, log=True),
        depth,
        leaves,
    )


_LIGHTGBM = (
    *_boosting(
        "n_estimators",
        Dimension("num_leaves", 8, 128, log=True, integer=True),
        Dimension("min_child_samples", 3, 60, log=True, integer=True),
    ),
    Dimension("colsample_bytree", 0.4, 1.0),
    Dimension("subsample", 0.5, 1.0),
    Dimension("reg_lambda", 1e-3, 10.0, log=True),
)
_XGBOOST = (
    *_boosting(
        "n_estimators",
        Dimension("max_depth", 2, 10, integer=True),
        Dimension("min_child_weight", 0.5, 20.0, log=True),
    ),
    Dimension("subsample", 0.5, 1.0),
    Dimension("colsample_bytree", 0.4, 1.0),
    Dimension("reg_lambda", 1e-3, 10.0, log=True),
)
_CATBOOST = (
    Dimension("iterations", 100, 300, log=True, integer=True),
    Dimension("learning_rate", 0.02, 0.3, log=True),
    Dimension("depth", 4, 8, integer=True),
    Dimension("l2_leaf_reg", 1.0, 10.0, log=True),
)
_HIST = (
    *_boosting(
        "max_iter",
        Dimension("max_leaf_nodes", 8, 128, log=True, integer=True),
        Dimension("min_samples_leaf", 3, 60, log=True, integer=True),
    ),
    Dimension("l2_regularization", 1e-3, 10.0, log=True),
)
_FOREST = (
    Dimension("max_features", 0.05, 0.7),
    Dimension("min_samples_leaf", 1, 20, log=True, integer=True),
)
_KNN = (
    Dimension("n_neighbors", 1, 50, log=True, integer=True),
    Dimension("weights", choices=("uniform", "distance")),
    Dimension("p", choices=(1, 2)),
)
_MLP = (
    Dimension("hidden_layer_sizes", choices=((64,), (128,), (256,), (64, 64), (128, 128))),
    Dimension("alpha", 1e-6, 0.1, log=True),
    Dimension("learning_rate_init", 1e-4, 0.01, log=True),
    Dimension("early_stopping", choices=(False, True)),
)
_SVM = (
    Dimension("C", 0.03, 1000.0, log=True),
    Dimension("gamma", 1e-3, 1.0, log=True),
)

#: Configuration space of each family: ``default algorithm -> (dimensions, design size)``.
#: Fixed parameters (threads, verbosity, ``subsample_freq`` of LightGBM so that its
#: ``subsample`` takes effect) come from the default algorithm or from :data:`FIXED`.
SPACES: dict[str, tuple[tuple[Dimension, ...], int]] = {
    # classification
    "lightgbm": (_LIGHTGBM, 8),
    "xgboost": (_XGBOOST, 8),
    "catboost": (_CATBOOST, 6),
    "hist_gradient_boosting": (_HIST, 8),
    "random_forest": ((*_FOREST, Dimension("criterion", choices=("gini", "entropy"))), 8),
    "extra_trees": ((*_FOREST, Dimension("criterion", choices=("gini", "entropy"))), 8),
    "logistic_regression": ((Dimension("C", 1e-3, 1000.0, log=True),), 8),
    "svc_rbf": (_SVM, 8),
    "knn": (_KNN, 8),
    "mlp": (_MLP, 8),
    # regression
    "lightgbm_regressor": (_LIGHTGBM, 8),
    "xgboost_regressor": (_XGBOOST, 8),
    "catboost_regressor": (_CATBOOST, 6),
    "hist_gradient_boosting_regressor": (_HIST, 8),
    "random_forest_regressor": ((Dimension("max_features", 0.1, 1.0), _FOREST[1]), 8),
    "extra_trees_regressor": ((Dimension("max_features", 0.1, 1.0), _FOREST[1]), 8),
    "ridge_regressor": ((Dimension("alpha", 1e-3, 1000.0, log=True),), 8),
    "svr_rbf": ((*_SVM, Dimension("epsilon", 0.01, 0.5, log=True)), 8),
    "knn_regressor": (_KNN, 8),
    "mlp_regressor": (_MLP, 8),
}
#: Parameters every configuration of a family takes besides its default's.
FIXED: dict[str, dict[str, Any]] = {
    "lightgbm": {"subsample_freq": 1},
    "lightgbm_regressor": {"subsample_freq": 1},
}


def _jsonable(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


def design_configurations(defaults, *, seed: int = DESIGN_SEED) -> list[dict[str, Any]]:
    """The configurations of every family of :data:`SPACES`, as portfolio entries.

    Parameters
    ----------
    defaults : Portfolio
        The default portfolio (both tasks): each configuration copies its default
        algorithm's estimator, preprocessing, task and fixed parameters.
    seed : int, default=20261127
        Seed of the scrambled Sobol design (one sequence per family; :data:`DESIGN_SEED`).

    Returns
    -------
    list of dict
        Entries of the portfolio file format (``name``, ``estimator``, ``params``,
        ``family``, ``scale``, ``task``, ...), families in the order of :data:`SPACES`.
    """
    from scipy.stats import qmc

    entries = []
    for offset, (base, (dimensions, size)) in enumerate(SPACES.items()):
        algorithm = defaults[base]
        sampler = qmc.Sobol(d=len(dimensions), scramble=True, seed=seed + offset)
        points = sampler.random(max(2, 1 << (size - 1).bit_length()))[:size]
        for number, point in enumerate(points, start=1):
            params = {**algorithm.params, **FIXED.get(base, {})}
            for dimension, u in zip(dimensions, point, strict=True):
                params[dimension.name] = _jsonable(dimension.value(float(u)))
            entry = {
                "name": f"{base}_c{number:02d}",
                "estimator": algorithm.estimator,
                "params": params,
                "family": algorithm.family,
                "scale": algorithm.scale,
                "task": algorithm.task,
                "description": f"a configuration of {base} (see the configuration spaces)",
            }
            if algorithm.scale_target:
                entry["scale_target"] = True
            if algorithm.extra:
                entry["extra"] = algorithm.extra
            entries.append(entry)
    return entries


def load_configurations_document() -> dict[str, Any]:
    """The shipped design (``default_configurations.json``) as a portfolio document."""
    text = resources.files("metarec._resources").joinpath("default_configurations.json")
    return json.loads(text.read_text())
