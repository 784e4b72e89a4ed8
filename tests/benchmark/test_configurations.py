"""The configurations of the main families: their spaces, the seeded design, stable names."""

from __future__ import annotations

import json
import math
from collections import Counter

from metarec.algorithms import default_configurations, default_portfolio
from metarec.algorithms._configurations import (
    SPACES,
    Dimension,
    configuration_base,
    design_configurations,
    load_configurations_document,
)


def test_a_dimension_maps_the_unit_interval_by_hand():
    log = Dimension("C", 0.01, 100.0, log=True)
    assert log.value(0.0) == 0.01 and log.value(0.5) == 1.0  # the geometric middle
    assert log.value(0.75) == float(f"{10.0:.3g}")
    trees = Dimension("n_estimators", 50, 500, log=True, integer=True)
    assert trees.value(0.0) == 50 and trees.value(0.999999) == 500
    assert trees.value(0.5) == round(math.sqrt(50 * 500))  # 158
    linear = Dimension("subsample", 0.5, 1.0)
    assert linear.value(0.25) == 0.625
    choice = Dimension("weights", choices=("uniform", "distance"))
    assert [choice.value(u) for u in (0.0, 0.49, 0.5, 0.999)] == [
        "uniform", "uniform", "distance", "distance",
    ]  # fmt: skip


def _unit(dimension: Dimension, value: float) -> float:
    """Where ``value`` lies in the dimension's range, from 0 to 1 (on its scale)."""
    if dimension.log:
        low, high, value = map(math.log, (dimension.low, dimension.high, value))
    else:
        low, high = dimension.low, dimension.high
    return (value - low) / (high - low)


def _check_design(entries: list[dict]) -> None:
    """Each family's configurations are a stratified design of its space: the first points
    of a scrambled Sobol sequence have one point in each eighth of every dimension (eight
    points), or at most one (six), and four of each of two choices."""
    defaults = default_portfolio(task="all")
    for base, (dimensions, size) in SPACES.items():
        family = [e for e in entries if configuration_base(e["name"]) == base]
        assert [e["name"] for e in family] == [f"{base}_c{i:02d}" for i in range(1, size + 1)]
        for entry in family:
            assert entry["estimator"] == defaults[base].estimator
            assert entry["task"] == defaults[base].task and entry["scale"] == defaults[base].scale
            for dimension in dimensions:
                value = entry["params"][dimension.name]
                if dimension.choices:
                    assert value in json.loads(json.dumps(list(dimension.choices)))
                else:
                    assert dimension.low <= value <= dimension.high
                    assert isinstance(value, int) == dimension.integer
        for dimension in dimensions:
            values = [e["params"][dimension.name] for e in family]
            if dimension.choices and len(dimension.choices) == 2 and size == 8:
                assert sorted(Counter(map(str, values)).values()) == [4, 4], base
            if dimension.choices or dimension.integer:
                continue
            units = sorted(_unit(dimension, v) for v in values)  # (values to 3 digits)
            eighths = [min(int(u * 8), 7) for u in units]
            if size == 8:
                for k, u in enumerate(units):
                    assert k / 8 - 1e-3 <= u <= (k + 1) / 8 + 1e-3, (base, dimension.name)
            else:
                assert len(set(eighths)) >= size - 1, (base, dimension.name)


def test_the_shipped_file_is_a_seeded_design_of_each_space():
    """The shipped configurations and the design computed here are each a stratified design
    of the spaces, with the same names, estimators and fixed parameters; the values are not
    compared with each other (scipy's scrambled Sobol sequence is its own, and may change
    between its releases).  The design is reproducible: the same seed, the same design."""
    design = json.loads(json.dumps(design_configurations(default_portfolio(task="all"))))
    shipped = load_configurations_document()["algorithms"]
    for entries in (shipped, design):
        _check_design(entries)
    fixed = [{k: v for k, v in e.items() if k != "params"} for e in shipped]
    assert fixed == [{k: v for k, v in e.items() if k != "params"} for e in design]
    for mine, theirs in zip(shipped, design, strict=True):
        assert mine["params"].keys() == theirs["params"].keys()
        base = configuration_base(mine["name"])
        sampled = {d.name for d in SPACES[base][0]}
        assert {k: v for k, v in mine["params"].items() if k not in sampled} == {
            k: v for k, v in theirs["params"].items() if k not in sampled
        }
    again = json.loads(json.dumps(design_configurations(default_portfolio(task="all"))))
    assert again == design
    other = design_configurations(default_portfolio(task="all"), seed=1)
    assert json.loads(json.dumps(other)) != design


def test_every_family_has_its_design_named_after_its_default():
    configurations = default_configurations(task="all")
    defaults = default_portfolio(task="all")
    counts = Counter(a.configuration_of for a in configurations)
    assert counts == {base: size for base, (_, size) in SPACES.items()}
    for algorithm in configurations:
        base = defaults[algorithm.configuration_of]  # the default is a member of its family
        assert algorithm.name.startswith(f"{base.name}_c")
        assert algorithm.estimator == base.estimator and algorithm.task == base.task
        assert algorithm.scale == base.scale and algorithm.scale_target == base.scale_target
        for key, value in base.params.items():  # threads, verbosity: as the default's
            if key not in {d.name for d in SPACES[base.name][0]}:
                assert algorithm.params[key] == value
    per_task = Counter(a.task for a in configurations)
    assert per_task == {"classification": 78, "regression": 78}
    assert len(default_portfolio(task="classification", configurations=True)) == 23 + 78
    assert configuration_base("lightgbm_c07") == "lightgbm"
    assert configuration_base("lightgbm") is None and defaults["lightgbm"].base == "lightgbm"


def test_every_configuration_is_a_valid_estimator_of_its_library():
    """Each configuration's parameters are its estimator's (a typo would be refused at fit
    time, on every dataset of a benchmark); libraries not installed here are left out."""
    checked = 0
    for algorithm in default_configurations(task="all"):
        if not algorithm.is_installed():  # the boosting libraries are an optional extra
            continue
        params = algorithm.make_estimator(random_state=0).get_params()
        assert set(algorithm.params) <= set(params), algorithm.name
        for key, value in algorithm.params.items():
            assert params[key] == (tuple(value) if isinstance(value, list) else value)
        checked += 1
    assert checked >= 6 * 8 * 2  # the scikit-learn families of both tasks at least
