"""Write the CLI reference (``docs/cli.md``) from the commands themselves.

Usage::

    python docs/_cli_reference.py          # rewrite docs/cli.md
    python docs/_cli_reference.py --check  # exit 1 if docs/cli.md is out of date

Every command and subcommand gets a section with its ``--help`` text, formatted at a fixed
width so that the page does not depend on the terminal.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

PAGE = Path(__file__).resolve().parent / "cli.md"
WIDTH = 100

_INTRO = """\
# Command-line reference

Every command of `metarec`, with the help that `metarec COMMAND --help` prints.  The page is
written by `python docs/_cli_reference.py` from the commands themselves; a test checks that it
is up to date.  `--db URL` and `--format table|json|csv` may be given before or after a
command's name.
"""


def walk(command: click.Command, ctx: click.Context):
    """``(path, context)`` of ``command`` and every subcommand, depth first, sorted by name."""
    yield ctx.command_path, ctx
    if isinstance(command, click.Group):
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            if sub is None or sub.hidden:
                continue
            sub_ctx = click.Context(
                sub, info_name=name, parent=ctx, terminal_width=WIDTH, max_content_width=WIDTH
            )
            yield from walk(sub, sub_ctx)


def render() -> str:
    """The whole page."""
    from metarec.cli import cli

    # make_context applies the group's context_settings (-h as well as --help), which every
    # subcommand's context inherits
    root = cli.make_context(
        "metarec", [], resilient_parsing=True, terminal_width=WIDTH, max_content_width=WIDTH
    )
    parts = [_INTRO]
    for path, ctx in walk(cli, root):
        level = "#" * (1 + max(path.count(" "), 1))  # metarec and its commands ##, subcommands ###
        parts.append(f"{level} `{path}`\n\n```text\n{ctx.command.get_help(ctx).rstrip()}\n```\n")
    return "\n".join(parts)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    text = render()
    if "--check" in argv:
        if not PAGE.exists() or PAGE.read_text() != text:
            print(f"{PAGE} is out of date: run python docs/_cli_reference.py", file=sys.stderr)
            return 1
        return 0
    PAGE.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
