"""The knowledge base's behaviour, on SQLite and on PostgreSQL (see conftest.py)."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from metarec.exceptions import ImportRejectedError, KnowledgeBaseError
from metarec.storage import KnowledgeBase, NoKnowledgeBaseError, open_or_builtin


def _runs() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "dataset": ["iris", "iris", "iris", "iris", "wine", "wine"],
            "algorithm": ["knn", "knn", "tree", "tree", "knn", "tree"],
            "fold": [0, 1, 0, 1, 0, 0],
            "accuracy": [0.9, 0.8, 1.0, np.nan, 0.7, 0.6],
            "status": ["ok", "ok", "ok", "timeout", "ok", "ok"],
            "time": [1.0, 3.0, 2.0, 10.0, 0.5, 0.25],
            "roc_auc": [0.95, 0.85, 1.0, np.nan, np.nan, 0.5],
        }
    )


def test_new_database_is_created_at_the_newest_revision(kb):
    info = kb.info()
    assert info["revision"] == "0007"
    assert {info[t] for t in ("datasets", "algorithms", "metafeatures", "runs", "run_metrics")} == {
        0
    }


def test_import_runs_reports_and_is_idempotent(kb):
    first = kb.import_runs(_runs())
    assert (first.added, first.present, first.rejected) == (6, 0, 0)
    again = kb.import_runs(_runs())
    assert (again.added, again.present, again.rejected) == (0, 6, 0)
    assert kb.count("runs") == 6
    assert kb.count("run_metrics") == 4  # NaN metric values are not stored


def test_has_runs_looks_up_one_row_instead_of_counting(kb, kb_url):
    """Whether a KB is empty decides the built-in fallback of every reading command: on a
    10-million-run KB a COUNT(*) scanned a whole index on each ``recommend``."""
    from sqlalchemy import event

    assert not kb.has_runs()
    kb.import_runs(_runs())
    statements = []
    event.listen(kb.engine, "before_cursor_execute", lambda *a: statements.append(a[2]))
    assert kb.has_runs()
    assert not any("count(" in s.lower() for s in statements) and statements
    opened = open_or_builtin(kb_url)
    assert not opened.is_builtin and opened.has_runs()
    opened.close()


def test_runs_long_format_round_trip(kb):
    kb.import_runs(_runs(), protocol="cv2", source="lab")
    runs = kb.runs(aggregate=False).sort_values(["dataset", "algorithm", "fold"])
    assert list(runs.columns[:12]) == [
        "dataset", "algorithm", "protocol", "seed", "fold", "status", "accuracy", "fit_time",
        "predict_time", "source", "source_run_id", "error",
    ]  # fmt: skip
    assert runs["accuracy"].tolist()[:3] == [0.9, 0.8, 1.0]
    assert runs["fit_time"].tolist() == [1.0, 3.0, 2.0, 10.0, 0.5, 0.25]
    assert set(runs["protocol"]) == {"cv2"} and set(runs["source"]) == {"lab"}
    assert runs["roc_auc"].isna().sum() == 2


def test_runs_aggregate_by_hand(kb):
    kb.import_runs(_runs())
    agg = kb.runs().set_index(["dataset", "algorithm"])
    knn = agg.loc[("iris", "knn")]
    assert knn["accuracy"] == pytest.approx(0.85)  # (0.9 + 0.8) / 2
    assert knn["fit_time"] == pytest.approx(2.0)  # (1 + 3) / 2
    assert knn["roc_auc"] == pytest.approx(0.9)
    assert (knn["n_runs"], knn["n_failed"], knn["status"]) == (2, 0, "ok")
    tree = agg.loc[("iris", "tree")]
    assert tree["accuracy"] == pytest.approx(1.0)  # the ok fold only
    assert tree["fit_time"] == pytest.approx(6.0)  # (2 + 10) / 2: failed runs cost time too
    assert (tree["n_runs"], tree["n_failed"], tree["status"]) == (2, 1, "ok")


def test_all_failed_pair_has_failure_status(kb):
    frame = pd.DataFrame(
        {
            "dataset": ["d", "d"],
            "algorithm": ["svm", "svm"],
            "accuracy": [np.nan, np.nan],
            "time": [60, 60],
            "status": ["timeout", "timeout"],
        }
    )
    kb.import_runs(frame)
    row = kb.runs().iloc[0]
    assert row["status"] == "timeout" and math.isnan(row["accuracy"]) and row["n_failed"] == 2


def test_filters_on_dataset_algorithm_and_metric(kb):
    kb.import_runs(_runs())
    assert set(kb.runs(datasets=["wine"])["dataset"]) == {"wine"}
    assert set(kb.runs(algorithms=["tree"])["algorithm"]) == {"tree"}
    assert "roc_auc" not in kb.runs(aggregate=False, metrics=[]).columns
    assert "roc_auc" in kb.runs(aggregate=False, metrics=["roc_auc"]).columns
    # no dataset named: no rows, with the same columns (but the metrics no row has)
    for aggregate in (True, False):
        empty = kb.runs(aggregate=aggregate, datasets=[])
        full = kb.runs(aggregate=aggregate, metrics=[])
        assert len(empty) == 0 and list(empty.columns) == list(full.columns)


def test_several_identical_rows_are_all_kept(kb):
    frame = pd.DataFrame(
        {"dataset": ["d"] * 3, "algorithm": ["a"] * 3, "accuracy": [0.5] * 3, "time": [1.0] * 3}
    )
    assert kb.import_runs(frame).added == 3
    assert kb.import_runs(frame).added == 0
    assert kb.runs().iloc[0]["n_runs"] == 3


def test_source_run_id_is_the_key(kb):
    frame = pd.DataFrame(
        {
            "dataset": ["d", "d"],
            "algorithm": ["a", "a"],
            "accuracy": [0.5, 0.6],
            "time": [1.0, 1.0],
            "source": ["openml", "openml"],
            "source_run_id": ["7", "8"],
        }
    )
    kb.import_runs(frame)
    changed = frame.assign(accuracy=[0.9, 0.9])  # the same OpenML runs, other values
    report = kb.import_runs(changed, on_conflict="keep")
    assert (report.added, report.present) == (0, 2)
    assert kb.runs(aggregate=False)["accuracy"].tolist() == [0.5, 0.6]


def test_invalid_rows_reject_the_whole_input(kb):
    kb.import_runs(_runs())
    bad = _runs().assign(dataset=["x"] * 6)
    bad.loc[2, "accuracy"] = 1.5
    bad.loc[4, "time"] = -1.0
    with pytest.raises(ImportRejectedError) as info:
        kb.import_runs(bad)
    message = str(info.value)
    assert "row 3" in message and "'accuracy'" in message and "outside [0, 1]" in message
    assert len(info.value.problems) == 2 and "row 5" in info.value.problems[1]
    assert kb.count("runs") == 6 and "x" not in set(kb.datasets()["name"])


def test_skip_invalid_keeps_the_valid_rows(kb):
    bad = _runs()
    bad["accuracy"] = bad["accuracy"].astype(object)
    bad.loc[0, "accuracy"] = "high"
    report = kb.import_runs(bad, skip_invalid=True)
    assert (report.added, report.rejected) == (5, 1)
    assert "'high' is not a number" in report.problems[0]


def test_missing_required_column_is_named(kb):
    with pytest.raises(ImportRejectedError, match="missing required column.*'accuracy'"):
        kb.import_runs(_runs().drop(columns="accuracy"))


@pytest.mark.parametrize(
    ("column", "value", "expected"),
    [
        ("accuracy", -0.1, "outside \\[0, 1\\]"),
        ("time", -2.0, "negative"),
        ("status", "weird", "not one of ok, timeout, error"),
        ("fold", 1.5, "not an integer"),
        ("dataset", None, "dataset is missing"),
    ],
)
def test_each_bad_value_is_reported(kb, column, value, expected):
    bad = _runs()
    bad[column] = bad[column].astype(object)
    bad.loc[1, column] = value
    with pytest.raises(ImportRejectedError, match=expected):
        kb.import_runs(bad)
    assert kb.count("runs") == 0 and kb.count("datasets") == 0


def test_metafeatures_wide_round_trip_and_updates(kb):
    kb.import_runs(_runs())
    mf = pd.DataFrame(
        {"dataset": ["iris", "wine"], "n_instances": [150, 178], "snr": [2.5, np.nan]}
    )
    report = kb.import_metafeatures(mf)
    assert (report.added, report.present, report.updated) == (3, 0, 0)
    stored = kb.metafeatures().set_index("dataset")
    assert stored.loc["iris", "n_instances"] == 150 and math.isnan(stored.loc["wine", "snr"])
    again = kb.import_metafeatures(mf.assign(n_instances=[150, 200]))
    assert (again.added, again.present, again.updated) == (0, 2, 1)
    assert kb.metafeatures(datasets=["wine"]).iloc[0]["n_instances"] == 200


def test_metafeatures_translate_openml_names(kb):
    kb.import_runs(_runs())
    kb.import_metafeatures(pd.DataFrame({"dataset": ["iris"], "NumberOfInstances": [150.0]}))
    assert kb.metafeatures().iloc[0]["n_instances"] == 150


def test_metafeatures_of_unknown_dataset_are_rejected(kb):
    kb.import_runs(_runs())
    mf = pd.DataFrame({"dataset": ["iris", "ghost"], "snr": [1.0, 2.0]})
    with pytest.raises(ImportRejectedError, match="row 2.*unknown dataset 'ghost'"):
        kb.import_metafeatures(mf)
    assert kb.count("metafeatures") == 0


def test_datasets_and_algorithms_are_upserted(kb):
    kb.add_dataset("d", source="file", task="binary", n_instances=10, n_features=3)
    kb.add_dataset("d", fingerprint="abc")  # None never erases
    row = kb.datasets().iloc[0]
    assert (row["source"], row["n_instances"], row["fingerprint"]) == ("file", 10, "abc")
    kb.add_algorithm("knn", family="neighbours", parameters={"n_neighbors": 5, "a": 1})
    algo = kb.algorithms().iloc[0]
    assert algo["parameters"] == json.dumps({"a": 1, "n_neighbors": 5})


def test_export_and_reimport_adds_nothing(kb, tmp_path):
    kb.import_runs(_runs())
    kb.import_metafeatures(pd.DataFrame({"dataset": ["iris"], "snr": [3.0]}))
    written = kb.export(tmp_path / "out", format="csv")
    assert kb.import_runs(written["runs"]).added == 0
    fresh = KnowledgeBase(f"sqlite:///{tmp_path / 'copy.sqlite'}")
    assert fresh.import_runs(written["runs"]).added == 6
    fresh.import_metafeatures(written["metafeatures"])
    pd.testing.assert_frame_equal(fresh.runs(), kb.runs())
    pd.testing.assert_frame_equal(fresh.metafeatures(), kb.metafeatures())


def test_an_export_that_fails_leaves_the_earlier_export_whole(kb, tmp_path, monkeypatch):
    """Interrupted while writing its third file, an export into a folder holding an older
    export leaves the older one whole (not two moments' files mixed) and no partial file."""
    kb.import_runs(_runs())
    out = tmp_path / "out"
    before = {p.name: p.read_bytes() for p in kb.export(out, format="csv").values()}
    kb.import_metafeatures(pd.DataFrame({"dataset": ["iris"], "snr": [3.0]}))
    real, calls = pd.DataFrame.to_csv, []

    def interrupted(frame, path, *args, **kwargs):
        calls.append(path)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(frame, path, *args, **kwargs)

    monkeypatch.setattr(pd.DataFrame, "to_csv", interrupted)
    with pytest.raises(KeyboardInterrupt):
        kb.export(out, format="csv")
    monkeypatch.undo()
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    # a table's place taken by a folder: refused before anything is written
    (out / "runs.csv").unlink()
    (out / "runs.csv").mkdir()
    with pytest.raises(KnowledgeBaseError, match="runs.csv is a folder, not a file"):
        kb.export(out, format="csv")
    assert sorted(p.name for p in out.iterdir()) == sorted(before)
    assert (out / "datasets.csv").read_bytes() == before["datasets.csv"]


def test_export_then_import_in_order_rebuilds_every_table(kb, tmp_path):
    kb.import_runs(_runs())
    kb.import_metafeatures(pd.DataFrame({"dataset": ["iris"], "snr": [3.0]}))
    kb.add_dataset("iris", source="file", task="multiclass", n_instances=150, fingerprint="f")
    kb.add_dataset("prices", source="file", task="regression", n_instances=60)
    kb.add_algorithm("knn", family="neighbours", parameters={"n_neighbors": 5})
    for fmt in ("csv", "parquet"):
        written = kb.export(tmp_path / fmt, format=fmt)
        fresh = KnowledgeBase(f"sqlite:///{tmp_path / f'{fmt}.sqlite'}")
        report = fresh.import_datasets(written["datasets"])
        assert (report.added, report.present, report.updated) == (len(kb.datasets()), 0, 0)
        assert fresh.import_algorithms(written["algorithms"]).added == len(kb.algorithms())
        fresh.import_runs(written["runs"])
        fresh.import_metafeatures(written["metafeatures"])
        for table in ("datasets", "algorithms", "runs", "metafeatures"):
            pd.testing.assert_frame_equal(getattr(fresh, table)(), getattr(kb, table)())
        again = fresh.import_datasets(written["datasets"])
        assert (again.added, again.present, again.updated) == (0, len(kb.datasets()), 0)


def test_an_export_holds_one_moment_while_another_process_writes(tmp_path, monkeypatch):
    """A dataset written (by another connection) while the export reads: in none of the
    four files, or in all it belongs to; the export imports back in order either way."""
    path = tmp_path / "kb.sqlite"
    kb = KnowledgeBase(f"sqlite:///{path}")
    kb.import_runs(_runs())
    kb.import_metafeatures(pd.DataFrame({"dataset": ["iris"], "snr": [3.0]}))
    other = KnowledgeBase(f"sqlite:///{path}")
    reads = type(kb._reads)
    original = reads.runs

    def runs_while_another_writes(self, **kwargs):
        frame = original(self, **kwargs)
        other.import_runs(
            pd.DataFrame(
                {"dataset": ["late"], "algorithm": ["knn"], "accuracy": [0.5], "time": [1.0]}
            )
        )
        other.import_metafeatures(pd.DataFrame({"dataset": ["late"], "snr": [1.0]}))
        return frame

    monkeypatch.setattr(reads, "runs", runs_while_another_writes)
    written = kb.export(tmp_path / "out", format="csv")
    monkeypatch.setattr(reads, "runs", original)
    assert "late" in set(kb.metafeatures()["dataset"])  # it was written meanwhile
    for name in ("datasets", "runs", "metafeatures"):
        column = "name" if name == "datasets" else "dataset"
        assert "late" not in set(pd.read_csv(written[name])[column]), name
    fresh = KnowledgeBase(f"sqlite:///{tmp_path / 'fresh.sqlite'}")
    for name in ("datasets", "algorithms", "runs", "metafeatures"):
        getattr(fresh, f"import_{name}")(written[name])
    assert fresh.count("runs") == kb.count("runs") - 1


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ({"name": ["a"], "kind": ["x"]}, "unknown column 'kind'; a datasets file has the columns"),
        ({"task": ["binary"]}, "no 'name' column"),
        ({"name": ["a", ""], "task": ["binary"] * 2}, "line 3: column .name.: a name is required"),
        ({"name": ["a", "a"]}, "line 3: column 'name': 'a' is repeated"),
        ({"name": ["a"], "n_instances": [1e30]}, "line 2: column 'n_instances': 1e\\+30 is beyond"),
        ({"name": ["a"], "task": ["clustering"]}, "line 2: column 'task': unknown task"),
        ({"name": ["a"], "n_instances": [1.5]}, "column 'n_instances': 1.5 is not a whole"),
        ({"name": ["a"], "n_features": [-1]}, "column 'n_features': -1 is not a whole"),
    ],
)
def test_a_bad_datasets_file_is_refused_whole(kb, tmp_path, rows, message):
    kb.add_dataset("keep", task="binary")
    path = tmp_path / "datasets.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    with pytest.raises(ImportRejectedError, match=message):
        kb.import_datasets(path)
    assert list(kb.datasets()["name"]) == ["keep"]


def test_a_dataset_with_runs_keeps_its_kind_of_task(kb):
    kb.add_dataset("iris", task="multiclass")
    kb.add_dataset("fresh", task="binary")  # no runs: its task may change
    kb.import_runs(
        pd.DataFrame(
            {
                "dataset": ["iris"] * 2,
                "algorithm": ["knn"] * 2,
                "fold": [0, 1],
                "accuracy": [0.9, 0.95],
                "fit_time": [0.1, 0.1],
            }
        )  # fmt: skip
    )
    before = kb.datasets()
    bad = pd.DataFrame({"name": ["fresh", "iris"], "task": ["regression", "regression"]})
    with pytest.raises(ImportRejectedError, match="'iris' is stored as multiclass with runs"):
        kb.import_datasets(bad)
    pd.testing.assert_frame_equal(kb.datasets(), before)  # nothing stored, fresh included
    report = kb.import_datasets(
        pd.DataFrame({"name": ["iris", "fresh"], "task": ["binary", "regression"]})
    )
    assert report.updated == 2  # within classification, and a dataset without runs
    assert dict(zip(kb.datasets()["name"], kb.datasets()["task"], strict=True)) == {
        "fresh": "regression",
        "iris": "binary",
    }


def test_empty_database_reads_as_empty_frames(kb):
    assert kb.runs().empty and kb.runs(aggregate=False).empty
    assert kb.metafeatures().empty and kb.datasets().empty and kb.algorithms().empty


def test_create_false_refuses_an_empty_database(tmp_path):
    (tmp_path / "new.sqlite").touch()
    with pytest.raises(KnowledgeBaseError, match=r"is empty.*KnowledgeBase\(url\) creates") as err:
        KnowledgeBase(f"sqlite:///{tmp_path / 'new.sqlite'}", create=False)
    assert "metarec db upgrade" in err.value.cli_message
    assert (tmp_path / "new.sqlite").stat().st_size == 0  # refused without writing


@pytest.mark.parametrize(
    ("column", "value", "expected"),
    [
        ("seed", 2**32, "not an integer between"),
        ("protocol", "p" * 65, "protocol is longer than 64"),
        ("dataset", "d" * 256, "dataset is longer than 255"),
        ("error", "bad\x00byte", "NUL character"),
    ],
)
def test_values_the_schema_cannot_hold_are_rejected_on_every_backend(kb, column, value, expected):
    bad = _runs()
    if column in bad.columns:
        bad[column] = bad[column].astype(object)
    else:
        bad[column] = pd.Series([None] * len(bad), dtype=object)
    bad.loc[2, column] = value
    with pytest.raises(ImportRejectedError, match=expected):
        kb.import_runs(bad)
    assert kb.count("runs") == 0


@pytest.mark.parametrize("name", ["id", "n_runs", "run_key"])
def test_reserved_metric_names_are_rejected(kb, name):
    with pytest.raises(ImportRejectedError, match=f"column '{name}' is reserved"):
        kb.import_runs(_runs().assign(**{name: 1.0}))


def test_reserved_metafeature_names_are_rejected(kb):
    kb.import_runs(_runs())
    with pytest.raises(ImportRejectedError, match="'value' cannot be a metafeature name"):
        kb.import_metafeatures(pd.DataFrame({"dataset": ["iris"], "value": [1.0]}))


def test_source_run_id_without_source_still_distinguishes_runs(kb):
    frame = pd.DataFrame(
        {
            "dataset": ["d", "d"],
            "algorithm": ["a", "a"],
            "accuracy": [0.5, 0.5],
            "time": [1.0, 1.0],
            "source_run_id": ["7", "8"],
        }
    )
    assert kb.import_runs(frame.iloc[:1]).added == 1
    assert kb.import_runs(frame.iloc[1:]).added == 1  # not taken for the run "7"


def test_read_only_open_never_creates_a_database(tmp_path):
    path = tmp_path / "typo" / "kb.sqlite"
    with pytest.raises(
        NoKnowledgeBaseError, match=r"no knowledge base at .*KnowledgeBase\("
    ) as err:
        KnowledgeBase(f"sqlite:///{path}", create=False)
    assert "db upgrade` creates one" in err.value.cli_message
    assert not path.parent.exists()


def test_chunks_with_different_empty_columns_store_every_value(kb):
    """Each chunk binds only the columns holding a value: the others must still be NULL and
    a chunk's values must never land in another chunk's rows; a missing text next to present
    ones is NULL on every backend (PostgreSQL stored the text 'NaN')."""
    frame = pd.DataFrame(
        {
            "dataset": ["d1", "d1", "d2", "d2", "d3"],
            "algorithm": ["a", "b", "a", "b", "a"],
            "accuracy": [0.5, 0.6, np.nan, 0.8, 0.9],
            "time": [1.0, 2.0, 3.0, 4.0, 5.0],
            "seed": [np.nan, np.nan, 7, 8, np.nan],
            "protocol": [None, None, "cv5", None, None],
            "status": ["ok", "ok", "error", "ok", "ok"],
            "error": [None, None, "boom", None, None],
            "predict_time": [np.nan, np.nan, np.nan, np.nan, 0.25],
        }
    )
    report = kb.import_runs(frame, chunksize=2)  # chunks: rows 0-1, 2-3, 4
    assert (report.added, report.present) == (5, 0)
    runs = kb.runs(aggregate=False).sort_values(["dataset", "algorithm"]).reset_index(drop=True)
    assert runs["seed"].isna().tolist() == [True, True, False, False, True]
    assert runs["seed"].dropna().tolist() == [7, 8]
    assert runs["protocol"].isna().tolist() == [True, True, False, True, True]
    assert runs.loc[2, "protocol"] == "cv5" and runs.loc[2, "error"] == "boom"
    assert runs["error"].isna().sum() == 4
    assert runs["predict_time"].isna().tolist() == [True, True, True, True, False]
    assert runs.loc[4, "predict_time"] == 0.25
    assert runs["status"].tolist() == ["ok", "ok", "error", "ok", "ok"]
    again = kb.import_runs(frame, chunksize=3)  # other chunk boundaries, the same keys
    assert (again.added, again.present) == (0, 5)


def test_named_runs_sharing_a_64_bit_key_are_reported_never_dropped(kb, monkeypatch):
    """Named runs are unique by their 64-bit key; should two names ever share one (forced
    here), the importer compares the names: the row is invalid and says why, and lookups by
    name stay exact."""
    import metarec.storage._conflicts as conflicts
    import metarec.storage._runkeys as runkeys

    def same(text: str) -> int:
        return 42

    monkeypatch.setattr(runkeys, "named_key", same)
    monkeypatch.setattr(conflicts, "named_key", same)
    runs = pd.DataFrame(
        {
            "dataset": ["d", "d"],
            "algorithm": ["a", "b"],
            "accuracy": [0.5, 0.75],
            "time": [1.0, 2.0],
            "source": ["lab", "lab"],
            "source_run_id": ["1", "2"],
        }
    )
    with pytest.raises(
        ImportRejectedError, match="'lab:2' has the same 64-bit run key as run 'lab:1'"
    ):
        kb.import_runs(runs)
    assert kb.import_runs(runs.iloc[[0]]).added == 1
    with pytest.raises(
        ImportRejectedError, match="'lab:2' has the same 64-bit run key as run 'lab:1'"
    ):
        kb.import_runs(runs.iloc[[1]])
    report = kb.import_runs(runs.iloc[[1]], skip_invalid=True)
    assert (report.added, report.present, report.rejected) == (0, 0, 1)
    assert kb.source_run_ids("lab", ["1", "2"]) == ["1"]
    assert kb.source_run_ids("other", ["1"]) == []


def test_run_keys_are_those_of_earlier_versions(kb):
    """Faster hashing must give the very keys stored by earlier versions (hashed per row,
    each string on its own), or re-imports into an existing KB would add every run again.
    The expected keys were computed by the per-row implementation."""
    frame = pd.DataFrame(
        {
            "dataset": ["iris", "iris", "wine", "iris"],
            "algorithm": ["knn", "knn", "tree", "knn"],
            "accuracy": [0.9, 0.9, np.nan, 0.5],
            "time": [1.0, 1.0, 2.0, 3.0],
            "status": ["ok", "ok", "Error", "ok"],
            "error": [None, None, "boom", None],
            "seed": [1, 1, np.nan, 2],
            "roc_auc": [0.5, 0.5, np.nan, np.nan],
        }
    )
    kb.import_runs(frame, protocol="cv5")
    with kb.engine.connect() as conn:
        stored = {k for (k,) in conn.exec_driver_sql("SELECT run_key FROM runs")}
    sixteen = {  # the 16-byte keys of revisions 0002-0003
        "6474b52a84adad1d22037a4b3d539095",  # iris/knn, first of two identical rows
        "6474b52a84adad1dc03af404bc9e0caa",  # the second: occurrence 1
        "27049118d7b4f6a42dcbcf360db675b1",  # wine/tree, status 'Error' -> 'error'
        "e9b264112973525107147f55d94a88f9",
    }
    # revision 0005 mixes them: fmix64(h1 XOR fmix64(second half)), as a signed integer
    mixed = {_fmix64(int(h[:16], 16) ^ _fmix64(int(h[16:], 16))) for h in sixteen}
    assert stored == {v - 2**64 if v >= 2**63 else v for v in mixed}


def _fmix64(k: int) -> int:
    """MurmurHash3's 64-bit finaliser with Python integers (independent of the numpy one)."""
    k ^= k >> 33
    k = (k * 0xFF51AFD7ED558CCD) % 2**64
    k ^= k >> 33
    k = (k * 0xC4CEB9FE1A85EC53) % 2**64
    return k ^ (k >> 33)


def test_the_mixer_is_murmur3_fmix64():
    from metarec.storage._runkeys import _mix

    vectors = {  # the published test vectors of fmix64
        0: 0,
        1: 0xB456BCFC34C2CB2C,
        0xFFFFFFFFFFFFFFFF: 0x64B5720B4B825F21,
        0x1234567890ABCDEF: 0x0CAE996FEE6BD396,
    }
    got = _mix(np.array(list(vectors), dtype=np.uint64)).tolist()
    assert got == list(vectors.values()) == [_fmix64(k) for k in vectors]


def test_runs_of_one_pair_differing_only_in_numbers_get_distinct_keys(kb):
    """The XOR of the two halves kept only about half of their bits within a pair: two of
    the 50 folds of one pair of a 1M-run file shared a key and one was dropped as present,
    and 1M runs of one pair got 2,402 repeats.  Both cases, with the rule of revision 0005."""
    from metarec.storage._importers import _normalise_runs
    from metarec.storage._runkeys import OccurrenceCounter, run_keys

    pair = pd.DataFrame(
        {
            "dataset": ["dataset_634", "dataset_634"],
            "algorithm": ["algo_1", "algo_1"],
            "fold": [3, 40],
            "accuracy": [0.024186, 0.939477],
            "time": [11.941730, 19.045902],
        }
    )
    assert kb.import_runs(pair).added == 2
    n = 200_000
    rng = np.random.default_rng(5)
    many = pd.DataFrame(
        {
            "dataset": ["x"] * n,
            "algorithm": ["y"] * n,
            "fold": np.arange(n),
            "accuracy": rng.random(n).round(6),
            "time": rng.random(n).round(6),
        }
    )
    frame, _ = _normalise_runs(many, [], {"source": None, "protocol": None})
    keys = np.array(run_keys(frame, [], OccurrenceCounter()).tolist(), dtype=np.int64)
    assert len(np.unique(keys)) == n  # the revision-0004 rule: about 100 repeats here


def test_occurrence_counter_counts_earlier_identical_rows_across_chunks():
    """Against a dict, over 60 chunks of repeats (levels merged many times on the way)."""
    from metarec.storage._runkeys import OccurrenceCounter

    rng = np.random.default_rng(3)
    counter, seen = OccurrenceCounter(), {}
    for size in rng.integers(0, 400, 60):
        hashes = rng.integers(0, 300, size).astype(np.uint64) * np.uint64(2**61 + 1)
        expected = []
        for h in hashes.tolist():
            expected.append(seen.get(h, 0))
            seen[h] = seen.get(h, 0) + 1
        assert counter.assign(hashes).tolist() == expected
    assert len(counter._levels) <= 8


def test_migration_0005_recomputes_hashed_keys_from_the_stored_runs(kb):
    """A KB at revision 0004 (its hashed keys made by the old rule; stand-ins here, one of
    them the new key of another run of its pair, so it must move out of the way first):
    the upgrade gives every hashed run the key an import computes today (identical rows
    numbered in id order, metrics and missing values included), keeps the named run's key,
    changes no value, and re-importing the same rows adds nothing."""
    from sqlalchemy import text

    from metarec.storage import _migrate

    frame = pd.DataFrame(
        {
            "dataset": ["iris", "iris", "iris", "wine", "wine", "iris"],
            "algorithm": ["knn", "knn", "knn", "tree", "tree", "svc"],
            "fold": [0, 0, 1, 0, np.nan, 0],
            "accuracy": [0.9, 0.9, 0.8, np.nan, 0.5, 0.7],
            "time": [1.0, 1.0, 2.0, 3.0, 0.25, 4.0],
            "status": ["ok", "ok", "ok", "error", "ok", "ok"],
            "error": [None, None, None, "boom", None, None],
            "roc_auc": [0.5, 0.5, np.nan, np.nan, 0.75, 0.625],
            "source": [None, None, None, None, None, "lab"],
            "source_run_id": [None, None, None, None, None, "7"],
        }
    )
    assert kb.import_runs(frame, protocol="cv5").added == 6
    query = text("SELECT id, run_key FROM runs ORDER BY id")
    with kb.engine.begin() as conn:
        expected = conn.execute(query).all()
        ids = [i for i, _ in expected]
        # run 2 holds the new key of run 1, which is updated first
        stand_ins = {ids[0]: 11, ids[1]: expected[0][1], ids[2]: 12, ids[3]: 13, ids[4]: 14}
        for run_id in stand_ins:
            conn.execute(
                text("UPDATE runs SET run_key = :k WHERE id = :i"), {"k": -run_id, "i": run_id}
            )
        for run_id, key in stand_ins.items():
            conn.execute(
                text("UPDATE runs SET run_key = :k WHERE id = :i"), {"k": key, "i": run_id}
            )
        conn.execute(text("ALTER TABLE runs DROP COLUMN machine"))  # added by 0006
        conn.execute(text("ALTER TABLE kb_state DROP COLUMN builds_on"))  # added by 0007
        conn.execute(text("UPDATE alembic_version SET version_num = '0004'"))
        before = pd.read_sql(text("SELECT * FROM runs ORDER BY id"), conn)
    report = _migrate.upgrade(kb.engine, "kb")
    assert (report.from_revision, report.to_revision) == ("0004", "0007")
    with kb.engine.connect() as conn:
        assert conn.execute(query).all() == expected
        after = pd.read_sql(text("SELECT * FROM runs ORDER BY id"), conn)
    assert after["machine"].isna().all()  # no benchmark run: nothing to move
    pd.testing.assert_frame_equal(
        after.drop(columns=["run_key", "machine"]), before.drop(columns="run_key")
    )
    report = kb.import_runs(frame, protocol="cv5")
    assert (report.added, report.present) == (0, 6)


def test_a_knowledge_base_is_shared_by_deepcopy_and_pickled_as_its_address(tmp_path):
    import copy
    import pickle

    from sklearn.base import clone

    from metarec import AutoClassifier
    from metarec.exceptions import KnowledgeBaseError

    kb = KnowledgeBase(tmp_path / "kb.sqlite")
    kb.add_dataset("d1", source="test")
    assert copy.deepcopy(kb) is kb
    assert clone(AutoClassifier(kb=kb)).kb is kb
    again = pickle.loads(pickle.dumps(kb))
    assert again is not kb and again.url == kb.url and list(again.datasets()["name"]) == ["d1"]
    read_only = pickle.loads(pickle.dumps(KnowledgeBase(tmp_path / "kb.sqlite", read_only=True)))
    assert read_only.read_only
    with pytest.raises(KnowledgeBaseError, match="in-memory database cannot be pickled"):
        pickle.dumps(KnowledgeBase("sqlite://"))


@pytest.mark.parametrize("name", ["data.csv", "table.parquet", "x.tsv.gz"])
def test_a_knowledge_base_is_never_created_in_a_data_files_name(tmp_path, name):
    from metarec.storage import open_seeded

    path = tmp_path / name
    with pytest.raises(KnowledgeBaseError, match="looks like a data file"):
        KnowledgeBase(path)
    assert not path.exists()
    path.touch()  # an empty file of that name is not taken over either
    with pytest.raises(KnowledgeBaseError, match="looks like a data file"):
        open_seeded(str(path))
    assert path.stat().st_size == 0


def test_a_knowledge_base_another_process_created_meanwhile_is_used_as_it_is(tmp_path):
    """Two first runs at once: the one that comes second uses the knowledge base the first
    created and already writes to (its rows are kept), and both read the built-in part."""
    from metarec.storage import open_seeded

    url = f"sqlite:///{tmp_path / 'kb.sqlite'}"
    first, made = open_seeded(url)
    assert made and first.builds_on == "builtin"
    first.import_runs(
        pd.DataFrame({"dataset": ["mine"], "algorithm": ["knn"], "accuracy": [0.9], "time": [1.0]})
    )
    second, made = open_seeded(url)
    assert not made and second.builds_on == "builtin"
    assert "mine" in set(second.runs()["dataset"]) and "mine" in set(first.runs()["dataset"])
    assert second.count("runs", part="own") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "kb.sqlite",
        *sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("kb.sqlite-")),
    ]


def test_counts_a_database_cannot_hold_are_refused(kb):
    with pytest.raises(KnowledgeBaseError, match="n_instances 9223372036854775808 is not a count"):
        kb.add_dataset("huge", n_instances=2**63)
    for value in (float("inf"), 150.5, -1, "many", True):
        with pytest.raises(KnowledgeBaseError, match=f"n_instances {value} is not a count"):
            kb.add_dataset("huge", n_instances=value)
        with pytest.raises(KnowledgeBaseError, match=f"'huge': n_features {value} is not a"):
            kb.add_datasets(pd.DataFrame({"name": ["fine", "huge"], "n_features": [3, value]}))
    assert not {"huge", "fine"} & set(kb.datasets()["name"])  # nothing of a refused frame
    # a missing count (NaN, as pandas has it) is no count: nothing stored, nothing erased
    kb.add_dataset("iris", n_instances=150.0)
    kb.add_dataset("iris", n_instances=float("nan"), n_features=np.float64(4))
    kb.add_dataset("iris", n_instances=pd.NA)
    iris = kb.datasets().set_index("name").loc["iris"]
    assert iris["n_instances"] == 150 and iris["n_features"] == 4
    # the largest count every database holds (32-bit on PostgreSQL), given as text
    kb.add_dataset("big", n_instances="2147483647")
    assert kb.datasets().set_index("name").loc["big", "n_instances"] == 2**31 - 1
    with pytest.raises(KnowledgeBaseError, match="n_features 2147483648 is not a count"):
        kb.add_dataset("big", n_features=2**31)


def test_a_metafeature_file_without_metafeatures_is_refused(kb, tmp_path):
    path = tmp_path / "mf.csv"
    path.write_text("dataset\niris\n")
    with pytest.raises(ImportRejectedError, match="no metafeature column besides 'dataset'"):
        kb.import_metafeatures(path)


def test_info_counts_configurations_apart_from_algorithms(tmp_path):
    kb = KnowledgeBase(f"sqlite:///{tmp_path / 'kb.sqlite'}")
    for name in ("lightgbm", "lightgbm_c01", "lightgbm_c12", "knn", "my_c1"):
        kb.add_algorithm(name)
    info = kb.info()
    assert info["algorithms"] == 5
    assert info["configurations"] == 2 and info["base_algorithms"] == 3  # my_c1: one digit


def test_info_says_on_which_datasets_and_rows_the_configurations_ran(tmp_path):
    kb = KnowledgeBase(f"sqlite:///{tmp_path / 'kb.sqlite'}")
    kb.add_dataset("big", n_instances=5000)
    kb.add_dataset("big@1000", n_instances=1000)
    kb.add_dataset("small", n_instances=300)
    kb.add_dataset("other", n_instances=200)
    assert (kb.info()["configuration_datasets"], kb.info()["configuration_rows"]) == (0, 0)
    assert (kb.info()["sources"], kb.info()["configuration_sources"]) == (3, 0)
    runs = pd.DataFrame(
        {
            "dataset": ["big", "big@1000", "big@1000", "small"],
            "algorithm": ["lightgbm", "lightgbm", "lightgbm_c01", "lightgbm_c01"],
            "fold": [0, 0, 0, 0],
            "status": ["ok"] * 4,
            "accuracy": [0.9, 0.8, 0.85, 0.7],
            "fit_time": [1.0, 0.2, 0.3, 0.1],
        }
    )
    kb.import_runs(runs)
    info = kb.info()
    # the defaults ran on 5,000 rows, the configuration on 1,000 and 300 rows only
    assert info["configurations"] == 1 and info["subsamples"] == 1
    assert (info["configuration_datasets"], info["configuration_rows"]) == (2, 1000)
    # big through its sample, small itself; other has none
    assert (info["sources"], info["configuration_sources"]) == (3, 2)
