"""The Landlock sandbox (issue 26 item 4): where bwrap is missing (no bwrap on PATH here),
a kernel with Landlock ABI 4+ still keeps a command's writes in the workspace, its secrets
unreadable and its TCP off. Skipped, with the reason, where the kernel has no Landlock.

Commands name their programs by absolute path: PATH holds no bwrap, so it holds nothing.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from cairn.agent.tools import ToolContext
from cairn.sandbox.choice import choose_sandbox, probe_landlock
from cairn.sandbox.landlock import readable_roots
from tests.unit import test_sandbox as base

# The bubblewrap tests' fixtures and helpers, shared.
ctx, root, outside, fake_home, listener = (
    base.ctx, base.root, base.outside, base.fake_home, base.listener,
)  # fmt: skip
run, _connect_command = base.run, base._connect_command

LANDLOCK_PROBLEM = probe_landlock()
needs_landlock = pytest.mark.skipif(
    LANDLOCK_PROBLEM is not None, reason=f"no Landlock sandbox here: {LANDLOCK_PROBLEM}"
)


@pytest.fixture(autouse=True)
def no_bwrap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    empty = tmp_path / "empty-path"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))


@needs_landlock
def test_without_bwrap_auto_chooses_landlock_and_says_why() -> None:
    use = choose_sandbox("auto", False)
    assert (use.kind, use.why_not) == ("landlock", "bwrap was not found on PATH")
    assert use.describe() == "sandboxed (landlock, no network)"
    assert use.refusal is None


@needs_landlock
async def test_landlock_writes_only_the_workspace_and_its_temporary_folder(
    ctx: ToolContext, root: Path, outside: Path
) -> None:
    command = (
        f"/bin/echo made > made.txt; /usr/bin/touch {outside}/x /tmp/cairn-landlock-x;"
        " /usr/bin/touch $TMPDIR/mine && /bin/echo tmpdir-ok"
    )
    outcome = await run(ctx, command)
    assert outcome.data["sandbox"] == "landlock"
    assert (root / "made.txt").read_text() == "made\n"
    assert not (outside / "x").exists() and not Path("/tmp/cairn-landlock-x").exists()
    assert "tmpdir-ok" in outcome.output


@needs_landlock
async def test_landlock_hides_the_users_secrets(ctx: ToolContext, fake_home: Path) -> None:
    outcome = await run(ctx, "/bin/cat ~/.ssh/id_rsa ~/deploy.pem ~/.netrc ~/notes.txt")
    assert outcome.data["sandbox"] == "landlock"
    assert "planted" not in outcome.output
    assert "readable notes" in outcome.output


@needs_landlock
async def test_landlock_has_no_tcp_by_default_and_tcp_when_allowed(
    ctx: ToolContext, listener: int
) -> None:
    command = _connect_command(listener)
    closed = await run(ctx, command)
    assert closed.data["sandbox"] == "landlock"
    assert closed.data["exit_code"] != 0 and "up 42" not in closed.output
    opened = await run(ctx, command, sandbox_network=True)
    assert opened.data["exit_code"] == 0 and "up 42" in opened.output


def test_the_readable_roots_leave_out_only_the_hidden_paths(tmp_path: Path) -> None:
    (tmp_path / "home" / ".ssh").mkdir(parents=True)
    (tmp_path / "home" / "code").mkdir()
    (tmp_path / "home" / "key.pem").write_text("x")
    hidden = [tmp_path / "home" / ".ssh", tmp_path / "home" / "key.pem"]
    readable, listable = readable_roots(hidden)
    assert str(tmp_path / "home" / "code") in readable
    assert not any(r.startswith(str(tmp_path / "home" / ".ssh")) for r in readable)
    assert str(tmp_path / "home" / "key.pem") not in readable
    assert str(tmp_path / "home") in listable and "/" in listable
    assert "/usr" in readable
