"""For any mix of buffers, references, history and extras, the latest tool result is never
dropped while a lower-priority source is included, and the budget always holds."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cairn.context.builder import ContextBuilder, GatherRequest
from cairn.context.priorities import PRIORITY_LOW_RELEVANCE
from cairn.files.workspace import Workspace
from cairn.models.manifest import ContextBlock
from cairn.models.messages import Message, TextPart, ToolCallPart, ToolResultPart
from cairn.settings import Settings

MODEL = "scripted/none.jsonl"
LATEST_CALL = "latest"
CURRENT = "and now?"
WORD = "lorem ipsum dolor sit amet "


def code(lines: int, name: str) -> str:
    return "".join(f"def {name}_{n}(x):\n    return x + {n}\n" for n in range(lines))


@dataclass(frozen=True)
class Mix:
    window: int
    active: int
    tabs: list[int]
    references: list[int]
    turns: list[list[int]]
    extras: list[tuple[int, int]]


mixes = st.builds(
    Mix,
    window=st.integers(min_value=6_000, max_value=40_000),
    active=st.integers(min_value=0, max_value=2),
    tabs=st.lists(st.integers(min_value=1, max_value=200), max_size=30),
    references=st.lists(st.integers(min_value=1, max_value=400), max_size=3),
    # Each turn: the output sizes (in words) of its tool calls. The last turn is the current
    # one, and its last call is the latest tool result.
    turns=st.lists(
        st.lists(st.integers(min_value=1, max_value=3_000), max_size=4), min_size=1, max_size=4
    ).filter(lambda turns: bool(turns[-1])),
    extras=st.lists(
        st.tuples(
            st.integers(min_value=1, max_value=99), st.integers(min_value=1, max_value=2_000)
        ),
        max_size=4,
    ),
)


def history(turns: list[list[int]]) -> list[Message]:
    messages: list[Message] = []
    calls = [(t, c) for t, sizes in enumerate(turns) for c in range(len(sizes))]
    last = calls[-1]
    for t, sizes in enumerate(turns):
        text = CURRENT if t == len(turns) - 1 else f"ask {t}"
        messages.append(Message(id=f"u{t}", role="user", parts=[TextPart(text=text)]))
        for c, size in enumerate(sizes):
            call_id = LATEST_CALL if (t, c) == last else f"c{t}-{c}"
            messages.append(
                Message(
                    id=call_id,
                    role="assistant",
                    parts=[
                        ToolCallPart(call_id=call_id, name="read_file", arguments={"path": "x"})
                    ],
                )
            )
            part = ToolResultPart(call_id=call_id, name="read_file", output=WORD * size, ok=True)
            messages.append(Message(id=f"r-{call_id}", role="tool", parts=[part]))
    return messages


def build(root: Path, mix: Mix) -> list[ContextBlock]:
    workspace = Workspace([root])
    for n, lines in enumerate(mix.tabs):
        workspace.open_buffer(root / f"tab{n}.py", code(lines, f"tab{n}"))
    refs = []
    for n, lines in enumerate(mix.references):
        (root / f"ref{n}.py").write_text(code(lines, f"ref{n}"))
        refs.append(f"ref{n}.py")
    options = {"context_window": mix.window, "max_output_tokens": 1_000, "safety_margin": 200}
    options["active_buffers"] = mix.active
    builder = ContextBuilder(workspace, Settings.model_validate(options))
    active = list(reversed(list(workspace.open_paths())))[: mix.active]
    extras = [
        ContextBlock(
            source="diagnostics",
            priority=priority,
            text=WORD * size,
            tokens=0,
            ref=f"extra{n}",
        )
        for n, (priority, size) in enumerate(mix.extras)
    ]
    request = GatherRequest(
        session_id="s",
        model=MODEL,
        history=tuple(history(mix.turns)),
        user_message=CURRENT,
        user_message_id=f"u{len(mix.turns) - 1}",
        references=tuple(refs),
        files_in_play=tuple(active),
        extra_blocks=tuple(extras),
    )
    return builder.build(request).blocks


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mix=mixes)
def test_the_latest_tool_result_is_never_dropped_for_something_less_important(mix: Mix) -> None:
    with tempfile.TemporaryDirectory() as folder:
        blocks = build(Path(folder), mix)
    [latest] = [b for b in blocks if b.source == "history" and b.ref == LATEST_CALL]
    included = [b for b in blocks if b.included and not b.required]
    if not latest.included:
        lower = [(b.source, b.ref, b.priority) for b in included if b.priority < latest.priority]
        assert lower == [], f"dropped {latest.reason!r} while showing {lower}"
    # Other open tabs never outrank the turn's own history.
    assert latest.priority > PRIORITY_LOW_RELEVANCE
    tabs = [b for b in blocks if b.source == "buffer" and b.priority == PRIORITY_LOW_RELEVANCE]
    assert all(t.priority < latest.priority for t in tabs)
