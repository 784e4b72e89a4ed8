"""Adapters that give estimators from outside scikit-learn scikit-learn's classifier contract."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils.metaestimators import available_if

__all__ = ["EncodedLabels"]


def _inner_has(method: str):
    return lambda self: hasattr(self.estimator, method)


class EncodedLabels(ClassifierMixin, BaseEstimator):
    """Fit a classifier on the codes ``0..k-1`` of the classes present; predict labels.

    XGBoost refuses labels that are not exactly ``0..k-1`` (a training fold that lacks a
    class) and CatBoost's ``predict`` returns a column on multiclass data.  This wrapper gives
    them scikit-learn's contract: ``classes_`` are the training labels, ``predict`` returns one
    label per row, ``predict_proba`` and ``decision_function`` pass through (columns in the
    order of ``classes_``).

    Parameters
    ----------
    estimator : classifier
        The wrapped estimator (cloned at ``fit``).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> model = EncodedLabels(DecisionTreeClassifier()).fit([[0], [1], [2]], [5, 7, 9])
    >>> model.predict([[2]]).tolist(), model.classes_.tolist()
    ([9], [5, 7, 9])
    """

    def __init__(self, estimator):
        self.estimator = estimator

    def fit(self, X, y, **fit_params):
        """Fit the wrapped estimator on the class codes of ``y``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The training data.
        y : array-like of shape (n_samples,)
            Class labels of any type.
        **fit_params : dict
            Passed to the wrapped estimator's ``fit``.

        Returns
        -------
        self
        """
        self.classes_, codes = np.unique(np.asarray(y), return_inverse=True)
        self.estimator_ = clone(self.estimator).fit(X, codes.reshape(-1), **fit_params)
        return self

    def predict(self, X):
        """Predict one label per row of ``X``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The data.

        Returns
        -------
        ndarray of shape (n_samples,)
            Labels of :attr:`classes_`.
        """
        codes = np.asarray(self.estimator_.predict(X)).reshape(-1)
        return self.classes_[codes.astype(np.intp)]

    @available_if(_inner_has("predict_proba"))
    def predict_proba(self, X):
        """Class probabilities, columns in the order of ``classes_``."""
        return np.asarray(self.estimator_.predict_proba(X))

    @available_if(_inner_has("decision_function"))
    def decision_function(self, X):
        """Decision values of the wrapped estimator."""
        return np.asarray(self.estimator_.decision_function(X))
