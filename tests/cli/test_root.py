from __future__ import annotations

import subprocess
import sys

from click.testing import CliRunner

from metarec._version import __version__
from metarec.cli import COMMANDS, cli


def test_version_flag():
    result = CliRunner().invoke(cli, ["--version"])
    assert result.exit_code == 0
    assert __version__ in result.output


def test_help_lists_every_command():
    """The "Commands:" section has one line per command, its name first, then what it does."""
    result = CliRunner().invoke(cli, ["-h"])
    assert result.exit_code == 0
    section = result.output.split("\nCommands:\n", 1)[1]
    listed = [line.split(maxsplit=1) for line in section.splitlines() if line.strip()]
    assert [row[0] for row in listed] == sorted(COMMANDS)
    assert all(len(row) == 2 for row in listed)  # each with its description


def test_a_group_without_a_command_shows_its_help_not_an_error():
    for args in ([], ["db"], ["import"]):
        result = CliRunner().invoke(cli, args, prog_name="metarec")
        assert result.output.startswith(f"Usage: metarec {' '.join(args)}".rstrip() + " ")
        assert "Error" not in result.output and "Commands:" in result.output


def test_every_command_has_help_with_an_example():
    runner = CliRunner()
    for name in COMMANDS:
        result = runner.invoke(cli, [name, "--help"])
        assert result.exit_code == 0, (name, result.output)
        assert "Example" in result.output, name


def test_help_does_not_import_heavy_libraries():
    code = (
        "import sys\n"
        "from metarec.cli import cli\n"
        "try:\n    cli.main(['--help'], standalone_mode=False)\nexcept SystemExit:\n    pass\n"
        "heavy = [m for m in ('sklearn', 'openml', 'matplotlib', 'pandas', 'sqlalchemy') if m in sys.modules]\n"
        "print('heavy:' + ','.join(heavy))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "heavy:"
