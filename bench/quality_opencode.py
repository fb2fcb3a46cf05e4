"""An OpenCode-policy replay of a recorded Cairn session: what OpenCode would have sent.

The replay takes the conversation Cairn recorded (user messages, the
model's replies with their tool calls, the tool results; none of Cairn's
own records: folds, prunes, summaries, attachments) and, at each point where
Cairn made a main model call, builds the request OpenCode would make with
the same system text and tools. OpenCode's policy (sst/opencode,
`packages/opencode/src/session/compaction.ts` and `message-v2.ts`):
- the context is the whole history since the last compaction;
- `prune` runs when a user turn has finished: walking back from the newest
  message, skipping the last two user turns (`PRUNE_SKIP_TURNS`), stopping
  at the last summary or at an output already pruned, it adds up completed
  tool outputs; those beyond the newest `PRUNE_PROTECT` tokens are marked,
  and they are cleared only if together they exceed `PRUNE_MINIMUM`. A
  cleared output is sent as `[Old tool result content cleared]`. OpenCode's
  40,000 / 20,000 are for a 200k window (`REFERENCE_WINDOW`); the replay
  scales both by `window / REFERENCE_WINDOW` (`scaled_thresholds`);
- compaction at overflow: when a request would not fit in the window less
  the output reserve, a compaction call (its own system prompt, the
  history, an instruction; no tools) writes a summary; the next requests
  are the system text, the summary exchange ("What did we do so far?" and
  the summary as the assistant's reply), a "continue" user message, and the
  messages after. The summary text is the one the same scripted model wrote
  for Cairn's summary of the same rank, so both sides pay for the same
  summary. (OpenCode checks the previous reply's reported usage; the replay
  checks the request it is about to send, which never lets it overflow.)
Tokens are counted with Cairn's counter (OpenCode estimates chars / 4), so
both sides are measured by one tokenizer.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from cairn.llm.usage import prompt_text
from cairn.models.messages import Message, TextPart, ToolCallPart, ToolResultPart

Count = Callable[[str], int]
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
    return message.role == "user" and bool(message.text())


def conversation(messages: Sequence[Message], pruned: set[str]) -> list[dict[str, Any]]:
    """Chat messages of the recorded conversation; outputs in `pruned` cleared."""
    results = {p.call_id: p for m in messages for p in m.parts if isinstance(p, ToolResultPart)}
    out: list[dict[str, Any]] = []
    for message in messages:
        text = "".join(p.text for p in message.parts if isinstance(p, TextPart))
        if message.role == "user" and text:
            out.append({"role": "user", "content": text})
        if message.role != "assistant":
            continue
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
            if result is None:
                continue
            content = PRUNED_OUTPUT if c.call_id in pruned else result.output
            out.append({"role": "tool", "tool_call_id": c.call_id, "content": content})
    return out


def prune(
    messages: Sequence[Message], pruned: set[str], protect: int, minimum: int, count: Count
) -> set[str]:
    """OpenCode's `prune` over `messages` (those since the last summary); the new pruned set."""
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


@dataclass(frozen=True)
class CallPoint:
    """One main call of the recorded session: how many recorded messages existed then."""

    messages: int


@dataclass
class Replay:
    """OpenCode's requests for one recorded session (see the module docstring)."""

    system: list[dict[str, Any]]
    tools: list[dict[str, Any]]
    window: int
    max_output: int
    summaries: list[str]
    count: Count
    main_tokens: list[int] = field(default_factory=list)
    compaction_tokens: list[int] = field(default_factory=list)
    prunes: int = 0
    over_budget: int = 0

    @property
    def limit(self) -> int:
        return self.window - self.max_output

    @property
    def total(self) -> int:
        return sum(self.main_tokens) + sum(self.compaction_tokens)

    def tokens(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> int:
        return self.count(prompt_text(messages, tools))

    def run(self, messages: Sequence[Message], calls: Sequence[CallPoint]) -> Replay:
        protect, minimum = scaled_thresholds(self.window)
        pruned: set[str] = set()
        since = 0
        head: list[dict[str, Any]] = []
        users = 0
        for point in calls:
            seen = messages[: point.messages]
            starts = [i for i, m in enumerate(seen) if is_turn_start(m)]
            if len(starts) > users and users:
                before = len(pruned)
                pruned = prune(seen[since : starts[-1]], pruned, protect, minimum, self.count)
                self.prunes += len(pruned) > before
            users = len(starts)
            context = [*self.system, *head, *conversation(seen[since:], pruned)]
            if self.tokens(context, self.tools) > self.limit:
                history = [*head, *conversation(seen[since:], pruned)]
                request = [{"role": "system", "content": COMPACTION_SYSTEM}, *history]
                request.append({"role": "user", "content": COMPACTION_PROMPT})
                self.compaction_tokens.append(self.tokens(request, []))
                head = self._summary_head()
                since = point.messages
                context = [*self.system, *head]
            used = self.tokens(context, self.tools)
            self.over_budget += used > self.limit
            self.main_tokens.append(used)
        return self

    def _summary_head(self) -> list[dict[str, Any]]:
        rank = min(len(self.compaction_tokens) - 1, len(self.summaries) - 1)
        text = self.summaries[rank] if self.summaries else ""
        return [
            {"role": "user", "content": SUMMARY_QUESTION},
            {"role": "assistant", "content": text},
            {"role": "user", "content": CONTINUE_MESSAGE},
        ]
