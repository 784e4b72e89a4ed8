"""Where metarec keeps its files, and which knowledge base it opens.

The knowledge base URL is resolved in this order: an explicit ``url`` argument (the CLI's
``--db``), the ``METAREC_DB`` environment variable, then a SQLite file ``kb.sqlite`` in the
user's data directory (``platformdirs.user_data_dir("metarec")``, e.g.
``~/.local/share/metarec`` on Linux).  ``METAREC_HOME`` overrides that directory.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["data_dir", "default_db_url", "resolve_db_url", "redact_url"]

ENV_DB = "METAREC_DB"
ENV_HOME = "METAREC_HOME"


def data_dir() -> Path:
    """Return metarec's per-user data directory (not created)."""
    home = os.environ.get(ENV_HOME)
    if home:
        return Path(home).expanduser()
    from platformdirs import user_data_dir

    return Path(user_data_dir("metarec", appauthor=False))


def default_db_url() -> str:
    """Return the URL of the default SQLite knowledge base in :func:`data_dir`."""
    return f"sqlite:///{data_dir() / 'kb.sqlite'}"


def resolve_db_url(url: str | os.PathLike[str] | None = None) -> str:
    """Return the knowledge-base URL to use.

    Parameters
    ----------
    url : str or path-like, optional
        An SQLAlchemy URL, or a path to a SQLite file.  ``None`` falls back to the
        ``METAREC_DB`` environment variable and then to :func:`default_db_url`.
    """
    if url is None:
        url = os.environ.get(ENV_DB) or default_db_url()
    url = os.fspath(url)
    if "://" not in url:
        # A bare path means a SQLite file.
        url = f"sqlite:///{Path(url).expanduser()}"
    return url


def redact_url(url: str) -> str:
    """Return ``url`` with any password replaced by ``***``."""
    from sqlalchemy.engine import make_url

    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:  # an unparsable URL has nothing we can safely show but its scheme
        return url.split("://", 1)[0] + "://***"
