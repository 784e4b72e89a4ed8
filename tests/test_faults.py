"""Fault tests: what users do to metarec (kill it, interrupt it, feed it ambiguous input)."""

from __future__ import annotations

import pytest

# --- benchmark runner ---
# A real `metarec benchmark sklearn:iris sklearn:wine sklearn:breast_cancer --protocol cv5`
# (3 datasets x 20 algorithms x 5 folds = 300 runs) in its own session, as a terminal runs it.

BENCHMARK_DATA = ["sklearn:iris", "sklearn:wine", "sklearn:breast_cancer"]
BENCHMARK_RUNS = 3 * 20 * 5


def _benchmark(tmp_path, jobs: int):
    import os
    import subprocess
    import sys

    command = [
        sys.executable,
        "-m",
        "metarec.cli",
        "--db",
        str(tmp_path / "kb.sqlite"),
        "benchmark",
        *BENCHMARK_DATA,
        "--protocol",
        "cv5",
        "-j",
        str(jobs),
        "--cache-dir",
        str(tmp_path / "cache"),
        "--format",
        "csv",
    ]
    env = dict(os.environ, METAREC_FAULT_TEST_TAG=str(tmp_path))  # inherited by descendants
    return subprocess.Popen(
        command,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, like a terminal's foreground job
    )


def _processes_of(tmp_path) -> list[int]:
    """Every live process started for the benchmark of ``tmp_path``: the CLI, its workers and
    anything else they started (found by an environment variable all of them inherit)."""
    import os
    from pathlib import Path

    found = []
    marker = f"METAREC_FAULT_TEST_TAG={tmp_path}\0".encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
            if state != "Z" and marker in (entry / "environ").read_bytes():
                found.append(int(entry.name))
        except (OSError, IndexError):
            continue
    return found


def _wait_until(condition, timeout: float, what: str) -> None:
    import time

    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.2)


def _fits_started(tmp_path) -> bool:
    return any((tmp_path / "cache").rglob("*.pkl"))


def _stored_runs(tmp_path):
    from metarec.storage import KnowledgeBase

    if not (tmp_path / "kb.sqlite").exists():
        return None
    kb = KnowledgeBase(f"sqlite:///{tmp_path / 'kb.sqlite'}")
    try:
        return kb.runs(aggregate=False)
    finally:
        kb.close()


def _count_runs(tmp_path) -> int:
    runs = _stored_runs(tmp_path)
    return 0 if runs is None else len(runs)


def _assert_whole_folds(runs) -> None:
    """Every stored (dataset, algorithm) has all 5 folds, and every stored dataset all 20."""
    if runs is None or not len(runs):
        return
    assert (runs.groupby(["dataset", "algorithm"])["fold"].nunique() == 5).all()
    assert (runs.groupby("dataset")["algorithm"].nunique() == 20).all()
    assert not runs["source_run_id"].duplicated().any()


def _stop(tmp_path, jobs: int, sig, *, to_group: bool, after_first_dataset: bool = False):
    """Start the benchmark, send ``sig`` once fits run; return (process, seconds to exit)."""
    import os
    import time

    process = _benchmark(tmp_path, jobs)
    try:
        _wait_until(lambda: _fits_started(tmp_path), 180, "the first finished job")
        if after_first_dataset:
            _wait_until(lambda: _count_runs(tmp_path) > 0, 300, "a stored dataset")
        assert process.poll() is None, "the benchmark ended before it could be interrupted"
        assert len(_processes_of(tmp_path)) >= 1 + jobs  # the CLI and its workers
        sent = time.monotonic()
        if to_group:
            os.killpg(process.pid, sig)
        else:
            os.kill(process.pid, sig)
        process.wait(timeout=30)
        return process, time.monotonic() - sent
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def _rerun_stores_exactly_the_missing_runs(tmp_path, jobs: int, stored_before: int) -> None:
    process = _benchmark(tmp_path, jobs)
    out, err = process.communicate(timeout=900)
    assert process.returncode == 0, err
    values = dict(line.split(",", 1) for line in out.strip().splitlines()[1:])
    assert int(values["runs_stored"]) == BENCHMARK_RUNS - stored_before
    runs = _stored_runs(tmp_path)
    assert len(runs) == BENCHMARK_RUNS
    _assert_whole_folds(runs)


@pytest.mark.slow
@pytest.mark.parametrize("jobs", [1, 2])
def test_benchmark_ctrl_c_stops_keeps_whole_folds_and_resumes(tmp_path, jobs):
    import signal

    process, seconds = _stop(
        tmp_path, jobs, signal.SIGINT, to_group=True, after_first_dataset=jobs == 2
    )
    err = process.stderr.read()
    assert process.returncode == 130, err
    assert seconds < 5
    runs = _stored_runs(tmp_path)
    stored = 0 if runs is None else len(runs)
    assert f"interrupted: {stored} runs stored; run the same command again to resume" in err
    assert "Traceback" not in err and "Exception ignored" not in err
    if jobs == 2:
        assert stored > 0  # the first dataset was complete when Ctrl-C came
    _assert_whole_folds(runs)
    _wait_until(lambda: not _processes_of(tmp_path), 5, "no process left")
    _rerun_stores_exactly_the_missing_runs(tmp_path, jobs, stored)
    assert not _processes_of(tmp_path)


@pytest.mark.slow
def test_benchmark_sigterm_stops_and_leaves_no_process(tmp_path):
    import signal

    process, seconds = _stop(tmp_path, 2, signal.SIGTERM, to_group=False)
    err = process.stderr.read()
    assert process.returncode == 143, err
    assert seconds < 5
    assert "run the same command again to resume" in err
    _assert_whole_folds(_stored_runs(tmp_path))
    _wait_until(lambda: not _processes_of(tmp_path), 5, "no process left")


@pytest.mark.slow
def test_benchmark_sigkill_of_the_main_process_leaves_no_worker(tmp_path):
    import signal

    process, _ = _stop(tmp_path, 2, signal.SIGKILL, to_group=False)
    assert process.returncode == -signal.SIGKILL
    _wait_until(lambda: not _processes_of(tmp_path), 5, "the workers to die with their parent")
    _assert_whole_folds(_stored_runs(tmp_path))


# --- end of benchmark runner ---
