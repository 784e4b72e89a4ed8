"""Tune the recommender's defaults on two run histories at once, then evaluate every method.

Usage::

    python benchmarks/tune_recommender.py
    python benchmarks/tune_recommender.py --tabzilla DIR --cache DIR --markdown out.md

One command re-measures everything the README's tables show (``--defaults-only``: the same
procedure for the current defaults alone, as a one-configuration grid):

1. the built-in knowledge base and the TabZilla run history (``runs.csv`` and
   ``metafeatures.csv`` imported with ``KnowledgeBase.import_runs`` /
   ``import_metafeatures`` into a temporary knowledge base) are each split in a tuning and a
   held-out half (``--seed``);
2. the learned strategy's grid (``metarec.recommender._tune.DEFAULT_GRID``) is evaluated by
   leave-one-dataset-out on the tuning halves of both histories together, the baselines on
   the same halves; the configuration winning most comparisons against global AR*, kNN AR*
   and the classic ``a3r`` strategy is chosen (see ``metarec.recommender._tune``);
3. the chosen configuration and every baseline are evaluated on the held-out half of each
   history (the figures to report), then by leave-one-dataset-out over every dataset of each
   history, with the normalised MIL ``(MIL - bound) / (random - bound)``.

The performance model's leave-one-out predictions (one model fit per left-out dataset and
exclusion set) are cached in ``--cache`` (a pickle per history, keyed by a hash of the
history's data and the model parameters), so reruns with a changed grid are quick; delete
the directory to re-measure from scratch.
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

import pandas as pd
from _histories import TABZILLA

from metarec.recommender import Recommender, evaluate_recommender
from metarec.recommender._evaluate import _refit_like
from metarec.recommender._tune import BASELINES, DEFAULT_GRID, tune_recommender

SHOWN = ("metarec", "global AR*", "kNN AR*", "a3r", "AR", "single best", "random", "bound")


def load_histories(tabzilla: Path, workdir: Path) -> dict:
    from metarec.storage import KnowledgeBase

    kbs = {"built-in": KnowledgeBase.builtin()}
    if tabzilla.is_dir():
        kb = KnowledgeBase(f"sqlite:///{workdir / 'tabzilla.db'}")
        kb.import_runs(tabzilla / "runs.csv")
        kb.import_metafeatures(tabzilla / "metafeatures.csv")
        kbs["TabZilla"] = kb
    return kbs


def _key(kb, rec: Recommender) -> str:
    h = hashlib.sha256()
    h.update(pd.util.hash_pandas_object(kb.runs(), index=False).values.tobytes())
    h.update(pd.util.hash_pandas_object(kb.metafeatures(), index=False).values.tobytes())
    model_params = ("n", "n_estimators", "min_samples_leaf", "random_state", "metric", "time")
    h.update(repr([rec.get_params()[p] for p in model_params]).encode())
    return h.hexdigest()[:16]


def normalised(summary: pd.DataFrame) -> pd.DataFrame:
    s = summary.set_index("method")
    bound, rand = s.loc["bound", "mil"], s.loc["random", "mil"]
    out = summary.copy()
    out["mil_norm"] = (out["mil"] - bound) / (rand - bound)
    order = [m for m in SHOWN if m in set(out["method"])]
    return out.set_index("method").loc[order].reset_index()


def verdict(summary: pd.DataFrame) -> str:
    s = summary.set_index("method")
    m = s.loc["metarec"]
    parts = []
    for other in BASELINES:
        if other not in s.index:
            continue
        o = s.loc[other]
        wins = [m.mil < o.mil, m.top3_loss < o.top3_loss, m.spearman > o.spearman]
        parts.append(
            f"vs {other}: MIL {'yes' if wins[0] else 'NO'}, top-3 "
            f"{'yes' if wins[1] else 'NO'}, Spearman {'yes' if wins[2] else 'NO'}"
        )
    return "; ".join(parts)


README_METHODS = {
    "metarec": "**metarec**",
    "global AR*": "global AR*",
    "kNN AR*": "kNN AR*",
    "a3r": "a3r (former default)",
    "AR": "AR",
    "single best": "single best",
    "random": "random",
    "bound": "bound",
}


def readme_table(summaries: dict, methods=tuple(README_METHODS)) -> str:
    """The README's table: one block of rows per history, metarec's wins over all three
    baselines in bold."""
    lines = [
        "| history | method | Spearman | top-1 loss | top-3 loss | MIL | mil_norm |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for name, summary in summaries.items():
        s = normalised(summary).set_index("method")
        others = s.loc[[b for b in BASELINES if b in s.index]]
        mine = s.loc["metarec"]
        best = {
            "spearman": mine.spearman > others.spearman.max(),
            "top1_loss": mine.top1_loss < others.top1_loss.min(),
            "top3_loss": mine.top3_loss < others.top3_loss.min(),
            "mil": mine.mil < others.mil.min(),
            "mil_norm": mine.mil_norm < others.mil_norm.min(),
        }
        for method in methods:
            if method not in s.index:
                continue
            row = s.loc[method]
            cells = []
            for col in ("spearman", "top1_loss", "top3_loss", "mil", "mil_norm"):
                v = row[col]
                if method == "bound" and col == "mil_norm":
                    cells.append("0")
                    continue
                text = "" if v != v else f"{v:.3f}"
                if method == "metarec" and best[col] and text:
                    text = f"**{text}**"
                cells.append(text)
            lines.append(f"| {name} | {README_METHODS[method]} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def markdown(frame: pd.DataFrame) -> str:
    """A GitHub table of a frame (numbers to 3 decimals)."""

    def cell(v):
        if isinstance(v, float):
            return "" if v != v else f"{v:.3f}"
        return str(v)

    head = "| " + " | ".join(map(str, frame.columns)) + " |"
    rule = "|" + "|".join("---" for _ in frame.columns) + "|"
    body = ["| " + " | ".join(cell(v) for v in row) + " |" for row in frame.itertuples(False)]
    return "\n".join([head, rule, *body])


def save_cache(cache: Path | None, fitted: dict, keys: dict) -> None:
    if cache is None:
        return
    cache.mkdir(parents=True, exist_ok=True)
    for name, rec in fitted.items():
        (cache / f"{name}-{keys[name]}.pkl").write_bytes(pickle.dumps(rec.predictions_))


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tabzilla", type=Path, default=TABZILLA, help="TabZilla run history")
    parser.add_argument("--cache", type=Path, default=None, help="cache of model predictions")
    parser.add_argument("--seed", type=int, default=0, help="seed of the splits")
    parser.add_argument("--markdown", type=Path, default=None, help="also write tables here")
    parser.add_argument(
        "--defaults-only",
        action="store_true",
        help="evaluate the current defaults the same way instead of tuning the grid",
    )
    args = parser.parse_args(argv)
    pd.set_option("display.width", 200)
    pd.set_option("display.max_columns", 30)
    workdir = Path(tempfile.mkdtemp(prefix="metarec-tune-"))
    kbs = load_histories(args.tabzilla, workdir)
    base = Recommender()
    fitted = {}
    keys = {}
    for name, kb in kbs.items():
        rec = base.__class__(**base.get_params()).fit(kb)
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
    result = tune_recommender(kbs, grid, base=base, random_state=args.seed, fitted=fitted)
    save_cache(args.cache, result.fitted, keys)
    lines = []

    def show(title, frame):
        text = frame.round(3).to_string(index=False)
        print(f"\n{title}\n{text}")
        lines.append(f"\n### {title}\n\n{markdown(frame)}\n")

    print(
        f"grid of {len(result.table)} configurations, tuned in {time.perf_counter() - start:.1f} s"
    )
    for name, (tuning, heldout) in result.splits.items():
        print(f"{name}: {len(tuning)} tuning datasets, {len(heldout)} held out")
    show("Baselines on the tuning halves", result.baselines.round(3))
    show("Best configurations on the tuning halves (wins of 18, criterion)", result.table.head(12))
    for param in ("time_floor", "prior_weight", "model_weight"):
        if param not in result.table.columns:
            continue
        # the table is ordered best first (wins, then criterion): the first row per value
        best = result.table.groupby(param, sort=True).head(1).sort_values(param)
        best = best[[param, "wins", "criterion"]]
        show(f"{param}: best configuration per value on the tuning halves", best)
    print(f"\nchosen: {result.best_params}")
    lines.append(f"\nchosen: `{result.best_params}`\n")
    lines.append(
        "\n### README: held-out halves\n\n"
        + readme_table({n: r.summary for n, r in result.heldout.items()})
        + "\n"
    )
    for name, res in result.heldout.items():
        frame = normalised(res.summary)
        show(f"{name}: held-out half, leave-one-dataset-out", frame)
        print("beats:", verdict(res.summary))
        lines.append(f"\nbeats: {verdict(res.summary)}\n")
    every = {}
    for name, kb in kbs.items():
        chosen = _refit_like(result.fitted[name], **result.best_params)
        full = evaluate_recommender(kb, chosen, fitted=True)
        every[name] = full.summary
        show(f"{name}: every dataset, leave-one-dataset-out", normalised(full.summary))
        print("beats:", verdict(full.summary))
        lines.append(f"\nbeats: {verdict(full.summary)}\n")
    lines.append(
        "\n### README: every dataset\n\n"
        + readme_table(every, ("metarec", "global AR*", "kNN AR*", "a3r", "random", "bound"))
        + "\n"
    )
    for name, summary in every.items():
        s = normalised(summary).set_index("method")
        m = s.loc["metarec"]
        lines.append(
            f"\n{name} targets: mil_norm {m.mil_norm:.3f} (<= 0.05: "
            f"{'met' if m.mil_norm <= 0.05 else 'NOT met'}), top-3 loss {m.top3_loss:.3f} "
            f"(<= 1.5: {'met' if m.top3_loss <= 1.5 else 'NOT met'})\n"
        )
    save_cache(args.cache, result.fitted, keys)
    if args.markdown is not None:
        args.markdown.write_text("".join(lines))


if __name__ == "__main__":
    main()
