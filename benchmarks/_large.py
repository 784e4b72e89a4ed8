"""The large synthetic dataset of the large-data benchmarks."""

from __future__ import annotations

from pathlib import Path


def large_csv(folder: Path, rows: int, columns: int) -> Path:
    """``make_classification`` (10 informative columns, seed 0) as ``folder/large.csv``.

    Columns ``x0..x{columns-1}`` and ``target`` (``pos`` / ``neg``).
    """
    import numpy as np
    import pandas as pd
    from sklearn.datasets import make_classification

    X, y = make_classification(n_samples=rows, n_features=columns, n_informative=10, random_state=0)
    frame = pd.DataFrame(X, columns=[f"x{i}" for i in range(columns)])
    frame["target"] = np.where(y == 1, "pos", "neg")
    path = folder / "large.csv"
    frame.to_csv(path, index=False)
    return path
