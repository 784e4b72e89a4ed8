"""``extract``: characterise a dataset by its metafeatures, group by group, timed."""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Iterable, Iterator, Mapping
from types import MappingProxyType

import numpy as np

from metarec.exceptions import UnknownNameError
from metarec.metafeatures import (  # noqa: F401  (importing registers the groups)
    _general,
    _imbalance,
    _info,
    _landmarkers,
    _regression,
    _snr,
    _statistical,
)
from metarec.metafeatures._base import FEATURE_FUNCTIONS, REGISTRY, Collector, prepare

__all__ = [
    "GROUPS",
    "MetafeatureSet",
    "describe",
    "extract",
    "subsample",
    "metafeature_group",
    "metafeature_names",
]

#: The metafeature groups, in extraction order.
GROUPS = ("general", "imbalance", "snr", "statistical", "info", "landmarkers", "regression")
#: Groups computed on every row whatever the size: counts, exact and linear in the rows.
EXACT_GROUPS = ("general", "imbalance")
#: Beyond this many rows the other groups are estimated on a subsample of this many rows.
ESTIMATE_ABOVE = 100_000


class MetafeatureSet(Mapping):
    """The metafeatures of one dataset: a read-only mapping name -> float.

    Every value is finite or NaN; :attr:`reasons` says why each NaN is undefined.  The set is
    immutable, as a value passed between layers should be: its attributes cannot be assigned
    and its mappings are read-only views.

    Parameters
    ----------
    values : mapping of str to float
        Metafeature name -> value (finite or NaN), in extraction order.
    timings : mapping of str to float
        Seconds each extracted group took.
    reasons : mapping of str to str
        Name -> reason, for every NaN value.
    groups : tuple of str
        The groups extracted.
    n_dropped_target : int, default=0
        Rows left out because their target was missing.

    Attributes
    ----------
    timings : mapping of str to float
        Seconds each extracted group took.
    reasons : mapping of str to str
        Name -> reason, for every NaN value.
    groups : tuple of str
        The groups extracted.
    n_dropped_target : int
        Rows left out because their target was missing.
    """

    __slots__ = ("_values", "_timings", "_reasons", "_groups", "_n_dropped_target")

    def __init__(
        self,
        values: Mapping[str, float],
        *,
        timings: Mapping[str, float],
        reasons: Mapping[str, str],
        groups: tuple[str, ...],
        n_dropped_target: int = 0,
    ) -> None:
        for name, value in (
            ("_values", dict(values)),
            ("_timings", dict(timings)),
            ("_reasons", dict(reasons)),
            ("_groups", tuple(groups)),
            ("_n_dropped_target", int(n_dropped_target)),
        ):
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value) -> None:
        raise AttributeError(f"MetafeatureSet is immutable: cannot set {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"MetafeatureSet is immutable: cannot delete {name!r}")

    def __reduce__(self):
        return (
            _rebuild_set,
            (self._values, self._timings, self._reasons, self._groups, self._n_dropped_target),
        )

    @property
    def timings(self) -> Mapping[str, float]:
        return MappingProxyType(self._timings)

    @property
    def reasons(self) -> Mapping[str, str]:
        return MappingProxyType(self._reasons)

    @property
    def groups(self) -> tuple[str, ...]:
        return self._groups

    @property
    def n_dropped_target(self) -> int:
        return self._n_dropped_target

    def __getitem__(self, name: str) -> float:
        return self._values[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __repr__(self) -> str:
        n_nan = sum(math.isnan(v) for v in self._values.values())
        return (
            f"MetafeatureSet({len(self)} values, {n_nan} NaN, groups={list(self.groups)}, "
            f"seconds={sum(self.timings.values()):.3g})"
        )

    def to_series(self):
        """The values as a float ``pandas.Series`` indexed by name.

        Returns
        -------
        pandas.Series
            Named ``value``, its index named ``name``, in extraction order.
        """
        import pandas as pd

        return pd.Series(self._values, dtype="float64", name="value").rename_axis("name")

    def to_frame(self, dataset: str | None = None):
        """A one-row wide frame (column ``dataset`` first when given), as KBs store them.

        Parameters
        ----------
        dataset : str, optional
            The dataset's name, for the ``dataset`` column.

        Returns
        -------
        pandas.DataFrame
            One column per metafeature, in extraction order, after ``dataset`` when given
            (what :meth:`KnowledgeBase.import_metafeatures` reads).
        """
        import pandas as pd

        row = dict(self._values)
        if dataset is not None:
            row = {"dataset": dataset, **row}
        return pd.DataFrame([row])


def _rebuild_set(values, timings, reasons, groups, n_dropped_target) -> MetafeatureSet:
    """Unpickle a :class:`MetafeatureSet`."""
    return MetafeatureSet(
        values, timings=timings, reasons=reasons, groups=groups, n_dropped_target=n_dropped_target
    )


def _resolve_groups(groups: str | Iterable[str] | None) -> tuple[str, ...]:
    if groups is None:
        return GROUPS
    if isinstance(groups, str):
        groups = [g.strip() for g in groups.split(",") if g.strip()]
    chosen = []
    for group in groups:
        if group not in GROUPS:
            raise UnknownNameError(
                f"unknown metafeature group {group!r}; available: {', '.join(GROUPS)}"
            )
        if group not in chosen:
            chosen.append(group)
    return tuple(g for g in GROUPS if g in chosen)


def extract(
    X,
    y,
    *,
    groups: str | Iterable[str] | None = None,
    task: str | None = None,
    random_state: int = 0,
) -> MetafeatureSet:
    """Compute the metafeatures of a dataset.

    Parameters
    ----------
    X : DataFrame or array-like of shape (n_samples, n_features)
        Features, numeric and categorical mixed, with missing or infinite values, constant
        or duplicated columns.  Numeric columns are int/float; every other column (text,
        bool, category) is categorical; text columns holding only numbers are numeric.
    y : Series or array-like of shape (n_samples,)
        Target.  Rows with a missing target are dropped (:attr:`MetafeatureSet.n_dropped_target`).
    groups : str or iterable of str, optional
        Groups to extract (default: all of :data:`GROUPS`); a comma-separated string works.
    task : {"binary", "multiclass", "regression"}, optional
        Learning task; inferred with :func:`metarec.data.infer_task` when omitted.
    random_state : int, default=0
        Seed of every random choice (cross-validation folds, subsamples, random node).

    Returns
    -------
    MetafeatureSet
        Mapping name -> float plus ``timings`` (seconds per group) and ``reasons``.

    Raises
    ------
    InvalidInputError
        Lengths differ, no rows, or the target is entirely missing.
    UnknownNameError
        An unknown group name.

    Notes
    -----
    The general and imbalance groups (sizes, kinds, missing values, classes) are exact on
    every row.  Beyond :data:`ESTIMATE_ABOVE` rows (100,000) the other groups are estimates
    computed on a subsample of that many rows (stratified by class, see
    :func:`subsample`): their values are means, correlations, entropies and landmark scores
    whose sampling error at 100,000 rows is far below the differences between datasets
    that the recommender's neighbours tell apart, and they then take a fixed time, so a
    million rows are characterised in seconds.

    References
    ----------
    .. [1] Rivolli, A. et al. (2022). Meta-features for meta-learning. Knowledge-Based
           Systems 240, 108101.
    .. [2] Brazdil, P., Giraud-Carrier, C., Soares, C., Vilalta, R. (2009). Metalearning:
           Applications to Data Mining. Springer.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> X, y = load_iris(return_X_y=True, as_frame=True)
    >>> mf = extract(X, y, groups=["general", "imbalance"])
    >>> mf["n_instances"], mf["acir"]
    (150.0, 1.0)
    """
    chosen = _resolve_groups(groups)
    data = prepare(X, y, task=task, random_state=random_state)
    sample = subsample(data, ESTIMATE_ABOVE)
    out = Collector()
    timings: dict[str, float] = {}
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for group in chosen:
            start = time.perf_counter()
            for function in REGISTRY.get(group, []):
                function(data if group in EXACT_GROUPS else sample, out)
            timings[group] = time.perf_counter() - start
    ordered = {name: out.values[name] for name in metafeature_names(chosen)}
    if len(ordered) != len(out.values):  # pragma: no cover - a registration bug
        raise RuntimeError(f"unregistered metafeatures: {set(out.values) - set(ordered)}")
    return MetafeatureSet(
        ordered,
        timings=timings,
        reasons=out.reasons,
        groups=chosen,
        n_dropped_target=data.n_dropped_target,
    )


def subsample(data, limit: int):
    """``data`` restricted to ``limit`` rows (itself when it has no more).

    The rows are drawn without replacement with ``data.random_state``: for a class target,
    stratified (each class keeps its share of the rows, rounded, and at least one row, so
    that no class disappears); otherwise uniformly.  Categorical codes keep the full data's
    levels (a level absent from the sample counts zero rows), the row counts of the general
    metafeatures are not recomputed (those groups read the full data).

    Parameters
    ----------
    data : PreparedData
    limit : int

    Returns
    -------
    PreparedData
    """
    from dataclasses import replace

    if data.n <= limit:
        return data
    rng = np.random.default_rng(data.random_state)
    if data.y_codes is not None and data.class_counts is not None:
        counts = data.class_counts
        wanted = np.minimum(counts, np.maximum(1, np.round(counts * limit / data.n))).astype(int)
        order = np.argsort(data.y_codes, kind="stable")
        starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
        rows = np.concatenate(
            [
                order[start + rng.choice(count, size=k, replace=False)]
                for start, count, k in zip(starts, counts, wanted, strict=True)
                if k > 0
            ]
        )
    else:
        rows = rng.choice(data.n, size=limit, replace=False)
    rows = np.sort(rows)
    y_codes = None if data.y_codes is None else data.y_codes[rows]
    return replace(
        data,
        n=int(rows.size),
        numeric=data.numeric[rows],
        codes=[c[rows] for c in data.codes],
        y_codes=y_codes,
        class_counts=(
            None if y_codes is None else np.bincount(y_codes, minlength=data.class_counts.size)
        ),
        y_values=None if data.y_values is None else data.y_values[rows],
        cache={},
    )


def metafeature_names(groups: str | Iterable[str] | None = None) -> list[str]:
    """Names the chosen groups produce, in extraction order.

    Parameters
    ----------
    groups : str or iterable of str, optional
        Groups of :data:`GROUPS`, as names or one comma-separated string; all by default.

    Returns
    -------
    list of str

    Raises
    ------
    UnknownNameError
        A group is not in :data:`GROUPS`.
    """
    names: list[str] = []
    for group in _resolve_groups(groups):
        for function in REGISTRY.get(group, []):
            names.extend(function.metafeature_names)  # type: ignore[attr-defined]
    return names


def metafeature_group(name: str) -> str:
    """Return the group that computes the metafeature ``name`` (``""`` for an unknown name).

    Parameters
    ----------
    name : str
        A metafeature name, as :func:`extract` returns it.

    Returns
    -------
    str
        One of :data:`GROUPS`, or ``""``.
    """
    return getattr(FEATURE_FUNCTIONS.get(name), "metafeature_group", "")


def describe(name: str) -> str:
    """The documentation of a metafeature (the docstring of the function computing it).

    Parameters
    ----------
    name : str
        A metafeature name, as :func:`extract` returns it.

    Returns
    -------
    str
        The docstring, cleaned by :func:`inspect.getdoc` (``""`` when it has none).

    Raises
    ------
    UnknownNameError
        ``name`` is not a metafeature.
    """
    function = FEATURE_FUNCTIONS.get(name)
    if function is None:
        raise UnknownNameError(f"unknown metafeature {name!r}")
    import inspect

    return inspect.getdoc(function) or ""
