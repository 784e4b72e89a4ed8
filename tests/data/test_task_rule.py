"""The whole-number target rule at each of its thresholds, both sides, by hand.

Whole numbers are classes only when at most 30 distinct values, with more than 10 of them a
median of at least 5 rows per value, and a range (largest - smallest + 1) at most twice
their number; two values are always classes (``metarec.data._types.whole_number_quantity``).
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest

from metarec.data import infer_task, load_dataset
from metarec.exceptions import MetarecWarning


def _target(rows_per_value: dict[int, int]) -> pd.Series:
    """Each value repeated its number of rows, shuffled (the order must not matter)."""
    values = np.repeat(list(rows_per_value), list(rows_per_value.values()))
    return pd.Series(np.random.default_rng(0).permutation(values), name="y")


def _why(y: pd.Series) -> str | None:
    """What the loader says when it takes the whole numbers for a quantity (None: classes)."""
    frame = pd.DataFrame({"x": np.arange(len(y), dtype=float), "y": y})
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        task = load_dataset(frame, target="y").task
    notes = [str(w.message) for w in said if issubclass(w.category, MetarecWarning)]
    if task != "regression":
        assert notes == []
        return None
    (note,) = notes
    return re.search(r"taken as a quantity \((.*)\)", note, re.S).group(1)


#: name -> (rows of each value, the task, what the loader says: a piece of its reason)
CASES = {
    # two values are classes whatever their range; a third far away is a quantity
    "two values far apart": ({0: 1, 1000: 1}, "binary", None),
    "three values far apart": ({0: 1, 1: 1, 1000: 1}, "regression", "3 values from 0 to 1000"),
    # at most 30 distinct values (5 rows each, consecutive)
    "30 values": ({v: 5 for v in range(30)}, "multiclass", None),
    "31 values": ({v: 5 for v in range(31)}, "regression", "31 distinct values (classes are at most 30)"),
    # up to 10 values are classes on a row each; 11 values need a median of 5 rows
    "10 values of a row each": ({v: 1 for v in range(10)}, "multiclass", None),
    "11 values of a row each": (
        {v: 1 for v in range(11)}, "regression",
        "a median of 1 row(s) per value among 11 values (classes have at least 5)",
    ),
    "11 values of 5 rows each": ({v: 5 for v in range(11)}, "multiclass", None),
    "12 values, a median of 4.5 rows": (
        {v: 4 if v < 6 else 5 for v in range(12)}, "regression",
        "a median of 4.5 row(s) per value among 12 values",
    ),
    # a range at most twice the number of values: 30 values from 0 to 59 (range 60) are
    # codes, from 0 to 60 (range 61) a quantity
    "30 values, range 60": ({**{v: 5 for v in range(0, 57, 2)}, 59: 5}, "multiclass", None),
    "30 values, range 61": (
        {**{v: 5 for v in range(0, 57, 2)}, 60: 5}, "regression", "30 values from 0 to 60",
    ),
    # five values: range 10 codes, range 11 (2.2 times their number) a quantity
    "5 values, range 10": ({0: 3, 1: 3, 2: 3, 3: 3, 9: 3}, "multiclass", None),
    "5 values, range 11": (
        {0: 3, 1: 3, 2: 3, 3: 3, 10: 3}, "regression",
        "5 values from 0 to 10, a range 2.2 times wider than their number",
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", list(CASES))
def test_each_threshold_of_the_whole_number_rule_on_both_sides(case):
    rows, task, why = CASES[case]
    y = _target(rows)
    assert infer_task(y) == task
    said = _why(y)
    if why is None:
        assert said is None
    else:
        assert why in said, said


def test_missing_and_non_integer_values_and_text():
    assert infer_task(pd.Series([0.0, 1.0, np.nan, 1.0])) == "binary"  # missing ignored
    assert infer_task(pd.Series([0.0, 1.0, 2.0, 2.0])) == "multiclass"
    assert infer_task(pd.Series([0.0, 1.0, 2.5])) == "regression"  # one fraction: a quantity
    assert infer_task(pd.Series([np.nan, np.nan])) == "binary"  # nothing to go on
    assert infer_task(pd.Series(["b", "a", "b"])) == "binary"
    assert infer_task(pd.Series(["b", "a", "c"])) == "multiclass"
    # text labels are classes however many: 40 labels of one row each
    assert infer_task(pd.Series([f"w{i}" for i in range(40)])) == "multiclass"
    assert infer_task(pd.Series([True, False, True])) == "binary"
