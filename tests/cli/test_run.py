"""``metarec run`` from the command line: real files, a real SQLite KB, real worker processes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import joblib
import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from metarec.automl import LabelledClassifier
from metarec.cli import cli
from metarec.recommender import PerformanceMatrix
from metarec.storage import KnowledgeBase


def _run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def _data(path, n=200, seed=0, classes=("yes", "no")):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n)})
    signal_ = frame["a"] + rng.normal(scale=0.7, size=n) > 0
    frame["label"] = np.where(signal_, classes[0], classes[-1])
    frame.to_csv(path, index=False)
    return path


def test_run_ranks_evaluates_and_saves_a_model(tmp_path):
    # seed 1: rows on which ensemble selection over the defaults and configurations makes
    # an ensemble (on others the best model alone can win every round)
    data = _data(tmp_path / "toy.csv", seed=1)
    url = f"sqlite:///{tmp_path / 'kb.sqlite'}"
    model = tmp_path / "model.joblib"
    # a budget far beyond what the 200 rows need (about 15 s): every algorithm runs, so the
    # answer does not depend on the machine's speed (the calls after it reuse every fold; the
    # budgets add up to less than pytest's timeout of a test, 300 s)
    result = _run(
        "--db", url, "run", data, "--target", "label", "--budget", "120", "--output", model,
        "--format", "json", "-o", tmp_path / "curve.png", "--ensemble-method", "selection",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    rows = doc["results"]
    assert rows[0]["status"] == "ok"
    # the best of the answer: the first of its members in the leaderboard's order
    assert doc["best"] == next(r["algorithm"] for r in rows if r["algorithm"] in doc["ensemble"])
    assert doc["runs_stored"] >= 5 * sum(r["status"] == "ok" for r in rows)
    assert {"cv_score", "cv_sd", "fit_time", "planned", "order", "status"} <= set(rows[0])
    estimator = joblib.load(model)
    frame = pd.read_csv(data)
    accuracy = np.mean(estimator.predict(frame[["a", "b"]]) == frame["label"])
    assert accuracy > 0.7
    sidecar = json.loads(model.with_suffix(".json").read_text())
    assert sidecar["algorithm"] == doc["best"] and sidecar["dataset"] == "toy"
    # the answer: ensemble selection over the out-of-fold predictions, weights = counts
    assert doc["ensemble"] == sidecar["ensemble"] and doc["weights"] == pytest.approx(
        [m["weight"] for m in sidecar["members"]]
    )
    assert sum(doc["weights"]) == pytest.approx(1.0) and len(doc["ensemble"]) > 1
    assert doc["answer"] == "selection"
    assert (tmp_path / "curve.png").stat().st_size > 0
    # the runs are in the KB: a second call reuses every stored fold
    again = _run(
        "--db", url, "run", data, "--target", "label", "--budget", "30", "--format", "json",
        "--ensemble-method", "selection",
    )  # fmt: skip
    assert again.exit_code == 0, again.output
    second = json.loads(again.stdout)
    after = {r["algorithm"]: r for r in second["results"]}
    for row in rows:
        if row["status"] == "ok":
            assert after[row["algorithm"]]["status"] == "stored"
            assert after[row["algorithm"]]["cv_score"] == pytest.approx(row["cv_score"])
    assert second["runs_stored"] == 0  # nothing new ran: every fold was reused
    # the reused folds' predictions were kept: an ensemble again (without them, the best
    # alone), of algorithms whose folds were reused (the knowledge base, grown by the first
    # call, may weigh them otherwise)
    assert second["answer"] == "selection" and len(second["ensemble"]) > 1
    alone = _run(
        "--db", url, "run", data, "--target", "label", "--budget", "30", "--ensemble", "1",
        "--format", "json", "--output", model,
    )  # fmt: skip
    assert alone.exit_code == 0, alone.output
    assert json.loads(alone.stdout)["ensemble"] == [json.loads(alone.stdout)["best"]]
    assert type(joblib.load(model)).__name__ == "LabelledClassifier"
    # the default answer: an equal-weight average of the three best of the leaderboard and
    # the knowledge base's single best algorithm (200 rows: each of them joins)
    average = _run(
        "--db", url, "run", data, "--target", "label", "--budget", "30", "--format", "json",
        "--output", model,
    )  # fmt: skip
    assert average.exit_code == 0, average.output
    third = json.loads(average.stdout)
    complete = [r["algorithm"] for r in third["results"] if r["selection_score"] is not None]
    top = complete[:3]
    anchor = PerformanceMatrix.from_kb(KnowledgeBase(url), task="classification").single_best(
        exclude=["toy"]
    )
    assert anchor is not None  # (it joins when it ran here: its library is installed)
    assert third["ensemble"] == top + [anchor] * (anchor in complete and anchor not in top)
    assert third["answer"] == "average" and third["best"] == top[0]
    assert third["weights"] == pytest.approx([1 / len(third["ensemble"])] * len(third["ensemble"]))
    fitted = joblib.load(model)
    assert type(fitted).__name__ == "AveragedClassifier"
    members = [
        LabelledClassifier.from_fitted(m, fitted.classes_, ["a", "b"]) for m in fitted.estimators_
    ]
    X = frame[["a", "b"]]
    votes = [
        m.predict_proba(X) if hasattr(m, "predict_proba")
        else np.eye(2)[m.pipeline_.predict(X)]
        for m in members
    ]  # fmt: skip
    np.testing.assert_allclose(fitted.predict_proba(X), np.mean(votes, axis=0))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--budget", "0"], "positive"),
        (["--budget", "ten minutes"], "not a duration"),
        (["--budget", "0.5s"], "a budget of '0.5s' is too short: a search needs at least 1 s"),
        (["--output", "missing/model.joblib"], "does not exist"),
        (["--output", "model.txt"], "must end in"),
        (["--protocol", "cv7"], "cv7"),
        (["-j", "0"], "0 workers"),
        (["--ensemble", "0"], "--ensemble"),
        (["--memory-limit", "0"], "--memory-limit"),
    ],
)
def test_bad_options_fail_before_any_work(tmp_path, monkeypatch, args, message):
    data = _data(tmp_path / "toy.csv")
    kb_path = tmp_path / "kb.sqlite"
    monkeypatch.chdir(tmp_path)
    result = _run("--db", f"sqlite:///{kb_path}", "run", data, "--target", "label", *args)
    assert result.exit_code != 0
    assert message in result.output
    assert "Traceback" not in result.output
    assert not kb_path.exists()  # nothing written


def test_an_unwritable_sidecar_fails_before_any_work(tmp_path, monkeypatch):
    """``--output side.joblib`` also writes ``side.json``: a folder of that name is refused
    while parsing, and so is a place where no file can be created."""
    data = _data(tmp_path / "toy.csv")
    kb_path = tmp_path / "kb.sqlite"
    (tmp_path / "side.json").mkdir()
    monkeypatch.chdir(tmp_path)
    args = ("--db", f"sqlite:///{kb_path}", "run", data, "--target", "label")
    result = _run(*args, "--output", "side.joblib")
    assert result.exit_code == 2 and "cannot write side.json: it is a folder" in result.output
    real_open = os.open

    def no_create(path, flags, *rest):
        if str(path).endswith("other.joblib"):
            raise OSError(30, "Read-only file system")
        return real_open(path, flags, *rest)

    monkeypatch.setattr(os, "open", no_create)
    result = _run(*args, "--output", "other.joblib")
    assert result.exit_code == 2
    assert "cannot write other.joblib: read-only file system" in result.output
    assert not kb_path.exists() and not (tmp_path / "side.joblib").exists()


def test_one_class_and_unknown_target_are_one_line_errors(tmp_path):
    one = _data(tmp_path / "one.csv", classes=("same",))
    url = f"sqlite:///{tmp_path / 'kb.sqlite'}"
    result = _run("--db", url, "run", one, "--target", "label", "--budget", "5")
    assert result.exit_code == 1 and result.output.startswith("Error:")
    assert len(result.output.strip().splitlines()) == 1 and "class" in result.output
    result = _run("--db", url, "run", one, "--target", "nope", "--budget", "5")
    assert result.exit_code == 1 and "nope" in result.output
    assert not (tmp_path / "kb.sqlite").exists()


def test_a_file_that_changed_since_its_runs_is_refused_and_nothing_is_stored(tmp_path):
    url = f"sqlite:///{tmp_path / 'kb.sqlite'}"
    kb = KnowledgeBase(url)
    kb.import_runs(
        pd.DataFrame({"dataset": ["toy"], "algorithm": ["knn"], "accuracy": [0.9], "time": [1.0]})
    )
    data = _data(tmp_path / "toy.csv")
    kb.add_dataset("toy", source="file", source_id=data, fingerprint="0" * 64)
    before = kb.count("runs")
    result = _run("--db", url, "run", data, "--target", "label", "--budget", "10")
    assert result.exit_code == 1, result.output
    assert f"holds 'toy' from {data} with other content (the file changed" in result.output
    assert KnowledgeBase(url).count("runs") == before


@pytest.mark.slow
def test_ctrl_c_keeps_the_finished_folds_and_saves_the_best_so_far(tmp_path):
    data = _data(tmp_path / "big.csv", n=15000)  # minutes for every algorithm, seconds for a few
    url = f"sqlite:///{tmp_path / 'kb.sqlite'}"
    model = tmp_path / "model.joblib"
    env = {**os.environ, "METAREC_HOME": str(tmp_path / "home")}
    command = [
        sys.executable, "-m", "metarec", "--db", url, "run", str(data), "--target", "label",
        "--budget", "10m", "--output", str(model), "--format", "json",
    ]  # fmt: skip
    # the built-in knowledge base built in this home first (once per installation), so that
    # the seconds below are the search's, however loaded the machine
    prepare = [sys.executable, "-m", "metarec", "recommend", "sklearn:iris", "--format", "csv"]
    subprocess.run(prepare, env=env, capture_output=True, check=True)
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    time.sleep(12)  # past the start-up, with a few algorithms evaluated
    assert process.poll() is None, process.communicate()
    sent = time.perf_counter()
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)
    stopped_in = time.perf_counter() - sent
    assert process.returncode == 130, err.decode()
    assert stopped_in < 5
    doc = json.loads(out)
    done = [r["algorithm"] for r in doc["results"] if r["status"] == "ok"]
    # the best so far whose refit takes about a second, refitted at once: any better one
    # finished (svc_rbf when the machine was quick) is said not to be refitted
    assert done and doc["best"] in done
    for better in done[: done.index(doc["best"])]:
        assert any(note.startswith(f"{better} not refitted") for note in doc["notes"]), doc
    assert model.exists()
    kb = KnowledgeBase(url)
    stored = kb.runs(aggregate=False, datasets=["big"])
    assert set(stored["algorithm"]) >= set(done)
    # no worker outlives the command
    time.sleep(0.5)
    leftover = subprocess.run(
        ["pgrep", "-f", "metarec.execution._worker"], capture_output=True, text=True
    ).stdout.split()
    mine = f"METAREC_WORKER_PARENT={process.pid}".encode()
    assert not [pid for pid in leftover if mine in _environment(pid)]


def _environment(pid: str) -> list[bytes]:
    try:
        with open(f"/proc/{pid}/environ", "rb") as handle:
            return handle.read().split(b"\0")
    except OSError:
        return []


def test_an_interruption_before_any_model_says_none_was_written(tmp_path, monkeypatch):
    from metarec.automl import AutoClassifier
    from metarec.benchmark import BenchmarkInterrupted

    def stopped_at_once(self, ds, **kwargs):
        raise BenchmarkInterrupted(signal.SIGINT, 0)

    monkeypatch.setattr(AutoClassifier, "fit_dataset", stopped_at_once)
    model = tmp_path / "model.joblib"
    url = f"sqlite:///{tmp_path / 'kb.sqlite'}"
    result = _run("--db", url, "run", _data(tmp_path / "toy.csv"), "--target", "label",
                  "--output", model)  # fmt: skip
    assert result.exit_code == 130, result.output
    assert f"no model written to {model}: interrupted before anything finished" in result.output
    assert not model.exists()


def test_a_signal_while_the_metafeatures_are_computed_is_an_interruption(tmp_path, monkeypatch):
    import metarec.automl._search as search_module
    from metarec.execution import Stop

    def signalled(*args, **kwargs):  # what the SIGINT handler raises at that moment
        raise Stop(signal.SIGINT)

    monkeypatch.setattr(search_module, "_metafeatures", signalled)
    url = f"sqlite:///{tmp_path / 'kb.sqlite'}"
    model = tmp_path / "model.joblib"
    result = _run("--db", url, "run", _data(tmp_path / "toy.csv"), "--target", "label",
                  "--output", model)  # fmt: skip
    assert result.exit_code == 130, result.output
    assert "Traceback" not in result.output and "Stop" not in result.output
    assert f"no model written to {model}" in result.output


# ------------------------------------------------------------------ under stress, real processes
def _process(args, env):
    return subprocess.Popen(
        [sys.executable, "-m", "metarec", *map(str, args)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _children(pid: int) -> set[int]:
    """The live worker processes started by ``pid`` (by their command line)."""
    found = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                parent = int(handle.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                command = handle.read()
        except OSError:
            continue
        if parent == pid and b"metarec.execution._worker" in command:
            found.add(int(entry))
    return found


@pytest.mark.slow
def test_a_thousand_jobs_asked_use_the_cores_and_the_budget_holds(tmp_path):
    """``-j 999 --budget 5`` on 600 rows: never more live workers than cores (+1 for a
    helper), said once, and the command ends within 5 x 1.1 + 3 s; ``-j -1`` keeps its
    meaning (every core) and ``-j 0`` is refused."""
    from metarec.execution import available_cores
    from metarec.storage import open_seeded

    data = _data(tmp_path / "six.csv", n=600)
    url = f"sqlite:///{tmp_path / 'kb.sqlite'}"
    open_seeded(url)[0].close()  # a warm knowledge base: its copy is not the budget's
    env = {**os.environ, "METAREC_HOME": str(tmp_path / "home")}
    started = time.perf_counter()
    process = _process(["--db", url, "run", data, "--target", "label", "--budget", "5",
                        "-j", "999", "--no-store"], env)  # fmt: skip
    most = 0
    while process.poll() is None:
        most = max(most, len(_children(process.pid)))
        time.sleep(0.05)
    elapsed = time.perf_counter() - started
    out, err = process.communicate()
    assert process.returncode == 0, err
    cores = available_cores()
    assert 1 <= most <= cores + 1
    assert err.count(f"-j 999: {cores} worker process(es)") == 1
    assert elapsed <= 5 * 1.1 + 3
    every = _run("--db", url, "run", data, "--target", "label", "--budget", "5", "-j", "-1",
                 "--no-store", "--format", "json")  # fmt: skip
    assert every.exit_code == 0 and "worker process(es)" not in every.output
    refused = _run("--db", url, "run", data, "--target", "label", "-j", "0")
    assert refused.exit_code == 2 and "0 workers cannot run anything" in refused.output


@pytest.mark.slow
def test_values_at_the_float64_limit_fail_their_folds_not_the_command(tmp_path):
    """A column of +-1e308 and one of infinities: the models that overflow (standardised
    features) fail their folds, stored as failed with the reason; the others answer."""
    rng = np.random.default_rng(0)
    n = 300
    X = rng.normal(size=(n, 3))
    X[::7, 0], X[3::7, 0], X[5::11, 1] = 1e308, -1e308, np.inf
    y = np.where(X[:, 2] + rng.normal(scale=0.5, size=n) > 0, "yes", "no")
    data = tmp_path / "limit.csv"
    pd.DataFrame(X, columns=["huge", "infinite", "x"]).assign(label=y).to_csv(data, index=False)
    url = f"sqlite:///{tmp_path / 'kb.sqlite'}"
    model = tmp_path / "model.joblib"
    result = _run("--db", url, "run", data, "--target", "label", "--budget", "60",
                  "--metric", "roc_auc", "--output", model, "--format", "json")  # fmt: skip
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    statuses = {r["algorithm"]: r["status"] for r in doc["results"]}
    assert "error" in statuses.values() and "ok" in statuses.values()
    runs = KnowledgeBase(url).runs(aggregate=False, datasets=["limit"])
    failed = runs[runs["status"] == "error"]
    assert len(failed) and failed["error"].str.contains("inf|NaN|non-finite", case=False).all()
    assert set(failed["algorithm"]) == {a for a, s in statuses.items() if s == "error"}
    loaded = joblib.load(model)
    frame = pd.read_csv(data)
    assert set(loaded.predict(frame[["huge", "infinite", "x"]])) <= {"yes", "no"}
    # the knowledge base now holds metafeatures beyond float32: the next call still ranks
    again = _run("--db", url, "recommend", data, "--target", "label")
    assert again.exit_code == 0, again.output


@pytest.mark.slow
def test_a_fresh_home_and_a_three_second_budget_save_a_model(tmp_path):
    """The first call of a new user on 200 rows with --budget 3: a model is saved
    (evaluated, or the knowledge base's best expectation fitted without evaluation when
    nothing finished its folds), and the new knowledge base builds on the built-in one and
    holds only this run's rows (nothing of the built-in one is copied)."""
    data = _data(tmp_path / "first.csv")
    model = tmp_path / "model.joblib"
    env = {**os.environ, "METAREC_HOME": str(tmp_path / "new-home")}
    env.pop("METAREC_DB", None)
    process = _process(["run", data, "--target", "label", "--budget", "3", "--output", model],
                       env)  # fmt: skip
    out, err = process.communicate(timeout=120)
    assert process.returncode == 0, err
    assert model.exists() and model.with_suffix(".json").exists()
    kb = KnowledgeBase(tmp_path / "new-home" / "kb.sqlite")
    assert kb.builds_on == "builtin"
    assert set(kb.datasets().query("origin == 'user'")["name"]) <= {"first"}
    assert kb.count("datasets", part="own") <= 1 and kb.count("algorithms", part="own") <= 23
