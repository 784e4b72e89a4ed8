#!/usr/bin/env bash
# Write the knowledge bases of this folder again, each with the metarec release that made its
# schema revision: a 5-fold knn benchmark on iris, named and unnamed runs with extra metric
# columns (named_runs.csv), and saved metafeatures of wine.  Run from the repository's root:
#   bash tests/storage/old_kbs/make_old_kbs.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'git worktree remove --force "$work"/src >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
for pair in 31be84f:0001 053715f:0002 12fa491:0003 a74f655:0004 601006d:0005 1d326b3:0006; do
    commit=${pair%%:*}; revision=${pair##*:}; out="$here/kb-$revision.sqlite"
    git worktree add -f "$work/src" "$commit" >/dev/null
    rm -f "$out"
    (
        cd "$work"  # not the repository's root: its metarec/ would come before PYTHONPATH
        export PYTHONPATH="$work/src" METAREC_HOME="$work/home-$revision"
        run() { python -c 'import sys; from metarec.cli import main; main(sys.argv[1:])' "$@"; }
        run --db "sqlite:///$out" benchmark sklearn:iris -a knn --protocol cv5 --seed 0
        run --db "sqlite:///$out" import runs "$here/named_runs.csv"
        run --db "sqlite:///$out" metafeatures sklearn:wine --save --groups general,imbalance
    ) >/dev/null
    # one self-contained file: the log checkpointed, rollback-journal mode, compacted
    python -c "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); \
c.execute('PRAGMA journal_mode=DELETE'); c.execute('VACUUM'); c.close()" "$out"
    git worktree remove --force "$work/src"
done
# The last release whose knowledge bases started as a copy of the built-in one (1d326b3,
# revision 0006): its run's knowledge base, the built-in one cut to three datasets (the
# same rows as this version's), then the same user rows as above.
commit=1d326b3; out="$here/kb-0006-seeded.sqlite"
git worktree add -f "$work/src" "$commit" >/dev/null
rm -f "$out"
(
    cd "$work"
    export PYTHONPATH="$work/src" METAREC_HOME="$work/home-seeded"
    python "$here/cut_builtin.py" "$here/../../../metarec/_resources" "$work/src/metarec/_resources"
    python -c 'import sys; from metarec.storage import open_seeded; open_seeded(sys.argv[1])' \
        "sqlite:///$out"
    run() { python -c 'import sys; from metarec.cli import main; main(sys.argv[1:])' "$@"; }
    run --db "sqlite:///$out" benchmark sklearn:iris -a knn --protocol cv5 --seed 0
    run --db "sqlite:///$out" import runs "$here/named_runs.csv"
    run --db "sqlite:///$out" metafeatures sklearn:wine --save --groups general,imbalance
) >/dev/null
python -c "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); \
c.execute('PRAGMA journal_mode=DELETE'); c.execute('VACUUM'); c.close()" "$out"
git worktree remove --force "$work/src"
