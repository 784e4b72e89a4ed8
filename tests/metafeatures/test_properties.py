"""Property-based robustness tests: extraction never crashes on awkward frames, every value is
finite or NaN with a recorded reason, and programming errors are not turned into NaN."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from metarec.metafeatures import _base, extract, metafeature_names

SETTINGS = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

FLOATS = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True, width=64),
    st.sampled_from([0.0, 1.0, -1.0, np.nan, np.inf, -np.inf, 1e300, -1e-300]),
)


@st.composite
def awkward_frames(draw):
    n = draw(st.integers(min_value=1, max_value=40))
    n_columns = draw(st.integers(min_value=0, max_value=6))
    columns = {}
    names = []
    for j in range(n_columns):
        kind = draw(st.sampled_from(["float", "int", "const", "text", "huge_cat", "mixed", "bool"]))
        if kind == "float":
            values = draw(st.lists(FLOATS, min_size=n, max_size=n))
        elif kind == "int":
            values = draw(st.lists(st.integers(-5, 5), min_size=n, max_size=n))
        elif kind == "const":
            values = [draw(st.sampled_from([0.0, 3.5, np.nan]))] * n
        elif kind == "text":
            values = draw(st.lists(st.sampled_from(["a", "b", "c", None]), min_size=n, max_size=n))
        elif kind == "huge_cat":
            values = [f"id{i}" for i in range(n)]  # one level per row
        elif kind == "bool":
            values = draw(st.lists(st.booleans(), min_size=n, max_size=n))
        else:
            values = draw(
                st.lists(
                    st.one_of(st.integers(0, 3), st.sampled_from(["x", None])),
                    min_size=n,
                    max_size=n,
                )
            )
        # duplicated column names on purpose
        name = draw(st.sampled_from(["f", "g", f"c{j}"]))
        names.append(name)
        columns[j] = pd.Series(
            values, dtype="object" if kind in ("text", "mixed", "huge_cat") else None
        )
    frame = pd.DataFrame(columns) if columns else pd.DataFrame(index=range(n))
    frame.columns = names
    target_kind = draw(
        st.sampled_from(["binary", "multi", "one_per_class", "regression", "one_class"])
    )
    if target_kind == "binary":
        y = draw(st.lists(st.sampled_from(["yes", "no", None]), min_size=n, max_size=n))
    elif target_kind == "multi":
        y = draw(st.lists(st.integers(0, 4), min_size=n, max_size=n))
    elif target_kind == "one_per_class":
        y = list(range(n))
    elif target_kind == "one_class":
        y = ["only"] * n
    else:
        y = draw(st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=n, max_size=n))
    if all(v is None for v in y):
        y[0] = "yes"
    return frame, pd.Series(y)


def _check(mf):
    assert list(mf) == metafeature_names()
    for name, value in mf.items():
        assert isinstance(value, float)
        assert math.isfinite(value) or math.isnan(value), name
        if math.isnan(value):
            assert mf.reasons.get(name), f"{name} is NaN without a reason"
        else:
            assert name not in mf.reasons
    assert set(mf.reasons) <= set(mf)


@SETTINGS
@given(awkward_frames(), st.integers(0, 3))
def test_extraction_never_crashes_and_nan_has_reason(case, seed):
    frame, y = case
    mf = extract(frame, y, random_state=seed)
    _check(mf)
    assert mf["n_instances"] == y.notna().sum()
    assert mf["n_features"] == frame.shape[1]


@settings(max_examples=25, deadline=None)
@given(
    st.integers(min_value=2, max_value=30),
    st.integers(min_value=1, max_value=8),
    st.integers(min_value=2, max_value=4),
    st.integers(0, 10_000),
)
def test_numeric_random_data_ranges(n, d, k, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = rng.integers(0, k, size=n)
    mf = extract(X, y, random_state=seed)
    _check(mf)
    assert 0 < mf["acir"] <= 1
    value = mf["normalized_class_entropy"]
    assert 0 < value <= 1 or (math.isnan(value) and mf["n_classes"] == 1)
    assert mf["class_imbalance_ratio"] >= 1
    assert math.isnan(mf["snr"]) or mf["snr"] >= 0
    for name in ("canonical_correlation", "mean_abs_correlation"):
        assert math.isnan(mf[name]) or 0 <= mf[name] <= 1
    for learner in ("1nn", "decision_stump", "naive_bayes", "lda", "random_node"):
        value = mf[f"landmark_{learner}_accuracy"]
        assert math.isnan(value) or 0 <= value <= 1


def test_programming_errors_are_not_turned_into_nan(monkeypatch):
    def broken(data, out):
        raise ZeroDivisionError("bug")

    monkeypatch.setitem(_base.REGISTRY, "general", [broken, *_base.REGISTRY["general"]])
    with pytest.raises(ZeroDivisionError, match="bug"):
        extract(np.zeros((3, 1)), [0, 1, 0], groups="general")


def test_non_finite_value_without_reason_raises():
    out = _base.Collector()
    with pytest.raises(FloatingPointError, match="'x'"):
        out.set("x", float("inf"))
    with pytest.raises(FloatingPointError):
        out.set("y", float("nan"))
