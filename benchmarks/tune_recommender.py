"""Tune the recommender's defaults on three run histories at once, then evaluate every method.

Usage::

    python benchmarks/tune_recommender.py            # writes docs/benchmarks/recommender.md
    python benchmarks/tune_recommender.py --cache DIR --page out.md --defaults-only

1. The built-in knowledge base, the TabZilla run history and the realworld-dev history
   (each imported with ``KnowledgeBase.import_runs`` / ``import_metafeatures`` into a
   temporary knowledge base) are each split in a tuning and a held-out half (``--seed``);
2. the learned strategy's grid (``metarec.recommender._tune.DEFAULT_GRID``) is evaluated by
   leave-one-dataset-out on the tuning halves of the three histories together, the
   baselines and the former default on the same halves; the configuration winning most
   comparisons is chosen (see ``metarec.recommender._tune``);
3. the chosen configuration, the former default and every baseline are evaluated on the
   held-out half of each history: the page's table, with what the defaults were asked to
   meet and whether they do.

``--set NAME=VALUE`` (repeatable) changes a parameter of the learned ranker every
configuration starts from, e.g. the performance model's ``min_samples_leaf`` or ``n_estimators``, which the
grid does not vary (each value needs its own leave-one-out model fits)::

    python benchmarks/tune_recommender.py --defaults-only --set min_samples_leaf=5 --page x.md

``--defaults-only`` runs the same procedure with the current defaults as a one-configuration
grid.  The performance model's leave-one-out predictions are cached in ``--cache`` (a pickle
per history, keyed by a hash of the history's data and the model parameters).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import pickle
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np
import pandas as pd
from _histories import REALWORLD, TABZILLA, load_history
from _pages import markdown_table, write_page
from sklearn.base import clone

from metarec.recommender import (
    DEFAULT_GRID,
    LearnedRanker,
    PerformanceMatrix,
    difference_interval,
    gap_closed_interval,
    tune_recommender,
)


def load_histories(workdir: Path) -> dict:
    from metarec.storage import open_builtin

    kbs = {"built-in": open_builtin()}
    if TABZILLA.is_dir():
        kbs["TabZilla"] = load_history(TABZILLA, "runs.csv", workdir / "tabzilla.db")
    if REALWORLD.is_dir():
        kbs["realworld-dev"] = load_history(REALWORLD, "runs.csv.gz", workdir / "rw.db")
    return kbs


def _key(kb, rec: LearnedRanker) -> str:
    h = hashlib.sha256()
    h.update(pd.util.hash_pandas_object(kb.runs(), index=False).values.tobytes())
    h.update(pd.util.hash_pandas_object(kb.metafeatures(), index=False).values.tobytes())
    model_params = [rec.get_params()[p] for p in ("n", "n_estimators", "min_samples_leaf")]
    model_params += [rec.random_state, rec.metric_, rec.time_column_]
    h.update(repr(model_params).encode())
    return h.hexdigest()[:16]


SHOWN = (
    "metarec",
    "metarec (run as ranked)",
    "former default",
    "global AR*",
    "kNN AR*",
    "a3r",
    "AR",
    "single best",
    "random",
    "bound",
)
COLUMNS = (
    "top1_loss",
    "top1_gap_closed",
    "top3_loss",
    "mil_1s",
    "loss_10s",
    "loss_60s",
    "loss_10min",
    "mil",
    "spearman",
)


def table(summaries: dict) -> str:
    """Every method on every history's held-out half, one block of rows per history."""
    rows = []
    for name, summary in summaries.items():
        s = summary.set_index("method")
        for method in SHOWN:
            if method in s.index:
                rows.append([name, method, *(float(s.loc[method].get(c, np.nan)) for c in COLUMNS)])
    return markdown_table(["history", "method", *COLUMNS], rows)


def targets(results: dict) -> str:
    """What the default was asked to meet on each held-out half, and whether it does."""
    lines = []
    for name, result in results.items():
        s = result.summary.set_index("method")
        low, high = gap_closed_interval(result.per_dataset, "metarec")
        m, ar, former = s.loc["metarec"], s.loc["global AR*"], s.loc["former default"]

        def say(ok):
            return "met" if ok else "**not met**"

        lines.append(
            f"- {name}: top-1 gap closed {m.top1_gap_closed:.3f} (90 % bootstrap interval "
            f"over its datasets {low:.2f} to {high:.2f}; > 0: "
            f"{say(m.top1_gap_closed > 0)}; >= 0.30: {say(m.top1_gap_closed >= 0.3)}); "
            f"top-3 loss {m.top3_loss:.3f} vs global AR* {ar.top3_loss:.3f} "
            f"({say(m.top3_loss < ar.top3_loss)}); MIL from 1 s {m.mil_1s:.3f} vs global AR* "
            f"{ar.mil_1s:.3f} ({say(m.mil_1s < ar.mil_1s)}); vs the former default "
            f"top-1 {say(m.top1_loss < former.top1_loss)}, top-3 "
            f"{say(m.top3_loss < former.top3_loss)}, MIL from 1 s "
            f"{say(m.mil_1s < former.mil_1s)}; paired differences against the former "
            f"default (90 % bootstrap intervals over its datasets): "
            + ", ".join(
                "{} {:+.4f} ({:+.4f} to {:+.4f})".format(
                    label,
                    *difference_interval(
                        result.per_dataset, "metarec", "former default", column=column
                    ),
                )
                for label, column in (
                    ("top-1", "top1_loss"),
                    ("top-3", "top3_loss"),
                    ("MIL from 1 s", "mil_1s"),
                )
            )
        )
    return "\n".join(lines)


def save_cache(cache: Path | None, fitted: dict, keys: dict) -> None:
    if cache is None:
        return
    cache.mkdir(parents=True, exist_ok=True)
    for name, rec in fitted.items():
        (cache / f"{name}-{keys[name]}.pkl").write_bytes(pickle.dumps(rec.predictions_))


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=None, help="cache of model predictions")
    parser.add_argument("--seed", type=int, default=0, help="seed of the splits")
    parser.add_argument(
        "--page",
        type=Path,
        default=Path(__file__).resolve().parents[1] / "docs" / "benchmarks" / "recommender.md",
        help="the page to write",
    )
    parser.add_argument(
        "--defaults-only",
        action="store_true",
        help="evaluate the current defaults the same way instead of tuning the grid",
    )
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a parameter of the learned ranker every configuration starts from (a number)",
    )
    args = parser.parse_args(argv)
    pd.set_option("display.width", 250)
    pd.set_option("display.max_columns", 40)
    workdir = Path(tempfile.mkdtemp(prefix="metarec-tune-"))
    kbs = load_histories(workdir)
    changed = {}
    for item in args.set:
        name, _, value = item.partition("=")
        number = float(value)
        changed[name] = int(number) if number.is_integer() else number
    base = LearnedRanker(**changed)
    matrices, fitted, keys = {}, {}, {}
    for name, kb in kbs.items():
        matrices[name] = PerformanceMatrix.from_kb(kb, task="classification")
        rec = clone(base).fit(matrices[name])
        keys[name] = _key(kb, rec)
        if args.cache is not None:
            path = args.cache / f"{name}-{keys[name]}.pkl"
            if path.exists():
                rec.predictions_.update(pickle.loads(path.read_bytes()))
        fitted[name] = rec
    start = time.perf_counter()
    grid = DEFAULT_GRID
    if args.defaults_only:  # one configuration: the defaults, through the same procedure
        grid = {name: (base.get_params()[name],) for name in DEFAULT_GRID}
    result = tune_recommender(matrices, grid, ranker=base, random_state=args.seed, fitted=fitted)
    save_cache(args.cache, result.fitted, keys)
    seconds = time.perf_counter() - start
    top = result.table.head(10)
    print(top.round(3).to_string(index=False))
    print(f"chosen: {result.best_params} ({len(result.table)} configurations, {seconds:.0f} s)")
    summaries = {name: r.summary for name, r in result.heldout.items()}
    print(table(summaries))
    print(targets(result.heldout))
    splits = ", ".join(
        f"{name} {len(t)} tuning / {len(h)} held out" for name, (t, h) in result.splits.items()
    )
    text = "\n\n".join(
        [
            "Every method on the held-out half of each development history, by "
            "leave-one-dataset-out (the knowledge base holds every other dataset). Losses are "
            "accuracy points below the dataset's best; `mil_1s` is the mean loss over log "
            "time from 1 s, `loss_10s`/`loss_60s`/`loss_10min` the loss after that much "
            "cumulative fit time; `top1_gap_closed` the share of the single-best-to-oracle "
            "gap the first choice closes. `metarec` is the configuration the grid chose on "
            "the tuning halves, `former default` the learned strategy before the first "
            "answer and the person's time axis. A learned ranking puts the answer (the "
            "algorithm to use) first and comes with a run order (`Ranking.run_order`, the "
            "`run` column: what to run first to have a good model soonest). The `metarec` "
            "row is a composite of the two: its top-1/top-3 losses and Spearman are of the "
            "ranking, its time figures (`mil_1s`, `loss_*`, `mil`) of the run order, so no "
            "single order reaches both (the answer's accuracy arrives when its turn in the "
            "run order comes); `metarec (run as ranked)` is the ranking alone, run top down. "
            "The run order counts time from `run_floor` (0.3 s), so on `mil`, counted from "
            "the shortest run in milliseconds, it is behind the orders that put the fastest "
            "algorithms first.",
            f"Splits: {splits}. Chosen on the tuning halves: `{result.best_params}` "
            f"({len(result.table)} configurations).",
            table(summaries),
            "What the default was asked to meet on each held-out half:",
            targets(result.heldout),
            "Best configurations on the tuning halves:",
            markdown_table(
                list(top.columns),
                [[v if isinstance(v, str) else v for v in r] for r in top.itertuples(False)],
            ),
            "Command: `python benchmarks/tune_recommender.py`.",
        ]
    )
    write_page(args.page, "The recommender on three development histories", text)


if __name__ == "__main__":
    main()
