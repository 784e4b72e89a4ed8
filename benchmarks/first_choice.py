"""The first choice of ``metarec recommend`` against the best algorithm measured on the data.

Usage::

    python benchmarks/first_choice.py --markdown docs/benchmarks/first-choice.md
    python benchmarks/first_choice.py sklearn:breast_cancer path/to/data.csv --target label

For each dataset (by default the README's example, ``sklearn:breast_cancer``):
``metarec recommend DATA --format json`` in a fresh process and a fresh home (the built-in
knowledge base) gives the first choice and its expected accuracy with the 80 % interval; then
``metarec benchmark DATA --protocol cv10`` into a fresh, empty knowledge base (``--db``) runs
every algorithm of the portfolio on the same ten folds, and the mean accuracy over the folds
of each is read back from that knowledge base.  Reported: the first choice's CV accuracy, the
best algorithm's, the points between them (target: within 1 point), the first choice's rank
among the measured algorithms, and whether its CV accuracy lies inside its 80 % interval.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _cli import metarec as _metarec
from _pages import markdown_table, write_page

#: The gap (accuracy points) within which the first choice counts as as good as the best.
TARGET_POINTS = 1.0


def measure(data: str, target: str | None, jobs: int, work: Path) -> dict:
    """Recommend, then benchmark every algorithm with cv10; the first choice against the best."""
    from metarec.storage import KnowledgeBase

    env = {**os.environ, "METAREC_HOME": str(work / "home")}
    env.pop("METAREC_DB", None)
    given = ["--target", target] if target else []
    ranking = json.loads(_metarec("recommend", data, *given, "--format", "json", env=env))
    first = ranking["results"][0]
    url = f"sqlite:///{work / 'kb.sqlite'}"
    _metarec("--db", url, "benchmark", data, *given, "--protocol", "cv10", "-j", jobs, env=env)
    runs = KnowledgeBase(url, create=False).runs()
    runs = runs[runs["status"] == "ok"]
    accuracy = runs.groupby("algorithm")["accuracy"].mean().sort_values(ascending=False)
    chosen = first["algorithm"]
    measured = float(accuracy.get(chosen, float("nan")))
    best, best_score = str(accuracy.index[0]), float(accuracy.iloc[0])
    low, high = first["expected_accuracy_low"], first["expected_accuracy_high"]
    return {
        "dataset": ranking["dataset"],
        "first choice": chosen,
        "its CV accuracy (%)": 100 * measured,
        "expected (%)": 100 * first["expected_accuracy"],
        "80 % interval (%)": f"{100 * low:.1f}-{100 * high:.1f}",
        "inside the interval": "yes" if low <= measured <= high else "no",
        "best algorithm": best,
        "best CV accuracy (%)": 100 * best_score,
        "points below the best": 100 * (best_score - measured),
        f"within {TARGET_POINTS:g} point": (
            "yes" if 100 * (best_score - measured) <= TARGET_POINTS else "no"
        ),
        "its rank (of measured)": int((accuracy > measured).sum()) + 1,
        "measured": int(accuracy.size),
    }


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", nargs="*", default=["sklearn:breast_cancer"])
    parser.add_argument("--target", default=None, help="the label column of every file given")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--markdown", type=Path, default=None)
    args = parser.parse_args(argv)
    rows = []
    for data in args.data:
        with tempfile.TemporaryDirectory(prefix="metarec-first-choice-") as work:
            rows.append(measure(data, args.target, args.jobs, Path(work)))
            print(rows[-1], flush=True)
    table = markdown_table(list(rows[0]), [list(r.values()) for r in rows])
    print(table)
    text = (
        "`metarec recommend DATA` (fresh process, built-in knowledge base) against `metarec "
        "benchmark DATA --protocol cv10` (every algorithm of the portfolio on the same ten "
        "folds, in a fresh knowledge base): the first choice's mean accuracy over the folds, "
        "the best algorithm's, and the points between them; the target is the first choice "
        f"within {TARGET_POINTS:g} point of the best.  `inside the interval`: whether the "
        "first choice's CV accuracy lies inside the 80 % interval the recommendation gave.\n\n"
        f"{table}\n\nWritten by `python benchmarks/first_choice.py`."
    )
    write_page(args.markdown, "The first choice against the best algorithm on the data", text)


if __name__ == "__main__":
    main()
