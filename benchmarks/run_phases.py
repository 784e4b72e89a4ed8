"""Where the seconds of one ``metarec run`` go, against the work it stored.

Usage::

    python benchmarks/run_phases.py [--budget 120] [--repeat 3] [--markdown PAGE]

A knowledge base is first filled with the built-in one and a first call fits and caches
the recommender (the warm state of a second day's work).  Then, ``--repeat`` times, a new
dataset of 600 rows x 6 numeric features (a new seed each time, so that nothing is reused
from the knowledge base) is given to ``metarec run --budget B --format json`` in a fresh
process: its wall time, its phases (the command's own ``phases``: start-up, workers and
knowledge base, metafeatures, recommender, evaluation, answer and refit, storing) and the
fit and predict CPU seconds of the folds it stored, read back from the knowledge base.  The
target: wall time within 1.5 x those seconds + 3 s.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from _cli import metarec  # noqa: E402
from _pages import markdown_table, write_page  # noqa: E402


def _data(path: Path, seed: int) -> Path:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(600, 6))
    y = (X[:, 0] + X[:, 1] * X[:, 2] + rng.normal(scale=0.5, size=600) > 0).astype(int)
    frame = pd.DataFrame(X, columns=[f"f{i}" for i in range(6)]).assign(target=y)
    frame.to_csv(path, index=False)
    return path


def _stored_seconds(db: str, dataset: str) -> float:
    from metarec.storage import KnowledgeBase

    runs = KnowledgeBase(db).runs(aggregate=False, datasets=[dataset])
    return float(runs["fit_time"].fillna(0).sum() + runs["predict_time"].fillna(0).sum())


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--budget", type=float, default=120.0)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--markdown", help="write the page here")
    args = parser.parse_args(argv)
    from metarec.storage import open_seeded

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        env = {**os.environ, "METAREC_HOME": str(tmp / "home"), "COLUMNS": "200"}
        db = f"sqlite:///{tmp / 'kb.sqlite'}"
        open_seeded(db)[0].close()
        metarec("--db", db, "run", _data(tmp / "warm.csv", 0), "--budget", "10", env=env)
        for seed in range(1, args.repeat + 1):
            data = _data(tmp / f"new{seed}.csv", seed)
            started = time.perf_counter()
            out = metarec(
                "--db", db, "run", data, "--budget", f"{args.budget:g}", "--format", "json",
                env=env,
            )  # fmt: skip
            wall = time.perf_counter() - started
            doc = json.loads(out)
            work = _stored_seconds(db, doc["dataset"])
            phases = doc["phases"]
            rows.append({"seed": seed, "wall": wall, "work": work, **phases})
            print(
                f"seed {seed}: wall {wall:.1f} s, stored folds' fit+predict {work:.1f} s, "
                f"target {1.5 * work + 3:.1f} s; "
                + ", ".join(f"{k} {v:.2f}" for k, v in phases.items()),
                flush=True,
            )
    frame = pd.DataFrame(rows)
    mean = frame.mean(numeric_only=True)
    ratio = mean["wall"] / (1.5 * mean["work"] + 3)
    print(f"mean wall {mean['wall']:.1f} s against 1.5 x {mean['work']:.1f} + 3 s: {ratio:.2f}")
    if args.markdown:
        phase_names = [c for c in frame.columns if c not in ("seed", "wall", "work")]
        table = markdown_table(
            ["", *[f"seed {s}" for s in frame["seed"]], "mean"],
            [
                ["wall time of the command (s)", *frame["wall"], mean["wall"]],
                ["fit + predict CPU s of the folds it stored", *frame["work"], mean["work"]],
                ["target: 1.5 x that + 3 s", *(1.5 * frame["work"] + 3), 1.5 * mean["work"] + 3],
                *[[f"phase: {p} (s)", *frame[p], mean[p]] for p in phase_names],
            ],
        )
        text = (
            f"`metarec run --budget {args.budget:g}` on a new dataset of 600 rows x 6 numeric "
            "features (another seed each time), on a knowledge base filled with the built-in "
            "one and a recommender already fitted and cached (a second day's work); one "
            "worker process (`-j 1`). The phases are the command's own (`--format json`, "
            "`phases`); the work is the fit and predict CPU seconds of the folds it stored, "
            f"read back from the knowledge base.\n\n{table}\n\nMean wall time over the "
            f"target: **{ratio:.2f}** (at most 1).\n\nWritten by `python "
            f"benchmarks/run_phases.py --markdown docs/benchmarks/run-phases.md`."
        )
        write_page(Path(args.markdown), "Where the seconds of `metarec run` go", text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
