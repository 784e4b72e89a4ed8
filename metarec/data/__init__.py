"""Loading datasets: one loader for files, DataFrames, OpenML and scikit-learn datasets.

:func:`load_dataset` reads CSV, TSV, ARFF (each optionally gzip-compressed), Parquet, a
DataFrame, ``"openml:<id>"`` or ``"sklearn:<name>"``, chooses the target column, detects the
task and the column kinds, and returns a frozen :class:`Dataset`.
"""

from metarec._names import sample_base
from metarec.data._dataset import (
    Dataset,
    continuous_reason,
    load_dataset,
    prepare_frame,
    require_classification,
)
from metarec.data._readers import SKLEARN_DATASETS
from metarec.data._types import (
    coerce_numeric_strings,
    fingerprint,
    infer_task,
    is_numeric_column,
    is_numeric_dtype,
    plain_frame,
    task_family,
)

__all__ = [
    "Dataset",
    "load_dataset",
    "prepare_frame",
    "require_classification",
    "infer_task",
    "task_family",
    "is_numeric_column",
    "is_numeric_dtype",
    "coerce_numeric_strings",
    "continuous_reason",
    "plain_frame",
    "fingerprint",
    "sample_base",
    "SKLEARN_DATASETS",
]
