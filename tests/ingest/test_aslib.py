"""ASlib scenarios written by the tests, read and stored."""

from __future__ import annotations

import math

import pytest

from metarec.exceptions import IngestError
from metarec.ingest import ScenarioError, ingest_aslib, parse_description, read_aslib_scenario

QUALITY_DESCRIPTION = """\
scenario_id: MINI-WEKA
performance_measures:
  - predictive_accuracy
  - runtime
maximize:
  - true
  - false
performance_type:
  - solution_quality
  - runtime
algorithm_cutoff_time: 3600
algorithm_cutoff_memory: ?
features_cutoff_time: ?
features_deterministic:
  - NumberOfInstances
  - NumberOfClasses
  - MajorityClassSize
  - MinorityClassSize
  - skew_mean
feature_steps:
  ALL:
    provides:
      - NumberOfInstances
      - skew_mean
number_of_feature_steps: 1
"""

QUALITY_RUNS = """\
@RELATION ALGORITHM_RUNS_MINI-WEKA

@ATTRIBUTE instance_id STRING
@ATTRIBUTE repetition NUMERIC
@ATTRIBUTE algorithm STRING
@ATTRIBUTE predictive_accuracy NUMERIC
@ATTRIBUTE runtime NUMERIC
@ATTRIBUTE runstatus {ok, timeout, memout, not_applicable, crash, other}

@DATA
d1,1,J48,0.90,2.5,ok
d1,1,NaiveBayes,0.80,0.5,ok
d2,1,J48,0.70,10.0,ok
d2,1,NaiveBayes,?,3600,timeout
d2,2,J48,0.72,11.0,ok
d2,1,SMO,?,1.0,crash
"""

QUALITY_FEATURES = """\
@RELATION FEATURES_MINI-WEKA

@ATTRIBUTE instance_id STRING
@ATTRIBUTE repetition NUMERIC
@ATTRIBUTE NumberOfInstances NUMERIC
@ATTRIBUTE NumberOfClasses NUMERIC
@ATTRIBUTE MajorityClassSize NUMERIC
@ATTRIBUTE MinorityClassSize NUMERIC
@ATTRIBUTE 'skew mean' NUMERIC

@DATA
d1,1,100,2,75,25,0.5
d2,1,200,3,100,40,1.0
d2,2,200,3,100,40,2.0
"""

RUNTIME_DESCRIPTION = """\
scenario_id: MINI-SAT
performance_measures: runtime
maximize: false
performance_type: runtime
algorithm_cutoff_time: 100
"""

RUNTIME_RUNS = """\
@RELATION ALGORITHM_RUNS_MINI-SAT
@ATTRIBUTE instance_id STRING
@ATTRIBUTE repetition NUMERIC
@ATTRIBUTE algorithm STRING
@ATTRIBUTE runtime NUMERIC
@DATA
i1.cnf,1,minisat,12.5
i1.cnf,1,glucose,100
i2.cnf,1,minisat,3.0
i2.cnf,1,glucose,4.0
"""

RUNTIME_FEATURES = """\
@RELATION FEATURES_MINI-SAT
@ATTRIBUTE instance_id STRING
@ATTRIBUTE repetition NUMERIC
@ATTRIBUTE nvars NUMERIC
@ATTRIBUTE nclauses NUMERIC
@DATA
i1.cnf,1,100,420
i2.cnf,1,50,?
"""


def _write(folder, description, runs, features):
    folder.mkdir()
    (folder / "description.txt").write_text(description)
    (folder / "algorithm_runs.arff").write_text(runs)
    (folder / "feature_values.arff").write_text(features)
    return folder


@pytest.fixture
def quality_scenario(tmp_path):
    return _write(tmp_path / "MINI-WEKA", QUALITY_DESCRIPTION, QUALITY_RUNS, QUALITY_FEATURES)


@pytest.fixture
def runtime_scenario(tmp_path):
    return _write(tmp_path / "MINI-SAT", RUNTIME_DESCRIPTION, RUNTIME_RUNS, RUNTIME_FEATURES)


def test_description_parser_reads_lists_scalars_and_skips_mappings():
    fields = parse_description(QUALITY_DESCRIPTION)
    assert fields["scenario_id"] == ["MINI-WEKA"]
    assert fields["performance_measures"] == ["predictive_accuracy", "runtime"]
    assert fields["maximize"] == ["true", "false"]
    assert fields["algorithm_cutoff_time"] == ["3600"]
    assert fields["feature_steps"] == []
    assert "provides" not in fields
    assert parse_description("maximize: [true, false]\n")["maximize"] == ["true", "false"]
    assert parse_description("algorithms: a, b\n")["algorithms"] == ["a", "b"]


def test_quality_scenario_maps_measures_statuses_and_features(quality_scenario):
    scenario = read_aslib_scenario(quality_scenario)
    assert scenario.scenario_id == "MINI-WEKA"
    assert (scenario.quality_measure, scenario.runtime_measure) == (
        "predictive_accuracy",
        "runtime",
    )
    runs = scenario.runs.set_index("source_run_id")
    assert list(runs.index) == [
        "MINI-WEKA/d1/J48/1",
        "MINI-WEKA/d1/NaiveBayes/1",
        "MINI-WEKA/d2/J48/1",
        "MINI-WEKA/d2/NaiveBayes/1",
        "MINI-WEKA/d2/J48/2",
        "MINI-WEKA/d2/SMO/1",
    ]
    assert runs.loc["MINI-WEKA/d1/J48/1", "dataset"] == "aslib:MINI-WEKA:d1"
    assert runs.loc["MINI-WEKA/d1/J48/1", "accuracy"] == 0.90
    assert runs.loc["MINI-WEKA/d1/J48/1", "time"] == 2.5
    assert runs.loc["MINI-WEKA/d2/J48/2", "seed"] == 2
    timeout = runs.loc["MINI-WEKA/d2/NaiveBayes/1"]
    assert (timeout["status"], timeout["time"]) == ("timeout", 3600.0)
    assert math.isnan(timeout["accuracy"])
    crash = runs.loc["MINI-WEKA/d2/SMO/1"]
    assert (crash["status"], crash["error"]) == ("error", "crash")

    mf = scenario.metafeatures.set_index("dataset")
    assert mf.loc["aslib:MINI-WEKA:d1", "n_instances"] == 100  # OpenML name translated
    assert mf.loc["aslib:MINI-WEKA:d1", "class_imbalance_ratio"] == 3.0
    assert mf.loc["aslib:MINI-WEKA:d2", "aslib_skew_mean"] == 1.5  # mean over repetitions


def test_runtime_only_scenario_counts_solved_runs(runtime_scenario):
    runs = read_aslib_scenario(runtime_scenario).runs.set_index("source_run_id")
    solved = runs.loc["MINI-SAT/i1.cnf/minisat/1"]
    assert (solved["status"], solved["accuracy"], solved["time"]) == ("ok", 1.0, 12.5)
    cut = runs.loc["MINI-SAT/i1.cnf/glucose/1"]  # reached the cutoff of 100 s
    assert cut["status"] == "timeout"
    assert math.isnan(cut["accuracy"])


def test_ingest_stores_runs_and_metafeatures_and_is_idempotent(quality_scenario, kb):
    report = ingest_aslib(kb, quality_scenario)
    assert (report.datasets, report.algorithms, report.runs_added) == (2, 3, 6)
    assert (report.runs_failed, report.runs_without_time) == (2, 0)
    runs = kb.runs(aggregate=False)
    assert set(runs["source"]) == {"aslib"}
    assert len(runs) == 6
    assert set(kb.metafeatures()["dataset"]) == {"aslib:MINI-WEKA:d1", "aslib:MINI-WEKA:d2"}

    again = ingest_aslib(kb, quality_scenario)
    assert (again.runs_added, again.runs_present) == (0, 6)
    assert len(kb.runs(aggregate=False)) == 6


def test_folder_that_is_not_a_scenario_names_the_missing_file(tmp_path):
    folder = tmp_path / "not-a-scenario"
    folder.mkdir()
    (folder / "description.txt").write_text(RUNTIME_DESCRIPTION)
    with pytest.raises(ScenarioError, match="algorithm_runs.arff is missing"):
        read_aslib_scenario(folder)
    (folder / "algorithm_runs.arff").write_text(RUNTIME_RUNS)
    with pytest.raises(ScenarioError, match="feature_values.arff is missing"):
        read_aslib_scenario(folder)
    with pytest.raises(ScenarioError, match="is not a folder"):
        read_aslib_scenario(tmp_path / "absent")


def test_broken_scenario_stores_nothing(quality_scenario, kb):
    ingest_aslib(kb, quality_scenario)
    (quality_scenario / "algorithm_runs.arff").write_text(
        QUALITY_RUNS.replace("d1,1,J48,0.90,2.5,ok", "d1,1,J48,0.90,2.5,ok,extra")
    )
    (quality_scenario / "description.txt").write_text(
        QUALITY_DESCRIPTION.replace("MINI-WEKA", "OTHER")
    )
    with pytest.raises(IngestError, match="algorithm_runs.arff: not a readable ARFF"):
        ingest_aslib(kb, quality_scenario)
    assert len(kb.runs(aggregate=False)) == 6


@pytest.mark.parametrize(
    ("description", "runs", "match"),
    [
        (
            RUNTIME_DESCRIPTION.replace("performance_measures: runtime\n", ""),
            RUNTIME_RUNS,
            "no performance_measures",
        ),
        (
            RUNTIME_DESCRIPTION.replace("measures: runtime", "measures: par10"),
            RUNTIME_RUNS,
            "column 'par10' is missing",
        ),
        (
            QUALITY_DESCRIPTION.replace("  - true\n", "  - false\n", 1),
            QUALITY_RUNS,
            "'predictive_accuracy' is minimised",
        ),
    ],
)
def test_inconsistent_scenarios_are_refused(tmp_path, description, runs, match):
    folder = _write(tmp_path / "s", description, runs, QUALITY_FEATURES)
    with pytest.raises(ScenarioError, match=match):
        read_aslib_scenario(folder)


# Lines of QUALITY_RUNS: 11 d1 J48, 12 d1 NaiveBayes, 13 d2 J48, ..., 16 d2 SMO.
LONG = "x" * 250


@pytest.mark.parametrize(
    ("runs", "n_valid", "problem"),
    [
        (
            QUALITY_RUNS.replace("d1,1,J48,0.90", "d1,1,J48,?"),
            5,
            "algorithm_runs.arff, line 11, attribute 'predictive_accuracy': run of 'J48' on 'd1' "
            "has status ok but no value of 'predictive_accuracy'",
        ),
        (
            QUALITY_RUNS.replace("d1,1,NaiveBayes,0.80", "d1,1,NaiveBayes,80.0"),
            5,
            "algorithm_runs.arff, line 12, attribute 'predictive_accuracy': "
            "predictive_accuracy 80 is outside [0, 1]",
        ),
        (
            QUALITY_RUNS.replace("d2,1,J48,0.70,10.0", "d2,1,J48,0.70,-1.5"),
            5,
            "algorithm_runs.arff, line 13, attribute 'runtime': time -1.5 is negative or infinite",
        ),
        (
            QUALITY_RUNS + "d1,1,J48,0.95,2.5,ok\n",
            5,
            "algorithm_runs.arff, line 11, attribute 'instance_id, algorithm, repetition': run "
            "'MINI-WEKA/d1/J48/1' appears again at line 17; no copy is stored",
        ),
        (  # found by the knowledge base, cited in the ARFF file all the same
            QUALITY_RUNS.replace("d2,1,J48,0.70", f"{LONG},1,J48,0.70"),
            5,
            "algorithm_runs.arff, line 13, attribute 'instance_id': dataset is longer than 255 "
            "characters",
        ),
    ],
)
def test_invalid_row_rejects_the_whole_scenario_citing_file_line_attribute(
    tmp_path, kb, runs, n_valid, problem
):
    folder = _write(tmp_path / "s", QUALITY_DESCRIPTION, runs, QUALITY_FEATURES)
    with pytest.raises(ScenarioError) as info:
        ingest_aslib(kb, folder)
    message = str(info.value)
    assert "scenario rejected, nothing was stored" in message and "skip_invalid=True" in message
    assert (
        "--skip-invalid" in info.value.cli_message and "skip_invalid" not in info.value.cli_message
    )
    assert f"first: {folder / problem.split(', ', 1)[0]}, {problem.split(', ', 1)[1]}" in message
    assert "<DataFrame>" not in message and "np." not in message
    assert kb.count("runs") == 0 and kb.count("datasets") == 0 and kb.count("metafeatures") == 0

    report = ingest_aslib(kb, folder, skip_invalid=True)
    assert report.runs_added == n_valid
    assert report.runs_rejected == 6 + runs.count("\nd1,1,J48,0.95") - n_valid
    assert (
        report.problems[0]
        == str(folder / problem.split(", ", 1)[0]) + ", " + problem.split(", ", 1)[1]
    )
    assert kb.count("runs") == n_valid
    lines = {p.split(", attribute")[0] for p in report.problems}
    assert len(lines) == report.runs_rejected  # every invalid row cited, by its line
    assert all(", line " in p and "attribute" in p for p in report.problems)
    assert report.datasets == 2 and kb.count("datasets") == 2  # none for a refused row


def test_non_finite_feature_value_is_cited_and_left_out(tmp_path, kb):
    features = QUALITY_FEATURES.replace("d1,1,100,2,75,25,0.5", "d1,1,100,2,75,25,inf")
    folder = _write(tmp_path / "s", QUALITY_DESCRIPTION, QUALITY_RUNS, features)
    with pytest.raises(ScenarioError, match=r"feature_values.arff, line 12, attribute 'skew mean'"):
        ingest_aslib(kb, folder)
    assert kb.count("runs") == 0
    report = ingest_aslib(kb, folder, skip_invalid=True)
    assert report.runs_added == 6
    assert report.problems == (
        f"{folder / 'feature_values.arff'}, line 12, attribute 'skew mean': inf is not a "
        "finite number",
    )
    mf = kb.metafeatures().set_index("dataset")
    assert math.isnan(mf.loc["aslib:MINI-WEKA:d1", "aslib_skew_mean"])
    assert mf.loc["aslib:MINI-WEKA:d2", "aslib_skew_mean"] == 1.5


def test_description_that_is_not_utf8_is_a_scenario_error(tmp_path):
    folder = _write(tmp_path / "s", QUALITY_DESCRIPTION, QUALITY_RUNS, QUALITY_FEATURES)
    (folder / "description.txt").write_bytes(
        QUALITY_DESCRIPTION.replace("MINI-WEKA", "MINI-W\u00c9KA").encode("latin-1")
    )
    with pytest.raises(ScenarioError) as info:
        read_aslib_scenario(folder)
    assert str(info.value) == (
        f"{folder / 'description.txt'}, line 1: not UTF-8 text (byte 0xc9); save the file as UTF-8"
    )


def test_feature_rows_of_instances_without_runs_are_counted_and_noted(tmp_path, kb):
    from click.testing import CliRunner

    from metarec.cli import cli

    features = QUALITY_FEATURES + "d9,1,50,2,30,20,0.1\nd8,1,60,2,30,30,0.2\n"
    folder = _write(tmp_path / "MINI-WEKA", QUALITY_DESCRIPTION, QUALITY_RUNS, features)
    report = ingest_aslib(kb, folder)
    assert (report.features_dropped, report.first_dropped) == (2, "d8")
    assert report.notes() == [
        "2 feature row(s) of instances without runs were not stored (first: d8)"
    ]
    assert report.to_dict()["features_dropped"] == 2
    url = f"sqlite:///{tmp_path / 'cli.sqlite'}"
    result = CliRunner().invoke(cli, ["--db", url, "ingest", "aslib", str(folder)])
    assert result.exit_code == 0, result.output
    assert "Note: 2 feature row(s) of instances without runs were not stored" in result.stderr
