"""How well the runtime model predicts fit times on datasets it has not seen.

Usage::

    python benchmarks/runtime_model.py
    python benchmarks/runtime_model.py --markdown docs/benchmarks/runtime-model.md
    python benchmarks/runtime_model.py --history extra=sqlite:///other.sqlite

Leave-one-dataset-out on each run history (the built-in knowledge base, TabZilla's runs and
``benchmarks/histories/realworld-dev``, each imported into a temporary knowledge base; more
with ``--history NAME=URL``): for every
dataset, :class:`metarec.recommender._runtime.RuntimeModel` is fitted on the others and
predicts the fit time of every algorithm that has an ok time there.  Baseline, in the same
run: the algorithm's median time over the other datasets (a time not scaled to the size).

Printed per history: the share of times inside the 80 % interval (coverage), the share within
a factor 3 of the prediction, and the median absolute error in decades (|log10 ratio|); the
plain power law (no fixed cost, no bound on the row exponent) is the second baseline.

Extrapolation, the case the model exists for (a dataset far larger than the knowledge base's):
fitted on the datasets with at most the median number of rows, predicting the largest quarter
and the largest tenth, for the plain power law and the fixed cost with each candidate lower
bound of the row exponent (:data:`BOUNDS`).  The default bound is the candidate with the best
worst-history mean share within a factor 3.  One more candidate gives the tree models (a
decision tree, and the forests and boosting libraries made of them, whose fit on ``n`` rows
costs about ``n log n``) a bound of 1 and every other algorithm the default: the extrapolation
table shows that share for the tree models alone too.  On the histories whose metafeatures
have the 1-NN landmarker, the default model with one more column, ``log(1 + n e)`` (``e`` the
landmarker's error: label noise, which makes trees grown to purity deep), is reported beside
them.

Intervals beyond the fitted sizes: in the same extrapolation splits, the share of the larger
datasets' times inside the default model's 80 % interval without widening, with the default
``extrapolation_width`` and, per history and split, the smallest width (in steps of 0.05)
whose interval covers at least 80 %.  The default is the largest of those smallest widths:
the smallest one that covers 80 % on every history in both splits.
"""

from __future__ import annotations

import argparse
import functools
import sys
import tempfile
from pathlib import Path

import numpy as np

from metarec.recommender import RuntimeModel, size_features

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _histories import REALWORLD, TABZILLA, load_history
from _pages import markdown_table, write_page


def history(kb):
    """(size features, fit times with NaN where not ok, whether each algorithm is a tree
    model, the label-noise column or None) of a knowledge base."""
    runs = kb.runs()
    times = runs.pivot(index="dataset", columns="algorithm", values="fit_time")
    status = runs.pivot(index="dataset", columns="algorithm", values="status")
    times = times.where(status == "ok")
    mf = kb.metafeatures().set_index("dataset").reindex(times.index)
    X = size_features(mf["n_instances"], mf["n_features"], mf["n_classes"])
    trees = np.array([is_tree_model(a) for a in times.columns])
    return X, times.to_numpy(dtype=float), trees, noise_column(mf)


#: The landmarker whose error stands for label noise in the noise candidate.
NOISE_LANDMARK = "landmark_1nn_accuracy"


def noise_column(mf):
    """``log(1 + n e)`` with ``e`` the 1-NN landmarker's error: about how many leaves a tree
    grown to purity needs for the rows it cannot separate (None without the landmarker)."""
    if NOISE_LANDMARK not in mf.columns or not mf[NOISE_LANDMARK].notna().any():
        return None
    error = 1.0 - mf[NOISE_LANDMARK].to_numpy(dtype=float)
    error = np.clip(np.where(np.isfinite(error), error, np.nanmedian(error)), 0.0, 1.0)
    return np.log1p(mf["n_instances"].to_numpy(dtype=float) * error)


#: TabZilla's tree models (the others are linear, neighbours, SVMs and neural networks).
TABZILLA_TREES = ("CatBoost", "DecisionTree", "LightGBM", "RandomForest", "XGBoost")


@functools.cache
def _families() -> dict[str, str]:
    """The family of every algorithm of metarec's portfolio (read once)."""
    from metarec.algorithms import default_portfolio

    return {a.name: a.family for a in default_portfolio(task="all")}


def is_tree_model(algorithm: str) -> bool:
    """A decision tree or an ensemble of them (metarec's families, TabZilla's names)."""
    families = _families()
    if algorithm in families:
        return families[algorithm] in ("tree", "ensemble")
    return algorithm.removesuffix("_default") in TABZILLA_TREES


#: Candidate lower bounds of the row exponent (None: unbounded) for the extrapolation table.
BOUNDS = (None, 0.0, 0.5, 0.75, 1.0)
#: The plain power law: no fixed cost, no bound (the runtime model's former form).
PLAIN = {"overhead": False, "min_row_exponent": None}
#: Extrapolation splits: fit on rows <= the first quantile, predict rows >= the second.
SPLITS = ((0.5, 0.75), (0.5, 0.9))


def leave_one_dataset_out(X, T, *, coverage=0.8):
    """Per held-out time: model prediction, interval, and the two baselines."""
    out = {k: [] for k in ("truth", "model", "low", "high", "median", "plain")}
    everything = np.arange(len(T))
    for i in everything:
        keep = everything != i
        observed = np.isfinite(T[i]) & (T[i] > 0)
        if not observed.any():
            continue
        model = RuntimeModel(coverage=coverage).fit(X[keep], T[keep])
        expected, low, high = model.predict(X[i : i + 1], interval=True)
        plain = RuntimeModel(coverage=coverage, **PLAIN).fit(X[keep], T[keep])
        out["plain"].append(plain.predict(X[i : i + 1])[0][observed])
        others = np.where(T[keep] > 0, T[keep], np.nan)
        out["truth"].append(T[i][observed])
        out["model"].append(expected[0][observed])
        out["low"].append(low[0][observed])
        out["high"].append(high[0][observed])
        out["median"].append(np.nanmedian(others, axis=0)[observed])
    return {k: np.concatenate(v) for k, v in out.items()}


def figures(result) -> dict:
    truth = result["truth"]
    row = {"times": truth.size}
    row["coverage (80 % interval)"] = float(
        np.mean((truth >= result["low"]) & (truth <= result["high"]))
    )
    for name in ("model", "plain", "median"):
        ratio = np.abs(np.log10(truth / result[name]))
        row[f"{name}: within x3"] = float(np.mean(ratio <= np.log10(3)))
        row[f"{name}: median decades off"] = float(np.median(ratio))
    return row


def _label(bound) -> str:
    if bound == NOISE:
        return "fixed cost, row exponent >= 0.75, + log(1 + n x 1-NN error)"
    if bound == TREES_AT_ONE:
        return "fixed cost, row exponent >= 1 (tree models), >= 0.75 (others)"
    return "plain power law" if bound == "plain" else f"fixed cost, row exponent >= {bound}"


#: The per-family candidate: tree models' row exponent at least 1, the others' at least 0.75.
TREES_AT_ONE = "trees 1, others 0.75"
#: The default model with the label-noise column (histories with the 1-NN landmarker only).
NOISE = "noise"


def extrapolation(X, T, trees, noise=None) -> dict:
    """Share within x3 and median log10(truth / expected) of the large datasets, per model."""
    rows = np.exp(X[:, 1])
    out = {}
    for fit_q, test_q in SPLITS:
        small = rows <= np.quantile(rows, fit_q)
        large = rows >= np.quantile(rows, test_q)
        ok = np.isfinite(T[large]) & (T[large] > 0)
        truth = T[large][ok]
        tree = np.broadcast_to(trees, T[large].shape)[ok]
        for bound in ("plain", *BOUNDS, TREES_AT_ONE, *([NOISE] if noise is not None else [])):
            XX = X if bound != NOISE else np.column_stack([X, noise])
            if bound == "plain":
                params = PLAIN
            elif bound == TREES_AT_ONE:
                params = {"min_row_exponent": np.where(trees, 1.0, 0.75)}
            elif bound == NOISE:
                params = {"min_row_exponent": 0.75}
            else:
                params = {"min_row_exponent": bound}
            model = RuntimeModel(**params).fit(XX[small], T[small])
            expected = model.predict(XX[large])[ok]
            ratio = np.log10(truth / expected)
            within = np.abs(ratio) <= np.log10(3)
            out[(bound, test_q)] = {
                "within x3": float(np.mean(within)),
                "tree models: within x3": float(np.mean(within[tree])),
                "bias (decades)": float(np.median(ratio)),
                "fit rows <=": float(rows[small].max()),
                "median rows predicted": float(np.median(rows[large])),
            }
    return out


#: Candidate weights of a dataset's rows in the fit (``size_weight``).
SIZE_WEIGHTS = (0.0, 0.5, 1.0)
#: The datasets the weights are for: at least this many rows.
LARGE_ROWS = 20_000


def weighting(X, T) -> list:
    """Leave-one-dataset-out share within x2 and x3 for every candidate ``size_weight``,
    over all datasets and over those of :data:`LARGE_ROWS` rows and more."""
    rows = np.exp(X[:, 1])
    out = []
    everything = np.arange(len(T))
    for weight in SIZE_WEIGHTS:
        truth, expected, large = [], [], []
        for i in everything:
            observed = np.isfinite(T[i]) & (T[i] > 0)
            if not observed.any():
                continue
            keep = everything != i
            model = RuntimeModel(size_weight=weight).fit(X[keep], T[keep])
            truth.append(T[i][observed])
            expected.append(model.predict(X[i : i + 1])[0][observed])
            large.append(np.full(observed.sum(), rows[i] >= LARGE_ROWS))
        truth, expected, large = map(np.concatenate, (truth, expected, large))
        ratio = np.abs(np.log10(truth / expected))
        row = [weight]
        for part in (np.ones_like(large), large):
            row += [
                int(part.sum()),
                float(np.mean(ratio[part] <= np.log10(2))) if part.any() else float("nan"),
                float(np.mean(ratio[part] <= np.log10(3))) if part.any() else float("nan"),
            ]
        out.append(row)
    return out


#: Candidate growths of the interval's half-width per unit of log rows past the fitted sizes.
WIDENINGS = np.round(np.arange(0.0, 2.0001, 0.05), 2)


def widening(X, T) -> dict:
    """Coverage of the larger datasets' times by the default model's interval, per split."""
    rows = np.exp(X[:, 1])
    out = {}
    for fit_q, test_q in SPLITS:
        small = rows <= np.quantile(rows, fit_q)
        large = rows >= np.quantile(rows, test_q)
        model = RuntimeModel().fit(X[small], T[small])
        ok = np.isfinite(T[large]) & (T[large] > 0)
        residual = np.abs(np.log(T[large] / model.predict(X[large])))[ok]
        beyond = np.maximum(X[large][:, [1]] - model.max_log_rows_[None, :], 0.0)[ok]
        width = np.broadcast_to(model.width_[None, :], ok.shape)[ok]
        covered = np.array([np.mean(residual <= width + k * beyond) for k in WIDENINGS])
        default = float(np.mean(residual <= width + model.extrapolation_width * beyond))
        enough = WIDENINGS[covered >= 0.8]
        out[test_q] = {
            "times": int(ok.sum()),
            "median log rows beyond": float(np.median(beyond)),
            "coverage, not widened": float(covered[0]),
            f"coverage, widened by {model.extrapolation_width:g}": default,
            "smallest width covering 80 %": float(enough[0]) if enough.size else float("nan"),
        }
    return out


def best_bound(results: dict):
    """The candidate bound with the best worst-history mean share within a factor 3."""

    def worst(bound):
        return min(
            np.mean([r[(bound, q)]["within x3"] for _, q in SPLITS]) for r in results.values()
        )

    candidates = (*BOUNDS, TREES_AT_ONE)
    return max(candidates, key=lambda b: (worst(b), b if isinstance(b, float) else -1))


def main(argv=None) -> None:
    from metarec.storage import KnowledgeBase, open_builtin

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tabzilla", type=Path, default=TABZILLA)
    parser.add_argument("--history", action="append", default=[], metavar="NAME=URL")
    parser.add_argument("--markdown", type=Path, default=None)
    args = parser.parse_args(argv)
    kbs = {"built-in": open_builtin()}
    workdir = Path(tempfile.mkdtemp(prefix="metarec-runtime-"))
    for name, folder, runs in (
        ("TabZilla", args.tabzilla, "runs.csv"),
        ("realworld-dev", REALWORLD, "runs.csv.gz"),
    ):
        if folder.is_dir():
            kbs[name] = load_history(folder, runs, workdir / f"{name}.sqlite")
    for item in args.history:
        name, _, url = item.partition("=")
        kbs[name] = KnowledgeBase(url, create=False)
    data = {name: history(kb) for name, kb in kbs.items()}
    rows = {name: figures(leave_one_dataset_out(*xt[:2])) for name, xt in data.items()}
    columns = ["history", *next(iter(rows.values()))]
    table = markdown_table(columns, [[name, *row.values()] for name, row in rows.items()])
    print(table)
    extra = {name: extrapolation(*xt) for name, xt in data.items()}
    lines = []
    for name, result in extra.items():
        for (bound, test_q), row in result.items():
            lines.append([name, _label(bound), f"top {100 - round(test_q * 100)} %", *row.values()])
    first = next(iter(next(iter(extra.values())).values()))
    extrapolated = markdown_table(["history", "model", "predicted", *first], lines)
    print(extrapolated)
    chosen = best_bound(extra)
    print(f"best worst-history bound: {chosen}")
    widened = {name: widening(*xt[:2]) for name, xt in data.items()}
    lines = [
        [name, f"top {100 - round(test_q * 100)} %", *row.values()]
        for name, result in widened.items()
        for test_q, row in result.items()
    ]
    first = next(iter(next(iter(widened.values())).values()))
    widening_table = markdown_table(["history", "predicted", *first], lines)
    print(widening_table)
    needed = max(
        row["smallest width covering 80 %"] for r in widened.values() for row in r.values()
    )
    print(f"smallest width covering 80 % everywhere: {needed}")
    weighted = markdown_table(
        ["history", "size_weight", "times", "within x2", "within x3",
         f"times ({LARGE_ROWS:,}+ rows)", f"within x2 ({LARGE_ROWS:,}+ rows)",
         f"within x3 ({LARGE_ROWS:,}+ rows)"],
        [[name, *row] for name, xt in data.items() for row in weighting(*xt[:2])],
    )  # fmt: skip
    print(weighted)
    write_page(
        args.markdown,
        "Expected fit time on unseen datasets",
        "Leave-one-dataset-out: the runtime model (a fixed cost plus a power law of fit time in "
        "rows, features and classes per algorithm, the row exponent at least "
        f"{RuntimeModel().min_row_exponent}, with a split-conformal 80 % interval) against the "
        "plain power law (no fixed cost, no bound) and the algorithm's median time over the "
        "other datasets.\n\n"
        f"{table}\n\n"
        "## Extrapolation to larger datasets\n\n"
        "Fitted on the datasets with at most the median number of rows, predicting the largest "
        "quarter and the largest tenth (`bias`: median log10 of measured over expected time, "
        "positive when the model expects too little). The default lower bound of the row "
        "exponent is the candidate with the best worst-history mean share within a factor 3: "
        f"here **{_label(chosen)}**.  `tree models`: the share of the tree models' times "
        "alone (a decision tree and the ensembles made of trees); the candidate that bounds "
        "their row exponent at 1, as the cost of growing a tree on n rows (about n log n) "
        "would suggest, is compared with the others; so is the default with one more "
        "column, `log(1 + n x 1-NN error)` (the 1-NN landmarker's error: about how many "
        "leaves a tree grown to purity needs for the rows it cannot separate; only on the "
        "histories whose metafeatures have that landmarker). It is not the default: it cannot "
        "be measured on TabZilla, whose metafeatures are sizes only, and a method counts as "
        "better only where it wins on every history.\n\n"
        f"{extrapolated}\n\n"
        "## Intervals beyond the fitted sizes\n\n"
        "The same splits, the default model: the share of the larger datasets' times inside "
        "its 80 % interval as calibrated on the fitted sizes, inside the interval whose "
        "half-width grows by the default `extrapolation_width` per unit of log rows past "
        "each algorithm's largest fitted dataset, and the smallest such growth (steps of "
        "0.05) that covers 80 %. The smallest growth covering 80 % on every history in both "
        f"splits: **{needed:g}** (the default: {RuntimeModel().extrapolation_width:g}).\n\n"
        f"{widening_table}\n\n"
        "## Datasets weighted by their rows\n\n"
        "Leave-one-dataset-out as in the first table, every dataset of `n` rows weighing "
        "`max(1, n / 1000) ** size_weight` in the fit (the default "
        f"{RuntimeModel().size_weight:g}), over all the times and over those of datasets of "
        f"{LARGE_ROWS:,} rows and more (the built-in and realworld-dev histories have few or "
        "none).  The large-data build's times at 50,000 rows and more are on "
        "[large-times](large-times.md).\n\n"
        f"{weighted}\n\n"
        "Written by `python benchmarks/runtime_model.py`.",
    )


if __name__ == "__main__":
    sys.exit(main())
