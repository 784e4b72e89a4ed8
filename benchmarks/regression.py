"""Regression recommendations: leave-one-dataset-out on the built-in KB's regression part.

Usage::

    python benchmarks/regression.py --markdown docs/benchmarks/regression.md [--db URL]

What ``metarec evaluate --task regression`` computes, on the built-in knowledge base (or
``--db``): every regression dataset left out in turn, the default recommender
(``Recommender(task="regression")``, the learned strategy with regression's defaults) and the
baselines ranked from the other regression datasets.  Losses are in points of R² clipped at 0
(the success rate the benchmark stores); ``mil_1s`` is the mean interval loss on a person's
time axis (from 1 s); ``gap closed`` is the share of the gap between the single best regressor
and the oracle.  The page also lists what the regression part holds: datasets, regressors,
failed runs, and the datasets of the source folder that are not in it.

The regression defaults of the answer (``answer_n=2, answer_patience=0.5``, see
``LearnedRanker.for_task``) were chosen on half A (datasets whose name's MD5 is even) and checked on half
B; the page shows each half too.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _pages import markdown_table, write_page

COLUMNS = (
    "method", "top1_loss", "top3_loss", "mil_1s", "loss_10s", "loss_60s", "top1_gap_closed",
    "top3_gap_closed", "spearman", "n_datasets",
)  # fmt: skip
SOURCE = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "regression"


def _contents(kb, source: Path) -> str:
    """What the KB's regression part holds, and which datasets of ``source`` it lacks."""
    datasets = kb.datasets()
    regression = set(datasets.loc[datasets["task"] == "regression", "name"])
    runs = kb.runs(aggregate=False)
    runs = runs[runs["dataset"].isin(regression)]
    names = set(runs["dataset"])
    status = runs["status"].value_counts().to_dict()
    lines = [
        f"{len(names)} regression datasets x {runs['algorithm'].nunique()} regressors, "
        f"{len(runs):,} runs ({', '.join(f'{k} {v:,}' for k, v in sorted(status.items()))}).",
    ]
    failed = runs[runs["status"] != "ok"].groupby("algorithm")["dataset"].nunique()
    if len(failed):
        shown = ", ".join(f"{a} {n}" for a, n in failed.sort_values(ascending=False).items())
        lines.append(f"Datasets with a failed or timed-out fold, by regressor: {shown}.")
    if source.is_dir():
        files = {p.stem for p in source.glob("*.csv") if p.name != "summary.csv"}
        missing = sorted(files - names)
        lines.append(
            f"Of the {len(files)} datasets of `shared/datasets/regression/`, "
            + (f"left out: {', '.join(missing)}." if missing else "none is left out.")
        )
    return " ".join(lines)


def half(name: str) -> str:
    """``"A"`` (the tuning half) or ``"B"`` (held out), by the parity of the name's MD5."""
    return "A" if int(hashlib.md5(name.encode()).hexdigest(), 16) % 2 == 0 else "B"


def _halves(matrix, ranker) -> tuple[str, list[str]]:
    """The default, global AR* and the single best on each half: a table and verdict lines."""
    from sklearn.base import clone

    from metarec.recommender import evaluate_recommender

    fitted = clone(ranker).fit(matrix)
    columns = ("half", "method", "top1_loss", "top1_gap_closed", "top3_loss", "mil_1s",
               "n_datasets")  # fmt: skip
    rows, verdicts = [], []
    for label in ("A", "B"):
        names = [d for d in fitted.datasets_ if half(str(d)) == label]
        summary = evaluate_recommender(None, fitted, datasets=names, fitted=True).summary
        summary = summary.set_index("method")
        for method in ("metarec", "global AR*", "single best"):
            row = summary.loc[method]
            rows.append((label, method, *(row[c] for c in columns[2:-1]), int(row["n_datasets"])))
        verdicts.append(f"half {label}: " + "; ".join(_verdict(summary)))
    return markdown_table(columns, rows), verdicts


def _verdict(summary) -> list[str]:
    default, ar_star = summary.loc["metarec"], summary.loc["global AR*"]
    gap = default["top1_gap_closed"]
    return [
        f"closes {gap:.0%} of the single-best-to-oracle gap on top-1 loss "
        f"({'a positive share' if gap > 0 else 'not a positive share'})",
        f"top-3 loss {default['top3_loss']:.2f} against global AR*'s {ar_star['top3_loss']:.2f} "
        f"({'better' if default['top3_loss'] < ar_star['top3_loss'] else 'not better'})",
        f"MIL from 1 s {default['mil_1s']:.3f} against {ar_star['mil_1s']:.3f} "
        f"({'better' if default['mil_1s'] < ar_star['mil_1s'] else 'not better'})",
    ]


def main(argv=None) -> None:
    from metarec.recommender import LearnedRanker, PerformanceMatrix, evaluate_recommender
    from metarec.storage import KnowledgeBase, open_builtin

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--markdown", type=Path, default=None)
    parser.add_argument("--db", default=None, help="a KB other than the built-in one")
    parser.add_argument("--source", type=Path, default=SOURCE)
    args = parser.parse_args(argv)
    kb = KnowledgeBase(args.db, create=False) if args.db else open_builtin()
    matrix = PerformanceMatrix.from_kb(kb, task="regression")
    ranker = LearnedRanker.for_task("regression", random_state=0)
    result = evaluate_recommender(matrix, ranker)
    frame = result.summary[list(COLUMNS)]
    print(frame.round(3).to_string(index=False))
    contents = _contents(kb, args.source)
    print(contents)
    verdict = _verdict(result.summary.set_index("method"))
    print("default: " + "; ".join(verdict))
    halves, half_verdicts = _halves(matrix, ranker)
    print(halves)
    print("\n".join(half_verdicts))
    write_page(
        args.markdown,
        "Regression: leave-one-dataset-out",
        "Every regression dataset of the built-in knowledge base left out in turn and ranked "
        "from the others (`metarec evaluate --task regression`; written by "
        "`python benchmarks/regression.py`). Losses in points of R² clipped at 0.\n\n"
        f"{contents}\n\n{markdown_table(COLUMNS, frame.itertuples(index=False))}\n\n"
        f"The default: {'; '.join(verdict)}.\n\n"
        "## Tuning half A and held-out half B\n\n"
        "The regression defaults of the answer were chosen on half A and checked on half B "
        "(each dataset still ranked from all the others).\n\n"
        f"{halves}\n\n" + "\n".join(f"- {line}." for line in half_verdicts),
    )


if __name__ == "__main__":
    main()
