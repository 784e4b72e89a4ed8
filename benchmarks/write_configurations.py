"""Write metarec/_resources/default_configurations.json from the configuration spaces.

Usage::

    python benchmarks/write_configurations.py

The design (:func:`metarec.algorithms._configurations.design_configurations`: a scrambled
Sobol design per family, seeded) is data shipped beside the default portfolio, so that the
configurations' names stay stable; a test checks that the file is such a design (the same
names and fixed parameters, stratified in every dimension).  Run this after changing a space,
then ``python benchmarks/rebuild_builtin.py`` to measure them.
"""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PATH = ROOT / "metarec" / "_resources" / "default_configurations.json"
DESCRIPTION = (
    "Configurations of the default portfolio's main families: for each, the first points of "
    "a scrambled Sobol design over its configuration space (metarec.algorithms._configurations: "
    "SPACES, DESIGN_SEED). A configuration of the algorithm A is named A_cNN; A itself (the "
    "library's defaults) is the family's default configuration. Names are stable."
)


def document() -> dict:
    """The file's content: the description and the design's entries."""
    from metarec.algorithms import default_portfolio, design_configurations

    entries = design_configurations(default_portfolio(task="all"))
    return {"description": DESCRIPTION, "algorithms": entries}


def main() -> int:
    PATH.write_text(json.dumps(document(), indent=2) + "\n")
    print(f"{PATH}: {len(document()['algorithms'])} configurations")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
