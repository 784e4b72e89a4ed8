"""``metarec db check``: every check passes on a sound KB and names what is wrong otherwise."""

from __future__ import annotations

import json
import sqlite3

from click.testing import CliRunner

from metarec.cli import cli


def _check(url: str):
    result = CliRunner().invoke(cli, ["--db", url, "--format", "json", "db", "check"])
    rows = json.loads(result.stdout)["results"]
    return result, {row["check"]: (row["status"], row["detail"]) for row in rows}


def test_a_sound_knowledge_base_passes_every_check(real_kb):
    url, path, _ = real_kb
    before = path.read_bytes()
    result, checks = _check(url)
    assert result.exit_code == 0, result.output
    assert {status for status, _ in checks.values()} == {"ok"}
    assert checks["rows: runs"] == ("ok", "30")
    assert checks["matrix"] == ("ok", "15 pairs equal their runs' aggregates")
    assert path.read_bytes() == before


def test_a_stale_matrix_and_a_dangling_reference_fail(real_kb):
    url, path, _ = real_kb
    conn = sqlite3.connect(path)
    conn.execute("UPDATE performance SET accuracy = accuracy + 0.01 WHERE rowid = 1")
    conn.execute("INSERT INTO run_metrics (run_id, metric, value) VALUES (9999, 'kappa', 0.5)")
    conn.commit()
    conn.close()
    result, checks = _check(url)
    assert result.exit_code == 1
    assert "Error: 2 check(s) failed: references, matrix" in result.stderr
    assert checks["matrix"][0] == "FAILED" and "1 pairs differing" in checks["matrix"][1]
    assert checks["references"] == ("FAILED", "run_metrics.run_id: 1 row(s) without their runs row")
    assert checks["integrity"] == ("ok", "ok")
