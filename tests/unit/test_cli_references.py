"""`cairn run` / `cairn context` as a user runs them: `--file`, `@` mentions, `--mode`, a
missing workspace, the dry run's plan, and rules versions that match the profile's hashes."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cairn.agent.read_only import ReadOnlyEngine
from cairn.settings import Settings
from cairn.trace import TraceStore
from tests.unit.test_agent_support import reply, write_script

FIXTURE = Path(__file__).resolve().parents[1] / "workspaces" / "context_small"
CLI_TIMEOUT_S = 120


@pytest.fixture
def root(tmp_path: Path) -> Path:
    target = tmp_path / "ws"
    shutil.copytree(FIXTURE, target)
    (target / "cairn.toml").write_text('model = "scripted/script.jsonl"\n', encoding="utf-8")
    return target


def cairn(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cairn", *args],
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=CLI_TIMEOUT_S,
        check=False,
    )


def blocks(stdout: str) -> list[dict[str, object]]:
    return list(json.loads(stdout)["blocks"])


def test_context_on_a_missing_workspace_is_an_error(tmp_path: Path) -> None:
    missing = tmp_path / "no" / "such" / "dir"
    done = cairn(tmp_path, "context", "--workspace", str(missing), "-m", "hi")
    assert done.returncode == 1
    assert done.stderr == f"error: workspace not found: {missing}\n"
    assert done.stdout == ""


def test_context_honours_mentions_files_and_mode(root: Path) -> None:
    done = cairn(
        root,
        *("context", "-w", str(root), "--json", "--mode", "plan"),
        *("--file", "app/util.py", "-m", "why does @app/engine.py fail? ask bob@example.com"),
    )
    assert done.returncode == 0, done.stderr
    found = blocks(done.stdout)
    refs = [(b["ref"], b["included"]) for b in found if b["source"] == "reference"]
    assert refs == [("app/util.py", True), ("app/engine.py", True)]
    assert [b["ref"] for b in found if b["source"] == "mode"] == ["plan"]
    # The plan the first call would get (the message is the new session's mission).
    assert [b["source"] for b in found if b["source"] == "plan"] == ["plan"]


def test_context_reports_a_refused_mention_like_a_refused_file(root: Path) -> None:
    done = cairn(root, "context", "-w", str(root), "--json", "-m", "print @.env for me")
    assert done.returncode == 0, done.stderr
    [env] = [b for b in blocks(done.stdout) if b["source"] == "reference"]
    assert env["ref"] == ".env" and not env["included"] and "secret" in str(env["reason"])


def test_context_rejects_an_unknown_mode(root: Path) -> None:
    done = cairn(root, "context", "-w", str(root), "--mode", "yolo")
    assert done.returncode == 1
    assert "unknown mode 'yolo': use build, plan or review" in done.stderr


def test_run_refuses_a_bad_file_before_calling_any_model(root: Path) -> None:
    model = write_script(root, [reply("should never be said")])
    done = cairn(root, "run", "-w", str(root), "--model", model, "--file", "gone.py", "go")
    assert done.returncode == 1
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert errors == ["error: --file gone.py: not found; nothing was run"], done.stderr
    assert "should never be said" not in done.stdout
    assert TraceStore(root / ".cairn").list() == []


def test_run_references_files_and_mentions(root: Path) -> None:
    model = write_script(root, [reply("Explained.")])
    done = cairn(
        root,
        *("run", "-w", str(root), "--model", model, "--file", "app/util.py"),
        "explain @app/engine.py but not @.env",
    )
    assert done.returncode == 0, done.stderr
    assert "note: @.env is not referenced: .env: " in done.stderr
    [meta] = TraceStore(root / ".cairn").list()
    trace = TraceStore(root / ".cairn").open(meta.id)
    [manifest] = trace.manifests()
    refs = {b.ref: b.included for b in manifest.blocks if b.source == "reference"}
    assert refs == {"app/util.py": True, "app/engine.py": True, ".env": False}


def test_a_rules_block_version_is_the_profiles_hash_of_that_file(root: Path) -> None:
    engine = ReadOnlyEngine([root], Settings.model_validate({"model": "scripted/none.jsonl"}))
    built = engine.next_context("hi")
    profile = engine.parts.profiles.get()
    hashes = {record.path: record.hash for record in profile.rules_files}
    versions = {b.ref: b.version for b in built.manifest.blocks if b.source == "rules"}
    assert versions == {"AGENTS.md": hashes["AGENTS.md"]}
