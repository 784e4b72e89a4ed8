"""The one place in metarec that talks to the ``openml`` package.

Everything metarec needs from OpenML goes through :class:`OpenMLClient`, which returns plain
frozen records (:class:`Evaluation`, :class:`TaskInfo`) and turns every failure of the
``openml`` library into an :class:`~metarec.ingest.OpenMLError` with a one-line message.  The
``openml`` package is imported lazily, on the first call, so importing :mod:`metarec.ingest`
stays cheap.  Keeping these calls in one small module means the next release of the
library (which changes its API) touches this file only.

Configuration honoured (never stored, never printed):

* the API key: the ``OPENML_APIKEY`` environment variable, else openml's own configuration
  file (``~/.config/openml/config``, key ``apikey``);
* the cache directory: ``cache_dir`` if given, else openml's own setting (the
  ``OPENML_CACHE_DIR`` environment variable or the ``cachedir`` key of its configuration file);
* the server: ``server`` if given, else openml's configured server.

Behaviour of openml 0.15.1 that this module relies on (read from its source):
``openml.evaluations.list_evaluations(function, offset=..., size=...)`` issues one request
``evaluation/list/function/<f>/limit/<size>/offset/<offset>/...`` followed by one
``user/list/user_id/...`` request, and returns an empty result when the server answers
"no results" (codes 372 and 542, among others); a page larger than 10,000 results is refused by
the server.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from metarec._text import one_line
from metarec.exceptions import OpenMLError

__all__ = [
    "APIKEY_ENV",
    "MAX_PAGE_SIZE",
    "Evaluation",
    "TaskInfo",
    "OpenMLClient",
]

#: Environment variable read for the OpenML API key.
APIKEY_ENV = "OPENML_APIKEY"
#: The OpenML server refuses evaluation pages larger than this.
MAX_PAGE_SIZE = 10_000
#: Run ids per request when looking up a second measure for given runs (keeps URLs short).
RUNS_PER_REQUEST = 200


@dataclass(frozen=True)
class Evaluation:
    """One evaluation of one OpenML run (the value of one measure).

    Parameters
    ----------
    run_id, task_id, flow_id : int
        OpenML ids of the run, its task and its flow (the algorithm).
    flow_name : str
        The flow's name.
    data_id : int
        The dataset's OpenML id.
    data_name : str
        The dataset's name.
    value : float or None
        The measure's value (None when OpenML gives none).
    """

    run_id: int
    task_id: int
    flow_id: int
    flow_name: str
    data_id: int
    data_name: str
    value: float | None


@dataclass(frozen=True)
class TaskInfo:
    """What metarec needs to know about an OpenML task.

    Parameters
    ----------
    task_id : int
        The task's OpenML id.
    data_id : int
        Its dataset's OpenML id.
    task_type : str
        OpenML's task type (``"Supervised Classification"``...); empty when not given.
    estimation_procedure : str or None
        OpenML's name of its evaluation procedure (``"10-fold Crossvalidation"``...).
    qualities : dict of str to float
        The dataset qualities listed with the task (the numeric fields of the listing).
    """

    task_id: int
    data_id: int
    task_type: str
    estimation_procedure: str | None
    qualities: dict[str, float] = field(default_factory=dict)


@dataclass
class OpenMLClient:
    """A thin, replaceable wrapper around the ``openml`` package.

    Parameters
    ----------
    server : str, optional
        REST endpoint (e.g. ``https://www.openml.org/api/v1/xml``); default: openml's setting.
    cache_dir : str or path, optional
        Root of openml's cache; default: openml's setting.
    n_retries : int, optional
        Attempts per request on connection errors and database-busy answers; default:
        openml's setting.
    retry_policy : {"human", "robot"}, optional
        openml's retry delay policy; default: openml's setting.
    apikey : str, optional
        OpenML API key; default: the ``OPENML_APIKEY`` environment variable, else openml's
        configuration file.  It is only handed to openml, never stored or shown.
    """

    server: str | None = None
    cache_dir: str | os.PathLike[str] | None = None
    n_retries: int | None = None
    retry_policy: str | None = None
    apikey: str | None = field(default=None, repr=False)
    _configured: bool = field(default=False, init=False, repr=False)

    # -- configuration -------------------------------------------------------------------
    def _openml(self):
        try:
            import openml
        except ImportError as exc:  # pragma: no cover - openml is a dependency
            raise OpenMLError("the openml package is not installed (pip install openml)") from exc
        if not self._configured:
            config = openml.config
            if self.server:
                config.server = str(self.server)
            if self.cache_dir is not None:
                config.set_root_cache_directory(os.path.expanduser(os.fspath(self.cache_dir)))
            key = self.apikey if self.apikey is not None else os.environ.get(APIKEY_ENV)
            if key:
                config.apikey = key
            if self.retry_policy is not None or self.n_retries is not None:
                policy = self.retry_policy or config.retry_policy
                config.set_retry_policy(policy, self.n_retries)
            self._configured = True
        return openml

    @property
    def server_url(self) -> str:
        """The server requests go to."""
        return str(self._openml().config.server)

    def _redact(self, text: str) -> str:
        try:
            key = self._openml().config.apikey
        except Exception:  # pragma: no cover - defensive
            key = None
        if key:
            text = text.replace(key, "***")
        return re.sub(r"(api_key=)[^&\s]+", r"\1***", text)

    def _fail(self, what: str, exc: BaseException) -> OpenMLError:
        """Translate an exception raised inside openml into a one-line OpenMLError."""
        import xml.parsers.expat

        openml = self._openml()
        errors = openml.exceptions
        if isinstance(exc, errors.OpenMLServerException):
            message = f"OpenML server refused {what} (code {exc.code}: {one_line(exc.message)})"
        elif isinstance(exc, errors.OpenMLServerError):
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            message = f"OpenML server failed on {what}: {one_line(first)}"
        elif isinstance(exc, KeyError) and exc.args == ("oml:error",):
            message = f"OpenML server failed on {what}: it answered with an error page"
        elif isinstance(exc, xml.parsers.expat.ExpatError):
            message = f"OpenML server sent malformed XML for {what} ({exc})"
        elif isinstance(exc, (ValueError, KeyError, TypeError, AssertionError, AttributeError)):
            message = (
                f"OpenML server sent an unexpected answer for {what} "
                f"({type(exc).__name__}: {one_line(exc)[:200]})"
            )
        else:
            message = (
                f"cannot reach the OpenML server {self.server_url} for {what} "
                f"({type(exc).__name__}: {one_line(exc)[:200]})"
            )
        code = getattr(exc, "code", None)
        return OpenMLError(self._redact(message), code=code if isinstance(code, int) else None)

    def _is_no_result(self, exc: BaseException) -> bool:
        return isinstance(exc, self._openml().exceptions.OpenMLServerNoResult)

    # -- calls ---------------------------------------------------------------------------
    def list_evaluations(
        self,
        measure: str,
        *,
        offset: int = 0,
        size: int = 1000,
        tasks: Sequence[int] | None = None,
        flows: Sequence[int] | None = None,
        runs: Sequence[int] | None = None,
    ) -> list[Evaluation]:
        """Return one page of evaluations of ``measure`` (an empty list for "no results").

        Parameters
        ----------
        measure : str
            OpenML's name of the measure (``"predictive_accuracy"``...).
        offset : int, default=0
            Evaluations to skip: the position of the page.
        size : int, default=1000
            Evaluations per page, 1 to :data:`MAX_PAGE_SIZE`.
        tasks, flows, runs : sequence of int, optional
            Only the evaluations of these task, flow or run ids (empty or None: no
            restriction).

        Returns
        -------
        list of Evaluation
            At most ``size``.

        Raises
        ------
        OpenMLError
            ``size`` is out of range; the server refused or failed, or cannot be reached.
        """
        if not 1 <= size <= MAX_PAGE_SIZE:
            raise OpenMLError(f"page size {size} is outside 1..{MAX_PAGE_SIZE}")
        openml = self._openml()
        what = f"the evaluations of {measure!r} (offset {offset}, size {size})"
        try:
            result = openml.evaluations.list_evaluations(
                measure,
                offset=int(offset),
                size=int(size),
                tasks=list(tasks) if tasks else None,
                flows=list(flows) if flows else None,
                runs=list(runs) if runs else None,
                output_format="object",
            )
        except Exception as exc:
            if self._is_no_result(exc):
                return []
            raise self._fail(what, exc) from exc
        out = []
        for evaluation in result.values():
            value = evaluation.value
            out.append(
                Evaluation(
                    run_id=int(evaluation.run_id),
                    task_id=int(evaluation.task_id),
                    flow_id=int(evaluation.flow_id),
                    flow_name=str(evaluation.flow_name),
                    data_id=int(evaluation.data_id),
                    data_name=str(evaluation.data_name),
                    value=None if value is None else float(value),
                )
            )
        return out

    def measure_of_runs(self, measure: str, runs: Iterable[int]) -> dict[int, float]:
        """Return ``{run_id: value}`` of ``measure`` for the given runs (absent when missing).

        Parameters
        ----------
        measure : str
            OpenML's name of the measure.
        runs : iterable of int
            Run ids, asked :data:`RUNS_PER_REQUEST` at a time.

        Returns
        -------
        dict of int to float
            The value of every run that has one.

        Raises
        ------
        OpenMLError
            The server refused or failed, or cannot be reached.
        """
        run_ids = sorted({int(r) for r in runs})
        values: dict[int, float] = {}
        for start in range(0, len(run_ids), RUNS_PER_REQUEST):
            chunk = run_ids[start : start + RUNS_PER_REQUEST]
            for evaluation in self.list_evaluations(measure, size=len(chunk), runs=chunk):
                if evaluation.value is not None:
                    values[evaluation.run_id] = evaluation.value
        return values

    def suite_tasks(self, suite_id: int | str) -> list[int]:
        """Return the task ids of a benchmark suite (e.g. 99 for OpenML-CC18).

        Parameters
        ----------
        suite_id : int or str
            The suite's OpenML id or alias.

        Returns
        -------
        list of int

        Raises
        ------
        OpenMLError
            The server refused or failed, or cannot be reached.
        """
        openml = self._openml()
        try:
            suite = openml.study.get_suite(suite_id)
        except Exception as exc:
            raise self._fail(f"benchmark suite {suite_id}", exc) from exc
        return [int(t) for t in (suite.tasks or [])]

    def tasks(self, task_ids: Iterable[int]) -> dict[int, TaskInfo]:
        """Return :class:`TaskInfo` for the given task ids (unknown ids are left out).

        Parameters
        ----------
        task_ids : iterable of int
            OpenML task ids (repeats are asked once).

        Returns
        -------
        dict of int to TaskInfo
            By task id.

        Raises
        ------
        OpenMLError
            The server refused or failed, or cannot be reached.
        """
        ids = sorted({int(t) for t in task_ids})
        if not ids:
            return {}
        openml = self._openml()
        import warnings

        what = f"the description of tasks {ids[:5]}{'...' if len(ids) > 5 else ''}"
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", FutureWarning)
                listing = openml.tasks.list_tasks(task_id=ids, size=len(ids), output_format="dict")
        except Exception as exc:
            if self._is_no_result(exc):
                return {}
            raise self._fail(what, exc) from exc
        out: dict[int, TaskInfo] = {}
        reserved = {"tid", "ttid", "did", "name", "task_type", "status", "estimation_procedure"}
        for tid, row in listing.items():
            qualities = {}
            for key, value in row.items():
                if key in reserved:
                    continue
                try:
                    qualities[str(key)] = float(value)
                except (TypeError, ValueError):
                    continue
            out[int(tid)] = TaskInfo(
                task_id=int(tid),
                data_id=int(row["did"]),
                task_type=str(row.get("task_type", "")),
                estimation_procedure=row.get("estimation_procedure"),
                qualities=qualities,
            )
        return out

    def dataset_frame(self, data_id: int) -> tuple[object, str | None, str]:
        """Download a dataset's data.

        Parameters
        ----------
        data_id : int
            The OpenML dataset id.

        Returns
        -------
        frame : pandas.DataFrame
            Every column of the dataset, the target included.
        target : str or None
            Its default target attribute (the first one, when it names several).
        name : str
            Its name on OpenML.

        Raises
        ------
        OpenMLError
            The server refused or failed, or cannot be reached.
        """
        openml = self._openml()
        try:
            dataset = openml.datasets.get_dataset(
                int(data_id),
                download_data=True,
                download_qualities=False,
                download_features_meta_data=False,
            )
            frame, *_ = dataset.get_data(dataset_format="dataframe")
        except Exception as exc:
            raise self._fail(f"dataset {data_id}", exc) from exc
        target = dataset.default_target_attribute
        if target and "," in target:
            target = target.split(",")[0]
        return frame, target or None, str(dataset.name)

    def dataset_qualities(self, data_id: int) -> dict[str, float]:
        """Return the data qualities OpenML computed for a dataset (its metafeatures).

        Parameters
        ----------
        data_id : int
            The OpenML dataset id.

        Returns
        -------
        dict of str to float
            OpenML's quality names and their values (qualities without a value left out).

        Raises
        ------
        OpenMLError
            The server refused or failed, or cannot be reached.
        """
        openml = self._openml()
        try:
            dataset = openml.datasets.get_dataset(
                int(data_id),
                download_data=False,
                download_qualities=True,
                download_features_meta_data=False,
            )
            qualities = dataset.qualities or {}
        except Exception as exc:
            raise self._fail(f"the qualities of dataset {data_id}", exc) from exc
        return {str(k): float(v) for k, v in qualities.items() if v is not None}
