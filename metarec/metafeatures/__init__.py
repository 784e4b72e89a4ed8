"""Metafeatures: characterise a dataset by numbers the recommender can compare.

:func:`extract` computes the groups of :data:`GROUPS` (general, imbalance, snr, statistical,
info, landmarkers) and returns a :class:`MetafeatureSet` (name -> float, per-group timings,
a reason for every NaN).  :data:`OPENML_QUALITY_MAP` and :func:`translate_openml_qualities`
translate OpenML's data-quality names into metarec's names.
"""

from metarec.metafeatures._extract import (
    GROUPS,
    MetafeatureSet,
    describe,
    extract,
    metafeature_group,
    metafeature_names,
)
from metarec.metafeatures._openml_names import (
    OPENML_QUALITY_MAP,
    TRANSFORMS,
    openml_named_columns,
    translate_openml_columns,
    translate_openml_qualities,
)

__all__ = [
    "GROUPS",
    "MetafeatureSet",
    "extract",
    "metafeature_names",
    "metafeature_group",
    "describe",
    "OPENML_QUALITY_MAP",
    "TRANSFORMS",
    "translate_openml_qualities",
    "translate_openml_columns",
    "openml_named_columns",
]
