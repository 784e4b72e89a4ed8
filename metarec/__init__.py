"""metarec: which machine-learning algorithms to try first on a new dataset, and why.

The top-level names are imported lazily, so ``import metarec`` (and ``metarec --help``)
stays fast; ``metarec.KnowledgeBase`` loads SQLAlchemy only when first used.
"""

from __future__ import annotations

import importlib
from typing import Any

from metarec._version import __version__

_LAZY = {
    "KnowledgeBase": "metarec.storage",
    "ImportReport": "metarec.storage",
    "open_or_builtin": "metarec.storage",
    "Recommender": "metarec.recommender",
    "Ranking": "metarec.recommender",
    "load_dataset": "metarec.data",
    "Dataset": "metarec.data",
    "extract": "metarec.metafeatures",
    "AutoClassifier": "metarec.automl",
    "AutoRegressor": "metarec.automl",
}

__all__ = ["__version__", *_LAZY]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'metarec' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
