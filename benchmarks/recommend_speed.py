"""Speed of ``Recommender.recommend`` on a synthetic KB of 10,000 datasets x 200 algorithms.

Usage::

    python benchmarks/recommend_speed.py [--datasets 10000] [--algorithms 200] [--pairs 400]

The knowledge base is synthetic and held in memory as frames (not a database): one row per
(dataset, algorithm) with 10% of the results missing and 1% failed, and 20 metafeatures.  The
script times ``fit`` of the classic ``"a3r"`` strategy and of the default learned strategy
(which also fits the performance model: target under 30 s), ``recommend`` of both (target under
1 s), then the ``"a3r"`` strategy with ``k=None`` (every one of the 10,000 datasets is a
neighbour: the worst case), and measures the peak memory a
``k=None`` recommendation allocates (tracemalloc) against the sizes of an algorithms^2 and an
algorithms x datasets float matrix.

It then times a naive pandas implementation of the same A3R aggregation over every dataset:
a loop over ordered pairs of algorithms, each joining the two algorithms' results on the
dataset and averaging the logarithm of :func:`metarec.evaluation.a3r`.  All 39,800 pairs would
take minutes, so only a random sample of ``--pairs`` pairs is timed and the time is
extrapolated linearly to all pairs (the script says so).  The sampled pairs' geometric means
are checked against the vectorised ones, and the ratio naive / vectorised is printed.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import tracemalloc
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np
import pandas as pd
from _kb_frames import FrameKB
from _pages import write_page

from metarec.evaluation import a3r
from metarec.recommender import A3RRanker, Recommender


def synthetic_kb(n_datasets: int, n_algorithms: int, seed: int = 0) -> FrameKB:
    rng = np.random.default_rng(seed)
    d_index = np.repeat(np.arange(n_datasets), n_algorithms)
    a_index = np.tile(np.arange(n_algorithms), n_datasets)
    keep = rng.random(d_index.size) >= 0.10
    d_index, a_index = d_index[keep], a_index[keep]
    difficulty = rng.uniform(0.5, 0.95, n_datasets)
    skill = rng.normal(0.0, 0.05, n_algorithms)
    speed = rng.uniform(-3, 2, n_algorithms)
    size = rng.normal(0.0, 1.0, n_datasets)
    accuracy = np.clip(
        difficulty[d_index] + skill[a_index] + rng.normal(0, 0.03, d_index.size), 0.01, 1
    )
    fit_time = 10 ** (speed[a_index] + 0.5 * size[d_index] + rng.normal(0, 0.2, d_index.size))
    failed = rng.random(d_index.size) < 0.01
    runs = pd.DataFrame(
        {
            "dataset": np.char.add("d", d_index.astype(str)),
            "algorithm": np.char.add("a", a_index.astype(str)),
            "accuracy": np.where(failed, np.nan, accuracy),
            "fit_time": fit_time,
            "status": np.where(failed, "timeout", "ok"),
            "n_runs": 1,
            "n_failed": failed.astype(int),
        }
    )
    meta = pd.DataFrame(rng.normal(size=(n_datasets, 20)), columns=[f"mf{i}" for i in range(20)])
    meta.insert(0, "dataset", np.char.add("d", np.arange(n_datasets).astype(str)))
    meta["majority_class_pct"] = rng.uniform(30, 80, n_datasets)
    meta["n_instances"] = 10 ** (3 + size)
    return FrameKB(runs, meta)


def best_of(fn, repeat=5):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return float(np.median(times)), out


def naive_pairs(runs: pd.DataFrame, pairs, n: float) -> tuple[float, dict]:
    """Loop over pairs with pandas joins; returns seconds and the geometric means."""
    start = time.perf_counter()
    by_algorithm = {a: g.set_index("dataset")[["sr", "t"]] for a, g in runs.groupby("algorithm")}
    values = {}
    for p, q in pairs:
        joined = (
            by_algorithm[p].add_suffix("_p").join(by_algorithm[q].add_suffix("_q"), how="inner")
        )
        ratios = a3r(joined["sr_p"], joined["sr_q"], joined["t_p"], joined["t_q"], n=n)
        values[(p, q)] = float(np.exp(np.log(ratios).mean()))
    return time.perf_counter() - start, values


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", type=int, default=10_000)
    parser.add_argument("--algorithms", type=int, default=200)
    parser.add_argument("--pairs", type=int, default=400, help="pairs timed for the naive version")
    parser.add_argument(
        "--page",
        type=Path,
        default=Path(__file__).resolve().parents[1] / "docs" / "benchmarks" / "recommend-speed.md",
    )
    args = parser.parse_args(argv)
    lines = []

    def say(text):
        print(text, flush=True)
        lines.append(f"- {text}")

    n_d, n_a = args.datasets, args.algorithms
    kb = synthetic_kb(n_d, n_a)
    say(f"synthetic KB: {n_d} datasets x {n_a} algorithms, {len(kb.runs())} results")

    start = time.perf_counter()
    classic = Recommender("a3r").fit(kb)
    t_classic = time.perf_counter() - start
    say(f"fit, strategy='a3r' (reads the frames, no model): {t_classic:.2f} s")
    start = time.perf_counter()
    rec = Recommender().fit(kb)
    t_fit = time.perf_counter() - start
    say(
        f"fit, default strategy {rec.strategy!r} (frames + performance model): {t_fit:.2f} s "
        f"({t_fit / t_classic:.1f}x the 'a3r' fit in the same run); under 30 s: "
        f"{'yes' if t_fit < 30 else 'NO'}"
    )
    query = {f"mf{i}": 0.1 * i for i in range(20)}
    t_default, ranking = best_of(lambda: rec.recommend(metafeatures=query))
    say(f"recommend, default strategy, k={rec.ranker_.k}: {t_default * 1000:.1f} ms (median of 5)")
    t_classic_rec, _ = best_of(lambda: classic.recommend(metafeatures=query))
    say(
        f"recommend, strategy='a3r', k={classic.ranker_.k}: {t_classic_rec * 1000:.1f} ms "
        f"(median of 5; "
        f"default / a3r = {t_default / t_classic_rec:.1f}x)"
    )
    import pickle

    t_pickle = len(pickle.dumps(rec)) / 2**20
    say(f"fitted default recommender pickles to {t_pickle:.1f} MiB")
    everything = Recommender(A3RRanker(k=None, weights=None)).fit(kb)
    ranker = everything.ranker_
    t_all, ranking_all = best_of(lambda: everything.recommend(metafeatures=query))
    say(f"recommend, k=None ({n_d} neighbours): {t_all * 1000:.1f} ms (median of 5)")
    say(f"under one second: {'yes' if max(t_default, t_all) < 1 else 'NO'}")

    tracemalloc.start()
    everything.recommend(metafeatures=query)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    mib = 2**20
    say(
        f"peak memory of one k=None recommend: {peak / mib:.1f} MiB "
        f"(one algorithms^2 float matrix = {n_a * n_a * 8 / mib:.2f} MiB, "
        f"one algorithms x datasets matrix = {n_a * n_d * 8 / mib:.1f} MiB, "
        f"ratio to the latter {peak / (n_a * n_d * 8):.1f}; a datasets x pairs array would be "
        f"{n_d * n_a * n_a * 8 / 2**30:.0f} GiB)"
    )

    # naive pandas version over every dataset (k=None), on a sample of pairs
    names = list(everything.algorithms_)
    rng = np.random.default_rng(1)
    all_pairs = [(p, q) for p in names for q in names if p != q]
    sample = [
        all_pairs[i]
        for i in rng.choice(len(all_pairs), size=min(args.pairs, len(all_pairs)), replace=False)
    ]
    i, j = np.nonzero(everything.ranker_.present_)
    frame = pd.DataFrame(
        {
            "dataset": everything.datasets_[i],
            "algorithm": everything.algorithms_[j],
            "sr": np.exp(everything.ranker_.log_sr_[i, j]),
            "t": np.exp(ranker._log_time(slice(None))[i, j]),
        }
    )
    seconds, values = naive_pairs(frame, sample, ranker.n)
    full = seconds * len(all_pairs) / len(sample)
    say(
        f"naive pandas loop over pairs: {seconds:.2f} s for {len(sample)} of {len(all_pairs)} pairs; "
        f"extrapolated linearly to all pairs: {full:.1f} s (not run in full: it would take too long)"
    )
    # check the sampled pairs against the vectorised matrices
    m = everything.ranker_.present_.astype(float)
    z = everything.ranker_.log_sr_ - ranker._log_time(slice(None)) / ranker.n
    g = z.T @ m
    pair = np.exp((g - g.T) / (m.T @ m))
    index = everything.ranker_.algorithm_index_
    worst = max(abs(values[(p, q)] / pair[index[p], index[q]] - 1) for p, q in sample)
    say(f"largest relative difference naive vs vectorised on the sampled pairs: {worst:.1e}")
    say(f"speed-up of the vectorised recommend (k=None) over the naive one: {full / t_all:,.0f}x")
    assert ranking.algorithms and ranking_all.algorithms
    write_page(
        args.page,
        "Recommending on a large knowledge base",
        "\n".join(lines) + "\n\nCommand: `python benchmarks/recommend_speed.py`.",
    )


if __name__ == "__main__":
    main()
