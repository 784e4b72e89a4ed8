"""The metarec command in a fresh process, as the benchmark scripts call it."""

from __future__ import annotations

import subprocess
import sys


def metarec(*args, env) -> str:
    """``python -m metarec ARGS`` with ``env``: its standard output, or exit naming the error."""
    done = subprocess.run(
        [sys.executable, "-m", "metarec", *map(str, args)], env=env, capture_output=True
    )
    if done.returncode != 0:
        raise SystemExit(f"metarec {' '.join(map(str, args))} failed: {done.stderr.decode()}")
    return done.stdout.decode()
