from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from metarec.algorithms import build_pipeline, default_portfolio, load_portfolio
from metarec.exceptions import BenchmarkError, UnknownNameError

EXPECTED = {
    "majority",
    "logistic_regression",
    "ridge",
    "lda",
    "qda",
    "gaussian_nb",
    "bernoulli_nb",
    "knn",
    "svc_linear",
    "svc_rbf",
    "svc_poly",
    "decision_tree",
    "extra_tree",
    "random_forest",
    "extra_trees",
    "gradient_boosting",
    "hist_gradient_boosting",
    "adaboost",
    "mlp",
    "sgd",
}
BOOSTING = {"lightgbm": "lightgbm", "xgboost": "xgboost", "catboost": "catboost"}


def _needs(library):
    return pytest.mark.skipif(
        importlib.util.find_spec(library) is None,
        reason=f'{library} is not installed (pip install "metarec[boosting]")',
    )


def test_default_portfolio_has_the_documented_twenty_three():
    portfolio = default_portfolio()
    assert set(portfolio.names) == EXPECTED | set(BOOSTING)
    assert len(portfolio) == 23
    for name, library in BOOSTING.items():
        algorithm = portfolio[name]
        assert algorithm.library == library and algorithm.extra == "boosting"
        assert algorithm.install_hint == 'pip install "metarec[boosting]"'
    assert all(portfolio[n].extra is None and portfolio[n].library == "sklearn" for n in EXPECTED)
    # one thread and quiet, as the runner's times assume
    assert portfolio["lightgbm"].params == {"n_jobs": 1, "verbose": -1}
    assert (
        portfolio["xgboost"].params["n_jobs"] == 1 and portfolio["xgboost"].params["verbosity"] == 0
    )
    assert portfolio["catboost"].params["thread_count"] == 1
    assert portfolio["catboost"].params["allow_writing_files"] is False


def test_missing_library_is_left_out_of_the_whole_and_refused_by_name(monkeypatch):
    for library in ("lightgbm", "xgboost", "catboost"):  # as if not installed (or not here)
        monkeypatch.setitem(sys.modules, library, None)
    portfolio = default_portfolio()
    assert len(portfolio) == 23  # the entries stay: names are stable across KBs
    assert [a.name for a in portfolio.missing()] == ["lightgbm", "xgboost", "catboost"]
    assert "lightgbm" not in portfolio.select().names
    assert len(portfolio.select()) == 20
    with pytest.raises(BenchmarkError) as info:
        portfolio.select(["knn", "lightgbm"])
    assert str(info.value) == (
        "algorithm 'lightgbm' needs the lightgbm package, which is not installed: "
        'pip install "metarec[boosting]"'
    )
    with pytest.raises(BenchmarkError, match=r"lightgbm, catboost need .*metarec\[boosting\]"):
        portfolio.select(["lightgbm", "catboost"])
    with pytest.raises(BenchmarkError, match="metarec\\[boosting\\]"):
        portfolio["lightgbm"].make_estimator()


def test_library_version_names_the_distribution():
    portfolio = default_portfolio()
    assert portfolio["knn"].library_version().startswith("scikit-learn==")
    if importlib.util.find_spec("xgboost") is not None:  # xgboost or xgboost-cpu wheel
        assert re.match(r"^xgboost(-cpu)?==\d", portfolio["xgboost"].library_version())


class _ColumnPredictor:
    """A classifier in CatBoost's manner: predict returns a column; needs labels 0..k-1."""

    def __init__(self):
        pass

    def get_params(self, deep=True):
        return {}

    def set_params(self, **params):
        return self

    def fit(self, X, y):
        assert set(np.unique(y)) == set(range(len(np.unique(y))))  # XGBoost's demand
        self.first_ = np.asarray(X)[:, 0]
        self.y_ = np.asarray(y)
        return self

    def predict(self, X):
        nearest = np.abs(np.asarray(X)[:, :1] - self.first_[None, :]).argmin(axis=1)
        return self.y_[nearest][:, None]

    def predict_proba(self, X):
        k = self.y_.max() + 1
        return np.eye(k)[self.predict(X)[:, 0]]


def test_encoded_labels_gives_the_scikit_learn_contract():
    from metarec.algorithms import EncodedLabels

    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    y = np.array([2, 2, 7, 7])  # classes 0..6 absent, as in a fold that lacks a class
    model = EncodedLabels(_ColumnPredictor()).fit(X, y)
    assert model.classes_.tolist() == [2, 7]
    assert model.predict(np.array([[0.1], [2.9]])).tolist() == [2, 7]
    assert model.predict_proba(np.array([[2.9]])).tolist() == [[0.0, 1.0]]
    assert not hasattr(model, "decision_function")


@pytest.mark.parametrize("name", sorted(BOOSTING))
def test_boosting_algorithm_fits_quietly_writing_nothing(name, tmp_path, monkeypatch, capfd):
    pytest.importorskip(BOOSTING[name], reason=f'needs {name}: pip install "metarec[boosting]"')
    monkeypatch.chdir(tmp_path)
    rng = np.random.default_rng(0)
    n = 90
    X = pd.DataFrame(
        {
            "a": rng.normal(size=n),
            "b": np.where(rng.random(n) < 0.2, np.nan, rng.normal(size=n)),
            "colour": rng.choice(["red", "green", None], size=n),
        }
    )
    y = np.where(X["a"] > 0.5, 3, np.where(X["a"] < -0.5, 0, 1))  # three classes, codes 0, 1, 3
    algorithm = default_portfolio()[name]
    pipe = build_pipeline(
        algorithm, numeric_columns=["a", "b"], categorical_columns=["colour"], random_state=7
    )
    assert pipe.named_steps["model"].estimator.get_params()["random_state"] == 7
    train = y != 1  # the training rows lack class 1: XGBoost alone would refuse labels 0, 3
    pipe.fit(X[train], y[train])
    predicted = pipe.predict(X)
    assert predicted.shape == (n,) and set(predicted) <= {0, 3}
    assert pipe.predict_proba(X).shape == (n, 2)
    assert np.mean(predicted[train] == y[train]) > 0.9
    out, err = capfd.readouterr()
    assert out == "" and err == ""
    assert list(tmp_path.iterdir()) == []  # no catboost_info/ or other files


@pytest.mark.slow
@_needs("lightgbm")
def test_benchmark_command_runs_lightgbm_alone(tmp_path):
    db = tmp_path / "kb.sqlite"
    env = {**os.environ, "METAREC_HOME": str(tmp_path / "home")}
    done = subprocess.run(
        [sys.executable, "-m", "metarec.cli", "--db", f"sqlite:///{db}", "benchmark",
         "sklearn:breast_cancer", "--algorithm", "lightgbm", "--format", "csv"],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=280,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "runs_stored,10" in done.stdout and "algorithms,1" in done.stdout
    from metarec.storage import KnowledgeBase

    kb = KnowledgeBase(f"sqlite:///{db}")
    runs = kb.runs()
    assert runs["algorithm"].tolist() == ["lightgbm"]
    assert runs["n_runs"].tolist() == [10] and runs["accuracy"].iloc[0] > 0.9
    assert kb.algorithms()["library"].iloc[0].startswith("lightgbm==")


def test_benchmark_command_without_the_extra_names_it(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from metarec.cli import cli

    monkeypatch.setitem(sys.modules, "lightgbm", None)
    db = tmp_path / "kb.sqlite"
    result = CliRunner().invoke(
        cli,
        [
            "--db",
            f"sqlite:///{db}",
            "benchmark",
            "sklearn:breast_cancer",
            "--algorithm",
            "lightgbm",
        ],
    )
    assert result.exit_code == 1
    assert result.output == (
        "Error: algorithm 'lightgbm' needs the lightgbm package, which is not installed: "
        'pip install "metarec[boosting]"\n'
    )
    assert not db.exists()  # refused before any work


def test_benchmark_of_the_whole_portfolio_skips_what_is_missing_with_a_note(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from metarec.cli import cli

    for library in ("lightgbm", "xgboost", "catboost"):  # as if not installed (or not here)
        monkeypatch.setitem(sys.modules, library, None)
    result = CliRunner().invoke(
        cli, ["--db", f"sqlite:///{tmp_path / 'kb.sqlite'}", "benchmark", str(tmp_path / "no.csv")]
    )
    assert (
        "skipping lightgbm, xgboost, catboost, lightgbm_regressor, xgboost_regressor, "
        'catboost_regressor: not installed (pip install "metarec[boosting]")' in result.output
    )
    assert result.exit_code != 0  # the data file does not exist: the note came first


def test_algorithm_option_is_repeatable_and_checks_names(tmp_path):
    from click.testing import CliRunner

    from metarec.cli import cli

    result = CliRunner().invoke(
        cli,
        [
            "benchmark",
            "x",
            "--list",
            "--algorithm",
            "knn",
            "--algorithm",
            "ridge",
            "--format",
            "csv",
        ],
    )
    assert result.exit_code == 0, result.output
    assert [line.split(",")[0] for line in result.output.splitlines()[1:]] == ["knn", "ridge"]
    result = CliRunner().invoke(
        cli, ["--db", f"sqlite:///{tmp_path / 'k.sqlite'}", "benchmark", "x", "--algorithm", "xgb"]
    )
    assert result.exit_code == 1
    assert result.output.startswith(
        "Error: --algorithm: unknown algorithm 'xgb' (did you mean 'xgboost' or "
        "'xgboost_regressor'?); known: adaboost,"
    )


@pytest.mark.slow
def test_every_default_algorithm_fits_mixed_data_with_missing_values():
    rng = np.random.default_rng(0)
    n = 60
    X = pd.DataFrame(
        {
            "a": rng.normal(size=n),
            "b": np.where(rng.random(n) < 0.2, np.nan, rng.normal(size=n)),
            "colour": rng.choice(["red", "green", None], size=n),
        }
    )
    y = (X["a"] > 0).astype(int).to_numpy()
    for algorithm in default_portfolio().select():  # those installed here
        pipe = build_pipeline(
            algorithm, numeric_columns=["a", "b"], categorical_columns=["colour"], random_state=0
        )
        pipe.fit(X, y)
        assert pipe.predict(X).shape == (n,), algorithm.name
    # the baseline really is the majority class
    pipe = build_pipeline(
        default_portfolio()["majority"], numeric_columns=["a", "b"], categorical_columns=["colour"]
    )
    pipe.fit(X, y)
    assert set(pipe.predict(X)) == {np.bincount(y).argmax()}


def test_random_state_reaches_the_estimator():
    est = default_portfolio()["random_forest"].make_estimator(random_state=42)
    assert est.random_state == 42
    # estimators without the parameter are left alone
    assert (
        "random_state" not in default_portfolio()["knn"].make_estimator(random_state=1).get_params()
    )


def test_user_portfolio_is_added_to_the_default(tmp_path):
    path = tmp_path / "mine.json"
    path.write_text(
        json.dumps(
            {
                "algorithms": [
                    {
                        "name": "knn_15",
                        "estimator": "sklearn.neighbors:KNeighborsClassifier",
                        "params": {"n_neighbors": 15},
                        "family": "neighbours",
                        "scale": True,
                    }
                ]
            }
        )
    )
    portfolio = load_portfolio(path)
    assert len(portfolio) == len(default_portfolio(task="all")) + 1 == 43
    assert portfolio["knn_15"].make_estimator().n_neighbors == 15
    assert load_portfolio(path, include_default=False).names == ["knn_15"]


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ({"algos": []}, "list 'algorithms'"),
        ({"algorithms": [{"name": "x"}]}, "lacks estimator"),
        ({"algorithms": [{"name": "Bad Name", "estimator": "a:b"}]}, "must be lower case"),
        ({"algorithms": [{"name": "x", "estimator": "sklearn.svm.SVC"}]}, "module:ClassName"),
        ({"algorithms": [{"name": "x", "estimator": "a:b", "colour": 1}]}, "unknown keys"),
        ({"algorithms": [{"name": "knn", "estimator": "a:b"}]}, "repeated: knn"),
    ],
)
def test_invalid_portfolio_files_are_rejected(tmp_path, document, message):
    path = tmp_path / "p.json"
    path.write_text(json.dumps(document))
    with pytest.raises(BenchmarkError, match=message):
        load_portfolio(path)


def test_missing_and_broken_files(tmp_path):
    with pytest.raises(BenchmarkError, match="not found"):
        load_portfolio(tmp_path / "nope.json")
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    with pytest.raises(BenchmarkError, match="cannot read"):
        load_portfolio(broken)


def test_unimportable_estimator_names_the_algorithm(tmp_path):
    path = tmp_path / "p.json"
    path.write_text(json.dumps({"algorithms": [{"name": "ghost", "estimator": "nowhere:Nothing"}]}))
    algorithm = load_portfolio(path, include_default=False)["ghost"]
    with pytest.raises(BenchmarkError, match="ghost"):
        algorithm.make_estimator()


def test_unknown_name_lists_the_portfolio():
    with pytest.raises(UnknownNameError, match="unknown algorithm 'xgb'"):
        default_portfolio().select(["xgb"])


def test_run_benchmark_leaves_out_what_cannot_run_and_stores_nothing_for_it(tmp_path, monkeypatch):
    from metarec.algorithms import Portfolio
    from metarec.benchmark import run_benchmark
    from metarec.data import load_dataset
    from metarec.storage import KnowledgeBase

    monkeypatch.setitem(sys.modules, "lightgbm", None)
    portfolio = default_portfolio()
    two = Portfolio((portfolio["majority"], portfolio["lightgbm"]))
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.normal(size=(40, 2)), columns=["a", "b"])
    frame["target"] = (frame["a"] > 0).astype(int)
    kb = KnowledgeBase(f"sqlite:///{tmp_path / 'kb.sqlite'}")
    report = run_benchmark(
        [load_dataset(frame, name="toy")], kb, portfolio=two, protocol="cv5",
        cache_dir=tmp_path / "c",
    )  # fmt: skip
    assert report.algorithms == 1 and report.failures == ()
    assert set(kb.runs(aggregate=False)["algorithm"]) == {"majority"}
    assert kb.algorithms()["name"].tolist() == ["majority"]  # no record of what did not run
    with pytest.raises(BenchmarkError, match=r'pip install "metarec\[boosting\]"'):
        run_benchmark([load_dataset(frame, name="toy")], kb, portfolio=two, algorithms=["lightgbm"])


def test_library_version_scans_installed_distributions_only_when_the_name_differs(monkeypatch):
    """Scanning every distribution's files took seconds per call: it must not run for a
    library whose import name is its distribution's name."""
    from metarec.algorithms import _catalogue

    def scan():
        raise AssertionError("scanned every installed distribution")

    monkeypatch.setattr(_catalogue, "_packages_distributions", scan)
    portfolio = load_portfolio()
    assert portfolio["knn"].library_version().startswith("scikit-learn==")
    assert portfolio["random_forest"].library_version().startswith("scikit-learn==")
