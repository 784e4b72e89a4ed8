from __future__ import annotations

import pytest

from metarec.benchmark import run_benchmark
from metarec.storage import KnowledgeBase

distributed = pytest.importorskip(
    "distributed", reason="the Dask executor's extra is not installed: pip install 'metarec[dask]'"
)


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
def test_unreachable_scheduler_is_a_clear_error(tmp_path, monkeypatch):
    from metarec.exceptions import BenchmarkError

    def never(*args, **kwargs):  # Dask would retry the refused port for 20 s
        raise AssertionError("a refused port is an error before Dask is asked")

    monkeypatch.setattr(distributed, "Client", never)
    kb = KnowledgeBase(f"sqlite:///{tmp_path / 'kb.sqlite'}")
    with pytest.raises(
        BenchmarkError, match="cannot reach the Dask scheduler at tcp://127.0.0.1:9"
    ):
        run_benchmark(
            ["sklearn:iris"],
            kb,
            algorithms=["knn"],
            protocol="cv5",
            scheduler="tcp://127.0.0.1:9",
            cache_dir=tmp_path,
        )


def _client(monkeypatch):
    """``distributed.Client`` replaced by a recorder of the addresses it is asked for."""
    asked = []
    monkeypatch.setattr(distributed, "Client", lambda address, **kw: asked.append(address) or kw)
    return asked


def test_a_scheduler_name_that_does_not_resolve_is_an_error_at_once(monkeypatch):
    import socket

    from metarec.exceptions import BenchmarkError
    from metarec.execution._dask import connect_scheduler

    asked = _client(monkeypatch)

    def unresolvable(address, timeout):
        assert address == ("no-such-host", 8786)
        raise socket.gaierror(-2, "Name or service not known")

    monkeypatch.setattr(socket, "create_connection", unresolvable)
    with pytest.raises(BenchmarkError, match="tcp://no-such-host:8786: .*Name or service not"):
        connect_scheduler("tcp://no-such-host:8786")
    assert asked == []


@pytest.mark.parametrize("address", ["localhost", "tcp://localhost"])
def test_a_scheduler_address_without_a_port_is_refused_by_name(monkeypatch, address):
    from metarec.exceptions import BenchmarkError
    from metarec.execution._dask import connect_scheduler

    asked = _client(monkeypatch)
    with pytest.raises(BenchmarkError, match=f"not a Dask scheduler address: '{address}'"):
        connect_scheduler(address)
    assert asked == []


def test_a_scheduler_that_answers_slowly_is_left_to_dasks_timeout(monkeypatch):
    import socket

    from metarec.execution._dask import CONNECT_TIMEOUT, connect_scheduler

    asked = _client(monkeypatch)

    def silent(address, timeout):
        raise TimeoutError("timed out")

    monkeypatch.setattr(socket, "create_connection", silent)
    assert connect_scheduler("tcp://127.0.0.1:8786") == {"timeout": f"{CONNECT_TIMEOUT:g}s"}
    assert asked == ["tcp://127.0.0.1:8786"]
    # a scheme without a host and port (Dask's in-process transport) is not looked at
    monkeypatch.setattr(socket, "create_connection", None)
    connect_scheduler("inproc://host/1/2")
    assert asked[-1] == "inproc://host/1/2"


def test_run_on_an_unreachable_scheduler_is_a_clear_error(monkeypatch):
    from metarec.exceptions import BenchmarkError
    from metarec.execution import DaskPool

    asked = _client(monkeypatch)
    with pytest.raises(
        BenchmarkError, match="cannot reach the Dask scheduler at tcp://127.0.0.1:9"
    ):
        DaskPool("tcp://127.0.0.1:9")
    assert asked == []
