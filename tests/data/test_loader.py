"""Tests of the dataset loader: formats, target choice, task detection, errors."""

from __future__ import annotations

import gzip

import numpy as np
import pandas as pd
import pytest

from metarec.data import Dataset, _readers, infer_task, load_dataset
from metarec.exceptions import DataError


@pytest.fixture
def frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "age": [23, 35, 47, 51, 62, 18],
            "colour": ["red", "blue", "red", None, "green", "blue"],
            "score": [0.5, np.nan, 1.5, 2.5, 3.5, 4.5],
            "label": ["yes", "no", "yes", "no", "yes", "no"],
        }
    )


def test_dataframe_last_column_target(frame):
    ds = load_dataset(frame)
    assert isinstance(ds, Dataset)
    assert ds.target == "label"
    assert ds.target_reason == "last column"
    assert ds.task == "binary"
    assert ds.numeric_columns == ("age", "score")
    assert ds.categorical_columns == ("colour",)
    assert ds.n_missing == 2
    assert ds.source == "frame" and ds.source_id is None
    assert list(ds.X.columns) == ["age", "colour", "score"]
    assert len(ds.fingerprint) == 64


def test_target_and_class_columns_preferred(frame):
    with_class = frame.rename(columns={"age": "class"})
    ds = load_dataset(with_class)
    assert ds.target == "class" and ds.target_reason == "column named 'class'"
    with_both = with_class.rename(columns={"score": "target"})
    ds = load_dataset(with_both)
    assert ds.target == "target" and ds.target_reason == "column named 'target'"
    ds = load_dataset(with_both, target="label")
    assert ds.target == "label" and ds.target_reason == "given"


def test_unknown_target_names_it_and_lists_columns(frame):
    with pytest.raises(DataError, match=r"'nope' not found.*'age', 'colour'"):
        load_dataset(frame, target="nope")


def test_rows_with_missing_target_are_dropped_and_counted(frame):
    frame.loc[[1, 4], "label"] = None
    ds = load_dataset(frame)
    assert ds.n_dropped_target == 2
    assert ds.n_instances == 4
    assert list(ds.y) == ["yes", "yes", "no", "no"]


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda f: f.iloc[0:0], "no rows"),
        (lambda f: f.assign(label="yes"), "single class"),
        (lambda f: f.assign(label=None), "entirely missing"),
        (lambda f: f[["label"]], "single column"),
    ],
)
def test_unusable_frames(frame, mutate, message):
    with pytest.raises(DataError, match=message):
        load_dataset(mutate(frame))


def test_task_detection_rule():
    assert infer_task(pd.Series([0, 1, 1, 0])) == "binary"
    assert infer_task(pd.Series(["a", "b", "c"])) == "multiclass"
    assert infer_task(pd.Series([1, 2, 3, 4, 5] * 10)) == "multiclass"
    assert infer_task(pd.Series([0.5, 1.0, 2.0])) == "regression"  # non-integer value
    assert infer_task(pd.Series(np.arange(100))) == "regression"  # 100 distinct > 20 and > 5
    assert infer_task(pd.Series(np.arange(30).repeat(100))) == "multiclass"  # 30 < 5% of 3000
    assert infer_task(pd.Series([True, False, True])) == "binary"


def test_formats_agree_on_content_and_fingerprint(tmp_path, frame):
    csv = tmp_path / "d.csv"
    frame.to_csv(csv, index=False)
    tsv_gz = tmp_path / "d.tsv.gz"
    with gzip.open(tsv_gz, "wt") as handle:
        frame.to_csv(handle, sep="\t", index=False)
    parquet = tmp_path / "d.parquet"
    frame.to_parquet(parquet)
    arff_path = tmp_path / "d.arff"
    lines = [
        "@RELATION d",
        "@ATTRIBUTE age NUMERIC",
        "@ATTRIBUTE colour {red,blue,green}",
        "@ATTRIBUTE score NUMERIC",
        "@ATTRIBUTE label {yes,no}",
        "@DATA",
    ]
    for row in frame.itertuples(index=False):
        values = ["?" if pd.isna(v) else str(v) for v in row]
        lines.append(",".join(values))
    arff_path.write_text("\n".join(lines) + "\n")

    loaded = [load_dataset(p) for p in (csv, tsv_gz, parquet, arff_path)]
    reference = load_dataset(frame)
    for ds in loaded:
        assert ds.name == "d"
        assert ds.source == "file"
        assert ds.target == "label"
        assert ds.n_instances == 6 and ds.n_missing == 2
        assert ds.numeric_columns == ("age", "score")
        assert ds.fingerprint == reference.fingerprint, ds.source_id


def test_fingerprint_changes_with_content(frame):
    other = frame.copy()
    other.loc[0, "age"] = 24
    assert load_dataset(frame).fingerprint != load_dataset(other).fingerprint


def test_question_mark_is_missing_and_numeric_text_is_numeric(tmp_path):
    path = tmp_path / "uci.data"
    path.write_text("a,b,class\n1,?,x\n2,3,y\n?,4,x\n")
    ds = load_dataset(path)
    assert ds.numeric_columns == ("a", "b")
    assert ds.n_missing == 2


def test_missing_file_named(tmp_path):
    missing = tmp_path / "absent.csv"
    with pytest.raises(DataError, match=f"file not found: {missing}"):
        load_dataset(missing)


def test_unreadable_file_named(tmp_path):
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(b"this is not parquet")
    with pytest.raises(DataError, match="cannot read .*bad.parquet"):
        load_dataset(bad)
    bad_gz = tmp_path / "bad.csv.gz"
    bad_gz.write_bytes(b"not gzip at all")
    with pytest.raises(DataError, match="bad.csv.gz"):
        load_dataset(bad_gz)
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    with pytest.raises(DataError, match="no rows"):
        load_dataset(empty)
    header_only = tmp_path / "header.csv"
    header_only.write_text("a,b,target\n")
    with pytest.raises(DataError, match="no rows"):
        load_dataset(header_only)


def test_sklearn_datasets():
    ds = load_dataset("sklearn:iris")
    assert ds.name == "sklearn:iris" and ds.source == "sklearn" and ds.source_id == "iris"
    assert ds.task == "multiclass" and ds.X.shape == (150, 4)
    assert set(ds.y) == {"setosa", "versicolor", "virginica"}
    assert load_dataset("sklearn:diabetes").task == "regression"
    with pytest.raises(DataError, match="unknown scikit-learn dataset 'nope'"):
        load_dataset("sklearn:nope")


def test_openml_goes_through_one_patchable_function(monkeypatch, frame):
    calls = []

    def fake_fetch(dataset_id):
        calls.append(dataset_id)
        return frame, "colour", "fake"

    monkeypatch.setattr(_readers, "fetch_openml_frame", fake_fetch)
    ds = load_dataset("openml:61")
    assert calls == [61]
    assert ds.name == "openml:61" and ds.source == "openml" and ds.source_id == "61"
    assert ds.target == "colour" and ds.target_reason == "openml default target"
    assert ds.n_dropped_target == 1
    assert load_dataset("openml:61", target="label").target_reason == "given"
    with pytest.raises(DataError, match="invalid OpenML dataset id"):
        load_dataset("openml:abc")


def test_duplicated_column_names_are_refused_naming_them():
    frame = pd.DataFrame([[1, 2, 0], [3, 4, 1], [5, 6, 0]], columns=["a", "a", "target"])
    with pytest.raises(DataError, match=r"duplicated column name\(s\): 'a' at columns 1, 2"):
        load_dataset(frame)


def test_not_a_source():
    with pytest.raises(DataError, match="cannot load a dataset from a int"):
        load_dataset(3)
