"""The width a dataset's fit times scale with: its columns as the pipelines encode them."""

from __future__ import annotations

import numpy as np

from metarec.recommender import encoded_width
from metarec.recommender._runtime import MAX_ENCODED


def test_categorical_columns_count_as_their_one_hot_columns_up_to_the_encoders_cap():
    width = encoded_width(
        [5, 5, 5, 5, 4],  # n_features
        [3, 3, 3, 5, np.nan],  # numeric
        [2, 2, 2, 0, np.nan],  # categorical
        [120, 4, 0.5, np.nan, np.nan],  # mean cardinality
    )
    # 3 + 2 x 50 (capped) | 3 + 2 x 4 | at least one column each | numeric only | unknown kinds
    assert width.tolist() == [3 + 2 * MAX_ENCODED, 11.0, 5.0, 5.0, 4.0]
    assert MAX_ENCODED == 50


def test_the_cap_is_the_encoders():
    from metarec.algorithms import CategoricalEncoder

    assert CategoricalEncoder().max_categories == MAX_ENCODED
