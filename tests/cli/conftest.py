"""A real SQLite knowledge base for CLI tests: CLI -> KnowledgeBase -> recommender, no fakes.

The session builds it once (about a second): five small synthetic classification datasets,
written as CSV files, with their metafeatures computed by :func:`metarec.metafeatures.extract`
and imported, plus a run history of three algorithms whose accuracies and times are chosen by
hand so that rankings can be checked.  Each test gets its own copy of the SQLite file.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

#: dataset -> (rows, features, {algorithm: (accuracy, seconds)})
REAL_KB_DATASETS = {
    "tiny": (40, 2, {"fast": (0.70, 0.01), "mid": (0.75, 0.2), "slow": (0.80, 5.0)}),
    "small": (80, 3, {"fast": (0.72, 0.01), "mid": (0.78, 0.3), "slow": (0.82, 6.0)}),
    "medium": (160, 4, {"fast": (0.80, 0.02), "mid": (0.85, 0.5), "slow": (0.90, 9.0)}),
    "wide": (120, 12, {"fast": (0.60, 0.05), "mid": (0.88, 1.0), "slow": (0.86, 20.0)}),
    "large": (400, 6, {"fast": (0.85, 0.5), "mid": (0.70, 3.0), "slow": (0.99, 90.0)}),
}


def synthetic_frame(n_rows: int, n_features: int, seed: int) -> pd.DataFrame:
    """A reproducible binary classification frame: numeric features and a 'label' column."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_rows, n_features))
    frame = pd.DataFrame(X, columns=[f"x{i}" for i in range(n_features)])
    frame["label"] = np.where(X[:, 0] + 0.5 * rng.normal(size=n_rows) > 0, "yes", "no")
    return frame


@pytest.fixture(scope="session")
def real_kb_template(tmp_path_factory):
    """(path of the SQLite file, {dataset: CSV path}) built once per session."""
    from metarec.data import load_dataset
    from metarec.metafeatures import extract
    from metarec.storage import KnowledgeBase

    folder = tmp_path_factory.mktemp("real-kb")
    files: dict[str, Path] = {}
    runs = []
    metafeatures = []
    for seed, (name, (n_rows, n_features, results)) in enumerate(REAL_KB_DATASETS.items()):
        path = folder / f"{name}.csv"
        synthetic_frame(n_rows, n_features, seed).to_csv(path, index=False)
        files[name] = path
        dataset = load_dataset(path, target="label")
        metafeatures.append(extract(dataset.X, dataset.y, random_state=0).to_frame(name))
        for algorithm, (accuracy, seconds) in results.items():
            for fold in range(2):  # two folds with the same mean
                runs.append(
                    {
                        "dataset": name,
                        "algorithm": algorithm,
                        "fold": fold,
                        "accuracy": accuracy + (0.01 if fold else -0.01),
                        "time": seconds,
                    }
                )
    db_path = folder / "kb.sqlite"
    kb = KnowledgeBase(f"sqlite:///{db_path}")
    kb.import_runs(pd.DataFrame(runs))
    kb.import_metafeatures(pd.concat(metafeatures, ignore_index=True))
    kb.close()
    return db_path, files


@pytest.fixture
def real_kb(real_kb_template, tmp_path):
    """A fresh copy of the real knowledge base: ``(sqlite URL, path, {dataset: CSV path})``."""
    template, files = real_kb_template
    path = tmp_path / "kb.sqlite"
    shutil.copyfile(template, path)
    return f"sqlite:///{path}", path, files


#: regression dataset -> (rows, features, {regressor: (R² clipped at 0, seconds)})
REGRESSION_DATASETS = {
    "prices": (60, 2, {"ols": (0.60, 0.01), "forest": (0.80, 2.0)}),
    "doses": (90, 3, {"ols": (0.70, 0.01), "forest": (0.75, 3.0)}),
    "yields": (120, 4, {"ols": (0.90, 0.02), "forest": (0.85, 4.0)}),
}


def regression_frame(n_rows: int, n_features: int, seed: int) -> pd.DataFrame:
    """A reproducible regression frame: numeric features and a continuous 'price' column."""
    rng = np.random.default_rng(100 + seed)
    X = rng.normal(size=(n_rows, n_features))
    frame = pd.DataFrame(X, columns=[f"x{i}" for i in range(n_features)])
    frame["price"] = 50 + 10 * X[:, 0] + rng.normal(size=n_rows)
    return frame


@pytest.fixture
def mixed_kb(real_kb, tmp_path):
    """The real KB plus three regression datasets run by two regressors.

    Returns ``(sqlite URL, {dataset: CSV path})`` with the classification and regression CSVs.
    """
    from metarec.data import load_dataset
    from metarec.metafeatures import extract
    from metarec.storage import KnowledgeBase

    _, plain, files = real_kb
    files = dict(files)
    path = tmp_path / "mixed.sqlite"
    shutil.copyfile(plain, path)
    url = f"sqlite:///{path}"
    kb = KnowledgeBase(url)
    runs, metafeatures = [], []
    for seed, (name, (n_rows, n_features, results)) in enumerate(REGRESSION_DATASETS.items()):
        path = tmp_path / f"{name}.csv"
        regression_frame(n_rows, n_features, seed).to_csv(path, index=False)
        files[name] = path
        dataset = load_dataset(path, target="price")
        kb.add_dataset(name, task="regression", n_instances=n_rows, n_features=n_features)
        metafeatures.append(extract(dataset.X, dataset.y, random_state=0).to_frame(name))
        for algorithm, (score, seconds) in results.items():
            runs.append(
                {"dataset": name, "algorithm": algorithm, "accuracy": score, "time": seconds}
            )
    kb.import_runs(pd.DataFrame(runs))
    kb.import_metafeatures(pd.concat(metafeatures, ignore_index=True))
    kb.close()
    return url, files


@pytest.fixture(scope="session")
def seeded_kb_template(tmp_path_factory):
    """A new knowledge base as ``metarec run`` makes one (it builds on the built-in one and
    holds nothing else): the path of the SQLite file, made once per session.  The
    recommenders ``run`` fits on it ship with the package, so no search fits one."""
    from metarec.storage import open_seeded

    home = tmp_path_factory.mktemp("seeded-home")
    path = home / "kb.sqlite"
    kb, made = open_seeded(f"sqlite:///{path}")
    assert made and kb.builds_on == "builtin"
    kb.close()
    return path


@pytest.fixture
def seeded_kb(seeded_kb_template, tmp_path, _isolated_home):
    """A fresh copy of that knowledge base: ``(sqlite URL, path)``."""
    path = tmp_path / "kb.sqlite"
    shutil.copyfile(seeded_kb_template, path)
    return f"sqlite:///{path}", path
