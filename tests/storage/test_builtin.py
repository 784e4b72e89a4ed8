"""The knowledge base shipped with metarec."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from click.testing import CliRunner

from metarec.cli import cli
from metarec.storage import KnowledgeBase, open_builtin, open_or_builtin, open_seeded
from metarec.storage._builtin import resource_files


def test_builtin_matches_its_resource_files():
    files = resource_files()
    kb = open_builtin()
    assert kb.is_builtin
    runs = pd.read_parquet(files["runs"])
    info = kb.info()
    assert info["runs"] == len(runs)
    assert info["datasets"] == len(pd.read_parquet(files["datasets"])) == 203 + 191
    assert (info["classification_datasets"], info["regression_datasets"]) == (203, 191)
    # the large datasets (13) and their ladders of subsamples (39, named <name>@<rows>), and
    # the 1,000-row samples of the others over 1,000 rows that hold the configurations (99)
    assert info["subsamples"] == 39 + 99
    assert info["algorithms"] == 23 + 19 + 78 + 78  # the defaults, the configurations
    assert info["configurations"] == 156
    # every dataset holds them, the larger ones on a 1,000-row sample, the large ones along
    # their ladder too (up to every row of the largest)
    assert (info["configuration_datasets"], info["configuration_rows"]) == (296, 372_864)
    assert info["configuration_sources"] == info["sources"] == 203 + 191 - 138
    assert set(kb.metafeatures()["dataset"]) == set(kb.datasets()["name"])
    stored = kb.runs(aggregate=False)
    # every run names its machine in its own column (the resources' older form is split)
    assert stored["machine"].str.contains(" cores; ").all()
    assert not stored["source_run_id"].str.contains(" | ", regex=False).any()
    assert stored["accuracy"].dropna().between(0, 1).all()
    assert set(stored["status"]) <= {"ok", "timeout", "error"}


def test_builtin_is_read_where_it_is_installed(_isolated_home):
    """Nothing is built or copied: the data directory stays empty."""
    kb = open_builtin()
    assert kb.builds_on == "builtin" and kb.count("runs", part="own") == 0
    assert kb.count("runs") == len(pd.read_parquet(resource_files()["runs"]))
    assert not any(_isolated_home.rglob("*.sqlite"))


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
    portfolio = default_portfolio(task="regression", configurations=True)
    assert set(model.algorithms_) == set(portfolio.names)
    assert len(model.datasets_) == 191
    query = kb.metafeatures().set_index("dataset").loc["boston_housing"].dropna().to_dict()
    ranking = model.recommend(metafeatures=query, exclude=["boston_housing"])
    assert "mean" not in ranking.algorithms[:10]  # the floor every regressor must beat


def _layered(tmp_path, name="kb.sqlite") -> KnowledgeBase:
    return _layered_at(f"sqlite:///{tmp_path / name}")


def _layered_at(url: str) -> KnowledgeBase:
    kb, made = open_seeded(url)
    assert made and kb.builds_on == "builtin"
    return kb


def _run(dataset, algorithm, fold, accuracy, *, fit_time=1.0, protocol="cv10", seed=0):
    return {"dataset": dataset, "algorithm": algorithm, "protocol": protocol, "seed": seed,
            "fold": fold, "status": "ok", "accuracy": accuracy, "fit_time": fit_time,
            "predict_time": 0.1}  # fmt: skip


def test_a_new_knowledge_base_holds_only_its_own_rows_and_reads_both(kb_url, tmp_path):
    """On SQLite and on PostgreSQL (a team's knowledge base works the same)."""
    kb = _layered_at(kb_url)
    builtin = open_builtin()
    assert kb.count("runs", part="own") == kb.count("datasets", part="own") == 0
    assert kb.count("runs") == builtin.count("runs") and kb.count("datasets") == 394
    assert kb.data_version() == builtin.data_version()  # nothing beyond the built-in one
    kb.import_runs(pd.DataFrame([_run("mine", "mine", 0, 0.8), _run("mine", "mine", 1, 0.6)]))
    assert kb.count("runs", part="own") == 2
    assert kb.count("runs") == builtin.count("runs") + 2
    assert kb.data_version() != builtin.data_version()
    runs = kb.runs(aggregate=False)
    assert runs.groupby("origin").size().to_dict() == {
        "builtin": builtin.count("runs"),
        "user": 2,
    }
    mine = kb.runs().set_index(["dataset", "algorithm"]).loc[("mine", "mine")]
    assert mine["accuracy"] == pytest.approx(0.7) and mine["n_runs"] == 2
    if kb_url.startswith("sqlite"):  # the file holds the user's rows only: small
        assert (tmp_path / "kb.sqlite").stat().st_size < 1_000_000
    # an existing knowledge base with runs is used as it is
    reopened, made = open_seeded(kb_url)
    assert not made and reopened.builds_on == "builtin"


def test_a_users_fold_wins_over_the_built_in_one(kb_url):
    """The same (dataset, algorithm, protocol, seed, fold): the user's row replaces the
    built-in one in every read, and the pair's aggregate is that of the merged folds."""
    kb = _layered_at(kb_url)
    builtin = open_builtin()  # gaussian_nb has no configurations: only its cv10 folds
    theirs = builtin.runs(aggregate=False, datasets=["iris"], algorithms=["gaussian_nb"])
    assert len(theirs) == 10 and set(theirs["protocol"]) == {"cv10"}
    fingerprint = builtin.datasets().set_index("name").loc["iris", "fingerprint"]
    kb.add_dataset("iris", fingerprint=fingerprint)  # the same content
    parameters = builtin.algorithms().set_index("name").loc["gaussian_nb", "parameters"]
    kb.add_algorithm("gaussian_nb", parameters=parameters)  # the same configuration
    kb.import_runs(
        pd.DataFrame([_run("iris", "gaussian_nb", 3, 0.25), _run("iris", "gaussian_nb", 7, 0.5)])
    )
    merged = kb.runs(aggregate=False, datasets=["iris"], algorithms=["gaussian_nb"])
    assert len(merged) == 10
    by_fold = merged.set_index("fold")
    assert by_fold.loc[3, "accuracy"] == 0.25 and by_fold.loc[3, "origin"] == "user"
    assert by_fold.loc[7, "accuracy"] == 0.5
    others = theirs[~theirs["fold"].isin([3, 7])]["accuracy"]
    assert (by_fold.drop(index=[3, 7])["origin"] == "builtin").all()
    expected = (others.sum() + 0.25 + 0.5) / 10  # the mean over the merged folds
    pair = kb.runs(datasets=["iris"], algorithms=["gaussian_nb"]).iloc[0]
    assert pair["accuracy"] == pytest.approx(expected) and pair["n_runs"] == 10
    # another protocol's fold 3 is another fold: both are kept
    kb.import_runs(pd.DataFrame([_run("iris", "gaussian_nb", 3, 0.9, protocol="cv5")]))
    assert len(kb.runs(aggregate=False, datasets=["iris"], algorithms=["gaussian_nb"])) == 11


def test_a_namesake_of_other_content_hides_the_built_in_dataset(tmp_path):
    """A user's dataset of another content (or an unknown one) under a built-in name hides
    the built-in one's runs and metafeatures; one of the same content does not."""
    kb = _layered(tmp_path)
    builtin = open_builtin()
    theirs = builtin.datasets().set_index("name")
    kb.add_dataset("iris", source="file", source_id="/data/iris.csv", fingerprint="f" * 64)
    kb.import_metafeatures(pd.DataFrame({"dataset": ["iris"], "n_instances": [99.0]}))
    same = "wine_recognition"
    kb.add_dataset(same, source_id="/data/wine.csv", fingerprint=theirs.loc[same, "fingerprint"])
    datasets = kb.datasets().set_index("name")
    assert len(datasets) == 394
    assert datasets.loc["iris", "fingerprint"] == "f" * 64
    assert datasets.loc["iris", "origin"] == datasets.loc[same, "origin"] == "user"
    assert datasets.loc["irish", "origin"] == "builtin"
    assert datasets.loc[same, "source_id"] == "/data/wine.csv"  # the user's record wins
    assert not len(kb.runs(aggregate=False, datasets=["iris"]))
    n_wine = len(builtin.runs(aggregate=False, datasets=[same]))
    assert len(kb.runs(aggregate=False, datasets=[same])) == n_wine > 0
    described = kb.metafeatures().set_index("dataset")
    assert described.loc["iris", "n_instances"] == 99.0
    assert described.loc["iris"].drop("n_instances").isna().all()  # not the built-in ones
    assert described.loc[same, "n_instances"] == theirs.loc[same, "n_instances"]
    assert len(kb.runs()) == len(builtin.runs()) - len(builtin.runs(datasets=["iris"]))


def test_an_algorithm_of_other_parameters_hides_the_built_in_runs(tmp_path):
    kb = _layered(tmp_path)
    builtin = open_builtin()
    theirs = builtin.algorithms().set_index("name")
    kb.add_algorithm("knn", family="mine", parameters={"n_neighbors": 3})  # another config
    # the same configuration, its JSON written with other spacing and key order
    same = json.dumps(dict(reversed(json.loads(theirs.loc["lda", "parameters"]).items())))
    assert same != theirs.loc["lda", "parameters"]
    kb.add_algorithm("lda", family="mine", parameters=same)
    kb.add_algorithm("gaussian_nb", family="mine")  # a configuration nobody knows
    stored = kb.algorithms().set_index("name")
    assert stored.loc["knn", "parameters"] == '{"n_neighbors": 3}'
    assert stored.loc[["knn", "lda", "gaussian_nb"], "family"].tolist() == ["mine"] * 3
    assert stored.loc["svc_rbf", "origin"] == "builtin"
    runs = kb.runs(aggregate=False)
    assert not {"knn", "gaussian_nb"} & set(runs["algorithm"])
    assert (runs["algorithm"] == "lda").sum() == (
        builtin.runs(aggregate=False)["algorithm"] == "lda"
    ).sum()


def test_export_of_a_layered_knowledge_base_imports_back_as_one(tmp_path):
    kb = _layered(tmp_path)
    kb.import_runs(pd.DataFrame([_run("mine", "knn", 0, 0.8)]))
    written = kb.export(tmp_path / "out")
    copy = KnowledgeBase(f"sqlite:///{tmp_path / 'copy.sqlite'}")
    copy.import_datasets(written["datasets"])
    copy.import_algorithms(written["algorithms"])
    copy.import_runs(written["runs"])
    copy.import_metafeatures(written["metafeatures"])
    assert copy.builds_on is None
    assert copy.count("runs") == kb.count("runs") and copy.count("datasets") == kb.count("datasets")


def test_shipped_recommenders_are_current_and_used_without_fitting(tmp_path, _isolated_home):
    """The package's fitted recommenders match this code and built-in knowledge base (else
    ``python benchmarks/rebuild_builtin.py --recommenders-only`` writes them again), and a
    knowledge base holding nothing beyond the built-in one reads them: no fit, no cache."""
    from sklearn.base import clone

    from metarec.recommender import Recommender, fitted_recommender
    from metarec.recommender._cache import default_recommenders, shipped_path

    kb = _layered(tmp_path)
    for recommender in default_recommenders():
        path = shipped_path(kb.data_version(), recommender.get_params(deep=True))
        assert path.is_file(), f"{path.name} is missing: the shipped recommenders are stale"
    model = fitted_recommender(kb, Recommender(task="classification"))
    assert not (_isolated_home / "cache").exists()
    fitted = clone(Recommender(task="classification")).fit(kb)
    query = kb.metafeatures().set_index("dataset").loc["iris"].dropna().to_dict()
    pd.testing.assert_frame_equal(
        model.recommend(metafeatures=query, exclude=["iris"]).to_frame(),
        fitted.recommend(metafeatures=query, exclude=["iris"]).to_frame(),
    )


def test_recommend_on_the_builtin_kb_never_reads_its_runs(monkeypatch, _isolated_home):
    """The runs (the largest resource by far) are read only when asked for: counting them
    reads the file's metadata, and `recommend` with the shipped recommender never reads
    them; once read, the count, the runs and their aggregate agree."""
    from metarec.storage import _layers
    from metarec.storage._performance import aggregate_runs

    def refuse(path):
        raise AssertionError(f"the runs were read from {path}")

    expected = len(pd.read_parquet(resource_files()["runs"]))
    _layers._load.cache_clear()
    monkeypatch.setattr(_layers, "_read_runs", refuse)
    try:
        kb = open_builtin()
        assert kb.has_runs() and kb.count("runs", part="builtin") == expected
        result = CliRunner().invoke(cli, ["recommend", "sklearn:iris", "--format", "csv"])
        assert result.exit_code == 0, result.output
        assert any(line.startswith("algorithm,") for line in result.output.splitlines())
        monkeypatch.undo()
        part = _layers.builtin_part()
        assert part.n_runs == len(part.runs) == expected
        pd.testing.assert_frame_equal(part.performance, aggregate_runs(part.runs))
    finally:
        _layers._load.cache_clear()
