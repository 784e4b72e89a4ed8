"""statistical metafeatures (being written)."""

from __future__ import annotations

GROUP = "statistical"
