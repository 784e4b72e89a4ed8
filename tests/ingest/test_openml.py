"""End-to-end tests of OpenML ingestion against a local replay of OpenML's REST API."""

from __future__ import annotations

import math

import pytest

from metarec.exceptions import IngestError, InvalidInputError
from metarec.ingest import (
    OpenMLClient,
    OpenMLError,
    ingest_openml,
    openml_algorithm_name,
    openml_protocol,
)
from tests.ingest._replay import fixture


def _runs(kb):
    frame = kb.runs(aggregate=False)
    return frame.sort_values("source_run_id").reset_index(drop=True)


def _acc_pages(replay):
    return [p for p in replay.paths("evaluation/list/function/predictive_accuracy/")]


# -- naming -------------------------------------------------------------------------------
def test_algorithm_names_drop_version_one_and_keep_others():
    assert openml_algorithm_name("weka.J48(1)") == "weka.J48"
    assert openml_algorithm_name("weka.J48(2)") == "weka.J48(2)"
    assert openml_algorithm_name("  weka.J48 ") == "weka.J48"
    pipeline = "sklearn.pipeline.Pipeline(imp=sklearn.impute.SimpleImputer,clf=sklearn.svm.SVC)(3)"
    assert openml_algorithm_name(pipeline) == pipeline
    assert (
        openml_algorithm_name("sklearn.pipeline.Pipeline(a=b)(1)")
        == "sklearn.pipeline.Pipeline(a=b)"
    )


def test_long_algorithm_names_are_cut_with_a_stable_hash():
    long_a = "sklearn.pipeline.Pipeline(" + "x" * 300 + ")(1)"
    long_b = "sklearn.pipeline.Pipeline(" + "x" * 299 + "y)(1)"
    name_a, name_b = openml_algorithm_name(long_a), openml_algorithm_name(long_b)
    assert len(name_a) == 120 and len(name_b) == 120
    assert name_a != name_b
    assert name_a == openml_algorithm_name(long_a)  # stable
    assert name_a[-11] == "~"


@pytest.mark.parametrize(
    ("procedure", "protocol"),
    [
        ("10-fold Crossvalidation", "cv10"),
        ("5-fold Crossvalidation", "cv5"),
        ("10 times 10-fold Crossvalidation", "cv10x10"),
        ("Leave one out", "loo"),
        ("33% Holdout set", "holdout"),
        ("5 times 2-fold Crossvalidation", "openml"),
        ("Custom 10-fold Crossvalidation", "openml"),
        (None, "openml"),
    ],
)
def test_estimation_procedures_map_to_protocols(procedure, protocol):
    assert openml_protocol(procedure) == protocol


# -- end to end ---------------------------------------------------------------------------
def test_ingest_pages_joins_runtime_and_stores_runs_datasets_metafeatures(replay, kb):
    seen = []
    report = ingest_openml(kb, page_size=2, progress=lambda n=1, total=None: seen.append(n))

    assert _acc_pages(replay) == [
        "evaluation/list/function/predictive_accuracy/limit/2/offset/0",
        "evaluation/list/function/predictive_accuracy/limit/2/offset/2",
    ]
    # openml 0.15.1 follows every evaluation page with a user listing
    assert sum(p.startswith("user/list/user_id/1") for p in replay.paths()) >= 2
    assert (report.runs_listed, report.runs_added, report.runs_present) == (3, 3, 0)
    assert report.runs_without_time == 1
    assert report.pages == 2
    assert report.datasets_with_metafeatures == 2
    assert sum(seen) == 3

    runs = _runs(kb)
    assert list(runs["source_run_id"].astype(str)) == ["101", "102", "103"]
    assert set(runs["source"]) == {"openml"}
    assert list(runs["dataset"]) == ["openml:61", "openml:61", "openml:20"]
    assert list(runs["algorithm"]) == [
        "weka.J48",
        "sklearn.ensemble.RandomForestClassifier(2)",
        "weka.J48",
    ]
    assert list(runs["accuracy"]) == pytest.approx([0.94, 0.95, 0.74])
    assert runs["fit_time"][0] == pytest.approx(1.5)  # 1500 ms
    assert math.isnan(runs["fit_time"][1])  # run 102 has no runtime on OpenML: kept
    assert runs["fit_time"][2] == pytest.approx(0.25)
    assert list(runs["protocol"]) == ["cv10", "cv10", "cv10x10"]

    datasets = kb.datasets().set_index("name")
    assert datasets.loc["openml:61", "task"] == "multiclass"
    assert datasets.loc["openml:20", "task"] == "binary"
    mf = kb.metafeatures().set_index("dataset")
    assert mf.loc["openml:61", "n_instances"] == 150
    assert mf.loc["openml:61", "n_features"] == 4  # OpenML counts the target
    assert mf.loc["openml:20", "class_imbalance_ratio"] == pytest.approx(500 / 268)


def test_rerun_is_idempotent_and_skips_stored_runs(replay, kb):
    ingest_openml(kb, page_size=2)
    before = len(replay.requests)
    again = ingest_openml(kb, page_size=2)
    new = [p for p, _ in replay.requests[before:]]

    assert (again.runs_added, again.runs_present, again.runs_listed) == (0, 3, 3)
    assert len(_runs(kb)) == 3
    # only the listing pages are fetched again: no runtime, task or quality requests
    assert not [p for p in new if "usercpu_time_millis" in p or p.startswith(("data/", "task/"))]


def test_interrupted_ingest_resumes_where_it_stopped(replay, kb):
    broken = (500, "Internal Server Error")
    replay.route(r"^evaluation/list/function/predictive_accuracy/.*offset/2\b", [broken, broken])
    with pytest.raises(OpenMLError, match="OpenML server failed on the evaluations"):
        ingest_openml(kb, page_size=2)
    assert list(_runs(kb)["source_run_id"].astype(str)) == ["101", "102"]  # page 1 committed

    replay.route(
        r"^evaluation/list/function/predictive_accuracy/.*offset/2\b",
        (200, fixture("evaluations_accuracy_page2.xml")),
    )
    report = ingest_openml(kb, page_size=2)
    assert (report.runs_added, report.runs_present) == (1, 2)
    assert list(_runs(kb)["source_run_id"].astype(str)) == ["101", "102", "103"]


def test_limit_stops_after_n_evaluations(replay, kb):
    seen = []
    report = ingest_openml(
        kb, page_size=1000, limit=2, progress=lambda n=1, total=None: seen.append((n, total))
    )
    assert _acc_pages(replay) == ["evaluation/list/function/predictive_accuracy/limit/2/offset/0"]
    assert report.runs_added == 2
    assert seen[0] == (0, 2)


def test_suite_restricts_to_its_tasks(replay, kb):
    replay.route(
        r"^evaluation/list/function/predictive_accuracy/.*/task/2$",
        (200, fixture("evaluations_accuracy_page2.xml")),
    )
    report = ingest_openml(kb, suite=99, page_size=2)
    assert "study/99" in replay.paths()
    assert _acc_pages(replay)[0].endswith("/task/2")
    assert report.runs_added == 1
    assert list(_runs(kb)["dataset"]) == ["openml:20"]


def test_suite_and_tasks_without_common_task_ingest_nothing(replay, kb):
    report = ingest_openml(kb, suite=99, tasks=[1])
    assert report.runs_listed == 0
    assert _acc_pages(replay) == []


@pytest.mark.parametrize("code_file", ["no_results_372.xml", "no_results_542.xml"])
def test_no_results_answer_means_zero_runs(replay, kb, code_file):
    replay.route(r"^evaluation/list/", (412, fixture(code_file)))
    report = ingest_openml(kb, tasks=[12345])
    assert (report.runs_listed, report.runs_added, report.pages) == (0, 0, 0)
    assert _acc_pages(replay) == [
        "evaluation/list/function/predictive_accuracy/limit/1000/offset/0/task/12345"
    ]


def test_database_busy_is_retried_then_succeeds(replay, kb, openml_config, no_retry_sleep):
    busy = (412, fixture("database_error_107.xml"))
    good = (200, fixture("evaluations_accuracy_page1.xml"))
    replay.route(r"^evaluation/list/function/predictive_accuracy/.*offset/0\b", [busy, good])
    client = OpenMLClient(retry_policy="robot", n_retries=2)
    report = ingest_openml(kb, page_size=2, limit=2, client=client)
    assert report.runs_added == 2
    assert len(_acc_pages(replay)) == 2  # the same page, twice


def test_persistent_server_error_is_retried_then_reported_clearly(replay, kb, no_retry_sleep):
    replay.route(r"^evaluation/list/", (500, "Internal Server Error"))
    client = OpenMLClient(retry_policy="robot", n_retries=3)
    with pytest.raises(IngestError) as info:
        ingest_openml(kb, client=client)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith("OpenML server failed on the evaluations of 'predictive_accuracy'")
    assert len(_acc_pages(replay)) == 3
    assert len(_runs(kb)) == 0


def test_persistent_database_error_names_the_code(replay, kb, no_retry_sleep):
    replay.route(r"^evaluation/list/", (412, fixture("database_error_107.xml")))
    with pytest.raises(OpenMLError, match="code 107") as info:
        ingest_openml(kb, client=OpenMLClient(n_retries=2))
    assert info.value.code == 107


def test_html_error_page_is_a_clear_error(replay, kb):
    replay.route(r"^evaluation/list/", (503, "<html><body>Service Unavailable</body></html>"))
    with pytest.raises(OpenMLError, match="failed on the evaluations .* error page"):
        ingest_openml(kb)


def test_malformed_xml_is_a_clear_error(replay, kb):
    replay.route(r"^evaluation/list/", (200, fixture("malformed_evaluations.xml")))
    with pytest.raises(OpenMLError, match="malformed XML for the evaluations"):
        ingest_openml(kb)


def test_unreachable_server_is_a_clear_error(openml_config, kb):
    client = OpenMLClient(server="http://127.0.0.1:9/api/v1/xml", n_retries=1)
    with pytest.raises(OpenMLError, match=r"cannot reach the OpenML server http://127\.0\.0\.1:9"):
        ingest_openml(kb, client=client)


def test_dataset_without_qualities_is_reported_not_fatal(replay, kb):
    replay.route(
        r"^data/qualities/20$",
        (
            412,
            '<oml:error xmlns:oml="http://openml.org/openml"><oml:code>362</oml:code>'
            "<oml:message>Qualities not found</oml:message></oml:error>",
        ),
    )
    report = ingest_openml(kb, page_size=2)
    assert report.runs_added == 3
    assert report.datasets_with_metafeatures == 1
    assert any("dataset 20" in p and "362" in p for p in report.problems)


def test_no_qualities_option_makes_no_dataset_requests(replay, kb):
    report = ingest_openml(kb, page_size=2, qualities=False)
    assert report.runs_added == 3
    assert not replay.paths("data/")


def test_api_key_is_sent_but_never_stored(replay, kb, monkeypatch, tmp_path):
    secret = "0123456789abcdef0123456789abcdef"
    monkeypatch.setenv("OPENML_APIKEY", secret)
    ingest_openml(kb, page_size=2)
    assert all(q.get("api_key") == secret for _, q in replay.requests)
    from tests.kb_contents import stored_bytes

    stored = stored_bytes(tmp_path / "kb.sqlite")  # every table, the WAL included
    assert b"openml:" in stored  # the dump does hold what was ingested
    assert secret.encode() not in stored
    for frame in (kb.runs(aggregate=False), kb.datasets(), kb.algorithms(), kb.metafeatures()):
        assert secret not in frame.to_csv()


def test_cache_directory_is_respected(replay, kb, tmp_path):
    cache = tmp_path / "my-openml-cache"
    ingest_openml(kb, page_size=2, client=OpenMLClient(cache_dir=cache))
    cached = sorted(p.name for p in cache.rglob("qualities.xml"))
    assert cached == ["qualities.xml", "qualities.xml"]


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"page_size": 10_001}, "outside 1..10000"),
        ({"page_size": 0}, "outside 1..10000"),
        ({"limit": 0}, "at least 1"),
        ({"tasks": ["x"]}, "task id 'x'"),
    ],
)
def test_bad_arguments_are_refused_before_any_request(replay, kb, kwargs, match):
    with pytest.raises(InvalidInputError, match=match):
        ingest_openml(kb, **kwargs)
    assert replay.requests == []


def test_adapter_refuses_pages_above_the_server_limit(openml_config):
    with pytest.raises(OpenMLError, match="page size 10001"):
        OpenMLClient().list_evaluations("predictive_accuracy", size=10_001)


def test_a_server_s_size_that_cannot_be_a_count_is_left_out():
    from metarec.ingest._openml import _count

    assert _count("150.0") == 150 and _count(0) == 0 and _count(2**31 - 1) == 2**31 - 1
    for bad in (1e30, 2**31, 2.0**63, -1, 1.5, float("nan"), float("inf"), "many", None):
        assert _count(bad) is None, bad


def test_loading_an_openml_dataset_goes_through_the_adapter(replay):
    from metarec.data import load_dataset
    from metarec.exceptions import DataError

    replay.route(
        r"^data/61$",
        (
            412,
            '<oml:error xmlns:oml="http://openml.org/openml"><oml:code>111</oml:code>'
            "<oml:message>Unknown dataset</oml:message></oml:error>",
        ),
    )
    with pytest.raises(
        DataError, match=r"cannot fetch openml:61: OpenML server refused dataset 61 \(code 111"
    ):
        load_dataset("openml:61")
    assert any(path.startswith("data/61") for path, _ in replay.requests)
