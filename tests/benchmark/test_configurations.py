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


def test_the_shipped_file_is_the_seeded_design():
    design = design_configurations(default_portfolio(task="all"))
    shipped = load_configurations_document()["algorithms"]
    assert json.loads(json.dumps(design)) == shipped  # the same names, the same values
    assert design_configurations(default_portfolio(task="all"), seed=1) != design


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
