"""One turn scope: frozen inputs, per-turn state in the scope, one shared settings reference."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from cairn.agent.scope.branch import branch_offer, branch_refusal
from cairn.agent.scope.inputs import TurnInputs
from cairn.agent.scope.offer import make_offer
from cairn.agent.scope.turn_scope import offered_tools
from cairn.agent.tools import READ_ONLY_TOOLS, default_registry
from cairn.mcp.tools import tool_specs
from cairn.models.messages import ToolResultPart
from cairn.settings import Settings
from tests.unit.test_agent_support import call, make_engine, reply
from tests.unit.test_explore import Overlap, branch_script
from tests.unit.test_mcp_parts import catalog_of, stdio, tool


def test_turn_inputs_are_frozen() -> None:
    inputs = TurnInputs(model="m", mode="build", references=("@a.py",))
    with pytest.raises(dataclasses.FrozenInstanceError):
        inputs.user_message = "changed"  # type: ignore[misc]
    assert not any(f.name in ("edited", "tools") for f in dataclasses.fields(TurnInputs))


def test_branch_tools_are_the_modes_read_only_tools_without_explore() -> None:
    registry = default_registry()
    main = offered_tools(registry, "build")
    branch = offered_tools(registry, "build", read_only=True, explore=False)
    assert "explore" in main and "edit_file" in main
    assert branch == tuple(n for n in main if n in READ_ONLY_TOOLS)
    assert offered_tools(registry, "review") == (*READ_ONLY_TOOLS, "goal")


def test_a_branch_is_offered_its_parents_tools_and_runs_only_read_only_ones() -> None:
    specs = tool_specs("gh", [tool("read", read_only=True), tool("write")], stdio())
    settings = Settings.model_validate({"context_window": 100_000})
    parent = make_offer(
        default_registry(), "build", catalog_of(specs), model="scripted/s.jsonl", settings=settings
    )
    branch = branch_offer(parent)
    assert branch.offered() == parent.offered() and branch.schemas() == parent.schemas()
    assert branch_refusal(branch, "mcp__gh__read") is None
    assert all(branch_refusal(branch, name) is None for name in READ_ONLY_TOOLS)
    for name in ("edit_file", "run_command", "goal", "explore", "mcp__gh__write"):
        refused = branch_refusal(branch, name)
        assert refused is not None and "read-only explore branch" in refused
        allowed = refused.partition("Investigate with ")[2]
        assert "read_file" in allowed and "mcp__gh__read" in allowed and name not in allowed
    branch.found.append("x")  # what a branch's search reveals stays in the branch
    assert parent.found == []


async def test_files_a_turn_edits_are_in_play_for_its_next_calls(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "AGENTS.md").write_text("RULE-PKG-5: keep pkg pure.\n")
    (pkg / "app.py").write_text("def add(a, b):\n    return a - b\n")
    engine = make_engine(
        tmp_path,
        [
            reply("", call("edit_file", path="pkg/app.py", old="a - b", new="a + b")),
            reply("Fixed."),
        ],
    )
    try:
        result = await engine.turn("fix add")
        manifests = engine.session(result.session_id).trace.manifests()
        rules = [{b.ref for b in m.blocks if b.source == "rules"} for m in manifests]
        # Not in play before the edit; in play after it, its folder's rules are attached
        # to the history (the preamble stays frozen for the turn).
        assert rules == [set(), {"pkg/AGENTS.md"}]
        assert [b.zone for b in manifests[1].blocks if b.source == "rules"] == ["history"]
        # The model made the edit: the file is not attached back to it.
        assert all(
            b.ref != "pkg/app.py" for m in manifests for b in m.blocks if b.source == "buffer"
        )
        # The edits belonged to that turn's scope: the next build starts with none in play.
        manifest = await engine.context_manifest(message="next")
        assert "pkg/AGENTS.md" not in {
            b.ref for b in manifest.blocks if b.source == "rules" and b.zone == "preamble"
        }
    finally:
        engine.close()


async def test_a_settings_change_is_one_assignment_every_part_sees(tmp_path: Path) -> None:
    engine = make_engine(tmp_path, [])
    try:
        before = await engine.context_stats()
        new = Settings.model_validate(
            {
                **engine.settings.model_dump(),
                "context_window": 50_000,
                "max_output_tokens": 1_234,
                "explore_concurrency": 1,
                "prune_minimum": 7,
                "command_timeout_s": 9.0,
            }
        )
        engine.update_settings(new)
        assert engine.settings is new
        for part in (engine.runtime, engine.compactor):
            assert part.settings is new
        parts = (engine.runner, engine.explorer, engine.compactor, engine.builder, engine.contexts)
        for config in (part.config for part in parts):
            assert config is engine.config
        after = await engine.context_stats()
        assert (before.context_window, after.context_window) == (128_000, 50_000)
        assert after.max_output_tokens == 1_234
    finally:
        engine.close()


async def test_a_settings_change_reaches_the_explorer_of_the_next_turn(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text("def add(a, b):\n    return a - b\n")
    script = branch_script()
    script[1], script[3] = script[3], script[1]
    engine = make_engine(tmp_path, script)  # explore_concurrency 3 by default
    engine.update_settings(engine.settings.model_copy(update={"explore_concurrency": 1}))
    overlap = Overlap(engine, expected=1)
    try:
        result = await engine.turn("why does add fail?")
        assert result.finish_reason == "stop"
        assert overlap.max_in_flight == 1
        assert sorted(overlap.lanes_seen) == ["0", "0", "1", "2", "2"]
        explore = [
            p
            for m in engine.session(result.session_id).messages()
            for p in m.parts
            if isinstance(p, ToolResultPart) and p.name == "explore"
        ]
        assert len(explore) == 1 and explore[0].ok
    finally:
        engine.close()
