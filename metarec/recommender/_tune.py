"""Choosing the recommender's defaults without tuning on the evaluation set.

Procedure (held-out split of datasets, several run histories at once):

1. For every run history (knowledge base), the datasets with results of two or more
   algorithms are shuffled with ``random_state`` and split into a tuning half and a held-out
   half.
2. Every configuration of the grid (the learned strategy's planner, order and run-order
   parameters) is evaluated by leave-one-dataset-out **on the tuning halves only**: the
   held-out datasets are excluded from the knowledge base for every recommendation
   (``extra_exclude``), and the performance model is refitted without the left-out dataset
   and the held-out half, so none of their results influences the choice.  The baselines
   (global AR*, kNN AR*, and the classic ``a3r`` strategy with its former defaults) are
   evaluated on the same tuning halves.
3. A configuration's ``wins`` count, on each history's tuning half, what a user of the
   first answer and of the order would ask of it: its top-1 loss closes a positive share of
   the gap between the single best algorithm (SBS) and the oracle; its top-3 loss and its
   MIL counted from 1 s (``mil_1s``) are lower than global AR*'s; and its top-1 loss, top-3
   loss and ``mil_1s`` are lower than those of :data:`FORMER_DEFAULT` (``6 x
   n_histories`` comparisons).  A first answer worse than the constant one is what a user
   notices first, so the first condition comes before the rest: configurations are ordered
   by ``never_worse`` (histories whose top-1 loss is below the single best's), then by
   ``wins``, then by the lowest ``criterion`` = the sum over histories of
   ``-top1_gap_closed`` plus the top-3 loss divided by global AR*'s plus the normalised
   ``(mil_1s - bound) / (random - bound)``, then to the grid order.
4. The chosen configuration and the baselines are evaluated by leave-one-dataset-out on the
   held-out half of each history (the knowledge base then holds every dataset but the one
   left out).  These are the figures to report.

The fitted performance models' predictions are shared by every configuration (they depend on
the left-out datasets only), so a grid costs one model fit per left-out dataset and history.
:func:`tune_recommender` returns every configuration's tuning figures, the choice and the
held-out evaluations, so the procedure can be rerun whenever a knowledge base changes
(``python benchmarks/tune_recommender.py``).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from metarec.exceptions import InvalidInputError
from metarec.recommender._base import BaseRanker
from metarec.recommender._compare import gap_closed
from metarec.recommender._evaluate import _fitted_ranker, evaluate_recommender

__all__ = ["DEFAULT_GRID", "TuningResult", "tune_recommender", "split_datasets"]

#: The learned strategy's parameters before the first answer and the person's time axis.
FORMER_DEFAULT = {
    "time_floor": 0.001,
    "model_weight": 1.0,
    "answer_n": None,
    "run_floor": None,
}

DEFAULT_GRID: Mapping[str, tuple] = {
    "time_floor": (1.0,),
    "model_weight": (1.0, 16.0),
    "answer_n": (None, 16.0, 64.0, float("inf")),
    "answer_patience": (1.0, 10.0, 60.0),
    "run_floor": (None, 1.0, 0.3, 0.1, 0.01),
}


@dataclass(frozen=True)
class TuningResult:
    """Outcome of :func:`tune_recommender`.

    Parameters
    ----------
    table : pandas.DataFrame
        One row per configuration: its parameters, per-history tuning figures, ``wins`` and
        ``criterion``, best first.
    baselines : pandas.DataFrame
        Tuning-half figures of the baselines, per history.
    best_params : dict
        The chosen configuration.
    splits : dict
        Per history: ``(tuning datasets, held-out datasets)``.
    heldout : dict of str to EvaluationResult
        Per history: the chosen configuration and the baselines on the held-out half.
    fitted : dict of str to BaseRanker
        Per history: the fitted ranker (its ``predictions_`` hold the cached leave-one-out
        predictions).
    """

    table: object
    baselines: object
    best_params: dict
    splits: dict
    heldout: dict
    fitted: dict = field(default_factory=dict)


def split_datasets(rec: BaseRanker, test_size: float, random_state) -> tuple[tuple, tuple]:
    """Split the datasets with results of two or more algorithms into two halves.

    Parameters
    ----------
    rec : BaseRanker
        Fitted: its matrix's datasets are split.
    test_size : float
        Share of the datasets held out (at least one).
    random_state : int, numpy Generator or None
        Seed of the shuffle.

    Returns
    -------
    tuning : tuple of str
        The datasets tuned on, sorted.
    heldout : tuple of str
        The datasets held out, sorted.

    Raises
    ------
    InvalidInputError
        Fewer than four datasets have results of two or more algorithms.
    """
    usable = [d for d in rec.datasets_ if rec.present_[rec.dataset_index_[d]].sum() >= 2]
    if len(usable) < 4:
        raise InvalidInputError("tuning needs at least 4 datasets with results of 2+ algorithms")
    rng = np.random.default_rng(random_state)
    shuffled = list(rng.permutation(np.asarray(usable, dtype=object)))
    n_out = max(1, round(test_size * len(shuffled)))
    return tuple(sorted(shuffled[n_out:])), tuple(sorted(shuffled[:n_out]))


FIGURES = ("spearman", "top1_loss", "top3_loss", "mil", "mil_1s", "top1_gap_closed")


def _figures(summary) -> dict:
    s = summary.set_index("method")
    s = s.reindex(columns=list(FIGURES))
    return {m: s.loc[m].to_dict() for m in s.index}


def _wins_and_criterion(mine, figs) -> tuple[int, float]:
    """Comparisons won on one history and its share of the criterion (see module doc)."""
    ar, former = figs["global AR*"], figs["former default"]
    mine = dict(mine)
    mine["top1_gap_closed"] = gap_closed(mine["top1_loss"], figs["single best"]["top1_loss"])
    wins = int(mine["top1_gap_closed"] > 0)
    wins += int(mine["top3_loss"] < ar["top3_loss"]) + int(mine["mil_1s"] < ar["mil_1s"])
    wins += sum(int(mine[f] < former[f]) for f in ("top1_loss", "top3_loss", "mil_1s"))
    bound, rand = figs["bound"]["mil_1s"], figs["random"]["mil_1s"]
    spread = rand - bound if rand > bound else 1.0
    criterion = (
        -mine["top1_gap_closed"]
        + mine["top3_loss"] / max(ar["top3_loss"], 1e-9)
        + (mine["mil_1s"] - bound) / spread
    )
    return wins, float(criterion)


def _with(fitted: BaseRanker, **params) -> BaseRanker:
    """``fitted``'s ranker with other parameters, fitted on its matrix (no runtime refit)."""
    from sklearn.base import clone

    return clone(fitted).set_params(**params).fit_like(fitted)


def tune_recommender(
    matrices: Mapping[str, object],
    grid: Mapping[str, tuple] | None = None,
    *,
    ranker: BaseRanker | None = None,
    test_size: float = 0.5,
    random_state=0,
    progress=None,
    fitted: Mapping[str, BaseRanker] | None = None,
) -> TuningResult:
    """Tune the learned strategy on the tuning halves of several histories (see module doc).

    Parameters
    ----------
    matrices : mapping of str to PerformanceMatrix
        The run histories, by name.
    grid : mapping of parameter name to candidate values, optional
        Parameters of ``ranker``; default :data:`DEFAULT_GRID`.
    ranker : BaseRanker, optional
        Parameters not in the grid come from it (default the learned strategy with each
        history's task's defaults).
    test_size : float, default=0.5
        Fraction of datasets held out.
    random_state : int, default=0
        Seed of the splits.
    progress : callable, optional
        ``progress(n=1, total=None)``, called once per configuration.
    fitted : mapping of str to BaseRanker, optional
        Rankers already fitted on the histories (e.g. with cached predictions).

    Returns
    -------
    TuningResult
    """
    import pandas as pd

    grid = dict(DEFAULT_GRID if grid is None else grid)
    if not 0 < test_size < 1:
        raise InvalidInputError(f"test_size must be in (0, 1); got {test_size!r}")
    fitted = dict(fitted or {})
    splits, base_rows, base_figs = {}, [], {}
    for name, matrix in matrices.items():
        if name not in fitted:
            fitted[name] = _fitted_ranker(matrix, ranker, False, "tune_recommender")
        splits[name] = split_datasets(fitted[name], test_size, random_state)
        tuning, heldout = splits[name]
        result = evaluate_recommender(
            None, fitted[name], datasets=tuning, extra_exclude=heldout, fitted=True
        )
        base_figs[name] = _figures(result.summary)
        former = evaluate_recommender(
            None,
            _with(fitted[name], **FORMER_DEFAULT),
            baselines=False,
            datasets=tuning,
            extra_exclude=heldout,
            fitted=True,
        )
        base_figs[name]["former default"] = _figures(former.summary)["metarec"]
        for method, figs in base_figs[name].items():
            base_rows.append({"history": name, "method": method, **figs})
    names = list(grid)
    combos = list(itertools.product(*(grid[p] for p in names)))
    if progress is not None:
        progress(0, total=len(combos))
    rows = []
    for combo in combos:
        params = dict(zip(names, combo, strict=True))
        row = _grid_row(params, {n: fitted[n] for n in matrices}, splits, base_figs)
        row["_order"] = len(rows)
        row["_params"] = params
        rows.append(row)
        if progress is not None:
            progress(1)
    table = pd.DataFrame(rows).sort_values(
        ["never_worse", "wins", "criterion", "_order"], ascending=[False, False, True, True]
    )
    best = dict(table["_params"].iloc[0])
    heldout_results = {}
    for name in matrices:
        chosen = _with(fitted[name], **best)
        heldout_results[name] = evaluate_recommender(
            None, chosen, datasets=splits[name][1], fitted=True
        )
        former = evaluate_recommender(
            None,
            _with(fitted[name], **FORMER_DEFAULT),
            baselines=False,
            datasets=splits[name][1],
            fitted=True,
        )
        heldout_results[name] = _with_former(heldout_results[name], former)
    return TuningResult(
        table=table.drop(columns=["_order", "_params"]).reset_index(drop=True),
        baselines=pd.DataFrame(base_rows),
        best_params=best,
        splits=splits,
        heldout=heldout_results,
        fitted=fitted,
    )


def _grid_row(params: dict, fitted: dict, splits: dict, base_figs: dict) -> dict:
    """One configuration's tuning figures on every history (see the module documentation)."""
    row = {
        **{p: _show(v) for p, v in params.items()},
        "never_worse": 0,
        "wins": 0,
        "criterion": 0.0,
    }
    for name, ranker in fitted.items():
        tuning, heldout = splits[name]
        result = evaluate_recommender(
            None,
            _with(ranker, **params),
            baselines=False,
            datasets=tuning,
            extra_exclude=heldout,
            fitted=True,
        )
        mine = result.summary.set_index("method").loc["metarec"]
        wins, criterion = _wins_and_criterion(mine, base_figs[name])
        row["never_worse"] += int(mine["top1_loss"] < base_figs[name]["single best"]["top1_loss"])
        row["wins"] += wins
        row["criterion"] += criterion
        for figure in ("top1_loss", "top3_loss", "mil_1s"):
            row[f"{name} {figure}"] = mine[figure]
    return row


def _with_former(result, former):
    """``result`` with the former default's summary row added as ``"former default"``."""
    import dataclasses

    import pandas as pd

    row = former.summary[former.summary["method"] == "metarec"].assign(method="former default")
    sbs = result.summary.set_index("method").loc["single best"]
    row = row.assign(
        top1_gap_closed=gap_closed(row["top1_loss"].to_numpy(), sbs.top1_loss),
        top3_gap_closed=gap_closed(row["top3_loss"].to_numpy(), sbs.top3_loss),
    )
    summary = pd.concat([result.summary, row], ignore_index=True)
    mine = former.per_dataset[former.per_dataset["method"] == "metarec"]
    per_dataset = pd.concat(
        [result.per_dataset, mine.assign(method="former default")], ignore_index=True
    )
    return dataclasses.replace(result, summary=summary, per_dataset=per_dataset)


def _show(value):
    return "None" if value is None else value
