"""The learned ranker's first answer and its margin over the single best, by hand.

The answer is the best predicted accuracy, discounted beyond ``answer_patience`` seconds by
the ``answer_n``-th root of the time (``_answer``); with ``answer_margin = m`` the single best
algorithm comes first unless the answer's expected accuracy is above the single best's by
more than ``m`` times the answer's interval half-width (``_fallback``).
"""

from __future__ import annotations

import numpy as np

from metarec.recommender import LearnedRanker, Recommender
from metarec.recommender._learned import _answer, _fallback, predict
from metarec.recommender._matrix import single_best_order
from tests.recommender._fakes import random_kb


class _Fitted:
    """The fitted state ``_fallback`` and ``_answer`` read."""

    answer_n = 2.0
    answer_patience = 1.0

    def __init__(self, *, margin=0.5, accuracy=None, width=(0.25, 0.25, 0.25), present=None):
        self.answer_margin = margin
        # the single best: column 0 (mean .75 against .65 and .7)
        self.accuracy_ = np.array(
            [[0.9, 0.5, 0.7], [0.6, 0.8, 0.7]] if accuracy is None else accuracy
        )
        self.present_ = np.ones(self.accuracy_.shape, dtype=bool) if present is None else present
        self.accuracy_width_ = np.array(width, dtype=float)

    def _ties(self, j):
        return np.asarray(j)  # ties to the first column


NONE = np.zeros(2, dtype=bool)  # no dataset excluded
EVERY = np.ones(3, dtype=bool)  # every algorithm a candidate


def test_the_answer_stands_only_beyond_the_margin_times_its_half_width():
    """Single best 0 expected at .5; the answer 1 must beat it by more than 0.5 x 0.25."""
    rec = _Fitted(margin=0.5, width=(0.25, 0.25, 0.25))
    at = np.array([0.5, 0.625, 0.0])  # an advantage of exactly 0.125: not more
    assert _fallback(rec, 1, at, NONE, EVERY) == 0
    beyond = np.array([0.5, np.nextafter(0.625, 1.0), 0.0])
    assert _fallback(rec, 1, beyond, NONE, EVERY) is None
    # the half-width is the answer's own: 0.125 stands with a half-width of 0.2 (0.1 needed)
    narrow = _Fitted(margin=0.5, width=(0.25, 0.2, 0.25))
    assert _fallback(narrow, 1, at, NONE, EVERY) is None
    # a margin of 1 needs 0.25; 0.3 stands, 0.2 does not
    wide = _Fitted(margin=1.0)
    assert _fallback(wide, 1, np.array([0.5, 0.8, 0.0]), NONE, EVERY) is None
    assert _fallback(wide, 1, np.array([0.5, 0.7, 0.0]), NONE, EVERY) == 0
    # margin 0: any advantage stands, none does not; a half-width unknown counts as 0
    zero = _Fitted(margin=0.0)
    assert _fallback(zero, 1, np.array([0.5, 0.5001, 0.0]), NONE, EVERY) is None
    assert _fallback(zero, 1, np.array([0.5, 0.5, 0.0]), NONE, EVERY) == 0
    unknown = _Fitted(margin=0.5, width=(0.25, np.nan, 0.25))
    assert _fallback(unknown, 1, np.array([0.5, 0.5001, 0.0]), NONE, EVERY) is None
    assert _fallback(unknown, 1, np.array([0.5, 0.5, 0.0]), NONE, EVERY) == 0


def test_no_fallback_without_a_margin_a_single_best_or_a_rival():
    at = np.array([0.5, 0.625, 0.0])
    assert _fallback(_Fitted(margin=None), 1, at, NONE, EVERY) is None
    assert _fallback(_Fitted(), 0, at, NONE, EVERY) is None  # the answer is the single best
    not_kept = np.array([False, True, True])  # the single best is not a candidate
    assert _fallback(_Fitted(), 1, at, NONE, not_kept) is None
    nothing = _Fitted(present=np.zeros((2, 3), dtype=bool))
    assert _fallback(nothing, 1, at, NONE, EVERY) is None
    # the single best of the datasets kept: column 0, and without dataset 0 column 1 (.8)
    expected = np.array([0.6, 0.7, 0.7])  # the answer 2 is 0.1 above column 0, 0 above 1
    assert _fallback(_Fitted(), 2, expected, NONE, EVERY) == 0
    assert _fallback(_Fitted(), 2, expected, np.array([True, False]), EVERY) == 1
    assert _fallback(_Fitted(), 2, expected, np.array([True, True]), EVERY) is None


def test_the_first_answer_is_accuracy_within_patience_then_discounted_by_the_nth_root():
    rec = _Fitted()  # answer_n = 2, patience 1 s
    acc = np.array([0.80, 0.82, 0.70])
    # both within a second: the more accurate; exactly a second is still within patience
    assert _answer(rec, acc, np.array([0.5, 1.0, 0.1]), EVERY) == 1
    # 1.2 s: log(.82) - log(1.2) / 2 = -0.290 < log(.80) = -0.223
    assert _answer(rec, acc, np.array([0.5, 1.2, 0.1]), EVERY) == 0
    # 1.04 s: log(.82) - log(1.04) / 2 = -0.218 > -0.223
    assert _answer(rec, acc, np.array([0.5, 1.04, 0.1]), EVERY) == 1
    # with patience 0.25 s: .80 in 0.2 s against .82 in 0.9 s (-0.839): the quick one
    patient = _Fitted()
    patient.answer_patience = 0.25
    assert _answer(patient, acc, np.array([0.2, 0.9, 5.0]), EVERY) == 0
    # an unknown time is neither discounted nor favoured; a tie goes to the first column
    assert _answer(rec, acc, np.array([0.5, np.nan, 0.1]), EVERY) == 1
    assert _answer(rec, np.array([0.82, 0.80, 0.70]), np.array([0.5, np.nan, 0.1]), EVERY) == 0
    assert _answer(rec, np.array([0.8, 0.8, 0.7]), np.ones(3), EVERY) == 0
    # only candidates; an unknown accuracy is no candidate unless none is known
    assert _answer(rec, acc, np.ones(3), np.array([True, False, True])) == 0
    assert _answer(rec, np.array([np.nan, 0.5, 0.6]), np.ones(3), EVERY) == 2
    assert _answer(rec, np.full(3, np.nan), np.ones(3), np.array([False, True, True])) == 1


def test_the_margin_decides_the_first_row_of_a_real_ranking_at_its_boundary():
    """For each left-out dataset whose answer is not the single best: a margin just below
    the answer's advantage over its half-width keeps the answer first, just above puts the
    single best first."""
    kb = random_kb(seed=7)
    base = dict(n_estimators=10, k=5, time_floor=1.0, answer_n=4.0, random_state=0)
    plain = Recommender(LearnedRanker(**base)).fit(kb)
    ranker = plain.ranker_
    seen = 0
    for i, name in enumerate(plain.datasets_):
        query = dict(ranker.raw_metafeatures_.iloc[i])
        excluded = np.arange(plain.datasets_.size) == i
        sb = int(single_best_order(ranker.accuracy_[~excluded], ranker.present_[~excluded])[0])
        first = plain.recommend(metafeatures=query, exclude=[name]).algorithms[0]
        answer = list(plain.algorithms_).index(first)
        pred = predict(ranker, query, excluded)
        expected = np.clip(pred["best"][0] - pred["gap"][0], 0.0, 1.0)
        advantage = expected[answer] - expected[sb]
        if answer == sb or advantage <= 0:
            continue
        seen += 1
        boundary = advantage / ranker.accuracy_width_[answer]
        for margin, leads in (
            (boundary * 0.99, first),
            (boundary * 1.01, str(plain.algorithms_[sb])),
        ):
            rec = Recommender(LearnedRanker(**base, answer_margin=margin)).fit(kb)
            assert rec.recommend(metafeatures=query, exclude=[name]).algorithms[0] == leads
        if seen == 2:
            break
    assert seen == 2
