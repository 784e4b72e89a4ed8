"""Encoding of categorical columns that stays small whatever their number of levels."""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

__all__ = ["CategoricalEncoder", "MAX_ONE_HOT"]

#: The most one-hot columns a categorical column becomes (its most frequent levels, the rest
#: grouped as one "infrequent" column); a column with more distinct levels than this in the
#: fit data is also target-encoded.
MAX_ONE_HOT = 50
#: Levels rarer than this share of the fit rows are grouped as infrequent.
MIN_FREQUENCY = 0.01


class CategoricalEncoder(TransformerMixin, BaseEstimator):
    """One-hot of the frequent levels, plus a cross-fitted target encoding of wide columns.

    Every column is imputed with its most frequent level and one-hot encoded with at most
    ``max_categories`` columns: the levels of at least ``min_frequency`` of the rows, the
    rarest of those and every rarer level grouped into one "infrequent" column, an unknown
    level at transform time counted as infrequent.  So a column of 100,000 distinct strings
    costs at most ``max_categories`` output columns, and memory linear in the rows.

    One-hot alone loses what a wide column says: on a table of ratings, the identity of a
    user or a film is most of the signal, and its top 49 levels cover a few per cent of the
    rows.  A column with more than ``max_categories`` distinct levels in the fit data is
    therefore also target-encoded (:class:`sklearn.preprocessing.TargetEncoder`: each level
    becomes the mean target of its rows shrunk toward the global mean, one column per class
    for a multiclass target).  The encoding of the fit rows is cross-fitted (each row's value
    learned on the other folds), so the model downstream does not see its own labels; new
    rows get the encoding learned on every fit row.  Target encoding is chosen over hashing
    or ordinal codes because it keeps the level's information in one column per class that
    every model (linear, kernel, neighbours, trees) can use, and over native categorical
    splits because it is the same for every algorithm, so their results compare.

    Parameters
    ----------
    max_categories : int, default=50
        One-hot columns per column at most; also the number of levels above which a column
        is target-encoded.
    min_frequency : float, default=0.01
        Levels rarer than this share of the fit rows are grouped as infrequent.
    target_type : {"auto", "continuous"}, default="auto"
        ``"continuous"`` for a regression target (whole numbers included); ``"auto"`` lets
        the target encoder read binary or multiclass codes.
    random_state : int, optional
        Seed of the cross-fitting folds.

    Attributes
    ----------
    one_hot_ : OneHotEncoder
    target_encoder_ : TargetEncoder or None
        Fitted on the columns of :attr:`wide_` when there are any and a target was given.
    wide_ : list of int
        Positions of the target-encoded columns.
    levels_ : list of pandas.Index
        The fit levels of each wide column (target-encoded as their integer codes; an
        unknown level gets the target's mean).
    fill_ : ndarray of object
        The most frequent level of each column (what a missing value becomes).
    n_features_in_ : int

    References
    ----------
    .. [1] Micci-Barreca, D. (2001). A preprocessing scheme for high-cardinality categorical
       attributes in classification and prediction problems. ACM SIGKDD Explorations 3(1).
    .. [2] Pargent, F., Pfisterer, F., Thomas, J. and Bischl, B. (2022). Regularized target
       encoding outperforms traditional methods in supervised machine learning with high
       cardinality features. Computational Statistics 37.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([["a"], ["b"], ["a"], [None]], dtype=object)
    >>> CategoricalEncoder().fit_transform(X, [0, 1, 0, 1]).tolist()
    [[1.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 0.0]]
    """

    def __init__(
        self, *, max_categories=MAX_ONE_HOT, min_frequency=MIN_FREQUENCY, target_type="auto",
        random_state=None,
    ):  # fmt: skip
        self.max_categories = max_categories
        self.min_frequency = min_frequency
        self.target_type = target_type
        self.random_state = random_state

    def fit(self, X, y=None):
        """Learn the levels of every column (and the encoding of the wide ones).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Categorical values (strings or numbers); None or NaN is missing.
        y : array-like of shape (n_samples,), optional
            The target; without it no column is target-encoded.

        Returns
        -------
        self
        """
        self.fit_transform(X, y)
        return self

    def fit_transform(self, X, y=None, **fit_params):
        """Fit, and encode the fit rows (wide columns cross-fitted).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,), optional
        **fit_params : ignored

        Returns
        -------
        ndarray of shape (n_samples, n_features_out)
        """
        from sklearn.preprocessing import OneHotEncoder

        values = self._filled(X, fit=True)
        self.one_hot_ = OneHotEncoder(
            handle_unknown="infrequent_if_exist",
            min_frequency=self.min_frequency,
            max_categories=self.max_categories,
            sparse_output=False,
        ).fit(values)
        levels = [len(c) for c in self.one_hot_.categories_]
        self.wide_ = [j for j, n in enumerate(levels) if n > self.max_categories]
        self.target_encoder_ = None
        parts = [self.one_hot_.transform(values)]
        if self.wide_ and y is not None and len(values):
            self.levels_ = [pd.Index(self.one_hot_.categories_[j]) for j in self.wide_]
            parts.append(self._fit_target_encoding(self._codes(values), np.asarray(y)))
        return np.hstack(parts) if len(parts) > 1 else parts[0]

    def _fit_target_encoding(self, wide: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Fit the encoder on every row; return the fit rows' cross-fitted encoding.

        Each fold's rows are encoded by an encoder fitted on the other folds (stratified
        for classes, shuffled with ``random_state``), as scikit-learn's own
        ``fit_transform`` does, written out so that it needs no version-specific option.
        """
        from sklearn.base import clone
        from sklearn.model_selection import KFold, StratifiedKFold
        from sklearn.preprocessing import TargetEncoder

        encoder = TargetEncoder(target_type=self.target_type)
        self.target_encoder_ = clone(encoder).fit(wide, y)
        if self.target_type == "continuous":
            folds = KFold(5, shuffle=True, random_state=self.random_state)
        else:
            smallest = int(np.unique(y, return_counts=True)[1].min())
            if smallest < 2:  # a class of one row: no fold can hold it out and keep it
                folds = KFold(min(5, len(y)), shuffle=True, random_state=self.random_state)
            else:
                folds = StratifiedKFold(
                    min(5, smallest), shuffle=True, random_state=self.random_state
                )
        out = np.empty((len(y), self.target_encoder_.transform(wide[:1]).shape[1]))
        for train, test in folds.split(wide, y):
            if len(np.unique(y[train])) < len(np.unique(y)) and self.target_type != "continuous":
                out[test] = self.target_encoder_.transform(wide[test])
            else:
                out[test] = clone(encoder).fit(wide[train], y[train]).transform(wide[test])
        return out

    def transform(self, X):
        """Encode new rows (wide columns with the encoding learned on every fit row).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features_in_)

        Returns
        -------
        ndarray of shape (n_samples, n_features_out)
        """
        check_is_fitted(self, "one_hot_")
        values = self._filled(X, fit=False)
        parts = [self.one_hot_.transform(values)]
        if self.target_encoder_ is not None:
            parts.append(self.target_encoder_.transform(self._codes(values)))
        return np.hstack(parts) if len(parts) > 1 else parts[0]

    def get_feature_names_out(self, input_features=None):
        """Names of the output columns: the one-hot names, then ``<column>_target[_<k>]``.

        Parameters
        ----------
        input_features : array-like of str, optional

        Returns
        -------
        ndarray of str
        """
        check_is_fitted(self, "one_hot_")
        names = list(self.one_hot_.get_feature_names_out(input_features))
        if self.target_encoder_ is not None:
            columns = (
                list(input_features)
                if input_features is not None
                else [f"x{j}" for j in range(self.n_features_in_)]
            )
            width = len(self.target_encoder_.get_feature_names_out())
            per_column = width // len(self.wide_)
            for j in self.wide_:
                if per_column == 1:
                    names.append(f"{columns[j]}_target")
                else:
                    names.extend(f"{columns[j]}_target_{k}" for k in range(per_column))
        return np.asarray(names, dtype=object)

    def _codes(self, values: np.ndarray) -> np.ndarray:
        """The wide columns as integer codes of their fit levels (-1: a level not seen)."""
        return np.column_stack(
            [lv.get_indexer(values[:, j]) for lv, j in zip(self.levels_, self.wide_, strict=True)]
        )

    def _filled(self, X, *, fit: bool) -> np.ndarray:
        """``X`` as an object array of strings, missing values replaced by the fit's mode."""
        frame = pd.DataFrame(X).reset_index(drop=True)
        if fit:
            self.n_features_in_ = frame.shape[1]
        elif frame.shape[1] != self.n_features_in_:
            raise ValueError(
                f"X has {frame.shape[1]} columns, the encoder was fitted on {self.n_features_in_}"
            )
        missing = frame.isna().to_numpy()
        # numbers and strings as one kind of value, so that 1 and "1" are the same level
        values = frame.astype(str).to_numpy(dtype=object)
        if fit:
            values = np.where(missing, None, values)
            self.fill_ = np.array([_mode(values[:, j]) for j in range(values.shape[1])], object)
        if missing.any():
            values = np.where(missing, self.fill_[np.newaxis, :], values)
        return values


def _mode(column: np.ndarray) -> str:
    """The most frequent non-missing level (the smallest of a tie; "missing" for none)."""
    present = pd.Series(column[column != None])  # noqa: E711 (elementwise)
    if present.empty:
        return "missing"
    counts = present.value_counts()
    return str(min(counts.index[counts == counts.iloc[0]]))
