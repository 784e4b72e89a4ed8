"""Every metric the benchmark stores, against values computed by hand."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from metarec.benchmark import export_builtin, machine_description, run_benchmark
from metarec.execution import score_predictions
from metarec.storage import KnowledgeBase
from metarec.storage._importers import BENCHMARK_SOURCE

EPS = 1e-15  # score_predictions clips probabilities at 1e-15 and renormalises


def test_binary_fold_scored_by_hand():
    y_test = np.array([0, 0, 1, 1])
    y_pred = np.array([0, 1, 1, 1])
    proba = np.array([[0.8, 0.2], [0.4, 0.6], [0.3, 0.7], [0.1, 0.9]])
    metrics = score_predictions(y_test, y_pred, proba, proba[:, 1], n_classes=2)
    # recalls: class 0 1/2, class 1 2/2
    assert metrics["balanced_accuracy"] == pytest.approx(0.75)
    # Tau: 1 - distance of (tnr, tpr) = (0.5, 1) to (1, 1), over sqrt(2)
    assert metrics["tau"] == pytest.approx(1 - 0.5 / math.sqrt(2))
    # both positives (0.7, 0.9) outscore both negatives (0.2, 0.6)
    assert metrics["roc_auc"] == pytest.approx(1.0)
    p_true = np.array([0.8, 0.4, 0.7, 0.9])
    assert metrics["log_loss"] == pytest.approx(-np.log(p_true).mean())
    # sum_j (p_j - a_j)^2 per object: 0.08, 0.72, 0.18, 0.02
    assert metrics["quadratic_loss"] == pytest.approx((0.08 + 0.72 + 0.18 + 0.02) / 4)
    assert metrics["informational_loss"] == pytest.approx(-np.log2(p_true).mean())


def test_multiclass_auc_is_the_macro_average_over_the_classes_present():
    y_test = np.array([0, 0, 1, 1])  # class 2 absent from the fold
    scores = np.array([[0.6, 0.3, 0.1], [0.2, 0.5, 0.3], [0.3, 0.6, 0.1], [0.5, 0.4, 0.1]])
    metrics = score_predictions(y_test, scores.argmax(axis=1), scores, scores, n_classes=3)
    # class 0 vs rest: positives 0.6, 0.2 against 0.3, 0.5 -> 2 of 4 pairs ranked right;
    # class 1 vs rest: positives 0.6, 0.4 against 0.3, 0.5 -> 3 of 4; class 2 left out
    assert metrics["roc_auc"] == pytest.approx((2 / 4 + 3 / 4) / 2)
    # Tau over the classes with true objects (recalls 1/2, 1/2), k = 2
    assert metrics["tau"] == pytest.approx(1 - math.sqrt(0.25 + 0.25) / math.sqrt(2))


def test_without_probabilities_the_losses_are_undefined():
    y_test = np.array([0, 1, 0, 1])
    decision = np.array([-1.0, 2.0, 0.5, 0.1])
    metrics = score_predictions(y_test, (decision > 0).astype(int), None, decision, n_classes=2)
    assert metrics["roc_auc"] == pytest.approx(0.75)  # 3 of the 4 pairs ranked right
    for name in ("log_loss", "quadratic_loss", "informational_loss"):
        assert np.isnan(metrics[name])


def test_auc_of_a_fold_with_one_class_is_undefined():
    y = np.array([1, 1, 1])
    metrics = score_predictions(y, y, None, np.array([0.2, 0.4, 0.9]), n_classes=2)
    assert np.isnan(metrics["roc_auc"])
    assert metrics["balanced_accuracy"] == pytest.approx(1.0)


def test_stored_metrics_of_the_majority_model_on_stratified_folds(tmp_path):
    """iris, cv5: every test fold holds 10 objects of each of the k = 3 classes.

    ``DummyClassifier(strategy="most_frequent")`` sees a three-way tie in training, predicts
    class 0 everywhere and gives it probability 1: recalls (1, 0, 0).
    """
    kb = KnowledgeBase(f"sqlite:///{tmp_path / 'kb.sqlite'}")
    run_benchmark(
        ["sklearn:iris"],
        kb,
        algorithms=["majority", "gaussian_nb"],
        protocol="cv5",
        cache_dir=tmp_path / "cache",
    )
    runs = kb.runs(aggregate=False)
    majority = runs[runs["algorithm"] == "majority"]
    assert len(majority) == 5
    k = 3
    wrong = 2 / 3  # the share of objects given probability ~1e-15 for their class
    expected = {
        "accuracy": 1 / k,
        "balanced_accuracy": 1 / k,
        "tau": 1 - math.sqrt(k - 1) / math.sqrt(k),  # 1 - ||(0, 1, 1)|| / sqrt(3)
        "roc_auc": 0.5,  # constant scores in every one-vs-rest column
        "nosimple_auc": 0.5,  # constant scores rank nothing
        "log_loss": wrong * -math.log(EPS / (1 + 2 * EPS)),
        "quadratic_loss": wrong * 2.0,  # (1 - 0)^2 + (0 - 1)^2 per misclassified object
        "informational_loss": wrong * -math.log2(EPS / (1 + 2 * EPS)),
    }
    for metric, value in expected.items():
        assert np.allclose(majority[metric].astype(float), value, rtol=1e-5), metric
    # the informative model: NoSimple AUC is defined and at most its plain AUC
    nb = runs[runs["algorithm"] == "gaussian_nb"]
    assert nb["nosimple_auc"].notna().all()
    assert (nb["nosimple_auc"] <= nb["roc_auc"] + 1e-9).all()
    assert (nb["fit_time"] > 0).all() and (nb["fit_wall_time"] > 0).all()
    # each run names the machine that measured its times
    assert (runs["machine"] == machine_description()).all()
    assert (runs["source"] == BENCHMARK_SOURCE).all()  # storage's rule for older exports
    assert (
        runs["source_run_id"]
        == "sklearn:iris/" + runs["algorithm"] + "/cv5/0/" + runs["fold"].astype(str)
    ).all()


def test_export_builtin_round_trips_through_the_builtin_loader(tmp_path):
    from metarec.storage._layers import read_part

    kb = KnowledgeBase(f"sqlite:///{tmp_path / 'kb.sqlite'}")
    kb.add_algorithm("tree", family="tree", library="scikit-learn==1.0", parameters={"depth": 3})
    kb.add_dataset("d1", source="file", task="binary", n_instances=10, n_features=2)
    kb.import_runs(
        pd.DataFrame(
            {
                "dataset": ["d1", "d1"],
                "algorithm": ["tree", "tree"],
                "fold": [0, 1],
                "accuracy": [0.75, 0.5],
                "time": [0.125, 0.25],
                "roc_auc": [0.8, 0.6],
            }
        )
    )
    kb.import_metafeatures(pd.DataFrame({"dataset": ["d1"], "n_instances": [10.0]}))
    written = export_builtin(kb, tmp_path / "out")
    assert set(written) == {"runs", "metafeatures", "datasets", "algorithms"}
    assert all(p.is_file() and p.suffix == ".parquet" for p in written.values())
    runs = pd.read_parquet(written["runs"])
    assert runs["accuracy"].dtype == np.float32 and runs["roc_auc"].dtype == np.float32
    algorithms = pd.read_parquet(written["algorithms"])
    assert algorithms.loc[0, "parameters"] == '{"depth": 3}'
    part = read_part(written)  # as the package reads its resource files
    back = part.runs.sort_values("fold")
    assert back["accuracy"].tolist() == [0.75, 0.5]  # exact in float32
    assert back["fit_time"].tolist() == [0.125, 0.25]
    assert back["roc_auc"].to_numpy() == pytest.approx([0.8, 0.6], rel=1e-6)
    assert part.metafeatures.loc[0, "n_instances"] == 10.0
    assert part.algorithms.loc[0, "library"] == "scikit-learn==1.0"


def test_balanced_accuracy_and_log_loss_agree_with_scikit_learn_on_any_fold():
    import warnings

    from sklearn.metrics import balanced_accuracy_score, log_loss

    rng = np.random.default_rng(0)
    folds = [(np.array([2]), np.array([1]))]  # leave-one-out: one row, predicted wrong
    folds += [(np.array([1, 1, 1]), np.array([1, 0, 1]))]  # one true class
    folds += [(np.array([0, 0, 1, 1]), np.array([0, 2, 1, 1]))]  # class 2 only predicted
    folds += [(rng.integers(0, 4, 50), rng.integers(0, 4, 50)) for _ in range(5)]
    for y_test, y_pred in folds:
        proba = rng.dirichlet(np.ones(4), size=y_test.size)
        proba[0, y_test[0]] = 0.0  # a true class given probability 0: clipped at 1e-15
        proba /= proba.sum(axis=1, keepdims=True)
        metrics = score_predictions(y_test, y_pred, proba, None, n_classes=4)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            expected = balanced_accuracy_score(y_test, y_pred)
        assert metrics["balanced_accuracy"] == pytest.approx(expected, abs=1e-15)
        clipped = np.clip(proba, EPS, 1.0)
        clipped /= clipped.sum(axis=1, keepdims=True)
        expected = log_loss(y_test, clipped, labels=np.arange(4))
        assert metrics["log_loss"] == pytest.approx(expected, rel=1e-12)
    # by hand: recalls 1/2 (class 0) and 2/2 (class 1); the predicted-only class 2 is left out
    metrics = score_predictions(
        np.array([0, 0, 1, 1]), np.array([0, 2, 1, 1]), None, None, n_classes=3
    )
    assert metrics["balanced_accuracy"] == pytest.approx(0.75)
    assert (
        score_predictions(np.array([2]), np.array([1]), None, None, n_classes=3)[
            "balanced_accuracy"
        ]
        == 0.0
    )
