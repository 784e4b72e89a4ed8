"""The alembic scripts checked with alembic's own API, on SQLite and PostgreSQL.

One head; an upgrade from an empty database through every revision, one at a time; the
models (``metarec.storage._models``) equal to what the scripts build (autogenerate finds no
difference); every downgrade offered, one step at a time, then the upgrade again.  Revisions
0004 and 0005 rewrite the run keys and refuse to downgrade, so the step-by-step round trip
stops at 0005 (:data:`MINIMUM_DOWNGRADE`; 0006's downgrade is checked with rows here); the one
older downgrade that restores its revision's schema whole, 0003 to 0002, is checked here
(0002's downgrade drops the matrix but keeps the 16-byte run keys, which cannot become the
text keys of 0001 again).
"""

from __future__ import annotations

import pytest

from metarec.storage._migrate import HEAD, KNOWN_REVISIONS, migrations_dir

#: The oldest revision the scripts can downgrade to (0004 and 0005 refuse to go back).
MINIMUM_DOWNGRADE = "0005"


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def alembic_engine(request, tmp_path):
    from metarec.storage._engine import make_engine

    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'kb.sqlite'}"
    else:
        from tests.storage.conftest import _create_database

        url = _create_database(request.getfixturevalue("postgres_server"))
    engine = make_engine(url)
    yield engine
    engine.dispose()


def _script():
    from alembic.script import ScriptDirectory

    return ScriptDirectory(str(migrations_dir()))


def _current(conn) -> str | None:
    from alembic.migration import MigrationContext

    return MigrationContext.configure(conn).get_current_revision()


def test_the_scripts_have_a_single_head_which_is_head():
    script = _script()
    assert script.get_heads() == [HEAD]
    # a straight line: every revision has one parent, oldest first as metarec knows them
    chain = [rev.revision for rev in reversed(list(script.walk_revisions()))]
    assert chain == list(KNOWN_REVISIONS)
    for older, newer in zip(chain[:-1], chain[1:], strict=True):
        assert script.get_revision(newer).down_revision == older


def test_upgrade_from_empty_one_revision_at_a_time(alembic_engine):
    from metarec.storage._migrate import run_scripts

    with alembic_engine.begin() as conn:
        assert _current(conn) is None
    for revision in KNOWN_REVISIONS:
        with alembic_engine.begin() as conn:
            run_scripts(conn, revision)
        with alembic_engine.connect() as conn:
            assert _current(conn) == revision


def test_the_models_match_what_the_scripts_build(alembic_engine):
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    from metarec.storage._migrate import run_scripts
    from metarec.storage._models import metadata

    with alembic_engine.begin() as conn:
        run_scripts(conn)
    with alembic_engine.connect() as conn:
        context = MigrationContext.configure(conn, opts={"compare_type": True})
        assert compare_metadata(context, metadata) == []


def test_every_downgrade_offered_then_the_upgrade_again(alembic_engine):
    from metarec.storage._migrate import run_scripts

    offered = KNOWN_REVISIONS[KNOWN_REVISIONS.index(MINIMUM_DOWNGRADE) :]
    with alembic_engine.begin() as conn:
        run_scripts(conn)
        schemas = {HEAD: _schema(conn)}
    for revision in reversed(offered[:-1]):  # down one step at a time
        with alembic_engine.begin() as conn:
            _downgrade(conn, revision)
        with alembic_engine.connect() as conn:
            assert _current(conn) == revision
            schemas[revision] = _schema(conn)
    for revision in offered[1:]:  # and up again, to the same schema at every step
        with alembic_engine.begin() as conn:
            run_scripts(conn, revision)
        with alembic_engine.connect() as conn:
            assert _current(conn) == revision
            assert _schema(conn) == schemas.get(revision, schemas[HEAD])


def test_a_downgrade_below_the_minimum_is_refused(alembic_engine):
    from metarec.storage._migrate import run_scripts

    with alembic_engine.begin() as conn:
        run_scripts(conn, MINIMUM_DOWNGRADE)
    with pytest.raises(NotImplementedError, match="restore a copy of the knowledge base"):
        with alembic_engine.begin() as conn:
            _downgrade(conn, KNOWN_REVISIONS[KNOWN_REVISIONS.index(MINIMUM_DOWNGRADE) - 1])
    with alembic_engine.connect() as conn:
        assert _current(conn) == MINIMUM_DOWNGRADE


def _schema(conn) -> dict:
    from sqlalchemy import inspect

    inspector = inspect(conn)
    return {
        table: (
            sorted((c["name"], str(c["type"])) for c in inspector.get_columns(table)),
            sorted(str(i["column_names"]) for i in inspector.get_indexes(table)),
            sorted(str(u["column_names"]) for u in inspector.get_unique_constraints(table)),
        )
        for table in sorted(inspector.get_table_names())
    }


def test_the_downgrades_offered_undo_their_upgrades(alembic_engine):
    from metarec.storage._migrate import run_scripts

    schemas = {}
    for revision in ("0002", "0003"):
        with alembic_engine.begin() as conn:
            run_scripts(conn, revision)
            schemas[revision] = _schema(conn)
    assert schemas["0002"] != schemas["0003"]
    with alembic_engine.begin() as conn:
        _downgrade(conn, "0002")
        assert _schema(conn) == schemas["0002"]
    with alembic_engine.begin() as conn:
        run_scripts(conn, "0003")
        assert _schema(conn) == schemas["0003"]


def test_0006_moves_a_benchmark_runs_machine_to_its_column_and_back(alembic_engine):
    """Only benchmark runs with a machine after " | " are split; their keys stay."""
    from sqlalchemy import text

    from metarec.storage._migrate import run_scripts

    machine = "AMD EPYC; 2 cores; Linux x86_64; python 3.11.7"
    rows = [  # (source, source_run_id) as revision 0005 stored them
        ("benchmark", f"iris/knn/cv5/0/3 | {machine}"),
        ("benchmark", "iris/knn/cv5/0/4"),  # written without a machine
        ("lab", "batch 2 | rerun"),  # another source: its id as it is
        (None, None),
    ]
    with alembic_engine.begin() as conn:
        run_scripts(conn, "0005")
        conn.execute(text("INSERT INTO datasets (id, name) VALUES (1, 'iris')"))
        conn.execute(text("INSERT INTO algorithms (id, name) VALUES (1, 'knn')"))
        for i, (source, run_id) in enumerate(rows, start=1):
            conn.execute(
                text(
                    "INSERT INTO runs (id, dataset_id, algorithm_id, status, source, "
                    "source_run_id, run_key) VALUES (:i, 1, 1, 'error', :s, :r, :i)"
                ),
                {"i": i, "s": source, "r": run_id},
            )
        run_scripts(conn, "0006")
        moved = conn.execute(
            text("SELECT source_run_id, machine, run_key FROM runs ORDER BY id")
        ).all()
    assert [tuple(r) for r in moved] == [
        ("iris/knn/cv5/0/3", machine, 1),
        ("iris/knn/cv5/0/4", None, 2),
        ("batch 2 | rerun", None, 3),
        (None, None, 4),
    ]
    with alembic_engine.begin() as conn:
        _downgrade(conn, "0005")
        back = conn.execute(text("SELECT source, source_run_id FROM runs ORDER BY id")).all()
    assert [tuple(r) for r in back] == rows


def _downgrade(conn, revision: str) -> None:
    from alembic import command

    from metarec.storage._migrate import _config

    command.downgrade(_config(conn), revision)


def test_revisions_compute_with_frozen_copies_only():
    """A revision's result must not change when the live storage code does."""
    import ast

    versions = migrations_dir() / "versions"
    scripts = sorted(versions.glob("0*.py"))
    assert len(scripts) >= 5
    for script in scripts:
        for node in ast.walk(ast.parse(script.read_text())):
            if (
                isinstance(node, ast.ImportFrom)
                and node.module
                and node.module.startswith("metarec")
            ):
                assert node.module.startswith("metarec.storage.migrations.frozen."), (
                    f"{script.name} imports {node.module}; revisions use frozen copies"
                )


def test_live_run_keys_are_those_of_the_head_revision():
    """Changing how keys are computed needs a new revision (and a new frozen copy)."""
    import numpy as np
    import pandas as pd

    from metarec.storage import _runkeys as live
    from metarec.storage.migrations.frozen import runkeys_0005 as frozen

    frame = pd.DataFrame(
        {
            "dataset": ["iris", "iris", "iris", "wine"],
            "algorithm": ["knn", "knn", "tree", "knn"],
            "protocol": ["cv5", "cv5", None, "cv10"],
            "status": ["ok", "ok", "error", "ok"],
            "source": [None, None, "lab", None],
            "source_run_id": [None, None, None, "run-7"],
            "error": [None, None, "boom", None],
            "seed": [0.0, 0.0, np.nan, 1.0],
            "fold": [0.0, 0.0, 1.0, 2.0],
            "accuracy": [0.9, 0.9, np.nan, 0.7],
            "fit_time": [0.1, 0.1, 2.0, 0.3],
            "predict_time": [0.01, 0.01, np.nan, 0.02],
            "tau": [0.5, 0.5, np.nan, 0.1],
        }
    )
    for name in live.STRING_FIELDS:
        frame[name] = frame[name].astype(object)
    named = np.array([None, None, None, live.named_key("x:run-7")], dtype=object)
    keys_live = live.run_keys(frame, ["tau"], live.OccurrenceCounter(), named_keys=named)
    keys_frozen = frozen.run_keys(frame, ["tau"], frozen.OccurrenceCounter(), named_keys=named)
    assert keys_live.tolist() == keys_frozen.tolist()
    assert len(set(keys_live.tolist())) == 4  # the repeated row gets its own occurrence key
    assert live.named_key("openml:123") == frozen.named_key("openml:123")
    # a benchmark run's machine, in its own column since 0006, keeps the key of 0005's text
    packed = frame.assign(source="benchmark", source_run_id="iris/knn/cv5/0/3 | AMD; 2 cores")
    split = packed.assign(source_run_id="iris/knn/cv5/0/3", machine="AMD; 2 cores")
    counter = live.OccurrenceCounter
    assert (
        live.run_keys(split, ["tau"], counter()).tolist()
        == frozen.run_keys(packed, ["tau"], frozen.OccurrenceCounter()).tolist()
    )
