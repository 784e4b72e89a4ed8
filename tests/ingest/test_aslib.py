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
        (
            QUALITY_DESCRIPTION,
            QUALITY_RUNS.replace("d1,1,J48,0.90", "d1,1,J48,?"),
            "status ok but no value of 'predictive_accuracy'",
        ),
        (QUALITY_DESCRIPTION, QUALITY_RUNS + "d1,1,J48,0.90,2.5,ok\n", "appears twice"),
    ],
)
def test_inconsistent_scenarios_are_refused(tmp_path, description, runs, match):
    folder = _write(tmp_path / "s", description, runs, QUALITY_FEATURES)
    with pytest.raises(ScenarioError, match=match):
        read_aslib_scenario(folder)
