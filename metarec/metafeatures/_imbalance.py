"""Class-imbalance metafeatures: class sizes, CI, ACIR, class entropy.

All of them describe the class distribution, so they are undefined (NaN with a reason) for
regression targets.  Entropies are in bits (log base 2), as OpenML's ``ClassEntropy``.

References
----------
.. [1] arXiv:2412.07244, "Developing a Dataset-Adaptive, Normalized Metric for Machine Learning
       Model Assessment: Integrating Size, Complexity, and Class Imbalance": the class
       imbalance ratio CI (binary) and the average class imbalance ratio ACIR (multiclass)
       of its imbalance adjustment ``h``.
.. [2] Rivolli, A. et al. (2022). Meta-features for meta-learning. Knowledge-Based Systems 240.
"""

from __future__ import annotations

import math

import numpy as np

from metarec.metafeatures._base import Collector, PreparedData, metafeature

GROUP = "imbalance"

_CLASS_SIZE_NAMES = (
    "majority_class_size",
    "minority_class_size",
    "majority_class_pct",
    "minority_class_pct",
)
_REGRESSION = "regression target: there are no classes"


def entropy_bits(counts: np.ndarray) -> float:
    """Shannon entropy in bits of a vector of counts (zero counts ignored)."""
    counts = np.asarray(counts, dtype="float64")
    counts = counts[counts > 0]
    total = counts.sum()
    if total <= 0:
        return 0.0
    p = counts / total
    return float(max(0.0, -np.sum(p * np.log2(p))))


@metafeature(GROUP, *_CLASS_SIZE_NAMES)
def class_sizes(data: PreparedData, out: Collector) -> None:
    """Sizes of the largest and smallest classes, and their percentages (0-100) of ``N``.

    References
    ----------
    .. [1] OpenML qualities ``MajorityClassSize``, ``MinorityClassSize``,
           ``MajorityClassPercentage``, ``MinorityClassPercentage``.
    .. [2] Rivolli et al. (2022), "freq_class".
    """
    if not data.is_classification:
        out.nan_all(_CLASS_SIZE_NAMES, _REGRESSION)
        return
    counts = data.class_counts
    out.set("majority_class_size", counts.max())
    out.set("minority_class_size", counts.min())
    out.set("majority_class_pct", 100.0 * counts.max() / data.n)
    out.set("minority_class_pct", 100.0 * counts.min() / data.n)


@metafeature(GROUP, "class_imbalance_ratio", "acir")
def imbalance_ratios(data: PreparedData, out: Collector) -> None:
    """Class imbalance ratio CI and average class imbalance ratio ACIR.

    ``CI = n_majority / n_minority`` (>= 1; 1 is balanced), as in the normalized-metric
    paper's binary adjustment ``h(CI) = 1 + log(CI)``.

    ``ACIR = mean over the non-majority classes c of n_c / n_majority`` (in (0, 1]; 1 is
    balanced).  The paper leaves ACIR's formula open; this definition makes ``1 / ACIR``
    equal CI for two classes, so the multiclass adjustment ``1 + log(1 / ACIR)`` reduces to
    the binary one.  When several classes tie for the majority, one of them is the majority
    and the others count as non-majority classes with ratio 1.  With a single class both
    ratios are 1 (perfectly "balanced"), which keeps the value finite.

    References
    ----------
    .. [1] arXiv:2412.07244 (normalized metric): CI and ACIR.
    .. [2] Rivolli et al. (2022), class imbalance measures.
    """
    if not data.is_classification:
        out.nan_all(("class_imbalance_ratio", "acir"), _REGRESSION)
        return
    counts = np.sort(data.class_counts.astype("float64"))[::-1]
    majority = counts[0]
    out.set("class_imbalance_ratio", majority / counts[-1])
    out.set("acir", float(np.mean(counts[1:] / majority)) if counts.size > 1 else 1.0)


@metafeature(GROUP, "class_entropy", "normalized_class_entropy")
def class_entropy(data: PreparedData, out: Collector) -> None:
    """Entropy of the class distribution in bits, and the same divided by ``log2(k)``.

    The normalized value is 1 for balanced classes and tends to 0 as one class dominates;
    with a single class it is undefined (NaN: ``log2(1) = 0``).

    References
    ----------
    .. [1] Michie, Spiegelhalter, Taylor (1994), StatLog, class entropy H(C).
    .. [2] OpenML quality ``ClassEntropy``; Rivolli et al. (2022), "class_ent".
    """
    if not data.is_classification:
        out.nan_all(("class_entropy", "normalized_class_entropy"), _REGRESSION)
        return
    entropy = entropy_bits(data.class_counts)
    out.set("class_entropy", entropy)
    k = data.n_classes
    if k < 2:
        out.nan("normalized_class_entropy", "a single class: log2(1) = 0")
    else:
        out.set("normalized_class_entropy", min(1.0, entropy / math.log2(k)))
