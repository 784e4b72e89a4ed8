import json

from click.testing import CliRunner

from metarec._commands._metric import METRIC_NAMES
from metarec.cli import cli
from metarec.evaluation import surface_metric_names


def _run(*args):
    return CliRunner().invoke(cli, ["metric", *args])


def test_metric_names_match_library():
    assert METRIC_NAMES == surface_metric_names()


def test_surface_json_and_png(tmp_path):
    out = tmp_path / "s.png"
    result = _run(
        "surface",
        "--metric",
        "tau",
        "--metric",
        "precision",
        "--ratio",
        "4",
        "--resolution",
        "20",
        "-o",
        str(out),
        "--format",
        "json",
    )
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)["results"]
    assert [r["metric"] for r in rows] == ["tau", "precision"]
    assert rows[0]["IS(r)"] == 0.0 and rows[1]["IS(r)"] > 0.1
    assert out.read_bytes()[:4] == b"\x89PNG"


def test_sensitivity_csv_and_svg(tmp_path):
    out = tmp_path / "is.svg"
    result = _run(
        "sensitivity",
        "--metric",
        "f1",
        "--metric",
        "tss",
        "--max-ratio",
        "8",
        "--resolution",
        "20",
        "-o",
        str(out),
        "--format",
        "csv",
    )
    assert result.exit_code == 0, result.output
    lines = result.stdout.strip().splitlines()
    assert lines[0] == "metric,IS(r=2),IS(r=4),IS(r=8),imbalance_agnostic"
    assert lines[2].startswith("tss,0.0,0.0,0.0,True")
    assert "<svg" in out.read_text()[:500]


def test_a3r_vs_arr_json():
    result = _run("a3r-vs-arr", "--n", "8", "--acc-d", "0.2", "--format", "json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    row = next(r for r in doc["results"] if r["time_ratio"] == 10.0)
    assert abs(1 / row["A3R n=8"] - 1.3335) < 1e-3
    assert abs(row["ARR AccD=0.2"] - 1 / 1.2) < 1e-9
    assert abs(doc["arr_poles"]["AccD=0.2"] - 1e-5) < 1e-12


def test_bad_output_extension_and_metric(tmp_path):
    result = _run("surface", "-o", str(tmp_path / "x.pdf"))
    assert result.exit_code != 0 and "must end in .png, .svg" in result.output
    result = _run("surface", "--metric", "mcc")
    assert result.exit_code != 0


def test_help_has_examples():
    for sub in ("surface", "sensitivity", "a3r-vs-arr", "nosimple"):
        result = _run(sub, "--help")
        assert result.exit_code == 0 and "Example:" in result.output


def test_nosimple_table(tmp_path):
    out = tmp_path / "n.png"
    result = _run("nosimple", "--max-added", "100", "-o", str(out), "--format", "json")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)["results"]
    assert rows[0]["added"] == 0 and rows[-1]["added"] == 100
    assert abs(rows[0]["auc_1"] - 5 / 6) < 1e-12
    assert rows[-1]["auc_2"] > 0.98
    assert all(abs(r["nosimple_auc_2"] - 0.5) < 1e-12 for r in rows)
    assert out.exists()
