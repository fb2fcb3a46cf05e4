"""The cache bench's accounting, and the peers' replays of the same session.

`account` prices a list of requests under both providers' caches
(`tests.fakes.prompt_cache`): Anthropic's breakpoint cache (a read costs
0.1x, a write 1.25x) with each request's `cache_control` breakpoints, and
OpenAI's automatic prefix cache (a cached token costs 0.1x). It also
measures the share of every request that is an unchanged prefix of the
request just before it.

The peers replay the conversation Cairn recorded (user messages, the
model's replies and tool results; none of Cairn's markers, notes or
attachments) call by call, with the same system text and tools:
- `opencode`: OpenCode's policy — the whole history, tool outputs pruned at
  the end of a user turn once more than `OPENCODE_PRUNE_MINIMUM` tokens of
  output lie beyond the newest `OPENCODE_PRUNE_PROTECT` (outside the last
  two turns), a compaction call (its own system prompt, the history, an
  instruction) when a request would overflow the window, Anthropic
  breakpoints on its first two system messages and its last two messages;
- `append-only`: the whole history, no fold, no prune, compaction only at
  overflow with a call that repeats the prefix, Cairn's breakpoints (end of
  system, end of preamble, the summary, the last message).
After a compaction the peers continue from a summary message of the same
size as Cairn's summary at that point.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from tests.fakes.prompt_cache import (
    AnthropicCache,
    OpenAICache,
    PromptBlock,
    common_prefix_chars,
)

from cairn.context.sources.summary import SUMMARY_TITLE
from cairn.models.messages import Message, TextPart, ToolCallPart, ToolResultPart

Count = Callable[[str], int]
ANTHROPIC_READ, ANTHROPIC_WRITE = 0.1, 1.25
OPENAI_READ = 0.1
OPENCODE_PRUNE_MINIMUM = 20_000
OPENCODE_PRUNE_PROTECT = 40_000
OPENCODE_PRUNE_SKIP_TURNS = 2
OPENCODE_PRUNED = "[Old tool result content cleared]"
OPENCODE_COMPACTION_SYSTEM = (
    "You are a helpful AI assistant tasked with summarizing conversations. Provide a detailed"
    " but concise summary of the conversation, focusing on what was done, what is being worked"
    " on, which files are being modified and what needs to be done next."
)
OPENCODE_COMPACTION_PROMPT = (
    "Provide a detailed prompt for continuing our conversation above. Focus on information"
    " that would be helpful for continuing the conversation."
)
APPEND_ONLY_INSTRUCTION = "Summarise the conversation above as JSON so the work can continue."
TAIL_PREFIX = "[Harness context"


@dataclass(frozen=True)
class Request:
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]]
    breakpoints: tuple[int, ...]
    at: float
    kind: Literal["main", "compaction"] = "main"


@dataclass(frozen=True)
class Row:
    kind: str
    total: int
    prefix_of_previous: int
    openai_cached: int
    anthropic_read: int
    anthropic_write: int

    @property
    def anthropic_cost(self) -> float:
        uncached = self.total - self.anthropic_read - self.anthropic_write
        return (
            uncached + ANTHROPIC_READ * self.anthropic_read + ANTHROPIC_WRITE * self.anthropic_write
        )

    @property
    def openai_cost(self) -> float:
        return self.total - self.openai_cached + OPENAI_READ * self.openai_cached


def cairn_breakpoints(messages: Sequence[dict[str, Any]]) -> tuple[int, ...]:
    """Where Cairn's layout puts breakpoints, read back from a request's messages."""
    marks = [i for i in (0, 1) if i < len(messages) and messages[i].get("role") == "system"]
    marks += [
        i for i, m in enumerate(messages) if str(m.get("content", "")).startswith(SUMMARY_TITLE)
    ]
    last = len(messages) - 1
    if last >= 0 and str(messages[last].get("content", "")).startswith(TAIL_PREFIX):
        last -= 1
    if last >= 0 and messages[last].get("role") != "system":
        marks.append(last)
    return tuple(sorted(set(marks)))[-4:]


def units(request: Request) -> list[str]:
    tools = json.dumps(request.tools, sort_keys=True, ensure_ascii=False)
    return [tools, *(json.dumps(m, sort_keys=True, ensure_ascii=False) for m in request.messages)]


def _message_blocks(message: dict[str, Any]) -> list[str]:
    pieces: list[Any] = []
    if message.get("content"):
        pieces.append({"role": message["role"], "content": message["content"]})
    pieces += [{"tool_call": c} for c in message.get("tool_calls") or []]
    return [json.dumps(p, sort_keys=True, ensure_ascii=False) for p in pieces] or ["{}"]


def blocks(request: Request, count: Count) -> list[PromptBlock]:
    out = [PromptBlock(json.dumps(t, sort_keys=True), count(json.dumps(t))) for t in request.tools]
    marked = set(request.breakpoints)
    for index, message in enumerate(request.messages):
        keys = _message_blocks(message)
        for position, key in enumerate(keys):
            last = position == len(keys) - 1
            out.append(PromptBlock(key, count(key), last and index in marked))
    return out


def account(requests: Sequence[Request], count: Count) -> list[Row]:
    anthropic = AnthropicCache()
    openai = OpenAICache(count=count)
    rows: list[Row] = []
    previous: list[str] | None = None
    for request in requests:
        prompt = units(request)
        text = "".join(prompt)
        shared = common_prefix_chars(prompt, previous) if previous is not None else 0
        use = anthropic.account(blocks(request, count), request.at)
        cached = openai.account(prompt)
        rows.append(
            Row(
                kind=request.kind,
                total=cached.total,
                prefix_of_previous=count(text[:shared]) if shared else 0,
                openai_cached=cached.read,
                anthropic_read=use.read,
                anthropic_write=use.written,
            )
        )
        previous = prompt
    return rows


# -- the peers ----------------------------------------------------------------------


@dataclass(frozen=True)
class CallPoint:
    """One main call of the recorded session: how many messages existed, and when."""

    messages: int
    at: float


def conversation(messages: Sequence[Message], pruned: set[str]) -> list[dict[str, Any]]:
    """The recorded conversation as chat messages, without Cairn's records of its own."""
    out: list[dict[str, Any]] = []
    results = {p.call_id: p for m in messages for p in m.parts if isinstance(p, ToolResultPart)}
    for message in messages:
        text = "".join(p.text for p in message.parts if isinstance(p, TextPart))
        if message.role == "user":
            out.append({"role": "user", "content": text})
        elif message.role == "assistant":
            calls = [p for p in message.parts if isinstance(p, ToolCallPart)]
            if not calls and not text:
                continue
            head: dict[str, Any] = {"role": "assistant", "content": text or None}
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
                output = "" if result is None else result.output
                content = OPENCODE_PRUNED if c.call_id in pruned else output
                out.append({"role": "tool", "tool_call_id": c.call_id, "content": content})
    return out


def opencode_prune(messages: Sequence[Message], pruned: set[str], count: Count) -> set[str]:
    """OpenCode's `prune`: outputs beyond the newest 40k (outside the last two turns), if >20k."""
    turns = 0
    total = 0
    candidates: list[tuple[str, int]] = []
    for message in reversed(messages):
        if message.role == "user" and any(isinstance(p, TextPart) for p in message.parts):
            turns += 1
        if turns < OPENCODE_PRUNE_SKIP_TURNS:
            continue
        for part in reversed(message.parts):
            if not isinstance(part, ToolResultPart):
                continue
            if part.call_id in pruned:
                return _apply(pruned, candidates)
            tokens = count(part.output)
            total += tokens
            if total > OPENCODE_PRUNE_PROTECT:
                candidates.append((part.call_id, tokens))
    return _apply(pruned, candidates)


def _apply(pruned: set[str], candidates: list[tuple[str, int]]) -> set[str]:
    if sum(t for _, t in candidates) > OPENCODE_PRUNE_MINIMUM:
        return pruned | {c for c, _ in candidates}
    return pruned


@dataclass
class Replay:
    """One peer's replay (see the module docstring)."""

    policy: Literal["opencode", "append-only"]
    system: list[dict[str, Any]]
    tools: list[dict[str, Any]]
    limit: int
    summaries: list[str]
    count: Count
    requests: list[Request] = field(default_factory=list)
    compactions: int = 0

    def _breakpoints(self, messages: list[dict[str, Any]]) -> tuple[int, ...]:
        if self.policy == "opencode":
            last = len(messages) - 1
            return tuple(sorted({0, 1, last - 1, last} & set(range(len(messages)))))
        return cairn_breakpoints(messages)

    def _tokens(self, messages: list[dict[str, Any]]) -> int:
        return self.count(json.dumps(self.tools)) + sum(self.count(json.dumps(m)) for m in messages)

    def _summary(self) -> dict[str, Any]:
        text = self.summaries[min(self.compactions, len(self.summaries) - 1)]
        self.compactions += 1
        return {"role": "user", "content": text}

    def _compaction_request(self, context: list[dict[str, Any]], at: float) -> Request:
        if self.policy == "opencode":
            system = [{"role": "system", "content": OPENCODE_COMPACTION_SYSTEM}]
            body = [*system, *context[len(self.system) :]]
            body.append({"role": "user", "content": OPENCODE_COMPACTION_PROMPT})
            return Request(body, [], (), at, "compaction")
        body = [*context, {"role": "user", "content": APPEND_ONLY_INSTRUCTION}]
        return Request(body, self.tools, self._breakpoints(context), at, "compaction")

    def run(self, messages: Sequence[Message], calls: Sequence[CallPoint]) -> list[Request]:
        pruned: set[str] = set()
        since = 0  # the first recorded message after the last compaction (older: the summary)
        summary: dict[str, Any] | None = None
        users = 0
        for point in calls:
            seen = messages[: point.messages]
            now_users = sum(1 for m in seen if m.role == "user")
            if self.policy == "opencode" and now_users > users and users:
                pruned = opencode_prune(seen[:-1], pruned, self.count)
            users = now_users
            context = self._context(seen[since:], pruned, summary)
            if self._tokens(context) > self.limit:
                self.requests.append(self._compaction_request(context, point.at))
                summary, since = self._summary(), point.messages
                context = self._context(seen[since:], pruned, summary)
            self.requests.append(Request(context, self.tools, self._breakpoints(context), point.at))
        return self.requests

    def _context(
        self, messages: Sequence[Message], pruned: set[str], summary: dict[str, Any] | None
    ) -> list[dict[str, Any]]:
        head = [*self.system, *([summary] if summary is not None else [])]
        return [*head, *conversation(messages, pruned)]
