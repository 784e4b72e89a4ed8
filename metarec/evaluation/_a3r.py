"""A3R and ARR: measures combining a success-rate ratio with a training-time ratio.

For algorithms ``p`` and ``q`` on one dataset with success rates ``SR`` (accuracy, AUC, ...)
and training times ``T``:

* ARR (Brazdil, Soares and Pinto da Costa, 2003):
  ``ARR = (SR_p / SR_q) / (1 + AccD * log10(T_p / T_q))``
* A3R (Abdulrahman and Brazdil, 2014):
  ``A3R = (SR_p / SR_q) / (T_p / T_q) ** (1 / n)``

ARR's denominator reaches zero at the time ratio ``10 ** (-1 / AccD)`` (for example 1e-5 for
AccD = 0.2): there ARR has a pole and for smaller ratios it is negative, so ARR is not
monotonic in the time ratio.  A3R's n-th root is positive and strictly decreasing in the
time ratio for every ``n > 0``, so A3R is monotonic.  Both functions broadcast over numpy
arrays (one call scores every pair of algorithms).

References
----------
.. [1] S. M. Abdulrahman and P. Brazdil, "Measures for Combining Accuracy and Time for
   Meta-learning", Meta-Learning and Algorithm Selection Workshop at ECAI 2014, pp. 49-50.
.. [2] P. B. Brazdil, C. Soares and J. Pinto da Costa, "Ranking learning algorithms: using
   IBL and meta-learning on accuracy and time results", Machine Learning 50(3), 2003.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from metarec.exceptions import InvalidInputError

__all__ = ["a3r", "arr", "arr_pole", "pairwise_a3r", "pairwise_arr"]


def _inputs(
    sr_p: Any, sr_q: Any, t_p: Any, t_q: Any, min_time: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    arrays = []
    for name, value in (("sr_p", sr_p), ("sr_q", sr_q), ("t_p", t_p), ("t_q", t_q)):
        arr = np.asarray(value, dtype=float)
        if arr.size == 0:
            raise InvalidInputError(f"{name} is empty")
        if np.any(arr < 0):
            kind = "time" if name.startswith("t") else "success rate"
            raise InvalidInputError(
                f"{name} must be a non-negative {kind}, got {arr[arr < 0].flat[0].item()!r}"
            )
        arrays.append(arr)
    if min_time < 0:
        raise InvalidInputError(f"min_time must be non-negative, got {min_time!r}")
    try:
        sp, sq, tp, tq = np.broadcast_arrays(*arrays)
    except ValueError as exc:
        shapes = ", ".join(str(a.shape) for a in arrays)
        raise InvalidInputError(f"sr_p, sr_q, t_p, t_q do not broadcast: {shapes}") from exc
    if min_time > 0:
        tp = np.maximum(tp, min_time)
        tq = np.maximum(tq, min_time)
    return sp, sq, tp, tq


def a3r(
    sr_p: Any,
    sr_q: Any,
    t_p: Any,
    t_q: Any,
    *,
    n: float = 8.0,
    min_time: float = 0.0,
) -> np.ndarray:
    """A3R of algorithm p against algorithm q: ``(SR_p / SR_q) / (T_p / T_q) ** (1 / n)``.

    Parameters
    ----------
    sr_p, sr_q : array-like
        Success rates (accuracy, AUC, ...), non-negative; broadcast together with the times.
    t_p, t_q : array-like
        Training times in seconds, non-negative.
    n : float, default=8
        Root applied to the time ratio; larger ``n`` gives time less weight (the paper's
        Fig. 3 uses 8).  A 10x slower algorithm is divided by 1.33 with ``n = 8`` and by 3.16
        with ``n = 2``; a 10x faster one by 0.75 and 0.32.
    min_time : float, default=0
        Times below this are raised to it before the ratio is taken, so a time recorded as 0
        does not give an infinite or undefined ratio.  With the default, a zero time gives
        ``inf`` (or ``nan`` when both are zero), following IEEE arithmetic.

    Returns
    -------
    ndarray
        The broadcast shape of the inputs (a 0-d array for scalars).  Higher is better.

    Raises
    ------
    InvalidInputError
        Negative success rate or time, ``n <= 0``, empty or non-broadcastable inputs.

    References
    ----------
    .. [1] Abdulrahman and Brazdil, "Measures for Combining Accuracy and Time for
       Meta-learning", MetaSel at ECAI 2014, Eq. (2).
    """
    if not np.isfinite(n) or n <= 0:
        raise InvalidInputError(f"n must be a positive root, got {n!r}")
    sp, sq, tp, tq = _inputs(sr_p, sr_q, t_p, t_q, min_time)
    with np.errstate(divide="ignore", invalid="ignore"):
        return (sp / sq) / (tp / tq) ** (1.0 / n)


def arr(
    sr_p: Any,
    sr_q: Any,
    t_p: Any,
    t_q: Any,
    *,
    acc_d: float = 0.1,
    min_time: float = 0.0,
) -> np.ndarray:
    """Adjusted ratio of ratios: ``(SR_p / SR_q) / (1 + AccD * log10(T_p / T_q))``.

    ARR is kept to compare with A3R; it is not monotonic.  Its denominator is zero at the
    time ratio :func:`arr_pole` ``(acc_d) = 10 ** (-1 / acc_d)`` (ARR is ``±inf`` there) and
    negative below it, where a *faster* algorithm gets a negative, i.e. worse, score.

    Parameters
    ----------
    sr_p, sr_q, t_p, t_q : array-like
        As in :func:`a3r`.
    acc_d : float, default=0.1
        Accuracy the user would trade for a tenfold speed-up (0.1 = ten percentage points).
    min_time : float, default=0
        As in :func:`a3r`.

    Returns
    -------
    ndarray

    References
    ----------
    .. [1] Brazdil, Soares and Pinto da Costa, Machine Learning 50(3), 2003.
    .. [2] Abdulrahman and Brazdil, MetaSel at ECAI 2014, Eq. (1) and Fig. 1.
    """
    if not np.isfinite(acc_d) or acc_d < 0:
        raise InvalidInputError(f"acc_d must be a non-negative number, got {acc_d!r}")
    sp, sq, tp, tq = _inputs(sr_p, sr_q, t_p, t_q, min_time)
    with np.errstate(divide="ignore", invalid="ignore"):
        return (sp / sq) / (1.0 + acc_d * np.log10(tp / tq))


def arr_pole(acc_d: float) -> float:
    """Time ratio ``T_p / T_q`` at which ARR's denominator is zero: ``10 ** (-1 / acc_d)``.

    Returns 0.0 for ``acc_d = 0``: the denominator is then 1 and there is no pole.

    Parameters
    ----------
    acc_d : float
        As in :func:`arr`, non-negative.

    Returns
    -------
    float
        The time ratio, in [0, 1).

    References
    ----------
    .. [1] Abdulrahman and Brazdil, MetaSel at ECAI 2014, Sect. 2.
    """
    if not np.isfinite(acc_d) or acc_d < 0:
        raise InvalidInputError(f"acc_d must be a non-negative number, got {acc_d!r}")
    if acc_d == 0:
        return 0.0
    return float(10.0 ** (-1.0 / acc_d))


def _pairwise(success_rates: Any, times: Any) -> tuple[np.ndarray, np.ndarray]:
    sr = np.asarray(success_rates, dtype=float)
    t = np.asarray(times, dtype=float)
    if sr.ndim == 0 or sr.shape != t.shape:
        raise InvalidInputError(
            f"success_rates and times must be arrays of the same shape (..., n_algorithms), "
            f"got {sr.shape} and {t.shape}"
        )
    return sr, t


def pairwise_a3r(
    success_rates: Any, times: Any, *, n: float = 8.0, min_time: float = 0.0
) -> np.ndarray:
    """A3R of every algorithm against every other: ``M[..., p, q] = A3R(p, q)``.

    Parameters
    ----------
    success_rates, times : array-like of shape (..., m)
        One value per algorithm (leading axes, e.g. datasets, are kept).
    n, min_time : float
        As in :func:`a3r`.

    Returns
    -------
    ndarray of shape (..., m, m)
        Ones on the diagonal (for positive inputs) and ``M[p, q] * M[q, p] = 1``.

    References
    ----------
    .. [1] Abdulrahman and Brazdil, MetaSel at ECAI 2014, Eq. (2).
    """
    sr, t = _pairwise(success_rates, times)
    return a3r(
        sr[..., :, None], sr[..., None, :], t[..., :, None], t[..., None, :], n=n, min_time=min_time
    )


def pairwise_arr(
    success_rates: Any, times: Any, *, acc_d: float = 0.1, min_time: float = 0.0
) -> np.ndarray:
    """ARR of every algorithm against every other: ``M[..., p, q] = ARR(p, q)``.

    Parameters
    ----------
    success_rates, times : array-like of shape (..., m)
        One value per algorithm (leading axes, e.g. datasets, are kept).
    acc_d : float, default=0.1
        As in :func:`arr`.
    min_time : float, default=0
        As in :func:`a3r`.

    Returns
    -------
    ndarray of shape (..., m, m)
        Ones on the diagonal (for positive inputs); ``±inf`` where the time ratio is at
        the pole (:func:`arr_pole`).

    References
    ----------
    .. [1] Brazdil, Soares and Pinto da Costa, Machine Learning 50(3), 2003.
    """
    sr, t = _pairwise(success_rates, times)
    return arr(
        sr[..., :, None],
        sr[..., None, :],
        t[..., :, None],
        t[..., None, :],
        acc_d=acc_d,
        min_time=min_time,
    )
