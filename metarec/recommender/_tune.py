"""Choosing the recommender's defaults without tuning on the evaluation set.

Procedure (held-out split of datasets):

1. The datasets of the knowledge base with results of two or more algorithms are shuffled
   with ``random_state`` and split into a tuning half and a held-out half.
2. Every configuration of the grid is evaluated by leave-one-dataset-out **on the tuning half
   only**: the held-out datasets are excluded from the knowledge base for every
   recommendation (``extra_exclude``), so none of their results influences the choice.
3. Each configuration is also compared, on the same tuning half, with its own "global AR*"
   (the same ``n`` and success-rate preprocessing, every dataset as neighbour, average rank of
   A3R): the neighbours must earn their keep.  ``p_beat`` is the fraction of
   :data:`N_BOOTSTRAP` bootstrap resamples of the tuning datasets (seeded) on which the
   configuration's mean MIL and mean top-3 loss are lower *and* its mean Spearman correlation
   higher than its global AR*'s.  Among the configurations with ``p_beat >=``
   :data:`MIN_P_BEAT` (they beat global AR* robustly, not by the luck of one split) the lowest
   criterion ``mil + top3_loss`` wins (both in percentage points; the mean interval loss
   rewards fast good answers, the top-3 loss accurate ones: their sum favours the
   time/accuracy frontier); ties go to the higher Spearman correlation, then to the grid
   order.  If no configuration qualifies, the one with the highest ``p_beat`` wins.
4. Active testing's ``tried_scale`` is then chosen the same way, on the tuning half, with the
   chosen configuration: the scale with the lowest mean loss over steps 2 to 4 of
   :func:`~metarec.recommender._evaluate.evaluate_active_testing` wins (``inf`` = no
   re-weighting of neighbours).
5. The chosen configuration and the baselines are evaluated by leave-one-dataset-out on the
   held-out half (the knowledge base then holds every dataset but the one left out).  These
   are the figures to report.

:func:`tune_recommender` returns every configuration's tuning figures, the choice and the
held-out evaluation, so the procedure can be rerun whenever the knowledge base changes
(``python benchmarks/tune_recommender.py``).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from metarec.exceptions import InvalidInputError
from metarec.recommender._evaluate import (
    EvaluationResult,
    _refit_like,
    evaluate_active_testing,
    evaluate_recommender,
)
from metarec.recommender._ranker import Recommender

__all__ = ["DEFAULT_GRID", "TuningResult", "tune_recommender"]

TRIED_SCALES = (0.02, 0.05, 0.1, 0.2, float("inf"))
#: Bootstrap resamples of the tuning datasets used to measure how robustly a configuration
#: beats its global AR*.
N_BOOTSTRAP = 500
#: A configuration "robustly beats" its global AR* on at least this fraction of resamples.
MIN_P_BEAT = 0.9

DEFAULT_GRID: Mapping[str, tuple] = {
    "k": (5, 10, 20, 40, None),
    "n": (4, 8, 16, 32, 64),
    "weights": (None, "distance"),
    "distance": ("l1-range", "standardized"),
    "normalize": (False, True),
}


@dataclass(frozen=True)
class TuningResult:
    """Outcome of :func:`tune_recommender`.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per configuration: its parameters, tuning-half figures, ``p_beat`` (how
        robustly it beats its global AR*) and ``robust`` (``p_beat >= MIN_P_BEAT``), best
        first.
    best_params : dict
        The chosen configuration.
    tuning_datasets, heldout_datasets : tuple of str
        The split.
    heldout : EvaluationResult
        Evaluation of the chosen configuration and the baselines on the held-out half.
    active_table : pandas.DataFrame or None
        Tuning-half figures of each ``tried_scale`` (mean loss over steps 2-4).
    heldout_active : pandas.DataFrame or None
        Active testing with the chosen scale on the held-out half
        (:func:`~metarec.recommender._evaluate.evaluate_active_testing`).
    """

    table: object
    best_params: dict
    tuning_datasets: tuple
    heldout_datasets: tuple
    heldout: EvaluationResult
    active_table: object = None
    heldout_active: object = None


def tune_recommender(
    kb,
    grid: Mapping[str, tuple] | None = None,
    *,
    base: Recommender | None = None,
    test_size: float = 0.5,
    random_state=0,
    tried_scales=TRIED_SCALES,
    progress=None,
) -> TuningResult:
    """Tune the recommender's parameters on half of the datasets, evaluate on the other half.

    Parameters
    ----------
    kb : KnowledgeBase or object with ``runs()`` and ``metafeatures()``
    grid : mapping of parameter name to candidate values, optional
        Default :data:`DEFAULT_GRID`.
    base : Recommender, optional
        Parameters not in the grid come from it (default ``Recommender()``).
    test_size : float, default=0.5
        Fraction of datasets held out.
    random_state : int, default=0
        Seed of the split.
    tried_scales : sequence of float, default=TRIED_SCALES
        Candidate ``tried_scale`` values for active testing (empty: not tuned).
    progress : callable, optional
        ``progress(n=1, total=None)``, called once per configuration.

    Returns
    -------
    TuningResult
    """
    import pandas as pd
    from sklearn.base import clone

    grid = dict(DEFAULT_GRID if grid is None else grid)
    base = base if base is not None else Recommender()
    if not 0 < test_size < 1:
        raise InvalidInputError(f"test_size must be in (0, 1); got {test_size!r}")
    names = list(grid)
    combos = list(itertools.product(*(grid[name] for name in names)))
    if progress is not None:
        progress(0, total=len(combos))
    # fitted models are shared by configurations that only differ in ranking parameters
    fit_keys = ("normalize", "distance", "features", "metric", "time")
    fitted: dict = {}
    probe = clone(base).fit(kb)
    usable = [d for d in probe.datasets_ if probe.present_[probe.dataset_index_[d]].sum() >= 2]
    if len(usable) < 4:
        raise InvalidInputError("tuning needs at least 4 datasets with results of 2+ algorithms")
    rng = np.random.default_rng(random_state)
    shuffled = list(rng.permutation(np.asarray(usable, dtype=object)))
    n_out = max(1, round(test_size * len(shuffled)))
    heldout, tuning = tuple(sorted(shuffled[:n_out])), tuple(sorted(shuffled[n_out:]))
    rows = []
    global_figures: dict = {}
    resamples = np.random.default_rng(random_state).integers(
        0, len(tuning), size=(N_BOOTSTRAP, len(tuning))
    )
    for combo in combos:
        params = dict(zip(names, combo, strict=True))
        model = clone(base).set_params(**params)
        key = tuple(repr(model.get_params()[p]) for p in fit_keys)
        if key not in fitted:
            fitted[key] = clone(model).fit(kb)
        data = fitted[key]
        ranker = _refit_like(data, **{p: v for p, v in params.items() if p not in fit_keys})
        result = evaluate_recommender(
            kb, ranker, baselines=False, datasets=tuning, extra_exclude=heldout, fitted=True
        )
        figures = result.summary.iloc[0]
        glob_key = (key, repr(ranker.get_params()["n"]))
        if glob_key not in global_figures:
            glob = _refit_like(data, method="ar*", k=None, weights=None, n=ranker.n)
            global_figures[glob_key] = evaluate_recommender(
                kb, glob, baselines=False, datasets=tuning, extra_exclude=heldout, fitted=True
            ).per_dataset
        p_beat = _p_beat(result.per_dataset, global_figures[glob_key], resamples)
        rows.append(
            {
                **{p: _show(v) for p, v in params.items()},
                "spearman": figures["spearman"],
                "top1_loss": figures["top1_loss"],
                "top3_loss": figures["top3_loss"],
                "mil": figures["mil"],
                "p_beat": p_beat,
                "criterion": figures["mil"] + figures["top3_loss"],
                "_order": len(rows),
                "_params": params,
            }
        )
        if progress is not None:
            progress(1)
    table = pd.DataFrame(rows)
    table["robust"] = table["p_beat"] >= MIN_P_BEAT
    table["_p"] = table["p_beat"].round(2)
    table = table.sort_values(
        ["_p", "criterion", "spearman", "_order"], ascending=[False, True, False, True]
    )
    best = dict(table["_params"].iloc[0])
    chosen = clone(base).set_params(**best)
    active_table = heldout_active = None
    if tried_scales:
        fitted_best = clone(chosen).fit(kb)
        active_rows = []
        for scale in tried_scales:
            steps = evaluate_active_testing(
                kb,
                _refit_like(fitted_best, tried_scale=scale),
                datasets=tuning,
                extra_exclude=heldout,
                fitted=True,
            )
            active_rows.append({"tried_scale": scale, "loss": steps["active_loss"].iloc[1:].mean()})
        active_table = pd.DataFrame(active_rows)
        best["tried_scale"] = float(
            active_table.sort_values("loss", kind="stable")["tried_scale"].iloc[0]
        )
        chosen = clone(base).set_params(**best)
        heldout_active = evaluate_active_testing(kb, chosen, datasets=heldout)
    evaluation = evaluate_recommender(kb, chosen, baselines=True, datasets=heldout)
    return TuningResult(
        table=table.drop(columns=["_order", "_params", "_p"]).reset_index(drop=True),
        best_params=best,
        tuning_datasets=tuning,
        heldout_datasets=heldout,
        heldout=evaluation,
        active_table=active_table,
        heldout_active=heldout_active,
    )


def _p_beat(mine, glob, resamples: np.ndarray) -> float:
    """Fraction of bootstrap resamples of the datasets on which ``mine`` beats ``glob``.

    ``mine`` and ``glob`` are per-dataset figures (``dataset, spearman, top3_loss, mil``) of
    the same datasets; "beats" = lower mean MIL, lower mean top-3 loss and higher mean
    Spearman correlation (NaN correlations, e.g. a dataset with one algorithm, left out).
    """
    a = mine.set_index("dataset").sort_index()
    b = glob.set_index("dataset").reindex(a.index)
    idx = resamples % len(a)
    wins = np.ones(len(idx), dtype=bool)
    for column, sign in (("mil", 1.0), ("top3_loss", 1.0), ("spearman", -1.0)):
        diff = sign * (b[column].to_numpy(float) - a[column].to_numpy(float))
        valid = np.isfinite(diff)
        sums = np.where(valid, diff, 0.0)[idx].sum(axis=1)
        counts = valid[idx].sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            wins &= np.where(counts > 0, sums / np.maximum(counts, 1), -np.inf) > 0
    return float(wins.mean())


def _show(value):
    return "None" if value is None else value
