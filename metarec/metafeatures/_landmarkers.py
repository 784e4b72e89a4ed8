"""landmarkers metafeatures (being written)."""

from __future__ import annotations

GROUP = "landmarkers"
