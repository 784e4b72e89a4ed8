"""No raw library warning reaches a user: values beyond float32 become one note."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from metarec.cli import cli
from metarec.exceptions import MetarecWarning


@pytest.fixture
def huge_csv(tmp_path):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {"a": rng.uniform(-1, 1, 120) * 1e308, "b": rng.normal(size=120), "c": rng.normal(size=120)}
    )
    frame["label"] = np.where(frame["b"] > 0, "yes", "no")
    path = tmp_path / "huge.csv"
    frame.to_csv(path, index=False)
    return path


def test_values_beyond_float32_give_one_note_and_no_numpy_warning(real_kb, huge_csv):
    url, _, _ = real_kb
    result = CliRunner().invoke(cli, ["--db", url, "recommend", str(huge_csv), "--target", "label"])
    assert result.exit_code == 0, result.output
    notes = [line for line in result.stderr.splitlines() if "beyond float32" in line]
    assert len(notes) == 1 and notes[0].startswith("note: metafeatures numeric_mean_max")
    assert "RuntimeWarning" not in result.stderr and "Warning:" not in result.stderr


def test_the_python_api_warns_with_metarec_warning_only(real_kb, huge_csv):
    from metarec.data import load_dataset
    from metarec.recommender import LearnedRanker, Recommender
    from metarec.storage import KnowledgeBase

    url, _, _ = real_kb
    dataset = load_dataset(huge_csv, target="label")
    rec = Recommender(LearnedRanker(random_state=0)).fit(KnowledgeBase(url))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ranking = rec.recommend(dataset.X, dataset.y)
    kinds = {w.category for w in caught}
    assert kinds == {MetarecWarning}, [str(w.message) for w in caught]
    assert len(ranking.algorithms) == 3
