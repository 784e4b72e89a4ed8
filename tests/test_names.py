"""Unknown names: the closest known ones suggested, one message for Python and the CLI."""

from __future__ import annotations

import pytest

from metarec._names import check_names, closest, unknown_name
from metarec.exceptions import UnknownNameError

PORTFOLIO = ["random_forest", "extra_trees", "adaboost", "xgboost", "knn", "svc_rbf"]


def test_closest_by_prefix_then_similarity_ignoring_case():
    assert closest("random_forst", PORTFOLIO) == ["random_forest"]
    assert closest("xgb", PORTFOLIO) == ["xgboost"]  # a prefix, though not similar enough
    assert closest("Random_Forest", PORTFOLIO) == ["random_forest"]
    assert closest("zzz", PORTFOLIO) == []
    assert closest("", PORTFOLIO) == []


def test_unknown_name_speaks_python_and_the_command_line():
    error = unknown_name(
        "algorithm", "random_forst", PORTFOLIO, parameter="tried", option="--tried"
    )
    assert isinstance(error, UnknownNameError) and isinstance(error, LookupError)
    assert str(error) == (
        "tried: unknown algorithm 'random_forst' (did you mean 'random_forest'?); "
        "known: adaboost, extra_trees, knn, random_forest, svc_rbf, xgboost"
    )
    assert error.cli_message.startswith("--tried: unknown algorithm 'random_forst'")


def test_check_names_raises_for_the_first_unknown_and_lists_at_most_twelve():
    check_names(["knn", "xgboost"], PORTFOLIO, what="algorithm")  # all known: nothing
    many = [f"alg{i:02d}" for i in range(20)]
    with pytest.raises(UnknownNameError, match=r"'alg2x'.*alg11, \.\.\.$") as err:
        check_names(["alg01", "alg2x", "other"], many, what="algorithm")
    assert "known: alg00" in str(err.value) and "alg13" not in str(err.value)
