"""`cairn context` as a user runs it: a subprocess on a tiny workspace (table, --json, --text)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cairn.models.goals import Goal, GoalTree
from cairn.models.messages import Message, TextPart
from cairn.trace import TraceStore

MAP_CACHE = "cache/repomap/"
FIXTURE = Path(__file__).resolve().parents[1] / "workspaces" / "context_small"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    target = tmp_path / "ws"
    shutil.copytree(FIXTURE, target)
    # The scripted model chosen explicitly (there is no default model; no call is made).
    (target / "cairn.toml").write_text('model = "scripted/script.jsonl"\n', encoding="utf-8")
    return target


def cairn(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cairn", "context", "--workspace", str(root), *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def written(root: Path) -> list[str]:
    """Every file under the workspace's `.cairn/`, relative to it."""
    trace_dir = root / ".cairn"
    return sorted(p.relative_to(trace_dir).as_posix() for p in trace_dir.rglob("*") if p.is_file())


def assert_only_the_map_cache(root: Path) -> None:
    """Under `.cairn/` only the repository map's index (and the store's `.gitignore`)."""
    files = written(root)
    assert any(f.startswith(MAP_CACHE) for f in files), files
    assert [f for f in files if not f.startswith(MAP_CACHE) and f != ".gitignore"] == []


def test_table_lists_blocks_with_tokens_status_and_totals(root: Path) -> None:
    done = cairn(root, "--message", "fix the engine", "--file", str(root / "app" / "engine.py"))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].split() == ["ZONE", "SOURCE", "REF", "TOKENS", "STATUS"]
    rows = {line.split()[1]: line for line in lines[1 : lines.index("")]}
    # --file is a reference (as @app/engine.py in the message would be)
    assert "app/engine.py" in rows["reference"]
    assert rows["reference"].rstrip().endswith("included")
    assert rows["reference"].startswith("history")  # attached once, then read from the cache
    assert "AGENTS.md" in rows["rules"] and rows["rules"].startswith("preamble")
    assert any(line.startswith("by zone: tools ") for line in lines)
    # A new session: nothing to repeat yet.
    assert any(line.startswith("prompt cache: 0 of ") for line in lines)
    assert any(line.startswith("model scripted/") and " input tokens " in line for line in lines)
    assert any(line.startswith("context window 128000 = input ") for line in lines)
    assert_only_the_map_cache(root)  # a dry run writes no trace, artifact or profile


def test_json_is_the_manifest_wire_shape(root: Path) -> None:
    done = cairn(root, "--message", "hello", "--json")
    assert done.returncode == 0, done.stderr
    manifest = json.loads(done.stdout)
    blocks = manifest["blocks"]
    tools = [b for b in blocks if b["zone"] == "tools"]
    assert tools and all(b["source"] == "tools" for b in tools)  # one per schema, sent first
    assert blocks[: len(tools)] == tools
    rest = blocks[len(tools) :]
    assert manifest["usedInput"] == sum(b["tokens"] for b in rest if b["included"])
    assert manifest["usedInput"] <= manifest["availableInput"]
    # The user's message, then the plan the first call gets (the message is its mission).
    assert rest[0]["source"] == "system" and rest[-1]["source"] == "plan"
    assert "user" in {b["source"] for b in rest}
    # The call's stats ride along (how it was counted, by source), and one line per extra.
    stats = manifest["stats"]
    assert stats["usedInput"] == manifest["usedInput"]
    assert stats["tokens"]["tokenizer"] == "o200k_base" and stats["tokens"]["factor"] == 1.0
    extras = {e["source"]: e["tokens"] for e in manifest["extras"]}
    assert extras["plan"] == sum(b["tokens"] for b in rest if b["source"] == "plan")
    assert manifest["cacheBreak"] is None and set(manifest["cache"]["zoneHashes"]) >= {
        "tools",
        "system",
        "history",
    }


def test_text_prints_the_exact_messages(root: Path) -> None:
    done = cairn(root, "--message", "hello there", "--text")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("──────── system ────────\nYou are Cairn")
    user = done.stdout.index("──────── user ────────\nhello there")
    assert "Current Plan" in done.stdout[user:] and "hello there" in done.stdout[user:]


def test_session_history_and_plan_are_used(root: Path) -> None:
    store = TraceStore(root / ".cairn")
    trace = store.create(title="t")
    trace.append_message(Message(id="m1", role="user", parts=[TextPart(text="first ask")]))
    trace.append_message(Message(id="m2", role="assistant", parts=[TextPart(text="first answer")]))
    trace.save_goals(GoalTree(mission="ship it", goals=[Goal(id="1", description="step one")]))
    session = trace.id
    trace.close()
    done = cairn(root, "--session", session, "--message", "next", "--text")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "Mission: ship it" in out
    assert (
        out.index("first ask")
        < out.index("first answer")
        < out.index("──────── user ────────\nnext")
    )


def test_unknown_session_is_one_line_error(root: Path) -> None:
    done = cairn(root, "--session", "nope")
    assert done.returncode == 1
    assert done.stderr.startswith("error: unknown session") and "Traceback" not in done.stderr


def test_json_and_text_together_are_refused(root: Path) -> None:
    done = cairn(root, "--json", "--text")
    assert done.returncode == 1
    assert "cannot be used together" in done.stderr
