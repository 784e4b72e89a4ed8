"""Command implementations of the CLI (one module per command group).

What ``metarec.cli`` needs besides the commands themselves (which it loads by name, on first
use): the shared options, the handling of interruptions and warnings, and the process clock.
"""

from metarec._commands._clock import mark_process_start
from metarec._commands._interrupt import interrupted, sigterm_unwinds
from metarec._commands._output import (
    db_option,
    db_option_param,
    format_option,
    warnings_as_notes,
)

__all__ = [
    "db_option",
    "db_option_param",
    "format_option",
    "interrupted",
    "mark_process_start",
    "sigterm_unwinds",
    "warnings_as_notes",
]
