from __future__ import annotations

import pytest

from metarec.benchmark import run_benchmark
from metarec.storage import KnowledgeBase

distributed = pytest.importorskip("distributed")


@pytest.mark.slow
def test_benchmark_runs_on_a_dask_cluster(tmp_path):
    from distributed import LocalCluster

    kb = KnowledgeBase(f"sqlite:///{tmp_path / 'kb.sqlite'}")
    with LocalCluster(
        n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        report = run_benchmark(
            ["sklearn:iris"],
            kb,
            algorithms=["gaussian_nb", "knn"],
            protocol="cv5",
            n_jobs=1,
            scheduler=cluster.scheduler_address,
            cache_dir=tmp_path / "cache",
        )
    assert report.jobs_run == 2 and report.failures == ()
    runs = kb.runs(aggregate=False)
    assert len(runs) == 10 and (runs["status"] == "ok").all()
    assert (runs["accuracy"] > 0.8).all()


@pytest.mark.slow
def test_unreachable_scheduler_is_a_clear_error(tmp_path):
    from metarec.exceptions import BenchmarkError

    kb = KnowledgeBase(f"sqlite:///{tmp_path / 'kb.sqlite'}")
    with pytest.raises(BenchmarkError, match="cannot reach the Dask scheduler"):
        run_benchmark(
            ["sklearn:iris"],
            kb,
            algorithms=["knn"],
            protocol="cv5",
            scheduler="tcp://127.0.0.1:9",
            cache_dir=tmp_path,
        )
