"""Selected blocks → the chat messages a model receives (OpenAI format, as litellm takes it).

Layout: ONE system message made of the included system-prompt sections in
`SYSTEM_LAYOUT` order (stable sources first so provider prompt caches hit,
the Current Plan LAST as DESIGN §2.2 asks), then the conversation: the
summary, history messages (user / assistant with `tool_calls` / tool with
`tool_call_id`) and the current user message, in conversation order.
"""

from __future__ import annotations

from cairn.context.blocks import Candidate, ChatMessage

# Order of sections inside the system message; unknown sources go before the plan.
SYSTEM_LAYOUT: tuple[str, ...] = (
    "system",
    "rules",
    "mode",
    "profile",
    "repomap",
    "diagnostics",
    "diff",
    "buffer",
    "reference",
    "tool",
    "summary",
    "history",
    "user",
    "tools",
    "plan",
)
SECTION_SEPARATOR = "\n\n"


def _layout_rank(source: str) -> int:
    if source in SYSTEM_LAYOUT:
        return SYSTEM_LAYOUT.index(source)
    return SYSTEM_LAYOUT.index("plan") - 1


def layout(candidates: list[Candidate]) -> list[Candidate]:
    """System sections by layout rank (then `seq`, then given order), then chat blocks by
    conversation position (`seq`)."""
    sections = [c for c in candidates if c.messages is None]
    chat = [c for c in candidates if c.messages is not None]
    sections.sort(key=lambda c: (_layout_rank(c.block.source), c.seq))
    chat.sort(key=lambda c: c.seq)
    return sections + chat


def to_messages(ordered: list[Candidate]) -> list[ChatMessage]:
    """The chat messages of the included candidates of a `layout`-ordered list."""
    system = SECTION_SEPARATOR.join(
        c.block.text for c in ordered if c.messages is None and c.block.included and c.block.text
    )
    out: list[ChatMessage] = [{"role": "system", "content": system}] if system else []
    for candidate in ordered:
        if candidate.messages is not None and candidate.block.included:
            out.extend(dict(m) for m in candidate.messages)
    return out
