"""The evaluate command on a small in-memory knowledge base."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from metarec.cli import cli
from tests.recommender._fakes import random_kb


@pytest.fixture
def kb(monkeypatch):
    fake = random_kb(n_datasets=12, seed=9)
    monkeypatch.setattr("metarec._commands._evaluate.open_kb", lambda ctx, **kw: fake)
    return fake


def test_evaluate_json_and_png(kb, tmp_path):
    png = tmp_path / "curves.png"
    result = CliRunner().invoke(
        cli,
        ["evaluate", "--k", "3", "--n", "16", "--random", "3", "-o", str(png), "--format", "json"],
    )
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    methods = [row["method"] for row in doc["results"]]
    assert methods == [
        "metarec",
        "AR",
        "global AR*",
        "kNN AR*",
        "a3r",
        "single best",
        "random",
        "bound",
    ]
    assert doc["params"]["k"] == 3 and doc["params"]["n"] == 16
    assert len(doc["grid"]) == len(doc["curves"]["metarec"])
    assert doc["t_lo"] < doc["t_hi"]
    bound = doc["results"][-1]
    assert bound["spearman"] is None and bound["mil"] <= doc["results"][0]["mil"]
    assert png.read_bytes()[:4] == b"\x89PNG"


def test_evaluate_table(kb):
    result = CliRunner().invoke(
        cli, ["evaluate", "--k", "all", "--weights", "none", "--random", "2"]
    )
    assert result.exit_code == 0, result.output
    assert "global AR*" in result.stdout and "mil" in result.stdout
