"""The prompt-cache state of a session across calls and turns (scripted model, real traces).

Attachments are shown once and recorded; a buffer the user edits mid-turn
shows up in the tail as a diff; a mode switch and a cold cache are recorded
breaks; a session resumed by a new engine predicts its cached prefix from
the last manifest in its trace.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cairn.agent.engine import Engine
from cairn.agent.scope.inputs import TurnInputs
from cairn.llm import ModelReply
from cairn.models.messages import FilePart
from tests.unit.test_agent_support import call, make_engine, reply

NOTES = "".join(f"note {i}: the parser keeps state between calls\n" for i in range(40))
APP = "def run():\n    return 1\n" + "".join(
    f"\n\ndef helper_{i}():\n    return {i}\n" for i in range(20)
)
EDITED = APP.replace("    return 1\n", "    return 2  # USER-EDIT\n", 1)


def project(root: Path) -> None:
    (root / "notes.md").write_text(NOTES)
    (root / "app.py").write_text(APP)


def attachments(engine: Engine, session_id: str) -> list[FilePart]:
    return [
        p
        for m in engine.session(session_id).messages()
        if m.role == "system"
        for p in m.parts
        if isinstance(p, FilePart) and p.text is not None
    ]


class Sent:
    """Keeps the messages of every main-agent call."""

    def __init__(self, engine: Engine) -> None:
        self.calls: list[list[dict[str, Any]]] = []
        self._inner = engine.runtime.complete
        engine.runtime.complete = self.complete  # type: ignore[method-assign]

    async def complete(self, model: str, messages: Any, tools: Any, **kw: Any) -> ModelReply:
        if kw.get("agent") is None:
            self.calls.append([dict(m) for m in messages])
        return await self._inner(model, messages, tools, **kw)


async def test_a_reference_is_attached_once_and_read_from_the_history(tmp_path: Path) -> None:
    project(tmp_path)
    engine = make_engine(tmp_path, [reply("", call("list_dir")), reply("Done."), reply("Again.")])
    sent = Sent(engine)
    try:
        first = await engine.turn("Summarise @notes.md", references=["notes.md"])
        [part] = attachments(engine, first.session_id)
        assert part.path == "notes.md" and part.source == "reference" and part.text == NOTES
        # Both calls of the turn show it once, at the same place, before the tail.
        for messages in sent.calls:
            shown = [m for m in messages if "## Referenced: notes.md" in str(m.get("content"))]
            assert len(shown) == 1 and shown[0]["role"] == "user"
            assert messages.index(shown[0]) < len(messages) - 1
        assert sent.calls[1][: len(sent.calls[0]) - 1] == sent.calls[0][:-1]
        # An unchanged reference in the next turn is not attached again.
        await engine.turn(
            "And again @notes.md", session_id=first.session_id, references=["notes.md"]
        )
        assert len(attachments(engine, first.session_id)) == 1
    finally:
        engine.close()


async def test_a_buffer_edited_mid_turn_is_a_diff_in_the_tail(tmp_path: Path) -> None:
    project(tmp_path)
    app = tmp_path / "app.py"
    engine = make_engine(tmp_path, [reply("", call("list_dir")), reply("Done."), reply("Seen.")])
    engine.workspace.open_buffer(app, APP)
    sent = Sent(engine)
    inner = engine.runtime.complete

    async def edit_after_first(model: str, messages: Any, tools: Any, **kw: Any) -> ModelReply:
        answer = await inner(model, messages, tools, **kw)
        if len(sent.calls) == 1:  # the user types in the editor while the agent works
            engine.workspace.open_buffer(app, EDITED, version=2)
        return answer

    engine.runtime.complete = edit_after_first  # type: ignore[method-assign]
    try:
        first = await engine.turn("Look at the app")
        [part] = attachments(engine, first.session_id)
        assert part.source == "buffer" and part.origin == "editor buffer"
        tail = str(sent.calls[1][-1]["content"])
        assert "## Changed since it was attached: app.py" in tail
        assert "+    return 2  # USER-EDIT" in tail and "-    return 1" in tail
        assert sent.calls[1][: len(sent.calls[0]) - 1] == sent.calls[0][:-1]
        # The next turn attaches the new text whole, and the tail has no diff any more.
        await engine.turn("Again", session_id=first.session_id)
        latest = attachments(engine, first.session_id)[-1]
        assert latest.text is not None and "USER-EDIT" in latest.text
        assert "Changed since" not in str(sent.calls[2][-1]["content"])
    finally:
        engine.close()


async def test_a_mode_switch_and_a_cold_cache_are_recorded_breaks(tmp_path: Path) -> None:
    project(tmp_path)
    engine = make_engine(tmp_path, [reply("one"), reply("two"), reply("three")])
    try:
        first = await engine.turn("hello")
        sid = first.session_id
        await engine.turn("plan it", session_id=sid, mode="plan")
        engine.update_settings(engine.settings.model_copy(update={"cache_lifetime_s": 1e-6}))
        await engine.turn("and now", session_id=sid, mode="plan")
        manifests = engine.session(sid).trace.manifests()
        assert manifests[0].cache_break is None
        assert manifests[1].cache_break is not None and "mode switch" in manifests[1].cache_break
        assert manifests[2].cache_break is not None
        assert manifests[2].cache_break.startswith("cold cache (idle ")
        assert manifests[2].cache.predicted_cached == 0
    finally:
        engine.close()


async def test_a_resumed_session_predicts_its_prefix_from_the_trace(tmp_path: Path) -> None:
    project(tmp_path)
    engine = make_engine(tmp_path, [reply("", call("list_dir")), reply("Listed."), reply("Yes.")])
    first = await engine.turn("List the folder")
    sid = first.session_id
    engine.close()
    again = Engine([tmp_path], engine.settings)
    try:
        inputs = TurnInputs(model=str(again.settings.model), mode="build", user_message="next")
        built = again.contexts.build(again.scope(again.session(sid), inputs))
        last = again.session(sid).trace.manifests()[-1]
        # The same system, preamble and history as the last call: read from the cache.
        shared = sum(b.tokens for b in last.blocks if b.included and b.zone != "tail")
        assert built.manifest.cache.predicted_cached == shared
        assert built.manifest.cache_break is None
    finally:
        again.close()
