"""The not-fitted error of metarec's estimators, which is also scikit-learn's.

:mod:`metarec.exceptions` does not import scikit-learn (the command line starts without it),
so its :class:`~metarec.exceptions.NotFittedError` cannot derive from scikit-learn's; the
estimators, which import scikit-learn anyway, raise this subclass of both, so that code
written for any scikit-learn estimator (``except sklearn.exceptions.NotFittedError``) and
code written for metarec (``except metarec.exceptions.MetarecError``) both catch it.
"""

from __future__ import annotations

from sklearn.exceptions import NotFittedError as _ScikitLearnNotFittedError

from metarec.exceptions import NotFittedError as _MetarecNotFittedError

__all__ = ["NotFittedError"]


class NotFittedError(_MetarecNotFittedError, _ScikitLearnNotFittedError):
    """An estimator was used before ``fit`` (metarec's error and scikit-learn's)."""
