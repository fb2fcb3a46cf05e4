"""The cache bench's accounting, and the peers' replays of the same session.

`account` prices a list of requests under both providers' caches
(`tests.fakes.prompt_cache`): Anthropic's breakpoint cache (a read costs
0.1x, a write 1.25x) with each request's `cache_control` breakpoints, and
OpenAI's automatic prefix cache (a cached token costs 0.1x). Both price the
same bytes: a message's Anthropic blocks carry all of it (a tool result's
call id, a tool call's role), as its OpenAI unit does (until issue 29 they
left those out, so a history read whole from the cache counted 3-5% short
under Anthropic's rule: 95.8% instead of 99.2% at 200k). It also
measures the share of every request that is an unchanged prefix of the
request just before it.

The peers are replays of the same session (`harness.opencode_replay.replay`: the
conversation Cairn recorded, none of its markers, notes or attachments,
call by call, with the same system text and tools), measured for the
overflow check as JSON (`json_size`):
- `opencode`: OpenCode's policy (`harness.opencode_replay.OpenCode`, with its own
  fixed prune thresholds: 40,000 protected, 20,000 minimum), Anthropic
  breakpoints on its first two messages and its last two, none on its
  compaction call;
- `append-only`: the whole history, no fold, no prune, compaction only at
  overflow with a call that repeats the prefix and adds an instruction,
  then a single user message of the summary; Cairn's breakpoints (end of
  system, end of preamble, the summary, the last message).
The summaries the peers continue from are Cairn's summaries at the same
rank.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from tests.fakes.prompt_cache import (
    AnthropicCache,
    OpenAICache,
    PromptBlock,
    common_prefix_chars,
)

from bench.harness.opencode_replay import (
    CallPoint,
    Chat,
    Count,
    OpenCode,
    Peer,
    Policy,
    Sent,
    Size,
    replay,
)
from cairn.context.sources.summary import SUMMARY_TITLE
from cairn.models.messages import Message

ANTHROPIC_READ, ANTHROPIC_WRITE = 0.1, 1.25
OPENAI_READ = 0.1
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
    """A message's content blocks as Anthropic reads them, with every byte of the message:
    its text (with its role and, for a tool result, its call id) and each tool call."""
    calls = message.get("tool_calls") or []
    head = {k: v for k, v in message.items() if k != "tool_calls" and v is not None}
    pieces: list[Any] = [head] if message.get("content") or not calls else []
    pieces += [{"role": message.get("role"), "tool_call": c} for c in calls]
    return [json.dumps(p, sort_keys=True, ensure_ascii=False) for p in pieces]


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

PeerName = Literal["opencode", "append-only"]
PEERS: tuple[PeerName, ...] = ("opencode", "append-only")


@dataclass(frozen=True)
class AppendOnly:
    """The append-only peer's policy (`harness.opencode_replay.Policy`): no prune, no fold."""

    def prune(self, finished: Sequence[Message], pruned: set[str]) -> set[str]:
        del finished
        return pruned

    def compaction(
        self, system: list[Chat], history: list[Chat], tools: list[Chat]
    ) -> tuple[list[Chat], list[Chat]]:
        """The whole request repeated (a cached prefix), then the instruction."""
        return [*system, *history, {"role": "user", "content": APPEND_ONLY_INSTRUCTION}], tools

    def summary_head(self, summary: str) -> list[Chat]:
        return [{"role": "user", "content": summary}]


def json_size(count: Count) -> Size:
    """A request's tokens as the replays check overflow: tool schemas and messages as JSON."""

    def size(messages: list[Chat], tools: list[Chat]) -> int:
        return count(json.dumps(tools)) + sum(count(json.dumps(m)) for m in messages)

    return size


def opencode_breakpoints(sent: Sent) -> tuple[int, ...]:
    """OpenCode's marks: its first two messages (its system prompt) and its last two."""
    if sent.kind == "compaction":
        return ()
    last = len(sent.messages) - 1
    return tuple(sorted({0, 1, last - 1, last} & set(range(len(sent.messages)))))


def append_only_breakpoints(sent: Sent) -> tuple[int, ...]:
    """Cairn's layout; a compaction call's are those of the context it repeats."""
    body = sent.messages[:-1] if sent.kind == "compaction" else sent.messages
    return cairn_breakpoints(body)


def peer_requests(
    name: PeerName,
    peer: Peer,
    messages: Sequence[Message],
    calls: Sequence[CallPoint],
) -> list[Request]:
    """The requests of one peer's replay (`harness.opencode_replay.replay`), with its breakpoints."""
    marks = opencode_breakpoints if name == "opencode" else append_only_breakpoints
    sent = replay(peer, messages, calls).sent
    return [Request(s.messages, s.tools, marks(s), s.at, s.kind) for s in sent]


def make_peer(
    name: PeerName,
    system: list[Chat],
    tools: list[Chat],
    limit: int,
    summaries: list[str],
    count: Count,
) -> Peer:
    """A peer with the session's system text and tools; OpenCode's prune thresholds unscaled."""
    policy: Policy = OpenCode(count) if name == "opencode" else AppendOnly()
    return Peer(policy, system, tools, limit, summaries, json_size(count))
