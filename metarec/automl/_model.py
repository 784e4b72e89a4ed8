"""The estimator ``metarec run`` hands back: a fitted pipeline that predicts the user's labels."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils._available_if import available_if

__all__ = ["LabelledClassifier"]


class LabelledClassifier(ClassifierMixin, BaseEstimator):
    """A classification pipeline trained on class codes that speaks the original labels.

    metarec fits every algorithm on integer class codes ``0..K-1`` (some libraries, such as
    XGBoost, accept nothing else); this wrapper keeps the labels, so that :meth:`predict`
    returns them and the columns of :meth:`predict_proba` follow :attr:`classes_`.

    Parameters
    ----------
    pipeline : estimator
        A scikit-learn pipeline (encoders, imputers, scaler and the classifier), as built by
        :func:`metarec.benchmark.build_pipeline`; fitted or not.
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
        """Fit a clone of ``pipeline`` on ``X`` and the codes of ``y``."""
        classes, codes = np.unique(np.asarray(y), return_inverse=True)
        self.pipeline_ = clone(self.pipeline).fit(X, codes)
        self.classes_ = classes
        columns = getattr(X, "columns", range(np.shape(X)[1]))
        self.feature_names_in_ = np.asarray([str(c) for c in columns], dtype=object)
        self.n_features_in_ = len(self.feature_names_in_)
        return self

    def _check(self, X):
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(self, "pipeline_")
        return X

    def predict(self, X) -> np.ndarray:
        """Predicted labels of the rows of ``X`` (a DataFrame with the training columns)."""
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
        proba = np.asarray(self.pipeline_.predict_proba(X), dtype=float)
        known = np.asarray(self.pipeline_.classes_).astype(int)
        full = np.zeros((proba.shape[0], len(self.classes_)))
        full[:, known] = proba
        return full

    def __sklearn_is_fitted__(self) -> bool:
        return hasattr(self, "pipeline_")
