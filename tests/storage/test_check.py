"""``db check``'s references follow the models' foreign keys: one added to the schema is
checked without a second list to update."""

from __future__ import annotations

import pytest
from sqlalchemy import Column, Float, ForeignKey, Integer, MetaData, String, Table, create_engine

from metarec.storage._check import FOREIGN_KEYS, _references, foreign_keys
from metarec.storage._models import metadata


def test_the_checked_keys_are_the_models_foreign_keys():
    declared = {
        (table.name, key.parent.name, key.column.table.name, key.column.name)
        for table in metadata.tables.values()
        for key in table.foreign_keys
    }
    assert set(FOREIGN_KEYS) == declared and len(FOREIGN_KEYS) == len(declared)
    # the schema as it stands: runs and metafeatures hang on datasets, algorithms and runs
    assert ("run_metrics", "run_id", "runs", "id") in FOREIGN_KEYS
    assert ("runs", "algorithm_id", "algorithms", "id") in FOREIGN_KEYS
    assert len(FOREIGN_KEYS) == 8


def test_a_key_added_to_a_schema_is_listed_parents_first():
    schema = MetaData()
    Table("child", schema, Column("id", Integer, primary_key=True),
          Column("parent_code", String(8), ForeignKey("parent.code")),
          Column("owner", Integer, ForeignKey("owner.id")))  # fmt: skip
    Table("parent", schema, Column("code", String(8), primary_key=True))
    Table("owner", schema, Column("id", Integer, primary_key=True))
    assert foreign_keys(schema) == (
        ("child", "owner", "owner", "id"),
        ("child", "parent_code", "parent", "code"),
    )
    assert foreign_keys(MetaData()) == ()


def _filler(column):
    if isinstance(column.type, Integer):
        return 1
    if isinstance(column.type, Float):
        return 0.5
    return "x"


@pytest.mark.parametrize(("table", "column", "parent", "key"), FOREIGN_KEYS)
def test_a_row_without_its_parent_fails_the_check_for_every_key(
    tmp_path, table, column, parent, key
):
    """A fresh schema from the models, one row of ``table`` whose ``column`` names a parent
    that is not there (SQLite does not enforce keys without the pragma): the check names it."""
    engine = create_engine(f"sqlite:///{tmp_path / 'kb.sqlite'}")
    metadata.create_all(engine)
    child = metadata.tables[table]
    row = {c.name: _filler(c) for c in child.columns if not c.nullable or c.primary_key}
    row[column] = 999
    with engine.begin() as conn:
        assert _references(conn).ok  # empty: nothing dangles
        conn.execute(child.insert().values(**row))
        found = _references(conn)
    engine.dispose()
    assert not found.ok
    assert f"{table}.{column}: 1 row(s) without their {parent} row" in found.detail
