"""Read ASlib algorithm-selection scenarios and store them in a knowledge base.

An ASlib scenario [1]_ is a folder with (among others) ``description.txt`` (YAML-like
key/value pairs), ``algorithm_runs.arff`` (one row per instance, repetition and algorithm,
one column per performance measure and usually a ``runstatus``) and ``feature_values.arff``
(one row per instance and repetition, one column per feature).

Mapping to metarec (documented choices):

* every instance becomes a dataset named ``"aslib:<scenario_id>:<instance_id>"`` (source
  ``"aslib"``); every algorithm keeps its ASlib name;
* ``accuracy`` is the first performance measure whose type is ``solution_quality`` and that
  is maximised.  A scenario whose only quality measure is minimised (an error, a cost) is
  refused, since metarec ranks by a higher-is-better score.  A runtime-only scenario (the
  usual SAT/CSP case) has no quality: a run that ended with ``runstatus`` ``ok`` (or, without
  a ``runstatus`` column, before the cutoff) counts as solved, ``accuracy = 1``;
* ``time`` (seconds) is the first measure of type ``runtime`` when there is one, else missing;
* ``runstatus`` ``ok`` -> status ``"ok"``; ``timeout`` and ``memout`` -> ``"timeout"``; any
  other (``crash``, ``not_applicable``, ``other``...) -> ``"error"`` with the ASlib status as
  the error message; failed runs have a missing accuracy and keep the time they used;
* ``repetition`` becomes ``seed``; ``source_run_id`` is
  ``"<scenario_id>/<instance_id>/<algorithm>/<repetition>"``, so ingesting a scenario twice
  stores nothing new;
* features are averaged over repetitions; a feature named like an OpenML data quality is
  translated by :func:`metarec.metafeatures.translate_openml_qualities`, any other is kept as
  ``"aslib_" + name`` (lower case, non-alphanumerics as ``_``).

Everything is read and checked before anything is stored, and an ingest is all or nothing:
a broken scenario, or a scenario with one invalid row (a quality outside [0, 1], a negative
or infinite time, a run with status ``ok`` and no quality, a value that is not a number, a run
listed twice), changes nothing in the knowledge base; the error cites the ARFF file, line and
attribute of the first problem.  With ``skip_invalid=True`` (``--skip-invalid``) the valid
rows are stored and every invalid one is reported the same way.

References
----------
.. [1] Bischl, B., Kerschke, P., Kotthoff, L., Lindauer, M., Malitsky, Y., Fréchette, A.,
       Hoos, H., Hutter, F., Leyton-Brown, K., Tierney, K., Vanschoren, J. (2016). ASlib: A
       benchmark library for algorithm selection. Artificial Intelligence 237, 41-58.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from metarec.ingest._errors import ScenarioError, plain_numbers

__all__ = [
    "REQUIRED_FILES",
    "AslibIngestReport",
    "AslibScenario",
    "ingest_aslib",
    "parse_description",
    "read_aslib_scenario",
]

REQUIRED_FILES = ("description.txt", "algorithm_runs.arff", "feature_values.arff")
SOURCE = "aslib"
_TIMEOUT_STATUSES = {"timeout", "memout"}
_MAX_PROBLEMS = 1000  # problems listed per file; the count of invalid rows is always exact


@dataclass(frozen=True)
class AslibScenario:
    """A scenario read from disk, ready to be stored.

    Parameters
    ----------
    scenario_id : str
        The scenario's name (``scenario_id`` of ``description.txt``).
    path : Path
        The scenario folder.
    quality_measure : str or None
        The measure stored as ``accuracy`` (``None`` for a runtime-only scenario).
    runtime_measure : str or None
        The measure stored as ``time``.
    runs : DataFrame
        The valid run rows in the knowledge base's long format.
    metafeatures : DataFrame
        Wide: ``dataset`` plus one column per feature (invalid values left out).
    problems : tuple of str
        One line per invalid row or value, citing file, line and attribute.
    n_invalid_runs : int
        Rows of ``algorithm_runs.arff`` left out of ``runs``.
    run_lines : ndarray, optional
        Line of ``algorithm_runs.arff`` of each row of ``runs`` (to cite the file in problems
        the knowledge base finds).
    """

    scenario_id: str
    path: Path
    quality_measure: str | None
    runtime_measure: str | None
    runs: Any
    metafeatures: Any
    problems: tuple[str, ...] = ()
    n_invalid_runs: int = 0
    run_lines: Any = None


@dataclass(frozen=True)
class AslibIngestReport:
    """What :func:`ingest_aslib` stored.

    Parameters
    ----------
    scenario_id : str
        The scenario's name.
    datasets : int
        Datasets (instances) with a stored run.
    algorithms : int
        Algorithms with a stored run.
    runs_added, runs_present : int
        Runs newly stored, and runs already stored.
    runs_rejected : int
        Invalid run rows left out (with ``skip_invalid``).
    runs_failed : int
        Runs whose status is not ``ok`` (a timeout, a crash...).
    runs_without_time : int
        Runs without a time.
    metafeatures : int
        Metafeature values stored (added, updated or already present).
    problems : tuple of str
        One line per row or value left out, citing the ARFF file, line and attribute.
    features_dropped : int
        Feature rows of instances without a stored run (no dataset to attach them to).
    first_dropped : str or None
        The first of those instances (its id in ``feature_values.arff``).
    """

    scenario_id: str
    datasets: int
    algorithms: int
    runs_added: int
    runs_present: int
    runs_rejected: int
    runs_failed: int
    runs_without_time: int
    metafeatures: int
    problems: tuple[str, ...] = ()
    #: Feature rows of instances without a stored run (no dataset to attach them to).
    features_dropped: int = 0
    #: The first of those instances (its id in ``feature_values.arff``).
    first_dropped: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """Return the counts as a plain dictionary (problems as a count).

        Returns
        -------
        dict of str to Any
            ``scenario``, the counts by field name, and ``problems``, their number.
        """
        return {
            "scenario": self.scenario_id,
            "datasets": self.datasets,
            "algorithms": self.algorithms,
            "runs_added": self.runs_added,
            "runs_present": self.runs_present,
            "runs_rejected": self.runs_rejected,
            "runs_failed": self.runs_failed,
            "runs_without_time": self.runs_without_time,
            "metafeatures": self.metafeatures,
            "features_dropped": self.features_dropped,
            "problems": len(self.problems),
        }

    def notes(self) -> list[str]:
        """What a person should know about what was not stored, one line each.

        Returns
        -------
        list of str
            Empty when every feature row was stored.
        """
        if not self.features_dropped:
            return []
        return [
            f"{self.features_dropped} feature row(s) of instances without runs were not "
            f"stored (first: {self.first_dropped})"
        ]


def _split_list(value: str) -> list[str]:
    value = value.strip()
    if value.startswith("[") and value.endswith("]"):
        value = value[1:-1]
    return [v.strip().strip("'\"") for v in value.split(",") if v.strip()]


def parse_description(text: str) -> dict[str, list[str]]:
    """Parse the top-level fields of an ASlib ``description.txt``.

    The file is YAML-like; this reads the subset ASlib uses for the fields metarec needs,
    without a YAML dependency: ``key: value``, ``key: [a, b]``, ``key: a, b`` and a key
    followed by ``- item`` lines.  Nested mappings (``feature_steps``,
    ``metainfo_algorithms``) are skipped.  Every value is returned as a list of strings.

    Parameters
    ----------
    text : str
        The content of ``description.txt``.

    Returns
    -------
    dict of str to list of str
        The values of each top-level key (comments and quotes removed).
    """
    fields: dict[str, list[str]] = {}
    current: str | None = None
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].rstrip()
        if not line.strip():
            continue
        indented = line[:1] in (" ", "\t")
        stripped = line.strip()
        if stripped.startswith("- ") or stripped == "-":
            if current is not None:
                item = stripped[1:].strip().strip("'\"")
                if item:
                    fields[current].append(item)
            continue
        if indented:  # part of a nested mapping: not needed
            if current is not None and not fields[current]:
                current = None  # the key held a mapping, not a list
            continue
        key, sep, value = stripped.partition(":")
        if not sep:
            raise ScenarioError(f"description.txt: cannot read line {raw.strip()!r}")
        current = key.strip()
        fields[current] = _split_list(value) if value.strip() else []
    return fields


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        line = exc.object[: exc.start].count(b"\n") + 1
        raise ScenarioError(
            f"{path}, line {line}: not UTF-8 text (byte 0x{exc.object[exc.start]:02x}); "
            "save the file as UTF-8"
        ) from None
    except OSError as exc:
        raise ScenarioError(f"{path}: cannot be read ({exc.strerror or exc})") from None


def _data_lines(text: str, n_rows: int) -> np.ndarray | None:
    """1-based line numbers of the ``n_rows`` data rows of an ARFF text (None if unsure)."""
    lines = text.splitlines()
    start = next(
        (i for i, line in enumerate(lines) if line.strip().lower().startswith("@data")), None
    )
    if start is None:
        return None
    numbers = [
        i + 1
        for i in range(start + 1, len(lines))
        if lines[i].strip() and not lines[i].lstrip().startswith("%")
    ]
    return np.asarray(numbers, dtype=np.int64) if len(numbers) == n_rows else None


def _read_arff(path: Path) -> tuple[list[str], list[list[Any]], np.ndarray]:
    """Attribute names, data rows and the line of each data row."""
    import arff

    text = _read_text(path)
    try:
        content = arff.loads(text)
    except (arff.ArffException, ValueError) as exc:
        raise ScenarioError(f"{path}: not a readable ARFF file ({exc})") from exc
    names = [str(name) for name, _ in content["attributes"]]
    data = content["data"]
    lines = _data_lines(text, len(data))
    return names, data, lines


class _RowProblems:
    """Invalid rows of one ARFF file, cited as ``file, line L, attribute 'A': message``."""

    def __init__(self, path: Path, lines: np.ndarray | None, n_rows: int) -> None:
        self.path, self.lines = path, lines
        self.bad = np.zeros(n_rows, dtype=bool)
        self.found: list[tuple[int, int, str]] = []  # (row, order, message)

    def where(self, row: int) -> str:
        if self.lines is None:
            return f"data row {row + 1}"
        return f"line {int(self.lines[row])}"

    def fail(self, mask, attribute: str, describe: Callable[[int], str]) -> None:
        mask = np.asarray(mask, dtype=bool)
        self.bad |= mask
        for row in np.flatnonzero(mask)[:_MAX_PROBLEMS]:  # the rows are counted in self.bad
            text = f"{self.path}, {self.where(int(row))}, attribute {attribute!r}: {describe(row)}"
            self.found.append((int(row), len(self.found), text))

    def messages(self) -> list[str]:
        found = sorted(self.found)[:_MAX_PROBLEMS]
        texts = [text for _, _, text in found]
        more = int(self.bad.sum()) - len({row for row, _, _ in found})
        if more > 0:
            texts.append(f"{self.path}: ... and {more} more invalid rows")
        return texts


def _number(value: Any) -> str:
    """A plain number for messages (``80``, ``0.5``, ``inf``), never a numpy repr."""
    value = float(value)
    return str(int(value)) if value.is_integer() else repr(value)


def _check_numbers(raw, values, problems: _RowProblems, attribute: str) -> None:
    """Values given in the file (not ``?``) that are not numbers fail their row."""
    text = raw.astype("string").str.strip().fillna("")
    given = ~text.isin(["", "?"]).to_numpy(bool)
    texts = raw.to_numpy(dtype=object)
    problems.fail(
        given & np.isnan(values.to_numpy(dtype=float)),
        attribute,
        lambda i: f"{texts[i]!s} is not a number",
    )


def _feature_name(name: str) -> str:
    return "aslib_" + (re.sub(r"[^0-9a-zA-Z]+", "_", name).strip("_").lower() or "feature")


def _first(fields: dict[str, list[str]], key: str) -> str | None:
    values = fields.get(key) or []
    return values[0] if values else None


def _as_float(value: str | None) -> float | None:
    if value is None or value.strip() in ("", "?"):
        return None
    try:
        return float(value)
    except ValueError:
        return None


def read_aslib_scenario(path: str | os.PathLike[str]) -> AslibScenario:
    """Read and check an ASlib scenario folder (nothing is stored).

    Parameters
    ----------
    path : str or path-like
        The scenario folder (``~`` expanded), holding at least :data:`REQUIRED_FILES`.

    Returns
    -------
    AslibScenario
        The valid runs and metafeatures, and the problems of the invalid rows.

    Raises
    ------
    ScenarioError
        When ``path`` is not a folder, a required file is missing (named in the message), a
        file cannot be parsed, or a column the description names is absent.
    """
    folder = Path(path).expanduser()
    if not folder.is_dir():
        raise ScenarioError(f"{folder} is not a folder (expected an ASlib scenario)")
    for name in REQUIRED_FILES:
        if not (folder / name).is_file():
            raise ScenarioError(f"{folder} is not an ASlib scenario: {name} is missing")
    described = _read_description(folder)
    runs, keep, lines, row_problems = _read_runs(folder, described)
    metafeatures, feature_problems = _read_features(folder, described.scenario_id)
    problems = row_problems.messages() + feature_problems.messages()
    run_lines = lines[keep] if lines is not None else None
    return AslibScenario(
        scenario_id=described.scenario_id,
        path=folder,
        quality_measure=described.quality_measure,
        runtime_measure=described.runtime_measure,
        runs=runs[keep].reset_index(drop=True),
        metafeatures=metafeatures,
        problems=tuple(problems),
        n_invalid_runs=int((~keep).sum()),
        run_lines=run_lines,
    )


@dataclass(frozen=True)
class _Described:
    """What ``description.txt`` says the runs hold."""

    scenario_id: str
    measures: list
    runtime_measure: str | None
    quality_measure: str | None
    cutoff: float | None


def _read_description(folder: Path) -> _Described:
    """The scenario's id, its measures (which one is the time, which the higher-is-better
    score) and the algorithm cutoff time."""
    fields = parse_description(_read_text(folder / "description.txt"))
    scenario_id = _first(fields, "scenario_id") or folder.name
    measures = fields.get("performance_measures") or []
    if not measures:
        raise ScenarioError(f"{folder / 'description.txt'}: no performance_measures")
    maximize = [v.lower() == "true" for v in fields.get("maximize", [])]
    types = [v.lower() for v in fields.get("performance_type", [])]
    if len(types) == 1 and len(measures) > 1:
        types = types * len(measures)
    if len(maximize) == 1 and len(measures) > 1:
        maximize = maximize * len(measures)
    types = (types + ["solution_quality"] * len(measures))[: len(measures)]
    maximize = (maximize + [False] * len(measures))[: len(measures)]
    runtime_measure = next(
        (m for m, t in zip(measures, types, strict=True) if t == "runtime"), None
    )
    quality = [
        (m, up) for m, t, up in zip(measures, types, maximize, strict=True) if t != "runtime"
    ]
    quality_measure = next((m for m, up in quality if up), None)
    if quality and quality_measure is None:
        raise ScenarioError(
            f"{folder / 'description.txt'}: performance measure {quality[0][0]!r} is minimised; "
            "metarec needs a higher-is-better score"
        )
    cutoff = _as_float(_first(fields, "algorithm_cutoff_time"))

    return _Described(scenario_id, measures, runtime_measure, quality_measure, cutoff)


def _read_runs(folder: Path, described: _Described):
    """``algorithm_runs.arff`` as metarec's run rows, checked row by row.

    Returns ``(runs, keep, lines, row_problems)``: every row, the mask of the valid ones,
    the ARFF line of each row and the problems found.
    """
    import pandas as pd

    scenario_id, measures = described.scenario_id, described.measures
    runtime_measure, quality_measure = described.runtime_measure, described.quality_measure
    cutoff = described.cutoff
    runs_path = folder / "algorithm_runs.arff"
    names, data, lines = _read_arff(runs_path)
    lower = {n.lower(): n for n in names}
    for needed in ("instance_id", "algorithm", *measures):
        if needed.lower() not in lower:
            raise ScenarioError(f"{runs_path}: column {needed!r} is missing")
    raw = pd.DataFrame(data, columns=names)
    if len(raw) == 0:
        raise ScenarioError(f"{runs_path}: no runs")
    row_problems = _RowProblems(runs_path, lines, len(raw))
    instance = raw[lower["instance_id"]].astype(str)
    algorithm = raw[lower["algorithm"]].astype(str)
    repetition = (
        pd.to_numeric(raw[lower["repetition"]], errors="coerce").fillna(1).astype(int)
        if "repetition" in lower
        else pd.Series(1, index=raw.index)
    )
    if "runstatus" in lower:
        runstatus = raw[lower["runstatus"]].astype("string").fillna("other").str.lower()
    else:
        runstatus = pd.Series("ok", index=raw.index, dtype="string")
    if runtime_measure:
        time_attribute = lower[runtime_measure.lower()]
        time = pd.to_numeric(raw[time_attribute], errors="coerce").astype(float)
        _check_numbers(raw[time_attribute], time, row_problems, time_attribute)
        values = time.to_numpy()
        row_problems.fail(
            (values < 0) | np.isinf(values),
            time_attribute,
            lambda i: f"time {_number(values[i])} is negative or infinite",
        )
    else:
        time = pd.Series(np.nan, index=raw.index)
    if "runstatus" not in lower and runtime_measure and cutoff is not None:
        runstatus = runstatus.mask(time >= cutoff, "timeout")
    ok = runstatus == "ok"
    if quality_measure:
        quality_attribute = lower[quality_measure.lower()]
        accuracy = pd.to_numeric(raw[quality_attribute], errors="coerce").astype(float)
        _check_numbers(raw[quality_attribute], accuracy, row_problems, quality_attribute)
        values = accuracy.to_numpy()
        row_problems.fail(
            ok.to_numpy(bool) & ((values < 0) | (values > 1)),
            quality_attribute,
            lambda i: f"{quality_measure} {_number(values[i])} is outside [0, 1]",
        )
        row_problems.fail(
            ok.to_numpy(bool) & np.isnan(values) & ~row_problems.bad,
            quality_attribute,
            lambda i: (
                f"run of {algorithm.iloc[i]!r} on {instance.iloc[i]!r} has status ok "
                f"but no value of {quality_measure!r}"
            ),
        )
    else:
        accuracy = pd.Series(1.0, index=raw.index)
    status = pd.Series(
        np.where(ok, "ok", np.where(runstatus.isin(_TIMEOUT_STATUSES), "timeout", "error")),
        index=raw.index,
    )
    dataset = f"aslib:{scenario_id}:" + instance
    runs = pd.DataFrame(
        {
            "dataset": dataset,
            "algorithm": algorithm,
            "accuracy": accuracy.where(ok, np.nan).astype(float),
            "time": time.astype(float),
            "protocol": SOURCE,
            "seed": repetition,
            "status": status,
            "error": runstatus.where(status == "error", None).astype(object),
            "source": SOURCE,
            "source_run_id": f"{scenario_id}/"
            + instance
            + "/"
            + algorithm
            + "/"
            + repetition.astype(str),
        }
    )
    _refuse_repeated_runs(runs["source_run_id"], row_problems)
    keep = ~row_problems.bad

    return runs, keep, lines, row_problems


def _refuse_repeated_runs(key, row_problems) -> None:
    """Fail every copy of a run listed twice: which copy is right cannot be known."""
    repeated = key.duplicated(keep=False).to_numpy()
    if not repeated.any():
        return
    rows_of = key[repeated].groupby(key[repeated], sort=False).indices
    positions = np.flatnonzero(repeated)
    copies = {k: positions[v] for k, v in rows_of.items()}

    def others(i: int) -> str:
        return ", ".join(row_problems.where(int(r)) for r in copies[key.iloc[i]] if r != i)

    row_problems.fail(
        repeated,
        "instance_id, algorithm, repetition",
        lambda i: f"run {key.iloc[i]!r} appears again at {others(i)}; no copy is stored",
    )


def _read_features(folder: Path, scenario_id: str):
    """``feature_values.arff`` as metafeatures (mean over repetitions, OpenML names translated);
    returns ``(metafeatures, problems)``."""
    import pandas as pd

    from metarec.metafeatures import OPENML_QUALITY_MAP, translate_openml_qualities

    features_path = folder / "feature_values.arff"
    fnames, fdata, flines = _read_arff(features_path)
    flower = {n.lower(): n for n in fnames}
    if "instance_id" not in flower:
        raise ScenarioError(f"{features_path}: column 'instance_id' is missing")
    features = pd.DataFrame(fdata, columns=fnames)
    feature_problems = _RowProblems(features_path, flines, len(features))
    feature_columns = [n for n in fnames if n.lower() not in ("instance_id", "repetition")]
    values = features[feature_columns].apply(pd.to_numeric, errors="coerce").astype(float)
    for column in feature_columns:
        column_values = values[column].to_numpy()
        _check_numbers(features[column], values[column], feature_problems, column)
        feature_problems.fail(
            np.isinf(column_values),
            column,
            lambda i, v=column_values: f"{_number(v[i])} is not a finite number",
        )
        values.loc[~np.isfinite(column_values), column] = np.nan  # left out when skipped
    values.insert(0, "instance_id", features[flower["instance_id"]].astype(str))
    means = values.groupby("instance_id", sort=True).mean()
    rows = []
    for instance_id, row in means.iterrows():
        known = {k: float(v) for k, v in row.items() if k in OPENML_QUALITY_MAP and pd.notna(v)}
        translated = translate_openml_qualities(known) if known else {}
        record = {"dataset": f"aslib:{scenario_id}:{instance_id}"}
        record.update(
            {_feature_name(k): float(v) for k, v in row.items() if k not in OPENML_QUALITY_MAP}
        )
        record.update(translated)
        rows.append(record)
    metafeatures = pd.DataFrame(rows)
    return metafeatures, feature_problems


def _cite(problem: str, path: Path, lines, attributes: dict[str, str]) -> str:
    """Turn a knowledge-base problem about a frame row into a citation of the ARFF file."""
    row = getattr(problem, "row", None)
    if row is None:  # not about one row of the frame
        return plain_numbers(problem.replace("<DataFrame>", str(path), 1))
    where = (
        f"line {int(lines[row])}" if lines is not None and row < len(lines) else f"row {row + 1}"
    )
    column = problem.column or ""
    attribute = attributes.get(column, column)
    return f"{path}, {where}, attribute {attribute!r}: {plain_numbers(problem.message)}"


def ingest_aslib(
    kb: Any,
    path: str | os.PathLike[str] | AslibScenario,
    *,
    skip_invalid: bool = False,
    progress: Callable[..., None] | None = None,
) -> AslibIngestReport:
    """Store an ASlib scenario's runs and features in a knowledge base, all or nothing.

    Parameters
    ----------
    kb : KnowledgeBase
        Destination.
    path : str, path or AslibScenario
        The scenario folder (or a scenario already read by :func:`read_aslib_scenario`).
    skip_invalid : bool, default=False
        Store the valid rows and report the invalid ones, instead of refusing the scenario.
    progress : callable, optional
        Called as ``progress(n, total=...)`` while runs are stored.

    Returns
    -------
    AslibIngestReport
        ``problems`` cite the ARFF file, line and attribute of every row left out.

    Raises
    ------
    ScenarioError
        When the folder is not a readable scenario, or (without ``skip_invalid``) when a row
        is invalid; nothing is stored then.
    """
    scenario = path if isinstance(path, AslibScenario) else read_aslib_scenario(path)
    runs_path = scenario.path / "algorithm_runs.arff"
    if scenario.problems and not skip_invalid:
        raise _rejected(runs_path, scenario.n_invalid_runs, list(scenario.problems))
    runs = scenario.runs
    attributes = {
        "dataset": "instance_id",
        "algorithm": "algorithm",
        "seed": "repetition",
        "status": "runstatus",
        "error": "runstatus",
        "source_run_id": "instance_id, algorithm, repetition",
        "accuracy": scenario.quality_measure or "runstatus",
        "time": scenario.runtime_measure or "time",
    }
    from metarec.exceptions import ImportRejectedError

    try:  # the first write: one transaction, so a refusal leaves the KB as it was
        report = kb.import_runs(runs, source=SOURCE, skip_invalid=skip_invalid, progress=progress)
    except ImportRejectedError as exc:
        cited = [_cite(p, runs_path, scenario.run_lines, attributes) for p in exc.problems]
        cited = cited or [_cite(str(exc), runs_path, scenario.run_lines, attributes)]
        raise _rejected(runs_path, None, cited) from None
    problems = list(scenario.problems)
    problems += [_cite(p, runs_path, scenario.run_lines, attributes) for p in report.problems]
    datasets = sorted(runs["dataset"].unique())
    algorithms = sorted(runs["algorithm"].unique())
    if report.rejected:  # only what the knowledge base took: no dataset for a refused row
        datasets = sorted(set(datasets) & set(kb.datasets()["name"]))
        algorithms = sorted(set(algorithms) & set(kb.algorithms()["name"]))
    for name in datasets:
        kb.add_dataset(name, source=SOURCE, source_id=name.split(":", 2)[2])
    for name in algorithms:
        kb.add_algorithm(name, parameters={"aslib_scenario": scenario.scenario_id})
    n_metafeatures = 0
    known = set(datasets)
    metafeatures = scenario.metafeatures
    dropped = 0
    first_dropped = None
    if len(metafeatures):
        with_runs = metafeatures["dataset"].isin(known).to_numpy()
        dropped = int((~with_runs).sum())
        if dropped:
            # the instance id, as feature_values.arff names it
            first_dropped = str(metafeatures["dataset"].to_numpy()[~with_runs][0]).split(":", 2)[-1]
        metafeatures = metafeatures[with_runs]
    if len(metafeatures):  # values were checked on reading: this import has nothing to refuse
        mf = kb.import_metafeatures(metafeatures, skip_invalid=True)
        n_metafeatures = mf.added + mf.present + mf.updated
        problems.extend(
            f"{scenario.path / 'feature_values.arff'}: {plain_numbers(p)}" for p in mf.problems
        )
    failed = int((runs["status"] != "ok").sum())
    no_time = int(runs["time"].isna().sum())
    return AslibIngestReport(
        scenario_id=scenario.scenario_id,
        datasets=len(datasets),
        algorithms=len(algorithms),
        runs_added=report.added,
        runs_present=report.present,
        runs_rejected=scenario.n_invalid_runs + report.rejected,
        runs_failed=failed,
        runs_without_time=no_time,
        features_dropped=dropped,
        first_dropped=first_dropped,
        metafeatures=n_metafeatures,
        problems=tuple(problems),
    )


def _rejected(path: Path, n_rows: int | None, problems: list[str]) -> ScenarioError:
    counted = f"{n_rows} invalid row(s)" if n_rows else "invalid rows"
    message = (
        f"{path.parent}: scenario rejected, nothing was stored: {counted}; first: "
        f"{problems[0]}. Fix the files, or "
    )
    error = ScenarioError(
        message + "pass skip_invalid=True to store the valid rows.",
        cli_message=message + "use --skip-invalid to store the valid rows.",
    )
    error.problems = problems
    return error
