"""The evaluate command on the real SQLite knowledge base of the CLI tests.

Leave-one-dataset-out over its five datasets (accuracies of fast / mid / slow):
tiny .70/.75/.80, small .72/.78/.82, medium .80/.85/.90, wide .60/.88/.86,
large .85/.70/.99.  With any four datasets, slow has the best mean accuracy, so the single
best algorithm is slow on every held-out dataset: its first choice loses nothing except on
wide (88 - 86 points), a mean top-1 loss of 2 / 5 = 0.4 points.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from metarec.cli import cli


def _run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def test_evaluate_json_and_png(real_kb, tmp_path):
    url, _, _ = real_kb
    png = tmp_path / "curves.png"
    result = _run("--db", url, "evaluate", "--k", "3", "--n", "16", "--random", "3",
                  "-o", png, "--format", "json")  # fmt: skip
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    summary = {row["method"]: row for row in doc["results"]}
    assert list(summary) == [
        "metarec", "metarec (run as ranked)", "AR", "global AR*", "kNN AR*", "a3r",
        "single best", "random", "bound",
    ]  # fmt: skip
    assert summary["single best"]["top1_loss"] == pytest.approx(0.4)
    # The bound is a loss-time curve, not a ranking: no first choice, and no method's
    # mean loss in time falls below it.
    assert summary["bound"]["top1_loss"] is None
    assert all(row["mil"] >= summary["bound"]["mil"] - 1e-9 for row in summary.values())
    assert summary["metarec"]["n_datasets"] == 5
    assert doc["params"]["k"] == 3 and doc["params"]["n"] == 16
    assert len(doc["grid"]) == len(doc["curves"]["metarec"])
    assert doc["t_lo"] < doc["t_hi"]
    assert summary["bound"]["spearman"] is None
    assert png.read_bytes()[:4] == b"\x89PNG" and png.stat().st_size > 10_000


def test_evaluate_table(real_kb):
    url, _, _ = real_kb
    result = _run("--db", url, "evaluate", "--k", "all", "--weights", "none", "--random", "2")
    assert result.exit_code == 0, result.output
    assert "global AR*" in result.stdout and "mil" in result.stdout
