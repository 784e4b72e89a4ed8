"""``metarec run``'s options, each given a valid value and checked for what it changes.

Every search starts from a copy of the seeded knowledge base (``seeded_kb``: the built-in one,
its recommenders fitted), on a few hundred rows with one holdout fold: every algorithm is
evaluated in about 4 s, and the budget is kept well above that, so that a search ends when
its work is done (a test lasts seconds) and what it finds never depends on how busy the
machine is.  Only the test of ``--protocol cv10`` runs out of its budget.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import threading
from pathlib import Path

import joblib
import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from sklearn.base import is_classifier, is_regressor

from metarec.algorithms import default_portfolio
from metarec.cli import cli
from metarec.storage import KnowledgeBase

#: The budget of a search that evaluates every algorithm (about 4 s of work when quiet).
AMPLE = 40
#: Every algorithm's one fold (the data are small): what the budget allows does not change.
QUICK = ("--protocol", "holdout", "--budget", AMPLE)


def _run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def _search(url, data, *args):
    """``metarec run DATA --target label ... --format json``: its JSON document."""
    result = _run("--db", url, "run", data, "--target", "label", *args, "--format", "json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _labels(path, n=150, seed=0, positive=0.5):
    """A binary frame: the label mostly follows ``a`` (``positive``: share of 'yes')."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n)})
    score = frame["a"] + rng.normal(scale=0.7, size=n)
    frame["label"] = np.where(score > np.quantile(score, 1 - positive), "yes", "no")
    frame.to_csv(path, index=False)
    return path


def _rings(path, n=240, seed=0):
    """Two noisy classes a linear model cannot split (inside or outside a ring), so that the
    algorithms' scores differ, and differ between splits."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    radius = np.hypot(X[:, 0], X[:, 1]) + rng.normal(scale=0.35, size=n)
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    frame["label"] = np.where(radius > 1.1, "outside", "inside")
    frame.to_csv(path, index=False)
    return path


def _content(path: Path) -> str:
    """Digest of a SQLite file's content: the file and its write-ahead log (where writes wait
    while a connection is open; an empty or absent log holds nothing)."""
    digest = hashlib.sha256(path.read_bytes())
    for suffix in ("-wal", "-journal"):
        side = path.with_name(path.name + suffix)
        digest.update(side.read_bytes() if side.exists() else b"")
    return digest.hexdigest()


def _complete(doc) -> dict[str, dict]:
    """The leaderboard rows of the algorithms that finished every fold."""
    return {r["algorithm"]: r for r in doc["results"] if r["status"] in ("ok", "stored")}


def _scores(doc) -> dict[str, tuple]:
    return {a: (r["cv_score"], r["cv_sd"]) for a, r in _complete(doc).items()}


def _assert_same_answer(first, second):
    """The same algorithms finished with the same fold scores, and each run's answer is one
    of the best by selection score (ties go to the faster fit: a measured time)."""
    assert _scores(first) == _scores(second)
    selection = {a: r["selection_score"] for a, r in _complete(first).items()}
    assert selection == {a: r["selection_score"] for a, r in _complete(second).items()}
    top = {a for a, score in selection.items() if score == max(selection.values())}
    assert first["best"] in top and second["best"] in top


# --------------------------------------------------------------------------- --no-store
def test_no_store_leaves_the_knowledge_base_unchanged(seeded_kb, tmp_path):
    url, path = seeded_kb
    data = _labels(tmp_path / "toy.csv")
    before = _content(path)
    doc = _search(url, data, *QUICK, "--no-store")
    assert doc["runs_stored"] == 0 and doc["best"]
    assert len(_complete(doc)) >= 10  # folds were evaluated
    assert _content(path) == before
    kb = KnowledgeBase(url)
    assert "toy" not in set(kb.datasets()["name"])
    # a knowledge base that does not exist is read as the built-in one, not created
    missing = tmp_path / "none.sqlite"
    doc = _search(f"sqlite:///{missing}", data, *QUICK, "--no-store")
    assert doc["runs_stored"] == 0 and doc["best"] and not missing.exists()


# --------------------------------------------------------------------------- --portfolio
def test_portfolio_adds_an_algorithm_the_search_evaluates_and_stores(seeded_kb, tmp_path):
    """The file's algorithm joins the default ones: evaluated (after those the knowledge base
    knows), stored under its own estimator, and described when it is a member."""
    url, _ = seeded_kb
    data = _labels(tmp_path / "toy.csv")
    extra = tmp_path / "extra.json"
    extra.write_text(json.dumps({"algorithms": [
        {"name": "nearest_centroid", "estimator": "sklearn.neighbors:NearestCentroid",
         "family": "neighbors", "scale": True}]}))  # fmt: skip
    doc = _search(url, data, *QUICK, "--portfolio", extra)
    assert "nearest_centroid" in _complete(doc)
    runs = KnowledgeBase(url).runs(aggregate=False, datasets=["toy"])
    assert "nearest_centroid" in set(runs["algorithm"])
    algorithms = KnowledgeBase(url).algorithms().set_index("name")
    assert "NearestCentroid" in str(algorithms.loc["nearest_centroid"].to_dict())
    result = _run("--db", url, "run", data, "--target", "label", "--portfolio", tmp_path / "no")
    assert result.exit_code == 2 and "--portfolio" in result.output


# --------------------------------------------------------------------------- --memory-limit
def test_memory_limit_fails_a_fit_that_needs_more_and_the_rest_answer(seeded_kb, tmp_path):
    """A fit allocating 2,000 MB under ``--memory-limit 500`` is an error row of the
    leaderboard naming the cap; the default algorithms finish and make the answer."""
    url, _ = seeded_kb
    data = _labels(tmp_path / "toy.csv")
    extra = tmp_path / "greedy.json"
    extra.write_text(json.dumps({"algorithms": [
        {"name": "greedy", "estimator": "tests.benchmark.estimators:GreedyClassifier",
         "params": {"megabytes": 2000}, "family": "test", "scale": False}]}))  # fmt: skip
    doc = _search(url, data, *QUICK, "--no-store", "--portfolio", extra, "--memory-limit", 500)
    rows = {r["algorithm"]: r for r in doc["results"]}
    assert rows["greedy"]["status"] == "error"
    assert "exceeded the memory cap of 500" in rows["greedy"]["message"]
    assert doc["best"] != "greedy" and len(_complete(doc)) >= 10


# --------------------------------------------------------------------------- --task, --as-classes
def _codes(path):
    """Whole numbers 1 to 8: class labels unless told otherwise."""
    return _whole_numbers(path, levels=8, each=20)


def _grades(path):
    """Whole numbers 1 to 35: a regression target unless told otherwise (more than 30)."""
    return _whole_numbers(path, levels=35, each=6)


def _whole_numbers(path, levels, each, seed=0):
    """``levels`` whole numbers, ``each`` rows of every one, which ``a`` follows."""
    rng = np.random.default_rng(seed)
    label = rng.permutation(np.repeat(np.arange(1, levels + 1), each))
    frame = pd.DataFrame(
        {"a": label + rng.normal(size=label.size), "b": rng.normal(size=label.size)}
    )
    frame["label"] = label
    frame.to_csv(path, index=False)
    return path


@pytest.mark.parametrize(
    ("make", "args", "task"),
    [
        (_codes, ["--task", "regression"], "regression"),
        (_grades, ["--task", "classification"], "classification"),
        (_grades, ["--as-classes"], "classification"),
    ],
)
def test_task_and_as_classes_choose_what_kind_of_model(seeded_kb, tmp_path, make, args, task):
    url, _ = seeded_kb
    data = make(tmp_path / "data.csv")
    detected = _run("metafeatures", data, "--target", "label", "--groups", "general",
                    "--format", "json")  # fmt: skip
    assert detected.exit_code == 0, detected.output
    assert (json.loads(detected.stdout)["task"] == "regression") != (task == "regression")
    model = tmp_path / "model.joblib"
    doc = _search(url, data, *args, *QUICK, "--output", model, "--no-store")
    assert doc["task"] == task
    # the defaults of the task and their configurations (the knowledge base knows them)
    portfolio = {
        a.name for a in default_portfolio(task=task, configurations=True) if a.is_installed()
    }
    assert {r["algorithm"] for r in doc["results"]} == portfolio
    estimator = joblib.load(model)
    assert is_regressor(estimator) if task == "regression" else is_classifier(estimator)
    sidecar = json.loads(model.with_suffix(".json").read_text())
    assert sidecar["task"] == task and sidecar["algorithm"] == doc["best"] in portfolio
    frame = pd.read_csv(data)
    predicted = estimator.predict(frame[["a", "b"]])
    if task == "regression":
        assert predicted.dtype.kind == "f" and sidecar["classes"] == []
    else:
        assert set(predicted) <= set(frame["label"])
        assert sorted(sidecar["classes"], key=int) == sorted(
            map(str, frame["label"].unique()), key=int
        )


# --------------------------------------------------------------------------- --metric
@pytest.mark.parametrize("metric", ["balanced_accuracy", "roc_auc"])
def test_metric_is_what_the_folds_are_scored_and_the_answer_chosen_by(seeded_kb, tmp_path, metric):
    url, _ = seeded_kb
    # one row in five is 'yes': the majority class is right 80 % of the time, and no better
    # than chance by balanced accuracy or ROC AUC
    data = _labels(tmp_path / "rare.csv", n=200, positive=0.2)
    model = tmp_path / "model.joblib"
    doc = _search(url, data, "--metric", metric, *QUICK, "--output", model)
    complete = _complete(doc)
    assert len(complete) >= 10
    stored = KnowledgeBase(url).runs(aggregate=False, datasets=["rare"])
    by_algorithm = stored.groupby("algorithm")
    differs = False
    for algorithm, row in complete.items():
        folds = by_algorithm.get_group(algorithm).sort_values("fold")
        assert row["cv_score"] == pytest.approx(folds[metric].mean())
        differs |= not np.isclose(folds[metric].mean(), folds["accuracy"].mean())
        # the knowledge base's expectations are of accuracy: no prior for this metric
        assert row["expected_score"] is None
        assert row["selection_score"] == pytest.approx(row["cv_score"])
    assert differs  # the data tells the metrics apart
    best = max(complete.values(), key=lambda r: r["selection_score"])["selection_score"]
    assert complete[doc["best"]]["selection_score"] == best
    sidecar = json.loads(model.with_suffix(".json").read_text())
    assert sidecar["metric"] == metric and sidecar["algorithm"] == doc["best"]
    folds = by_algorithm.get_group(doc["best"]).sort_values("fold")
    assert sidecar["fold_scores"] == pytest.approx(list(folds[metric]))


# --------------------------------------------------------------------------- --seed
def test_the_same_seed_gives_the_same_answer_and_another_seed_other_folds(seeded_kb, tmp_path):
    url, _ = seeded_kb
    data = _rings(tmp_path / "rings.csv")
    args = (*QUICK, "--no-store")
    first = _search(url, data, *args, "--seed", "7")
    again = _search(url, data, *args, "--seed", "7")
    assert len(_complete(first)) >= 10
    _assert_same_answer(first, again)
    other = _search(url, data, *args, "--seed", "8")
    common = _complete(first).keys() & _complete(other).keys()
    assert len(common) >= 10
    # another split of the rows: other scores (on these rows, for most algorithms)
    changed = [a for a in common if _scores(first)[a] != _scores(other)[a]]
    assert len(changed) > len(common) / 2


# --------------------------------------------------------------------------- --protocol
@pytest.mark.parametrize(
    ("protocol", "n_folds", "budget"),
    [("holdout", 1, AMPLE), ("cv10", 10, 10)],  # cv10: the algorithms that fit in 10 s
)
def test_protocol_sets_the_folds_evaluated_and_stored(
    seeded_kb, tmp_path, protocol, n_folds, budget
):
    url, _ = seeded_kb
    data = _labels(tmp_path / "toy.csv", n=100)
    model = tmp_path / "model.joblib"
    doc = _search(url, data, "--protocol", protocol, "--budget", budget, "--output", model)
    complete = _complete(doc)
    assert complete
    stored = KnowledgeBase(url).runs(aggregate=False, datasets=["toy"])
    assert set(stored["protocol"]) == {protocol}
    folds = stored.groupby("algorithm")["fold"].apply(sorted)
    for algorithm in complete:
        assert folds[algorithm] == list(range(n_folds))
    assert doc["runs_stored"] == len(stored) >= n_folds * len(complete)
    sidecar = json.loads(model.with_suffix(".json").read_text())
    assert sidecar["protocol"] == protocol and sidecar["folds"] == n_folds
    assert len(sidecar["fold_scores"]) == n_folds


# --------------------------------------------------------------------------- -j
class _Workers:
    """The most worker processes of this process alive at once, sampled while in use."""

    def __init__(self) -> None:
        self.most = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while not self._stop.wait(0.01):
            self.most = max(self.most, len(_worker_children()))

    def __enter__(self) -> _Workers:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()


def _worker_children() -> list[int]:
    """This process's children that run a module of metarec (``python -m metarec...``)."""
    children = []
    for task in Path("/proc/self/task").iterdir():
        try:
            children += (task / "children").read_text().split()
        except OSError:
            continue
    workers = []
    for pid in children:
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:  # ended meanwhile
            continue
        if len(command) > 2 and command[1] == b"-m" and command[2].startswith(b"metarec."):
            workers.append(int(pid))
    return workers


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads /proc (Linux)")
def test_two_jobs_run_on_two_workers_and_give_the_answer_of_one(seeded_kb, tmp_path):
    """-j 2 runs two workers (one on a machine, or an affinity, of one core: never more
    workers than cores), and the answer is the one of -j 1."""
    from metarec.execution import available_cores

    url, _ = seeded_kb
    data = _rings(tmp_path / "rings.csv")
    args = (*QUICK, "--no-store", "--seed", "3")
    with _Workers() as one:
        alone = _search(url, data, *args, "-j", "1")
    with _Workers() as two:
        pair = _search(url, data, *args, "-j", "2")
    assert (one.most, two.most) == (1, min(2, available_cores()))
    assert len(_complete(alone)) >= 10
    _assert_same_answer(alone, pair)


# --------------------------------------------------------------------------- --scheduler
@pytest.mark.slow
def test_scheduler_runs_the_folds_on_a_dask_cluster(seeded_kb, seeded_kb_template, tmp_path):
    pytest.importorskip("distributed")
    from distributed import LocalCluster

    url, _ = seeded_kb
    data = _rings(tmp_path / "rings.csv", n=120)
    args = ("--protocol", "holdout", "--seed", "5", "--budget", "120")
    with LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        with _Workers() as local:
            remote = _search(url, data, *args, "--scheduler", cluster.scheduler_address)
        prefixes = cluster.scheduler.task_prefixes.values()
        sent = sum(prefix.state_counts["processing"] for prefix in prefixes)
    assert local.most == 0  # no local worker: every fold went to the cluster
    complete = _complete(remote)
    assert len(complete) >= 10
    started = sum(r["order"] is not None for r in remote["results"])
    assert sent >= started  # every job evaluated went to the cluster as a task
    stored = KnowledgeBase(url).runs(aggregate=False, datasets=["rings"])
    assert set(stored["algorithm"]) >= set(complete) and remote["runs_stored"] == len(stored)
    # the cluster's fold scores are those of local workers (the same seed, the same folds)
    shutil.copyfile(seeded_kb_template, tmp_path / "local.sqlite")
    here = _search(f"sqlite:///{tmp_path / 'local.sqlite'}", data, *args, "--no-store")
    common = complete.keys() & _complete(here).keys()
    assert len(common) >= 10
    assert {a: _scores(remote)[a] for a in common} == {a: _scores(here)[a] for a in common}


# --------------------------------------------------------------------------- the README's note
def test_recommend_without_a_knowledge_base_says_it_uses_the_builtin_one(_isolated_home, real_kb):
    """The README's main command in a new home (no knowledge base of one's own) says, on
    standard error, which knowledge base it ranks by."""
    assert not any(_isolated_home.iterdir())
    note = "Using the built-in knowledge base (no runs in your own KB)."
    result = CliRunner().invoke(cli, ["recommend", "sklearn:breast_cancer"])
    assert result.exit_code == 0, result.output
    assert note in result.stderr.splitlines() and note not in result.stdout
    assert "extra_trees" in result.stdout  # the built-in knowledge base's algorithms
    assert not (_isolated_home / "kb.sqlite").exists()  # reading it made none
    # with runs in one's own knowledge base, that one is used, and nothing is said
    shutil.copyfile(real_kb[1], _isolated_home / "kb.sqlite")
    mine = CliRunner().invoke(cli, ["recommend", "sklearn:breast_cancer", "--format", "json"])
    assert mine.exit_code == 0, mine.output
    assert note not in mine.stderr
    assert {r["algorithm"] for r in json.loads(mine.stdout)["results"]} == {"fast", "mid", "slow"}
