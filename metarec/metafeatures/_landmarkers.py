"""Landmarkers: cross-validated accuracy, Cohen's kappa and fit time of fast learners.

Every landmarker is evaluated with the same stratified 5-fold cross-validation (shuffled with
``random_state``) on the model matrix (z-scored numeric attributes, missing -> mean, one-hot
encoded most frequent categorical levels), on a uniform random subsample of at most
:data:`LANDMARK_MAX_ROWS` rows: landmarkers estimate how easy the problem is, which a few
thousand rows show as well as millions, and the cap keeps 1-NN (whose cost is quadratic in
the rows it compares) bounded.  Accuracy and kappa are computed from the pooled out-of-fold
predictions; ``fit_time`` is the mean wall-clock seconds of one fit.  A training fold holding
a single class predicts that class.  Landmarkers are defined for classification only.

References
----------
.. [1] Pfahringer, B., Bensusan, H., Giraud-Carrier, C. (2000). Meta-learning by landmarking
       various learning algorithms. ICML, 743-750.
.. [2] Rivolli, A. et al. (2022). Meta-features for meta-learning. Knowledge-Based Systems 240.
.. [3] OpenML qualities ``kNN1NErrRate``, ``DecisionStumpErrRate``, ``NaiveBayesErrRate``,
       ``RandomTreeDepth1ErrRate`` and their ``Kappa`` counterparts.
"""

from __future__ import annotations

import time
import warnings

import numpy as np

from metarec.metafeatures._base import Collector, PreparedData, metafeature
from metarec.metafeatures._snr import cv_folds

GROUP = "landmarkers"

#: Landmarkers run on a uniform random subsample of at most this many rows.
LANDMARK_MAX_ROWS = 5000
#: Folds of the landmarkers' stratified cross-validation.
LANDMARK_FOLDS = 5


def _names(learner: str) -> tuple[str, str, str]:
    return (
        f"landmark_{learner}_accuracy",
        f"landmark_{learner}_kappa",
        f"landmark_{learner}_fit_time",
    )


def _setup(data: PreparedData):
    """(x, y, folds) shared by every landmarker, or a reason why there are none; cached."""
    if "landmark_setup" in data.cache:
        return data.cache["landmark_setup"]
    if not data.is_classification:
        result = "regression target: landmarkers measure classification accuracy"
    else:
        rows = None
        if data.n > LANDMARK_MAX_ROWS:
            rng = np.random.default_rng(data.random_state)
            rows = np.sort(rng.choice(data.n, size=LANDMARK_MAX_ROWS, replace=False))
        y = data.y_codes if rows is None else data.y_codes[rows]
        folds = cv_folds(y, y.size, LANDMARK_FOLDS, data.random_state)
        if folds is None:
            result = "cross-validation needs a class with at least two rows"
        elif data.n_features == 0:
            result = "the dataset has no features"
        else:
            x = data.model_matrix(rows)
            if x.shape[1] == 0:
                result = "no feature has a usable value (every attribute entirely missing)"
            else:
                result = (x, y, folds)
    data.cache["landmark_setup"] = result
    return result


def cohen_kappa(y_true: np.ndarray, y_pred: np.ndarray, n_classes: int) -> float | None:
    """Cohen's kappa from label codes; None when chance agreement is 1 (undefined)."""
    n = y_true.size
    confusion = np.bincount(y_true * n_classes + y_pred, minlength=n_classes * n_classes)
    confusion = confusion.reshape(n_classes, n_classes).astype("float64")
    observed = np.trace(confusion) / n
    expected = float(confusion.sum(axis=1) @ confusion.sum(axis=0)) / (n * n)
    if expected >= 1.0 - 1e-12:
        return None
    return (observed - expected) / (1.0 - expected)


def _evaluate(data: PreparedData, out: Collector, learner: str, make_model, columns=None) -> None:
    names = _names(learner)
    setup = _setup(data)
    if isinstance(setup, str):
        out.nan_all(names, setup)
        return
    x, y, folds = setup
    if columns is not None:
        x = x[:, columns]
    predicted = np.empty_like(y)
    seconds = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # collinearity / small-class warnings of sklearn
        for train, test in folds:
            classes, counts = np.unique(y[train], return_counts=True)
            if classes.size < 2 or train.size <= classes.size:
                # one class (or as many classes as rows): the only sensible prediction
                predicted[test] = classes[np.argmax(counts)]
                seconds.append(0.0)
                continue
            model = make_model()
            start = time.perf_counter()
            try:
                model.fit(x[train], y[train])
            except np.linalg.LinAlgError as exc:
                out.nan_all(names, f"{learner} could not be fitted: {exc}")
                return
            seconds.append(time.perf_counter() - start)
            predicted[test] = model.predict(x[test])
    accuracy_name, kappa_name, time_name = names
    out.set(accuracy_name, float(np.mean(predicted == y)))
    kappa = cohen_kappa(y, predicted, data.n_classes)
    if kappa is None:
        out.nan(kappa_name, "chance agreement is 1 (a single class predicted and present)")
    else:
        out.set(kappa_name, kappa)
    out.set(time_name, float(np.mean(seconds)))


@metafeature(GROUP, *_names("1nn"))
def one_nearest_neighbour(data: PreparedData, out: Collector) -> None:
    """1-nearest-neighbour (Euclidean on the z-scored model matrix) landmarker.

    References
    ----------
    .. [1] Pfahringer et al. (2000), landmarking; OpenML ``kNN1NErrRate`` (accuracy =
           1 - error rate).
    .. [2] Rivolli et al. (2022), "one_nn".
    """
    from sklearn.neighbors import KNeighborsClassifier

    _evaluate(data, out, "1nn", lambda: KNeighborsClassifier(n_neighbors=1, algorithm="brute"))


@metafeature(GROUP, *_names("decision_stump"))
def decision_stump(data: PreparedData, out: Collector) -> None:
    """Decision stump (a depth-1 CART tree on the best attribute) landmarker.

    References
    ----------
    .. [1] Pfahringer et al. (2000); OpenML ``DecisionStumpErrRate``.
    .. [2] Rivolli et al. (2022), "best_node".
    """
    from sklearn.tree import DecisionTreeClassifier

    seed = data.random_state
    _evaluate(
        data,
        out,
        "decision_stump",
        lambda: DecisionTreeClassifier(max_depth=1, random_state=seed),
    )


@metafeature(GROUP, *_names("naive_bayes"))
def naive_bayes(data: PreparedData, out: Collector) -> None:
    """Gaussian naive Bayes landmarker.

    References
    ----------
    .. [1] Pfahringer et al. (2000); OpenML ``NaiveBayesErrRate``.
    .. [2] Rivolli et al. (2022), "naive_bayes".
    """
    from sklearn.naive_bayes import GaussianNB

    _evaluate(data, out, "naive_bayes", GaussianNB)


class _DegenerateSafeLDA:
    """LDA, or its limit when no attribute varies within any class.

    With zero within-class variance LDA's covariance is singular in every direction and
    scikit-learn's solver fails; the limit of LDA with a vanishing isotropic covariance is
    the nearest class mean, which is used instead; it is used too when the solver fails
    because the class means span no direction.
    """

    def fit(self, x: np.ndarray, y: np.ndarray) -> _DegenerateSafeLDA:
        classes, inverse = np.unique(y, return_inverse=True)
        sums = np.zeros((classes.size, x.shape[1]))
        np.add.at(sums, inverse, x)
        means = sums / np.bincount(inverse)[:, None]
        self.model_ = None
        self.classes_, self.means_ = classes, means
        if np.any(x != means[inverse]):
            from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

            try:
                self.model_ = LinearDiscriminantAnalysis().fit(x, y)
            except (IndexError, ValueError, np.linalg.LinAlgError):
                # scikit-learn's SVD solver fails when the scaled class means span nothing
                # (e.g. one value varies in one class only): the same limit as above
                self.model_ = None
        return self

    def predict(self, x: np.ndarray) -> np.ndarray:
        if self.model_ is not None:
            return self.model_.predict(x)
        distances = ((x[:, None, :] - self.means_[None, :, :]) ** 2).sum(axis=2)
        return self.classes_[np.argmin(distances, axis=1)]


@metafeature(GROUP, *_names("lda"))
def linear_discriminant(data: PreparedData, out: Collector) -> None:
    """Linear discriminant analysis landmarker (SVD solver, robust to collinearity).

    When no attribute varies within any class (LDA's covariance is zero) the landmarker
    predicts the nearest class mean, the limit of LDA as the covariance vanishes.

    References
    ----------
    .. [1] Pfahringer et al. (2000), landmarking with LDA.
    .. [2] Rivolli et al. (2022), "linear_discr".
    """
    _evaluate(data, out, "lda", _DegenerateSafeLDA)


@metafeature(GROUP, *_names("random_node"))
def random_node(data: PreparedData, out: Collector) -> None:
    """Random node: a depth-1 tree on one column of the model matrix drawn with ``random_state``.

    The column is drawn once (the same in every fold) among the encoded columns, so a
    categorical attribute is represented by one of its level indicators.

    References
    ----------
    .. [1] Pfahringer et al. (2000); OpenML ``RandomTreeDepth1ErrRate``.
    .. [2] Rivolli et al. (2022), "random_node".
    """
    from sklearn.tree import DecisionTreeClassifier

    setup = _setup(data)
    columns = None
    if not isinstance(setup, str):
        rng = np.random.default_rng(data.random_state)
        columns = [int(rng.integers(setup[0].shape[1]))]
    seed = data.random_state
    _evaluate(
        data,
        out,
        "random_node",
        lambda: DecisionTreeClassifier(max_depth=1, random_state=seed),
        columns=columns,
    )
