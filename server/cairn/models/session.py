"""Session and turn metadata (`meta.json`), and the journal it is rebuilt from (`journal.jsonl`).

A turn records the model it ran on (and the one before, when the turn
switched models); the session keeps its current model, the model setting
in force when it last ran (a changed setting is a new choice, see
`cairn.agent.sessions.session.session_model`) and the context limits providers
reported for it (`context_limits`: model → tokens), which later calls
respect.

`Mode` (a turn's agent mode) is defined here, below the settings that
default it, so a turn record can say which mode it ran in.

`meta.json` is the session's current metadata, replaced atomically on every
change. Each change is first appended to the trace's journal: the session's
origin when it is created or forked (with what a fork inherits: allowed
commands, context limits, the model setting), each turn's record when it
starts (with the model setting then in force) and when it ends (the later
record wins), usage spent outside turns, each command allowed for the rest
of the session, each context limit a provider reported and each time the
user cleared them. A damaged
`meta.json` is rebuilt from the journal and the messages.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Annotated, Literal

from pydantic import Field

from cairn.models.base import WireModel, utc_now

# How a turn ended, as a turn's result reports it.
FinishReason = Literal["stop", "cancelled", "error", "stepLimit"]
Mode = Literal["build", "plan", "review"]
# How a recorded turn ended: a result's reason, or `interrupted` for a turn whose
# process died before it ended (closed when the session is next loaded).
TurnEnd = Literal["stop", "cancelled", "error", "stepLimit", "interrupted"]

TITLE_MAX_CHARS = 80


def title_of(message: str) -> str:
    """A session title from its first message: the first line, shortened at a word."""
    line = message.strip().splitlines()[0] if message.strip() else ""
    if len(line) <= TITLE_MAX_CHARS:
        return line
    return line[:TITLE_MAX_CHARS].rsplit(" ", 1)[0] + "…"


class Usage(WireModel):
    """Tokens (and cost, where known) of one call or a sum of calls.

    `input_tokens` is every input token; of those, the provider reported
    `cached_input_tokens` as read from its prompt cache and
    `cache_write_input_tokens` as written to it (Anthropic bills a write at
    1.25x, a read at 0.1x). Both are 0 when the provider reports nothing.
    """

    input_tokens: int = 0
    output_tokens: int = 0
    cached_input_tokens: int = 0
    cache_write_input_tokens: int = 0
    cost: float | None = None

    def add(self, other: Usage) -> Usage:
        cost = (
            None
            if self.cost is None and other.cost is None
            else (self.cost or 0.0) + (other.cost or 0.0)
        )
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cached_input_tokens=self.cached_input_tokens + other.cached_input_tokens,
            cache_write_input_tokens=self.cache_write_input_tokens + other.cache_write_input_tokens,
            cost=cost,
        )


def add_by_source(total: dict[str, int], more: dict[str, int]) -> None:
    """Add one call's (or turn's) input tokens per source into `total`."""
    for source, tokens in more.items():
        total[source] = total.get(source, 0) + tokens


class Turn(WireModel):
    """One user turn: what the workspace looked like at its start, and how it ended.

    `start_tree` is the git tree id of the workspace snapshot taken when the turn
    started (in Cairn's snapshot repository, `.cairn/snapshots/`); the turn's
    `patch_artifact_id` names the unified diff from it to the workspace at the end
    (every change during the turn, whoever made it). `own_patch_artifact_id` names
    the turn's own changes only — each edit's diff and each command's, as they
    happened — which is what `cairn/restore` undoes; `own_changes_recorded` is False
    for a turn recorded before they were (restore then undoes the whole patch).
    """

    id: str
    user_message_id: str
    started_at: datetime = Field(default_factory=utc_now)
    ended_at: datetime | None = None
    start_head: str | None = None
    start_dirty_hash: str | None = None
    start_tree: str | None = None
    model: str | None = None
    finish_reason: TurnEnd | None = None
    error: str | None = None
    usage: Usage = Field(default_factory=Usage)
    # Input tokens of the turn's calls per context source (what the map, history… cost).
    input_by_source: dict[str, int] = Field(default_factory=dict)
    patch_artifact_id: str | None = None
    own_patch_artifact_id: str | None = None
    own_changes_recorded: bool = False
    # The session's model before this turn, when the turn switched to another one.
    switched_from: str | None = None
    mode: Mode | None = None
    # The files were restored to before this turn (`cairn/restore`): its patch is undone.
    reverted: bool = False


class SessionMeta(WireModel):
    id: str
    title: str = ""
    parent_id: str | None = None
    fork_message_id: str | None = None
    created_at: datetime = Field(default_factory=utc_now)
    updated_at: datetime = Field(default_factory=utc_now)
    model: str | None = None
    # The model setting (cairn.toml / editor) in force when the session last ran a turn.
    configured_model: str | None = None
    # Context windows providers reported by refusing a request (model → tokens).
    context_limits: dict[str, int] = Field(default_factory=dict)
    usage: Usage = Field(default_factory=Usage)
    # The session's input tokens per context source, summed over its turns' calls.
    input_by_source: dict[str, int] = Field(default_factory=dict)
    turns: list[Turn] = Field(default_factory=list)
    # Commands the user allowed for the rest of this session ("always" in an approval).
    allowed_commands: list[str] = Field(default_factory=list)


class SessionRecord(WireModel):
    """Journal: where the session comes from (written when it is created or forked),
    with what a fork inherits from its parent's metadata."""

    kind: Literal["session"] = "session"
    id: str
    title: str = ""
    parent_id: str | None = None
    fork_message_id: str | None = None
    created_at: datetime = Field(default_factory=utc_now)
    model: str | None = None
    configured_model: str | None = None
    context_limits: dict[str, int] = Field(default_factory=dict)
    allowed_commands: list[str] = Field(default_factory=list)


class ModelSetting(WireModel):
    """The model setting in force when a turn started (`model` None: none was set)."""

    model: str | None = None


class TurnRecord(WireModel):
    """Journal: a turn as it was when it started, or when it ended.

    The start record of a turn with a model carries the model setting it started
    under (`SessionMeta.configured_model`); other records (and older journals) carry
    None: nothing recorded."""

    kind: Literal["turn"] = "turn"
    turn: Turn
    setting: ModelSetting | None = None


class UsageRecord(WireModel):
    """Journal: usage spent outside any turn's own calls (e.g. a compaction call)."""

    kind: Literal["usage"] = "usage"
    usage: Usage
    at: datetime = Field(default_factory=utc_now)


class AllowRecord(WireModel):
    """Journal: a command (or MCP tool) the user allowed for the rest of the session."""

    kind: Literal["allow"] = "allow"
    command: str
    at: datetime = Field(default_factory=utc_now)


class LimitRecord(WireModel):
    """Journal: a context window a provider reported for a model (the smallest one holds)."""

    kind: Literal["limit"] = "limit"
    model: str
    tokens: int
    at: datetime = Field(default_factory=utc_now)


class ForgetLimitsRecord(WireModel):
    """Journal: the user cleared the context windows providers reported for these models
    (`cairn trace forget-limits`); the configured window applies again until a provider
    states another."""

    kind: Literal["forget-limits"] = "forget-limits"
    models: list[str]
    at: datetime = Field(default_factory=utc_now)


def narrows_limit(limits: Mapping[str, int], model: str, tokens: int) -> bool:
    """Whether a reported limit of `tokens` for `model` is news: none is known, or it is
    smaller (of several reported limits the smallest holds)."""
    known = limits.get(model)
    return known is None or tokens < known


JournalRecord = Annotated[
    SessionRecord | TurnRecord | UsageRecord | AllowRecord | LimitRecord | ForgetLimitsRecord,
    Field(discriminator="kind"),
]
