"""Tune the recommender's defaults by a held-out split of datasets, then evaluate them.

Usage::

    python benchmarks/tune_recommender.py                      # the built-in knowledge base
    python benchmarks/tune_recommender.py --runs runs.parquet --metafeatures mf.parquet

Procedure (see ``metarec.recommender._tune``): the datasets are split in two halves
(``--seed``); every configuration of the grid is evaluated by leave-one-dataset-out on the
tuning half with the held-out half removed from the knowledge base; the configuration with the
lowest ``MIL + top-3 loss`` is chosen and evaluated, with the baselines, on the held-out half.
The script also reports the full leave-one-dataset-out evaluation of the chosen configuration
and of the shipped defaults, and whether the targets hold (beat global AR* with the same n on
MIL, top-3 loss and Spearman at once).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))

import pandas as pd
from _kb_frames import load_kb

from metarec.recommender import Recommender, evaluate_recommender
from metarec.recommender._tune import DEFAULT_GRID, tune_recommender


def targets(summary: pd.DataFrame) -> str:
    s = summary.set_index("method")
    m, g = s.loc["metarec"], s.loc["global AR*"]
    checks = {
        "MIL < global AR*": m.mil < g.mil,
        "top-3 loss < global AR*": m.top3_loss < g.top3_loss,
        "Spearman > global AR*": m.spearman > g.spearman,
    }
    return ", ".join(f"{k}: {'yes' if v else 'NO'}" for k, v in checks.items())


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", help="run file (Parquet/CSV); default: the built-in KB")
    parser.add_argument("--metafeatures", help="metafeature file (wide, Parquet/CSV)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the split")
    parser.add_argument("--test-size", type=float, default=0.5)
    args = parser.parse_args(argv)
    kb = load_kb(args.runs, args.metafeatures)
    pd.set_option("display.width", 160)
    start = time.perf_counter()
    result = tune_recommender(kb, DEFAULT_GRID, test_size=args.test_size, random_state=args.seed)
    print(
        f"grid of {len(result.table)} configurations, tuned in {time.perf_counter() - start:.1f} s"
    )
    print(
        f"tuning datasets: {len(result.tuning_datasets)}, held-out: {len(result.heldout_datasets)}"
    )
    print("\nbest configurations on the tuning half (criterion = MIL + top-3 loss):")
    print(result.table.head(10).round(3).to_string(index=False))
    print(f"\nchosen: {result.best_params}")
    print("\nheld-out half, leave-one-dataset-out (the figures to report):")
    print(result.heldout.summary.round(3).to_string(index=False))
    print("targets:", targets(result.heldout.summary))
    if result.active_table is not None:
        print("\nactive testing, tuning half: mean loss over steps 2-4 per tried_scale")
        print(result.active_table.round(3).to_string(index=False))
        print(f"chosen tried_scale: {result.best_params['tried_scale']}")
        print("active testing on the held-out half (static ranking vs re-ranking after each run):")
        print(result.heldout_active.round(3).to_string(index=False))
    for label, model in (
        ("chosen configuration", Recommender(**result.best_params)),
        ("shipped defaults", Recommender()),
    ):
        full = evaluate_recommender(kb, model)
        print(f"\nall datasets, leave-one-dataset-out, {label} {model.get_params()}:")
        print(full.summary.round(3).to_string(index=False))
        print("targets:", targets(full.summary))


if __name__ == "__main__":
    main()
