"""export_builtin: the resource files of the built-in KB, small and faithful."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow.parquet as pq

from metarec.benchmark import export_builtin
from metarec.storage import KnowledgeBase


def _kb(url: str) -> KnowledgeBase:
    rng = np.random.default_rng(0)
    n = 400
    runs = pd.DataFrame(
        {
            "dataset": np.repeat([f"d{i}" for i in range(4)], n // 4),
            "algorithm": np.tile(["lightgbm", "knn"], n // 2),
            "fold": np.tile(np.repeat(np.arange(50), 2), 4),
            "accuracy": rng.uniform(0.5, 1.0, n),
            "time": rng.exponential(0.3, n),
            "roc_auc": rng.uniform(0.5, 1.0, n),
            "protocol": "cv10",
            "seed": 0,
        }
    )
    kb = KnowledgeBase(url)
    kb.import_runs(runs, source="benchmark")
    kb.add_algorithm("lightgbm", family="ensemble", library="lightgbm==4.7.0",
                     parameters={"estimator": "lightgbm:LGBMClassifier", "n_jobs": 1})  # fmt: skip
    kb.import_metafeatures(
        pd.DataFrame({"dataset": [f"d{i}" for i in range(4)], "n_instances": [100.0] * 4})
    )
    return kb


def test_export_is_float32_zstd_and_loads_back_as_the_same_kb(tmp_path):
    from metarec.storage._layers import read_part

    kb = _kb(f"sqlite:///{tmp_path / 'src.sqlite'}")
    written = export_builtin(kb, tmp_path / "res")
    assert set(written) == {"runs", "metafeatures", "datasets", "algorithms"}
    runs_file = pq.ParquetFile(written["runs"])
    schema = runs_file.schema_arrow
    for column in ("accuracy", "fit_time", "roc_auc"):
        assert str(schema.field(column).type) == "float", column  # float32: half the bytes
    assert runs_file.metadata.row_group(0).column(0).compression == "ZSTD"

    # read back as the built-in part is read where metarec is installed
    part = read_part(written)
    before = kb.runs().set_index(["dataset", "algorithm"]).sort_index()
    after = part.performance.set_index(["dataset", "algorithm"]).sort_index()
    assert len(after) == len(before) == 8
    np.testing.assert_allclose(after["accuracy"], before["accuracy"], rtol=1e-6)
    np.testing.assert_allclose(after["roc_auc"], before["roc_auc"], rtol=1e-6)
    assert part.algorithms.set_index("name").loc["lightgbm", "library"] == "lightgbm==4.7.0"
    assert len(part.runs) == kb.count("runs") == 400
