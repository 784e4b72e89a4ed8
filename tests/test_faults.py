"""Fault tests: each turns a defect found by trying metarec as a user would into a test.

Every test here failed on the code as it was and passes now.  Blocks are grouped by area.
"""

from __future__ import annotations

# --- ingest ---


def _aslib_folder(tmp_path, *, runs=None, description=None):
    from tests.ingest.test_aslib import QUALITY_DESCRIPTION, QUALITY_FEATURES, QUALITY_RUNS

    folder = tmp_path / "MINI-WEKA"
    folder.mkdir()
    description = QUALITY_DESCRIPTION if description is None else description
    if isinstance(description, bytes):
        (folder / "description.txt").write_bytes(description)
    else:
        (folder / "description.txt").write_text(description)
    (folder / "algorithm_runs.arff").write_text(QUALITY_RUNS if runs is None else runs)
    (folder / "feature_values.arff").write_text(QUALITY_FEATURES)
    return folder


def _percent_runs():
    """QUALITY_RUNS with line 12 holding an accuracy in percent (80.0): invalid."""
    from tests.ingest.test_aslib import QUALITY_RUNS

    return QUALITY_RUNS.replace("d1,1,NaiveBayes,0.80", "d1,1,NaiveBayes,80.0")


def test_ingest_aslib_with_an_invalid_row_stores_nothing_and_cites_the_arff_line(tmp_path):
    from click.testing import CliRunner

    from metarec.cli import cli
    from metarec.storage import KnowledgeBase

    folder = _aslib_folder(tmp_path, runs=_percent_runs())
    url = f"sqlite:///{tmp_path / 'kb.sqlite'}"
    result = CliRunner().invoke(cli, ["--db", url, "ingest", "aslib", str(folder)])
    assert result.exit_code == 1, result.output
    assert result.output.count("\n") == 1 and result.output.startswith("Error: ")
    assert (
        f"{folder / 'algorithm_runs.arff'}, line 12, attribute 'predictive_accuracy': "
        "predictive_accuracy 80 is outside [0, 1]"
    ) in result.output
    assert "nothing was stored" in result.output and "--skip-invalid" in result.output
    assert KnowledgeBase(url).count("runs") == 0  # was: 5 runs stored, exit 0


def test_ingest_aslib_skip_invalid_notes_cite_file_line_attribute_with_plain_numbers(tmp_path):
    from click.testing import CliRunner

    from metarec.cli import cli
    from metarec.storage import KnowledgeBase

    folder = _aslib_folder(tmp_path, runs=_percent_runs())
    url = f"sqlite:///{tmp_path / 'kb.sqlite'}"
    result = CliRunner().invoke(
        cli, ["--db", url, "ingest", "aslib", str(folder), "--skip-invalid", "--format", "csv"]
    )
    assert result.exit_code == 0, result.output
    assert "runs_added,5" in result.stdout and "runs_rejected,1" in result.stdout
    assert result.stderr == (
        f"Note: {folder / 'algorithm_runs.arff'}, line 12, attribute 'predictive_accuracy': "
        "predictive_accuracy 80 is outside [0, 1]\n"
    )
    assert KnowledgeBase(url).count("runs") == 5


def test_ingest_aslib_on_a_non_utf8_description_is_a_clear_one_line_error(tmp_path):
    from click.testing import CliRunner

    from metarec.cli import cli
    from tests.ingest.test_aslib import QUALITY_DESCRIPTION

    latin1 = QUALITY_DESCRIPTION.replace("MINI-WEKA", "MINI-W\u00c9KA").encode("latin-1")
    folder = _aslib_folder(tmp_path, description=latin1)
    url = f"sqlite:///{tmp_path / 'kb.sqlite'}"
    result = CliRunner().invoke(cli, ["--db", url, "ingest", "aslib", str(folder)])
    assert result.exit_code == 1, result.output  # was: 2, "Error: unexpected UnicodeDecodeError"
    assert result.output == (
        f"Error: {folder / 'description.txt'}, line 1: not UTF-8 text (byte 0xc9); "
        "save the file as UTF-8\n"
    )


def test_ingest_fixtures_use_the_real_knowledge_base_never_a_fake(tmp_path, monkeypatch):
    import sys

    import pytest

    from metarec.storage import KnowledgeBase
    from tests.ingest._fixtures import make_kb

    assert type(make_kb(f"sqlite:///{tmp_path / 'a.sqlite'}")) is KnowledgeBase
    monkeypatch.setitem(sys.modules, "metarec.storage", None)  # the store fails to import
    with pytest.raises(ImportError):  # was: a silent in-memory stand-in
        make_kb(f"sqlite:///{tmp_path / 'b.sqlite'}")


def test_ingest_messages_print_plain_numbers_not_numpy_reprs():
    import numpy as np

    from metarec.ingest import plain_numbers

    message = f"accuracy {np.float64(80.0)!r} is outside [0, 1]; seed {np.int64(-3)!r}"
    assert plain_numbers(message) == "accuracy 80.0 is outside [0, 1]; seed -3"
