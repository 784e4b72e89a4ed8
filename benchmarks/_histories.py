"""The development run histories the benchmark scripts evaluate on, found from this folder."""

from __future__ import annotations

from pathlib import Path

#: TabZilla's run history (``runs.csv``, ``metafeatures.csv``) in the shared folder.
TABZILLA = next(
    (
        p / "shared/runhistories/tabzilla"
        for p in Path(__file__).resolve().parents
        if (p / "shared/runhistories/tabzilla").is_dir()
    ),
    Path("shared/runhistories/tabzilla"),
)
#: The realworld-dev history metarec benchmarked (``runs.csv.gz``, ``metafeatures.csv``).
REALWORLD = Path(__file__).resolve().parent / "histories" / "realworld-dev"


def load_history(folder: Path, runs: str, path: Path):
    """A new SQLite knowledge base at ``path`` holding the history in ``folder``."""
    from metarec.storage import KnowledgeBase

    kb = KnowledgeBase(f"sqlite:///{path}")
    kb.import_runs(folder / runs)
    kb.import_metafeatures(folder / "metafeatures.csv")
    return kb
