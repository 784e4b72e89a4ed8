"""The ranking strategies by name: the one list the Recommender and the command line read.

A strategy is a ranker class (a subclass of :class:`~metarec.recommender._base.BaseRanker`)
and the parameters that make it that strategy (``"ar"`` and ``"ar*"`` are one class, without
and with A3R's time term).  Adding a strategy is its own module and one line here.  The
classes are named, not imported, so that the command line reads the names without loading
scikit-learn.
"""

from __future__ import annotations

import importlib
from typing import Any

from metarec._names import unknown_name

__all__ = ["STRATEGIES", "DEFAULT_STRATEGY", "make_ranker", "ranker_class", "strategy_names"]

#: Strategy name -> (``"module:Class"`` of its ranker, the parameters that make it this one:
#: ``"ar"`` ranks by accuracy alone, ``"ar*"`` by A3R with A3R's default root).
STRATEGIES: dict[str, tuple[str, dict[str, Any]]] = {
    "learned": ("metarec.recommender._learned:LearnedRanker", {}),
    "a3r": ("metarec.recommender._strategies:A3RRanker", {}),
    "arr": ("metarec.recommender._strategies:ARRRanker", {}),
    "ar": ("metarec.recommender._strategies:AverageRankRanker", {"n": None}),
    "ar*": ("metarec.recommender._strategies:AverageRankRanker", {"n": 32}),
}
#: The strategy of ``Recommender()``.
DEFAULT_STRATEGY = "learned"


def strategy_names() -> tuple[str, ...]:
    """The names of the ranking strategies, the default first.

    Returns
    -------
    tuple of str
    """
    return tuple(STRATEGIES)


def _check(strategy: str) -> None:
    if strategy not in STRATEGIES:
        raise unknown_name("strategy", strategy, list(STRATEGIES), option="--strategy")


def ranker_class(strategy: str) -> type:
    """The ranker class of ``strategy``.

    Parameters
    ----------
    strategy : str
        One of :func:`strategy_names`.

    Returns
    -------
    type

    Raises
    ------
    UnknownNameError
        ``strategy`` is not a strategy's name.
    """
    _check(strategy)
    module, _, name = STRATEGIES[strategy][0].partition(":")
    return getattr(importlib.import_module(module), name)


def make_ranker(strategy: str = DEFAULT_STRATEGY, *, task: str = "classification", **params):
    """An unfitted ranker of ``strategy`` with ``task``'s defaults and ``params``.

    Parameters
    ----------
    strategy : str, default="learned"
        One of :func:`strategy_names`.
    task : {"classification", "regression"}, default="classification"
        Whose defaults the ranker takes (see :meth:`BaseRanker.for_task`).
    **params
        The ranker's own parameters (a parameter the strategy does not have is refused, and
        so is a value that makes the ranker another strategy: ``"ar"`` with a root ``n``).

    Returns
    -------
    BaseRanker

    Raises
    ------
    UnknownNameError
        ``strategy`` is not a strategy's name.
    InvalidInputError
        A parameter the strategy's ranker does not take, or one that makes it another
        strategy.
    """
    from metarec.exceptions import InvalidInputError

    cls = ranker_class(strategy)
    accepted = cls._get_param_names()
    unknown = sorted(set(params) - set(accepted))
    if unknown:
        raise InvalidInputError(
            f"strategy {strategy!r} ({cls.__name__}) has no parameter(s) {', '.join(unknown)}; "
            f"it takes {', '.join(accepted)}"
        )
    ranker = cls.for_task(task, **{**STRATEGIES[strategy][1], **params})
    if ranker.strategy != strategy:  # a value that makes it another strategy: "ar" with a root
        given = sorted(name for name in params if name in STRATEGIES[strategy][1])
        raise InvalidInputError(
            f"strategy {strategy!r} does not take "
            f"{', '.join(f'{name}={params[name]!r}' for name in given)}: with it the ranker is "
            f"strategy {ranker.strategy!r}",
            cli_message=f"strategy {strategy!r} does not take "
            f"{', '.join('--' + name.replace('_', '-') for name in given)}: with it the "
            f"ranking is strategy {ranker.strategy!r}",
        )
    return ranker
