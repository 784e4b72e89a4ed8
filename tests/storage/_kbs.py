"""Small knowledge bases the storage tests share."""

from __future__ import annotations


def kb_with_runs(tmp_path):
    """A SQLite KB at ``tmp_path / "kb.sqlite"``: two OpenML runs of iris and its size."""
    import pandas as pd

    from metarec.storage import KnowledgeBase

    path = tmp_path / "kb.sqlite"
    kb = KnowledgeBase(f"sqlite:///{path}")
    kb.import_runs(
        pd.DataFrame(
            {
                "dataset": ["iris", "iris"],
                "algorithm": ["knn", "tree"],
                "accuracy": [0.9, 0.8],
                "time": [1.0, 2.0],
                "source": ["openml", "openml"],
                "source_run_id": ["1", "2"],
            }
        )
    )
    kb.import_metafeatures(pd.DataFrame({"dataset": ["iris"], "n_instances": [150]}))
    kb.close()
    return path
