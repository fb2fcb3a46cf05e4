"""Driving the context-quality session through the engine and recording what the model received.

`run_session` builds the workspace (`workspace`) in a temporary
folder, writes the scripted model's replies (`script`) to a file
outside it, and runs every user turn through `Engine.turn` on one session.
Every request the scripted provider receives is recorded as it arrives
(`Recorded`: its lane, messages and tools, and how many session messages
existed at that moment), by wrapping
`scripted_stream` as the model runtime calls it: these are exactly the
messages the model received, after every fold, prune, summary and selection. The session's
messages, manifests and compaction markers are read back from its trace.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cairn.llm.runtime as runtime_module
from bench.quality.script import Session
from bench.quality.workspace import ALLOWED_COMMANDS, make_workspace
from cairn.agent.engine import Engine
from cairn.llm import reset_scripts
from cairn.llm.script import MAIN_LANE
from cairn.models.manifest import Manifest
from cairn.models.messages import CompactionPart, Message
from cairn.settings import Settings


class SetupError(Exception):
    """The bench could not run its session (a broken workspace, script or engine)."""


@dataclass(frozen=True)
class Recorded:
    """One request as the scripted model received it."""

    lane: str
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]]
    session_messages: int


@dataclass
class SessionRun:
    """Everything the session left: requests, messages, manifests, markers, settings."""

    settings: Settings
    requests: list[Recorded] = field(default_factory=list)
    messages: list[Message] = field(default_factory=list)
    manifests: list[Manifest] = field(default_factory=list)
    markers: list[CompactionPart] = field(default_factory=list)
    finish_reasons: list[str] = field(default_factory=list)

    @property
    def main(self) -> list[Recorded]:
        return [r for r in self.requests if r.lane == MAIN_LANE]

    def marker_counts(self) -> dict[str, int]:
        counts: dict[str, int] = {"summary": 0, "prune": 0, "goal": 0}
        for part in self.markers:
            counts[part.kind] = counts.get(part.kind, 0) + 1
        return counts


def record_requests(sink: Callable[[str, list[Any], list[Any]], None]) -> Callable[[], None]:
    """Wrap the runtime's scripted stream so `sink(lane, messages, tools)` sees each request;
    returns the undo."""
    inner = runtime_module.scripted_stream

    async def recording(
        model: str,
        messages: Sequence[Mapping[str, Any]],
        tools: Sequence[Mapping[str, Any]],
        lane: Sequence[str],
    ) -> AsyncIterator[dict[str, Any]]:
        sent = json.loads(json.dumps(list(messages), default=str))
        sink(lane[0] if lane else MAIN_LANE, sent, list(tools))
        async for chunk in inner(model, messages, tools, lane):
            yield chunk

    runtime_module.scripted_stream = recording
    return lambda: setattr(runtime_module, "scripted_stream", inner)


async def run_session(session: Session, settings: dict[str, Any]) -> SessionRun:
    """Run every turn of `session` under `settings`; raise `SetupError` if a turn fails."""
    with tempfile.TemporaryDirectory(prefix="cairn-quality-") as tmp:
        folder = Path(tmp) / "recs"
        folder.mkdir()
        make_workspace(folder, session.project)
        script = Path(tmp) / "script.jsonl"
        script.write_text("".join(json.dumps(line) + "\n" for line in session.lines))
        options = {"model": f"scripted/{script}", "allowed_commands": ALLOWED_COMMANDS, **settings}
        engine = Engine([folder], Settings.model_validate(options))
        run = SessionRun(engine.settings)
        sid = engine.new_session()

        def sink(lane: str, messages: list[Any], tools: list[Any]) -> None:
            count = len(engine.session(sid).messages())
            run.requests.append(Recorded(lane, messages, tools, count))

        reset_scripts()
        undo = record_requests(sink)
        try:
            for message in session.users:
                result = await engine.turn(message, session_id=sid)
                run.finish_reasons.append(result.finish_reason)
                if result.finish_reason != "stop":
                    raise SetupError(
                        f"turn {message!r} ended {result.finish_reason}: {result.error}"
                    )
            trace = engine.session(sid)
            run.messages = list(trace.messages())
            run.manifests = list(trace.trace.manifests())
            run.markers = [
                p for m in run.messages for p in m.parts if isinstance(p, CompactionPart)
            ]
        finally:
            undo()
            engine.close()
        return run
