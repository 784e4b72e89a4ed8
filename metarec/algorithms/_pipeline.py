"""The pipeline an algorithm runs in: any tabular data in, the estimator's predictions out.

:func:`build_pipeline` wraps an :class:`~metarec.algorithms.Algorithm`'s estimator in the
preprocessing every algorithm shares (median imputation, standardisation when the algorithm
asks for it, categorical encoding, the label adapter of the libraries outside
scikit-learn).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["build_pipeline"]


def build_pipeline(
    algorithm,
    *,
    numeric_columns: Sequence[str],
    categorical_columns: Sequence[str],
    random_state: int | None = None,
):
    """Wrap an algorithm's estimator in a pipeline that accepts any tabular data.

    Numeric columns: median imputation (:class:`~metarec.algorithms.MedianImputer`,
    linear in the rows; plus standardisation when ``algorithm.scale``).
    Categorical columns: :class:`~metarec.algorithms.CategoricalEncoder`
    (most-frequent imputation, one-hot encoding of at most 50 columns per column, levels
    rarer than 1% of the training rows and unknown ones grouped, and a cross-fitted target
    encoding of the columns of more than 50 levels, so that a column of 100,000 distinct
    strings stays affordable and still says what its levels mean).  Output is dense so that every estimator
    (LDA, QDA, naive Bayes, histogram boosting) accepts it.  Estimators from outside
    scikit-learn are wrapped in :class:`~metarec.algorithms.EncodedLabels` (contiguous class codes in, one label
    per row out), the contract LightGBM, XGBoost and CatBoost need to behave like scikit-learn's.
    A regressor with ``scale_target`` has its target standardised (``TransformedTargetRegressor``;
    predictions are back in the target's unit).

    Parameters
    ----------
    algorithm : Algorithm
        The estimator and its preprocessing options (``scale``, ``scale_target``).
    numeric_columns, categorical_columns : sequence of str
        The feature columns of each kind (:attr:`metarec.data.Dataset.numeric_columns`);
        any other column is dropped.
    random_state : int, optional
        Seed of the estimator (see :meth:`Algorithm.make_estimator`).

    Returns
    -------
    Pipeline
        Unfitted: a ``"prepare"`` column transformer and the ``"model"`` step, which takes
        a DataFrame with those columns.
    """
    from sklearn.compose import ColumnTransformer
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import StandardScaler

    from metarec.algorithms._adapters import EncodedLabels
    from metarec.algorithms._categorical import CategoricalEncoder
    from metarec.algorithms._impute import MedianImputer

    numeric_steps: list[tuple[str, Any]] = [("impute", MedianImputer())]
    if algorithm.scale:
        numeric_steps.append(("scale", StandardScaler()))
    transformers = []
    if numeric_columns:
        transformers.append(("numeric", Pipeline(numeric_steps), list(numeric_columns)))
    if categorical_columns:
        target_type = "continuous" if algorithm.task == "regression" else "auto"
        encoder = CategoricalEncoder(target_type=target_type, random_state=random_state)
        transformers.append(("categorical", encoder, list(categorical_columns)))
    prepare = ColumnTransformer(transformers, remainder="drop", sparse_threshold=0.0)
    model = algorithm.make_estimator(random_state=random_state)
    if algorithm.library != "sklearn" and algorithm.task == "classification":
        model = EncodedLabels(model)
    if algorithm.task == "regression" and algorithm.scale_target:
        from sklearn.compose import TransformedTargetRegressor

        model = TransformedTargetRegressor(model, transformer=StandardScaler())
    return Pipeline([("prepare", prepare), ("model", model)])
