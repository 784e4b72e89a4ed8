"""The knowledge base: datasets, metafeatures, algorithms and runs in any SQLAlchemy database.

:class:`KnowledgeBase` is the only way into the store; every other part of metarec reads its
DataFrames and writes through its import methods.
"""

from metarec._problem import Problem
from metarec.storage._builtin import open_builtin, open_or_builtin, open_seeded
from metarec.storage._engine import sqlite_path
from metarec.storage._importers import ImportReport
from metarec.storage._kb import RUN_COLUMNS, KnowledgeBase, NoKnowledgeBaseError, aggregate_runs
from metarec.storage._migrate import HEAD as SCHEMA_REVISION
from metarec.storage._migrate import default_backup_path
from metarec.storage._models import TABLES

__all__ = [
    "KnowledgeBase",
    "ImportReport",
    "Problem",
    "NoKnowledgeBaseError",
    "RUN_COLUMNS",
    "SCHEMA_REVISION",
    "TABLES",
    "aggregate_runs",
    "open_builtin",
    "open_or_builtin",
    "open_seeded",
    "sqlite_path",
    "default_backup_path",
]
