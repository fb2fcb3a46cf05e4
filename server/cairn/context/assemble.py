"""Assembly: a `ContextSnapshot` → the messages, manifest and stats of one call (pure).

`assemble(snapshot, view, ctx)` does no I/O and is deterministic: the same
snapshot and view give byte-identical messages. It
1. renders the history (compaction markers applied, attachments shown);
2. takes the preamble — the frozen one of `view`, else a fresh one from the
   snapshot (`fresh_preamble`);
3. works out what must be attached now (`cairn.context.attachments`):
   rendered at the end of the history and returned in `attachments` so a
   real call records them before it is sent (the next build then renders
   the same bytes from the record);
4. builds the tail: diagnostics, the diff, changes to attached files, extra
   blocks (the diagnostic being fixed), the ledger of the records, the plan;
5. selects whole blocks under the budget (`cairn.context.select`, stable
   under the view's memo) — every candidate passes through
   `prepare_candidates` first, the one place for a per-block transform (the
   builder's secret redaction);
6. lays the zones out (`cairn.context.layout`) and compares the cacheable
   prefix with the previous call's (`cairn.context.prefix`): the
   prediction, zone hashes, the break reason and the breakpoints
   (`cairn.context.breakpoints`: where they go, what each should serve) go
   in the manifest.

The one effect: a block degraded to an outline or excerpt has its full
text stored as an artifact through `ctx` — once per content hash, so
assembling again gives the same bytes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from cairn.context.attachments import (
    attachment_candidate,
    current_priority,
    pending_attachments,
    rules_versions,
    tail_blocks,
)
from cairn.context.blocks import MESSAGE_OVERHEAD_TOKENS, Candidate, ChatMessage, Count, section
from cairn.context.breakpoints import place, served
from cairn.context.budget import Budget
from cairn.context.cache import CacheView, Preamble, break_reason, predicted_cached
from cairn.context.degrade import DegradeContext
from cairn.context.history import ATTACHMENT_SEQ_STEP, HistoryView, render_history
from cairn.context.layout import Layout, layout, to_messages, zone_hashes
from cairn.context.manifest import build_manifest, build_stats, extra_costs, token_count
from cairn.context.prefix import (
    MESSAGE_SOURCES,
    PrefixEntry,
    PrefixMatch,
    common_prefix,
    entries_of,
)
from cairn.context.priorities import PRIORITY_SYSTEM, SUMMARY_SHARE
from cairn.context.select import MemoKey, Outcome, select
from cairn.context.snapshot import ContextSnapshot
from cairn.context.sources.ledger import ledger_candidate
from cairn.context.sources.plan import plan_candidate
from cairn.context.tool_schemas import tool_blocks
from cairn.context.zones import ZONE_HISTORY, ZONE_PREAMBLE, ZONE_SYSTEM, ZONE_TAIL
from cairn.models.manifest import (
    CacheStats,
    ContextBlock,
    ContextStats,
    Manifest,
    ManifestCache,
    Zone,
)
from cairn.models.messages import FilePart
from cairn.tokens.counter import counter_for

PREAMBLE_HEADER = (
    "# Project context: the rules of the files in play, the project profile and a map of the"
    " repository (fixed for this turn; rules that come into play later are attached to the"
    " conversation)."
)
# What the tail holds and how to read it is said once, in the harness rules (system zone,
# cached); the tail itself is re-sent on every call at full price.
TAIL_HEADER = "[Harness context for this call]"
ZONE_HEADERS: dict[Zone, str] = {ZONE_PREAMBLE: PREAMBLE_HEADER, ZONE_TAIL: TAIL_HEADER}


@dataclass
class BuiltContext:
    """The messages to send, the record of how they were chosen, and what to keep for the next call."""

    messages: list[ChatMessage]
    manifest: Manifest
    stats: ContextStats
    blocks: list[ContextBlock]
    # Message indexes that end a cacheable segment (where Anthropic's cache_control goes).
    breakpoints: tuple[int, ...] = ()
    # The preamble used (a real call freezes it for the rest of the turn).
    preamble: Preamble = field(default_factory=lambda: Preamble(()))
    # Selection outcomes of this call (the next call's memo).
    memo: dict[MemoKey, Outcome] = field(default_factory=dict)
    # Files rendered as attachments that are not recorded yet (a real call records them).
    attachments: list[FilePart] = field(default_factory=list)
    prefix: tuple[PrefixEntry, ...] = ()
    layout: Layout | None = None

    @property
    def tail_index(self) -> int | None:
        """The index of the tail message, when there is one."""
        if self.layout is None:
            return None
        indexes = self.layout.zones.get(ZONE_TAIL, ())
        return indexes[0] if indexes else None

    def prefix_messages(self) -> list[ChatMessage]:
        """Every message but the tail: what the next call repeats."""
        tail = self.tail_index
        return [m for i, m in enumerate(self.messages) if i != tail]


def zoned(candidate: Candidate, zone: Zone) -> Candidate:
    """A copy of `candidate` placed in `zone` (snapshots are never changed)."""
    return replace(
        candidate,
        block=candidate.block.model_copy(update={"zone": zone}),
        artifacts=dict(candidate.artifacts),
    )


def summary_limit(budget: Budget) -> int:
    """The most tokens the summary may use: its reserved share of the input budget."""
    return int(max(budget.available_input, 0) * SUMMARY_SHARE)


def fresh_preamble(snapshot: ContextSnapshot) -> Preamble:
    """The preamble of the snapshot's rules, profile and repository map.

    Rules files go nearest first (selection keeps the nearest longest); the
    layout shows them general to specific by their `seq`.
    """
    candidates = (*reversed(snapshot.rules), *snapshot.profile, *snapshot.repomap)
    return Preamble(
        candidates=tuple(zoned(c, ZONE_PREAMBLE) for c in candidates),
        rules=rules_versions(snapshot.rules),
        files=tuple(sorted(set(snapshot.in_play) - set(snapshot.edited))),
    )


# A pass over every candidate of a call just before selection (the builder's redaction).
Prepare = Callable[[list[Candidate], Count], list[Candidate]]


def prepare_candidates(
    candidates: list[Candidate], count: Count, prepare: Prepare | None
) -> list[Candidate]:
    """Every candidate of a call, once, whatever its zone, through the per-block transform.

    A transform must keep each block's zone and be deterministic (the same
    block gives the same bytes), or the prefix would change from call to call.
    """
    return candidates if prepare is None else prepare(candidates, count)


def zone_headers(count: Count, candidates: Sequence[Candidate]) -> list[Candidate]:
    """The header of the preamble and of the tail (each also carries its message's framing),
    for the zones that have something to show."""
    wanted = {c.block.zone for c in candidates if c.block.included and c.block.text}
    return [
        zoned(
            section(
                "system",
                PRIORITY_SYSTEM,
                None,
                text,
                count=count,
                ref=zone,
                extra_tokens=MESSAGE_OVERHEAD_TOKENS,
            ),
            zone,
        )
        for zone, text in ZONE_HEADERS.items()
        if zone in wanted
    ]


def without_lonely_headers(candidates: list[Candidate]) -> list[Candidate]:
    """The candidates without the header of a zone of which nothing else was kept."""
    filled = {
        c.block.zone for c in candidates if c.block.included and c.block.text and not _is_header(c)
    }
    return [c for c in candidates if not _is_header(c) or c.block.zone in filled]


def _is_header(candidate: Candidate) -> bool:
    return candidate.block.source == "system" and candidate.block.zone in ZONE_HEADERS


def _tail(snapshot: ContextSnapshot, history: HistoryView, count: Count) -> list[Candidate]:
    out = [*snapshot.diagnostics, *snapshot.diff]
    out += tail_blocks(snapshot.files, history.attached, count)
    out += snapshot.extra
    out += snapshot.out_of_play
    out += [c for c in (ledger_candidate(snapshot.history, count),) if c is not None]
    plan = plan_candidate(snapshot.goals, snapshot.history, count)
    if plan is not None:
        out.append(plan)
    return [zoned(c, ZONE_TAIL) for c in out]


def _history(
    snapshot: ContextSnapshot, history: HistoryView, preamble: Preamble, count: Count
) -> tuple[list[Candidate], list[FilePart]]:
    """History candidates, newest first (selection drops the oldest first), and the new attachments."""
    pending = pending_attachments(snapshot.files, snapshot.rules, history.attached, preamble.rules)
    added = [
        attachment_candidate(
            part,
            history.next_seq + index * ATTACHMENT_SEQ_STEP,
            current_priority(part),
            count,
        )
        for index, part in enumerate(pending)
    ]
    chat = [zoned(c, ZONE_HISTORY) for c in [*history.candidates, *added]]
    return sorted(chat, key=lambda c: -c.seq), pending


def _budget_keys(
    original: Sequence[Candidate], chosen: Sequence[Candidate]
) -> dict[str, str | None]:
    """The prefix keys (`cairn.context.prefix`) of the preamble and history blocks the budget
    left out or shrank in this selection, each with the version it is sent in (None: left out)."""
    out: dict[str, str | None] = {}
    for before, after in zip(original, chosen, strict=True):
        block = after.block
        if block.zone not in (ZONE_PREAMBLE, ZONE_HISTORY):
            continue
        if block.included and block.version == before.block.version:
            continue
        source = "history" if block.source in MESSAGE_SOURCES else block.source
        out[f"{source}:{block.ref}"] = block.version if block.included else None
    return out


def _stats(
    snapshot: ContextSnapshot,
    view: CacheView,
    blocks: list[ContextBlock],
    history: HistoryView,
    predicted: int,
    cache_break: str | None,
) -> ContextStats:
    """The call's statistics: its blocks, compaction, cache (the view's last usage) and counting."""
    usage = view.last_usage
    return build_stats(
        snapshot.session_id,
        snapshot.budget,
        blocks,
        history.compaction,
        CacheStats(
            predicted_cached=predicted,
            cached_input=usage.cached_input_tokens if usage else 0,
            cache_write_input=usage.cache_write_input_tokens if usage else 0,
            last_break=cache_break or view.last_break,
        ),
        token_count(snapshot.model, snapshot.calibration, snapshot.budget),
    )


def _cache_record(
    laid: Layout, snapshot: ContextSnapshot, predicted: int
) -> tuple[ManifestCache, tuple[int, ...]]:
    """The manifest's cache record of a laid-out request, and where its breakpoints go."""
    marks = place(laid.boundaries, predicted)
    record = ManifestCache(
        predicted_cached=predicted,
        zone_hashes=zone_hashes(laid, snapshot.tool_schemas),
        breakpoints=served(marks, laid.boundaries, predicted),
    )
    return record, tuple(m.boundary.message for m in marks)


def assemble(
    snapshot: ContextSnapshot,
    view: CacheView | None = None,
    ctx: DegradeContext | None = None,
    *,
    prepare: Prepare | None = None,
) -> BuiltContext:
    """The context of one call from `snapshot` (see the module docstring)."""
    view = view or CacheView()
    count = counter_for(snapshot.model)
    ctx = ctx or DegradeContext(count=count)
    history = render_history(
        snapshot.history,
        snapshot.user_message,
        count,
        summary_limit(snapshot.budget),
        user_message_id=snapshot.user_message_id,
    )
    preamble = view.preamble or fresh_preamble(snapshot)
    chat, pending = _history(snapshot, history, preamble, count)
    system = [zoned(c, ZONE_SYSTEM) for c in snapshot.system]
    sections = [*system, *(zoned(c, ZONE_PREAMBLE) for c in preamble.candidates)]
    tail = _tail(snapshot, history, count)
    shown = [*sections, *tail]
    candidates = prepare_candidates([*zone_headers(count, shown), *shown, *chat], count, prepare)
    selection = select(candidates, snapshot.budget.available_input, ctx, view.memo)
    ordered = layout(without_lonely_headers(selection.candidates))
    tools = tool_blocks(snapshot.tools, snapshot.tool_tokens)
    sent = [b.tokens for b in tools if b.included]
    laid = to_messages(ordered, (sum(sent), len(sent)))
    blocks = [*tools, *(c.block for c in ordered)]
    manifest = build_manifest(
        snapshot.session_id, snapshot.call_id, snapshot.model, snapshot.budget, blocks
    )
    prefix = entries_of(manifest)
    match: PrefixMatch | None = None
    if view.previous is not None:
        match = common_prefix(view.previous, prefix)
    manifest.cache_break = break_reason(
        view, match, snapshot.model, _budget_keys(candidates, selection.candidates)
    )
    predicted = predicted_cached(view, match, snapshot.model)
    manifest.cache, marks = _cache_record(laid, snapshot, predicted)
    stats = _stats(snapshot, view, blocks, history, predicted, manifest.cache_break)
    manifest.extras = extra_costs(blocks)
    manifest.notes = list(snapshot.notes)
    manifest.stats = stats
    return BuiltContext(
        messages=laid.messages,
        manifest=manifest,
        stats=stats,
        blocks=blocks,
        breakpoints=marks,
        preamble=preamble,
        memo=selection.memo,
        attachments=pending,
        prefix=prefix,
        layout=laid,
    )
