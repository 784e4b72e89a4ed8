"""Counts a database column holds: the one check of a row or column count, wherever read."""

from __future__ import annotations

import numpy as np

from metarec.exceptions import KnowledgeBaseError

__all__ = ["MAX_COUNT", "checked_count"]

#: The largest count a dataset's integer column holds in every supported database (a
#: 32-bit ``INTEGER`` on PostgreSQL; SQLite's would hold 64 bits).
MAX_COUNT = 2**31 - 1


def checked_count(where: str, key: str, value) -> int | None:
    """``value`` as a count a database column holds: None (missing) for None, NaN and
    pandas' missing values; a whole number, or its text, exactly (however large); an
    infinite, fractional, negative or too large number, a truth value or no number is
    refused."""
    import pandas as pd

    if value is None or (np.ndim(value) == 0 and not isinstance(value, str) and pd.isna(value)):
        return None
    number = None
    if isinstance(value, bool | np.bool_):
        pass
    elif isinstance(value, int | np.integer):
        number = int(value)
    else:
        try:
            number = int(str(value).strip())  # text and decimals of whole numbers, exactly
        except ValueError:
            try:
                real = float(value)
            except (TypeError, ValueError):
                real = float("inf")
            if np.isnan(real):
                return None
            number = int(real) if np.isfinite(real) and real.is_integer() else None
    if number is None or not 0 <= number <= MAX_COUNT:
        raise KnowledgeBaseError(
            f"{where}: {key} {value} is not a count a database column holds "
            f"(a whole number from 0 to {MAX_COUNT:,})"
        )
    return number
