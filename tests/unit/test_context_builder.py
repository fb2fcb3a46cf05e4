"""ContextBuilder end to end on a small real workspace: zones, budget, sources, manifest."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from cairn.context.blocks import MESSAGE_OVERHEAD_TOKENS, message_text
from cairn.context.builder import BuiltContext, ContextBuilder, GatherRequest
from cairn.context.priorities import PRIORITY_BUFFER, PRIORITY_LOW_RELEVANCE
from cairn.context.sources.mode import MODE_TOOLS
from cairn.context.tool_schemas import lines_of
from cairn.context.zones import ZONES
from cairn.errors import BudgetError, CairnError, InvalidRequestError
from cairn.files.workspace import Workspace
from cairn.goals import render_plan
from cairn.models.diagnostics import Diagnostic, Position, Range
from cairn.models.goals import Goal, GoalTree
from cairn.models.manifest import ContextBlock, Zone
from cairn.models.messages import Message, TextPart
from cairn.models.profile import ProjectProfile
from cairn.settings import DEFAULT_OPEN_TABS_MAX as MAX_OTHER_BUFFERS
from cairn.settings import Settings
from cairn.tokens.counter import count_tokens

FIXTURE = Path(__file__).resolve().parents[1] / "workspaces" / "context_small"
MODEL = "scripted/script.jsonl"
PLAN = GoalTree(
    mission="make the engine safe",
    current_id="1",
    goals=[Goal(id="1", description="read the engine", status="in_progress")],
)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    target = tmp_path / "ws"
    shutil.copytree(FIXTURE, target)
    return target


def builder(root: Path, **settings: object) -> ContextBuilder:
    return ContextBuilder(Workspace([root]), Settings.model_validate(settings))


def request(**fields: object) -> GatherRequest:
    base: dict[str, object] = {"session_id": "s1", "model": MODEL}
    base.update({k: tuple(v) if isinstance(v, list) else v for k, v in fields.items()})
    return GatherRequest(**base)  # type: ignore[arg-type]


def system_text(messages: list[dict]) -> str:
    assert messages[0]["role"] == "system"
    return messages[0]["content"]


def zone_text(built: BuiltContext, zone: Zone) -> str:
    """Everything the messages of one zone say."""
    assert built.layout is not None
    return "\n".join(str(built.messages[i]["content"]) for i in built.layout.zones.get(zone, ()))


def all_text(built: BuiltContext) -> str:
    return "\n".join(str(m.get("content") or "") for m in built.messages)


def test_zones_system_preamble_history_then_the_tail_with_the_plan_last(root: Path) -> None:
    history = [Message(id="u1", role="user", parts=[TextPart(text="make it safe")])]
    built = builder(root).build(
        request(
            goals=PLAN,
            history=history,
            user_message="make it safe",
            user_message_id="u1",
            mode="plan",
        )
    )
    assert [m["role"] for m in built.messages] == ["system", "system", "user", "user"]
    system = system_text(built.messages)
    assert system.startswith("You are Cairn")
    assert "Plan mode" in system and ", ".join(MODE_TOOLS["plan"]) in system
    preamble = zone_text(built, "preamble")
    assert "## Project rules: AGENTS.md" in preamble and "Keep functions small." in preamble
    assert built.messages[2] == {"role": "user", "content": "make it safe"}
    tail = zone_text(built, "tail")
    assert tail.startswith("[Harness context") and tail.endswith(render_plan(PLAN))
    zones = [b.zone for b in built.manifest.blocks]
    assert zones == sorted(zones, key=ZONES.index)
    assert built.breakpoints == (0, 1, 2)


def test_used_input_is_the_sum_of_included_blocks(root: Path) -> None:
    built = builder(root).build(
        request(user_message="look", files_in_play=[root / "app" / "util.py"], goals=PLAN)
    )
    manifest = built.manifest
    assert manifest.used_input == sum(
        b.tokens for b in manifest.blocks if b.included and b.zone != "tools"
    )
    assert built.stats.used_input == manifest.used_input
    assert sum(v for k, v in built.stats.by_source.items() if k != "tools") == manifest.used_input
    wire = manifest.wire()
    assert set(wire) == {
        "sessionId",
        "callId",
        "turnId",
        "model",
        "availableInput",
        "usedInput",
        "blocks",
        "retryOf",
        "retryReason",
        "cacheBreak",
        "cache",
        "usage",
        "at",
        "extras",
        "stats",
    }
    assert set(wire["blocks"][0]) == {
        "source",
        "priority",
        "tokens",
        "version",
        "included",
        "reason",
        "ref",
        "zone",
    }
    assert set(wire["cache"]) == {"predictedCached", "zoneHashes", "breakpoints"}


def test_tool_schema_tokens_are_counted_and_leave_the_input_budget(root: Path) -> None:
    schemas = [
        {
            "type": "function",
            "function": {
                "name": "read_file",
                "description": "Read a file.",
                "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
            },
        }
    ]
    b = builder(root, context_window=50_000, max_output_tokens=1_000, safety_margin=500)
    built = b.build(request(user_message="hi", tools=lines_of(schemas)))
    expected = sum(count_tokens(json.dumps(s), MODEL) for s in schemas)
    assert built.stats.tool_schema_tokens == expected
    assert built.stats.by_source["tools"] == expected
    assert built.manifest.available_input == 50_000 - 1_000 - 500 - expected
    # Each schema is a manifest line of its own, outside usedInput.
    lines = [b for b in built.manifest.blocks if b.source == "tools"]
    assert [(b.ref, b.tokens, b.included) for b in lines] == [("read_file", expected, True)]
    content = sum(b.tokens for b in built.manifest.blocks if b.included and b.source != "tools")
    assert built.manifest.used_input == content


def test_a_small_budget_is_never_exceeded_and_large_files_become_outlines(root: Path) -> None:
    stored: list[tuple[str, str]] = []

    def store(text: str, kind: str) -> str:
        stored.append((text, kind))
        return f"artifact-{len(stored)}"

    engine = root / "app" / "engine.py"
    b = builder(root, context_window=4_000, max_output_tokens=500, safety_margin=100)
    built = b.build(request(user_message="fix engine", files_in_play=[engine]), store)
    assert built.manifest.used_input <= built.manifest.available_input
    buffer = next(b for b in built.blocks if b.source == "buffer")
    assert buffer.included and buffer.artifact_id == "artifact-1"
    assert stored == [(engine.read_text(), "text")]
    assert buffer.reason is not None and "outline" in buffer.reason
    attached = zone_text(built, "history")
    assert "class Engine:" in attached and "artifact-1" in attached
    assert "return clamp(total, 0, self.limit)" not in attached


def test_required_blocks_over_the_budget_raise(root: Path) -> None:
    b = builder(root, context_window=3_000, max_output_tokens=500, safety_margin=100)
    with pytest.raises(BudgetError, match="never dropped"):
        b.build(request(user_message="word " * 5_000))


def test_unknown_model_needs_a_configured_window(root: Path) -> None:
    with pytest.raises(BudgetError, match="unknown context window for model 'acme/x'"):
        builder(root).build(request(model="acme/x", user_message="hi"))


def test_references_are_framed_and_refusals_leak_nothing(root: Path) -> None:
    built = builder(root).build(
        request(user_message="see @app/util.py", references=["app/util.py", ".env"])
    )
    attached = zone_text(built, "history")
    assert "## Referenced: app/util.py" in attached and "def clamp" in attached
    assert [p.path for p in built.attachments] == ["app/util.py"]
    refused = next(b for b in built.blocks if b.source == "reference" and not b.included)
    assert refused.reason is not None and "secret" in refused.reason
    assert "not-a-real-secret" not in json.dumps(built.messages)


def test_editor_text_wins_over_the_disk(root: Path) -> None:
    util = root / "app" / "util.py"
    workspace = Workspace([root])
    workspace.open_buffer(util, "def clamp():\n    return 'unsaved edit'\n")
    b = ContextBuilder(workspace, Settings())
    attached = zone_text(b.build(request(user_message="x", files_in_play=[util])), "history")
    assert "unsaved edit" in attached and "(editor buffer)" in attached


def diagnostic(line: int, message: str, severity: int) -> Diagnostic:
    point = Position(line=line, character=0)
    return Diagnostic(range=Range(start=point, end=point), message=message, severity=severity)  # type: ignore[arg-type]


def test_diagnostics_most_severe_and_nearest_first(root: Path) -> None:
    workspace = Workspace([root])
    engine, util, init = (root / "app" / n for n in ("engine.py", "util.py", "__init__.py"))
    workspace.set_diagnostics(util, [diagnostic(3, "unused import", 2)])
    workspace.set_diagnostics(engine, [diagnostic(9, "hint here", 4), diagnostic(4, "bad type", 1)])
    workspace.set_diagnostics(init, [diagnostic(0, "also an error", 1)])
    built = ContextBuilder(workspace, Settings()).build(
        request(user_message="x", files_in_play=[engine])
    )
    refs = [b.ref for b in built.blocks if b.source == "diagnostics"]
    assert refs == ["app/engine.py", "app/__init__.py", "app/util.py"]
    tail = zone_text(built, "tail")
    assert tail.index("app/engine.py:5:1: error: bad type") < tail.index("app/engine.py:10:1: hint")


def git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.email=t@example.com", "-c", "user.name=t", *args],
        cwd=root,
        check=True,
        capture_output=True,
    )


def test_uncommitted_changes_appear_as_a_diff_per_file_secrets_never(root: Path) -> None:
    git(root, "init", "-q")
    git(root, "add", "app", "AGENTS.md", ".env")
    git(root, "commit", "-q", "-m", "init")
    util = root / "app" / "util.py"
    util.write_text(util.read_text() + "\n\nCHANGED = True\n")
    (root / ".env").write_text("API_KEY=rotated-secret-value\n")
    built = builder(root).build(request(user_message="x"))
    diffs = [b for b in built.blocks if b.source == "diff"]
    assert [b.ref for b in diffs] == ["app/util.py"]
    assert "+CHANGED = True" in diffs[0].text
    assert "rotated-secret-value" not in json.dumps(built.messages)
    # The blob-hash line changes with every edit and tells the model nothing.
    assert "diff --git a/app/util.py b/app/util.py\n--- a/app/util.py" in diffs[0].text
    assert "\nindex " not in diffs[0].text


def test_no_diff_outside_git(root: Path) -> None:
    built = builder(root).build(request(user_message="x"))
    assert not [b for b in built.blocks if b.source == "diff"]


class FakeMap:
    def __init__(self) -> None:
        self.calls: list[tuple[list[Path], set[str], int]] = []

    def render(
        self,
        files_in_play: list[Path],
        mentioned: set[str],
        max_tokens: int,
        count: Callable[[str], int],
    ) -> str:
        self.calls.append((files_in_play, mentioned, max_tokens))
        return "app/engine.py:\n  class Engine"

    def mapped_files(self) -> frozenset[str]:
        return frozenset({"app/engine.py", "app/util.py"})


def test_profile_and_repomap_sections(root: Path) -> None:
    repomap = FakeMap()
    profile = ProjectProfile(languages=["python"], test_suites={"pytest": "python -m pytest"})
    b = ContextBuilder(
        Workspace([root]), Settings(), profile_provider=lambda: profile, repomap=repomap
    )
    built = b.build(
        request(user_message="where is Engine used", files_in_play=[root / "app" / "util.py"])
    )
    preamble = zone_text(built, "preamble")
    assert "## Repository map" in preamble and "class Engine" in preamble
    assert "Languages: python" in preamble and "`python -m pytest`" in preamble
    files, mentioned, max_tokens = repomap.calls[0]
    assert files == [root / "app" / "util.py"]
    assert "Engine" in mentioned and 0 < max_tokens < built.manifest.available_input


def test_a_failing_collaborator_becomes_an_excluded_block(root: Path) -> None:
    def broken() -> ProjectProfile:
        raise CairnError("profile.json is corrupt")

    b = ContextBuilder(Workspace([root]), Settings(), profile_provider=broken)
    built = b.build(request(user_message="x"))
    block = next(b for b in built.blocks if b.source == "profile")
    assert not block.included and block.reason == "unavailable: profile.json is corrupt"


def test_extra_blocks_are_kept_in_the_tail(root: Path) -> None:
    extra = ContextBlock(
        source="diagnostics", priority=90, text="## Fix this diagnostic\nboom", required=True
    )
    built = builder(root).build(request(user_message="fix", extra_blocks=[extra]))
    assert "## Fix this diagnostic\nboom" in zone_text(built, "tail")
    assert next(b for b in built.blocks if b.source == "diagnostics").tokens > 0


def test_a_dry_run_without_message_has_only_the_system_and_preamble(root: Path) -> None:
    built = builder(root).build(request())
    assert [m["role"] for m in built.messages] == ["system", "system"]
    assert built.layout is not None and set(built.layout.zones) == {"system", "preamble", "history"}


def test_the_rendered_messages_fit_what_the_manifest_accounts_for(root: Path) -> None:
    history = [
        Message(id="u1", role="user", parts=[TextPart(text="look at util")]),
        Message(id="a1", role="assistant", parts=[TextPart(text="I will read it.")]),
    ]
    built = builder(root).build(
        request(
            goals=PLAN,
            history=history,
            user_message="look at util",
            user_message_id="u1",
            files_in_play=[root / "app" / "util.py"],
            references=["app/__init__.py"],
        )
    )
    real = sum(
        count_tokens(message_text(m), MODEL) + MESSAGE_OVERHEAD_TOKENS for m in built.messages
    )
    assert real <= built.manifest.used_input


RULES_FIXTURE = FIXTURE.parent / "rules_nested"


def test_rules_are_shown_nearest_last_but_the_nearest_are_kept_first() -> None:
    deep = RULES_FIXTURE / "pkg" / "sub" / "deep.py"
    ask = request(user_message="edit deep", files_in_play=[deep])
    full = builder(RULES_FIXTURE).build(ask)
    rules = [b for b in full.blocks if b.source == "rules"]
    assert [b.ref for b in rules] == ["AGENTS.md", "pkg/AGENTS.md", "pkg/sub/AGENTS.md"]
    preamble = zone_text(full, "preamble")
    assert preamble.index("## Project rules: AGENTS.md") < preamble.index("RULE-SUB-03")

    tokens = {b.ref: b.tokens for b in full.blocks}
    required = sum(b.tokens for b in full.blocks if b.source in ("system", "user"))
    room = required + tokens["pkg/AGENTS.md"] + tokens["pkg/sub/AGENTS.md"]
    tight = builder(
        RULES_FIXTURE, context_window=room + 600, max_output_tokens=500, safety_margin=100
    )
    built = tight.build(ask)
    kept = {b.ref: b.included for b in built.blocks if b.source == "rules"}
    assert kept == {"AGENTS.md": False, "pkg/AGENTS.md": True, "pkg/sub/AGENTS.md": True}


def test_a_folder_inside_a_larger_repository_sees_only_its_own_changes(root: Path) -> None:
    git(root, "init", "-q")
    git(root, "add", "app", "AGENTS.md")
    git(root, "commit", "-q", "-m", "init")
    (root / "AGENTS.md").write_text("# changed outside the workspace folder\n")
    util = root / "app" / "util.py"
    util.write_text(util.read_text() + "\nINSIDE = 1\n")
    built = builder(root / "app").build(request(user_message="x"))
    assert [b.ref for b in built.blocks if b.source == "diff"] == ["util.py"]


def test_other_open_buffers_are_low_relevance_and_only_the_newest_few(root: Path) -> None:
    workspace = Workspace([root])
    names = [f"tab{i}.py" for i in range(MAX_OTHER_BUFFERS + 2)]
    for name in names:
        workspace.open_buffer(root / name, f"# {name}\n")
    util = root / "app" / "util.py"
    built = ContextBuilder(workspace, Settings()).build(
        request(user_message="x", files_in_play=[util])
    )
    buffers = [(b.ref, b.priority) for b in built.blocks if b.source == "buffer"]
    newest = list(reversed(names))[:MAX_OTHER_BUFFERS]
    assert buffers == [("app/util.py", PRIORITY_BUFFER)] + [
        (name, PRIORITY_LOW_RELEVANCE) for name in newest
    ]


def test_an_unknown_mode_is_a_clear_error(root: Path) -> None:
    with pytest.raises(InvalidRequestError, match="unknown mode 'yolo'"):
        builder(root).build(request(user_message="x", mode="yolo"))
