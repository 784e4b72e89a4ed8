"""Transfer: recommendations learned on one run history, scored on another's datasets.

Usage::

    python benchmarks/transfer.py --markdown docs/benchmarks/transfer.md

The built-in knowledge base (PMLB) and ``benchmarks/histories/realworld-dev`` (57 real
datasets outside PMLB, the same 23 algorithms, cv10) in both directions, with
:func:`metarec.recommender.evaluate_transfer`: the default recommender and the baselines are
fitted on the source and rank every target dataset from its metafeatures alone.  Losses in
accuracy points; ``mil_1s`` is the mean interval loss on a person's time axis (from 1 s);
``gap closed`` is the share of the gap between the source's single best algorithm and the
oracle (negative: worse than always answering the single best).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _histories import REALWORLD, load_history
from _pages import markdown_table, write_page

COLUMNS = (
    "method", "top1_loss", "top3_loss", "mil_1s", "loss_10s", "top1_gap_closed",
    "top3_gap_closed", "spearman", "n_datasets",
)  # fmt: skip


def main(argv=None) -> None:
    from metarec.recommender import LearnedRanker, PerformanceMatrix, evaluate_transfer
    from metarec.storage import open_builtin

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--markdown", type=Path, default=None)
    args = parser.parse_args(argv)
    builtin = open_builtin()
    path = Path(tempfile.mkdtemp(prefix="metarec-transfer-")) / "realworld.sqlite"
    realworld = load_history(REALWORLD, "runs.csv.gz", path)
    blocks = []
    for (source_name, source), (target_name, target) in (
        (("built-in", builtin), ("realworld-dev", realworld)),
        (("realworld-dev", realworld), ("built-in", builtin)),
    ):
        result = evaluate_transfer(
            PerformanceMatrix.from_kb(source, task="classification"),
            PerformanceMatrix.from_kb(target, task="classification"),
            LearnedRanker(random_state=0),
        )
        frame = result.summary[list(COLUMNS)]
        print(f"\n{source_name} -> {target_name}\n{frame.round(3).to_string(index=False)}")
        table = markdown_table(COLUMNS, frame.itertuples(index=False))
        blocks.append(f"## {source_name} → {target_name}\n\n{table}")
    write_page(
        args.markdown,
        "Transfer between run histories",
        "The default recommender fitted on one history ranks the other's datasets from their "
        "metafeatures alone (`metarec.recommender.evaluate_transfer`). Written by "
        "`python benchmarks/transfer.py`.\n\n" + "\n\n".join(blocks),
    )


if __name__ == "__main__":
    sys.exit(main())
