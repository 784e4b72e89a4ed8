"""The performance matrix, the data version, the read path and the fitted-recommender cache."""

from __future__ import annotations

import pickle

import numpy as np
import pandas as pd
import pytest

from metarec.exceptions import ImportRejectedError
from metarec.storage import KnowledgeBase, aggregate_runs


def _runs(n: int = 400, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    status = rng.choice(["ok", "ok", "ok", "timeout", "error"], n)
    accuracy = np.where(status == "ok", rng.random(n).round(3), np.nan)
    return pd.DataFrame(
        {
            "dataset": rng.choice([f"d{i}" for i in range(7)], n),
            "algorithm": rng.choice([f"a{i}" for i in range(5)], n),
            "fold": np.arange(n),
            "status": status,
            "accuracy": accuracy,
            "time": rng.random(n).round(3) + 0.01,
            "predict_time": np.where(rng.random(n) < 0.2, np.nan, rng.random(n).round(3)),
            "roc_auc": np.where(rng.random(n) < 0.3, np.nan, rng.random(n).round(3)),
        }
    )


def _same(a: pd.DataFrame, b: pd.DataFrame) -> None:
    a = a.reset_index(drop=True)
    b = b.reset_index(drop=True)[list(a.columns)]
    for column in a.columns:
        if a[column].dtype.kind == "f":
            np.testing.assert_allclose(a[column], b[column], rtol=1e-12, equal_nan=True)
        else:
            assert a[column].astype(str).tolist() == b[column].astype(str).tolist(), column


def test_matrix_equals_aggregating_the_runs(kb):
    kb.import_runs(_runs(400, 0), chunksize=97)
    kb.import_runs(_runs(300, 1).assign(fold=lambda f: f["fold"] + 1000))  # touches some pairs
    expected = aggregate_runs(kb.runs(aggregate=False))
    got = kb.runs()
    assert list(got.columns) == list(expected.columns)
    _same(got, expected)
    assert got["n_runs"].sum() == 700 and got["n_runs"].dtype == np.int64


def test_matrix_by_hand_and_filters(kb):
    frame = pd.DataFrame(
        {
            "dataset": ["x", "x", "x", "y"],
            "algorithm": ["knn", "knn", "knn", "knn"],
            "fold": [0, 1, 2, 0],
            "status": ["ok", "timeout", "ok", "error"],
            "accuracy": [0.8, None, 0.6, None],
            "time": [1.0, 10.0, 1.0, 4.0],
            "roc_auc": [0.9, 0.1, 0.7, None],
        }
    )
    kb.import_runs(frame)
    runs = kb.runs().set_index("dataset")
    assert runs.loc["x", "accuracy"] == pytest.approx(0.7)  # ok runs only
    assert runs.loc["x", "fit_time"] == pytest.approx(4.0)  # all runs
    assert runs.loc["x", "roc_auc"] == pytest.approx(0.8)  # the timeout's 0.1 left out
    assert (runs.loc["x", "n_runs"], runs.loc["x", "n_failed"]) == (3, 1)
    assert runs.loc["y", "status"] == "error" and np.isnan(runs.loc["y", "accuracy"])
    assert kb.runs(datasets=["y"])["dataset"].tolist() == ["y"]
    assert kb.runs(metrics=[]).columns[-1] == "n_failed"
    assert kb.runs(algorithms=["nope"]).empty


def _revision_0001(path, frame) -> None:
    """A knowledge base as metarec 0001 wrote it: text run keys, no matrix, no version."""
    from alembic import command
    from sqlalchemy import create_engine, text

    from metarec.storage._migrate import _config
    from metarec.storage._runkeys import content_hashes

    engine = create_engine(f"sqlite:///{path}")
    with engine.begin() as conn:
        command.upgrade(_config(conn), "0001")
        names = {}
        for table, column in (("datasets", "dataset"), ("algorithms", "algorithm")):
            for i, name in enumerate(sorted(frame[column].unique()), start=1):
                conn.execute(
                    text(f"INSERT INTO {table} (id, name) VALUES (:i, :n)"), {"i": i, "n": name}
                )
                names[(column, name)] = i
        h1, h2 = content_hashes(frame, [])
        seen: dict[int, int] = {}
        for (_, row), a, b in zip(frame.iterrows(), h1.tolist(), h2.tolist(), strict=True):
            k = seen.get(a, 0)
            seen[a] = k + 1
            conn.execute(
                text(
                    "INSERT INTO runs (run_key, dataset_id, algorithm_id, protocol, seed, fold, "
                    "status, accuracy, fit_time, predict_time, source, source_run_id, error) "
                    "VALUES (:key, :d, :a, NULL, NULL, :fold, :status, :acc, :fit, NULL, :src, "
                    ":srid, NULL)"
                ),
                {
                    "key": f"{row['source']}:{row['source_run_id']}"
                    if isinstance(row["source_run_id"], str)
                    else f"h:{a:016x}{b:016x}:{k}",
                    "src": row["source"] if isinstance(row["source"], str) else None,
                    "srid": row["source_run_id"] if isinstance(row["source_run_id"], str) else None,
                    "d": names[("dataset", row["dataset"])],
                    "a": names[("algorithm", row["algorithm"])],
                    "fold": int(row["fold"]),
                    "status": row["status"],
                    "acc": None if pd.isna(row["accuracy"]) else float(row["accuracy"]),
                    "fit": float(row["fit_time"]),
                },
            )
    engine.dispose()


def test_migration_from_revision_0001_converts_keys_and_builds_the_matrix(tmp_path):
    """An older KB (0001: text keys, no matrix) upgraded by 'db upgrade' gets 16-byte keys that
    still recognise its runs (a re-import adds nothing) and a matrix computed from its runs."""
    from metarec.exceptions import KnowledgeBaseError

    frame = pd.DataFrame(
        {
            "dataset": ["d1", "d1", "d2", "d2", "d2"],
            "algorithm": ["a", "a", "a", "b", "b"],
            "fold": [0, 0, 1, 2, 3],  # two identical rows: occurrence indexes 0 and 1
            "status": ["ok", "ok", "timeout", "ok", "ok"],
            "accuracy": [0.5, 0.5, np.nan, 0.75, 0.5],
            "fit_time": [1.0, 1.0, 9.0, 2.0, 1.0],
            "source": [None, None, None, None, "lab"],  # the last a named run
            "source_run_id": [None, None, None, None, "17"],
        }
    )
    normalised = frame.assign(protocol=None, seed=np.nan, predict_time=np.nan, error=None)
    path = tmp_path / "old.sqlite"
    _revision_0001(path, normalised)
    with pytest.raises(KnowledgeBaseError, match="open_for_upgrade") as err:
        KnowledgeBase(f"sqlite:///{path}")
    assert "'metarec db upgrade'" in err.value.cli_message
    upgraded = KnowledgeBase.open_for_upgrade(f"sqlite:///{path}")
    assert upgraded.revision == "0007" and upgraded.data_version()
    runs = upgraded.runs().set_index(["dataset", "algorithm"])
    assert runs.loc[("d1", "a"), "n_runs"] == 2 and runs.loc[("d2", "a"), "status"] == "timeout"
    report = upgraded.import_runs(frame.rename(columns={"fit_time": "time"}))
    assert (report.added, report.present) == (0, 5)
    assert upgraded.source_run_ids("lab", ["17", "18"]) == ["17"]
    moved = frame.iloc[[4]].rename(columns={"fit_time": "time"}).assign(dataset="d1")
    assert upgraded.import_runs(moved, on_conflict="replace").replaced == 1
    assert upgraded.count("runs") == 5


def test_data_version_changes_with_every_change_and_only_then(kb):
    first = kb.data_version()
    kb.import_runs(_runs(50))
    second = kb.data_version()
    assert second != first
    kb.import_runs(_runs(50))  # nothing new
    assert kb.data_version() == second
    kb.add_dataset("d0", task="binary")
    third = kb.data_version()
    assert third != second
    kb.add_dataset("d0", task="binary")  # the same values
    assert kb.data_version() == third
    kb.import_metafeatures(pd.DataFrame({"dataset": ["d0"], "n_instances": [10]}))
    assert kb.data_version() != third


def test_a_rejected_import_changes_neither_matrix_nor_version(kb):
    kb.import_runs(_runs(50))
    version, matrix = kb.data_version(), kb.runs()
    bad = _runs(20, 3).assign(accuracy=2.0)
    with pytest.raises(ImportRejectedError, match="outside"):
        kb.import_runs(bad)
    assert kb.data_version() == version
    _same(kb.runs(), matrix)


def test_reads_never_build_row_objects(kb, monkeypatch):
    """The read path hands the driver's plain tuples to pandas: if any read goes through
    SQLAlchemy's Result row API again (Row objects, ~13 us a row), this test fails."""
    from sqlalchemy.engine import Result

    kb.import_runs(_runs(100))
    kb.import_metafeatures(pd.DataFrame({"dataset": ["d0", "d1"], "n_instances": [10, 20]}))

    def forbidden(*args, **kwargs):
        raise AssertionError("a read went through SQLAlchemy Row objects")

    for name in ("all", "fetchall", "fetchmany", "fetchone", "__iter__", "partitions", "first"):
        monkeypatch.setattr(Result, name, forbidden)
    assert len(kb.runs()) > 0 and len(kb.runs(aggregate=False)) == 100
    assert len(kb.metafeatures()) == 2
    assert len(kb.datasets()) == 7 and len(kb.algorithms()) == 5


# ----------------------------------------------------------------------------- the cache


def _fitted(kb, **params):
    from metarec.recommender import LearnedRanker, Recommender, fitted_recommender

    return fitted_recommender(kb, Recommender(LearnedRanker(**params)))


def _kb_with_metafeatures(tmp_path) -> KnowledgeBase:
    kb = KnowledgeBase(f"sqlite:///{tmp_path / 'kb.sqlite'}")
    kb.import_runs(_runs(300))
    rng = np.random.default_rng(0)
    meta = pd.DataFrame({"dataset": [f"d{i}" for i in range(7)], "mf1": rng.random(7)})
    kb.import_metafeatures(meta.assign(mf2=rng.random(7)))
    return kb


@pytest.fixture
def fits(monkeypatch):
    """The list that ``Recommender.fit`` appends to at each call (a fit, not a cache hit)."""
    from metarec.recommender import Recommender

    calls = []
    original = Recommender.fit

    def counting(self, kb, y=None):
        calls.append(1)
        return original(self, kb, y)

    monkeypatch.setattr(Recommender, "fit", counting)
    return calls


def test_cache_returns_the_same_fit_and_is_rebuilt_when_the_kb_changes(tmp_path, fits):
    from metarec.recommender._cache import cache_dir

    kb = _kb_with_metafeatures(tmp_path)
    first = _fitted(kb, k=2)
    second = _fitted(kb, k=2)
    assert len(fits) == 1
    query = {"mf1": 0.5, "mf2": 0.5}
    assert first.recommend(metafeatures=query).algorithms == (
        second.recommend(metafeatures=query).algorithms
    )
    np.testing.assert_array_equal(first.ranker_.accuracy_, second.ranker_.accuracy_)
    _fitted(kb, k=3)  # other parameters: another entry
    assert len(fits) == 2
    kb.import_runs(_runs(20, 9).assign(fold=lambda f: f["fold"] + 5000))
    third = _fitted(kb, k=2)
    assert len(fits) == 3
    assert third.ranker_.accuracy_.shape == first.ranker_.accuracy_.shape
    assert len(list(cache_dir().glob("recommender-*.pkl"))) == 3


def test_a_tolerance_reuses_a_fit_of_an_earlier_state_while_the_kb_grows_a_little(tmp_path, fits):
    from metarec.recommender import LearnedRanker, Recommender, fitted_recommender
    from metarec.recommender._cache import _earlier, cache_dir

    kb = _kb_with_metafeatures(tmp_path)  # 7 datasets, 300 runs

    def fitted(tolerance):
        return fitted_recommender(kb, Recommender(LearnedRanker(k=2)), tolerance=tolerance)

    first = fitted(0.2)
    assert len(fits) == 1
    (path,) = cache_dir().glob("recommender-*.pkl")
    assert path.stem.endswith("-d7-r300")
    # one new dataset (1/7 = 14 % of the datasets) with 30 runs (10 % of the runs)
    extra = _runs(30, 5).assign(dataset="d7", fold=lambda f: f["fold"] + 9000)
    kb.import_runs(extra)
    stale = fitted(0.2)
    assert len(fits) == 1 and "d7" not in list(stale.datasets_)  # the earlier fit
    np.testing.assert_array_equal(stale.ranker_.accuracy_, first.ranker_.accuracy_)
    assert "d7" in list(fitted(0.1).datasets_)  # 14 % > 10 %: fitted again
    assert len(fits) == 2
    assert fitted(0.0) is not None and len(fits) == 2  # now cached for this very state
    # by hand: grown by (1 dataset, 30 runs) from (7, 300); shrunk is never accepted
    prefix = path.name.rsplit("-", 3)[0]

    def counts(paths):
        return [p.stem.rsplit("-", 2)[1:] for p in paths]

    assert counts(_earlier(prefix, (8, 330), 0.15)) == [["d8", "r330"], ["d7", "r300"]]
    assert counts(_earlier(prefix, (8, 330), 0.1)) == [["d8", "r330"]]
    assert counts(_earlier(prefix, (9, 340), 0.15)) == [["d8", "r330"]]
    assert _earlier(prefix, (6, 300), 0.5) == [] and _earlier(prefix, (7, 290), 0.5) == []


def test_a_corrupt_cache_file_is_ignored_and_rebuilt(tmp_path):
    from metarec.recommender._cache import cache_dir

    kb = _kb_with_metafeatures(tmp_path)
    _fitted(kb, k=2)
    (path,) = cache_dir().glob("recommender-*.pkl")
    path.write_bytes(b"\x80\x05 not a pickle")
    model = _fitted(kb, k=2)
    assert hasattr(model, "ranker_")
    assert isinstance(pickle.loads(path.read_bytes()), type(model))  # rewritten
    path.write_bytes(pickle.dumps({"something": "else"}))
    assert hasattr(_fitted(kb, k=2), "ranker_")


def test_a_cache_file_that_cannot_be_written_leaves_no_file(tmp_path, monkeypatch):
    """A full disk midway through the pickle: no cache entry, no temporary file and no error
    (the caller still has its model); a model that cannot be pickled is an error, which
    leaves no file either."""
    from metarec.recommender import _cache

    folder = tmp_path / "cache"
    target = folder / "recommender-k-d1-r1.pkl"
    with pytest.raises(AttributeError, match="pickle"):
        _cache._store(target, {"model": lambda: None})  # a local function: not picklable
    assert list(folder.iterdir()) == []

    def full_disk(obj, handle, protocol=None):
        handle.write(b"\x80\x05half")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(_cache.pickle, "dump", full_disk)
    _cache._store(target, {"model": "fine"})
    assert list(folder.iterdir()) == []
    monkeypatch.undo()
    _cache._store(target, {"model": "fine"})
    assert pickle.loads(target.read_bytes()) == {"model": "fine"}
    assert [p.name for p in folder.iterdir()] == [target.name]


# ------------------------------------------------------------------------ Parquet round trip


def test_parquet_export_and_import_give_identical_runs_and_metafeatures(kb, tmp_path):
    """Export's default format is Parquet; importing its files into an empty KB gives the
    same runs (with their metrics), the same matrix and the same metafeatures."""
    kb.import_runs(_runs(300))
    names = [f"d{i}" for i in range(7)]
    kb.import_metafeatures(
        pd.DataFrame({"dataset": names, "n_instances": np.arange(7) * 10 + 5, "snr": 0.25})
    )
    written = kb.export(tmp_path / "out")
    assert {p.suffix for p in written.values()} == {".parquet"}
    copy = KnowledgeBase(f"sqlite:///{tmp_path / 'copy.sqlite'}")
    assert copy.import_runs(written["runs"]).added == 300
    assert copy.import_metafeatures(written["metafeatures"]).added == 14
    key = ["dataset", "algorithm", "fold"]
    pd.testing.assert_frame_equal(
        copy.runs(aggregate=False).sort_values(key).reset_index(drop=True),
        kb.runs(aggregate=False).sort_values(key).reset_index(drop=True),
    )
    pd.testing.assert_frame_equal(copy.runs(), kb.runs())
    pd.testing.assert_frame_equal(copy.metafeatures(), kb.metafeatures())
    assert kb.import_runs(written["runs"]).added == 0  # and back into the original: nothing


def test_cli_export_then_import_parquet(tmp_path):
    from click.testing import CliRunner

    from metarec.cli import cli

    source = KnowledgeBase(f"sqlite:///{tmp_path / 'a.sqlite'}")
    source.import_runs(_runs(120))
    runner = CliRunner()
    out = runner.invoke(
        cli, ["--db", str(tmp_path / "a.sqlite"), "db", "export", str(tmp_path / "x")]
    )
    assert out.exit_code == 0, out.output
    assert (tmp_path / "x" / "runs.parquet").is_file()
    into = str(tmp_path / "b.sqlite")
    done = runner.invoke(
        cli, ["--db", into, "import", "runs", str(tmp_path / "x" / "runs.parquet")]
    )
    assert done.exit_code == 0, done.output
    pd.testing.assert_frame_equal(KnowledgeBase(into).runs(), source.runs())


def test_source_run_ids_finds_stored_named_runs(kb):
    frame = pd.DataFrame(
        {
            "dataset": ["d", "d", "d"],
            "algorithm": ["a", "b", "c"],
            "accuracy": [0.5, 0.6, 0.7],
            "time": [1.0, 1.0, 1.0],
            "source": ["openml", "openml", "lab"],
            "source_run_id": ["7", "8", "9"],
        }
    )
    kb.import_runs(frame)
    assert sorted(kb.source_run_ids("openml", ["7", "9", "10", "8"])) == ["7", "8"]
    assert kb.source_run_ids("lab", ["9"]) == ["9"]
    assert kb.source_run_ids("openml", []) == []


# ------------------------------------------------------------------------- read-only opening


def test_read_only_open_reads_and_refuses_writes(tmp_path, monkeypatch):
    from metarec.exceptions import KnowledgeBaseError
    from metarec.storage import _engine

    path = tmp_path / "kb.sqlite"
    kb = KnowledgeBase(f"sqlite:///{path}")
    kb.import_runs(_runs(50))
    expected = kb.runs()
    with kb.engine.connect() as conn:
        conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
    kb.close()
    for extra in ("-wal", "-shm"):
        (tmp_path / f"kb.sqlite{extra}").unlink(missing_ok=True)
    reader = KnowledgeBase(f"sqlite:///{path}", read_only=True)
    assert reader.read_only
    _same(reader.runs(), expected)
    with pytest.raises(KnowledgeBaseError, match="readonly"):
        reader.import_runs(_runs(5, 7))
    reader.close()
    for extra in ("-wal", "-shm"):  # mode=ro may make them where the folder allows it
        (tmp_path / f"kb.sqlite{extra}").unlink(missing_ok=True)
    # a folder this process cannot write: opened immutable, no -wal / -shm made there
    monkeypatch.setattr(_engine, "_writable", lambda p: p != tmp_path)
    assert _engine.sqlite_read_only_mode(path) == "immutable"
    auto = KnowledgeBase(f"sqlite:///{path}", create=False, read_only=None)
    assert auto.read_only and auto.count("runs") == 50
    auto.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kb.sqlite"]
    # its owner writes it meanwhile (WAL mode: a -shm beside it): read through the WAL, not
    # immutable, so the owner's new rows are seen
    owner = KnowledgeBase(f"sqlite:///{path}")
    owner.import_runs(_runs(5, 7))
    assert (tmp_path / "kb.sqlite-shm").is_file()
    assert _engine.sqlite_read_only_mode(path) == "ro"
    reader = KnowledgeBase(f"sqlite:///{path}", create=False, read_only=None)
    assert reader.read_only and reader.count("runs") == owner.count("runs") > 50
    reader.close()
    # the file and its log copied without the -shm into a folder nobody may write: the
    # log's rows cannot be read there, and are not silently left out
    import shutil

    copied = tmp_path / "copy"
    copied.mkdir()
    for name in ("kb.sqlite", "kb.sqlite-wal"):
        shutil.copyfile(tmp_path / name, copied / name)
    assert (copied / "kb.sqlite-wal").stat().st_size > 0
    owner.close()
    monkeypatch.setattr(_engine, "_writable", lambda p: p not in (tmp_path, copied))
    with pytest.raises(KnowledgeBaseError, match="kb.sqlite-wal holds rows not yet in the file"):
        KnowledgeBase(f"sqlite:///{copied / 'kb.sqlite'}", create=False, read_only=None)
    assert sorted(p.name for p in copied.iterdir()) == ["kb.sqlite", "kb.sqlite-wal"]


# ------------------------------------------------------------------------------ conflicts


def test_conflicts_error_keep_replace_on_every_backend(kb):
    from metarec.exceptions import ImportRejectedError

    frame = pd.DataFrame(
        {
            "dataset": ["d", "d"],
            "algorithm": ["a", "b"],
            "accuracy": [0.5, 0.6],
            "time": [1.0, 2.0],
            "roc_auc": [0.7, 0.8],
            "source": ["openml", "openml"],
            "source_run_id": ["7", "8"],
        }
    )
    kb.import_runs(frame)
    version = kb.data_version()
    changed = frame.assign(accuracy=[0.5, 0.9], roc_auc=[0.7, 0.1])
    with pytest.raises(ImportRejectedError, match="'openml:8' is already stored from source"):
        kb.import_runs(changed)
    assert kb.data_version() == version
    kept = kb.import_runs(changed, on_conflict="keep")
    assert (kept.added, kept.present, kept.replaced) == (0, 2, 0)
    assert kb.data_version() == version
    replaced = kb.import_runs(changed, on_conflict="replace")
    assert (replaced.added, replaced.present, replaced.replaced) == (0, 1, 1)
    assert any("accuracy 0.6 -> 0.9" in n and "roc_auc 0.8 -> 0.1" in n for n in replaced.notes)
    runs = kb.runs().set_index("algorithm")
    assert runs.loc["b", "accuracy"] == pytest.approx(0.9)
    assert runs.loc["b", "roc_auc"] == pytest.approx(0.1)
    assert kb.count("runs") == 2 and kb.data_version() != version
    again = kb.import_runs(changed)  # now identical: no conflict, nothing added
    assert (again.added, again.present) == (0, 2)


def test_conflict_inside_one_file_keep_takes_the_first_replace_the_last(kb):
    frame = pd.DataFrame(
        {
            "dataset": ["d", "d", "d"],
            "algorithm": ["a", "a", "a"],
            "accuracy": [0.1, 0.2, 0.3],
            "time": [1.0, 1.0, 1.0],
            "source": ["lab"] * 3,
            "source_run_id": ["1"] * 3,
        }
    )
    kb.import_runs(frame, on_conflict="keep", chunksize=2)
    assert kb.runs(aggregate=False)["accuracy"].tolist() == [0.1]
    kb.import_runs(frame, on_conflict="replace", chunksize=2)
    assert kb.runs(aggregate=False)["accuracy"].tolist() == [0.3]
    assert kb.runs()["accuracy"].tolist() == [0.3]


def test_matrix_rebuilt_whole_when_an_import_touches_many_pairs(kb, monkeypatch):
    from metarec.storage import _importers, _performance

    kb.import_runs(_runs(200, 0))  # pair by pair
    monkeypatch.setattr(_importers, "REBUILD_THRESHOLD", 3)
    monkeypatch.setattr(_performance, "REBUILD_THRESHOLD", 3)
    kb.import_runs(_runs(300, 1).assign(fold=lambda f: f["fold"] + 1000), chunksize=50)
    _same(kb.runs(), aggregate_runs(kb.runs(aggregate=False)))


def test_a_dataset_added_between_the_name_and_matrix_reads_is_left_out(tmp_path, monkeypatch):
    """``runs()`` reads the names, then the matrix: a concurrent import in between used to
    raise IndexError (an id beyond the names read)."""
    import pandas as pd

    url = f"sqlite:///{tmp_path / 'kb.sqlite'}"
    reader = KnowledgeBase(url)
    reader.import_runs(
        pd.DataFrame({"dataset": ["d1"], "algorithm": ["a1"], "accuracy": [0.9], "time": [1.0]})
    )
    names = {table: reader._reads._names(table) for table in ("datasets", "algorithms")}
    KnowledgeBase(url).import_runs(
        pd.DataFrame({"dataset": ["d2"], "algorithm": ["a2"], "accuracy": [0.8], "time": [2.0]})
    )
    monkeypatch.setattr(reader._reads, "_names", lambda table: names[table])
    runs = reader.runs()
    assert runs[["dataset", "algorithm"]].values.tolist() == [["d1", "a1"]]
    assert runs["accuracy"].tolist() == [0.9]


def test_matrix_kept_by_imports_of_new_old_and_moved_pairs(kb):
    """New pairs come from the range of run ids an import inserted, pairs the matrix held are
    recomputed: after each kind of import the matrix equals aggregating every stored run."""

    def check():
        _same(kb.runs(), aggregate_runs(kb.runs(aggregate=False)))

    first = _runs(200, 0)
    kb.import_runs(first, chunksize=37)  # a new KB: new pairs only
    check()
    # half already stored, half new folds of the same pairs, and a new algorithm
    more = pd.concat(
        [
            first.iloc[:100],
            _runs(100, 1).assign(fold=lambda f: f["fold"] + 1000),
            _runs(50, 2).assign(algorithm="new", fold=lambda f: f["fold"] + 2000),
        ]
    )
    report = kb.import_runs(more, chunksize=64)
    assert (report.added, report.present) == (150, 100)
    check()
    # a named run moved to a pair that had no runs, with its metric
    named = pd.DataFrame(
        {
            "dataset": ["d0", "d1"],
            "algorithm": ["a0", "a1"],
            "status": ["ok", "ok"],
            "accuracy": [0.25, 0.5],
            "time": [1.0, 2.0],
            "roc_auc": [0.3, 0.4],
            "source": ["lab", "lab"],
            "source_run_id": ["1", "2"],
        }
    )
    kb.import_runs(named)
    check()
    moved = named.assign(dataset=["fresh", "d1"], accuracy=[0.75, 0.5])
    assert kb.import_runs(moved, on_conflict="replace").replaced == 1
    check()
    runs = kb.runs().set_index(["dataset", "algorithm"])
    assert runs.loc[("fresh", "a0"), "accuracy"] == 0.75
    assert runs.loc[("fresh", "a0"), "roc_auc"] == pytest.approx(0.3)
    if kb.engine.dialect.name == "sqlite":  # PostgreSQL enforces them always
        with kb.engine.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA foreign_key_check").all() == []


def test_one_named_run_per_key_whatever_its_pair_and_hashed_runs_per_pair(kb):
    """uq_runs_pair_key makes hashed runs idempotent; uq_runs_named_key keeps a named run
    unique across pairs, even when written around the importer."""
    import sqlalchemy as sa

    row = {"dataset": "d", "algorithm": "a", "accuracy": 0.5, "time": 1.0}
    kb.import_runs(pd.DataFrame([row, {**row, "source": "lab", "source_run_id": "9"}]))
    assert kb.import_runs(pd.DataFrame([row])).added == 0
    kb.add_algorithm("b")
    with kb.engine.connect() as conn:
        (key,) = conn.exec_driver_sql("SELECT run_key FROM runs WHERE source_run_id = '9'").one()
        b = conn.exec_driver_sql("SELECT id FROM algorithms WHERE name = 'b'").scalar()
        with pytest.raises(sa.exc.IntegrityError):  # the same named run under another pair
            conn.execute(
                sa.text(
                    "INSERT INTO runs (dataset_id, algorithm_id, status, run_key, source, "
                    "source_run_id) SELECT dataset_id, :b, 'ok', run_key, source, "
                    "source_run_id FROM runs WHERE run_key = :k"
                ),
                {"b": b, "k": key},
            )


def _one_run_each(datasets, algorithms) -> pd.DataFrame:
    """One run per (dataset, algorithm) pair, ok and failed, with and without times."""
    pairs = [(d, a) for d in datasets for a in algorithms]
    n = len(pairs)
    status = np.resize(np.array(["ok", "timeout", "ok", "error"], dtype=object), n)
    return pd.DataFrame(
        {
            "dataset": [d for d, _ in pairs],
            "algorithm": [a for _, a in pairs],
            "status": status,
            "accuracy": np.where(status == "ok", np.linspace(0.5, 0.9, n).round(3), np.nan),
            "time": np.arange(1, n + 1) / 4,
            "predict_time": np.where(np.arange(n) % 3 == 0, np.nan, 0.125),
            "roc_auc": np.where(np.arange(n) % 2 == 0, 0.75, np.nan),
        }
    )


def test_new_pairs_of_one_run_each_are_copied_into_the_matrix(kb, monkeypatch):
    """When every new pair got one run, the runs are copied without a GROUP BY: the matrix
    equals aggregating the runs, into a new KB and a filled one, with failed runs and a pair
    the matrix held; a new pair given two runs (two chunks, or one) is grouped."""
    from metarec.storage import _importers, _performance
    from metarec.storage._engine import write_transaction

    flags = []

    def spy(conn, after_id, *, one_run_each=False):
        flags.append(one_run_each)
        _performance.add_new_pairs(conn, after_id, one_run_each=one_run_each)

    def rebuild_spy(conn, *, one_run_each=False):  # a new KB: the whole matrix at once
        flags.append(one_run_each)
        _performance.rebuild_performance(conn, one_run_each=one_run_each)

    monkeypatch.setattr(_importers, "add_new_pairs", spy)
    monkeypatch.setattr(_importers, "rebuild_performance", rebuild_spy)

    def check():
        got = kb.runs()
        _same(got, aggregate_runs(kb.runs(aggregate=False)))
        with write_transaction(kb.engine) as conn:  # the GROUP BY of every run
            _performance.rebuild_performance(conn)
        _same(kb.runs(), got)
        return got.set_index(["dataset", "algorithm"])

    first = _one_run_each(["d0", "d1", "d2"], ["a0", "a1", "a2"])
    kb.import_runs(first, chunksize=4)  # a new KB, pairs spread over chunks
    runs = check()
    assert flags == [True]
    timeout = runs.loc[("d0", "a1")]  # by hand: row 1 of the frame
    assert timeout["status"] == "timeout" and np.isnan(timeout["accuracy"])
    assert (timeout["fit_time"], timeout["predict_time"]) == (0.5, 0.125)
    assert (timeout["n_runs"], timeout["n_failed"]) == (1, 1)
    ok = runs.loc[("d0", "a0")]
    assert (ok["status"], ok["accuracy"], ok["fit_time"], ok["roc_auc"]) == ("ok", 0.5, 0.25, 0.75)
    assert np.isnan(ok["predict_time"]) and (ok["n_runs"], ok["n_failed"]) == (1, 0)

    # a filled KB: new datasets, one new run for a pair the matrix held (refreshed)
    more = pd.concat(
        [_one_run_each(["d3", "d4"], ["a0", "a3"]), first.iloc[[0]].assign(accuracy=0.1)]
    )
    assert kb.import_runs(more, chunksize=3).added == 5
    runs = check()
    assert flags == [True, True]
    assert runs.loc[("d0", "a0"), "accuracy"] == pytest.approx(0.3)
    assert runs.loc[("d0", "a0"), "n_runs"] == 2

    # a new pair with two runs, in two chunks, then in one chunk
    for chunksize, dataset in ((1, "d5"), (10, "d6")):
        two = _one_run_each([dataset], ["a0", "a0"]).assign(fold=[0, 1])
        assert kb.import_runs(two, chunksize=chunksize).added == 2
        runs = check()
        assert runs.loc[(dataset, "a0"), "n_runs"] == 2
    assert flags == [True, True, False, False]


@pytest.mark.parametrize("algorithms", [["a1", "a2", "a2"], ["a1", "a1", "a1"]])
def test_a_new_kb_with_replaced_runs_groups_its_matrix(kb, algorithms):
    """Into an empty KB, a later chunk replaces a run the first one inserted, moving it into
    a pair that has a run, or keeping it in a pair given several: no pair counts as one run
    (the copy without GROUP BY made two rows of one pair and the import failed)."""
    frame = pd.DataFrame(
        {
            "dataset": ["d1"] * 3,
            "algorithm": algorithms,
            "accuracy": [0.5, 0.6, 0.7],
            "time": [1.0, 2.0, 4.0],
            "source": ["s"] * 3,
            "source_run_id": ["1", "2", "1"],
        }
    )
    report = kb.import_runs(frame, chunksize=2, on_conflict="replace")
    assert (report.added, report.replaced) == (2, 1)
    runs = kb.runs()
    _same(runs, aggregate_runs(kb.runs(aggregate=False)))
    assert runs.loc[runs["algorithm"] == "a2", "n_runs"].tolist() == (
        [2] if algorithms[1] == "a2" else []
    )
    assert runs["accuracy"].max() == pytest.approx(0.65)  # (0.6 + 0.7) / 2: the moved run


def test_a_copied_row_is_the_grouped_row_to_the_sign_of_zero(kb):
    """PostgreSQL's AVG(-0.0) is 0.0: a copied matrix row must not keep the minus sign."""
    import math

    from sqlalchemy import text

    from metarec.storage._engine import write_transaction
    from metarec.storage._performance import rebuild_performance

    frame = pd.DataFrame(
        {"dataset": ["d"], "algorithm": ["a"], "accuracy": [-0.0], "time": [-0.0]}
    ).assign(predict_time=-0.0)
    kb.import_runs(frame)
    query = text("SELECT accuracy, fit_time, predict_time FROM performance")
    with kb.engine.connect() as conn:
        copied = conn.execute(query).one()
    with write_transaction(kb.engine) as conn:
        rebuild_performance(conn)
        grouped = conn.execute(query).one()
    assert [math.copysign(1, x) for x in copied] == [math.copysign(1, x) for x in grouped]
    assert [math.copysign(1, x) for x in copied] == [1.0, 1.0, 1.0]


def test_an_unwritable_place_is_named_when_sqlite_cannot_open_or_write(tmp_path, monkeypatch):
    from metarec.storage import _engine

    path = tmp_path / "kb.sqlite"
    path.write_bytes(b"")
    url = f"sqlite:///{path}"
    monkeypatch.setattr(_engine, "_writable", lambda p: p != tmp_path)
    hint = _engine._unwritable_hint(url, "unable to open database file")
    assert hint == f" ({tmp_path} cannot be written here: a read-only file system or folder?)"
    assert _engine._unwritable_hint(url, "database is locked") == ""
    monkeypatch.setattr(_engine, "_writable", lambda p: True)
    assert _engine._unwritable_hint(url, "attempt to write a readonly database") == ""


def test_a_look_that_must_create_nothing_is_immutable_only_with_nothing_beside(tmp_path):
    from metarec.storage import _engine

    path = tmp_path / "kb.sqlite"
    KnowledgeBase(f"sqlite:///{path}").close()
    assert _engine.peek_mode(path) == "immutable"
    for extra in ("-wal", "-shm", "-journal"):  # a writer may be at work: read through it
        beside = tmp_path / f"kb.sqlite{extra}"
        beside.write_bytes(b"")
        assert _engine.peek_mode(path) == "ro", extra
        beside.unlink()
