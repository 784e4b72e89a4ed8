"""Names a person types (algorithms, metrics, datasets, choices): unknown ones with suggestions.

One place builds the error for a name that is not known, so every option and parameter says
the same thing: the name given, the closest known names (:func:`difflib.get_close_matches`),
and a few of the known ones.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable

from metarec.exceptions import UnknownNameError

__all__ = [
    "closest",
    "unknown_name",
    "check_names",
    "CONFIGURATION_NAME",
    "SAMPLE_NAME",
    "configuration_base",
    "sample_base",
]

#: How a configuration of an algorithm is named: the algorithm's name, ``_c`` and two digits
#: (``lightgbm_c07``; see :mod:`metarec.algorithms._configurations`).
CONFIGURATION_NAME = re.compile(r"^(?P<base>.+)_c(?P<number>\d{2})$")


def configuration_base(name: str) -> str | None:
    """The default algorithm whose configuration ``name`` is.

    Parameters
    ----------
    name : str
        An algorithm's name: a configuration's is ``<default algorithm>_cNN``.

    Returns
    -------
    str or None
        The default algorithm (``"lightgbm"`` for ``"lightgbm_c07"``), or None for a name
        that is not a configuration's.

    Examples
    --------
    >>> configuration_base("lightgbm_c07"), configuration_base("lightgbm")
    ('lightgbm', None)
    """
    found = CONFIGURATION_NAME.match(str(name))
    return found.group("base") if found else None


#: How a subsample of a dataset is named: the dataset's name, ``@`` and its rows
#: (``mortgages_home@16000``; the long builds in ``benchmarks/`` store them).
SAMPLE_NAME = re.compile(r"^(?P<base>.+)@(?P<rows>\d+)$")


def sample_base(name: str) -> str:
    """The dataset a dataset's name says it is a subsample of (the name itself otherwise).

    A subsample and the dataset it was drawn from are the same data: leaving one out of a
    knowledge base leaves out the others too (``exclude=`` of the rankers).

    Parameters
    ----------
    name : str
        A dataset's name: a subsample's is ``<dataset>@<rows>``.

    Returns
    -------
    str

    Examples
    --------
    >>> sample_base("mortgages_home@16000"), sample_base("mortgages_home"), sample_base("a@b")
    ('mortgages_home', 'mortgages_home', 'a@b')
    """
    found = SAMPLE_NAME.match(str(name))
    return found.group("base") if found else str(name)


#: Known names listed in a message at most.
SHOWN = 12


def closest(name: str, known: Iterable[str], *, n: int = 3) -> list[str]:
    """The known names closest to ``name``, best first (none when nothing is close).

    Names that begin with ``name`` come first (``xgb`` suggests ``xgboost``), then those
    :func:`difflib.get_close_matches` finds similar (ratio at least 0.75: ``random_forst``
    suggests ``random_forest``, not ``adaboost``).  Case is ignored.
    """
    lowered = {str(k).lower(): str(k) for k in known}
    given = str(name).lower()
    starting = sorted(k for k in lowered if given and k.startswith(given) and k != given)
    similar = difflib.get_close_matches(given, list(lowered), n=n, cutoff=0.75)
    ordered = list(dict.fromkeys([*starting, *similar]))[:n]
    return [lowered[m] for m in ordered]


def _describe(what: str, name: str, known: list[str]) -> str:
    text = f"unknown {what} {name!r}"
    near = closest(name, known)
    if near:
        text += f" (did you mean {' or '.join(map(repr, near))}?)"
    if known:
        shown = ", ".join(known[:SHOWN]) + (", ..." if len(known) > SHOWN else "")
        text += f"; known: {shown}"
    return text


def unknown_name(
    what: str,
    name: str,
    known: Iterable[str],
    *,
    parameter: str | None = None,
    option: str | None = None,
) -> UnknownNameError:
    """The error for an unknown ``name`` among ``known`` (not raised: the caller raises it).

    Parameters
    ----------
    what : str
        What the name names ("algorithm", "metric", "dataset").
    name : str
        The name given.
    known : iterable of str
        Every name that would have been accepted.
    parameter, option : str, optional
        The Python parameter and the command-line option the name came from; they begin the
        Python message and the command line's (``cli_message``).
    """
    known = sorted({str(k) for k in known})
    text = _describe(what, str(name), known)
    return UnknownNameError(
        f"{parameter}: {text}" if parameter else text,
        cli_message=f"{option}: {text}" if option else None,
    )


def check_names(
    names: Iterable[str],
    known: Iterable[str],
    *,
    what: str,
    parameter: str | None = None,
    option: str | None = None,
) -> None:
    """Raise :func:`unknown_name`'s error for the first of ``names`` not in ``known``."""
    known = list(known)
    accepted = {str(k) for k in known}
    for name in names:
        if str(name) not in accepted:
            raise unknown_name(what, str(name), known, parameter=parameter, option=option)
