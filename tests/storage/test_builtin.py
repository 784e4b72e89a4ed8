"""The knowledge base shipped with metarec."""

from __future__ import annotations

import pandas as pd
import pytest
from click.testing import CliRunner

from metarec.cli import cli
from metarec.storage import KnowledgeBase, open_builtin, open_or_builtin
from metarec.storage._builtin import builtin_path, resource_files


def test_builtin_matches_its_resource_files():
    files = resource_files()
    kb = open_builtin()
    assert kb.is_builtin
    runs = pd.read_parquet(files["runs"])
    info = kb.info()
    assert info["runs"] == len(runs)
    assert info["datasets"] == len(pd.read_parquet(files["datasets"])) == 116
    assert info["algorithms"] == 23
    assert set(kb.metafeatures()["dataset"]) == set(kb.datasets()["name"])
    stored = kb.runs(aggregate=False)
    assert stored["accuracy"].dropna().between(0, 1).all()
    assert set(stored["status"]) <= {"ok", "timeout", "error"}


def test_builtin_file_is_built_once_and_reused():
    first = builtin_path()
    stamp = first.stat().st_mtime_ns
    assert builtin_path() == first and first.stat().st_mtime_ns == stamp


def test_open_or_builtin_falls_back_only_without_runs(tmp_path, _isolated_home):
    assert open_or_builtin().is_builtin  # the default file does not exist
    assert not (_isolated_home / "kb.sqlite").exists()  # ... and was not created
    url = f"sqlite:///{tmp_path / 'mine.sqlite'}"
    KnowledgeBase(url).close()
    assert open_or_builtin(url).is_builtin  # empty
    KnowledgeBase(url).import_runs(
        pd.DataFrame({"dataset": ["d"], "algorithm": ["a"], "accuracy": [0.5], "time": [1.0]})
    )
    assert not open_or_builtin(url).is_builtin


@pytest.mark.slow
def test_main_command_recommends_on_the_builtin_kb():
    result = CliRunner().invoke(
        cli, ["recommend", "sklearn:breast_cancer", "--format", "json"], catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    document = result.output[result.output.index("{") :]
    import json

    data = json.loads(document)
    ranked = [row["algorithm"] for row in data["results"]]
    assert len(ranked) == 23 and "majority" not in ranked[:5]
    expected = {row["algorithm"]: row["expected_accuracy"] for row in data["results"]}
    assert expected[ranked[0]] > expected["majority"] + 0.1  # breast cancer: 63% majority
    assert all(row["n_datasets"] >= 1 for row in data["results"])
