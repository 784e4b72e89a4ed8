"""Information-theoretic metafeatures: attribute entropies, mutual information, ENA.

Entropies are in bits.  Numeric attributes are discretised into ``B = floor(1 + log2(N))``
equal-width bins between their minimum and maximum (Sturges' rule, the discretisation pymfe
uses for its info-theory group); categorical attributes use their own values.  Missing
values are left out attribute by attribute: the entropy of an attribute and its mutual
information with the class are computed on the rows where that attribute is present.

All counting is vectorised: one ``bincount`` over every numeric attribute at once, one per
categorical attribute (``np.unique`` when the table of value x class would be larger than the
data), so memory and time stay linear in the number of values.

References
----------
.. [1] Michie, D., Spiegelhalter, D. J., Taylor, C. C. (1994). Machine Learning, Neural and
       Statistical Classification (StatLog), ch. 7: attribute entropy, mutual information,
       equivalent number of attributes, noise-signal ratio.
.. [2] Rivolli, A. et al. (2022). Meta-features for meta-learning. Knowledge-Based Systems 240.
.. [3] OpenML qualities ``MeanAttributeEntropy``, ``MeanMutualInformation``,
       ``EquivalentNumberOfAtts``, ``MeanNoiseToSignalRatio``.
"""

from __future__ import annotations

import math

import numpy as np

from metarec.metafeatures._base import (
    Collector,
    PreparedData,
    metafeature,
    summarize,
    summary_names,
)
from metarec.metafeatures._imbalance import entropy_bits

GROUP = "info"

#: mutual information below this (bits) is treated as zero when dividing by it.
MI_EPSILON = 1e-12


def n_bins(n: int) -> int:
    """Sturges' number of equal-width bins for ``n`` values."""
    return max(1, int(math.floor(1 + math.log2(max(n, 1)))))


def discretize(x: np.ndarray, bins: int) -> np.ndarray:
    """Equal-width bin index (0..bins-1) of every value, column by column; -1 where missing."""
    if x.shape[1] == 0:
        return np.zeros(x.shape, dtype=np.int64)
    missing = np.isnan(x)
    low = np.min(np.where(missing, np.inf, x), axis=0)
    high = np.max(np.where(missing, -np.inf, x), axis=0)
    width = (high - low) / bins
    ok = np.isfinite(width) & (width > 0)
    safe_width = np.where(ok, width, 1.0)
    safe_low = np.where(np.isfinite(low), low, 0.0)
    with np.errstate(invalid="ignore"):
        index = np.floor((x - safe_low) / safe_width)
    index = np.where(ok, index, 0.0)
    index = np.clip(np.nan_to_num(index, nan=0.0), 0, bins - 1).astype(np.int64)
    index[missing] = -1
    return index


def _entropy_rows(counts: np.ndarray) -> np.ndarray:
    """Entropy in bits of each row of a 2-D count table (rows with no counts -> NaN)."""
    counts = counts.astype("float64")
    totals = counts.sum(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = counts / totals
        terms = np.where(p > 0, p * np.log2(np.where(p > 0, p, 1.0)), 0.0)
    entropy = -terms.sum(axis=1)
    entropy[totals[:, 0] == 0] = np.nan
    return np.maximum(entropy, 0.0, where=~np.isnan(entropy), out=entropy)


def _numeric_tables(data: PreparedData):
    """Per-numeric-attribute (entropy, MI with class) arrays (MI None without classes)."""
    x, _ = data.scaled()  # bins are scale-free; scaling keeps max - min finite
    p = x.shape[1]
    if p == 0:
        return np.zeros(0), (np.zeros(0) if data.is_classification else None)
    bins = n_bins(data.n)
    index = discretize(x, bins)
    valid = index >= 0
    cols = np.broadcast_to(np.arange(p), index.shape)
    flat = (cols * bins + index)[valid]
    counts = np.bincount(flat, minlength=p * bins).reshape(p, bins)
    entropy = _entropy_rows(counts)
    if not data.is_classification:
        return entropy, None
    k = data.n_classes
    y = np.broadcast_to(data.y_codes[:, None], index.shape)[valid]
    joint = np.bincount(flat * k + y, minlength=p * bins * k).reshape(p, bins * k)
    class_given_present = joint.reshape(p, bins, k).sum(axis=1)
    mi = entropy + _entropy_rows(class_given_present) - _entropy_rows(joint)
    return entropy, np.maximum(mi, 0.0, where=~np.isnan(mi), out=mi)


def _categorical_tables(data: PreparedData):
    entropies, mis = [], []
    k = max(data.n_classes, 1)
    for codes, cardinality in zip(data.codes, data.cardinalities, strict=True):
        present = codes >= 0
        if not present.any():
            entropies.append(np.nan)
            mis.append(np.nan)
            continue
        c = codes[present]
        h_x = entropy_bits(np.bincount(c))
        entropies.append(h_x)
        if not data.is_classification:
            continue
        y = data.y_codes[present]
        combined = c * k + y
        if cardinality * k <= 4 * c.size:
            joint = np.bincount(combined)
        else:
            joint = np.unique(combined, return_counts=True)[1]
        mis.append(max(0.0, h_x + entropy_bits(np.bincount(y)) - entropy_bits(joint)))
    return np.asarray(entropies, dtype="float64"), (
        np.asarray(mis, dtype="float64") if data.is_classification else None
    )


def entropies_and_mutual_information(data: PreparedData):
    """``(attribute entropies, mutual informations with the class or None)``, cached."""
    if "entropy_mi" not in data.cache:
        h_num, mi_num = _numeric_tables(data)
        h_cat, mi_cat = _categorical_tables(data)
        entropy = np.concatenate([h_num, h_cat])
        mi = None if mi_num is None else np.concatenate([mi_num, mi_cat])
        data.cache["entropy_mi"] = (entropy, mi)
    return data.cache["entropy_mi"]


@metafeature(GROUP, *summary_names("attr_entropy"))
def attribute_entropy(data: PreparedData, out: Collector) -> None:
    """Entropy (bits) of each attribute, summarised over attributes (mean, sd, min, q1-q3, max).

    Numeric attributes are discretised into Sturges' number of equal-width bins (module
    docstring); an attribute that is entirely missing is left out.

    References
    ----------
    .. [1] Michie et al. (1994), StatLog, H(X).
    .. [2] OpenML ``MeanAttributeEntropy`` etc.; Rivolli et al. (2022), "attr_ent".
    """
    entropy, _ = entropies_and_mutual_information(data)
    summarize(out, "attr_entropy", entropy, "no attribute with a non-missing value")


@metafeature(GROUP, *summary_names("mutual_info"))
def mutual_information(data: PreparedData, out: Collector) -> None:
    """Mutual information (bits) between each attribute and the class, summarised.

    ``MI(X, C) = H(X) + H(C) - H(X, C)`` on the rows where X is present (numeric X
    discretised as in the module docstring).  Undefined for regression.

    References
    ----------
    .. [1] Michie et al. (1994), StatLog, M(C, X).
    .. [2] OpenML ``MeanMutualInformation`` etc.; Rivolli et al. (2022), "mut_inf".
    """
    _, mi = entropies_and_mutual_information(data)
    if mi is None:
        out.nan_all(summary_names("mutual_info"), "regression target: no class")
        return
    summarize(out, "mutual_info", mi, "no attribute with a non-missing value")


@metafeature(GROUP, "equivalent_n_attributes")
def equivalent_number_of_attributes(data: PreparedData, out: Collector) -> None:
    """Equivalent number of attributes ``ENA = H(C) / mean MI(X, C)``.

    How many attributes of average informativeness would be needed to explain the class.
    Undefined (NaN) for regression, without attributes, or when the mean mutual information
    is zero (OpenML writes -1 in that case).

    References
    ----------
    .. [1] Michie et al. (1994), StatLog, "EN.attr".
    .. [2] OpenML ``EquivalentNumberOfAtts``; Rivolli et al. (2022), "eq_num_attr".
    """
    _, mi = entropies_and_mutual_information(data)
    if mi is None:
        out.nan("equivalent_n_attributes", "regression target: no class")
        return
    finite = mi[np.isfinite(mi)]
    if finite.size == 0:
        out.nan("equivalent_n_attributes", "no attribute with a non-missing value")
        return
    mean_mi = finite.mean()
    if mean_mi < MI_EPSILON:
        out.nan("equivalent_n_attributes", "mean mutual information with the class is 0")
        return
    out.set("equivalent_n_attributes", entropy_bits(data.class_counts) / mean_mi)
