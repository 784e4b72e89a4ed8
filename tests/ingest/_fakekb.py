"""A small in-memory stand-in for KnowledgeBase, following the contract (tests only)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd


@dataclass(frozen=True)
class ImportReport:
    added: int
    present: int
    rejected: int
    problems: tuple[str, ...]


class FakeKnowledgeBase:
    def __init__(self, url=None):
        self.url = url
        self._datasets: dict[str, dict] = {}
        self._algorithms: dict[str, dict] = {}
        self._runs: list[dict] = []
        self._keys: set[tuple[str, str]] = set()
        self._mf: dict[str, dict] = {}

    def add_dataset(
        self,
        name,
        *,
        source,
        source_id=None,
        task=None,
        n_instances=None,
        n_features=None,
        fingerprint=None,
    ):
        self._datasets[name] = dict(
            name=name,
            source=source,
            source_id=source_id,
            task=task,
            n_instances=n_instances,
            n_features=n_features,
        )

    def add_algorithm(self, name, *, family=None, library=None, parameters=None):
        self._algorithms[name] = dict(
            name=name, family=family, library=library, parameters=parameters
        )

    def import_runs(self, frame, *, skip_invalid=False, source=None, protocol=None, progress=None):
        added = present = rejected = 0
        problems = []
        for row in frame.to_dict(orient="records"):
            src = row.get("source") or source
            key = (src, str(row.get("source_run_id")))
            if row.get("source_run_id") is not None and key in self._keys:
                present += 1
                continue
            if row.get("status", "ok") == "ok" and not math.isfinite(row["accuracy"]):
                rejected += 1
                problems.append(f"run {key}: no accuracy")
                continue
            self._keys.add(key)
            self._datasets.setdefault(row["dataset"], dict(name=row["dataset"], source=src))
            self._algorithms.setdefault(row["algorithm"], dict(name=row["algorithm"]))
            self._runs.append({**row, "source": src, "fit_time": row.get("time")})
            added += 1
        if progress:
            progress(len(frame))
        return ImportReport(added, present, rejected, tuple(problems))

    def import_metafeatures(self, frame, *, skip_invalid=False, progress=None):
        added = 0
        for row in frame.to_dict(orient="records"):
            name = row.pop("dataset")
            self._mf.setdefault(name, {}).update(row)
            added += 1
        return ImportReport(added, 0, 0, ())

    def runs(self, *, aggregate=True, datasets=None, algorithms=None, metrics=None):
        columns = [
            "dataset",
            "algorithm",
            "protocol",
            "seed",
            "fold",
            "status",
            "accuracy",
            "fit_time",
            "predict_time",
            "source",
            "source_run_id",
        ]
        frame = pd.DataFrame(self._runs) if self._runs else pd.DataFrame(columns=columns)
        if len(frame) and datasets is not None:
            frame = frame[frame["dataset"].isin(datasets)]
        return frame.reset_index(drop=True)

    def metafeatures(self, *, datasets=None):
        rows = [
            {"dataset": k, **v} for k, v in self._mf.items() if datasets is None or k in datasets
        ]
        return pd.DataFrame(rows)

    def datasets(self):
        return pd.DataFrame(list(self._datasets.values()))

    def algorithms(self):
        return pd.DataFrame(list(self._algorithms.values()))
