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


class Recorder:
    """Everything printed inside ``with Recorder() as out:``, still printed (``out.text``).

    For scripts whose report is their printed tables: the page keeps them as printed.
    """

    def __enter__(self) -> Recorder:
        import io
        import sys

        self._stdout, self._buffer = sys.stdout, io.StringIO()
        recorder = self

        class _Tee:
            def write(self, text):
                recorder._stdout.write(text)
                return recorder._buffer.write(text)

            def flush(self):
                recorder._stdout.flush()

            def __getattr__(self, name):  # isatty, fileno, encoding: the real stream's
                return getattr(recorder._stdout, name)

        sys.stdout = _Tee()
        return self

    def __exit__(self, *exc) -> None:
        import sys

        sys.stdout = self._stdout
        self.text = self._buffer.getvalue()


def write_report_page(path: Path | None, title: str, intro: str, report: str, command: str):
    """A page holding a script's printed report as it was printed, with the command."""
    write_page(
        path,
        title,
        f"{intro}\n\n```text\n{report.rstrip()}\n```\n\nWritten by `{command}`.",
    )


def run_with_page(main, *, title: str, intro: str, script: str) -> None:
    """Run ``main(argv)``; with ``--markdown PATH`` among the arguments, also write what it
    printed to that page (:func:`write_report_page`), with the command that made it."""
    import sys

    argv = list(sys.argv[1:])
    path = None
    if "--markdown" in argv:
        at = argv.index("--markdown")
        if at + 1 >= len(argv):
            raise SystemExit("--markdown needs a path")
        path = Path(argv[at + 1])
        del argv[at : at + 2]
    if path is None:
        main(argv)
        return
    with Recorder() as out:
        main(argv)
    command = " ".join(["python", f"benchmarks/{script}", *argv, "--markdown", str(path)])
    write_report_page(path, title, intro, out.text, command)
