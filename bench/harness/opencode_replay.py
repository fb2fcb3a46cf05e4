"""What a peer would have sent: a replay of a recorded Cairn session, and OpenCode's policy.

The replay (`replay`) takes the conversation Cairn recorded (user messages,
the model's replies with their tool calls, the tool results; none of
Cairn's own records: folds, prunes, summaries, attachments) and, at each
point where Cairn made a main model call (`CallPoint`), builds the request
the peer would make with the same system text and tools. The loop is the
same for every peer; its `Policy` says what it prunes, what its compaction
call holds and how a summary heads the history after one:
- the context is the whole history since the last compaction;
- when a user turn has finished (at the first call of the next one) the
  policy may prune the messages of the finished turns since the last
  compaction; a pruned output is sent as `PRUNED_OUTPUT`;
- compaction at overflow: when a request would not fit in `limit` (the
  window less the output reserve), the policy's compaction call is sent
  first, and the next requests are the system text, the policy's summary
  head and the messages after. The summary text is the one Cairn's session
  produced at the same rank (the caller's `summaries`), so both sides pay
  for the same summary. (OpenCode checks the previous reply's reported
  usage; the replay checks the request it is about to send, which never
  lets it overflow.)
The caller measures: `size` (a request's messages and tools → tokens) for
the overflow check and the recorded sizes, `count` (a text → tokens) for
the prune walk. OpenCode estimates chars / 4; the benches count with
Cairn's counter, so both sides are measured by one tokenizer.

OpenCode's policy (`OpenCode`; sst/opencode,
`packages/opencode/src/session/compaction.ts` and `message-v2.ts`):
- `prune` walks back from the newest message of the finished turn, skipping
  the last two user turns (`PRUNE_SKIP_TURNS`), stopping at the last
  summary or at an output already pruned, and adds up tool outputs. (The
  replay walks only the messages since the summary; OpenCode walks on past
  a summary inside the skipped turns, but what it clears there is behind
  the summary and never sent.) Those beyond the newest `protect` tokens
  are marked, and they are cleared only if together they exceed
  `minimum`. OpenCode's `PRUNE_PROTECT` / `PRUNE_MINIMUM` (40,000 /
  20,000) are fixed; `scaled_thresholds` scales them from a 200k window
  (`REFERENCE_WINDOW`) for a bench that compares at a smaller one;
- the compaction call is its own system prompt, the history and an
  instruction, without tools; after it the history is headed by the
  summary exchange ("What did we do so far?" and the summary as the
  assistant's reply) and a "continue" user message.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from cairn.models.messages import Message, TextPart, ToolCallPart, ToolResultPart

Chat = dict[str, Any]
Count = Callable[[str], int]
Size = Callable[[list[Chat], list[Chat]], int]
Kind = Literal["main", "compaction"]

PRUNE_PROTECT = 40_000
PRUNE_MINIMUM = 20_000
PRUNE_SKIP_TURNS = 2
REFERENCE_WINDOW = 200_000
PRUNED_OUTPUT = "[Old tool result content cleared]"
COMPACTION_SYSTEM = (
    "You are a helpful AI assistant tasked with summarizing conversations. When asked to"
    " summarize, provide a detailed but concise summary of the conversation. Focus on"
    " information that would be helpful for continuing the conversation, including: what was"
    " done, what is currently being worked on, which files are being modified, what needs to"
    " be done next, key user requests, constraints, or preferences that should persist."
)
COMPACTION_PROMPT = (
    "Provide a detailed prompt for continuing our conversation above. Focus on information that"
    " would be helpful for continuing the conversation, including what we did, what we're"
    " doing, which files we're working on, and what we're going to do next considering new"
    " session will not have access to our conversation."
)
SUMMARY_QUESTION = "What did we do so far?"
CONTINUE_MESSAGE = "Continue if you have next steps"


def scaled_thresholds(window: int) -> tuple[int, int]:
    """OpenCode's (protect, minimum) scaled from its 200k reference window to `window`."""
    scale = window / REFERENCE_WINDOW
    return round(PRUNE_PROTECT * scale), round(PRUNE_MINIMUM * scale)


def is_turn_start(message: Message) -> bool:
    """A user turn starts at a user message with text (Cairn records its own as system)."""
    return message.role == "user" and bool(message.text())


def conversation(messages: Sequence[Message], pruned: set[str]) -> list[Chat]:
    """Chat messages of the recorded conversation; outputs in `pruned` cleared."""
    results = {p.call_id: p for m in messages for p in m.parts if isinstance(p, ToolResultPart)}
    out: list[Chat] = []
    for message in messages:
        text = "".join(p.text for p in message.parts if isinstance(p, TextPart))
        if message.role == "user" and text:
            out.append({"role": "user", "content": text})
        if message.role != "assistant":
            continue
        calls = [p for p in message.parts if isinstance(p, ToolCallPart)]
        if not calls and not text:
            continue
        head: Chat = {"role": "assistant", "content": text or None}
        if calls:
            head["tool_calls"] = [
                {
                    "id": c.call_id,
                    "type": "function",
                    "function": {"name": c.name, "arguments": json.dumps(c.arguments)},
                }
                for c in calls
            ]
        out.append(head)
        for c in calls:
            result = results.get(c.call_id)
            if result is None:
                continue
            content = PRUNED_OUTPUT if c.call_id in pruned else result.output
            out.append({"role": "tool", "tool_call_id": c.call_id, "content": content})
    return out


def prune(
    messages: Sequence[Message], pruned: set[str], protect: int, minimum: int, count: Count
) -> set[str]:
    """OpenCode's `prune` over `messages` (finished turns since the last summary): the new set."""
    turns = 0
    total = 0
    freed = 0
    marked: list[str] = []
    for message in reversed(messages):
        if message.role == "user":
            turns += 1
        if turns < PRUNE_SKIP_TURNS:
            continue
        for part in reversed(message.parts):
            if not isinstance(part, ToolResultPart):
                continue
            if part.call_id in pruned:
                return pruned | set(marked) if freed > minimum else pruned
            tokens = count(part.output)
            total += tokens
            if total > protect:
                freed += tokens
                marked.append(part.call_id)
    return pruned | set(marked) if freed > minimum else pruned


class Policy(Protocol):
    """What a peer does to its history (see the module docstring)."""

    def prune(self, finished: Sequence[Message], pruned: set[str]) -> set[str]:
        """The pruned call ids after a turn; `finished`: its messages since the last summary."""
        ...

    def compaction(
        self, system: list[Chat], history: list[Chat], tools: list[Chat]
    ) -> tuple[list[Chat], list[Chat]]:
        """The compaction call's (messages, tools) for a context of `system` + `history`."""
        ...

    def summary_head(self, summary: str) -> list[Chat]:
        """The messages that stand for the compacted history."""
        ...


@dataclass(frozen=True)
class OpenCode:
    """OpenCode's policy with prune thresholds `protect` / `minimum` and outputs `count`ed."""

    count: Count
    protect: int = PRUNE_PROTECT
    minimum: int = PRUNE_MINIMUM

    def prune(self, finished: Sequence[Message], pruned: set[str]) -> set[str]:
        return prune(finished, pruned, self.protect, self.minimum, self.count)

    def compaction(
        self, system: list[Chat], history: list[Chat], tools: list[Chat]
    ) -> tuple[list[Chat], list[Chat]]:
        del system, tools  # its own system prompt, no tools
        request = [{"role": "system", "content": COMPACTION_SYSTEM}, *history]
        return [*request, {"role": "user", "content": COMPACTION_PROMPT}], []

    def summary_head(self, summary: str) -> list[Chat]:
        return [
            {"role": "user", "content": SUMMARY_QUESTION},
            {"role": "assistant", "content": summary},
            {"role": "user", "content": CONTINUE_MESSAGE},
        ]


@dataclass(frozen=True)
class CallPoint:
    """One main call of the recorded session: how many recorded messages existed, and when."""

    messages: int
    at: float = 0.0


@dataclass(frozen=True)
class Sent:
    """One request of the replay, with its `size` as the caller's `size` measured it."""

    messages: list[Chat]
    tools: list[Chat]
    kind: Kind
    at: float
    size: int


@dataclass
class Replayed:
    """Every request of one replay, in order, and how many prunes cleared something."""

    limit: int
    sent: list[Sent] = field(default_factory=list[Sent])
    prunes: int = 0

    def sizes(self, kind: Kind) -> list[int]:
        return [s.size for s in self.sent if s.kind == kind]

    @property
    def main_tokens(self) -> list[int]:
        return self.sizes("main")

    @property
    def compaction_tokens(self) -> list[int]:
        return self.sizes("compaction")

    @property
    def total(self) -> int:
        return sum(s.size for s in self.sent)

    @property
    def over_budget(self) -> int:
        """Main requests over the limit (the replay compacts first, so 0 unless one cannot fit)."""
        return sum(size > self.limit for size in self.main_tokens)


@dataclass(frozen=True)
class Peer:
    """A peer as the replay sees it: its policy, system text, tools, limit and summaries."""

    policy: Policy
    system: list[Chat]
    tools: list[Chat]
    limit: int
    summaries: list[str]
    size: Size

    def summary(self, rank: int) -> str:
        """Cairn's summary of the same rank (its last one past the end)."""
        return self.summaries[min(rank, len(self.summaries) - 1)] if self.summaries else ""


def replay(peer: Peer, messages: Sequence[Message], calls: Sequence[CallPoint]) -> Replayed:
    """The requests `peer` would have sent at `calls` over `messages` (the module docstring)."""
    out = Replayed(peer.limit)
    pruned: set[str] = set()
    since = 0  # the first recorded message after the last compaction
    head: list[Chat] = []
    turns = 0
    compactions = 0
    for point in calls:
        seen = messages[: point.messages]
        starts = [i for i, m in enumerate(seen) if is_turn_start(m)]
        if len(starts) > turns and turns:
            before = len(pruned)
            pruned = peer.policy.prune(seen[since : starts[-1]], pruned)
            out.prunes += len(pruned) > before
        turns = len(starts)
        history = [*head, *conversation(seen[since:], pruned)]
        context = [*peer.system, *history]
        used = peer.size(context, peer.tools)
        if used > peer.limit:
            request, tools = peer.policy.compaction(peer.system, history, peer.tools)
            out.sent.append(Sent(request, tools, "compaction", point.at, peer.size(request, tools)))
            head = peer.policy.summary_head(peer.summary(compactions))
            compactions += 1
            since = point.messages
            context = [*peer.system, *head]
            used = peer.size(context, peer.tools)
        out.sent.append(Sent(context, peer.tools, "main", point.at, used))
    return out
