"""A fitted :class:`Recommender` cached on disk for one version of a knowledge base.

Fitting reads the whole performance matrix and the metafeatures of a knowledge base; on a
large KB that is most of a recommendation's time, and it gives the same result until the KB
changes.  :func:`fitted_recommender` pickles the fitted model under metarec's data directory
(``<METAREC_HOME>/cache/recommender-<key>.pkl``), keyed by the KB's
:meth:`~metarec.storage.KnowledgeBase.data_version` (a token every write replaces), the
recommender's parameters (its ranker's included) and the version of metarec and of the
recommender's code.  The file
is written to a temporary name and renamed into place (two processes never see half a file);
an unreadable, corrupt or foreign file is ignored and rebuilt; a cache folder that cannot be
written only costs the time of a fit.

Every ``metarec run`` stores its folds, so the next call meets a new version.  With a
``tolerance`` (what ``run`` asks for), a recommender fitted on an earlier state of the same
knowledge base (same URL, same parameters, same code) is used while the knowledge base has
grown since by at most that share of its datasets and of its runs and lost none: a few new
datasets change a ranking little, and the fit would otherwise come out of the user's
budget at every call.  The file name carries the counts it was fitted on
(``recommender-<key>-<version>-d<datasets>-r<runs>.pkl``).

The package ships the default recommenders fitted on the built-in knowledge base alone
(:func:`ship_recommenders`, in ``metarec/_resources/recommenders``): a knowledge base that
holds nothing beyond the built-in one (a new installation's first call) reads them instead
of fitting, and so does one that has grown beyond it within the tolerance.  Their names
are keyed by the contents of the recommender's code, not by file times, and a file that
this installation's libraries cannot read is fitted instead.
"""

from __future__ import annotations

import hashlib
import pickle
from pathlib import Path

__all__ = ["fitted_recommender", "cache_dir", "MAX_CACHED", "ship_recommenders", "shipped_path"]

#: At most this many fitted recommenders are kept; the oldest are removed.
MAX_CACHED = 16


def cache_dir() -> Path:
    """Return the folder of cached recommenders (not created)."""
    from metarec._config import data_dir

    return data_dir() / "cache"


def _code_fingerprint() -> str:
    """Size and modification time of the recommender's modules: a code change is a miss."""
    here = Path(__file__).resolve().parent
    parts = []
    for path in sorted(here.glob("*.py")):
        stat = path.stat()
        parts.append(f"{path.name}:{stat.st_size}:{stat.st_mtime_ns}")
    return ";".join(parts)


def _key(version: str, params: dict) -> str:
    from metarec._version import __version__

    text = repr((version, __version__, _code_fingerprint(), sorted(params.items(), key=str)))
    return hashlib.sha256(text.encode("utf8")).hexdigest()[:32]


def _load(path: Path, params: dict):
    from metarec.recommender._ranker import Recommender

    try:
        with path.open("rb") as handle:
            model = pickle.load(handle)
    except Exception:  # missing, truncated, corrupt, made by other code: rebuild
        return None
    if not isinstance(model, Recommender):
        return None
    try:
        if repr(model.get_params(deep=True)) != repr(params):
            return None
    except (AttributeError, TypeError):  # pickled by a version with other parameters
        return None
    return model


def _store(path: Path, model) -> None:
    from metarec._files import atomic_path

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with atomic_path(path) as tmp, tmp.open("wb") as handle:
            pickle.dump(model, handle, protocol=pickle.HIGHEST_PROTOCOL)
    except (OSError, pickle.PicklingError):  # read-only, a full disk, a file in the way
        return  # no cache, still a result (the temporary file is gone)
    cached = sorted(path.parent.glob("recommender-*.pkl"), key=_mtime)
    for old in cached[:-MAX_CACHED]:
        old.unlink(missing_ok=True)


def _mtime(path: Path) -> float:
    """Modification time, or 0 for a file another process removed meanwhile."""
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def _code_digest() -> str:
    """A digest of the contents of the recommender's modules (not their times): what a
    recommender shipped in the package was fitted by."""
    here = Path(__file__).resolve().parent
    h = hashlib.sha256()
    for path in sorted(here.glob("*.py")):
        h.update(path.name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def shipped_path(version: str, params: dict) -> Path:
    """Where the package keeps a recommender fitted on the built-in knowledge base alone.

    Parameters
    ----------
    version : str
        The built-in knowledge base's data version (``builtin-<digest>``).
    params : dict
        The recommender's ``get_params(deep=True)``.

    Returns
    -------
    Path
        ``metarec/_resources/recommenders/<key>.pkl.gz``, the key a digest of the version,
        the parameters, metarec's version and the contents of the recommender's code (a
        change of any of them names another file, so a stale one is never read).
    """
    from metarec._version import __version__

    text = repr((version, __version__, _code_digest(), sorted(params.items(), key=str)))
    key = hashlib.sha256(text.encode("utf8")).hexdigest()[:24]
    resources = Path(__file__).resolve().parent.parent / "_resources" / "recommenders"
    return resources / f"{key}.pkl.gz"


def _shipped(version: str, params: dict):
    """The shipped recommender for ``version`` and ``params``, or None (missing, or made by
    other library versions that cannot read it: then it is fitted)."""
    import gzip

    path = shipped_path(version, params)
    if not path.is_file():
        return None
    from metarec.recommender._ranker import Recommender

    try:
        with gzip.open(path, "rb") as handle:
            model = pickle.load(handle)
    except Exception:  # another numpy or pandas than the one that wrote it
        return None
    if not isinstance(model, Recommender) or repr(model.get_params(deep=True)) != repr(params):
        return None
    return model


def default_recommenders() -> list:
    """The recommenders the commands fit by default, for each task: ``Recommender(task=)``
    (``run``, :class:`metarec.AutoClassifier`) and the default strategy's ranker given
    explicitly (``recommend``)."""
    from metarec.recommender._ranker import Recommender
    from metarec.recommender._registry import DEFAULT_STRATEGY, make_ranker

    return [
        model
        for task in ("classification", "regression")
        for model in (
            Recommender(task=task),
            Recommender(make_ranker(DEFAULT_STRATEGY, task=task), task=task),
        )
    ]


def ship_recommenders(recommenders=None, directory=None) -> list[Path]:
    """Fit ``recommenders`` on the built-in knowledge base and write them into the package.

    What :func:`fitted_recommender` reads instead of fitting while a knowledge base holds
    nothing beyond the built-in one (a new installation's first call), so that no call fits
    one inside its budget.  Earlier files in the folder are removed.

    Parameters
    ----------
    recommenders : iterable of Recommender, optional
        Unfitted (each is cloned); by default :func:`default_recommenders`.
    directory : path-like, optional
        Where to write (default: the package's ``_resources/recommenders``).

    Returns
    -------
    list of Path
        The files written.
    """
    import gzip

    from sklearn.base import clone

    from metarec.storage import open_builtin

    recommenders = default_recommenders() if recommenders is None else list(recommenders)
    kb = open_builtin()
    version = kb.data_version()
    folder = Path(directory) if directory is not None else shipped_path(version, {}).parent
    models = [clone(recommender).fit(kb) for recommender in recommenders]
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("*.pkl.gz"):
        old.unlink()
    written = []
    for model in models:
        path = folder / shipped_path(version, model.get_params(deep=True)).name
        with gzip.open(path, "wb", compresslevel=9) as handle:
            pickle.dump(model, handle, protocol=4)
        written.append(path)
    return written


def _counts(kb) -> tuple[int, int] | None:
    """The datasets and runs of ``kb`` (None for an object that cannot count them)."""
    count = getattr(kb, "count", None)
    if not callable(count):
        return None
    try:
        return int(count("datasets")), int(count("runs"))
    except Exception:  # an in-memory stand-in or an unreadable table: no tolerance
        return None


def _fitted_on(path: Path) -> tuple[int, int] | None:
    """The counts a cache file's name says its recommender was fitted on."""
    parts = path.stem.rsplit("-", 2)
    try:
        return int(parts[1].removeprefix("d")), int(parts[2].removeprefix("r"))
    except (IndexError, ValueError):
        return None


def _earlier(prefix: str, counts, tolerance: float) -> list[Path]:
    """Cache files of ``prefix`` fitted on a state the tolerance accepts, newest first."""
    datasets, runs = counts
    accepted = []
    for path in cache_dir().glob(f"{prefix}-*.pkl"):
        fitted = _fitted_on(path)
        if fitted is None:
            continue
        old_datasets, old_runs = fitted
        grew_d, grew_r = datasets - old_datasets, runs - old_runs
        if 0 <= grew_d <= tolerance * old_datasets and 0 <= grew_r <= tolerance * old_runs:
            accepted.append(path)
    return sorted(accepted, key=_mtime, reverse=True)


def fitted_recommender(kb, recommender=None, *, tolerance: float = 0.0):
    """Return ``recommender`` fitted on ``kb``, from the cache if it can.

    Parameters
    ----------
    kb : KnowledgeBase or any object with ``runs()``, ``metafeatures()`` and ``datasets()``
        Objects without ``data_version()`` (in-memory stand-ins) are fitted every time.
    recommender : Recommender, optional
        Unfitted (it is cloned); by default ``Recommender()``.
    tolerance : float, default=0.0
        0: fitted on exactly the current data.  A positive share: a recommender fitted on
        an earlier state of the same knowledge base is used while the knowledge base has
        since gained at most this share of its datasets and of its runs (and lost none).

    Returns
    -------
    Recommender
        Fitted; equal in every respect to ``clone(recommender).fit(kb)`` (with a tolerance,
        to that fit on the earlier state).
    """
    from sklearn.base import clone

    from metarec.recommender._ranker import Recommender

    model = clone(recommender) if recommender is not None else Recommender()
    version_of = getattr(kb, "data_version", None)
    version = version_of() if callable(version_of) else None
    if not version:
        return model.fit(kb)
    full = model.get_params(deep=True)
    if version.startswith("builtin-"):  # nothing beyond the built-in one: shipped
        shipped = _shipped(version, full)
        if shipped is not None:
            return shipped
    prefix = f"recommender-{_key(str(getattr(kb, 'url', '')), full)}"
    exact = f"{prefix}-{_key(str(version), {})[:16]}"
    for path in cache_dir().glob(f"{exact}-*.pkl"):
        cached = _load(path, full)
        if cached is not None:
            return cached
    counts = _counts(kb)
    if counts is not None and tolerance > 0:
        for path in _earlier(prefix, counts, tolerance):
            cached = _load(path, full)
            if cached is not None:
                return cached
        builtin = _builtin_state(kb, counts, tolerance)
        if builtin is not None:
            shipped = _shipped(builtin, full)
            if shipped is not None:
                return shipped
    model.fit(kb)
    datasets, runs = counts if counts is not None else (0, 0)
    _store(cache_dir() / f"{exact}-d{datasets}-r{runs}.pkl", model)
    return model


def _builtin_state(kb, counts, tolerance: float) -> str | None:
    """The built-in knowledge base's data version when ``kb`` builds on it and has grown
    beyond it by at most ``tolerance`` of its datasets and runs (else None)."""
    if getattr(kb, "builds_on", None) != "builtin":
        return None
    try:
        old = int(kb.count("datasets", part="builtin")), int(kb.count("runs", part="builtin"))
        version = kb.builtin_version()
    except Exception:  # a stand-in without parts
        return None
    grew_d, grew_r = counts[0] - old[0], counts[1] - old[1]
    if 0 <= grew_d <= tolerance * old[0] and 0 <= grew_r <= tolerance * old[1]:
        return version
    return None
