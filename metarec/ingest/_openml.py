"""Ingest OpenML run histories into a knowledge base, page by page.

:func:`ingest_openml` lists the evaluations of an accuracy measure (``predictive_accuracy`` by
default) one page at a time, looks up a runtime measure (``usercpu_time_millis`` by default)
for the runs of that page, maps OpenML tasks to datasets and flows to algorithm names, fetches
the datasets' qualities (translated into metarec's metafeature names by
:func:`metarec.metafeatures.translate_openml_qualities`) and stores everything in the knowledge
base before the next page is requested.  So:

* memory is bounded by one page (at most 10,000 evaluations, the server's limit) plus one
  small record per distinct task, flow and dataset met;
* an interruption loses at most the page being processed: every page is committed by
  :meth:`KnowledgeBase.import_runs` on its own;
* OpenML run ids are stored as ``source_run_id`` with ``source="openml"``: runs already in the
  knowledge base are recognised, skipped without further requests, and counted as
  ``present``, so a rerun resumes where an interrupted one stopped and ingesting twice changes
  nothing.

Naming (stable across knowledge bases, since it depends only on OpenML's records):

* a dataset is ``"openml:<data_id>"`` (the name :func:`metarec.data.load_dataset` gives to
  ``"openml:<id>"``);
* an algorithm is the flow's name as OpenML lists it (``name(version)``), with whitespace
  collapsed; the version suffix is dropped for version 1 and kept otherwise
  (``weka.J48``, ``weka.J48(2)``); names longer than :data:`MAX_NAME_LENGTH` characters
  (long scikit-learn pipelines) are cut and completed by ``~`` and the first 10 hex digits of
  the SHA-1 of the full name, which stays in the algorithm's parameters
  (``openml_flow_name``, ``openml_flow_id``).

Times: OpenML's runtime measures are in milliseconds; they are divided by 1000.
``usercpu_time_millis`` covers training and testing (``usercpu_time_millis_training`` is
training only).  Many runs have no runtime: they are kept with a missing time and counted in
:attr:`OpenMLIngestReport.runs_without_time`.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from metarec._openml import MAX_PAGE_SIZE, Evaluation, OpenMLClient, TaskInfo
from metarec.exceptions import InvalidInputError, MetarecError
from metarec.ingest._errors import OpenMLError, plain_numbers

__all__ = [
    "MAX_NAME_LENGTH",
    "OpenMLIngestReport",
    "ingest_openml",
    "openml_algorithm_name",
    "openml_dataset_name",
    "openml_protocol",
]

#: Longest algorithm name kept verbatim.
MAX_NAME_LENGTH = 120
SOURCE = "openml"

_VERSION = re.compile(r"^(?P<base>.*\S)\s*\((?P<version>\d+)\)$", re.DOTALL)
_LIBRARIES = {
    "sklearn": "scikit-learn",
    "weka": "weka",
    "mlr": "mlr",
    "classif": "mlr",
    "regr": "mlr",
    "moa": "moa",
    "h2o": "h2o",
    "torch": "pytorch",
    "keras": "keras",
    "tensorflow": "tensorflow",
    "xgboost": "xgboost",
    "lightgbm": "lightgbm",
}


@dataclass(frozen=True)
class OpenMLIngestReport:
    """What :func:`ingest_openml` did.

    Parameters
    ----------
    runs_listed : int
        Evaluations of the accuracy measure received from OpenML.
    runs_added : int
        Runs newly stored.
    runs_present : int
        Runs already in the knowledge base (skipped).
    runs_rejected : int
        Runs the knowledge base refused (see ``problems``).
    runs_without_time : int
        New runs that OpenML lists without the runtime measure (kept, time missing).
    datasets_with_metafeatures : int
        Datasets whose translated OpenML qualities were stored in this call.
    pages : int
        Evaluation pages requested.
    problems : tuple of str
        One line per thing that could not be ingested (a dataset without qualities, a
        rejected run...).
    """

    runs_listed: int = 0
    runs_added: int = 0
    runs_present: int = 0
    runs_rejected: int = 0
    runs_without_time: int = 0
    datasets_with_metafeatures: int = 0
    pages: int = 0
    problems: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """Return the counts as a plain dictionary (problems as a count).

        Returns
        -------
        dict of str to int
            The counts by field name, and ``problems``, their number.
        """
        return {
            "runs_listed": self.runs_listed,
            "runs_added": self.runs_added,
            "runs_present": self.runs_present,
            "runs_rejected": self.runs_rejected,
            "runs_without_time": self.runs_without_time,
            "datasets_with_metafeatures": self.datasets_with_metafeatures,
            "pages": self.pages,
            "problems": len(self.problems),
        }


def openml_dataset_name(data_id: int) -> str:
    """Return metarec's name of OpenML dataset ``data_id`` (``"openml:<id>"``).

    Parameters
    ----------
    data_id : int
        The OpenML dataset id.

    Returns
    -------
    str
    """
    return f"openml:{int(data_id)}"


def openml_algorithm_name(flow_name: str) -> str:
    """Return metarec's algorithm name for an OpenML flow name.

    Parameters
    ----------
    flow_name : str
        The flow's full name as OpenML lists it in evaluations, ``name(version)``
        (e.g. ``"weka.J48(2)"``) or a bare name.

    Returns
    -------
    str
        Whitespace collapsed; ``"(1)"`` dropped, other versions kept; names longer than
        :data:`MAX_NAME_LENGTH` cut and completed by ``"~"`` and 10 hex digits of the SHA-1 of
        the full (normalised) name, so distinct flows keep distinct names.

    Examples
    --------
    >>> openml_algorithm_name("weka.J48(1)")
    'weka.J48'
    >>> openml_algorithm_name("weka.J48(2)")
    'weka.J48(2)'
    """
    name = " ".join(str(flow_name).split())
    if not name:
        raise InvalidInputError("an OpenML flow has an empty name")
    match = _VERSION.match(name)
    if match and match.group("version") == "1":
        name = match.group("base")
    if len(name) > MAX_NAME_LENGTH:
        digest = hashlib.sha1(name.encode("utf-8")).hexdigest()[:10]
        name = f"{name[: MAX_NAME_LENGTH - 11]}~{digest}"
    return name


def _library(flow_name: str) -> str | None:
    head = re.split(r"[.(_]", flow_name.strip(), maxsplit=1)[0].lower()
    return _LIBRARIES.get(head)


def openml_protocol(estimation_procedure: str | None) -> str:
    """Map an OpenML estimation-procedure name to a metarec protocol name.

    ``"10-fold Crossvalidation"`` -> ``"cv10"``, ``"5-fold Crossvalidation"`` -> ``"cv5"``,
    ``"10 times 10-fold Crossvalidation"`` -> ``"cv10x10"``, ``"Leave one out"`` -> ``"loo"``,
    ``"33% Holdout set"`` -> ``"holdout"``; anything else (unknown, custom splits, learning
    curves) -> ``"openml"``.

    Parameters
    ----------
    estimation_procedure : str or None
        OpenML's name of a task's estimation procedure (:attr:`TaskInfo.estimation_procedure`).

    Returns
    -------
    str
        A protocol name of :data:`metarec.evaluation.PROTOCOLS`, or ``"openml"``.
    """
    if not estimation_procedure:
        return SOURCE
    text = " ".join(str(estimation_procedure).split()).lower()
    match = re.fullmatch(r"(?:(\d+) times )?(\d+)-fold crossvalidation", text)
    if match:
        repeats = int(match.group(1) or 1)
        folds = int(match.group(2))
        if repeats == 1 and folds in (5, 10):
            return f"cv{folds}"
        if repeats == 10 and folds == 10:
            return "cv10x10"
        return SOURCE
    if text == "leave one out":
        return "loo"
    if re.fullmatch(r"\d+% holdout set", text):
        return "holdout"
    return SOURCE


def _task_kind(qualities: dict[str, float], task_type: str) -> str | None:
    n_classes = qualities.get("NumberOfClasses")
    if "regression" in task_type.lower():
        return "regression"
    if n_classes is None or not math.isfinite(n_classes):
        return None
    if n_classes == 0:
        return "regression"
    return "binary" if n_classes == 2 else "multiclass"


def _parse_ids(values: Iterable[int | str] | None, what: str) -> list[int] | None:
    if values is None:
        return None
    ids = []
    for value in values:
        try:
            ids.append(int(value))
        except (TypeError, ValueError):
            shown = repr(value) if isinstance(value, str) else plain_numbers(repr(value))
            raise InvalidInputError(f"{what} id {shown} is not an integer") from None
    return sorted(set(ids))


@dataclass
class _Session:
    kb: Any
    client: OpenMLClient
    measure: str
    time_measure: str | None
    qualities: bool
    tasks: dict[int, TaskInfo] = field(default_factory=dict)
    algorithms: set[str] = field(default_factory=set)
    datasets_done: set[int] = field(default_factory=set)
    problems: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(
        default_factory=lambda: dict.fromkeys(
            ("listed", "added", "present", "rejected", "no_time", "metafeatures", "pages"), 0
        )
    )

    # -- what is stored already --------------------------------------------------------
    def stored_run_ids(self, page: Sequence[Evaluation]) -> set[int]:
        """Run ids of this page already stored with source "openml"."""
        wanted = {str(e.run_id) for e in page}
        lookup = getattr(self.kb, "source_run_ids", None)
        if callable(lookup):  # a dedicated, cheap lookup when the store offers one
            return {int(r) for r in lookup(SOURCE, sorted(wanted))}
        names = sorted({openml_dataset_name(e.data_id) for e in page})
        known = set(self._known_datasets())
        names = [n for n in names if n in known]
        if not names:
            return set()
        runs = self.kb.runs(aggregate=False, datasets=names, metrics=[])
        if len(runs) == 0 or "source_run_id" not in runs.columns:
            return set()
        mine = runs[(runs["source"] == SOURCE) & runs["source_run_id"].astype(str).isin(wanted)]
        return {int(r) for r in mine["source_run_id"].astype(str)}

    def _known_datasets(self) -> list[str]:
        frame = self.kb.datasets()
        if len(frame) == 0:
            return []
        column = "name" if "name" in frame.columns else "dataset"
        return [str(n) for n in frame[column]]

    def _has_metafeatures(self, name: str) -> bool:
        try:
            frame = self.kb.metafeatures(datasets=[name])
        except (MetarecError, LookupError):
            return False
        if len(frame) == 0:
            return False
        values = frame.drop(columns=[c for c in ("dataset",) if c in frame.columns])
        return bool(values.notna().to_numpy().any())

    # -- one page ----------------------------------------------------------------------
    def process(self, page: Sequence[Evaluation]) -> None:
        import pandas as pd

        self.counts["pages"] += 1
        self.counts["listed"] += len(page)
        stored = self.stored_run_ids(page)
        new = [e for e in page if e.run_id not in stored and e.value is not None]
        self.counts["present"] += sum(e.run_id in stored for e in page)
        missing_value = [e for e in page if e.value is None and e.run_id not in stored]
        for e in missing_value:
            self.problems.append(f"run {e.run_id}: OpenML lists no value of {self.measure!r}")
        self.counts["rejected"] += len(missing_value)
        if not new:
            return

        unknown_tasks = {e.task_id for e in new} - set(self.tasks)
        if unknown_tasks:
            self.tasks.update(self.client.tasks(unknown_tasks))
        for data_id in sorted({e.data_id for e in new} - self.datasets_done):
            task = next((self.tasks.get(e.task_id) for e in new if e.data_id == data_id), None)
            self._store_dataset(data_id, task)
            self.datasets_done.add(data_id)
        for e in new:
            name = openml_algorithm_name(e.flow_name)
            if name not in self.algorithms:
                self.kb.add_algorithm(
                    name,
                    library=_library(e.flow_name),
                    parameters={"openml_flow_id": e.flow_id, "openml_flow_name": e.flow_name},
                )
                self.algorithms.add(name)

        times = (
            self.client.measure_of_runs(self.time_measure, [e.run_id for e in new])
            if self.time_measure
            else {}
        )
        rows = []
        for e in new:
            task = self.tasks.get(e.task_id)
            millis = times.get(e.run_id)
            rows.append(
                {
                    "dataset": openml_dataset_name(e.data_id),
                    "algorithm": openml_algorithm_name(e.flow_name),
                    "accuracy": float(e.value),
                    "time": math.nan if millis is None else float(millis) / 1000.0,
                    "protocol": openml_protocol(task.estimation_procedure if task else None),
                    "status": "ok",
                    "source": SOURCE,
                    "source_run_id": str(e.run_id),
                }
            )
        frame = pd.DataFrame(rows)
        report = self.kb.import_runs(frame, source=SOURCE, skip_invalid=True)
        self.counts["added"] += report.added
        self.counts["present"] += report.present
        self.counts["rejected"] += report.rejected
        self.problems.extend(plain_numbers(p) for p in report.problems)
        self.counts["no_time"] += int(frame["time"].isna().sum())

    def _store_dataset(self, data_id: int, task: TaskInfo | None) -> None:
        import pandas as pd

        from metarec.metafeatures import translate_openml_qualities

        name = openml_dataset_name(data_id)
        qualities: dict[str, float] = dict(task.qualities) if task else {}
        fetched = False
        if self.qualities and not self._has_metafeatures(name):
            try:
                qualities.update(self.client.dataset_qualities(data_id))
                fetched = True
            except OpenMLError as exc:
                if exc.code is None:  # not reachable / malformed: stop, nothing is lost
                    raise
                self.problems.append(f"dataset {data_id}: no qualities ({exc})")
        translated = translate_openml_qualities(qualities) if qualities else {}
        counts = {}
        for key in ("n_instances", "n_features"):
            value = translated.get(key)
            counts[key] = _count(value)
            if value is not None and counts[key] is None:
                self.problems.append(f"dataset {data_id}: {key} {value!r} is not a count; left out")
        self.kb.add_dataset(
            name,
            source=SOURCE,
            source_id=str(data_id),
            task=_task_kind(qualities, task.task_type if task else ""),
            **counts,
        )
        if fetched and translated:
            frame = pd.DataFrame([{"dataset": name, **translated}])
            self.kb.import_metafeatures(frame, skip_invalid=True)
            self.counts["metafeatures"] += 1

    def report(self) -> OpenMLIngestReport:
        c = self.counts
        return OpenMLIngestReport(
            runs_listed=c["listed"],
            runs_added=c["added"],
            runs_present=c["present"],
            runs_rejected=c["rejected"],
            runs_without_time=c["no_time"],
            datasets_with_metafeatures=c["metafeatures"],
            pages=c["pages"],
            problems=tuple(self.problems),
        )


def ingest_openml(
    kb: Any,
    *,
    suite: int | str | None = None,
    tasks: Iterable[int | str] | None = None,
    flows: Iterable[int | str] | None = None,
    measure: str = "predictive_accuracy",
    time_measure: str | None = "usercpu_time_millis",
    limit: int | None = None,
    page_size: int = 1000,
    qualities: bool = True,
    client: OpenMLClient | None = None,
    progress: Callable[..., None] | None = None,
) -> OpenMLIngestReport:
    """Store OpenML runs (and their datasets' qualities) in a knowledge base.

    Parameters
    ----------
    kb : KnowledgeBase
        Destination; needs ``import_runs``, ``import_metafeatures``, ``add_dataset``,
        ``add_algorithm``, ``runs``, ``datasets`` and ``metafeatures``.
    suite : int or str, optional
        A benchmark suite (e.g. ``99``, OpenML-CC18): only runs on its tasks.  Combined with
        ``tasks``, only the tasks in both.
    tasks, flows : iterable of int, optional
        Only runs on these OpenML tasks / of these flows.
    measure : str, default="predictive_accuracy"
        OpenML evaluation measure stored as the run's ``accuracy`` (the score metarec ranks
        by; it must be higher-is-better).
    time_measure : str or None, default="usercpu_time_millis"
        OpenML runtime measure (milliseconds) stored as ``time`` in seconds; ``None`` stores
        no time.
    limit : int, optional
        Stop after this many evaluations of ``measure`` have been listed.
    page_size : int, default=1000
        Evaluations per request, 1 to 10,000 (the server's maximum).
    qualities : bool, default=True
        Fetch and store the datasets' qualities as metafeatures.
    client : OpenMLClient, optional
        The OpenML access (server, cache directory, retries); default ``OpenMLClient()``.
    progress : callable, optional
        Called as ``progress(n)`` after each page with the number of evaluations processed
        (and once as ``progress(0, total=limit)`` when a limit is set).

    Returns
    -------
    OpenMLIngestReport

    Raises
    ------
    InvalidInputError
        For a page size outside 1..10,000, a limit below 1 or non-integer ids.
    OpenMLError
        When OpenML cannot be reached or answers with an error or malformed XML; every page
        processed before is already stored.
    """
    if not 1 <= int(page_size) <= MAX_PAGE_SIZE:
        raise InvalidInputError(
            f"page_size={page_size} is outside 1..{MAX_PAGE_SIZE} (the OpenML server refuses "
            "larger pages)"
        )
    if limit is not None and int(limit) < 1:
        raise InvalidInputError(f"limit={limit} must be at least 1")
    if not measure or not str(measure).strip():
        raise InvalidInputError("measure must be a non-empty OpenML measure name")
    task_ids = _parse_ids(tasks, "task")
    flow_ids = _parse_ids(flows, "flow")
    client = client if client is not None else OpenMLClient()
    advance = progress if progress is not None else (lambda n=1, total=None: None)
    session = _Session(kb, client, measure, time_measure or None, qualities)

    if suite is not None:
        suite_tasks = set(client.suite_tasks(suite))
        task_ids = sorted(suite_tasks if task_ids is None else suite_tasks & set(task_ids))
        if not task_ids:
            return session.report()
    if limit is not None:
        advance(0, total=int(limit))

    offset = 0
    remaining = None if limit is None else int(limit)
    while remaining is None or remaining > 0:
        size = int(page_size) if remaining is None else min(int(page_size), remaining)
        page = client.list_evaluations(
            measure, offset=offset, size=size, tasks=task_ids, flows=flow_ids
        )
        if not page:
            break
        session.process(page)
        advance(len(page))
        offset += size
        if remaining is not None:
            remaining -= len(page)
        if len(page) < size:
            break
    return session.report()


def _count(value) -> int | None:
    """A row or column count from a server's quality, or None when it cannot be one (nor
    one a knowledge base's column holds)."""
    from metarec._counts import checked_count
    from metarec.exceptions import KnowledgeBaseError

    try:
        return checked_count("an OpenML quality", "count", value)
    except KnowledgeBaseError:
        return None
