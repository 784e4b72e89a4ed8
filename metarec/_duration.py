"""Durations as people write them: ``90``, ``90s``, ``1.5m``, ``10m``, ``1h``, ``1h30m``."""

from __future__ import annotations

import math
import re

from metarec.exceptions import InvalidInputError

__all__ = ["parse_duration"]

_UNITS = {"": 1.0, "s": 1.0, "sec": 1.0, "m": 60.0, "min": 60.0, "h": 3600.0, "d": 86400.0}
_PART = re.compile(r"(\d+(?:\.\d*)?|\.\d+)\s*(d|h|min|m|sec|s)?", re.IGNORECASE)


def parse_duration(value: str | float | int) -> float:
    """Seconds in a duration: a number of seconds, or numbers with units s, m, h, d.

    Parameters
    ----------
    value : str or number
        ``90`` and ``"90"`` are seconds; ``"90s"``, ``"1.5m"``, ``"10min"``, ``"1h"``,
        ``"1h30m"`` and ``"2d"`` carry their unit (case-insensitive, spaces allowed between
        parts).

    Returns
    -------
    float
        Seconds, positive and finite.

    Raises
    ------
    InvalidInputError
        Not a duration, zero, negative or infinite.

    Examples
    --------
    >>> parse_duration("10m"), parse_duration("1h30m"), parse_duration(90)
    (600.0, 5400.0, 90.0)
    """
    if isinstance(value, bool):
        raise InvalidInputError(f"not a duration: {value!r}")
    if isinstance(value, (int, float)):
        seconds = float(value)
    else:
        text = str(value).strip()
        position, seconds, parts = 0, 0.0, 0
        while position < len(text):
            match = _PART.match(text, position)
            if match is None:
                break
            number, unit = match.groups()
            if unit is None and parts:  # "1h30": seconds or minutes? refuse to guess
                break
            seconds += float(number) * _UNITS[(unit or "").lower()]
            parts += 1
            position = match.end()
            while position < len(text) and text[position].isspace():
                position += 1
        if not parts or position != len(text):
            raise InvalidInputError(
                f"not a duration: {value!r}; write seconds (90) or use units s, m, h "
                "(90s, 10m, 1h, 1h30m)"
            )
    if not math.isfinite(seconds) or seconds <= 0:
        raise InvalidInputError(f"a duration must be positive and finite, got {value!r}")
    return seconds
