"""Re-importing named runs (source, source_run_id): nothing added, every row reported present,
conflicts decided as before; through the real CLI too."""

from __future__ import annotations

import pandas as pd
import pytest
from click.testing import CliRunner

from metarec.cli import cli
from metarec.exceptions import ImportRejectedError


def _named(n: int, *, offset: int = 0, accuracy: float = 0.8) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "dataset": [f"d{i % 7}" for i in range(offset, offset + n)],
            "algorithm": [f"a{i % 3}" for i in range(offset, offset + n)],
            "fold": [i % 5 for i in range(offset, offset + n)],
            "accuracy": accuracy,
            "time": 1.5,
            "roc_auc": 0.9,
            "source": "lab",
            "source_run_id": [f"r{i}" for i in range(offset, offset + n)],
        }
    )


def test_reimporting_named_runs_adds_nothing_in_any_chunking(kb):
    first = kb.import_runs(_named(500))
    assert (first.added, first.present) == (500, 0)
    version = kb.data_version()
    for chunksize in (None, 7, 500):
        again = kb.import_runs(_named(500), chunksize=chunksize)
        assert (again.added, again.present, again.rejected) == (0, 500, 0)
    assert kb.count("runs") == 500 and kb.count("run_metrics") == 500
    assert kb.data_version() == version  # nothing written


def test_a_file_of_new_present_and_changed_named_runs(kb):
    kb.import_runs(_named(100))
    mixed = pd.concat([_named(60, offset=50), _named(1, offset=10, accuracy=0.3)])
    with pytest.raises(ImportRejectedError, match="'lab:r10'.*other values"):
        kb.import_runs(mixed)  # "error": the changed run refuses the whole file
    assert kb.count("runs") == 100
    kept = kb.import_runs(mixed, on_conflict="keep")
    assert (kept.added, kept.present) == (10, 51)  # the stored value of r10 kept: present
    replaced = kb.import_runs(mixed, on_conflict="replace")
    assert (replaced.added, replaced.replaced) == (0, 1)
    runs = kb.runs(aggregate=False).set_index("source_run_id")
    assert runs.loc["r10", "accuracy"] == pytest.approx(0.3) and len(runs) == 110


def test_the_cli_reports_a_reimport_as_present(tmp_path):
    path = tmp_path / "named.csv"
    _named(300).to_csv(path, index=False)
    url = f"sqlite:///{tmp_path / 'kb.sqlite'}"
    runner = CliRunner()
    first = runner.invoke(cli, ["--db", url, "--format", "csv", "import", "runs", str(path)])
    assert first.exit_code == 0, first.output
    again = runner.invoke(cli, ["--db", url, "--format", "csv", "import", "runs", str(path)])
    assert again.exit_code == 0, again.output
    header, row = again.stdout.strip().splitlines()[:2]
    report = dict(zip(header.split(","), row.split(","), strict=True))
    assert (report["added"], report["present"]) == ("0", "300")


def _benchmark_fold(run_id: str, **columns) -> pd.DataFrame:
    row = {
        "dataset": "iris",
        "algorithm": "knn",
        "protocol": "cv5",
        "seed": 0,
        "fold": 3,
        "accuracy": 0.9,
        "time": 0.25,
        "source": "benchmark",
        "source_run_id": run_id,
    }
    return pd.DataFrame([{**row, **columns}])


def test_a_runs_machine_in_its_column_and_in_an_export_written_before_it(kb):
    """A benchmark run of an older export holds its machine after " | " in source_run_id:
    imported, the machine is moved to its column under the same key, so the same run in
    either form is present; the same fold measured on another machine is another run."""
    old_form = _benchmark_fold("iris/knn/cv5/0/3 | AMD EPYC; 2 cores")
    assert kb.import_runs(old_form).added == 1
    runs = kb.runs(aggregate=False)
    assert runs.loc[0, "source_run_id"] == "iris/knn/cv5/0/3"
    assert runs.loc[0, "machine"] == "AMD EPYC; 2 cores"
    new_form = _benchmark_fold("iris/knn/cv5/0/3", machine="AMD EPYC; 2 cores")
    for same in (old_form, new_form, runs):  # an export of the KB too
        report = kb.import_runs(same)
        assert (report.added, report.present) == (0, 1)
    elsewhere = _benchmark_fold("iris/knn/cv5/0/3", machine="Apple M2; 8 cores", time=0.1)
    assert kb.import_runs(elsewhere).added == 1
    # another source's id is its own text, " | " included; a changed value is a conflict
    lab = _benchmark_fold("batch 2 | rerun", source="lab")
    assert kb.import_runs(lab).added == 1
    stored = kb.runs(aggregate=False).set_index("source").loc["lab"]
    assert stored["source_run_id"] == "batch 2 | rerun" and pd.isna(stored["machine"])
    with pytest.raises(ImportRejectedError, match="accuracy 0.9 -> 0.5"):
        kb.import_runs(_benchmark_fold("iris/knn/cv5/0/3 | AMD EPYC; 2 cores", accuracy=0.5))
    assert kb.count("runs") == 3


def test_a_machine_longer_than_its_column_is_an_invalid_row(kb):
    with pytest.raises(ImportRejectedError, match="machine is longer than 255 characters"):
        kb.import_runs(_benchmark_fold("iris/knn/cv5/0/3", machine="x" * 256))
    assert kb.count("runs") == 0
