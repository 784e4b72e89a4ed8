"""Median imputation of numeric columns in linear time."""

from __future__ import annotations

import inspect
import warnings

import numpy as np
from sklearn.base import BaseEstimator, OneToOneFeatureMixin, TransformerMixin
from sklearn.utils.validation import check_array, check_is_fitted

__all__ = ["MedianImputer"]

# check_array's switch for NaN/inf: ``force_all_finite`` up to scikit-learn 1.5,
# ``ensure_all_finite`` from 1.6 (the old name was removed in 1.8)
_ALLOW_MISSING = {
    (
        "ensure_all_finite"
        if "ensure_all_finite" in inspect.signature(check_array).parameters
        else "force_all_finite"
    ): False
}


class MedianImputer(OneToOneFeatureMixin, TransformerMixin, BaseEstimator):
    """Replace missing values (NaN, +-inf) of each column by its median on the fit data.

    The statistics are those of ``SimpleImputer(strategy="median")``: the median of the
    non-missing values, the mean of the two middle ones for an even count.  They are computed
    with :func:`numpy.nanmedian` (a selection, linear in the rows) instead of scikit-learn's
    masked-array median (a sort), which on a large dataset took longer than fitting a fast
    model after it.

    An infinite value is missing too: it carries no magnitude a model can use (it is what a
    division by zero in a derived feature leaves), metafeature extraction counts it as
    missing, and scikit-learn's estimators refuse it.

    A column with no value at all in the fit data is filled with 0 and kept (scikit-learn's
    imputer drops it by default), so that the output always has the input's columns, and a
    fold in which a sparse column happens to be empty has the same features as the others.

    Attributes
    ----------
    statistics_ : ndarray of shape (n_features,)
        The value each column's missing entries are replaced by.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when fitted on a frame with string column names.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, np.nan], [np.nan, np.nan], [4.0, np.nan], [5.0, np.nan]])
    >>> imputer = MedianImputer().fit(X)
    >>> imputer.statistics_.tolist()
    [4.0, 0.0]
    >>> imputer.transform([[np.nan, 2.0]]).tolist()
    [[4.0, 2.0]]
    """

    def fit(self, X, y=None):
        """Compute each column's median over its non-missing values.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Numeric data; NaN or +-inf marks a missing value.
        y : ignored

        Returns
        -------
        self
        """
        names = _string_column_names(X)
        X = _inf_to_nan(check_array(X, dtype=np.float64, **_ALLOW_MISSING))
        self.n_features_in_ = X.shape[1]
        if names is not None:
            self.feature_names_in_ = names
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # an all-NaN column
            statistics = np.nanmedian(X, axis=0) if X.shape[0] else np.full(X.shape[1], np.nan)
        self.statistics_ = np.nan_to_num(statistics, nan=0.0)
        return self

    def transform(self, X):
        """``X`` as floats with every NaN and +-inf replaced by its column's statistic.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features_in_)

        Returns
        -------
        ndarray of shape (n_samples, n_features_in_)

        Raises
        ------
        ValueError
            If ``X`` has another number of columns than the fit data, or, when both have
            string column names, other names or another order.
        """
        check_is_fitted(self, "statistics_")
        names = _string_column_names(X)
        fitted_names = getattr(self, "feature_names_in_", None)
        if (
            names is not None
            and fitted_names is not None
            and not np.array_equal(names, fitted_names)
        ):
            raise ValueError(
                "The feature names should match those that were passed during fit: "
                f"{list(fitted_names)} were seen, {list(names)} are given."
            )
        X = check_array(X, dtype=np.float64, **_ALLOW_MISSING)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(
                f"X has {X.shape[1]} features, but MedianImputer is expecting "
                f"{self.n_features_in_} features as input."
            )
        missing = ~np.isfinite(X)
        if missing.any():
            X = np.where(missing, self.statistics_, X)
        return X


def _string_column_names(X) -> np.ndarray | None:
    """The column names of a frame whose names are all strings, else None (as scikit-learn)."""
    columns = getattr(X, "columns", None)
    if columns is None or len(columns) == 0 or not all(isinstance(c, str) for c in columns):
        return None
    return np.asarray(columns, dtype=object)


def _inf_to_nan(X: np.ndarray) -> np.ndarray:
    """``X`` with +-inf as NaN (a copy only when there is one)."""
    infinite = np.isinf(X)
    return np.where(infinite, np.nan, X) if infinite.any() else X
