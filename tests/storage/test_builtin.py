"""The knowledge base shipped with metarec."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from click.testing import CliRunner

from metarec.cli import cli
from metarec.storage import KnowledgeBase, open_builtin, open_or_builtin
from metarec.storage._builtin import builtin_path, resource_files


def test_builtin_matches_its_resource_files():
    files = resource_files()
    kb = open_builtin()
    assert kb.is_builtin
    runs = pd.read_parquet(files["runs"])
    info = kb.info()
    assert info["runs"] == len(runs)
    assert info["datasets"] == len(pd.read_parquet(files["datasets"])) == 116 + 126
    assert (info["classification_datasets"], info["regression_datasets"]) == (116, 126)
    assert info["algorithms"] == 23 + 19
    assert set(kb.metafeatures()["dataset"]) == set(kb.datasets()["name"])
    stored = kb.runs(aggregate=False)
    # every run names its machine in its own column (the resources' older form is split)
    assert stored["machine"].str.contains(" cores; ").all()
    assert not stored["source_run_id"].str.contains(" | ", regex=False).any()
    assert stored["accuracy"].dropna().between(0, 1).all()
    assert set(stored["status"]) <= {"ok", "timeout", "error"}


def test_builtin_file_is_built_once_and_reused():
    first = builtin_path()
    stamp = first.stat().st_mtime_ns
    assert builtin_path() == first and first.stat().st_mtime_ns == stamp


def test_open_or_builtin_falls_back_only_without_runs(tmp_path, _isolated_home):
    assert open_or_builtin().is_builtin  # the default file does not exist
    assert not (_isolated_home / "kb.sqlite").exists()  # ... and was not created
    url = f"sqlite:///{tmp_path / 'mine.sqlite'}"
    KnowledgeBase(url).close()
    assert open_or_builtin(url).is_builtin  # empty
    KnowledgeBase(url).import_runs(
        pd.DataFrame({"dataset": ["d"], "algorithm": ["a"], "accuracy": [0.5], "time": [1.0]})
    )
    assert not open_or_builtin(url).is_builtin


@pytest.mark.slow
def test_main_command_recommends_on_the_builtin_kb():
    result = CliRunner().invoke(
        cli, ["recommend", "sklearn:breast_cancer", "--format", "json"], catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    document = result.output[result.output.index("{") :]
    import json

    data = json.loads(document)
    ranked = [row["algorithm"] for row in data["results"]]
    assert len(ranked) == 23 and "majority" not in ranked[:5]  # the classifiers only
    expected = {row["algorithm"]: row["expected_accuracy"] for row in data["results"]}
    assert expected[ranked[0]] > expected["majority"] + 0.1  # breast cancer: 63% majority
    assert all(row["n_datasets"] >= 1 for row in data["results"])


class _Frames:
    """A knowledge base made of frames (what ``Recommender.fit`` reads)."""

    def __init__(self, runs, metafeatures, datasets):
        self._runs, self._metafeatures, self._datasets = runs, metafeatures, datasets

    def runs(self):
        return self._runs.copy()

    def metafeatures(self):
        return self._metafeatures.copy()

    def datasets(self):
        return self._datasets.copy()


def test_classification_rankings_are_those_of_the_classification_part_alone():
    from metarec.recommender import LearnedRanker, Recommender

    kb = open_builtin()
    datasets = kb.datasets()
    classification = datasets[datasets["task"] != "regression"]
    names = set(classification["name"])
    runs = kb.runs()
    alone = _Frames(
        runs[runs["dataset"].isin(names)],
        # only the metafeature columns a classification-only KB would hold
        kb.metafeatures().loc[lambda m: m["dataset"].isin(names)].dropna(axis=1, how="all"),
        classification,
    )
    together = Recommender(LearnedRanker(random_state=0)).fit(kb)
    separate = Recommender(LearnedRanker(random_state=0)).fit(alone)
    assert list(together.datasets_) == list(separate.datasets_)
    assert list(together.algorithms_) == list(separate.algorithms_)
    assert "svr_rbf" not in together.algorithms_
    meta = kb.metafeatures().set_index("dataset")
    for name in ("iris", "breast_cancer", "spambase"):
        query = meta.loc[name].dropna().to_dict()
        first = together.recommend(metafeatures=query, exclude=[name]).to_frame()
        second = separate.recommend(metafeatures=query, exclude=[name]).to_frame()
        pd.testing.assert_frame_equal(first, second)


def test_regression_part_ranks_regressors_only():
    from metarec.benchmark import default_portfolio
    from metarec.recommender import LearnedRanker, Recommender

    kb = open_builtin()
    ranker = LearnedRanker.for_task("regression", random_state=0)
    model = Recommender(ranker, task="regression").fit(kb)
    assert set(model.algorithms_) == set(default_portfolio(task="regression").names)
    assert len(model.datasets_) == 126
    query = kb.metafeatures().set_index("dataset").loc["boston_housing"].dropna().to_dict()
    ranking = model.recommend(metafeatures=query, exclude=["boston_housing"])
    assert "mean" not in ranking.algorithms[:10]  # the floor every regressor must beat


def test_seeding_never_overwrites_a_dataset_the_knowledge_base_holds(tmp_path):
    """A KB with datasets but no runs (metafeatures saved) is filled with the built-in one:
    a namesake of other content keeps its record and metafeatures and gets none of the
    built-in runs; one of the same content (fingerprint) keeps its record and gets them."""
    from metarec.storage._builtin import seed_with_builtin

    builtin = open_builtin()
    theirs = builtin.datasets().set_index("name")
    builtin_runs = builtin.runs(aggregate=False)
    kb = KnowledgeBase(f"sqlite:///{tmp_path / 'kb.sqlite'}")
    kb.add_dataset("iris", source="file", source_id="/data/iris.csv", fingerprint="f" * 64)
    kb.import_metafeatures(pd.DataFrame({"dataset": ["iris"], "n_instances": [99.0]}))
    same = "wine_recognition"
    kb.add_dataset(
        same, source="file", source_id="/data/wine.csv", fingerprint=theirs.loc[same, "fingerprint"]
    )
    assert seed_with_builtin(kb)
    stored = kb.datasets().set_index("name")
    assert sorted(stored.index) == sorted(theirs.index)
    assert stored.loc["iris", "fingerprint"] == "f" * 64
    assert stored.loc["iris", "source_id"] == "/data/iris.csv"
    assert stored.loc[same, "source_id"] == "/data/wine.csv"
    assert kb.metafeatures().set_index("dataset").loc["iris", "n_instances"] == 99.0
    runs = kb.runs(aggregate=False)
    assert "iris" not in set(runs["dataset"])
    assert (runs["dataset"] == same).sum() == (builtin_runs["dataset"] == same).sum() > 0
    assert len(runs) == len(builtin_runs) - (builtin_runs["dataset"] == "iris").sum()
    assert not seed_with_builtin(kb)  # it holds runs now: left as it is
    # the namesake of the same content had no metafeatures: it gets the built-in ones
    described = kb.metafeatures().set_index("dataset")
    assert described.loc[same, "n_instances"] == theirs.loc[same, "n_instances"]


def test_seeding_never_overwrites_an_algorithm_the_knowledge_base_holds(tmp_path):
    """An algorithm recorded before the first fill keeps its record; the built-in runs of its
    namesake are taken only for the same configuration (parameters)."""
    from metarec.storage._builtin import seed_with_builtin

    builtin = open_builtin()
    theirs = builtin.algorithms().set_index("name")
    builtin_runs = builtin.runs(aggregate=False)
    kb = KnowledgeBase(f"sqlite:///{tmp_path / 'kb.sqlite'}")
    kb.add_algorithm("knn", family="mine", parameters={"n_neighbors": 3})  # another config
    # the same configuration, its JSON written with other spacing and key order
    same = json.dumps(dict(reversed(json.loads(theirs.loc["lda", "parameters"]).items())))
    assert same != theirs.loc["lda", "parameters"]
    kb.add_algorithm("lda", family="mine", parameters=same)
    kb.add_algorithm("gaussian_nb", family="mine")  # a configuration nobody knows
    assert seed_with_builtin(kb)
    stored = kb.algorithms().set_index("name")
    assert sorted(stored.index) == sorted(theirs.index)
    assert stored.loc["knn", "parameters"] == '{"n_neighbors": 3}'
    assert stored.loc[["knn", "lda", "gaussian_nb"], "family"].tolist() == ["mine"] * 3
    assert stored.loc["svc_rbf", "parameters"] == theirs.loc["svc_rbf", "parameters"]
    runs = kb.runs(aggregate=False)
    assert not {"knn", "gaussian_nb"} & set(runs["algorithm"])
    assert (runs["algorithm"] == "lda").sum() == (builtin_runs["algorithm"] == "lda").sum() > 0
    left_out = builtin_runs["algorithm"].isin(["knn", "gaussian_nb"]).sum()
    assert len(runs) == len(builtin_runs) - left_out


def test_a_fill_interrupted_after_its_datasets_is_completed_by_the_next(tmp_path):
    """Killed after the datasets were stored (before the runs and metafeatures), the fill
    leaves the built-in datasets' own records: the next fill takes their runs and
    metafeatures (same fingerprints) instead of leaving them out."""
    from metarec.storage._builtin import seed_with_builtin

    builtin = open_builtin()
    kb = KnowledgeBase(f"sqlite:///{tmp_path / 'kb.sqlite'}")
    kb.add_datasets(pd.read_parquet(resource_files()["datasets"]))  # what the kill left
    assert kb.count("runs") == 0 and kb.count("metafeatures") == 0
    assert seed_with_builtin(kb)
    assert kb.count("runs") == builtin.count("runs")
    assert kb.count("metafeatures") == builtin.count("metafeatures")
    # after its algorithms too: their records are the built-in ones, and so are their runs
    kb = KnowledgeBase(f"sqlite:///{tmp_path / 'again.sqlite'}")
    kb.add_datasets(pd.read_parquet(resource_files()["datasets"]))
    kb.add_algorithms(pd.read_parquet(resource_files()["algorithms"]))
    assert seed_with_builtin(kb)
    assert kb.count("runs") == builtin.count("runs")
