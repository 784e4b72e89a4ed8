"""A learned performance model: metafeatures to each algorithm's A3R rank, accuracy gap and time.

This is the side-information analogue of matrix completion for the knowledge base's
(datasets x algorithms) performance matrix: instead of completing a row from the other
entries of the same row, the row of a new dataset is predicted from its metafeatures.

Targets, per dataset ``d`` and algorithm ``a`` (missing results are imputed for *training
only*, by the algorithm's mean target over the datasets where it ran):

``rank``
    Normalised A3R rank of ``a`` among the algorithms that ran on ``d``: 0 = highest
    ``log SR - log T / n``, 1 = lowest (``(rank - 1) / (n_present - 1)``), so that datasets
    with different numbers of results are comparable.
``gap``
    ``best_d - acc_da`` (accuracy units): how far below the dataset's best the algorithm is.
``log_time``
    Natural logarithm of the training time (seconds, floored at 1e-4).
``best``
    The dataset's best accuracy (one output per dataset), used to turn a predicted gap into
    an expected accuracy.

All ``3 * n_algorithms + 1`` targets are standardised and compressed to at most
``n_components`` principal directions (a truncated SVD, the low-rank structure matrix
completion relies on); a multi-output :class:`sklearn.ensemble.ExtraTreesRegressor` maps the
metafeatures (names ending in ``_time`` excluded: they measure the machine; missing values
replaced by the training median) to the components (on knowledge bases of more than
:data:`MAX_TREE_SAMPLES` datasets each tree sees a bootstrap sample of that many).  Compressing keeps the fit fast on large
knowledge bases (the cost of a multi-output tree grows with the number of outputs), and a
prediction is one pass down each tree plus a small matrix product.
"""

from __future__ import annotations

import warnings

import numpy as np

__all__ = ["PerformanceModel", "CompactForest"]

N_COMPONENTS = 32
#: Each tree of a knowledge base with more datasets than this is grown on a bootstrap sample
#: of this many datasets (keeps the fit on 10,000 datasets under 30 s; smaller knowledge
#: bases use every dataset in every tree, as extremely randomised trees usually do).
MAX_TREE_SAMPLES = 4000


class CompactForest:
    """What prediction needs of a fitted forest: the splits and float32 leaf values.

    A scikit-learn tree stores the mean of every output at every node, internal ones
    included, in float64; a fitted recommender keeps only the leaves' values in float32
    (about a quarter of the size; predictions agree to float32 precision).  The prediction
    walks all query rows down each tree at once, one node level per step.

    Parameters
    ----------
    forest : fitted sklearn forest regressor
    """

    def __init__(self, forest) -> None:
        self.trees = []
        for estimator in forest.estimators_:
            t = estimator.tree_
            left = t.children_left.astype(np.int32)
            is_leaf = left == -1
            leaf_id = np.full(t.node_count, -1, dtype=np.int32)
            leaf_id[is_leaf] = np.arange(int(is_leaf.sum()), dtype=np.int32)
            values = t.value[is_leaf].reshape(int(is_leaf.sum()), -1).astype(np.float32)
            self.trees.append(
                (
                    left,
                    t.children_right.astype(np.int32),
                    np.maximum(t.feature, 0).astype(np.int32),
                    t.threshold.astype(np.float64),
                    leaf_id,
                    values,
                )
            )

    def predict(self, X) -> np.ndarray:
        """Mean leaf value over the trees, shape (rows, outputs)."""
        # scikit-learn compares float32 features with float64 thresholds: do the same; a
        # value beyond float32's range would become +-inf there, and takes the same branches
        # as the largest float32 (thresholds are finite), without numpy's overflow warning
        X = np.asarray(X, dtype=np.float64)
        X = np.clip(X, -FLOAT32_MAX, FLOAT32_MAX).astype(np.float32).astype(np.float64)
        rows = np.arange(X.shape[0])
        total = None
        for left, right, feature, threshold, leaf_id, values in self.trees:
            node = np.zeros(X.shape[0], dtype=np.int32)
            internal = left[node] != -1
            while internal.any():
                go_left = X[rows, feature[node]] <= threshold[node]
                step = np.where(go_left, left[node], right[node])
                node = np.where(internal, step, node)
                internal = left[node] != -1
            leaf = values[leaf_id[node]].astype(np.float64)
            total = leaf if total is None else total + leaf
        return total / len(self.trees)


#: The largest float32: metafeatures are compared in float32, as scikit-learn's trees do.
FLOAT32_MAX = float(np.finfo(np.float32).max)
#: Decimals the principal directions and the components are rounded to (see
#: :func:`principal_directions`).
MACHINE_DECIMALS = 9


def principal_directions(ys: np.ndarray, r: int) -> tuple[np.ndarray, np.ndarray]:
    """The first ``r`` principal directions of ``ys`` and its coordinates along them.

    Computed so that the result depends on ``ys`` alone, not on the machine.  The SVD runs
    in the linear-algebra library (OpenBLAS, its kernels chosen for the processor: Haswell,
    SkylakeX, Zen, ...), whose kernels and thread counts round the last digits differently;
    a difference in the last digit of a tree's target can flip a split, and with it an
    expected accuracy by half a point.  So the SVD runs on one thread, each direction's sign
    is fixed (its largest entry, in absolute value, is positive: an SVD's signs are
    arbitrary), and directions and coordinates are rounded to :data:`MACHINE_DECIMALS`
    decimals (the targets are standardised: 1e-9 is far below any difference that means
    something, and far above the ~1e-15 by which the kernels differ).

    Parameters
    ----------
    ys : ndarray of shape (n_datasets, n_targets)
        Standardised targets.
    r : int
        Number of directions kept.

    Returns
    -------
    basis : ndarray of shape (r, n_targets)
        Orthonormal rows (to the rounding).
    comps : ndarray of shape (n_datasets, r)
        ``ys @ basis.T``, rounded.
    """
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1):
        _, _, vt = np.linalg.svd(ys, full_matrices=False)
        basis = vt[:r]
        largest = np.abs(basis).argmax(axis=1)
        sign = np.where(basis[np.arange(basis.shape[0]), largest] < 0, -1.0, 1.0)
        basis = np.round(basis * sign[:, None], MACHINE_DECIMALS)
        comps = np.round(ys @ basis.T, MACHINE_DECIMALS)
    return basis, comps


class PerformanceModel:
    """Multi-output regression from metafeatures to per-algorithm rank, gap and log time.

    Parameters
    ----------
    n : float
        Root of the time ratio of the A3R rank target.
    n_estimators : int, default=100
        Trees of the ensemble.
    min_samples_leaf : int, default=2
        Smallest leaf of the trees.
    max_features : float, default=0.5
        Fraction of metafeatures tried at each split.
    n_components : int, default=32
        Largest number of principal directions of the standardised targets that are modelled.
    random_state : int or None
        Seed of the trees.
    """

    def __init__(
        self,
        *,
        n: float,
        n_estimators: int = 100,
        min_samples_leaf: int = 2,
        max_features: float = 0.5,
        n_components: int = N_COMPONENTS,
        random_state=None,
    ) -> None:
        self.n = n
        self.n_estimators = n_estimators
        self.min_samples_leaf = min_samples_leaf
        self.max_features = max_features
        self.n_components = n_components
        self.random_state = random_state

    def fit(self, X, accuracy, log_time, present) -> PerformanceModel:
        """Fit on metafeatures ``X`` (datasets x metafeatures, NaN allowed) and results.

        ``accuracy`` and ``log_time`` are (datasets x algorithms); cells where ``present`` is
        False are ignored (imputed for training only).
        """
        from sklearn.ensemble import ExtraTreesRegressor

        X = np.asarray(X, dtype=float)
        if X.ndim == 2 and X.shape[1] == 0:  # no metafeature at all: one constant column
            X = np.zeros((X.shape[0], 1))
        X = np.where(np.isfinite(X), X, np.nan)
        present = np.asarray(present, dtype=bool)
        acc = np.where(present, accuracy, np.nan)
        logt = np.where(present, log_time, np.nan)
        n_alg = acc.shape[1]
        targets = self.targets(acc, logt, present)
        # each algorithm's mean target over its datasets; 0 for one with none (np.nanmean
        # would warn "Mean of empty slice": an algorithm with results only on excluded datasets)
        known = ~np.isnan(targets)
        counts = known.sum(axis=0)
        sums = np.where(known, targets, 0.0).sum(axis=0)
        col_mean = np.divide(sums, counts, out=np.zeros(sums.shape), where=counts > 0)
        col_mean = np.where(np.isfinite(col_mean), col_mean, 0.0)
        y = np.where(np.isfinite(targets), targets, col_mean)
        centre = y.mean(axis=0)
        scale = y.std(axis=0)
        scale = np.where(scale > 0, scale, 1.0)
        ys = (y - centre) / scale
        r = int(min(self.n_components, ys.shape[0], ys.shape[1]))
        basis, comps = principal_directions(ys, r)
        with warnings.catch_warnings():  # an all-missing metafeature: its median is NaN
            warnings.simplefilter("ignore", RuntimeWarning)
            median = np.nanmedian(X, axis=0) if X.shape[0] else np.zeros(X.shape[1])
        self.median_ = np.where(np.isfinite(median), median, 0.0)
        # compared in float32, as the trees do: a metafeature beyond its range (a dataset of
        # values near the float64 limit) counts as its largest value, in the fit as in
        # prediction (CompactForest.predict)
        Xf = np.clip(np.where(np.isnan(X), self.median_, X), -FLOAT32_MAX, FLOAT32_MAX)
        large = Xf.shape[0] > MAX_TREE_SAMPLES
        forest = ExtraTreesRegressor(
            n_estimators=int(self.n_estimators),
            min_samples_leaf=int(self.min_samples_leaf),
            max_features=self.max_features,
            bootstrap=large,
            max_samples=MAX_TREE_SAMPLES if large else None,
            random_state=self.random_state,
            n_jobs=1,
        ).fit(Xf, comps if r > 1 else comps[:, 0])
        self.trees_ = CompactForest(forest)
        self.basis_, self.centre_, self.scale_ = basis, centre, scale
        self.n_algorithms_ = n_alg
        return self

    def targets(self, acc, logt, present) -> np.ndarray:
        """Target matrix ``[rank | gap | log_time | best]`` (NaN where missing)."""
        from scipy.stats import rankdata

        with np.errstate(all="ignore"):
            z = np.log(np.clip(acc, 1e-3, None)) - logt / float(self.n)
            z = np.where(present, z, np.nan)
            ranks = rankdata(np.where(present, -z, np.nan), axis=1, nan_policy="omit")
            n_present = present.sum(axis=1, keepdims=True)
            rank = np.where(present, (ranks - 1) / np.maximum(n_present - 1, 1), np.nan)
            best = np.nanmax(np.where(present, acc, -np.inf), axis=1)
        best = np.where(np.isfinite(best), best, np.nan)
        gap = np.where(present, best[:, None] - acc, np.nan)
        return np.hstack([rank, gap, np.where(present, logt, np.nan), best[:, None]])

    def predict(self, X) -> dict[str, np.ndarray]:
        """Predicted ``rank``, ``gap``, ``log_time`` (rows x algorithms) and ``best`` (rows)."""
        X = np.atleast_2d(np.asarray(X, dtype=float))
        if X.shape[1] == 0:  # fitted without metafeatures: the same constant column
            X = np.zeros((X.shape[0], 1))
        X = np.where(np.isfinite(X), X, np.nan)
        Xf = np.where(np.isnan(X), self.median_, X)
        comps = self.trees_.predict(Xf)
        comps = comps.reshape(X.shape[0], -1)
        y = np.einsum("ij,jk->ik", comps, self.basis_) * self.scale_ + self.centre_
        a = self.n_algorithms_
        return {
            "rank": y[:, :a],
            "gap": np.maximum(y[:, a : 2 * a], 0.0),
            "log_time": y[:, 2 * a : 3 * a],
            "best": np.clip(y[:, 3 * a], 0.0, 1.0),
        }
