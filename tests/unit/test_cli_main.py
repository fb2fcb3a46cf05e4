"""The console entry point: exit codes and one-line errors, never a traceback."""

import subprocess
import sys
from collections.abc import Callable

import pytest
import typer

from cairn import cli
from cairn.errors import CairnError


def _app_with(command: Callable[[], None]) -> typer.Typer:
    app = typer.Typer()
    app.command("one")(command)
    app.command("two")(lambda: None)
    return app


def test_exit_code_of_a_command_reaches_the_process(monkeypatch: pytest.MonkeyPatch) -> None:
    def fails() -> None:
        raise typer.Exit(3)

    monkeypatch.setattr(cli, "app", _app_with(fails))
    with pytest.raises(SystemExit) as exited:
        cli.main(["one"])
    assert exited.value.code == 3


def test_cairn_error_is_one_line_on_stderr(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def fails() -> None:
        raise CairnError("something named went wrong")

    monkeypatch.setattr(cli, "app", _app_with(fails))
    with pytest.raises(SystemExit) as exited:
        cli.main(["one"])
    assert exited.value.code == 1
    assert capsys.readouterr().err == "error: something named went wrong\n"


def test_unknown_command_and_version_through_the_real_entry_point() -> None:
    bad = subprocess.run(
        [sys.executable, "-m", "cairn", "no-such-command"], capture_output=True, text=True
    )
    assert bad.returncode == 2
    assert bad.stderr.strip() == "error: No such command 'no-such-command'."
    version = subprocess.run(
        [sys.executable, "-m", "cairn", "--version"], capture_output=True, text=True
    )
    assert version.returncode == 0
    assert version.stdout.startswith("cairn ")
