"""A cloned repository's git config never runs a program through Cairn (issue 26, item 2).

The repository brings a `.cairn/snapshots/` store whose `config` names an
fsmonitor and a clean filter, and its `.git/config` (as an unpacked archive
would have it) names an fsmonitor, a clean filter, a textconv driver and a
hook path; every one would write a marker file. `cairn run` and `cairn
context` must leave no marker, and the snapshots go to a fresh store.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from cairn.files.git import git_command
from cairn.trace.snapshots import STORE_MARKER, Snapshots
from tests.unit.test_agent_support import reply, write_script

CLI_TIMEOUT_S = 240
HOOK_NAMES = ("store-fsmonitor", "store-filter", "repo-fsmonitor", "repo-filter", "repo-textconv")


def _git(cwd: Path, *args: str) -> None:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
    subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True)


def _hook(folder: Path, name: str, markers: Path) -> str:
    """An executable that leaves `markers/name` and passes its stdin through."""
    script = folder / f"{name}.sh"
    script.write_text(f"#!/bin/sh\ntouch '{markers / name}'\ncat\n", encoding="utf-8")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return str(script)


def _hostile_clone(tmp_path: Path) -> tuple[Path, Path]:
    """(the clone, the marker folder) of a repository that commits a hostile snapshot store."""
    markers = tmp_path / "markers"
    markers.mkdir()
    tools = tmp_path / "tools"
    tools.mkdir()
    origin = tmp_path / "origin"
    origin.mkdir()
    _git(origin, "init", "--quiet")
    (origin / "app.py").write_text("print('hello')\n", encoding="utf-8")
    (origin / ".gitattributes").write_text("*.py filter=evil diff=evil\n", encoding="utf-8")
    store = origin / ".cairn" / "snapshots"
    _git(tmp_path, "init", "--quiet", "--bare", str(store))
    with (store / "config").open("a", encoding="utf-8") as config:
        config.write(f"[core]\n\tfsmonitor = {_hook(tools, 'store-fsmonitor', markers)}\n")
        config.write(f'[filter "evil"]\n\tclean = {_hook(tools, "store-filter", markers)}\n')
    _git(origin, "add", "--force", ".")
    _git(origin, "-c", "user.name=a", "-c", "user.email=a@b", "commit", "--quiet", "-m", "x")
    clone = tmp_path / "clone"
    _git(tmp_path, "clone", "--quiet", str(origin), str(clone))
    with (clone / ".git" / "config").open("a", encoding="utf-8") as config:
        config.write(f"[core]\n\tfsmonitor = {_hook(tools, 'repo-fsmonitor', markers)}\n")
        config.write(f"\thooksPath = {tools}\n")
        config.write(f'[filter "evil"]\n\tclean = {_hook(tools, "repo-filter", markers)}\n')
        config.write(f'[diff "evil"]\n\ttextconv = {_hook(tools, "repo-textconv", markers)}\n')
    (clone / "app.py").write_text("print('changed')\n", encoding="utf-8")  # a diff to show
    return clone, markers


def _cairn(root: Path, state: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cairn", *args],
        cwd=root,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=CLI_TIMEOUT_S,
        env={**os.environ, "XDG_STATE_HOME": str(state)},
        check=False,
    )


def test_hooks_fire_under_plain_git(tmp_path: Path) -> None:
    """The fixture is hostile: plain `git diff` in the clone runs the repository's programs."""
    clone, markers = _hostile_clone(tmp_path)
    subprocess.run(["git", "diff", "HEAD"], cwd=clone, capture_output=True, check=False)
    assert {"repo-fsmonitor", "repo-filter"} <= {p.name for p in markers.iterdir()}


def test_cairn_run_and_context_run_no_program_the_repository_names(tmp_path: Path) -> None:
    clone, markers = _hostile_clone(tmp_path)
    state = tmp_path / "state"
    model = write_script(clone, [reply("hello"), reply("hello again")])
    done = _cairn(clone, state, "run", "-w", str(clone), "--model", model, "hello")
    assert done.returncode == 0, done.stderr
    assert "not used: snapshots go to" in done.stderr  # told once
    context = _cairn(clone, state, "context", "-w", str(clone), "--model", model)
    assert context.returncode == 0, context.stderr
    assert sorted(p.name for p in markers.iterdir()) == []
    again = _cairn(clone, state, "run", "-w", str(clone), "--model", model, "hello")
    assert "not used" not in again.stderr  # only once
    assert sorted(p.name for p in markers.iterdir()) == []
    stores = list((state / "cairn" / "snapshots").iterdir())
    assert len(stores) == 1 and (stores[0] / STORE_MARKER).is_file()


def test_a_store_cairn_made_is_kept_and_a_forged_marker_is_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    work = tmp_path / "work"
    work.mkdir()
    (work / "a.txt").write_text("a\n", encoding="utf-8")
    store = tmp_path / "store"
    first = Snapshots(store, work, list)
    first.take()
    assert first.git_dir == store / "snapshots"
    assert Snapshots(store, work, list).git_dir == store / "snapshots"
    (store / "snapshots" / STORE_MARKER).write_text("0" * 64, encoding="utf-8")
    assert Snapshots(store, work, list).git_dir != store / "snapshots"


def test_every_call_overrides_what_executes(tmp_path: Path) -> None:
    clone, _ = _hostile_clone(tmp_path)
    command, env = git_command(("-C", str(clone)), ["status"])
    assert env["GIT_CONFIG_NOSYSTEM"] == "1"
    assert env.get("GIT_CONFIG_GLOBAL") == os.environ.get("GIT_CONFIG_GLOBAL")  # the user's
    for override in ("core.fsmonitor=false", "core.hooksPath=/dev/null", "protocol.allow=never"):
        assert override in command
    assert "filter.evil.clean=" in command and "diff.evil.textconv=" in command
    _, own = git_command(("--git-dir=x",), ["status"], own_store=True)
    assert own["GIT_CONFIG_GLOBAL"] == os.devnull
