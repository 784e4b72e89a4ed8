"""Run rows as the driver takes them, and SQLite's multi-row inserts of them."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from metarec.storage import KnowledgeBase, _runrows


def _frame(n: int, *, statuses=("ok",), offset: int = 0) -> pd.DataFrame:
    status = np.resize(np.array(statuses, dtype=object), n)
    return pd.DataFrame(
        {
            "dataset": [f"d{(i + offset) % 3}" for i in range(n)],
            "algorithm": [f"a{(i + offset) % 2}" for i in range(n)],
            "fold": np.arange(offset, offset + n),
            "status": status,
            "accuracy": np.where(status == "ok", np.linspace(0.1, 0.9, n), np.nan),
            "time": np.arange(1, n + 1) / 8,
        }
    )


def _stored(url) -> pd.DataFrame:
    from sqlalchemy import create_engine

    engine = create_engine(url)
    with engine.connect() as conn:
        frame = pd.read_sql(
            "SELECT r.id, d.name AS dataset, a.name AS algorithm, r.fold, r.status, "
            "r.accuracy, r.fit_time FROM runs r JOIN datasets d ON d.id = r.dataset_id "
            "JOIN algorithms a ON a.id = r.algorithm_id ORDER BY r.id",
            conn,
        )
    engine.dispose()
    return frame


def test_statement_text_by_hand():
    sql = _runrows._sqlite_run_insert(("run_key", "dataset_id"), 2, "ok")
    assert sql == (
        "INSERT INTO runs (run_key, dataset_id, status) VALUES (?, ?, 'ok'), (?, ?, 'ok') "
        "ON CONFLICT DO NOTHING"
    )
    assert _runrows._sqlite_run_insert(("run_key",), 1) == (
        "INSERT INTO runs (run_key) VALUES (?) ON CONFLICT DO NOTHING"
    )
    with pytest.raises(ValueError, match="not a run status"):
        _runrows._sqlite_run_insert(("run_key",), 1, "ok'); DROP TABLE runs; --")


def test_variable_limit_of_the_driver_or_the_old_default():
    import sqlite3

    conn = sqlite3.connect(":memory:")
    if hasattr(conn, "getlimit"):
        assert _runrows._variable_limit(conn) == conn.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER)
    assert _runrows._variable_limit(object()) == 999  # a driver that cannot tell
    conn.close()


@pytest.mark.parametrize("statuses", [("ok",), ("ok", "timeout", "error")])
@pytest.mark.parametrize("per", [1, 3, 200])
def test_multi_row_statements_store_every_row_in_order_and_skip_stored_ones(
    tmp_path, monkeypatch, statuses, per
):
    """10 rows in statements of ``per`` (full ones and a shorter last one), 4 of them already
    stored: the report, the ids (input order) and every value are those of row-by-row."""
    monkeypatch.setattr(_runrows, "ROWS_PER_STATEMENT", per)
    url = f"sqlite:///{tmp_path / 'kb.sqlite'}"
    kb = KnowledgeBase(url)
    frame = _frame(10, statuses=statuses)
    assert kb.import_runs(frame.iloc[[1, 4, 5, 8]]).added == 4
    report = kb.import_runs(frame, chunksize=7)
    assert (report.added, report.present) == (6, 4)
    kb.close()
    stored = _stored(url)
    order = [1, 4, 5, 8, 0, 2, 3, 6, 7, 9]  # the first import's rows, then the rest in order
    expected = frame.iloc[order].reset_index(drop=True)
    assert stored["id"].tolist() == list(range(1, 11))
    assert stored[["dataset", "algorithm", "status"]].values.tolist() == (
        expected[["dataset", "algorithm", "status"]].values.tolist()
    )
    assert stored["fold"].tolist() == expected["fold"].tolist()
    np.testing.assert_array_equal(stored["accuracy"], expected["accuracy"])
    np.testing.assert_array_equal(stored["fit_time"], expected["time"])


def test_statements_shrink_to_the_bound_value_limit(tmp_path, monkeypatch):
    """A library allowing 15 bound values: 2 rows of 7 columns per statement, not 200."""
    seen = []
    original = _runrows._sqlite_run_insert

    def spy(names, n_rows, status=None):
        seen.append((len(names), n_rows))
        return original(names, n_rows, status)

    monkeypatch.setattr(_runrows, "_variable_limit", lambda driver: 15)
    monkeypatch.setattr(_runrows, "_sqlite_run_insert", spy)
    kb = KnowledgeBase(f"sqlite:///{tmp_path / 'kb.sqlite'}")
    # run_key, dataset_id, algorithm_id, fold, status, accuracy, fit_time
    frame = _frame(5, statuses=("ok", "error"))
    assert kb.import_runs(frame).added == 5
    assert seen == [(7, 2), (7, 1)]  # two statements of 2 rows (executemany), then 1 row
    assert kb.count("runs") == 5
    kb.close()


def test_a_failed_statement_rolls_back_the_whole_import(tmp_path, monkeypatch):
    """A row SQLite refuses in the middle of the rows: nothing of the import is stored."""
    kb = KnowledgeBase(f"sqlite:///{tmp_path / 'kb.sqlite'}")
    kb.import_runs(_frame(3))
    monkeypatch.setattr(_runrows, "ROWS_PER_STATEMENT", 4)
    original = _runrows.run_values

    def broken(*args):
        values = original(*args)
        values["dataset_id"][6] = None  # NOT NULL: the second statement fails
        return values

    monkeypatch.setattr("metarec.storage._importers.run_values", broken)
    from metarec.exceptions import KnowledgeBaseError

    with pytest.raises(KnowledgeBaseError, match="NOT NULL"):
        kb.import_runs(_frame(10, offset=100))
    assert kb.count("runs") == 3 and len(kb.runs()) == 3
    kb.close()


def test_metric_values_reach_their_runs_in_multi_row_statements(tmp_path, monkeypatch):
    """Two metrics with gaps over 10 runs in statements of 3 values: every present value is
    stored with its own run (found by its pair and key), none for a gap, and a re-import
    adds none (the values of a stored run are skipped with it)."""
    from sqlalchemy import create_engine

    monkeypatch.setattr(_runrows, "ROWS_PER_STATEMENT", 3)
    url = f"sqlite:///{tmp_path / 'kb.sqlite'}"
    kb = KnowledgeBase(url)
    frame = _frame(10).assign(
        roc_auc=[0.5, np.nan, 0.25, 0.75, np.nan, 0.125, 1.0, 0.0, np.nan, 0.375],
        log_loss=[np.nan] * 9 + [2.5],
    )
    assert kb.import_runs(frame, chunksize=6).added == 10
    assert kb.import_runs(frame, chunksize=4).present == 10
    kb.close()
    engine = create_engine(url)
    with engine.connect() as conn:
        stored = conn.exec_driver_sql(
            "SELECT r.fold, m.metric, m.value FROM run_metrics m JOIN runs r ON r.id = m.run_id "
            "ORDER BY r.fold, m.metric"
        ).all()
    engine.dispose()
    expected = [
        (fold, metric, value)
        for fold in range(10)
        for metric in ("log_loss", "roc_auc")
        if not np.isnan(value := frame.loc[fold, metric])
    ]
    assert [tuple(row) for row in stored] == expected
    assert len(stored) == 8
