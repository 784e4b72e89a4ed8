"""The loss-time curve of a search."""

from __future__ import annotations

import numpy as np

from metarec.automl.plots import labelled


def test_only_the_points_that_raised_the_best_and_the_answer_are_named():
    algorithms = ["a", "b", "c", "d", "e", "f"]
    scores = [0.70, 0.65, 0.80, 0.80, 0.78, 0.85]
    # a (first), c (0.80 > 0.70), f (0.85 > 0.80); d only ties; e is a member of the answer
    got = labelled(algorithms, scores, members=("f", "e"))
    np.testing.assert_array_equal(got, [True, False, True, False, True, True])
    np.testing.assert_array_equal(labelled(["x"], [0.5]), [True])
