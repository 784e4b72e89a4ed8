"""Rules for the first answer, on the tuning and held-out halves of the three histories.

Usage::

    python benchmarks/answer_rules.py --markdown docs/benchmarks/answer-rules.md

The default recommender's first answer is the algorithm of best predicted accuracy (the
learned performance model's, ``answer_n=inf``).  Two families of rules that lean toward the
constant answer were measured against it, with the top-1 loss (accuracy points below the
dataset's best) and the share of the single-best-to-oracle gap closed:

- ``shrink L``: the highest ``(1 - L) * predicted + L * mean``, with ``mean`` the
  algorithm's mean accuracy over the knowledge base's other datasets (``L = 1`` is the
  single best algorithm);
- ``top K``: the highest predicted accuracy among the ``K`` algorithms of best mean accuracy.

The splits are the tuning procedure's (``metarec.recommender.split_datasets``, seed 0);
every dataset is predicted by a model that never saw it, nor the other half (tuning half) or
it alone (held-out half), as in ``benchmarks/tune_recommender.py``.  Only algorithms with a
result on the dataset are chosen among.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np
from _pages import markdown_table, write_page
from tune_recommender import load_histories

from metarec.recommender import Recommender, split_datasets

SHRINK = (0.0, 0.25, 0.5, 0.75, 1.0)
TOP = (2, 3, 5, 8)


def cases(kb) -> dict:
    """Per half: each dataset's true accuracies, predicted accuracies and the others' means."""
    rec = Recommender().fit(kb)
    ranker = rec.ranker_
    tuning, heldout = split_datasets(ranker, 0.5, 0)
    raw = rec.ranker_.raw_metafeatures_
    out = {}
    for half, names, other in (("tuning", tuning, heldout), ("held out", heldout, ())):
        rows = []
        for d in names:
            i = rec.ranker_.dataset_index_[d]
            excluded = np.isin(rec.datasets_, [d, *other])
            query = {c: v for c, v in raw.iloc[i].items() if np.isfinite(v)}
            ranking = ranker.rank(query, exclude=[d, *other])  # a model without them
            by_name = {row.algorithm: row.expected_accuracy for row in ranking}
            predicted = np.array([by_name[str(a)] for a in rec.algorithms_])
            present = rec.ranker_.present_ & ~excluded[:, None]
            counts = present.sum(axis=0)
            mean = np.where(present, rec.ranker_.accuracy_, 0.0).sum(axis=0) / np.maximum(counts, 1)
            here = np.flatnonzero(rec.ranker_.present_[i])
            rows.append(
                (
                    rec.ranker_.accuracy_[i, here],
                    predicted[here],
                    np.where(counts > 0, mean, 0.0)[here],
                )
            )
        out[half] = rows
    return out


def top1(rows, rule) -> float:
    """Mean top-1 loss (points) of a rule ``(predicted, mean) -> position``."""
    return float(np.mean([100 * (acc.max() - acc[rule(pred, mean)]) for acc, pred, mean in rows]))


def rules() -> dict:
    out = {}
    for lam in SHRINK:
        label = "model (default)" if lam == 0 else "single best" if lam == 1 else f"shrink {lam}"
        out[label] = lambda p, m, lam=lam: int(np.argmax((1 - lam) * p + lam * m))
    for k in TOP:

        def rule(p, m, k=k):
            candidates = np.argsort(-m, kind="stable")[:k]
            return int(candidates[np.argmax(p[candidates])])

        out[f"top {k}"] = rule
    return out


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--markdown", type=Path, default=None)
    args = parser.parse_args(argv)
    kbs = load_histories(Path(tempfile.mkdtemp(prefix="metarec-answer-")))
    table = []
    for name, kb in kbs.items():
        for half, rows in cases(kb).items():
            rows = [r for r in rows if r[0].size >= 2]
            sbs = top1(rows, rules()["single best"])
            for label, rule in rules().items():
                loss = top1(rows, rule)
                closed = (sbs - loss) / sbs if sbs > 0 else float("nan")
                table.append([name, half, label, loss, closed])
    columns = ["history", "half", "rule", "top1_loss", "top1_gap_closed"]
    text = markdown_table(columns, table)
    print(text)
    best = {}
    for name, half, label, loss, _ in table:
        if half == "held out":
            best.setdefault(name, []).append((loss, label))
    verdict = "; ".join(f"{n}: {min(v)[1]}" for n, v in best.items())
    write_page(
        args.markdown,
        "Rules for the first answer",
        "The first answer (the first algorithm of a recommendation) by the performance "
        "model's predicted accuracy (the default), shrunk toward each algorithm's mean "
        "accuracy over the other datasets (`shrink L`: `(1 - L) * predicted + L * mean`), or "
        "restricted to the `K` algorithms of best mean accuracy (`top K`), on both halves of "
        "the three development histories (each dataset predicted by a model that never saw "
        "it; the tuning procedure's splits). `top1_gap_closed` is the share of the "
        "single-best-to-oracle gap closed. Lowest held-out top-1 loss: "
        f"{verdict}.\n\n" + text + "\n\nCommand: `python benchmarks/answer_rules.py "
        "--markdown docs/benchmarks/answer-rules.md`.",
    )


if __name__ == "__main__":
    main()
