"""The compaction model calls (agent lane "compaction"): the narrative part of a summary.

A summary must have seen what it covers: every tool output of the covered
messages reaches the compaction model whole.

With a provider that caches prompts, the call repeats the session's next
request — the same tools, system, preamble and history, so the provider
serves them from its cache, with the same breakpoints and routing key — and
appends one instruction asking for the JSON narrative
(`cairn.compaction.narrative`). Any output of the covered messages that this
prefix does not show whole (pruned to a stub, or shortened to fit the
budget) is appended in full before the instruction (`missing_outputs`). Only
when that would not fit the model's input budget, when the compaction model is
another model than the session's (`compaction_model`: a provider caches a
prefix per model, and its window may be smaller), or when the provider
caches nothing (its cache price reads at full price: a local server, the
scripted model; the prefix would be paid whole again) is a fresh transcript
of the covered messages sent instead, every output in full
(`cairn.compaction.transcript`), with no tools, through the builder's secret
redaction (the prefix was redacted when it was assembled; the outputs added
to it pass the same redactor). A transcript larger than one call can read is
read in chunks (`cairn.compaction.chunks`), one call each, the narrative so
far carried into the next as its previous summary. A failed call leaves the
narrative as far as it got (empty: the summary still carries the ledger);
every call's usage is added to the session's.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from cairn.agent.compaction.cut import COMPACTION_PROMPT_RESERVE, transcript_room
from cairn.agent.scope.contexts import Contexts
from cairn.agent.scope.turn_scope import TurnScope
from cairn.compaction.chunks import next_chunk, transcript_lines
from cairn.compaction.markers import read_state
from cairn.compaction.narrative import (
    COMPACTION_AGENT,
    Narrative,
    compaction_messages,
    instruction_messages,
    merge_narrative,
    narrative_of,
    parse_narrative,
)
from cairn.compaction.transcript import message_texts, missing_outputs
from cairn.context.builder import BuiltContext
from cairn.context.redact import redact_messages
from cairn.errors import CairnError
from cairn.llm import ModelRuntime
from cairn.llm.cache_hints import CacheHints, model_cache_price
from cairn.models.messages import Message
from cairn.models.summary import SessionSummary
from cairn.settings import Settings
from cairn.tokens.counter import counter_for

MISSING_TITLE = (
    "[Harness] The conversation above shows these tool outputs shortened or pruned;"
    " here they are in full, for the summary:"
)


def prefix_is_cached(settings: Settings, model: str) -> bool:
    """Whether `model`'s provider serves a repeated prefix for less than its full price."""
    return model_cache_price(settings, model).cached


def _text(messages: Sequence[Mapping[str, Any]]) -> str:
    """Every text the messages hold, joined (what the prefix shows)."""
    out: list[str] = []
    for message in messages:
        content = message.get("content")
        if isinstance(content, str):
            out.append(content)
        elif isinstance(content, list):
            out += [str(p.get("text", "")) for p in content if isinstance(p, Mapping)]
    return "\n".join(out)


def prefix_request(
    scope: TurnScope,
    built: BuiltContext,
    messages: Sequence[Message],
    index: int,
    settings: Settings,
) -> tuple[list[dict[str, Any]], int] | None:
    """The call on the session's prefix — the outputs it does not show whole added in full —
    and how many of its messages are the cached prefix; None when it does not apply or fit."""
    model = scope.inputs.model
    if scope.inputs.model_for("compaction") != model or not prefix_is_cached(settings, model):
        return None
    count = counter_for(model)
    prefix = built.prefix_messages()
    start = read_state(messages).watermark_index + 1
    missing = missing_outputs(messages, start, index, _text(prefix), count)
    added = [{"role": "user", "content": "\n".join([MISSING_TITLE, *missing])}] if missing else []
    request = instruction_messages([*prefix, *added])
    tail = built.tail_index
    tail_tokens = count(str(built.messages[tail]["content"])) if tail is not None else 0
    extra = sum(count(str(m["content"])) for m in request[len(prefix) :])
    if built.stats.used_input - tail_tokens + extra > built.stats.available_input:
        return None
    return request, len(prefix)


def _as_summary(narrative: Narrative) -> SessionSummary:
    return SessionSummary(
        objective=narrative.objective,
        confirmed_facts=narrative.confirmed_facts,
        decisions=narrative.decisions,
        open_questions=narrative.open_questions,
    )


class Summarizer:
    """The compaction calls of one summary (a scope, its build, the messages it covers)."""

    def __init__(
        self, runtime: ModelRuntime, contexts: Contexts, scope: TurnScope, built: BuiltContext
    ) -> None:
        self.runtime = runtime
        self.contexts = contexts
        self.scope = scope
        self.built = built

    async def _ask(self, request: list[dict[str, Any]], *, on_prefix: bool) -> Narrative | None:
        """One compaction call's narrative (None when the call failed)."""
        scope = self.scope
        try:
            reply = await self.runtime.complete(
                scope.inputs.model_for("compaction"),
                request,
                scope.offer.schemas() if on_prefix else None,
                agent=COMPACTION_AGENT,
                main_model=scope.inputs.main_model,
                allow_empty=True,  # an empty narrative still gets the ledger from the records
                cache=CacheHints(scope.session.id, self.built.breakpoints) if on_prefix else None,
            )
        except CairnError as exc:
            scope.listener.on_log(f"compaction model call failed, ledger only: {exc}")
            return None
        scope.session.add_usage(reply.usage)
        return parse_narrative(reply.text)

    async def on_prefix(self, request: list[dict[str, Any]], cached: int) -> Narrative:
        """The call on the session's prefix (the outputs added to it redacted first)."""
        added, _ = redact_messages(request[cached:], self.contexts.builder.redactor)
        return await self._ask([*request[:cached], *added], on_prefix=True) or Narrative()

    async def in_chunks(self, messages: Sequence[Message], index: int) -> Narrative:
        """The transcript of the covered messages, one call per chunk, notes carried."""
        scope, settings = self.scope, self.contexts.config.current
        count = counter_for(scope.inputs.model_for("compaction"))
        room = transcript_room(scope, settings, self.built.stats.available_input)
        notes = read_state(messages).summary
        start = read_state(messages).watermark_index + 1
        texts = message_texts(messages, start, index, count)
        pieces = transcript_lines(texts, max(room - COMPACTION_PROMPT_RESERVE, 1), count)
        merged: Narrative | None = None
        position = 0
        while position < len(pieces):
            kept = count(json.dumps(narrative_of(notes))) if notes is not None else 0
            reserve = max(COMPACTION_PROMPT_RESERVE, kept + COMPACTION_PROMPT_RESERVE // 2)
            text, position = next_chunk(pieces, position, max(room - reserve, 1), count)
            request, _ = redact_messages(
                [dict(m) for m in compaction_messages(notes, text)],
                self.contexts.builder.redactor,
            )
            narrative = await self._ask(request, on_prefix=False)
            if narrative is None:
                break
            merged = merge_narrative(notes, narrative)
            notes = _as_summary(merged)
        return merged or Narrative()


async def ask_narrative(
    runtime: ModelRuntime,
    contexts: Contexts,
    scope: TurnScope,
    built: BuiltContext,
    messages: Sequence[Message],
    index: int,
) -> Narrative:
    """The compaction model's narrative of `messages` up to `index` (empty when it fails)."""
    summarizer = Summarizer(runtime, contexts, scope, built)
    on_prefix = prefix_request(scope, built, messages, index, contexts.config.current)
    if on_prefix is not None:
        return await summarizer.on_prefix(*on_prefix)
    return await summarizer.in_chunks(messages, index)
