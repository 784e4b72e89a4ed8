"""Tests of the dataset loader: formats, target choice, task detection, errors."""

from __future__ import annotations

import gzip
import re

import numpy as np
import pandas as pd
import pytest

from metarec.data import Dataset, infer_task, load_dataset, plain_frame
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
    # (a continuous target needs a value on every row: the fixture's missing score is dropped)
    with_both = with_class.rename(columns={"score": "target"}).dropna(subset=["target"])
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


@pytest.mark.parametrize("name, sep", [("d.csv", ","), ("d.tsv.gz", "\t"), ("d.txt", ";")])
def test_floats_are_read_back_exactly(tmp_path, name, sep):
    """17 significant digits written are the same float read (pandas before 3 is off by one
    unit in the last place for some unless asked for round-trip parsing)."""
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"x": rng.normal(size=300), "y": rng.integers(0, 2, 300)})
    path = tmp_path / name
    frame.to_csv(path, sep=sep, index=False)
    ds = load_dataset(path, target="y")
    assert ds.X["x"].to_numpy().tobytes() == frame["x"].to_numpy().tobytes()
    assert ds.fingerprint == load_dataset(frame, target="y").fingerprint


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


def test_openml_data_is_downloaded_from_the_server(replay):
    """openml:999001 through openml-python from the local replay of OpenML: its description,
    then its ARFF file (checked against the description's MD5); the row id is no feature."""
    ds = load_dataset("openml:999001")
    assert ds.name == "openml:999001" and ds.source == "openml" and ds.source_id == "999001"
    assert ds.target == "class" and ds.target_reason == "openml default target"
    assert list(ds.X.columns) == ["recency", "frequency", "season"]
    assert ds.n_dropped_target == 1 and ds.n_instances == 47 and ds.task == "binary"
    assert ds.X["season"].isna().sum() == 1
    assert sorted(set(ds.y)) == ["no", "yes"]
    assert replay.paths() == ["data/999001", "/data/v1/download/999001/donors.arff"]
    given = load_dataset("openml:999001", target="season")
    assert given.target_reason == "given" and given.task == "multiclass"
    assert len(replay.paths()) == 2  # the second time from openml's cache
    with pytest.raises(DataError, match="invalid OpenML dataset id"):
        load_dataset("openml:abc")
    with pytest.raises(DataError, match="cannot fetch openml:404"):
        load_dataset("openml:404")  # the server has no such dataset


def test_duplicated_column_names_are_refused_naming_them():
    frame = pd.DataFrame([[1, 2, 0], [3, 4, 1], [5, 6, 0]], columns=["a", "a", "target"])
    with pytest.raises(DataError, match=r"duplicated column name\(s\): 'a' at columns 1, 2"):
        load_dataset(frame)


def test_not_a_source():
    with pytest.raises(DataError, match="cannot load a dataset from a int"):
        load_dataset(3)


# --- repeated column names, unsupported formats, infinite values, continuous targets ---

DUPLICATED = "a,label,b,label\n1,x,2,yes\n3,y,4,no\n5,x,6,yes\n"


@pytest.mark.parametrize("suffix, sep", [(".csv", ","), (".tsv", "\t"), (".csv.gz", ",")])
def test_text_file_with_two_columns_of_the_same_name_is_refused(tmp_path, suffix, sep):
    import gzip

    path = tmp_path / f"dup{suffix}"
    text = DUPLICATED.replace(",", sep)
    if suffix.endswith(".gz"):
        path.write_bytes(gzip.compress(text.encode()))
    else:
        path.write_text(text)
    with pytest.raises(DataError, match=r"'label' at columns 2, 4") as info:
        load_dataset(path, target="label")
    assert str(path) in str(info.value)


def test_parquet_with_two_columns_of_the_same_name_is_refused(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.table([pa.array([1, 2, 3]), pa.array(["x", "y", "x"]), pa.array(["a", "b", "a"])],
                     names=["label", "f", "label"])  # fmt: skip
    path = tmp_path / "dup.parquet"
    pq.write_table(table, path)
    with pytest.raises(DataError, match=r"'label' at columns 1, 3"):
        load_dataset(path)


def test_arff_with_two_attributes_of_the_same_name_is_refused(tmp_path):
    path = tmp_path / "dup.arff"
    path.write_text(
        "@relation r\n@attribute a numeric\n@attribute label {x,y}\n@attribute label {x,y}\n"
        "@data\n1,x,y\n2,y,x\n"
    )
    # liac-arff refuses it itself, naming the attribute and both lines
    with pytest.raises(DataError, match=r"name label at line 4, this name is already in use"):
        load_dataset(path)


def test_a_header_that_looks_like_a_renamed_duplicate_is_fine(tmp_path):
    path = tmp_path / "ok.csv"
    path.write_text("label,label.1,y\n1,2,a\n3,4,b\n5,6,a\n")
    ds = load_dataset(path, target="y")
    assert list(ds.X.columns) == ["label", "label.1"]


@pytest.mark.parametrize(
    "name, content",
    [("data.json", b'[{"a": 1, "y": "x"}]'), ("data.xlsx", b"PK\x03\x04\x14\x00\x06\x00\xff\xfe")],
)
def test_unsupported_formats_are_named(tmp_path, name, content):
    path = tmp_path / name
    path.write_bytes(content)
    suffix = name.rsplit(".", 1)[1]
    with pytest.raises(DataError, match=rf"unsupported format '\.{suffix}' \(supported: CSV"):
        load_dataset(path)


def test_text_without_a_known_suffix_is_still_sniffed(tmp_path):
    path = tmp_path / "data.txt"
    path.write_text("a;b;y\n1;2;x\n3;4;z\n5;6;x\n")
    assert load_dataset(path).X.shape == (3, 2)


def test_infinite_values_count_as_missing(tmp_path):
    from metarec.metafeatures import extract

    n = 30
    a = np.arange(n, dtype=float)
    a[::3] = np.inf  # one third infinite
    a[1] = -np.inf
    frame = pd.DataFrame({"a": a, "b": np.linspace(0, 1, n), "y": ["p", "q"] * (n // 2)})
    ds = load_dataset(frame)
    assert ds.n_missing == 11  # 10 inf + 1 -inf
    mf = extract(ds.X, ds.y, groups="general")
    assert mf["n_missing_values"] == 11
    assert mf["pct_missing_values"] == pytest.approx(100 * 11 / (n * 2))
    assert mf["n_instances_with_missing"] == 11
    full = extract(ds.X, ds.y)  # every group still works on the column
    assert all(np.isfinite(v) or name in full.reasons for name, v in full.items())


def test_require_classification_says_why_and_how():
    from metarec.data import require_classification

    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"a": rng.normal(size=50), "y": rng.normal(size=50)})
    ds = load_dataset(frame)
    assert ds.task == "regression"
    with pytest.raises(DataError, match=r"50 distinct values among 50 rows, not all integers"):
        require_classification(ds)
    as_labels = load_dataset(frame.assign(y=np.arange(50) % 25), as_classes=True)
    assert as_labels.task == "multiclass"
    assert require_classification(as_labels) is as_labels


def test_single_class_message_prints_a_plain_number():
    frame = pd.DataFrame({"a": [1.0, 2.0, 3.0], "y": np.array([7, 7, 7], dtype=np.int64)})
    with pytest.raises(DataError) as info:
        load_dataset(frame)
    assert "(7)" in str(info.value) and "np." not in str(info.value)


# ------------------------------------------------------------------ regression targets
@pytest.mark.parametrize(
    ("target", "message"),
    [
        ([1.0, 2.0] * 10, "regression target 'target' has 2 distinct value"),
        ([3.0] * 20, "target column 'target' is constant; nothing to learn"),
        ([0.5, 1.5, float("inf")] + [float(i) for i in range(17)], "holds inf at row 3"),
        ([0.5, float("nan")] + [i + 0.5 for i in range(18)], "has no value at row 2 (1 missing"),
        (["a", "b", "c"] * 6 + ["a", "b"], "is not numeric (e.g. 'a')"),
    ],
)
def test_bad_regression_targets_are_refused_with_the_reason(target, message):
    frame = pd.DataFrame({"x": range(20), "target": target})
    with pytest.raises(DataError, match=re.escape(message)):
        load_dataset(frame, task="regression")


def test_detected_continuous_target_with_inf_names_the_row():
    frame = pd.DataFrame({"x": range(40), "target": [i + 0.5 for i in range(39)] + [-np.inf]})
    with pytest.raises(DataError, match=r"holds -inf at row 40 \(1 infinite value"):
        load_dataset(frame)


def test_task_overrides_detection_both_ways():
    codes = pd.DataFrame({"x": range(30), "target": [i % 5 for i in range(30)]})
    assert load_dataset(codes).task == "multiclass"
    assert load_dataset(codes, task="regression").task == "regression"
    prices = pd.DataFrame({"x": range(30), "target": [i * 1.5 for i in range(30)]})
    assert load_dataset(prices).task == "regression"
    assert load_dataset(prices, task="classification").task == "multiclass"
    with pytest.raises(DataError, match="unknown task 'ranking'"):
        load_dataset(prices, task="ranking")


def test_plain_frame_gives_text_names_and_numpy_dtypes():
    """Integer column labels become text; nullable columns become NumPy ones with NaN for
    pd.NA (whole numbers without a gap stay integers); anything else is left alone."""
    frame = pd.DataFrame(
        {
            0: [1.5, 2.0, 3.0],
            "flag": pd.array([True, None, False], dtype="boolean"),
            "count": pd.array([1, None, 3], dtype="Int64"),
            "whole": pd.array([4, 5, 6], dtype="Int64"),
            "word": pd.array(["x", None, "y"], dtype="string"),
            "kind": pd.Categorical(["a", "b", "a"]),
        }
    )
    plain = plain_frame(frame)
    assert list(plain.columns) == ["0", "flag", "count", "whole", "word", "kind"]
    assert plain["flag"].dtype == object and plain["flag"].tolist()[::2] == [True, False]
    assert np.isnan(plain["flag"].iloc[1]) and np.isnan(plain["count"].iloc[1])
    assert plain["count"].dtype == "float64" and plain["whole"].dtype == "int64"
    assert plain["word"].dtype == object and np.isnan(plain["word"].iloc[1])
    assert isinstance(plain["kind"].dtype, pd.CategoricalDtype)
    assert frame["flag"].dtype == "boolean"  # the input is not changed
    untouched = pd.DataFrame({"a": [1.0, np.nan], "b": ["x", np.nan]})
    assert plain_frame(untouched) is untouched
    objects = pd.DataFrame({"o": pd.Series(["x", None, pd.NA, np.nan], dtype=object)})
    cleaned = plain_frame(objects)["o"]
    assert cleaned.iloc[0] == "x" and all(_nan(v) for v in cleaned.iloc[1:])
    assert plain_frame(cleaned.to_frame()) is not None and objects["o"].iloc[1] is None


def _nan(value) -> bool:
    return isinstance(value, float) and np.isnan(value)


def test_a_nullable_boolean_feature_with_a_gap_loads_as_a_category():
    frame = pd.DataFrame(
        {
            1: np.arange(6.0),
            "married": pd.array([True, False, None, True, False, True], dtype="boolean"),
            "label": ["a", "b"] * 3,
        }
    )
    ds = load_dataset(frame, target="label")
    assert ds.numeric_columns == ("1",) and ds.categorical_columns == ("married",)
    assert ds.n_missing == 1 and ds.X["married"].isna().sum() == 1


def test_a_semicolon_csv_with_decimal_commas_is_read(tmp_path):
    """A spreadsheet's CSV in a comma-decimal locale: ';' separates, ',' is the decimal mark;
    with '.' decimals only the separator changes."""
    path = tmp_path / "semi.csv"
    path.write_text("a;b;label\n1,5;2;x\n2,5;3;y\n-3,25;1;x\n4,0;2;y\n")
    ds = load_dataset(path)
    assert ds.numeric_columns == ("a", "b") and ds.target == "label"
    assert ds.X["a"].tolist() == [1.5, 2.5, -3.25, 4.0]
    dots = tmp_path / "dots.csv"
    dots.write_text("a;b;label\n1.5;2;x\n2.5;3;y\n3.5;1;x\n4.0;2;y\n")
    assert load_dataset(dots).X["a"].tolist() == [1.5, 2.5, 3.5, 4.0]


def test_a_tab_separated_file_named_csv_is_read(tmp_path):
    path = tmp_path / "tabs.csv"
    path.write_text("a\tb\tlabel\n1.5\t2\tx\n2.5\t3\ty\n3.5\t1\tx\n4.0\t2\ty\n")
    ds = load_dataset(path)
    assert ds.numeric_columns == ("a", "b") and ds.target == "label"
    assert ds.X["a"].tolist() == [1.5, 2.5, 3.5, 4.0] and ds.y.tolist() == ["x", "y", "x", "y"]


ARFF = """@relation r
@attribute x numeric
@attribute seen date "yyyy-MM-dd"
@attribute class {a,b}
@data
1,2020-01-01,a
2,2020-01-02,b
3,2020-01-03,a
4,2020-01-04,b
"""


def test_arff_with_a_byte_order_mark_and_a_date_attribute_is_read(tmp_path):
    path = tmp_path / "d.arff"
    path.write_bytes(b"\xef\xbb\xbf" + ARFF.replace("\n", "\r\n").encode())
    ds = load_dataset(path)
    assert ds.n_instances == 4 and ds.y.tolist() == ["a", "b", "a", "b"]
    assert ds.X["seen"].tolist() == ["2020-01-01", "2020-01-02", "2020-01-03", "2020-01-04"]
    assert ds.X["x"].tolist() == [1.0, 2.0, 3.0, 4.0]


def test_a_separator_ending_every_row_is_read_as_the_header_says(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("a,b,label\n" + "".join(f"{i},{i % 3},{'xy'[i % 2]},\n" for i in range(20)))
    ds = load_dataset(path, target="label")
    assert ds.X.columns.tolist() == ["a", "b"] and ds.X["a"].tolist() == list(range(20))
    assert set(ds.y) == {"x", "y"}
    path.write_text("a,b,label\n1,2,x,oops\n3,4,y,\n")
    with pytest.raises(DataError, match=r"line 2: 4 fields, the header names 3 \(extra: 'oops'\)"):
        load_dataset(path)
    # a value in a later row is refused too, naming its line (read as the header says,
    # pandas would drop it); so is a row with two more fields than the header
    path.write_text("a,b,label\n1,2,x,\n\n3,4,y,\n5,6,x,7\n")  # after a blank line
    with pytest.raises(DataError, match=r"line 5: 4 fields, the header names 3 \(extra: '7'\)"):
        load_dataset(path)
    path.write_text("a,b,label\n1,2,x,\n3,4,y,,7\n")
    with pytest.raises(DataError, match=r"Expected 4 fields in line 3, saw 5"):
        load_dataset(path)


def test_a_file_that_is_not_utf8_names_the_line_and_a_likely_encoding(tmp_path):
    path = tmp_path / "d.csv"
    path.write_bytes("a,label\n1,x\n2,caf\u00e9\n".encode("latin-1"))
    with pytest.raises(
        DataError, match=r"line 3: the file is not UTF-8 text \(byte 0xe9\).*latin1"
    ):
        load_dataset(path)
    path.write_bytes("a,label\n1,x\n".encode("utf-16"))
    with pytest.raises(DataError, match=r"line 1: .*\(byte 0xff\).*iconv -f utf-16"):
        load_dataset(path)


def test_parquet_lists_and_records_are_refused_naming_the_column(tmp_path):
    frame = pd.DataFrame({"a": [1, 2, 3, 4], "tags": [[1], [2, 3], [], [4]], "y": list("abab")})
    frame.to_parquet(tmp_path / "d.parquet")
    with pytest.raises(DataError, match="column 'tags' holds list<"):
        load_dataset(tmp_path / "d.parquet")


def test_a_numeric_target_with_a_stray_text_cell_is_named_not_taken_for_classes(tmp_path):
    values = [f"{1.5 * i}" for i in range(40)]
    values[6] = "#DIV/0!"
    frame = pd.DataFrame({"x": range(40), "y": values})
    with pytest.raises(DataError, match=r"'y' holds numbers except '#DIV/0!' \(data row 7\):"):
        load_dataset(frame, target="y")
    # every value a label on request; a text target of many labels stays classes
    assert load_dataset(frame, target="y", task="classification").task == "multiclass"
    words = frame.assign(y=[f"w{i % 5}" for i in range(40)])
    assert load_dataset(words, target="y").task == "multiclass"


def _whole_numbers(case: str, rng) -> np.ndarray:
    """The whole-number targets of the rule's table (docs/guide/regression.md)."""
    if case == "duration":  # seconds: hundreds of distinct values
        return np.round(rng.gamma(2.0, 150.0, size=13626)).astype(int)
    if case == "amount":  # whole amounts from 0 to 250, most rows 0
        amounts = np.zeros(2000, dtype=int)
        paid = rng.random(2000) < 0.2
        amounts[paid] = rng.choice(np.arange(10, 260, 10)[:27], size=int(paid.sum()))
        amounts[0] = 250
        return amounts
    if case == "ages":  # 25 consecutive ages of a few people each
        return rng.permutation(np.repeat(np.arange(20, 45), 3))
    if case == "digits":
        return rng.integers(0, 10, size=1797)
    if case == "ratings":
        return rng.integers(1, 6, size=500)
    if case == "binary":
        return rng.integers(0, 2, size=300)
    if case == "numbered":  # six categories numbered with gaps (PMLB's glass: 1-3, 5-7)
        return rng.choice([1, 2, 3, 5, 6, 7], size=214)
    raise AssertionError(case)


@pytest.mark.parametrize(
    ("case", "task", "why"),
    [
        ("duration", "regression", r"\d+ distinct values \(classes are at most 30\)"),
        ("amount", "regression", r"2\d values from 0 to 250, a range \d+\.\d times wider"),
        ("ages", "regression", r"a median of 3 row\(s\) per value among 25 values"),
        ("digits", "multiclass", None),
        ("ratings", "multiclass", None),
        ("binary", "binary", None),
        ("numbered", "multiclass", None),
    ],
)
def test_whole_number_targets_are_classes_or_quantities_by_the_rule(case, task, why):
    import warnings

    from metarec.data import infer_task
    from metarec.exceptions import MetarecWarning

    rng = np.random.default_rng(0)
    y = _whole_numbers(case, rng)
    frame = pd.DataFrame({"x": rng.normal(size=y.size), "y": y})
    assert infer_task(frame["y"]) == task
    if why is None:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # classes: nothing to say
            assert load_dataset(frame, target="y").task == task
        return
    with pytest.warns(MetarecWarning, match="holds whole numbers, taken as a quantity") as said:
        assert load_dataset(frame, target="y").task == "regression"
    message = str(said[0].message)
    assert re.search(why, message) and "--task classification" in message
    # asked for as classes: classes, and nothing said
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert load_dataset(frame, target="y", task="classification").task == "multiclass"
