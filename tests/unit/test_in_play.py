"""What is in play: the active file, the turn's references, edits, reads, searches and
listings (their rules apply from the next call), and other open tabs, small and last."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from cairn.agent.engine import Engine
from cairn.agent.read_only import ReadOnlyEngine
from cairn.context.priorities import PRIORITY_BUFFER, PRIORITY_LOW_RELEVANCE
from cairn.context.sources import buffers
from cairn.models.manifest import Manifest
from cairn.settings import Settings
from tests.unit.test_agent_support import call, make_engine, reply
from tests.unit.test_compaction_summary import QUIET

MODEL = "scripted/none.jsonl"  # a dry run calls no model
TAB_BODY = "\n".join(
    f"def handler_{n}(request, response):\n"
    + "".join(f"    value_{k} = request.get({n} + {k})\n" for k in range(10))
    + f"    response.write(str(value_0) * {n})\n    return response\n"
    for n in range(30)
)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "AGENTS.md").write_text("# Root rules\n")
    for pkg in ("pkg_a", "pkg_b", "pkg_c", "pkg_d"):
        (tmp_path / pkg).mkdir()
        (tmp_path / pkg / "AGENTS.md").write_text(f"# Rules of {pkg}\nUse {pkg} style.\n")
        (tmp_path / pkg / "x.py").write_text(f"NAME = '{pkg}'\n")
    (tmp_path / "tabs").mkdir()
    return tmp_path


def rules_of(manifest: Manifest) -> list[str]:
    return [b.ref or "" for b in manifest.blocks if b.source == "rules" and b.included]


async def manifests_of(engine: Engine, message: str) -> list[Manifest]:
    try:
        result = await engine.turn(message)
        return engine.store.open(result.session_id).manifests()
    finally:
        engine.close()


async def test_rules_of_a_folder_apply_from_the_call_after_the_first_read(root: Path) -> None:
    engine = make_engine(
        root,
        [
            reply("", call("read_file", path="pkg_b/x.py")),
            reply("", call("grep", pattern="NAME", path="pkg_c")),
            reply("", call("list_dir", path="pkg_d")),
            reply("Done."),
        ],
    )
    first, after_read, after_grep, after_list = await manifests_of(engine, "look around")
    assert rules_of(first) == ["AGENTS.md"]
    assert "pkg_b/AGENTS.md" in rules_of(after_read)
    assert "pkg_c/AGENTS.md" in rules_of(after_grep)
    assert "pkg_d/AGENTS.md" in rules_of(after_list)
    assert "pkg_a/AGENTS.md" not in rules_of(after_list)
    # A read file is in play for its rules, not shown again as a buffer (its text is in history).
    assert [b.ref for b in after_list.blocks if b.source == "buffer"] == []


def open_tabs(engine: Engine | ReadOnlyEngine, root: Path, count: int) -> list[Path]:
    paths = []
    for n in range(count):
        path = root / "tabs" / f"tab_{n:02}.py"
        path.write_text(TAB_BODY)
        engine.workspace.open_buffer(path, TAB_BODY)
        paths.append(path)
    return paths


def buffer_blocks(manifest: Manifest) -> list[tuple[str, int, bool]]:
    return [(b.ref or "", b.priority, b.included) for b in manifest.blocks if b.source == "buffer"]


def dry_run(root: Path, **settings: object) -> ReadOnlyEngine:
    return ReadOnlyEngine([root], Settings.model_validate({"model": MODEL, **settings}))


def test_the_active_buffer_is_in_play_and_other_tabs_are_capped_outlines(root: Path) -> None:
    engine = dry_run(root, open_tabs_max=3)
    tabs = open_tabs(engine, root, 10)
    engine.workspace.change_buffer(tabs[4], [], 2)  # the user types in tab 4: now active
    built = engine.next_context("what is this?")
    blocks = {b.ref: b for b in built.blocks if b.source == "buffer"}
    assert list(blocks) == ["tabs/tab_04.py", "tabs/tab_09.py", "tabs/tab_08.py", "tabs/tab_07.py"]
    active = blocks["tabs/tab_04.py"]
    assert active.priority == PRIORITY_BUFFER and "return response" in active.text
    for ref in ("tabs/tab_09.py", "tabs/tab_08.py", "tabs/tab_07.py"):
        tab = blocks[ref]
        assert tab.priority == PRIORITY_LOW_RELEVANCE < active.priority
        assert "def handler_3(request, response)" in tab.text  # the outline ...
        assert "return response" not in tab.text  # ... not the body
        assert tab.tokens < active.tokens / 3


@pytest.mark.parametrize(
    ("settings", "expected"),
    [
        ({"open_tabs": "off"}, ["tabs/tab_02.py"]),
        ({"active_buffers": 0, "open_tabs_max": 1}, ["tabs/tab_02.py"]),
        ({"active_buffers": 2, "open_tabs": "whole", "open_tabs_max": 1}, None),
    ],
)
def test_open_tabs_are_configurable(
    root: Path, settings: dict[str, object], expected: list[str] | None
) -> None:
    engine = dry_run(root, **settings)
    open_tabs(engine, root, 3)
    blocks = [b for b in engine.next_context("hi").blocks if b.source == "buffer"]
    if expected is not None:
        assert [b.ref for b in blocks] == expected
        return
    assert [(b.ref, b.priority) for b in blocks] == [
        ("tabs/tab_02.py", PRIORITY_BUFFER),
        ("tabs/tab_01.py", PRIORITY_BUFFER),
        ("tabs/tab_00.py", PRIORITY_LOW_RELEVANCE),
    ]
    assert all("return response" in b.text for b in blocks)  # whole text


async def test_with_60_open_tabs_the_turns_own_reads_are_never_dropped(root: Path) -> None:
    big = "\n".join(f"FACT_{n} = 'planted value {n} ' * 40" for n in range(120))
    (root / "pkg_a" / "facts.py").write_text(big)
    script = [reply("", call("read_file", path="pkg_a/facts.py"))] * 3 + [reply("Read.")]
    engine = make_engine(
        root, script, context_window=24_000, max_output_tokens=1_000, safety_margin=500
    )
    open_tabs(engine, root, 60)
    manifests = await manifests_of(engine, "read the facts")
    for manifest in manifests[1:]:
        history = [b for b in manifest.blocks if b.source == "history"]
        # Whole: neither dropped nor shrunk to an excerpt to make room for tabs.
        assert history and all(b.included and b.reason is None for b in history), [
            (b.ref, b.tokens, b.reason) for b in history
        ]
        assert manifest.used_input <= manifest.available_input
        tabs = [b for b in manifest.blocks if b.source == "buffer" and b.priority < PRIORITY_BUFFER]
        assert len(tabs) <= 8


async def test_tab_outlines_are_parsed_once_per_content(root: Path) -> None:
    engine = make_engine(root, [reply("ok")])
    try:
        open_tabs(engine, root, 4)
        await engine.context_manifest(message="one")
        remembered = len(buffers._outlines)
        key = next(reversed(buffers._outlines))
        await engine.context_manifest(message="two")
        assert len(buffers._outlines) == remembered
        assert next(reversed(buffers._outlines)) == key
    finally:
        engine.close()


# A closing reply long enough that a forced summary covers everything before it too.
LONG_REPLY = " ".join(f"note{i}" for i in range(1200))


async def test_rules_of_files_edited_in_a_turn_hold_at_the_next_turns_first_call(
    root: Path,
) -> None:
    """Issue 29 item 3: a follow-up turn ("also add a test") edits the same folder again
    before reading anything there. Its first call has the folder's rules, in the manifest
    and in what the model receives, though the turn that edited there was summarised; they
    leave play once no message that touched the folder is shown or of the last turn."""
    sent: list[str] = []
    engine = make_engine(
        root,
        [
            reply("", call("goal", add="Rename NAME")),
            reply("", call("goal", focus="1")),
            reply("", call("edit_file", path="pkg_b/x.py", old="NAME =", new="TITLE =")),
            reply("", call("goal", done="renamed")),
            reply(LONG_REPLY),
            {"agent": "compaction", "text": '{"objective": "rename NAME"}'},
            reply("", call("edit_file", path="pkg_b/x.py", old="TITLE =", new="LABEL =")),
            reply("Renamed again."),
            reply(LONG_REPLY),
            {"agent": "compaction", "text": '{"objective": "rename NAME"}'},
            reply("Fine."),
        ],
        **QUIET,
        summary_keep_recent=0.05,
    )
    inner = engine.runtime.complete

    async def complete(model: str, messages: Any, tools: Any, **kw: Any) -> Any:
        if kw.get("agent") != "compaction":
            sent.append("\n".join(str(m.get("content") or "") for m in messages))
        return await inner(model, messages, tools, **kw)

    engine.runtime.complete = complete  # type: ignore[method-assign]
    try:
        first = await engine.turn("rename NAME in pkg_b")
        sid = first.session_id
        assert (await engine.compact(sid)).kind == "summary"
        await engine.turn("also rename it in the tests", session_id=sid)
        follow_up = engine.store.open(sid).manifests()[5]  # nothing read or edited in it yet
        assert "pkg_b/AGENTS.md" in rules_of(follow_up)
        assert "Use pkg_b style." in sent[5]
        await engine.turn("anything else?", session_id=sid)
        assert (await engine.compact(sid)).kind == "summary"
        await engine.turn("and now?", session_id=sid)
        last = engine.store.open(sid).manifests()[-1]
        assert "pkg_b/AGENTS.md" not in rules_of(last)
        [gone] = [b for b in last.blocks if b.source == "rules" and not b.included]
        assert gone.ref == "pkg_b/AGENTS.md" and gone.tokens == 0
        assert gone.reason == "out of play: the messages that touched pkg_b/x.py were summarised"
        assert "Use pkg_b style." not in sent[-1]
    finally:
        engine.close()
