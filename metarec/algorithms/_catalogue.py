"""The catalogue of algorithms: portfolios of named estimators and their parameters.

A portfolio is data, not code: a JSON document listing algorithms by a stable name, the import
path of a scikit-learn compatible estimator class and its parameters.  metarec ships a default
portfolio (``metarec/_resources/default_portfolio.json``) of twenty scikit-learn classifiers
and three gradient-boosting libraries (LightGBM, XGBoost, CatBoost), the latter installed by
the optional extra ``metarec[boosting]``; users add their own estimators from a file of the
same shape::

    {"algorithms": [
        {"name": "lgbm_200", "estimator": "lightgbm:LGBMClassifier",
         "params": {"n_estimators": 200}, "family": "ensemble", "scale": false,
         "extra": "boosting"}
    ]}

An algorithm whose library is not installed stays in the portfolio (names are stable across
knowledge bases) but cannot run here: :meth:`Portfolio.select` leaves it out of the whole
portfolio and refuses it, naming the extra to install, when it is asked for by name.

A :class:`Portfolio` is the one lookup of its algorithms: the benchmark runner and ``metarec
run``'s search, refit and storing all build and register an algorithm from the portfolio they
were given (:meth:`Algorithm.build_pipeline`: a pipeline that handles missing values and
categorical columns, :mod:`metarec.algorithms._pipeline`, so any estimator can run on any
tabular dataset).
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import itertools
import json
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from metarec._names import configuration_base, unknown_name
from metarec.data import task_family
from metarec.exceptions import BenchmarkError

__all__ = [
    "Algorithm",
    "Portfolio",
    "TASKS",
    "load_portfolio",
    "default_portfolio",
    "default_configurations",
    "preload_modules",
    "warm_up",
]

_NAME = re.compile(r"^[a-z0-9][a-z0-9_.\-]*$")
_KEYS = {
    "name", "estimator", "params", "family", "scale", "scale_target", "extra", "task",
    "description",
}  # fmt: skip
#: The learning tasks an algorithm can serve.
TASKS = ("classification", "regression")


def _distributions_of(module: str) -> Iterator[str]:
    """Distributions that install the top-level ``module``, looked up only when asked for.

    Scanning every installed distribution's files takes a second or more, so it runs at most
    once per process, and only for a library whose import name is not its distribution's.
    """
    yield from _packages_distributions().get(module, [])


@functools.cache
def _packages_distributions() -> dict[str, list[str]]:
    from importlib import metadata

    try:
        return metadata.packages_distributions()
    except Exception:  # pragma: no cover - broken metadata of some other package
        return {}


@dataclass(frozen=True)
class Algorithm:
    """One algorithm of a portfolio.

    Parameters
    ----------
    name : str
        Stable identifier (lower case, digits, ``_ . -``); identical across knowledge bases.
    estimator : str
        Import path of the estimator class, ``"package.module:ClassName"``.
    params : dict
        Keyword arguments of the estimator (its canonical parameters).  ``random_state`` is
        set by the runner when the estimator accepts it.
    family : str
        Coarse family (baseline, linear, tree, ensemble, ...), for reports.
    scale : bool
        Whether numeric features are standardised before the estimator.
    extra : str, optional
        The optional extra of metarec that installs the estimator's library
        (``pip install "metarec[EXTRA]"``), for libraries metarec does not depend on.
    task : {"classification", "regression"}
        What the estimator predicts: class labels or a continuous target.  The benchmark runner
        evaluates a dataset with the algorithms of its task only.
    scale_target : bool
        Regressors only: whether the target is standardised for the estimator (predictions
        are returned in the target's unit), for estimators whose parameters are in the
        target's unit (SVR's epsilon, an MLP's step sizes).
    description : str
        One line for people.
    """

    name: str
    estimator: str
    params: dict[str, Any] = field(default_factory=dict)
    family: str = "other"
    scale: bool = False
    extra: str | None = None
    task: str = "classification"
    scale_target: bool = False
    description: str = ""

    @property
    def configuration_of(self) -> str | None:
        """The default algorithm this one is a configuration of (``"lightgbm"`` for
        ``"lightgbm_c07"``; see :mod:`metarec.algorithms._configurations`), or None."""
        return configuration_base(self.name)

    @property
    def base(self) -> str:
        """The algorithm whose family this is: :attr:`configuration_of`, else its own name."""
        return self.configuration_of or self.name

    @property
    def library(self) -> str:
        """Top-level package the estimator comes from (e.g. ``sklearn``)."""
        return self.estimator.split(":", 1)[0].split(".", 1)[0]

    @property
    def install_hint(self) -> str:
        """The command that installs the estimator's library."""
        if self.extra:
            return f'pip install "metarec[{self.extra}]"'
        return f"pip install {self.library}"

    def is_installed(self) -> bool:
        """Whether the estimator's library can be imported here (without importing it).

        Returns
        -------
        bool
        """
        try:
            return importlib.util.find_spec(self.library) is not None
        except (ImportError, ValueError):
            return False

    def missing_message(self) -> str:
        """One line saying that the library is missing and how to install it.

        Returns
        -------
        str
        """
        return (
            f"algorithm {self.name!r} needs the {self.library} package, which is not "
            f"installed: {self.install_hint}"
        )

    def library_version(self) -> str:
        """``distribution==version`` of the installed library (the bare name when unknown).

        The distribution is looked up from the import name, so ``xgboost`` installed by the
        ``xgboost-cpu`` wheel reports ``xgboost-cpu==3.2.0``.

        Returns
        -------
        str
        """
        from importlib import metadata

        name = {"sklearn": "scikit-learn"}.get(self.library, self.library)
        for package in itertools.chain([name], _distributions_of(self.library)):
            try:
                return f"{package}=={metadata.version(package)}"
            except metadata.PackageNotFoundError:
                continue
        return name

    def estimator_class(self) -> type:
        """Import and return the estimator class.

        Returns
        -------
        type
            The class named by :attr:`estimator`.

        Raises
        ------
        BenchmarkError
            The library is not installed, or the class cannot be imported.
        """
        module_name, _, class_name = self.estimator.partition(":")
        if not self.is_installed():
            raise BenchmarkError(self.missing_message())
        try:
            module = importlib.import_module(module_name)
            return getattr(module, class_name)
        except (ImportError, AttributeError) as exc:
            raise BenchmarkError(
                f"algorithm {self.name!r}: cannot import estimator {self.estimator!r} ({exc})"
            ) from exc

    def build_pipeline(
        self,
        *,
        numeric_columns: Sequence[str],
        categorical_columns: Sequence[str],
        random_state: int | None = None,
    ):
        """This algorithm in a pipeline that accepts any tabular data.

        See :func:`~metarec.algorithms.build_pipeline`.

        Parameters
        ----------
        numeric_columns, categorical_columns : sequence of str
            The feature columns of each kind.
        random_state : int, optional
            Seed of the estimator.

        Returns
        -------
        Pipeline
            Unfitted.
        """
        from metarec.algorithms._pipeline import build_pipeline

        return build_pipeline(
            self,
            numeric_columns=numeric_columns,
            categorical_columns=categorical_columns,
            random_state=random_state,
        )

    def make_estimator(self, *, random_state: int | None = None) -> Any:
        """Return a fresh, unfitted estimator with this algorithm's parameters.

        Parameters
        ----------
        random_state : int, optional
            Seed set as the estimator's ``random_state`` when it has that parameter; by
            default the estimator's own.

        Returns
        -------
        estimator
            An instance of :meth:`estimator_class` (JSON lists in :attr:`params` passed as
            tuples).

        Raises
        ------
        BenchmarkError
            The library is not installed, or the class cannot be imported.
        """
        cls = self.estimator_class()
        params = dict(self.params)
        for key, value in params.items():
            if isinstance(value, list):  # JSON has no tuples (hidden_layer_sizes etc.)
                params[key] = tuple(value)
        estimator = cls(**params)
        if random_state is not None and "random_state" in estimator.get_params():
            estimator.set_params(random_state=random_state)
        return estimator


@dataclass(frozen=True)
class Portfolio:
    """An ordered collection of uniquely named :class:`Algorithm` records.

    Parameters
    ----------
    algorithms : tuple of Algorithm
        The algorithms, in order; their names must be unique.

    Raises
    ------
    BenchmarkError
        A name is repeated.
    """

    algorithms: tuple[Algorithm, ...]

    def __post_init__(self) -> None:
        names = [a.name for a in self.algorithms]
        duplicated = sorted({n for n in names if names.count(n) > 1})
        if duplicated:
            raise BenchmarkError(
                f"portfolio names must be unique; repeated: {', '.join(duplicated)}"
            )

    def __iter__(self) -> Iterator[Algorithm]:
        return iter(self.algorithms)

    def __len__(self) -> int:
        return len(self.algorithms)

    @property
    def names(self) -> list[str]:
        return [a.name for a in self.algorithms]

    def __getitem__(self, name: str) -> Algorithm:
        for algorithm in self.algorithms:
            if algorithm.name == name:
                return algorithm
        raise unknown_name("algorithm", name, self.names, option="--algorithm")

    def missing(self) -> tuple[Algorithm, ...]:
        """The algorithms whose library is not installed here.

        Returns
        -------
        tuple of Algorithm
            In portfolio order.
        """
        return tuple(a for a in self.algorithms if not a.is_installed())

    def select(self, names: Iterable[str] | None = None) -> Portfolio:
        """Return the sub-portfolio of the algorithms that can run here.

        Parameters
        ----------
        names : iterable of str, optional
            The algorithms wanted.  ``None`` selects every algorithm whose library is
            installed, leaving out the others (see :meth:`missing`).

        Returns
        -------
        Portfolio
            The algorithms named, in the order of ``names`` (each once), or in portfolio
            order with ``None``.

        Raises
        ------
        UnknownNameError
            A name is not in the portfolio (the message lists the valid names).
        BenchmarkError
            A named algorithm's library is not installed (the message names the extra).
        """
        if names is None:
            missing = {a.name for a in self.missing()}
            return Portfolio(tuple(a for a in self.algorithms if a.name not in missing))
        chosen = [self[n] for n in dict.fromkeys(names)]
        missing = [a for a in chosen if not a.is_installed()]
        if len(missing) == 1:
            raise BenchmarkError(missing[0].missing_message())
        if missing:
            hints = sorted({a.install_hint for a in missing})
            raise BenchmarkError(
                f"algorithms {', '.join(a.name for a in missing)} need libraries that are "
                f"not installed: {'; '.join(hints)}"
            )
        return Portfolio(tuple(chosen))

    def __add__(self, other: Portfolio) -> Portfolio:
        return Portfolio(self.algorithms + other.algorithms)

    def for_task(self, task: str) -> Portfolio:
        """The sub-portfolio of the algorithms serving ``task``.

        Parameters
        ----------
        task : {"classification", "regression", "binary", "multiclass"}
            A dataset's task; ``"binary"`` and ``"multiclass"`` mean classification.

        Returns
        -------
        Portfolio
        """
        wanted = task_family(task)
        return Portfolio(tuple(a for a in self.algorithms if a.task == wanted))


def _parse(document: Any, origin: str) -> Portfolio:
    if not isinstance(document, dict) or not isinstance(document.get("algorithms"), list):
        raise BenchmarkError(f"{origin}: a portfolio is a JSON object with a list 'algorithms'")
    algorithms = []
    for i, entry in enumerate(document["algorithms"], start=1):
        where = f"{origin}: algorithm #{i}"
        if not isinstance(entry, dict):
            raise BenchmarkError(f"{where} is not an object")
        missing = [k for k in ("name", "estimator") if not entry.get(k)]
        if missing:
            raise BenchmarkError(f"{where} lacks {', '.join(missing)}")
        unknown = set(entry) - _KEYS
        if unknown:
            raise BenchmarkError(f"{where} ({entry['name']}): unknown keys {sorted(unknown)}")
        if not _NAME.match(str(entry["name"])):
            raise BenchmarkError(
                f"{where}: name {entry['name']!r} must be lower case letters, digits, '_', '.', '-'"
            )
        if ":" not in str(entry["estimator"]):
            raise BenchmarkError(
                f"{where} ({entry['name']}): estimator must be 'module:ClassName', "
                f"got {entry['estimator']!r}"
            )
        params = entry.get("params", {})
        if not isinstance(params, dict):
            raise BenchmarkError(f"{where} ({entry['name']}): params must be an object")
        task = str(entry.get("task", "classification"))
        if task not in TASKS:
            raise BenchmarkError(
                f"{where} ({entry['name']}): task must be one of {', '.join(TASKS)}, got {task!r}"
            )
        algorithms.append(
            Algorithm(
                name=str(entry["name"]),
                estimator=str(entry["estimator"]),
                params=params,
                family=str(entry.get("family", "other")),
                scale=bool(entry.get("scale", False)),
                extra=str(entry["extra"]) if entry.get("extra") else None,
                task=task,
                scale_target=bool(entry.get("scale_target", False)),
                description=str(entry.get("description", "")),
            )
        )
    return Portfolio(tuple(algorithms))


def default_portfolio(
    *, task: str | None = "classification", configurations: bool = False
) -> Portfolio:
    """Return metarec's default portfolio for a task.

    Classification: twenty scikit-learn classifiers; regression: sixteen scikit-learn
    regressors; for each, LightGBM, XGBoost and CatBoost (extra ``metarec[boosting]``).

    Parameters
    ----------
    task : {"classification", "regression", "all"}, default="classification"
        The task whose algorithms are returned; ``"all"`` returns both portfolios.
    configurations : bool, default=False
        Also the configurations of the main families (:func:`default_configurations`),
        after the defaults.

    Returns
    -------
    Portfolio
    """
    portfolio = _default_portfolio()
    if configurations:
        portfolio = portfolio + _default_configurations()
    return portfolio if task == "all" else portfolio.for_task(task)


def default_configurations(*, task: str | None = "classification") -> Portfolio:
    """Return the configurations of the default portfolio's main families.

    Each is named ``<default algorithm>_cNN`` and differs from its default algorithm in the
    hyper-parameters of its family's configuration space (see
    :mod:`metarec.algorithms._configurations`).

    Parameters
    ----------
    task : {"classification", "regression", "all"}, default="classification"
        The task whose configurations are returned; ``"all"`` returns both.

    Returns
    -------
    Portfolio
    """
    portfolio = _default_configurations()
    return portfolio if task == "all" else portfolio.for_task(task)


@functools.cache
def _default_portfolio() -> Portfolio:
    text = resources.files("metarec._resources").joinpath("default_portfolio.json").read_text()
    return _parse(json.loads(text), "default portfolio")


@functools.cache
def _default_configurations() -> Portfolio:
    from metarec.algorithms._configurations import load_configurations_document

    return _parse(load_configurations_document(), "default configurations")


def load_portfolio(path: str | Path | None = None, *, include_default: bool = True) -> Portfolio:
    """Load a portfolio file, by default appended to the default portfolio.

    Parameters
    ----------
    path : str or Path, optional
        A JSON portfolio file.  ``None`` returns the default portfolio.
    include_default : bool, default=True
        Prepend the default portfolio to the file's algorithms.

    Returns
    -------
    Portfolio
        With ``include_default``, the default portfolio of every task followed by the
        file's algorithms.

    Raises
    ------
    BenchmarkError
        The file does not exist, cannot be read, or is not a valid portfolio (names must
        then be unique across both).
    """
    if path is None:
        return default_portfolio(task="all")
    path = Path(path)
    try:
        document = json.loads(path.read_text())
    except FileNotFoundError:
        raise BenchmarkError(f"portfolio file not found: {path}") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BenchmarkError(f"cannot read portfolio file {path}: {exc}") from exc
    portfolio = _parse(document, str(path))
    return default_portfolio(task="all") + portfolio if include_default else portfolio


def warm_up() -> None:
    """Fit a trivial pipeline once, so that no first-call cost lands in a measured time.

    The warm-up of the worker processes that evaluate a portfolio's algorithms
    (:class:`metarec.execution.WorkerPool`'s ``warm_up``).
    """
    import numpy as np
    import pandas as pd

    frame = pd.DataFrame({"a": np.arange(20.0), "b": ["x", "y", "z", "w"] * 5})
    y = np.arange(20) % 2
    for scale in (False, True):
        algorithm = Algorithm("warm-up", "sklearn.dummy:DummyClassifier", scale=scale)
        pipeline = algorithm.build_pipeline(numeric_columns=("a",), categorical_columns=("b",))
        pipeline.fit(frame, y)
        pipeline.predict(frame)
        pipeline.predict_proba(frame)


def preload_modules(portfolio: Portfolio) -> list[str]:
    """Modules the workers import once, before their first fold.

    Parameters
    ----------
    portfolio : Portfolio
        The algorithms the workers will fit.

    Returns
    -------
    list of str
        The modules of scikit-learn's pipelines and of each algorithm (metarec's own
        transformers come with :func:`warm_up`; the worker pool's callers add the modules
        of the folds' scoring, :data:`metarec.execution.JOB_MODULES`).
    """
    modules = ["sklearn.pipeline", "sklearn.compose", "sklearn.impute", "sklearn.preprocessing"]
    return modules + sorted({a.estimator.partition(":")[0] for a in portfolio})
