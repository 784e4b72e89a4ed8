"""The Dask executor against the local worker pool, from the command line, on the same work.

Usage::

    python benchmarks/dask_pool.py [--markdown docs/benchmarks/dask-pool.md]

Two measurements, each run in fresh processes with a fresh knowledge base and cache:

1. ``metarec benchmark`` of four PMLB datasets with the default classification portfolio,
   cv5: ``-j 2`` on the local pool against ``--scheduler`` on a local Dask cluster of two
   single-threaded worker processes (started by this script, outside the timed command);
   the ratio of wall times (target: within 1.5x).
2. ``metarec run`` of one dataset with ``--budget 30``: ``-j 2`` against ``--scheduler`` on
   the same cluster: wall time, algorithms evaluated, and the answer.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from _cli import metarec  # noqa: E402
from _pages import markdown_table, write_page  # noqa: E402

PMLB = Path(os.environ.get("PMLB_DIR", ROOT.parent / "shared" / "datasets" / "pmlb"))
DATASETS = ("analcatdata_authorship", "balance_scale", "calendarDOW", "cars")
RUN_DATA = "analcatdata_authorship"


def _files() -> list[Path]:
    files = [PMLB / f"{name}.tsv.gz" for name in DATASETS]
    missing = [str(f) for f in files if not f.exists()]
    if missing:
        raise SystemExit(f"missing PMLB files: {', '.join(missing)} (set PMLB_DIR)")
    return files


def _env(home: Path) -> dict:
    return {**os.environ, "METAREC_HOME": str(home), "COLUMNS": "200"}


def _benchmark(scheduler: str | None) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        where = ["--scheduler", scheduler] if scheduler else ["-j", "2"]
        started = time.perf_counter()
        metarec(
            "--db", f"sqlite:///{tmp / 'kb.sqlite'}", "benchmark", *_files(),
            "--target", "target", "--protocol", "cv5", "--cache-dir", tmp / "cache", *where,
            env=_env(tmp),
        )  # fmt: skip
        return time.perf_counter() - started


def _run(scheduler: str | None) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        env = _env(tmp)
        db = f"sqlite:///{tmp / 'kb.sqlite'}"
        # a copy of the built-in knowledge base first, outside the timed call
        from metarec.storage import open_seeded

        open_seeded(db)
        where = ["--scheduler", scheduler] if scheduler else ["-j", "2"]
        started = time.perf_counter()
        out = metarec(
            "--db", db, "run", PMLB / f"{RUN_DATA}.tsv.gz", "--target", "target",
            "--budget", "30", "--format", "json", *where, env=env,
        )  # fmt: skip
        seconds = time.perf_counter() - started
    document = json.loads(out)
    rows = document["results"]
    evaluated = sum(1 for r in rows if r["status"] in ("ok", "stored"))
    return {"seconds": seconds, "evaluated": evaluated, "best": document.get("best")}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--markdown", help="write the page here")
    args = parser.parse_args(argv)
    from distributed import LocalCluster

    with LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        address = cluster.scheduler_address
        _benchmark(address)  # the cluster's warm processes start once, as a long-lived one's
        local = _benchmark(None)
        dask = _benchmark(address)
        run_local = _run(None)
        run_dask = _run(address)
    ratio = dask / local
    print(f"benchmark: local -j 2 {local:.1f} s, Dask {dask:.1f} s, ratio {ratio:.2f}x")
    print(f"run --budget 30: local {run_local}, Dask {run_dask}")
    if args.markdown:
        table = markdown_table(
            ["", "local pool `-j 2`", "Dask, 2 workers x 1 thread", "ratio", "target"],
            [
                ["`metarec benchmark` of 4 datasets x 23 algorithms, cv5 (s)", local, dask,
                 f"**{ratio:.2f}x**", "within 1.5x"],
                ["`metarec run --budget 30` (s)", run_local["seconds"], run_dask["seconds"],
                 f"{run_dask['seconds'] / run_local['seconds']:.2f}x", ""],
                ["algorithms evaluated by `run`", run_local["evaluated"],
                 run_dask["evaluated"], "", ""],
                ["`run`'s answer", str(run_local["best"]), str(run_dask["best"]), "", ""],
            ],
        )  # fmt: skip
        text = (
            f"`metarec benchmark` of {', '.join(DATASETS)} (PMLB) with the default "
            "classification portfolio, cv5, from the command line: the local pool with "
            "`-j 2` against `--scheduler` on a local Dask cluster of two single-threaded "
            "worker processes (each keeps a warm worker process of metarec's pool between "
            "jobs, as the local pool's workers do; the cluster was started, and used once, "
            "before the timed commands). Then `metarec run` of "
            f"{RUN_DATA} with `--budget 30` both ways. Fresh knowledge base and cache for "
            f"each command.\n\n{table}\n\nWritten by `python benchmarks/dask_pool.py "
            f"--markdown docs/benchmarks/dask-pool.md`."
        )
        write_page(Path(args.markdown), "The Dask executor against the local worker pool", text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
