"""Text columns that hold numbers: decided exactly, without parsing a million strings."""

from __future__ import annotations

import numpy as np
import pandas as pd

from metarec.data._types import PARSE_SAMPLE, _column_bytes, coerce_numeric_strings


def test_a_long_column_of_numbers_as_text_is_numeric():
    column = pd.Series([str(i / 4) for i in range(5 * PARSE_SAMPLE)], dtype=object)
    out = coerce_numeric_strings(pd.DataFrame({"x": column}))
    assert out["x"].dtype == np.float64 and out["x"].iloc[-1] == (5 * PARSE_SAMPLE - 1) / 4


def test_one_word_among_numbers_keeps_a_long_column_text_wherever_it_is():
    """The sample decides only 'not numeric'; a word the sample missed still counts."""
    n = 5 * PARSE_SAMPLE
    for position in (0, 1, n // 2 + 3, n - 2):
        values = [str(i) for i in range(n)]
        values[position] = "n/a"
        frame = pd.DataFrame({"x": pd.Series(values, dtype=object)})
        out = coerce_numeric_strings(frame)
        assert out["x"].dtype == object and out["x"].iloc[position] == "n/a", position


def test_the_fingerprint_bytes_of_text_are_each_values_text_and_a_mark_for_missing():
    column = pd.Series(["a", None, 3, np.nan, "b"], dtype=object)
    assert _column_bytes(column) == b"s" + "\x1f".join(["a", "\x00", "3", "\x00", "b"]).encode()
    numbers = pd.Series(["1", "2.5", None] * PARSE_SAMPLE, dtype=object)
    expected = np.array([1.0, 2.5, np.nan] * PARSE_SAMPLE)
    assert _column_bytes(numbers) == b"f" + expected.tobytes()
