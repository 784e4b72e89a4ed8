"""Reading import files: what a user's files look like when they go slightly wrong."""

from __future__ import annotations

import pandas as pd
import pytest

from metarec.exceptions import ImportRejectedError
from metarec.storage import KnowledgeBase

HEADER = "dataset,algorithm,accuracy,time\n"


@pytest.fixture
def kb(tmp_path):
    kb = KnowledgeBase(f"sqlite:///{tmp_path / 'kb.sqlite'}")
    kb.import_runs(
        pd.DataFrame({"dataset": ["iris"], "algorithm": ["svc"], "accuracy": [0.5], "time": [1.0]})
    )
    yield kb
    kb.close()


def _runs(kb):
    runs = kb.runs(aggregate=False)
    return sorted(zip(runs["dataset"], runs["algorithm"], runs["accuracy"], strict=True))


def _write(tmp_path, text, name="runs.csv", encoding="utf-8"):
    path = tmp_path / name
    path.write_bytes(text.encode(encoding))
    return path


def test_a_separator_ending_every_data_row_is_read_as_the_header_says(kb, tmp_path):
    kb.import_runs(_write(tmp_path, HEADER + "wine,knn,0.91,0.5,\nwine,lda,0.8,2,\n"))
    stored = kb.runs(aggregate=False).set_index("algorithm")
    assert stored.loc["knn", "dataset"] == "wine" and stored.loc["knn", "accuracy"] == 0.91
    assert stored.loc["lda", "fit_time"] == 2.0
    # a later row that fills the field after the last separator is refused, naming it
    before = _runs(kb)
    text = HEADER + "wine,qda,0.9,1,\nwine,nb,0.9,1,oops\n"
    with pytest.raises(ImportRejectedError, match=r"line 3: 5 fields, the header names 4 .*'oops'"):
        kb.import_runs(_write(tmp_path, text, "later.csv"))
    assert _runs(kb) == before


def test_a_row_with_more_fields_than_the_header_is_refused(kb, tmp_path):
    before = _runs(kb)
    with pytest.raises(ImportRejectedError, match=r"line 2: 5 fields, the header names 4 .*'7'"):
        kb.import_runs(_write(tmp_path, HEADER + "wine,knn,0.9,1,7\n"))
    assert _runs(kb) == before


def test_a_file_cut_off_in_its_last_row_is_refused(kb, tmp_path):
    before = _runs(kb)
    with pytest.raises(ImportRejectedError, match="last line has 2 of the header's 4 fields"):
        kb.import_runs(_write(tmp_path, HEADER + "wine,knn,0.9,1\nwine,ra"))
    assert _runs(kb) == before
    # a whole last row without a line end is fine
    kb.import_runs(_write(tmp_path, HEADER + "wine,knn,0.9,1\nwine,lda,0.7,1", "whole.csv"))
    assert ("wine", "lda", 0.7) in _runs(kb)


def test_names_that_pandas_reads_as_missing_are_names(kb, tmp_path):
    kb.import_runs(_write(tmp_path, HEADER + "NA,knn,0.9,1\nNone,null,NA,1\n"))
    runs = kb.runs(aggregate=False).set_index("dataset")
    assert runs.loc["NA", "algorithm"] == "knn" and runs.loc["NA", "accuracy"] == 0.9
    assert runs.loc["None", "algorithm"] == "null"
    assert pd.isna(runs.loc["None", "accuracy"])  # "NA" in a number column is missing
    with pytest.raises(ImportRejectedError, match="line 2"):  # an empty name is still missing
        kb.import_runs(_write(tmp_path, HEADER + ",knn,0.9,1\n", "empty.csv"))


def test_na_as_r_writes_it_is_missing_in_the_other_text_columns(kb, tmp_path):
    """R's write.csv writes a missing value as NA: text, not a value, in every column but the
    names (two runs with source NA are not one run repeated with other values)."""
    text = (
        "dataset,algorithm,accuracy,time,error,machine,source,source_run_id\n"
        "wine,knn,0.9,1,NA,NA,NA,NA\nwine,lda,0.8,1,NA,NA,NA,NA\nNA,knn,0.7,1,NA,NA,NA,NA\n"
    )
    report = kb.import_runs(_write(tmp_path, text))
    assert report.added == 3 and report.rejected == 0
    runs = kb.runs(aggregate=False).set_index(["dataset", "algorithm"])
    for key in (("wine", "knn"), ("wine", "lda"), ("NA", "knn")):
        row = runs.loc[key]
        assert [row["error"], row["machine"], row["source"], row["source_run_id"]] == [None] * 4
    kb.import_datasets(
        _write(
            tmp_path, "name,task,n_instances,fingerprint,source\nwine,binary,178,NA,NA\n", "d.csv"
        )
    )
    wine = kb.datasets().set_index("name").loc["wine"]
    assert wine["task"] == "binary" and wine["fingerprint"] is None and wine["source"] is None


def test_a_file_that_is_not_utf8_names_the_line(kb, tmp_path):
    before = _runs(kb)
    text = HEADER + "wine,knn,0.9,1\ncaf\u00e9,knn,0.9,1\n"
    with pytest.raises(
        ImportRejectedError, match=r"line 3: the file is not UTF-8 text \(byte 0xe9\)"
    ):
        kb.import_runs(_write(tmp_path, text, encoding="latin-1"))
    assert _runs(kb) == before
    kb.import_runs(_write(tmp_path, text, "utf8.csv"))  # the same file saved as UTF-8
    assert ("caf\u00e9", "knn", 0.9) in _runs(kb)


def test_parquet_durations_are_seconds_and_dates_are_refused(kb, tmp_path):
    frame = pd.DataFrame(
        {"dataset": ["wine"], "algorithm": ["knn"], "accuracy": [0.9],
         "time": pd.to_timedelta([2.5], unit="s")}
    )  # fmt: skip
    frame.to_parquet(tmp_path / "runs.parquet")
    kb.import_runs(tmp_path / "runs.parquet")
    assert kb.runs(aggregate=False).set_index("dataset").loc["wine", "fit_time"] == 2.5
    frame["time"] = pd.to_datetime(["2026-01-01"])
    frame.to_parquet(tmp_path / "dates.parquet")
    with pytest.raises(ImportRejectedError, match="column 'time' holds dates and times"):
        kb.import_runs(tmp_path / "dates.parquet")


def test_row_names_as_r_and_pandas_write_them_are_left_out(kb, tmp_path):
    """R's write.csv (and pandas' to_csv with its index) writes row names in a first column
    without a name: not a metric, not a metafeature, not an unknown column."""
    runs = (
        '"","dataset","algorithm","accuracy","time","roc_auc"\n'
        '"1","wine","glm",0.81,1.25,0.9\n"2","wine","rf",NA,60,NA\n'
    )
    report = kb.import_runs(_write(tmp_path, runs))
    assert report.added == 2 and any("row names" in note for note in report.notes)
    stored = kb.runs(aggregate=False)
    assert "Unnamed: 0" not in stored.columns and "roc_auc" in stored.columns
    assert sorted(stored.loc[stored["dataset"] == "wine", "algorithm"]) == ["glm", "rf"]
    described = kb.import_metafeatures(
        _write(tmp_path, ",dataset,n_instances\n0,wine,178\n", "mf.csv")
    )
    assert described.added == 1 and any("row names" in note for note in described.notes)
    assert list(kb.metafeatures().columns) == ["dataset", "n_instances"]
    kb.import_datasets(_write(tmp_path, ",name,task\n0,wine,binary\n", "d.csv"))
    assert kb.datasets().set_index("name").loc["wine", "task"] == "binary"
    # row names that were the datasets' names: the refusal says where they went
    with pytest.raises(ImportRejectedError, match="unnamed first column was left out as row"):
        kb.import_metafeatures(_write(tmp_path, '"","n_instances"\n"wine",178\n', "r.csv"))


def test_a_semicolon_separated_file_is_refused_saying_so(kb, tmp_path):
    before = _runs(kb)
    text = "dataset;algorithm;accuracy;time\nwine;knn;0,85;1,5\n"
    with pytest.raises(ImportRejectedError, match="line 1: .*looks separated by semicolons"):
        kb.import_runs(_write(tmp_path, text))
    assert _runs(kb) == before
