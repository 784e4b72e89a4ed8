"""Benchmark pages: the tables the benchmark scripts write, stamped with date, commit, machine."""

from __future__ import annotations

import os
import platform
import subprocess
from datetime import date
from pathlib import Path


def cell(value) -> str:
    """A table cell: text as is, whole numbers with thousands separators, others to 3 places."""
    if isinstance(value, str):
        return value
    if isinstance(value, int):
        return f"{value:,}"
    return "" if value != value else f"{value:.3f}"


def markdown_table(columns, rows) -> str:
    """A GitHub table: the first column left-aligned, the others right-aligned."""
    lines = ["| " + " | ".join(map(str, columns)) + " |", "|---|" + "---:|" * (len(columns) - 1)]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def stamp() -> str:
    """When, at which commit and on what machine the figures were measured."""
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit = "unknown"
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return (
        f"Measured {date.today().isoformat()} at commit {commit} on {platform.machine()}, "
        f"{os.cpu_count()} cores, {memory:.0f} GiB, Python {platform.python_version()}."
    )


def write_page(path: Path | None, title: str, text: str) -> None:
    """Write a benchmark page (``# title``, the text, the stamp); nothing when ``path`` is None."""
    if path is None:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"# {title}\n\n{text}\n\n{stamp()}\n")
