"""Fault tests: each input below once gave a wrong or confusing result; each test fails on
the code as it was and passes now.  One block per area."""

from __future__ import annotations

import pytest

from tests.storage._kbs import kb_with_runs as _kb_with_runs

# --- CLI and data ---


def _cli(*args, **kwargs):
    from click.testing import CliRunner

    from metarec.cli import cli

    return CliRunner().invoke(cli, [str(a) for a in args], **kwargs)


def test_fault_db_after_the_command_name(tmp_path):
    """``metarec import runs FILE --db URL`` said "No such option '--db'"."""
    runs = tmp_path / "runs.csv"
    runs.write_text("dataset,algorithm,accuracy,time\niris,knn,0.9,1.0\n")
    db = tmp_path / "kb.sqlite"
    result = _cli("import", "runs", runs, "--db", f"sqlite:///{db}")
    assert result.exit_code == 0, result.output
    assert db.exists()


def test_fault_db_info_on_a_fresh_install(tmp_path, monkeypatch):
    """``metarec db info`` without a KB failed while ``recommend`` used the built-in KB."""
    monkeypatch.setenv("METAREC_HOME", str(tmp_path / "home"))
    result = _cli("db", "info")
    assert result.exit_code == 0, result.output
    assert (
        "recommendations use the built-in KB (203 classification and 191 regression datasets "
        "(138 of them samples of larger ones) × 42 algorithms" in result.stderr
    )


def test_fault_table_has_units_and_honest_precision():
    """Tables printed ``expected_time 0.02986`` and ``0.9234`` without units."""
    import click
    import pandas as pd
    from click.testing import CliRunner

    from metarec._commands._output import emit

    frame = pd.DataFrame(
        {"algorithm": ["svc"], "expected_accuracy": [0.9234], "expected_time": [0.02986]}
    )
    show = click.command()(lambda: emit(frame, "table"))
    out = CliRunner().invoke(show, []).stdout
    assert "92.3 %" in out and "0.030 s" in out
    assert "0.02986" not in out and "0.9234" not in out


def test_fault_bad_options_rejected_before_loading(tmp_path, monkeypatch):
    """``--n 0`` and ``--budget -5`` were rejected only after loading data and metafeatures."""

    def no_load(*args, **kwargs):
        raise AssertionError("data loaded before the options were checked")

    monkeypatch.setattr("metarec.data.load_dataset", no_load)
    for option, value in (("--n", "0"), ("--budget", "-5")):
        result = _cli("recommend", tmp_path / "data.csv", option, value)
        assert result.exit_code == 2, result.output
        assert option in result.output


def test_fault_duplicated_label_column_is_refused(tmp_path):
    """Two ``label`` columns: ``--target label`` took a feature and leaked the real label."""
    import pytest

    from metarec.data import load_dataset
    from metarec.exceptions import DataError

    path = tmp_path / "dup.csv"
    path.write_text("label,a,label\n0,1.0,yes\n1,2.0,no\n0,3.0,yes\n1,4.0,no\n")
    with pytest.raises(DataError, match=r"'label' at columns 1, 3"):
        load_dataset(path, target="label")


def test_fault_recommend_on_a_continuous_target_never_ranks_classifiers(tmp_path):
    """``recommend`` ranked classifiers by accuracy on a regression target."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(0)
    path = tmp_path / "reg.csv"
    pd.DataFrame({"a": rng.normal(size=40), "y": rng.normal(size=40)}).to_csv(path, index=False)
    kb = _kb_with_runs(tmp_path)  # classification results only
    result = _cli("--db", kb, "recommend", path)
    assert result.exit_code == 1, result.output
    assert result.output.splitlines()[-1].startswith(
        "Error: reg: target column 'y' looks continuous (40 distinct"
    )
    assert "holds no regression results to rank regressors from" in result.output


def test_fault_unsupported_formats_are_named(tmp_path):
    """``recommend data.json`` said "has no rows"; an .xlsx file gave a UnicodeDecodeError."""
    (tmp_path / "data.json").write_text('{"a": [1, 2], "y": ["p", "q"]}')
    (tmp_path / "data.xlsx").write_bytes(b"PK\x03\x04\x14\x00\x06\x00\x08\x00\xff\xfe\x00")
    for name in ("data.json", "data.xlsx"):
        result = _cli("recommend", tmp_path / name)
        assert result.exit_code == 1, result.output
        assert "unsupported format" in result.output and "supported: CSV" in result.output
        assert "no rows" not in result.output and "UnicodeDecodeError" not in result.output


def test_fault_infinite_values_count_as_missing():
    """A column one third ``inf`` counted 0 missing values."""
    import numpy as np
    import pandas as pd

    from metarec.data import load_dataset
    from metarec.metafeatures import extract

    a = np.arange(30, dtype=float)
    a[::3] = np.inf
    frame = pd.DataFrame({"a": a, "b": np.ones(30), "y": ["p", "q", "r"] * 10})
    dataset = load_dataset(frame)
    assert dataset.n_missing == 10
    assert extract(dataset.X, dataset.y, groups="general")["n_missing_values"] == 10


def test_fault_messages_print_plain_numbers():
    """Messages printed numpy reprs such as ``np.int64(7)``."""
    import numpy as np
    import pandas as pd
    import pytest

    from metarec.data import load_dataset
    from metarec.evaluation import a3r
    from metarec.exceptions import DataError, MetarecError

    frame = pd.DataFrame({"a": [1.0, 2.0], "y": np.array([7, 7], dtype=np.int64)})
    with pytest.raises(DataError) as info:
        load_dataset(frame)
    assert "(7)" in str(info.value) and "np." not in str(info.value)
    with pytest.raises(MetarecError) as info:
        a3r(np.array([0.9, -0.5]), np.array([1.0, 1.0]), 0.5, 1.0)
    assert "np." not in str(info.value) and "-0.5" in str(info.value)


# --- ingest ---


def _aslib_folder(tmp_path, *, runs=None, description=None):
    from tests.ingest.test_aslib import QUALITY_DESCRIPTION, QUALITY_FEATURES, QUALITY_RUNS

    folder = tmp_path / "MINI-WEKA"
    folder.mkdir()
    description = QUALITY_DESCRIPTION if description is None else description
    if isinstance(description, bytes):
        (folder / "description.txt").write_bytes(description)
    else:
        (folder / "description.txt").write_text(description)
    (folder / "algorithm_runs.arff").write_text(QUALITY_RUNS if runs is None else runs)
    (folder / "feature_values.arff").write_text(QUALITY_FEATURES)
    return folder


def _percent_runs():
    """QUALITY_RUNS with line 12 holding an accuracy in percent (80.0): invalid."""
    from tests.ingest.test_aslib import QUALITY_RUNS

    return QUALITY_RUNS.replace("d1,1,NaiveBayes,0.80", "d1,1,NaiveBayes,80.0")


def test_ingest_aslib_with_an_invalid_row_stores_nothing_and_cites_the_arff_line(tmp_path):
    from click.testing import CliRunner

    from metarec.cli import cli
    from metarec.storage import KnowledgeBase

    folder = _aslib_folder(tmp_path, runs=_percent_runs())
    url = f"sqlite:///{tmp_path / 'kb.sqlite'}"
    result = CliRunner().invoke(cli, ["--db", url, "ingest", "aslib", str(folder)])
    assert result.exit_code == 1, result.output
    assert result.output.count("\n") == 1 and result.output.startswith("Error: ")
    assert (
        f"{folder / 'algorithm_runs.arff'}, line 12, attribute 'predictive_accuracy': "
        "predictive_accuracy 80 is outside [0, 1]"
    ) in result.output
    assert "nothing was stored" in result.output and "--skip-invalid" in result.output
    assert "skip_invalid=True" not in result.output  # the CLI names its option, not Python's
    assert KnowledgeBase(url).count("runs") == 0  # was: 5 runs stored, exit 0


def test_ingest_aslib_skip_invalid_notes_cite_file_line_attribute_with_plain_numbers(tmp_path):
    from click.testing import CliRunner

    from metarec.cli import cli
    from metarec.storage import KnowledgeBase

    folder = _aslib_folder(tmp_path, runs=_percent_runs())
    url = f"sqlite:///{tmp_path / 'kb.sqlite'}"
    result = CliRunner().invoke(
        cli, ["--db", url, "ingest", "aslib", str(folder), "--skip-invalid", "--format", "csv"]
    )
    assert result.exit_code == 0, result.output
    assert "runs_added,5" in result.stdout and "runs_rejected,1" in result.stdout
    assert result.stderr == (
        f"Note: {folder / 'algorithm_runs.arff'}, line 12, attribute 'predictive_accuracy': "
        "predictive_accuracy 80 is outside [0, 1]\n"
    )
    assert KnowledgeBase(url).count("runs") == 5


def test_ingest_aslib_on_a_non_utf8_description_is_a_clear_one_line_error(tmp_path):
    from click.testing import CliRunner

    from metarec.cli import cli
    from tests.ingest.test_aslib import QUALITY_DESCRIPTION

    latin1 = QUALITY_DESCRIPTION.replace("MINI-WEKA", "MINI-W\u00c9KA").encode("latin-1")
    folder = _aslib_folder(tmp_path, description=latin1)
    url = f"sqlite:///{tmp_path / 'kb.sqlite'}"
    result = CliRunner().invoke(cli, ["--db", url, "ingest", "aslib", str(folder)])
    assert result.exit_code == 1, result.output  # was: 2, "Error: unexpected UnicodeDecodeError"
    assert result.output == (
        f"Error: {folder / 'description.txt'}, line 1: not UTF-8 text (byte 0xc9); "
        "save the file as UTF-8\n"
    )


def test_ingest_fixtures_use_the_real_knowledge_base_never_a_fake(tmp_path, monkeypatch):
    import sys

    import pytest

    from metarec.storage import KnowledgeBase
    from tests.ingest._fixtures import make_kb

    assert type(make_kb(f"sqlite:///{tmp_path / 'a.sqlite'}")) is KnowledgeBase
    monkeypatch.setitem(sys.modules, "metarec.storage", None)  # the store fails to import
    with pytest.raises(ImportError):  # was: a silent in-memory stand-in
        make_kb(f"sqlite:///{tmp_path / 'b.sqlite'}")


def test_ingest_messages_print_plain_numbers_not_numpy_reprs():
    import numpy as np

    from metarec.ingest import plain_numbers

    message = f"accuracy {np.float64(80.0)!r} is outside [0, 1]; seed {np.int64(-3)!r}"
    assert plain_numbers(message) == "accuracy 80.0 is outside [0, 1]; seed -3"


# --- benchmark runner ---
# A real `metarec benchmark sklearn:iris sklearn:wine sklearn:breast_cancer --protocol cv5`
# of the 20 scikit-learn algorithms of the default portfolio (the ones that need no extra):
# 3 datasets x 20 algorithms x 5 folds = 300 runs, in its own session, as a terminal runs it.

BENCHMARK_DATA = ["sklearn:iris", "sklearn:wine", "sklearn:breast_cancer"]
BENCHMARK_RUNS = 3 * 20 * 5


def _sklearn_algorithms() -> list[str]:
    from metarec.algorithms import default_portfolio

    names = [a.name for a in default_portfolio() if a.extra is None]  # the classifiers
    assert len(names) == 20
    return names


def _benchmark(tmp_path, jobs: int):
    import os
    import subprocess
    import sys

    command = [
        sys.executable,
        "-m",
        "metarec.cli",
        "--db",
        str(tmp_path / "kb.sqlite"),
        "benchmark",
        *BENCHMARK_DATA,
        "--protocol",
        "cv5",
        "-j",
        str(jobs),
        "--cache-dir",
        str(tmp_path / "cache"),
        "--format",
        "csv",
        *(f"--algorithm={name}" for name in _sklearn_algorithms()),
    ]
    env = dict(os.environ, METAREC_FAULT_TEST_TAG=str(tmp_path))  # inherited by descendants
    return subprocess.Popen(
        command,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, like a terminal's foreground job
    )


def _processes_of(tmp_path) -> list[int]:
    """Every live process started for the benchmark of ``tmp_path``: the CLI, its workers and
    anything else they started (found by an environment variable all of them inherit)."""
    import os
    from pathlib import Path

    found = []
    marker = f"METAREC_FAULT_TEST_TAG={tmp_path}\0".encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
            if state != "Z" and marker in (entry / "environ").read_bytes():
                found.append(int(entry.name))
        except (OSError, IndexError):
            continue
    return found


def _wait_until(condition, timeout: float, what: str) -> None:
    import time

    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.2)


def _fits_started(tmp_path) -> bool:
    return any((tmp_path / "cache").rglob("*.pkl"))


def _stored_runs(tmp_path):
    from metarec.storage import KnowledgeBase

    if not (tmp_path / "kb.sqlite").exists():
        return None
    kb = KnowledgeBase(f"sqlite:///{tmp_path / 'kb.sqlite'}")
    try:
        return kb.runs(aggregate=False)
    finally:
        kb.close()


def _count_runs(tmp_path) -> int:
    runs = _stored_runs(tmp_path)
    return 0 if runs is None else len(runs)


def _assert_whole_folds(runs) -> None:
    """Every stored (dataset, algorithm) has all 5 folds, and every stored dataset all 20."""
    if runs is None or not len(runs):
        return
    assert (runs.groupby(["dataset", "algorithm"])["fold"].nunique() == 5).all()
    assert (runs.groupby("dataset")["algorithm"].nunique() == 20).all()
    assert not runs["source_run_id"].duplicated().any()


def _stop(tmp_path, jobs: int, sig, *, to_group: bool, after_first_dataset: bool = False):
    """Start the benchmark, send ``sig`` once fits run; return (process, seconds to exit)."""
    import os
    import time

    from metarec.execution import available_cores

    process = _benchmark(tmp_path, jobs)
    try:
        _wait_until(lambda: _fits_started(tmp_path), 180, "the first finished job")
        if after_first_dataset:
            _wait_until(lambda: _count_runs(tmp_path) > 0, 300, "a stored dataset")
        assert process.poll() is None, "the benchmark ended before it could be interrupted"
        # the CLI and its workers (never more than the cores: one on a machine of one)
        assert len(_processes_of(tmp_path)) >= 1 + min(jobs, available_cores())
        sent = time.monotonic()
        if to_group:
            os.killpg(process.pid, sig)
        else:
            os.kill(process.pid, sig)
        process.wait(timeout=30)
        return process, time.monotonic() - sent
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def _rerun_stores_exactly_the_missing_runs(tmp_path, jobs: int, stored_before: int) -> None:
    process = _benchmark(tmp_path, jobs)
    out, err = process.communicate(timeout=900)
    assert process.returncode == 0, err
    values = dict(line.split(",", 1) for line in out.strip().splitlines()[1:])
    assert int(values["runs_stored"]) == BENCHMARK_RUNS - stored_before
    runs = _stored_runs(tmp_path)
    assert len(runs) == BENCHMARK_RUNS
    _assert_whole_folds(runs)


@pytest.mark.slow
@pytest.mark.parametrize("jobs", [1, 2])
def test_benchmark_ctrl_c_stops_keeps_whole_folds_and_resumes(tmp_path, jobs):
    import signal

    process, seconds = _stop(
        tmp_path, jobs, signal.SIGINT, to_group=True, after_first_dataset=jobs == 2
    )
    err = process.stderr.read()
    assert process.returncode == 130, err
    assert seconds < 5
    runs = _stored_runs(tmp_path)
    stored = 0 if runs is None else len(runs)
    assert f"interrupted: {stored} runs stored; run the same command again to resume" in err
    assert "Traceback" not in err and "Exception ignored" not in err
    if jobs == 2:
        assert stored > 0  # the first dataset was complete when Ctrl-C came
    _assert_whole_folds(runs)
    _wait_until(lambda: not _processes_of(tmp_path), 5, "no process left")
    _rerun_stores_exactly_the_missing_runs(tmp_path, jobs, stored)
    assert not _processes_of(tmp_path)


@pytest.mark.slow
def test_benchmark_sigterm_stops_and_leaves_no_process(tmp_path):
    import signal

    process, seconds = _stop(tmp_path, 2, signal.SIGTERM, to_group=False, after_first_dataset=True)
    err = process.stderr.read()
    assert process.returncode == 143, err
    assert seconds < 5
    assert "run the same command again to resume" in err
    runs = _stored_runs(tmp_path)
    assert runs is not None and len(runs) > 0  # a whole dataset was stored before SIGTERM
    _assert_whole_folds(runs)
    _wait_until(lambda: not _processes_of(tmp_path), 5, "no process left")


def _state_and_parent(pid: int) -> tuple[str, int] | None:
    """A process's state letter and parent pid, or None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return fields[0], int(fields[1])


@pytest.mark.slow
def test_benchmark_sigkill_of_the_main_process_leaves_no_worker(tmp_path):
    """The two workers (one on a machine of one core) are stopped (SIGSTOP) before the
    command is killed, so that neither can end by itself when its pipe from the command
    closes: each is gone only if the command's death ends it."""
    import os
    import signal

    from metarec.execution import available_cores

    process = _benchmark(tmp_path, 2)
    try:
        _wait_until(lambda: _fits_started(tmp_path), 180, "the first finished job")
        _wait_until(lambda: _count_runs(tmp_path) > 0, 300, "a stored dataset")
        assert process.poll() is None, "the benchmark ended before it could be killed"
        workers = [
            pid
            for pid in _processes_of(tmp_path)
            if (_state_and_parent(pid) or ("", 0))[1] == process.pid
        ]
        assert len(workers) == min(2, available_cores())
        for pid in workers:
            os.kill(pid, signal.SIGSTOP)
        _wait_until(
            lambda: all((_state_and_parent(p) or ("",))[0] == "T" for p in workers),
            30,
            "the workers to stop",
        )
        os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=30)
        _wait_until(
            lambda: all((_state_and_parent(p) or ("Z",))[0] == "Z" for p in workers),
            30,
            "the stopped workers to die with their parent",
        )
        assert not _processes_of(tmp_path)
    finally:  # nothing of this test's left running, whatever failed
        if process.poll() is None:
            process.kill()
            process.wait()
        for pid in _processes_of(tmp_path):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    runs = _stored_runs(tmp_path)
    assert runs is not None and len(runs) > 0  # a whole dataset was stored before SIGKILL
    _assert_whole_folds(runs)


# --- end of benchmark runner ---


# --- recommender ---


def test_leave_out_prediction_key_is_exact_and_does_not_overflow():
    # the cache key of leave-out predictions rounded nan_to_num(x, -1.2345e300): overflow
    # warnings on every query with a missing metafeature, and two queries equal to 12
    # decimals shared one cached answer
    import warnings

    from metarec.recommender import LearnedRanker, Recommender
    from tests.recommender._fakes import random_kb

    rec = Recommender(LearnedRanker(n_estimators=5, k=3, random_state=0)).fit(random_kb(seed=10))
    d = rec.datasets_[0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rec.recommend(metafeatures={"f1": 0.25}, exclude=[d])
        rec.recommend(metafeatures={"f1": 0.25 + 1e-13}, exclude=[d])
    assert len(rec.ranker_.predictions_) == 2
    assert all(key[0] == (d,) for key in rec.ranker_.predictions_)


def test_recommend_never_fits_the_model_lazily():
    # recommend used to fit the performance model on first use when fit had not; another
    # ranker given after fit is the next fit's, as for any scikit-learn estimator
    import pytest

    from metarec.exceptions import NotFittedError
    from metarec.recommender import A3RRanker, LearnedRanker, Recommender
    from tests.recommender._fakes import random_kb

    rec = Recommender(A3RRanker()).fit(random_kb(seed=11))
    rec.set_params(ranker=LearnedRanker(n_estimators=5))
    assert rec.recommend(metafeatures={"f1": 0.0}).method == "a3r"
    assert rec.strategy == "a3r" and not hasattr(rec, "model_")
    with pytest.raises(NotFittedError):
        rec.ranker.rank({"f1": 0.0})
    assert not hasattr(rec.ranker, "model_")
