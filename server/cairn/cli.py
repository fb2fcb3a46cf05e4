"""The `cairn` command line: wiring only; each command's work lives in `cairn.commands`.

Every user error is printed as one line on stderr with a non-zero exit code,
never as a traceback. Implementations are imported lazily so that `cairn
--version` and `cairn serve` start fast.
"""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path
from typing import Annotated

import typer
from typer._click.exceptions import ClickException, NoArgsIsHelpError

from cairn import __version__
from cairn.commands.config_app import config_app
from cairn.commands.options import WorkspaceOpt
from cairn.commands.trace_app import trace_app
from cairn.errors import CairnError

app = typer.Typer(
    name="cairn",
    help="Cairn: a context engine and agent for in-editor coding.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
# The exit code of a command stopped by Ctrl-C (128 + SIGINT).
INTERRUPTED_EXIT = 130

app.add_typer(trace_app, name="trace")
mcp_app = typer.Typer(help="MCP servers (tool sources).", no_args_is_help=True)
app.add_typer(mcp_app, name="mcp")
app.add_typer(config_app, name="config")

FileOpt = Annotated[
    list[Path] | None,
    typer.Option(
        "--file", "-f", help="Reference a file or folder (repeatable), as @path in the message."
    ),
]


def _version(value: bool) -> None:
    if value:
        typer.echo(f"cairn {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Show the version.")
    ] = False,
) -> None:
    """Cairn: a context engine and agent for in-editor coding."""


@mcp_app.command("list")
def mcp_list(
    workspace: WorkspaceOpt = Path("."),
    model: Annotated[
        str | None, typer.Option("--model", help="Count tokens for this model.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the servers as JSON.")] = False,
) -> None:
    """Start the configured MCP servers and show their state, tools and schema tokens."""
    from cairn.commands.mcp import list_servers

    list_servers(workspace, model, as_json)


@app.command()
def context(
    workspace: WorkspaceOpt = Path("."),
    file: FileOpt = None,
    message: Annotated[
        str, typer.Option("--message", "-m", help="The user message (@path mentions included).")
    ] = "",
    session: Annotated[str | None, typer.Option("--session", help="Session id.")] = None,
    model: Annotated[str | None, typer.Option("--model", help="Model name.")] = None,
    mode: Annotated[
        str | None, typer.Option("--mode", help="build, plan or review (default: the settings').")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the manifest as JSON.")] = False,
    as_text: Annotated[
        bool, typer.Option("--text", help="Print the exact messages the model would receive.")
    ] = False,
) -> None:
    """Show the manifest the next model call would get, without calling a model."""
    from cairn.commands.context_dry_run import show_context

    show_context(
        workspace=workspace,
        files=list(file or []),
        message=message,
        session_id=session,
        model=model,
        as_json=as_json,
        as_text=as_text,
        mode=mode,
    )


@app.command()
def run(
    message: Annotated[str, typer.Argument(help="What to do (@path mentions a file or folder).")],
    workspace: WorkspaceOpt = Path("."),
    file: FileOpt = None,
    model: Annotated[str | None, typer.Option("--model", help="Model name.")] = None,
    session: Annotated[str | None, typer.Option("--session", help="Continue this session.")] = None,
    mode: Annotated[str, typer.Option("--mode", help="build, plan or review.")] = "build",
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Approve every command.")] = False,
    trust: Annotated[
        bool, typer.Option("--trust", help="Trust the folder first (as `cairn trust` does).")
    ] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No live status line.")] = False,
) -> None:
    """Run one headless turn, streaming to the terminal; the trace is saved."""
    from cairn.commands.run import run_turn

    run_turn(
        message=message,
        workspace=workspace,
        model=model,
        session_id=session,
        mode=mode,
        yes=yes,
        files=list(file or []),
        trust=trust,
        quiet=quiet,
    )


@app.command()
def trust(
    folder: Annotated[Path, typer.Argument(help="The folder (default: this one).")] = Path("."),
    revoke: Annotated[bool, typer.Option("--revoke", help="Stop trusting it.")] = False,
    list_all: Annotated[bool, typer.Option("--list", help="List the trusted folders.")] = False,
) -> None:
    """Trust a folder: its cairn.toml may start MCP servers, choose the provider and send
    keys, pre-approve commands (and its AGENTS.md's), until that config changes."""
    from cairn.commands.trust import trust_command

    trust_command(folder, revoke, list_all)


@app.command()
def models(
    workspace: WorkspaceOpt = Path("."),
    model: Annotated[str | None, typer.Option("--model", help="Model name.")] = None,
    session: Annotated[
        str | None, typer.Option("--session", help="Show the model this session runs on.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """Show each role's model, where its settings came from and whether it can be called."""
    from cairn.commands.models import show_models

    show_models(workspace, model, session, as_json)


@app.command()
def init(
    folder: Annotated[Path, typer.Argument(help="The folder (default: this one).")] = Path("."),
    model: Annotated[str | None, typer.Option("--model", help="The model to write.")] = None,
) -> None:
    """Write a starter cairn.toml and, where there is no rules file, an AGENTS.md from the
    project's profile (test and build commands, layout); never overwrites a file."""
    from cairn.commands.init import init_folder

    init_folder(folder.resolve(), model)


@app.command()
def doctor(
    workspace: WorkspaceOpt = Path("."),
    as_json: Annotated[bool, typer.Option("--json", help="Print the checks as JSON.")] = False,
) -> None:
    """Check what a turn needs (Python, model, key, endpoint, grammars, git, sandbox, trust,
    MCP servers) and print each problem with its fix; exit 1 when a turn could not run."""
    from cairn.commands.doctor import doctor as _doctor

    _doctor(workspace, as_json)


@app.command()
def demo(
    keep: Annotated[
        Path | None, typer.Option("--keep", help="Copy the demo workspace here and keep it.")
    ] = None,
) -> None:
    """Run a scripted session on a bundled example project (no network, no API key)."""
    from cairn.commands.demo import run_demo

    run_demo(keep=keep)


@app.command()
def serve(
    tcp: Annotated[
        bool,
        typer.Option("--tcp", help="Serve over TCP on 127.0.0.1 (clients must send the token)."),
    ] = False,
    port: Annotated[
        int | None, typer.Option("--port", help="TCP port (default: one the system chooses).")
    ] = None,
    socket_path: Annotated[
        Path | None, typer.Option("--socket", help="Serve on a unix socket at this path.")
    ] = None,
) -> None:
    """Run the language server (stdio by default)."""
    from cairn.commands.serve import serve as _serve

    _serve(tcp=tcp, port=port, socket_path=socket_path)


@app.command()
def acp() -> None:
    """Run the Agent Client Protocol agent over stdio (Zed, JetBrains, Neovim, Emacs)."""
    from cairn.commands.acp import acp as _acp

    _acp()


def _fast_serve(args: list[str]) -> bool:
    """`cairn serve [--tcp] [--port N] [--socket PATH]` without typer's parsing (its pydantic
    adapters cost ~0.1-0.2 s before the editor's `initialize` can be answered). False for
    anything else (e.g. `--help`, `--port -1`), which typer then handles."""
    tcp, port, socket_path, rest = False, None, None, list(args)
    while rest:
        arg = rest.pop(0)
        name, equals, value = arg.partition("=")
        if not equals and name in ("--port", "--socket") and rest:
            value = rest.pop(0)
        if arg == "--tcp":
            tcp = True
        elif name == "--port" and value.isdigit():
            port = int(value)
        elif name == "--socket" and value and not value.startswith("-"):
            socket_path = Path(value)
        else:
            return False
    from cairn.commands.serve import serve as _serve

    _serve(tcp=tcp, port=port, socket_path=socket_path)
    return True


def main(argv: list[str] | None = None) -> None:
    """Console entry point: run the app, turning every error into one line on stderr.

    As the process's entry point (`argv` None) it then exits at once (`exit_now`):
    everything is written and flushed by then, and tearing down the interpreter's
    objects one by one would only make the user wait (about 0.2-1 s)."""
    args = sys.argv[1:] if argv is None else argv
    code = run_cli(args)
    if argv is None:
        exit_now(code)
    if code != 0:
        sys.exit(code)


def exit_now(code: int) -> None:
    """Flush the standard streams and end the process without interpreter teardown."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed pipe: nothing more to say
            stream.flush()
    os._exit(code)


def dispatch(args: list[str]) -> object:
    """Run one command; what click returns (an exit code, or None)."""
    if args[:1] == ["serve"] and _fast_serve(args[1:]):
        return 0
    if args == ["acp"]:  # as `serve`: no typer parsing before the client's first message
        from cairn.commands.acp import acp as _acp

        _acp()
        return 0
    command = typer.main.get_command(app)
    # Without standalone mode, click returns the code of a `typer.Exit` instead of exiting.
    return command.main(args=args, prog_name="cairn", standalone_mode=False)


def run_cli(args: list[str]) -> int:
    """Run one command; its exit code (every error printed as one line)."""
    try:
        code = dispatch(args)
    except typer.Exit as exc:
        return exc.exit_code
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except NoArgsIsHelpError as exc:
        sys.stderr.write(exc.format_message() + "\n")
        return 2
    except ClickException as exc:
        sys.stderr.write(f"error: {exc.format_message()}\n")
        return exc.exit_code or 2
    except typer.Abort:
        sys.stderr.write("error: aborted\n")
        return INTERRUPTED_EXIT
    except KeyboardInterrupt:
        sys.stderr.write("error: interrupted\n")
        return INTERRUPTED_EXIT
    except CairnError as exc:
        sys.stderr.write(f"error: {exc}\n")
        return 1
    except OSError as exc:
        sys.stderr.write(
            f"error: {exc.strerror or exc}: {exc.filename or ''}\n".replace(": \n", "\n")
        )
        return 1
    except Exception as exc:  # last resort: never a traceback for the user
        sys.stderr.write(f"error: internal error: {type(exc).__name__}: {exc}\n")
        return 2
    return code if isinstance(code, int) else 0
