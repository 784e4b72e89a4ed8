"""The portfolio for this dataset against the collection's portfolio and the recommendation.

Usage::

    python benchmarks/portfolio_rule.py --markdown docs/benchmarks/portfolio-rule.md [--db URL]

Leave-one-dataset-out on the built-in knowledge base (or ``--db``), over its configurations
(the algorithms named ``<family>_cNN``): each dataset with results of configurations is left
out in turn, and four orders of the configurations are scored against what really happened
on it:

- ``for this dataset``: :meth:`Recommender.portfolio`, the greedy rank-clipping selection
  with the knowledge base's datasets weighted by their similarity to the left-out one (what
  ``metarec run`` plans first);
- ``uniform``: the same greedy selection with every dataset weighing the same (the zero-shot
  portfolio of the collection, TabRepo's and auto-sklearn 2's rule);
- ``uniform first``: the uniform portfolio's first configuration, then the others chosen for
  this dataset given it (``weighting="uniform_first"``);
- ``recommended``: the recommendation's run order (``Ranking.run_sequence``) restricted to
  configurations (what ``run`` planned before the portfolio).

A second table searches variants of the rule on held-out halves: the datasets are split in
two by their name (a sample stays with the dataset it was drawn from); the greedy's loss
(the clipped rank among all algorithms, as shipped; the loss in points; the loss over the
dataset's best-minus-median spread, clipped at 1) crossed with the weight of the whole
collection beside the neighbours (0, 1, 4, 16, 64 nearest neighbours' worth; or uniform) is
crossed with the neighbours the weights come from (``metafeatures``: the recommender's, as
shipped; ``profile``: the 10 datasets whose clipped ranks of the configurations are nearest,
in root mean square, to those an extra-trees model predicts for the left-out dataset from
its metafeatures, fitted without it: neighbours in what works rather than in what the data
look like) is chosen on one half (the lowest mean loss at k = 3 and 5) and scored on the
other against the uniform portfolio.  A variant counts as better only if it wins on both
halves.

The loss after ``k`` configurations is the left-out dataset's best success rate over its
configurations minus the best among the first ``k`` of the order (points; before the first
result, the worst configuration's).  The page gives the mean over datasets for k = 1..20 and
the paired differences of ``for this dataset`` and ``uniform first`` to the others at k = 1,
3, 5, 10 and 20 with 90 % bootstrap intervals (negative: the first named loses less), and
``uniform first`` minus ``for this dataset`` on each half of the datasets (by name, as
below): the evidence for the task's default weighting of ``Recommender.portfolio``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _pages import markdown_table, write_page

SIZE = 20
SHOWN = (1, 3, 5, 10, 20)
METHODS = ("for this dataset", "uniform", "uniform first", "recommended")
#: The differences shown (the first minus the second, paired by dataset).
PAIRS = (("for this dataset", "uniform"), ("for this dataset", "recommended"),
         ("uniform first", "for this dataset"), ("uniform first", "uniform"))  # fmt: skip
#: The orders of :meth:`Recommender.portfolio`'s weightings.
WEIGHTING = {"for this dataset": "similarity", "uniform": "uniform",
             "uniform first": "uniform_first"}  # fmt: skip


def best_so_far_loss(order: list[str], truth: dict[str, float], size: int = SIZE) -> np.ndarray:
    """Points lost after each of the first ``size`` configurations of ``order``.

    ``truth`` maps the configurations with a result on the dataset to their success rate; one
    without a result improves nothing.  Before the first result the loss is the best minus
    the worst configuration's rate (as if the worst had been run); after the order ends the
    last loss holds.
    """
    values = np.array([truth.get(name, np.nan) for name in order[:size]], dtype=float)
    values = np.concatenate([values, np.full(size - values.size, np.nan)])
    best, worst = max(truth.values()), min(truth.values())
    reached = np.fmax.accumulate(np.where(np.isnan(values), -np.inf, values))
    return 100.0 * (best - np.maximum(reached, worst))


def _bootstrap(diff: np.ndarray, n: int = 2000, seed: int = 0) -> tuple[float, float, float]:
    rng = np.random.default_rng(seed)
    means = diff[rng.integers(0, diff.size, size=(n, diff.size))].mean(axis=1)
    return float(diff.mean()), float(np.percentile(means, 5)), float(np.percentile(means, 95))


def evaluate(
    rec, configurations: list[str], *, progress=None
) -> tuple[dict[str, np.ndarray], list[str]]:
    """Each method's loss curve (datasets x ``SIZE``) over the left-out datasets, and those
    datasets' names (in the curves' order).

    A left-out dataset takes its samples and the dataset they are drawn from with it
    (``spambase`` and ``spambase@1000``; the recommender's ``exclude`` does): none of them
    informs the orders for it.
    """
    column = {name: j for j, name in enumerate(rec.algorithms_)}
    cols = np.array([column[c] for c in configurations])
    curves: dict[str, list[np.ndarray]] = {m: [] for m in METHODS}
    used = []
    for i, dataset in enumerate(rec.datasets_):
        here = rec.ranker_.present_[i, cols]
        if here.sum() < 2:
            continue
        used.append(str(dataset))
        truth = {
            configurations[p]: float(rec.ranker_.accuracy_[i, cols[p]])
            for p in np.flatnonzero(here)
        }
        query = {c: v for c, v in rec.ranker_.raw_metafeatures_.iloc[i].items() if np.isfinite(v)}
        exclude = [dataset]
        orders = {
            method: rec.portfolio(
                metafeatures=query,
                size=SIZE,
                exclude=exclude,
                candidates=configurations,
                weighting=weighting,
            )
            for method, weighting in WEIGHTING.items()
        }
        ranking = rec.recommend(metafeatures=query, exclude=exclude)
        orders["recommended"] = [a for a in ranking.run_sequence if a in set(configurations)]
        for method, order in orders.items():
            curves[method].append(best_so_far_loss(order, truth))
        if progress:
            progress(i)
    return {m: np.vstack(c) for m, c in curves.items()}, used


def _half(dataset: str) -> int:
    """The half a dataset belongs to: a hash of its base dataset's name (a sample stays with
    the dataset it was drawn from)."""
    import zlib

    from metarec.data import sample_base

    return zlib.crc32(sample_base(dataset).encode()) % 2


#: The collection's weight beside the neighbours in the variants (inf: uniform).
PRIORS = (0.0, 1.0, 4.0, 16.0, 64.0, float("inf"))
LOSSES = ("rank", "points", "spread")
NEIGHBOURS = ("metafeatures", "profile")
#: Datasets of the predicted profile's neighbourhood (each weighs 1).
PROFILE_NEIGHBOURS = 10


#: The shipped rule's clip of a dataset's rank (``metarec.recommender``'s greedy portfolio).
RANK_CLIP = 20.0


def _greedy(loss: np.ndarray, weights: np.ndarray, size: int) -> list[int]:
    """The shipped rule's greedy selection over any per-dataset ``loss`` (lower is better):
    each step adds the column that most lowers the weighted mean of the best loss so far."""
    best = loss.max(axis=1)
    free = np.ones(loss.shape[1], dtype=bool)
    order = []
    for _ in range(min(size, loss.shape[1])):
        trial = np.where(free, weights @ np.minimum(best[:, None], loss), np.inf)
        pick = int(np.argmin(trial))
        order.append(pick)
        free[pick] = False
        best = np.minimum(best, loss[:, pick])
    return order


def _loss_matrices(rec, cols: np.ndarray) -> dict[str, np.ndarray]:
    """Per variant of the greedy's loss: (datasets x configurations), lower is better.

    ``rank``: the rank among all the knowledge base's algorithms clipped at 20 (as
    :meth:`Recommender.portfolio`); ``points``: the dataset's best configuration's success
    rate minus this one's, in points; ``spread``: that over the best minus the median
    configuration (at least 0.1 points), clipped at 1, so that every dataset counts alike.
    A configuration without a result has the worst value of its dataset.
    """
    from scipy.stats import rankdata

    ranker = rec.ranker_
    present = np.asarray(ranker.present_, dtype=bool)
    # as the shipped rule ranks: ties share the lower rank, a missing result ranks last
    ranked = rankdata(np.where(present, -np.asarray(ranker.accuracy_, float), np.inf),
                      method="min", axis=1)  # fmt: skip
    ranked = np.where(present, ranked, present.sum(axis=1, keepdims=True) + 1.0)
    ranks = np.minimum(ranked, RANK_CLIP)[:, cols]
    here = present[:, cols]
    values = np.where(here, np.asarray(ranker.accuracy_, dtype=float)[:, cols], np.nan)
    some = here.any(axis=1, keepdims=True)
    with np.errstate(all="ignore"):
        best = np.where(some, np.nanmax(np.where(some, values, 0.0), axis=1, keepdims=True), 0)
        worst = np.where(some, np.nanmin(np.where(some, values, 0.0), axis=1, keepdims=True), 0)
        median = np.where(some, np.nanmedian(np.where(some, values, 0.0), axis=1,
                                             keepdims=True), 0)  # fmt: skip
    points = np.where(here, best - values, best - worst) * 100.0
    spread = np.maximum((best - median) * 100.0, 0.1)
    return {"rank": ranks, "points": points, "spread": np.minimum(points / spread, 1.0)}


def _profile_weights(features: np.ndarray, ranks: np.ndarray, kept: np.ndarray, i: int):
    """Weight 1 on the :data:`PROFILE_NEIGHBOURS` kept datasets whose rows of ``ranks`` are
    nearest (root mean square) to the row an extra-trees model, fitted on the kept datasets'
    ``features``, predicts for dataset ``i``; 0 elsewhere."""
    from sklearn.ensemble import ExtraTreesRegressor

    model = ExtraTreesRegressor(n_estimators=200, min_samples_leaf=3, random_state=0)
    model.fit(features[kept], ranks[kept])
    predicted = model.predict(features[i : i + 1])[0]
    distance = np.sqrt(((ranks - predicted) ** 2).mean(axis=1))
    distance[~kept] = np.inf
    weights = np.zeros(ranks.shape[0])
    weights[np.argsort(distance, kind="stable")[:PROFILE_NEIGHBOURS]] = 1.0
    return weights * kept


def variant_curves(rec, configurations: list[str]) -> tuple[dict, np.ndarray]:
    """Each variant's loss curve (datasets x ``SIZE``) over the left-out datasets, and the
    half each dataset belongs to (0 or 1, by a hash of its base dataset's name)."""
    ranker = rec.ranker_
    column = {name: j for j, name in enumerate(rec.algorithms_)}
    cols = np.array([column[c] for c in configurations])
    losses = _loss_matrices(rec, cols)
    usable = np.asarray(ranker.present_, dtype=bool)[:, cols].sum(axis=1) >= 2
    raw = ranker.raw_metafeatures_.to_numpy(dtype=float)
    # signed log: sizes span decades; a missing metafeature is 0 (the trees split around it)
    features = np.nan_to_num(np.sign(raw) * np.log1p(np.abs(raw)), nan=0.0, posinf=0.0,
                             neginf=0.0)  # fmt: skip
    curves: dict[tuple[str, str, float], list[np.ndarray]] = {}
    halves = []
    for i, dataset in enumerate(rec.datasets_):
        if not usable[i]:
            continue
        truth = {
            configurations[p]: float(ranker.accuracy_[i, cols[p]])
            for p in np.flatnonzero(ranker.present_[i, cols])
        }
        query = {c: v for c, v in ranker.raw_metafeatures_.iloc[i].items() if np.isfinite(v)}
        excluded = ranker._excluded([str(dataset)])
        kept = ~excluded & usable
        idx, _, _, w = ranker._neighbours(query, excluded)
        similarity = np.zeros(rec.datasets_.size)
        similarity[idx] = w
        near = {
            "metafeatures": similarity,
            "profile": _profile_weights(features, losses["rank"], kept, i),
        }
        halves.append(_half(str(dataset)))
        for neighbours in NEIGHBOURS:
            for prior in PRIORS:
                if np.isinf(prior) and neighbours != NEIGHBOURS[0]:
                    continue  # uniform: no neighbours to differ
                if np.isinf(prior):
                    weights = kept.astype(float)
                else:
                    weights = (near[neighbours] + prior / kept.sum()) * kept
                for loss in LOSSES:
                    order = _greedy(losses[loss][kept], weights[kept], SIZE)
                    named = [configurations[j] for j in order]
                    curves.setdefault((neighbours, loss, prior), []).append(
                        best_so_far_loss(named, truth)
                    )
    return {k: np.vstack(v) for k, v in curves.items()}, np.array(halves)


def _variants_table(rec, configurations: list[str]) -> str:
    """The variants chosen on one half, scored on the other against the uniform portfolio."""
    curves, halves = variant_curves(rec, configurations)
    uniform = curves[(NEIGHBOURS[0], "rank", float("inf"))]
    rows = []
    for tuned in (0, 1):
        on, off = halves == tuned, halves != tuned
        score = {k: c[on][:, [2, 4]].mean() for k, c in curves.items()}
        chosen = min(score, key=lambda k: (score[k], k[2], k[1], k[0]))
        cells = []
        for k in (3, 5):
            mean, lo, hi = _bootstrap(curves[chosen][off, k - 1] - uniform[off, k - 1])
            cells.append(f"{mean:+.2f} [{lo:+.2f}, {hi:+.2f}]")
        weight = "uniform" if np.isinf(chosen[2]) else f"{chosen[2]:g}"
        neighbours = "" if np.isinf(chosen[2]) else chosen[0]
        rows.append((f"half {tuned} -> half {1 - tuned}", int(on.sum()), int(off.sum()),
                     neighbours, chosen[1], weight, *cells))  # fmt: skip
    table = markdown_table(
        ("tuned on -> scored on", "datasets tuned on", "datasets scored on", "neighbours",
         "loss", "collection's weight", "chosen - uniform, k=3", "chosen - uniform, k=5"),
        rows,
    )  # fmt: skip
    # the predicted profile's best variant on all the datasets (chosen on them: an upper
    # bound of what it can do here, beside the held-out choice above)
    profile = {k: c for k, c in curves.items() if k[0] == "profile"}
    whole = {k: c[:, [2, 4]].mean() for k, c in profile.items()}
    best = min(whole, key=lambda k: (whole[k], k[2], k[1]))
    cells = []
    for k in (3, 5):
        mean, lo, hi = _bootstrap(profile[best][:, k - 1] - uniform[:, k - 1])
        cells.append(f"{mean:+.2f} [{lo:+.2f}, {hi:+.2f}]")
    return (
        f"{table}\n\nThe predicted profile's best variant on every dataset (loss {best[1]}, "
        f"the collection's weight {best[2]:g}; chosen on the same datasets, so an upper bound): "
        f"minus uniform {cells[0]} at k=3, {cells[1]} at k=5."
    )


def _section(kb, task: str) -> str:
    """One task's tables (printed, and returned for the page)."""
    from metarec.algorithms import configuration_base
    from metarec.recommender import PORTFOLIO_WEIGHTING, Recommender

    rec = Recommender(task=task).fit(kb)
    configurations = [str(a) for a in rec.algorithms_ if configuration_base(str(a))]
    if not configurations:
        raise SystemExit(f"the knowledge base holds no {task} configurations")
    curves, used = evaluate(rec, configurations)
    n = next(iter(curves.values())).shape[0]
    ks = list(range(1, SIZE + 1))
    rows = [(m, *curves[m].mean(axis=0)) for m in METHODS]
    curve_table = markdown_table(("order", *[f"k={k}" for k in ks]), rows)
    diff_rows = []
    for first, other in PAIRS:
        cells = []
        for k in SHOWN:
            mean, lo, hi = _bootstrap(curves[first][:, k - 1] - curves[other][:, k - 1])
            cells.append(f"{mean:+.2f} [{lo:+.2f}, {hi:+.2f}]")
        diff_rows.append((f"{first} - {other}", *cells))
    diff_table = markdown_table(("difference", *[f"k={k}" for k in SHOWN]), diff_rows)
    halves = np.array([_half(str(d)) for d in used])
    half_rows = []
    for half in (0, 1):
        on = halves == half
        cells = []
        for k in SHOWN:
            diff = curves["uniform first"][on, k - 1] - curves["for this dataset"][on, k - 1]
            mean, lo, hi = _bootstrap(diff)
            cells.append(f"{mean:+.2f} [{lo:+.2f}, {hi:+.2f}]")
        half_rows.append((f"half {half} ({int(on.sum())} datasets)", *cells))
    half_table = markdown_table(("uniform first - for this dataset", *[f"k={k}" for k in SHOWN]),
                                half_rows)  # fmt: skip
    default = {w: m for m, w in WEIGHTING.items()}[PORTFOLIO_WEIGHTING[task]]
    variants = _variants_table(rec, configurations)
    print(curve_table)
    print(diff_table)
    print(half_table)
    print(variants)
    return (
        f"## {task.capitalize()}\n\n"
        f"Over its {len(configurations)} {task} configurations, on the {n} {task} datasets "
        f"with results of two configurations or more (of {len(rec.datasets_)}). Mean loss in "
        f"points of the success rate{'' if task == 'classification' else ' (R² clipped at 0)'} after the "
        "first k configurations of each order, against the best configuration of the "
        f"left-out dataset:\n\n{curve_table}\n\n"
        "Paired differences by dataset (negative: the first named loses less), with 90 % "
        f"bootstrap intervals:\n\n{diff_table}\n\n"
        "The uniform portfolio's first configuration, then the rest for this dataset, against "
        "the portfolio for this dataset, on each half of the datasets (split by name as "
        f"below):\n\n{half_table}\n\n"
        f"`metarec run` plans the order `{default}` ({task}'s default of "
        "`Recommender.portfolio`).\n\n"
        "Variants of the rule chosen on one half of the datasets and scored on the other "
        "(the neighbours the weights come from, the loss the greedy lowers and the "
        "collection's weight beside the neighbours; "
        "negative: the chosen variant loses less than the uniform portfolio):\n\n"
        f"{variants}"
    )


def main(argv=None) -> None:
    from metarec.storage import KnowledgeBase, open_builtin

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--markdown", type=Path, default=None)
    parser.add_argument("--db", default=None, help="a KB other than the built-in one")
    parser.add_argument("--task", choices=("classification", "regression"), default=None,
                        help="one task only (default: both)")  # fmt: skip
    args = parser.parse_args(argv)
    kb = KnowledgeBase(args.db, create=False) if args.db else open_builtin()
    tasks = [args.task] if args.task else ["classification", "regression"]
    sections = [_section(kb, task) for task in tasks]
    source = "a knowledge base of your own (`--db`)" if args.db else "the built-in knowledge base"
    write_page(
        args.markdown,
        "The portfolio for this dataset",
        f"Leave-one-dataset-out over the configurations of {source} (written by "
        f"`python benchmarks/portfolio_rule.py{' --db URL' if args.db else ''}`). A left-out "
        "dataset takes its samples and the dataset they were drawn from with it.\n\n"
        + "\n\n".join(sections),
    )


if __name__ == "__main__":
    main()
