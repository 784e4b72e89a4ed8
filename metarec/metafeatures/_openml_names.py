"""Translate OpenML data-quality names into metarec's metafeature names.

OpenML publishes "data qualities" for every dataset (``NumberOfInstances``,
``MajorityClassSize``, ``kNN1NErrRate``, ...).  metarec computes the same characteristics
itself under snake_case names (:mod:`metarec.metafeatures`).  :data:`OPENML_QUALITY_MAP` is the
published correspondence and :func:`translate_openml_qualities` applies it, so that a knowledge
base built from OpenML qualities and one built by metarec's own extraction describe datasets
with the same numbers on the same scale.

Conventions bridged by the translation (all documented per entry in :data:`TRANSFORMS`):

* OpenML counts the target among the features: ``NumberOfFeatures`` and
  ``NumberOfSymbolicFeatures`` (for a classification task) include it, so metarec's
  ``n_features = NumberOfFeatures - 1`` and ``n_categorical_features =
  NumberOfSymbolicFeatures - 1`` when the task is classification (``NumberOfClasses > 0``);
  ``Dimensionality`` is recomputed as ``n_features / n_instances``.
* Landmarker qualities are error rates: ``accuracy = 1 - ErrRate``; ``Kappa`` is kept.
  (``AUC`` qualities have no metarec counterpart and are treated as unknown.)
* OpenML percentages are on a 0-100 scale, like metarec's ``pct_*`` / ``*_pct`` values.
* OpenML writes ``-1`` (and, in old records, other negative numbers) for entropy-based
  qualities it could not compute; negative entropies, mutual informations, equivalent numbers
  of attributes and noise-to-signal ratios are therefore dropped, as are NaN and infinite
  values.
* Derived values: ``class_imbalance_ratio = MajorityClassSize / MinorityClassSize`` (when the
  minority size is positive), ``acir = 1 / class_imbalance_ratio`` for two classes (ACIR needs
  every class size, which OpenML does not publish for more than two classes),
  ``normalized_class_entropy = ClassEntropy / log2(NumberOfClasses)``,
  ``log_n_instances`` and ``log_n_features`` (natural logarithms), and
  ``pct_missing_values = 100 * NumberOfMissingValues / (NumberOfInstances * n_features)``
  (OpenML's own percentage also counts missing targets; metarec drops rows with a missing
  target, so the recomputed figure is the comparable one).

Qualities not in the map are dropped, unless ``keep_unknown=True``, in which case they are
kept under the name ``"openml_" + name`` (so they can never collide with a metarec name).

References
----------
.. [1] OpenML data qualities, https://www.openml.org/search?type=measure&measure_type=data_quality
.. [2] Vanschoren, J., van Rijn, J. N., Bischl, B., Torgo, L. (2014). OpenML: networked science
       in machine learning. SIGKDD Explorations 15(2), 49-60.
.. [3] Rivolli, A., Garcia, L. P. F., Soares, C., Vanschoren, J., de Carvalho, A. C. P. L. F.
       (2022). Meta-features for meta-learning. Knowledge-Based Systems 240, 108101.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from types import MappingProxyType

__all__ = [
    "OPENML_QUALITY_MAP",
    "TRANSFORMS",
    "openml_named_columns",
    "translate_openml_columns",
    "translate_openml_qualities",
]


def _summary(openml_suffix: str, metarec_base: str) -> dict[str, str]:
    """Map OpenML's Min/Mean/Max/Quartile{1,2,3}<suffix> to metarec's <base>_<stat>."""
    return {
        f"Min{openml_suffix}": f"{metarec_base}_min",
        f"Mean{openml_suffix}": f"{metarec_base}_mean",
        f"Max{openml_suffix}": f"{metarec_base}_max",
        f"Quartile1{openml_suffix}": f"{metarec_base}_q1",
        f"Quartile2{openml_suffix}": f"{metarec_base}_q2",
        f"Quartile3{openml_suffix}": f"{metarec_base}_q3",
    }


_LANDMARKERS = {
    # OpenML prefix -> metarec learner name
    "kNN1N": "1nn",
    "kNN_1N": "1nn",  # older spelling found in historic records
    "DecisionStump": "decision_stump",
    "NaiveBayes": "naive_bayes",
    "RandomTreeDepth1": "random_node",
    "LinearDiscriminantAnalysis": "lda",
}

_MAP: dict[str, str] = {
    # general
    "NumberOfInstances": "n_instances",
    "NumberOfFeatures": "n_features",
    "NumberOfNumericFeatures": "n_numeric_features",
    "NumberOfSymbolicFeatures": "n_categorical_features",
    "NumberOfBinaryFeatures": "n_binary_features",
    "NumberOfMissingValues": "n_missing_values",
    "PercentageOfMissingValues": "pct_missing_values",
    "NumberOfInstancesWithMissingValues": "n_instances_with_missing",
    "PercentageOfInstancesWithMissingValues": "pct_instances_with_missing",
    "Dimensionality": "dimensionality",
    "MinNominalAttDistinctValues": "categorical_cardinality_min",
    "MeanNominalAttDistinctValues": "categorical_cardinality_mean",
    "MaxNominalAttDistinctValues": "categorical_cardinality_max",
    "StdvNominalAttDistinctValues": "categorical_cardinality_sd",
    # imbalance
    "NumberOfClasses": "n_classes",
    "MajorityClassSize": "majority_class_size",
    "MinorityClassSize": "minority_class_size",
    "MajorityClassPercentage": "majority_class_pct",
    "MinorityClassPercentage": "minority_class_pct",
    "ClassEntropy": "class_entropy",
    # signal-to-noise
    "MeanNoiseToSignalRatio": "noise_to_signal_ratio",
    # information-theoretic
    "EquivalentNumberOfAtts": "equivalent_n_attributes",
    **_summary("AttributeEntropy", "attr_entropy"),
    **_summary("MutualInformation", "mutual_info"),
    # statistical
    **_summary("SkewnessOfNumericAtts", "skewness"),
    **_summary("KurtosisOfNumericAtts", "kurtosis"),
    **_summary("MeansOfNumericAtts", "numeric_mean"),
    **_summary("StdDevOfNumericAtts", "numeric_sd"),
}
for _prefix, _learner in _LANDMARKERS.items():
    _MAP[f"{_prefix}ErrRate"] = f"landmark_{_learner}_accuracy"
    _MAP[f"{_prefix}Kappa"] = f"landmark_{_learner}_kappa"

#: OpenML quality name -> metarec metafeature name (read-only).
OPENML_QUALITY_MAP: Mapping[str, str] = MappingProxyType(_MAP)

_NON_NEGATIVE = {
    "ClassEntropy",
    "EquivalentNumberOfAtts",
    "MeanNoiseToSignalRatio",
    *(k for k in _MAP if k.endswith(("AttributeEntropy", "MutualInformation"))),
}


def _one_minus(value: float, _q: Mapping[str, float]) -> float:
    return 1.0 - value


def _minus_target(value: float, _q: Mapping[str, float]) -> float:
    return value - 1.0


def _minus_target_if_classification(value: float, q: Mapping[str, float]) -> float:
    n_classes = q.get("NumberOfClasses")
    if n_classes is not None and n_classes > 0:
        return value - 1.0
    return value


#: OpenML quality name -> (description, function(value, all_qualities) -> metarec value).
#: Qualities absent from this table are copied unchanged.
TRANSFORMS: Mapping[str, tuple[str, Callable[[float, Mapping[str, float]], float]]] = (
    MappingProxyType(
        {
            "NumberOfFeatures": ("NumberOfFeatures - 1 (OpenML counts the target)", _minus_target),
            "NumberOfSymbolicFeatures": (
                "NumberOfSymbolicFeatures - 1 when NumberOfClasses > 0 (a nominal target is "
                "counted)",
                _minus_target_if_classification,
            ),
            **{name: ("1 - error rate", _one_minus) for name in _MAP if name.endswith("ErrRate")},
        }
    )
)


def _finite(value: object) -> float | None:
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def translate_openml_qualities(
    qualities: Mapping[str, float], *, keep_unknown: bool = False
) -> dict[str, float]:
    """Translate a mapping of OpenML data qualities into metarec metafeature names.

    Parameters
    ----------
    qualities : mapping of str to float
        OpenML quality name -> value, as returned by ``openml.datasets.get_dataset(...).qualities``.
        ``None``, NaN, infinite and non-numeric values are ignored.
    keep_unknown : bool, default=False
        Keep qualities that have no metarec counterpart under ``"openml_" + name`` instead of
        dropping them.

    Returns
    -------
    dict of str to float
        Metarec name -> value; every value is finite.

    Notes
    -----
    The renames are :data:`OPENML_QUALITY_MAP`, the value transforms :data:`TRANSFORMS`;
    the module docstring lists the derived values (``class_imbalance_ratio``, ``acir`` for
    two classes, ``normalized_class_entropy``, ``dimensionality``, ``log_n_*``,
    ``pct_missing_values``) and why negative entropy-like values are dropped.

    References
    ----------
    .. [1] OpenML data qualities, https://www.openml.org/search?type=measure&measure_type=data_quality

    Examples
    --------
    >>> translate_openml_qualities({"NumberOfFeatures": 5, "kNN1NErrRate": 0.04})
    {'n_features': 4.0, 'landmark_1nn_accuracy': 0.96}
    """
    clean: dict[str, float] = {}
    for name, value in qualities.items():
        number = _finite(value)
        if number is None:
            continue
        if name in _NON_NEGATIVE and number < 0:
            continue  # OpenML's "could not compute" sentinel
        clean[str(name)] = number

    out: dict[str, float] = {}
    for name, value in clean.items():
        target = _MAP.get(name)
        if target is None:
            if keep_unknown:
                out["openml_" + name] = value
            continue
        transform = TRANSFORMS.get(name)
        out[target] = transform[1](value, clean) if transform else value
    _derive(out)
    return out


def _derive(out: dict[str, float]) -> None:
    """Add the values metarec defines that OpenML publishes only indirectly."""
    n = out.get("n_instances")
    d = out.get("n_features")
    if n is not None and d is not None and n > 0:
        out["dimensionality"] = d / n
    elif "dimensionality" in out:
        # OpenML's ratio counts the target; without both sizes it cannot be corrected.
        del out["dimensionality"]
    if n is not None and n > 0:
        out["log_n_instances"] = math.log(n)
    if d is not None and d > 0:
        out["log_n_features"] = math.log(d)
    n_missing = out.get("n_missing_values")
    if n_missing is not None and n is not None and d is not None and n > 0 and d > 0:
        out["pct_missing_values"] = min(100.0, 100.0 * n_missing / (n * d))
    majority = out.get("majority_class_size")
    minority = out.get("minority_class_size")
    k = out.get("n_classes")
    if majority is not None and minority is not None and minority > 0:
        out["class_imbalance_ratio"] = majority / minority
        if k == 2:
            out["acir"] = minority / majority
    entropy = out.get("class_entropy")
    if entropy is not None and k is not None and k >= 2:
        out["normalized_class_entropy"] = entropy / math.log2(k)


def openml_named_columns(columns) -> list[str]:
    """Return the columns of a wide metafeature table named as OpenML names a quality.

    Parameters
    ----------
    columns : iterable of str
        The table's columns.

    Returns
    -------
    list of str
        Those whose name is an OpenML quality's that metarec names otherwise.
    """
    return [c for c in columns if c in OPENML_QUALITY_MAP and OPENML_QUALITY_MAP[c] != c]


def translate_openml_columns(frame, openml_columns):
    """Replace the OpenML-named columns of ``frame`` by metarec's names.

    Each row (one dataset) goes through :func:`translate_openml_qualities`; where ``frame``
    also has a metarec-named column, its own values win and the translation fills its gaps.

    Parameters
    ----------
    frame : DataFrame
        A wide metafeature table, one row per dataset.
    openml_columns : list of str
        Its OpenML-named columns (:func:`openml_named_columns`).

    Returns
    -------
    DataFrame
        ``frame`` with metarec's names (``frame`` itself when there is nothing to translate).
    """
    import pandas as pd

    if not openml_columns:
        return frame
    qualities = frame[openml_columns].to_dict(orient="records")
    translated = pd.DataFrame(
        [
            translate_openml_qualities({k: v for k, v in row.items() if not pd.isna(v)})
            for row in qualities
        ],
        index=frame.index,
    )
    rest = frame.drop(columns=openml_columns)
    extra = [c for c in translated.columns if c not in rest.columns]
    merged = pd.concat([rest, translated[extra]], axis=1)
    for column in translated.columns:
        if column in rest.columns:
            merged[column] = rest[column].where(rest[column].notna(), translated[column])
    return merged
