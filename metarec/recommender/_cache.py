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
"""

from __future__ import annotations

import hashlib
import pickle
from pathlib import Path

__all__ = ["fitted_recommender", "cache_dir", "MAX_CACHED"]

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
    model.fit(kb)
    datasets, runs = counts if counts is not None else (0, 0)
    _store(cache_dir() / f"{exact}-d{datasets}-r{runs}.pkl", model)
    return model
