"""A small knowledge base with configurations, whose portfolio for a dataset is known by hand.

Eight datasets of two kinds: six small ones (100 rows, 2 features: "near0".."near5") and two
wide ones (300 rows, 10 features: "far0", "far1"), their metafeatures computed by
:func:`metarec.metafeatures.extract`, and results of 24 quick algorithms of the default
portfolio: 8 defaults, 8 configurations of ``knn`` and 8 of ``logistic_regression``.

- On the small datasets ``knn_c03`` is first and ``logistic_regression_c02`` second; on
  the wide ones the other way round; every other algorithm is behind both, in the reverse
  order of their names (so that a recommendation's order is not the order of the names).
- Every fit takes 10 ms.

For a new small dataset (:func:`query_frame`) the greedy portfolio is then ``knn_c03``
(rank 1 on the nearer, heavier datasets), ``logistic_regression_c02`` (rank 1 on the wide
ones, where ``knn_c03`` is second), and the rest in the order of their names (every dataset
is at rank 1 already: ties go to the first column).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

DEFAULTS = ("majority", "gaussian_nb", "bernoulli_nb", "lda", "decision_tree", "extra_tree",
            "knn", "logistic_regression")  # fmt: skip
CONFIGURATIONS = tuple(f"knn_c{i:02d}" for i in range(1, 9)) + tuple(
    f"logistic_regression_c{i:02d}" for i in range(1, 9)
)
ALGORITHMS = tuple(sorted(DEFAULTS + CONFIGURATIONS))
SMALL, WIDE = ("knn_c03", "logistic_regression_c02")
#: The portfolio of 20 for a new small dataset, by hand (see the module documentation).
PORTFOLIO = [SMALL, WIDE] + [a for a in ALGORITHMS if a not in (SMALL, WIDE)][:18]
KINDS = {**{f"near{i}": (100, 2) for i in range(6)}, "far0": (300, 10), "far1": (300, 10)}


def frame(n_rows: int, n_features: int, seed: int) -> pd.DataFrame:
    """A binary classification frame: numeric features ``x0..`` and a ``label`` column."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_rows, n_features))
    data = pd.DataFrame(X, columns=[f"x{i}" for i in range(n_features)])
    data["label"] = np.where(X[:, 0] + 0.5 * rng.normal(size=n_rows) > 0, "yes", "no")
    return data


def query_frame() -> pd.DataFrame:
    """A new small dataset (of the kind of the six near ones)."""
    return frame(100, 2, seed=99)


def accuracies(dataset: str) -> dict[str, float]:
    """Each algorithm's accuracy on ``dataset`` (see the module documentation)."""
    others = [a for a in ALGORITHMS if a not in (SMALL, WIDE)]
    out = {a: 0.60 + 0.01 * i for i, a in enumerate(others)}  # later names higher, all < .9
    first, second = (SMALL, WIDE) if dataset.startswith("near") else (WIDE, SMALL)
    out[first], out[second] = 0.95, 0.92
    return out


def build(folder: Path) -> str:
    """Write the datasets' CSV files into ``folder`` and the knowledge base beside them;
    return its URL."""
    from metarec.data import load_dataset
    from metarec.metafeatures import extract
    from metarec.storage import KnowledgeBase

    runs, metafeatures = [], []
    for seed, (name, (n_rows, n_features)) in enumerate(KINDS.items()):
        path = folder / f"{name}.csv"
        frame(n_rows, n_features, seed).to_csv(path, index=False)
        ds = load_dataset(path, target="label")
        metafeatures.append(extract(ds.X, ds.y, random_state=0).to_frame(name))
        for algorithm, accuracy in accuracies(name).items():
            for fold in range(2):
                runs.append({"dataset": name, "algorithm": algorithm, "fold": fold,
                             "accuracy": accuracy, "time": 0.01})  # fmt: skip
    url = f"sqlite:///{folder / 'kb.sqlite'}"
    kb = KnowledgeBase(url)
    kb.import_runs(pd.DataFrame(runs))
    kb.import_metafeatures(pd.concat(metafeatures, ignore_index=True))
    kb.close()
    return url
