"""Every name a person types is checked on a real knowledge base: an error naming it, with
the closest known names, before the work (a typo in --tried was once silently ignored)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from metarec.cli import cli
from metarec.exceptions import UnknownNameError
from metarec.storage import KnowledgeBase


def _run(url, *args):
    return CliRunner().invoke(cli, ["--db", url, *args])


def test_a_typo_in_tried_is_an_error_with_the_suggestion(real_kb, monkeypatch):
    url, _, files = real_kb
    import metarec.recommender._ranker as ranker

    def no_metafeatures(*args, **kwargs):
        raise AssertionError("the metafeatures were computed before the names were checked")

    monkeypatch.setattr(ranker.Recommender, "_query_metafeatures", no_metafeatures)
    result = _run(
        url, "recommend", str(files["tiny"]), "--target", "label", "--tried", "fsat=0.7:0.1"
    )
    assert result.exit_code == 1
    assert "Error: --tried: unknown algorithm 'fsat'" in result.output
    assert "(did you mean 'fast'?); known: fast, mid, slow" in result.output


def test_unknown_metric_dataset_and_algorithm_names(real_kb, tmp_path):
    url, _, files = real_kb
    metric = _run(url, "rank", "--all", "--metric", "acuracy")
    assert metric.exit_code == 1
    assert "Error: --metric: unknown metric 'acuracy' (did you mean 'accuracy'?)" in metric.output
    dataset = _run(url, "rank", "--dataset", "tiyn")
    assert dataset.exit_code == 1
    assert "Error: --dataset: unknown dataset 'tiyn' (did you mean 'tiny'?)" in dataset.output
    algorithm = _run(url, "benchmark", str(files["tiny"]), "-a", "randomforest")
    assert algorithm.exit_code == 1
    assert "unknown algorithm 'randomforest' (did you mean 'random_forest'?)" in algorithm.output
    strategy = _run(url, "recommend", str(files["tiny"]), "--strategy", "lerned")
    assert strategy.exit_code == 2 and "'lerned' is not one of 'learned'" in strategy.output


def test_python_callers_get_the_parameter_named(real_kb):
    from metarec.recommender import AverageRankRanker, Recommender

    url, _, _ = real_kb
    rec = Recommender(AverageRankRanker(k=2)).fit(KnowledgeBase(url))
    with pytest.raises(UnknownNameError, match=r"^tried: unknown algorithm 'fsat' \(did you"):
        rec.recommend(metafeatures={"n_instances": 50.0}, tried={"fsat": (0.7, 0.1)})
