"""Write a knowledge base as the compact resource files of metarec's built-in KB.

The built-in knowledge base ships inside the package as four zstd-compressed Parquet files in
``metarec/_resources/``: ``builtin_runs.parquet`` (one row per stored run, long format, with
every per-run metric as a column — the same layout ``metarec import runs`` reads),
``builtin_metafeatures.parquet`` (wide: a ``dataset`` column and one column per metafeature),
``builtin_datasets.parquet`` and ``builtin_algorithms.parquet``.  ``open_builtin()``
loads them into a cached SQLite file on first use.
"""

from __future__ import annotations

import json
from pathlib import Path

__all__ = ["export_builtin", "BUILTIN_FILES"]

BUILTIN_FILES = ("runs", "metafeatures", "datasets", "algorithms")


def export_builtin(kb, directory: str | Path) -> dict[str, Path]:
    """Write ``kb`` as built-in resource files into ``directory``; return the paths written.

    Floats are stored as float32 where that loses nothing a ranking could notice (metrics and
    times keep 7 significant digits), which keeps the files a few MB for ~25,000 runs.

    Parameters
    ----------
    kb : KnowledgeBase
        The knowledge base to write.
    directory : str or Path
        Where the files go (created when missing; files of the same names are replaced).

    Returns
    -------
    dict of str to Path
        The file written for each of :data:`BUILTIN_FILES`, named
        ``builtin_<table>.parquet``.
    """
    import numpy as np

    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    frames = {
        "runs": kb.runs(aggregate=False),
        "metafeatures": kb.metafeatures(),
        "datasets": kb.datasets(),
        "algorithms": kb.algorithms(),
    }
    runs = frames["runs"]
    for column in runs.columns:
        if runs[column].dtype == np.float64 and column not in ("seed", "fold"):
            runs[column] = runs[column].astype(np.float32)
    algorithms = frames["algorithms"]
    if "parameters" in algorithms.columns:
        algorithms["parameters"] = [
            v if isinstance(v, str) or v is None else json.dumps(v, sort_keys=True)
            for v in algorithms["parameters"]
        ]
    written = {}
    for name in BUILTIN_FILES:
        path = directory / f"builtin_{name}.parquet"
        frames[name].to_parquet(path, index=False, compression="zstd")
        written[name] = path
    return written
