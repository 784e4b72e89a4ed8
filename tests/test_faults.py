"""Fault tests: each input below once gave a wrong or confusing result; each test fails on
the code as it was and passes now.  One block per area."""

from __future__ import annotations

# --- CLI and data ---


def _cli(*args, **kwargs):
    from click.testing import CliRunner

    from metarec.cli import cli

    return CliRunner().invoke(cli, [str(a) for a in args], **kwargs)


def test_fault_db_after_the_command_name(tmp_path):
    """``metarec import runs FILE --db URL`` said "No such option '--db'"."""
    runs = tmp_path / "runs.csv"
    runs.write_text("dataset,algorithm,accuracy,time\niris,knn,0.9,1.0\n")
    db = tmp_path / "kb.sqlite"
    result = _cli("import", "runs", runs, "--db", f"sqlite:///{db}")
    assert result.exit_code == 0, result.output
    assert db.exists()


def test_fault_db_info_on_a_fresh_install(tmp_path, monkeypatch):
    """``metarec db info`` without a KB failed while ``recommend`` used the built-in KB."""
    monkeypatch.setenv("METAREC_HOME", str(tmp_path / "home"))
    result = _cli("db", "info")
    assert result.exit_code == 0, result.output
    assert "recommendations use the built-in KB (117 datasets × 20 algorithms" in result.stderr


def test_fault_table_has_units_and_honest_precision():
    """Tables printed ``expected_time 0.02986`` and ``0.9234`` without units."""
    import click
    import pandas as pd
    from click.testing import CliRunner

    from metarec._commands._output import emit

    frame = pd.DataFrame(
        {"algorithm": ["svc"], "expected_accuracy": [0.9234], "expected_time": [0.02986]}
    )
    show = click.command()(lambda: emit(frame, "table"))
    out = CliRunner().invoke(show, []).stdout
    assert "92.3 %" in out and "0.030 s" in out
    assert "0.02986" not in out and "0.9234" not in out


def test_fault_bad_options_rejected_before_loading(tmp_path, monkeypatch):
    """``--n 0`` and ``--budget -5`` were rejected only after loading data and metafeatures."""

    def no_load(*args, **kwargs):
        raise AssertionError("data loaded before the options were checked")

    monkeypatch.setattr("metarec.data.load_dataset", no_load)
    for option, value in (("--n", "0"), ("--budget", "-5")):
        result = _cli("recommend", tmp_path / "data.csv", option, value)
        assert result.exit_code == 2, result.output
        assert option in result.output


def test_fault_duplicated_label_column_is_refused(tmp_path):
    """Two ``label`` columns: ``--target label`` took a feature and leaked the real label."""
    import pytest

    from metarec.data import load_dataset
    from metarec.exceptions import DataError

    path = tmp_path / "dup.csv"
    path.write_text("label,a,label\n0,1.0,yes\n1,2.0,no\n0,3.0,yes\n1,4.0,no\n")
    with pytest.raises(DataError, match=r"'label' at columns 1, 3"):
        load_dataset(path, target="label")


def test_fault_recommend_on_a_continuous_target_is_refused(tmp_path, monkeypatch):
    """``recommend`` ranked classifiers by accuracy on a regression target."""
    import numpy as np
    import pandas as pd

    def no_kb(*args, **kwargs):
        raise AssertionError("knowledge base opened for a continuous target")

    monkeypatch.setattr("metarec._commands._recommend.open_kb", no_kb)
    rng = np.random.default_rng(0)
    path = tmp_path / "reg.csv"
    pd.DataFrame({"a": rng.normal(size=40), "y": rng.normal(size=40)}).to_csv(path, index=False)
    result = _cli("recommend", path)
    assert result.exit_code == 1, result.output
    assert "40 distinct values among 40 rows" in result.output
    assert "--as-classes" in result.output


def test_fault_unsupported_formats_are_named(tmp_path):
    """``recommend data.json`` said "has no rows"; an .xlsx file gave a UnicodeDecodeError."""
    (tmp_path / "data.json").write_text('{"a": [1, 2], "y": ["p", "q"]}')
    (tmp_path / "data.xlsx").write_bytes(b"PK\x03\x04\x14\x00\x06\x00\x08\x00\xff\xfe\x00")
    for name in ("data.json", "data.xlsx"):
        result = _cli("recommend", tmp_path / name)
        assert result.exit_code == 1, result.output
        assert "unsupported format" in result.output and "supported: CSV" in result.output
        assert "no rows" not in result.output and "UnicodeDecodeError" not in result.output


def test_fault_infinite_values_count_as_missing():
    """A column one third ``inf`` counted 0 missing values."""
    import numpy as np
    import pandas as pd

    from metarec.data import load_dataset
    from metarec.metafeatures import extract

    a = np.arange(30, dtype=float)
    a[::3] = np.inf
    frame = pd.DataFrame({"a": a, "b": np.ones(30), "y": ["p", "q", "r"] * 10})
    dataset = load_dataset(frame)
    assert dataset.n_missing == 10
    assert extract(dataset.X, dataset.y, groups="general")["n_missing_values"] == 10


def test_fault_messages_print_plain_numbers():
    """Messages printed numpy reprs such as ``np.int64(7)``."""
    import numpy as np
    import pandas as pd
    import pytest

    from metarec.data import load_dataset
    from metarec.evaluation import a3r
    from metarec.exceptions import DataError, MetarecError

    frame = pd.DataFrame({"a": [1.0, 2.0], "y": np.array([7, 7], dtype=np.int64)})
    with pytest.raises(DataError) as info:
        load_dataset(frame)
    assert "(7)" in str(info.value) and "np." not in str(info.value)
    with pytest.raises(MetarecError) as info:
        a3r(np.array([0.9, -0.5]), np.array([1.0, 1.0]), 0.5, 1.0)
    assert "np." not in str(info.value) and "-0.5" in str(info.value)


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


# --- recommender ---


def test_leave_out_prediction_key_is_exact_and_does_not_overflow():
    # the cache key of leave-out predictions rounded nan_to_num(x, -1.2345e300): overflow
    # warnings on every query with a missing metafeature, and two queries equal to 12
    # decimals shared one cached answer
    import warnings

    from metarec.recommender import Recommender
    from tests.recommender._fakes import random_kb

    rec = Recommender(n_estimators=5, k=3, random_state=0).fit(random_kb(seed=10))
    d = rec.datasets_[0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rec.recommend(metafeatures={"f1": 0.25}, exclude=[d])
        rec.recommend(metafeatures={"f1": 0.25 + 1e-13}, exclude=[d])
    assert len(rec.predictions_) == 2
    assert all(key[0] == (d,) for key in rec.predictions_)


def test_recommend_never_fits_the_model_lazily():
    # recommend used to fit the performance model on first use when fit had not
    import pytest

    from metarec.exceptions import NotFittedError
    from metarec.recommender import Recommender
    from tests.recommender._fakes import random_kb

    rec = Recommender(strategy="a3r", n_estimators=5).fit(random_kb(seed=11))
    rec.set_params(strategy="learned")
    with pytest.raises(NotFittedError, match="strategy='learned'"):
        rec.recommend(metafeatures={"f1": 0.0})
    assert not hasattr(rec, "model_")
