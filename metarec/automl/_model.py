"""The estimators ``metarec run`` hands back: a fitted pipeline that predicts the user's labels,
or the average of several."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, clone
from sklearn.utils.metaestimators import available_if

from metarec._sklearn_errors import NotFittedError
from metarec.exceptions import InvalidInputError

__all__ = ["LabelledClassifier", "AveragedClassifier", "AveragedRegressor", "as_frame"]


def _columns_of(X) -> np.ndarray:
    """The training columns of ``X`` as text (positions for an array)."""
    columns = getattr(X, "columns", range(np.shape(X)[1]))
    return np.asarray([str(c) for c in columns], dtype=object)


def as_frame(X, columns) -> object:
    """``X`` as a DataFrame with the training ``columns``, for a pipeline that selects by name.

    An array (or a frame with the default integer column labels, as ``pd.DataFrame(array)``
    makes) of as many columns is taken in the training order; column labels become text and
    pandas' nullable dtypes the NumPy ones (:func:`metarec.data.plain_frame`), as in training.

    Raises
    ------
    InvalidInputError
        ``X`` is not 2-dimensional, an array with another number of columns, or a frame
        without some of the training columns.
    """
    import pandas as pd

    from metarec.data import plain_frame
    from metarec.exceptions import InvalidInputError

    columns = [str(c) for c in columns]
    if not isinstance(X, pd.DataFrame):
        array = np.asarray(X)
        if array.ndim != 2:
            raise InvalidInputError(
                f"X must be 2-dimensional (rows x {len(columns)} columns), got shape "
                f"{array.shape}; a single row is X.reshape(1, -1)"
            )
        if array.shape[1] != len(columns):
            raise InvalidInputError(
                f"X has {array.shape[1]} columns; the model was trained on {len(columns)}"
            )
        return plain_frame(pd.DataFrame(array, columns=columns).infer_objects())
    frame = plain_frame(X)
    positional = isinstance(X.columns, pd.RangeIndex) and X.shape[1] == len(columns)
    if positional and not set(columns) <= set(frame.columns):
        frame = frame.set_axis(columns, axis=1)
    present = {str(c) for c in frame.columns}
    missing = [c for c in columns if c not in present]
    if missing:
        shown = ", ".join(repr(c) for c in missing[:5]) + (", ..." if len(missing) > 5 else "")
        raise InvalidInputError(
            f"X lacks {len(missing)} of the {len(columns)} columns the model was trained on: "
            f"{shown}"
        )
    return frame


def _proba_of(pipeline, X, n_classes: int) -> np.ndarray:
    """A pipeline's class probabilities, one column per class code ``0..n_classes-1`` (a
    class it never saw in training gets 0)."""
    proba = np.asarray(pipeline.predict_proba(X), dtype=float)
    full = np.zeros((proba.shape[0], n_classes))
    full[:, np.asarray(pipeline.classes_).astype(int)] = proba
    return full


def _weights(weights, n: int) -> np.ndarray:
    """Members' weights summing to 1 (equal when None)."""
    if weights is None:
        return np.full(n, 1.0 / n)
    w = np.asarray(weights, dtype=float)
    if w.shape != (n,) or not np.all(np.isfinite(w)) or (w < 0).any() or w.sum() <= 0:
        raise InvalidInputError(
            f"weights must be {n} non-negative numbers, not all zero; got {list(weights)!r}"
        )
    return w / w.sum()


def _check_fitted(model, attribute: str) -> None:
    """Raise metarec's :class:`NotFittedError` (also scikit-learn's) before ``fit``."""
    if not hasattr(model, attribute):
        raise NotFittedError(
            f"This {type(model).__name__} instance is not fitted yet: call fit() first"
        )


class LabelledClassifier(ClassifierMixin, BaseEstimator):
    """A classification pipeline trained on class codes that speaks the original labels.

    metarec fits every algorithm on integer class codes ``0..K-1`` (some libraries, such as
    XGBoost, accept nothing else); this wrapper keeps the labels, so that :meth:`predict`
    returns them and the columns of :meth:`predict_proba` follow :attr:`classes_`.

    Parameters
    ----------
    pipeline : estimator
        A scikit-learn pipeline (encoders, imputers, scaler and the classifier), as built by
        :func:`metarec.algorithms.build_pipeline`; fitted or not.
    classes : array-like, optional
        The labels, in the order of their codes; required with a fitted ``pipeline``.

    Attributes
    ----------
    pipeline_ : estimator
        The fitted pipeline (codes in, codes out).
    classes_ : ndarray
        The class labels.
    feature_names_in_ : ndarray
        The training columns, which :meth:`predict` expects.
    """

    def __init__(self, pipeline, *, classes=None) -> None:
        self.pipeline = pipeline
        self.classes = classes

    @classmethod
    def from_fitted(cls, pipeline, classes, columns) -> LabelledClassifier:
        """Wrap a pipeline already fitted on the codes of ``classes``."""
        model = cls(pipeline, classes=np.asarray(classes))
        model.pipeline_ = pipeline
        model.classes_ = np.asarray(classes)
        model.feature_names_in_ = np.asarray(list(columns), dtype=object)
        model.n_features_in_ = len(model.feature_names_in_)
        return model

    def fit(self, X, y) -> LabelledClassifier:
        """Fit a clone of ``pipeline`` on ``X`` and the codes of ``y``.

        Parameters
        ----------
        X : DataFrame of shape (n_samples, n_features)
            The features, with the columns the pipeline selects by name.
        y : array-like of shape (n_samples,)
            The class labels.

        Returns
        -------
        LabelledClassifier
            The fitted model itself.
        """
        classes, codes = np.unique(np.asarray(y), return_inverse=True)
        self.pipeline_ = clone(self.pipeline).fit(X, codes)
        self.classes_ = classes
        self.feature_names_in_ = _columns_of(X)
        self.n_features_in_ = len(self.feature_names_in_)
        return self

    def _check(self, X):
        _check_fitted(self, "pipeline_")
        return as_frame(X, self.feature_names_in_)

    def predict(self, X) -> np.ndarray:
        """Predicted labels of the rows of ``X`` (a DataFrame with the training columns).

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            A frame with the training columns, or an array of as many columns in the
            training order.

        Returns
        -------
        ndarray of shape (n_samples,)
            Labels of :attr:`classes_`.
        """
        X = self._check(X)
        codes = np.asarray(self.pipeline_.predict(X)).astype(int)
        return self.classes_[codes]

    def _has_proba(self) -> bool:
        fitted = getattr(self, "pipeline_", None)
        return hasattr(fitted if fitted is not None else self.pipeline, "predict_proba")

    @available_if(_has_proba)
    def predict_proba(self, X) -> np.ndarray:
        """Class probabilities, one column per label of :attr:`classes_` (classifiers that
        estimate them: not ridge, the linear SVM or SGD with hinge loss)."""
        X = self._check(X)
        return _proba_of(self.pipeline_, X, len(self.classes_))

    def _has_decision(self) -> bool:
        fitted = getattr(self, "pipeline_", None)
        return hasattr(fitted if fitted is not None else self.pipeline, "decision_function")

    @available_if(_has_decision)
    def decision_function(self, X) -> np.ndarray:
        """Confidence scores of the classifiers that estimate no probabilities (ridge, the
        support vector machines, SGD): as scikit-learn's, one column per label of
        :attr:`classes_` (one column, of ``classes_[1]``, for two classes)."""
        X = self._check(X)
        return np.asarray(self.pipeline_.decision_function(X))

    def __sklearn_is_fitted__(self) -> bool:
        return hasattr(self, "pipeline_")


class AveragedClassifier(ClassifierMixin, BaseEstimator):
    """Several classification pipelines whose class probabilities are averaged.

    Each member is fitted on integer class codes ``0..K-1``, as
    :class:`LabelledClassifier`'s pipeline is.  :meth:`predict_proba` is the weighted
    mean of the members' probabilities (equal weights by default; ensemble selection's
    counts); a member that estimates none (ridge, the support
    vector machines, SGD with hinge loss) contributes its vote instead, probability 1 for
    the class it predicts.  :meth:`predict` returns the label of the largest mean (a tie
    goes to the class with the smaller code).

    Averaging a few of the best models of a search is the simplest of the ensembles AutoML
    systems build (Caruana et al. 2004; auto-sklearn; AutoGluon): on small data the best
    inner-CV score is a noisy choice, and the errors of different models partly cancel.

    Parameters
    ----------
    estimators : list of (str, estimator)
        The members: names and scikit-learn pipelines, fitted or not.
    classes : array-like, optional
        The labels, in the order of their codes; required with fitted members.
    weights : sequence of float, optional
        Each member's weight (normalised to sum to 1); None: equal weights.

    Attributes
    ----------
    estimators_ : list of estimator
        The fitted members (codes in, codes out).
    classes_ : ndarray
        The class labels.
    feature_names_in_ : ndarray
        The training columns, which :meth:`predict` expects.

    References
    ----------
    .. [1] Caruana, R., Niculescu-Mizil, A., Crew, G. and Ksikes, A. (2004). Ensemble
       selection from libraries of models. ICML.
    """

    def __init__(self, estimators, *, classes=None, weights=None) -> None:
        self.estimators = estimators
        self.classes = classes
        self.weights = weights

    @classmethod
    def from_fitted(cls, estimators, classes, columns, *, weights=None) -> AveragedClassifier:
        """Wrap members already fitted on the codes of ``classes``."""
        model = cls(list(estimators), classes=np.asarray(classes), weights=weights)
        model.estimators_ = [pipeline for _, pipeline in model.estimators]
        model.classes_ = np.asarray(classes)
        model.feature_names_in_ = np.asarray(list(columns), dtype=object)
        model.n_features_in_ = len(model.feature_names_in_)
        return model

    def fit(self, X, y) -> AveragedClassifier:
        """Fit a clone of every member on ``X`` and the codes of ``y``.

        Parameters
        ----------
        X : DataFrame of shape (n_samples, n_features)
            The features, with the columns the members select by name.
        y : array-like of shape (n_samples,)
            The class labels.

        Returns
        -------
        AveragedClassifier
            The fitted model itself.
        """
        classes, codes = np.unique(np.asarray(y), return_inverse=True)
        self.estimators_ = [clone(pipeline).fit(X, codes) for _, pipeline in self.estimators]
        self.classes_ = classes
        self.feature_names_in_ = _columns_of(X)
        self.n_features_in_ = len(self.feature_names_in_)
        return self

    def _member_proba(self, member, X) -> np.ndarray:
        n_classes = len(self.classes_)
        if hasattr(member, "predict_proba"):
            return _proba_of(member, X, n_classes)
        return np.eye(n_classes)[np.asarray(member.predict(X)).astype(int)]

    def predict_proba(self, X) -> np.ndarray:
        """Mean class probabilities of the members, one column per label of :attr:`classes_`.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            A frame with the training columns, or an array of as many columns in the
            training order.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Rows summing to 1.
        """
        _check_fitted(self, "estimators_")
        X = as_frame(X, self.feature_names_in_)
        weights = _weights(getattr(self, "weights", None), len(self.estimators_))
        members = zip(weights, self.estimators_, strict=True)
        return sum(w * self._member_proba(m, X) for w, m in members)

    def predict(self, X) -> np.ndarray:
        """Predicted labels of the rows of ``X`` (a DataFrame with the training columns).

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            A frame with the training columns, or an array of as many columns in the
            training order.

        Returns
        -------
        ndarray of shape (n_samples,)
            Labels of :attr:`classes_`.
        """
        proba = self.predict_proba(X)  # checks that the model is fitted
        return self.classes_[np.argmax(proba, axis=1)]

    def __sklearn_is_fitted__(self) -> bool:
        return hasattr(self, "estimators_")


class AveragedRegressor(RegressorMixin, BaseEstimator):
    """Several regression pipelines whose predictions are averaged (weighted mean).

    Parameters
    ----------
    estimators : list of (str, estimator)
        The members: names and scikit-learn pipelines, fitted or not.
    weights : sequence of float, optional
        Each member's weight (normalised to sum to 1); None: equal weights.

    Attributes
    ----------
    estimators_ : list of estimator
        The fitted members.
    feature_names_in_ : ndarray
        The training columns, which :meth:`predict` expects.
    """

    def __init__(self, estimators, *, weights=None) -> None:
        self.estimators = estimators
        self.weights = weights

    @classmethod
    def from_fitted(cls, estimators, columns, *, weights=None) -> AveragedRegressor:
        """Wrap members already fitted."""
        model = cls(list(estimators), weights=weights)
        model.estimators_ = [pipeline for _, pipeline in model.estimators]
        model.feature_names_in_ = np.asarray(list(columns), dtype=object)
        model.n_features_in_ = len(model.feature_names_in_)
        return model

    def fit(self, X, y) -> AveragedRegressor:
        """Fit a clone of every member on ``X, y``.

        Parameters
        ----------
        X : DataFrame of shape (n_samples, n_features)
            The features, with the columns the members select by name.
        y : array-like of shape (n_samples,)
            The continuous target.

        Returns
        -------
        AveragedRegressor
            The fitted model itself.
        """
        self.estimators_ = [clone(pipeline).fit(X, y) for _, pipeline in self.estimators]
        self.feature_names_in_ = _columns_of(X)
        self.n_features_in_ = len(self.feature_names_in_)
        return self

    def predict(self, X) -> np.ndarray:
        """Mean prediction of the members for the rows of ``X``.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            A frame with the training columns, or an array of as many columns in the
            training order.

        Returns
        -------
        ndarray of shape (n_samples,)
            Float predictions.
        """
        _check_fitted(self, "estimators_")
        X = as_frame(X, self.feature_names_in_)
        predictions = [np.asarray(m.predict(X), dtype=float).ravel() for m in self.estimators_]
        weights = _weights(getattr(self, "weights", None), len(predictions))
        return np.sum([w * p for w, p in zip(weights, predictions, strict=True)], axis=0)

    def __sklearn_is_fitted__(self) -> bool:
        return hasattr(self, "estimators_")
