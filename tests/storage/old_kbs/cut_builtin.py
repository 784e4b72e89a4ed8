"""Write the built-in resource files of SOURCE cut to three datasets into TARGET.

Used by make_old_kbs.sh: the seeded fixture holds a copy of these rows, which are rows of
the current built-in knowledge base too.
"""

import sys
from pathlib import Path

import pandas as pd

KEPT = ["analcatdata_authorship", "irish", "wine_recognition"]
source, target = Path(sys.argv[1]), Path(sys.argv[2])
for table in ("datasets", "algorithms", "runs", "metafeatures"):
    frame = pd.read_parquet(source / f"builtin_{table}.parquet")
    if table == "datasets":
        frame = frame[frame["name"].isin(KEPT)]
    elif table in ("runs", "metafeatures"):
        frame = frame[frame["dataset"].isin(KEPT)]
    frame.to_parquet(target / f"builtin_{table}.parquet", index=False, compression="zstd")
