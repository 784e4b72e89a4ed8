"""metarec's command-line interface.

The CLI is thin: each command parses its options, calls the library and formats the result
through one shared output path (:mod:`metarec._commands._output`).  Commands live in
``metarec/_commands/`` and are imported only when they run (or when help lists them), so
``metarec --help`` never imports scikit-learn, openml, matplotlib or pandas.

Interruptions, the same for every command: Ctrl-C exits with status 130 and SIGTERM with 143,
each after one line on standard error saying what was kept (a command says it with
:func:`metarec._commands._interrupt.say_kept`; the benchmark reports the runs it stored).  SIGTERM is turned into an
exception while a command runs, so open transactions roll back as on Ctrl-C.

Errors: a :class:`~metarec.exceptions.MetarecError` becomes a one-line ``Error: ...`` (its
``cli_message`` when it has one: the message that names options, not parameters) with
exit code 1, and so does a file operation the system refused (the path and its reason); any
other exception too (exit code 2), unless ``METAREC_DEBUG=1`` is set, in which case the
traceback is shown.
"""

from __future__ import annotations

import importlib
import os

import click

from metarec._commands import db_option, format_option
from metarec._text import one_line
from metarec._version import __version__

#: command name -> "module:attribute", imported on first use.
COMMANDS: dict[str, str] = {
    "recommend": "metarec._commands._recommend:recommend",
    "rank": "metarec._commands._recommend:rank",
    "evaluate": "metarec._commands._evaluate:evaluate",
    "metafeatures": "metarec._commands._metafeatures:metafeatures",
    "benchmark": "metarec._commands._benchmark:benchmark",
    "run": "metarec._commands._run:run",
    "import": "metarec._commands._import:import_group",
    "ingest": "metarec._commands._ingest:ingest",
    "db": "metarec._commands._db:db",
    "metric": "metarec._commands._metric:metric",
}


def _with_shared_options(command: click.Command) -> click.Command:
    """Give ``command`` (and, for a group, every subcommand) the shared ``--db`` option.

    ``--db`` is defined once (:func:`metarec._commands._output.db_option_param`); each command
    gets its own instance, so ``metarec import runs FILE --db URL`` works like
    ``metarec --db URL import runs FILE``.  Idempotent.
    """
    from metarec._commands import db_option_param

    if not any(p.name == "db_url" for p in command.params):
        command.params.append(db_option_param())
    if isinstance(command, click.Group):
        for sub in command.commands.values():
            _with_shared_options(sub)
    return command


class OneLineUsageError(click.UsageError):
    """A usage error shown as one line, ``Error: ... (see 'metarec CMD --help')``, exit 2.

    click shows a usage error as the command's usage line, a hint and the message, three
    lines; every other error of the CLI is one line.
    """

    def show(self, file=None) -> None:
        where = f" (see '{self.ctx.command_path} --help')" if self.ctx is not None else ""
        click.echo(f"Error: {self.format_message()}{where}", file=file, err=file is None)


def _one_line(error: click.UsageError) -> click.UsageError:
    if isinstance(error, (OneLineUsageError, click.exceptions.NoArgsIsHelpError)):
        return error  # a group without a command: click shows its help as it is
    one = OneLineUsageError(error.format_message(), ctx=error.ctx)
    one.exit_code = error.exit_code
    return one


class LazyGroup(click.Group):
    """A click group that imports its commands on demand and translates library errors."""

    def __init__(self, *args, lazy_commands: dict[str, str] | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.lazy_commands = dict(lazy_commands or {})

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(super().list_commands(ctx)) | set(self.lazy_commands))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.lazy_commands:
            module_name, attribute = self.lazy_commands[cmd_name].split(":")
            try:
                module = importlib.import_module(module_name)
            except ModuleNotFoundError as exc:
                if exc.name and exc.name.startswith("metarec"):
                    return None  # a command whose module is not part of this build
                raise
            return _with_shared_options(getattr(module, attribute))
        command = super().get_command(ctx, cmd_name)
        return None if command is None else _with_shared_options(command)

    def make_context(self, info_name, args, parent=None, **extra) -> click.Context:
        try:
            return super().make_context(info_name, args, parent=parent, **extra)
        except click.UsageError as exc:
            raise _one_line(exc) from None

    def invoke(self, ctx: click.Context):
        from metarec._commands import interrupted, sigterm_unwinds, warnings_as_notes
        from metarec.exceptions import MetarecError

        try:
            with sigterm_unwinds(), warnings_as_notes():
                return super().invoke(ctx)
        except click.UsageError as exc:
            raise _one_line(exc) from None
        except (click.exceptions.Exit, click.exceptions.Abort, click.ClickException):
            raise
        except MetarecError as exc:
            raise click.ClickException(one_line(exc.cli_message or exc)) from exc
        except KeyboardInterrupt as exc:  # Ctrl-C, or SIGTERM: one line, exit 130 / 143
            raise interrupted(ctx, exc) from None
        except BrokenPipeError:  # the reader went away (`| head`): click ends quietly
            raise
        except OSError as exc:  # a path that cannot be made, read or written
            if os.environ.get("METAREC_DEBUG"):
                raise
            raise click.ClickException(_os_error(exc)) from exc
        except Exception as exc:
            if os.environ.get("METAREC_DEBUG"):
                raise
            error = click.ClickException(
                f"unexpected {type(exc).__name__}: {one_line(exc)} "
                "(set METAREC_DEBUG=1 to see the traceback)"
            )
            error.exit_code = 2
            raise error from exc


def _os_error(exc: OSError) -> str:
    """One line for a failed file operation: the path and the system's reason."""
    reason = exc.strerror or one_line(exc)
    path = exc.filename
    if path is None:
        return f"cannot access a file: {reason}"
    return f"cannot use {os.fspath(path)!r}: {reason}"


@click.group(
    cls=LazyGroup,
    lazy_commands=COMMANDS,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)
@click.version_option(__version__, "-V", "--version", prog_name="metarec")
@db_option
@format_option(default=None)
@click.pass_context
def cli(ctx: click.Context) -> None:
    """Recommend which machine-learning algorithms to try first on a dataset, and why.

    --db and --format may also be given after the command name (that one wins if both are).

    \b
    Example:
      metarec recommend sklearn:breast_cancer
      metarec import runs results.csv --db sqlite:///team.sqlite
    """
    ctx.ensure_object(dict)


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point."""
    from metarec._commands import mark_process_start

    mark_process_start()  # `metarec run --budget` counts the interpreter's start-up
    cli.main(args=argv, prog_name="metarec")


if __name__ == "__main__":  # pragma: no cover
    main()
