"""The `cairn` command line: wiring only; each command's work lives in `cairn.commands`.

Every user error is printed as one line on stderr with a non-zero exit code,
never as a traceback. Implementations are imported lazily so that `cairn
--version` and `cairn serve` start fast.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer
from typer._click.exceptions import ClickException, NoArgsIsHelpError

from cairn import __version__
from cairn.errors import CairnError

app = typer.Typer(
    name="cairn",
    help="Cairn: a context engine and agent for in-editor coding.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
DEFAULT_SERVE_PORT = 2087

trace_app = typer.Typer(help="Inspect recorded sessions.", no_args_is_help=True)
app.add_typer(trace_app, name="trace")
mcp_app = typer.Typer(help="MCP servers (tool sources).", no_args_is_help=True)
app.add_typer(mcp_app, name="mcp")

WorkspaceOpt = Annotated[
    Path,
    typer.Option("--workspace", "-w", help="Workspace folder.", file_okay=False, resolve_path=True),
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


@trace_app.command("list")
def trace_list(workspace: WorkspaceOpt = Path(".")) -> None:
    """List the sessions of a workspace, newest first."""
    from cairn.commands.trace import list_traces

    list_traces(workspace)


@trace_app.command("show")
def trace_show(
    session_id: Annotated[str, typer.Argument(help="Session id (a unique prefix is enough).")],
    workspace: WorkspaceOpt = Path("."),
) -> None:
    """Show a session's goal tree together with its messages."""
    from cairn.commands.trace import show_trace

    show_trace(workspace, session_id)


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
    file: Annotated[list[Path] | None, typer.Option("--file", "-f", help="A file in play.")] = None,
    message: Annotated[str, typer.Option("--message", "-m", help="The user message.")] = "",
    session: Annotated[str | None, typer.Option("--session", help="Session id.")] = None,
    model: Annotated[str | None, typer.Option("--model", help="Model name.")] = None,
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
    )


@app.command()
def run(
    message: Annotated[str, typer.Argument(help="What to do.")],
    workspace: WorkspaceOpt = Path("."),
    model: Annotated[str | None, typer.Option("--model", help="Model name.")] = None,
    session: Annotated[str | None, typer.Option("--session", help="Continue this session.")] = None,
    mode: Annotated[str, typer.Option("--mode", help="build, plan or review.")] = "build",
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Approve every command.")] = False,
) -> None:
    """Run one headless turn, streaming to the terminal; the trace is saved."""
    from cairn.commands.run import run_turn

    run_turn(
        message=message, workspace=workspace, model=model, session_id=session, mode=mode, yes=yes
    )


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
    tcp: Annotated[bool, typer.Option("--tcp", help="Serve over TCP on 127.0.0.1.")] = False,
    port: Annotated[int, typer.Option("--port", help="TCP port.")] = DEFAULT_SERVE_PORT,
) -> None:
    """Run the language server (stdio by default)."""
    from cairn.commands.serve import serve as _serve

    _serve(tcp=tcp, port=port)


@app.command()
def acp() -> None:
    """Run the Agent Client Protocol agent over stdio (Zed, JetBrains, Neovim, Emacs)."""
    from cairn.commands.acp import acp as _acp

    _acp()


def _fast_serve(args: list[str]) -> bool:
    """`cairn serve [--tcp] [--port N]` without typer's parsing (its pydantic adapters cost
    ~0.1-0.2 s before the editor's `initialize` can be answered). False for anything else
    (e.g. `--help`), which typer then handles."""
    tcp, port, rest = False, DEFAULT_SERVE_PORT, list(args)
    while rest:
        arg = rest.pop(0)
        if arg == "--tcp":
            tcp = True
        elif arg == "--port" and rest and rest[0].isdigit():
            port = int(rest.pop(0))
        elif arg.startswith("--port=") and arg[len("--port=") :].isdigit():
            port = int(arg[len("--port=") :])
        else:
            return False
    from cairn.commands.serve import serve as _serve

    _serve(tcp=tcp, port=port)
    return True


def main(argv: list[str] | None = None) -> None:
    """Console entry point: run the app, turning every error into one line on stderr."""
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["serve"] and _fast_serve(args[1:]):
        return
    if args == ["acp"]:  # as `serve`: no typer parsing before the client's first message
        from cairn.commands.acp import acp as _acp

        _acp()
        return
    command = typer.main.get_command(app)
    try:
        # Without standalone mode, click returns the code of a `typer.Exit` instead of exiting.
        code = command.main(args=argv, prog_name="cairn", standalone_mode=False)
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except NoArgsIsHelpError as exc:
        sys.stderr.write(exc.format_message() + "\n")
        sys.exit(2)
    except ClickException as exc:
        sys.stderr.write(f"error: {exc.format_message()}\n")
        sys.exit(exc.exit_code or 2)
    except typer.Abort:
        sys.stderr.write("error: aborted\n")
        sys.exit(130)
    except KeyboardInterrupt:
        sys.stderr.write("error: interrupted\n")
        sys.exit(130)
    except CairnError as exc:
        sys.stderr.write(f"error: {exc}\n")
        sys.exit(1)
    except OSError as exc:
        sys.stderr.write(
            f"error: {exc.strerror or exc}: {exc.filename or ''}\n".replace(": \n", "\n")
        )
        sys.exit(1)
    except Exception as exc:  # last resort: never a traceback for the user
        sys.stderr.write(f"error: internal error: {type(exc).__name__}: {exc}\n")
        sys.exit(2)
    if isinstance(code, int) and code != 0:
        sys.exit(code)
