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

Everything is read and checked before anything is stored: a broken scenario changes
nothing in the knowledge base.

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

from metarec.ingest._errors import ScenarioError

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


@dataclass(frozen=True)
class AslibScenario:
    """A scenario read from disk, ready to be stored.

    Attributes
    ----------
    scenario_id : str
    path : Path
    quality_measure : str or None
        The measure stored as ``accuracy`` (``None`` for a runtime-only scenario).
    runtime_measure : str or None
        The measure stored as ``time``.
    runs : DataFrame
        Run rows in the knowledge base's long format.
    metafeatures : DataFrame
        Wide: ``dataset`` plus one column per feature.
    """

    scenario_id: str
    path: Path
    quality_measure: str | None
    runtime_measure: str | None
    runs: Any
    metafeatures: Any


@dataclass(frozen=True)
class AslibIngestReport:
    """What :func:`ingest_aslib` stored."""

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

    def to_dict(self) -> dict[str, Any]:
        """Return the counts as a plain dictionary (problems as a count)."""
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
            "problems": len(self.problems),
        }


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


def _read_arff(path: Path) -> tuple[list[str], list[list[Any]]]:
    import arff

    try:
        with path.open(encoding="utf-8") as handle:
            content = arff.load(handle)
    except (arff.ArffException, UnicodeDecodeError, ValueError) as exc:
        raise ScenarioError(f"{path}: not a readable ARFF file ({exc})") from exc
    names = [str(name) for name, _ in content["attributes"]]
    return names, content["data"]


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

    Raises
    ------
    ScenarioError
        When ``path`` is not a folder, a required file is missing (named in the message), a
        file cannot be parsed, or a column the description names is absent.
    """
    import numpy as np
    import pandas as pd

    from metarec.metafeatures import OPENML_QUALITY_MAP, translate_openml_qualities

    folder = Path(path).expanduser()
    if not folder.is_dir():
        raise ScenarioError(f"{folder} is not a folder (expected an ASlib scenario)")
    for name in REQUIRED_FILES:
        if not (folder / name).is_file():
            raise ScenarioError(f"{folder} is not an ASlib scenario: {name} is missing")

    fields = parse_description((folder / "description.txt").read_text(encoding="utf-8"))
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

    runs_path = folder / "algorithm_runs.arff"
    names, data = _read_arff(runs_path)
    lower = {n.lower(): n for n in names}
    for needed in ("instance_id", "algorithm", *measures):
        if needed.lower() not in lower:
            raise ScenarioError(f"{runs_path}: column {needed!r} is missing")
    raw = pd.DataFrame(data, columns=names)
    if len(raw) == 0:
        raise ScenarioError(f"{runs_path}: no runs")
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
    time = (
        pd.to_numeric(raw[lower[runtime_measure.lower()]], errors="coerce")
        if runtime_measure
        else pd.Series(np.nan, index=raw.index)
    )
    if "runstatus" not in lower and runtime_measure and cutoff is not None:
        runstatus = runstatus.mask(time >= cutoff, "timeout")
    if quality_measure:
        accuracy = pd.to_numeric(raw[lower[quality_measure.lower()]], errors="coerce")
    else:
        accuracy = pd.Series(1.0, index=raw.index)
    ok = runstatus == "ok"
    status = pd.Series(
        np.where(ok, "ok", np.where(runstatus.isin(_TIMEOUT_STATUSES), "timeout", "error")),
        index=raw.index,
    )
    bad = ok & accuracy.isna()
    if bad.any():
        first = int(np.flatnonzero(bad.to_numpy())[0])
        raise ScenarioError(
            f"{runs_path}: run of {algorithm.iloc[first]!r} on {instance.iloc[first]!r} has "
            f"status ok but no value of {quality_measure!r}"
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
    duplicated = runs["source_run_id"].duplicated()
    if duplicated.any():
        raise ScenarioError(
            f"{runs_path}: run {runs['source_run_id'][duplicated].iloc[0]!r} appears twice"
        )

    features_path = folder / "feature_values.arff"
    fnames, fdata = _read_arff(features_path)
    flower = {n.lower(): n for n in fnames}
    if "instance_id" not in flower:
        raise ScenarioError(f"{features_path}: column 'instance_id' is missing")
    features = pd.DataFrame(fdata, columns=fnames)
    feature_columns = [n for n in fnames if n.lower() not in ("instance_id", "repetition")]
    values = features[feature_columns].apply(pd.to_numeric, errors="coerce")
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
    return AslibScenario(
        scenario_id=scenario_id,
        path=folder,
        quality_measure=quality_measure,
        runtime_measure=runtime_measure,
        runs=runs,
        metafeatures=metafeatures,
    )


def ingest_aslib(
    kb: Any,
    path: str | os.PathLike[str] | AslibScenario,
    *,
    progress: Callable[..., None] | None = None,
) -> AslibIngestReport:
    """Store an ASlib scenario's runs and features in a knowledge base.

    Parameters
    ----------
    kb : KnowledgeBase
        Destination.
    path : str, path or AslibScenario
        The scenario folder (or a scenario already read by :func:`read_aslib_scenario`).
    progress : callable, optional
        Called as ``progress(n, total=...)`` while runs are stored.

    Returns
    -------
    AslibIngestReport

    Raises
    ------
    ScenarioError
        When the folder is not a readable scenario; nothing is stored then.
    """
    scenario = path if isinstance(path, AslibScenario) else read_aslib_scenario(path)
    runs = scenario.runs
    datasets = sorted(runs["dataset"].unique())
    algorithms = sorted(runs["algorithm"].unique())
    for name in datasets:
        kb.add_dataset(name, source=SOURCE, source_id=name.split(":", 2)[2])
    for name in algorithms:
        kb.add_algorithm(name, parameters={"aslib_scenario": scenario.scenario_id})
    n_metafeatures = 0
    problems: list[str] = []
    if len(scenario.metafeatures):
        mf = kb.import_metafeatures(scenario.metafeatures, skip_invalid=True)
        n_metafeatures = mf.added + mf.present
        problems.extend(mf.problems)
    report = kb.import_runs(runs, source=SOURCE, skip_invalid=True, progress=progress)
    problems.extend(report.problems)
    failed = int((runs["status"] != "ok").sum())
    no_time = int(runs["time"].isna().sum())
    return AslibIngestReport(
        scenario_id=scenario.scenario_id,
        datasets=len(datasets),
        algorithms=len(algorithms),
        runs_added=report.added,
        runs_present=report.present,
        runs_rejected=report.rejected,
        runs_failed=failed,
        runs_without_time=no_time,
        metafeatures=n_metafeatures,
        problems=tuple(problems),
    )
