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
