"""The figures of the context-quality bench, computed from one recorded session.

`measure(run, session)` reads what the model received (`run.requests`) and
the session's records (`run.messages`, `run.manifests`) and returns:
- `points`: the share of each fact kind present (`facts.KINDS`) at the
  first main call after each summary and at the last main call, with the
  labels of the facts that were missing;
- over-budget main calls: requests whose input (messages and tool schemas,
  counted with the budget's tokenizer) passes the window less the output
  reserve, and manifests whose `used_input` passes `available_input`;
- total input tokens of every request (main and compaction calls), and the
  total of OpenCode's requests replayed over the same message stream
  (`harness.opencode_replay`, prune thresholds scaled to the window);
- the session's shape: main calls, summaries, prunes, goal folds;
- edits made blind on each side (`rereads`): the re-reads a real model
  would have added to that side's total;
- the facts a compaction narrative restated that the request it answered did
  not hold (`unseen_claims`): the scripted summarizer knows the planted
  facts, a real one knows only its input, so such a restatement is not
  credited anywhere (its sentence is taken out of every request before the
  facts are looked for).
`check_setup` raises `SetupError` when the session is not the one the bench
was written for (a reply not consumed, an edit that did not apply, a tool
fact the first summary restates before the session found it).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from bench.harness.opencode_replay import (
    CallPoint,
    OpenCode,
    Peer,
    Replayed,
    replay,
    scaled_thresholds,
)
from bench.quality.facts import (
    KINDS,
    Fact,
    Kind,
    RuleScope,
    ledger_facts,
    present,
    request_lines,
    turn_of,
)
from bench.quality.rereads import blind_edits, reread_tokens
from bench.quality.run import Recorded, SessionRun, SetupError
from bench.quality.script import Session
from bench.quality.spend import spend
from bench.quality.workspace import NESTED_RULES, ROOT_RULES, TOOL_FACTS, project_files
from cairn.context.sources.system import HARNESS_RULES
from cairn.llm.script import COMPACTION_LANE
from cairn.llm.usage import prompt_text
from cairn.models.messages import Message, ToolCallPart, ToolResultPart
from cairn.settings import Settings
from cairn.tokens.counter import count_tokens

# The session must exercise compaction this much for its figures to mean anything.
MIN_SUMMARIES = 3
MIN_MAIN_CALLS = 120
TARGET_SHARE: dict[Kind, float] = dict.fromkeys(KINDS, 1.0)
TARGET_ALL = 0.95
TARGET_RATIO = 0.5


@dataclass(frozen=True)
class Point:
    """Fact shares at one measured call."""

    label: str
    call: int
    found: dict[Kind, int]
    expected: dict[Kind, int]
    missing: list[str]

    def share(self, kind: Kind | None = None) -> float | None:
        kinds = KINDS if kind is None else (kind,)
        want = sum(self.expected[k] for k in kinds)
        return None if want == 0 else sum(self.found[k] for k in kinds) / want


@dataclass
class Figures:
    points: list[Point] = field(default_factory=list)
    over_budget_requests: int = 0
    over_budget_manifests: int = 0
    cairn_main: int = 0
    cairn_compaction: int = 0
    opencode: Replayed | None = None
    shape: dict[str, int] = field(default_factory=dict)
    # Tokens of included blocks per source, summed over every manifest.
    by_source: dict[str, int] = field(default_factory=dict)
    # Tokens per part of the main requests as sent (`spend`).
    by_part: Counter[str] = field(default_factory=Counter[str])
    # Edits whose text the request did not show, on Cairn's side and the replay's, and
    # the re-reads they stand for priced as one more request each (`rereads`).
    blind_edits: int = 0
    replay_blind_edits: int = 0
    cairn_rereads: int = 0
    replay_rereads: int = 0
    # Cairn's settings in the run.
    settings: Settings = field(default_factory=Settings)
    # Facts a narrative restated without its request holding them: (compaction call, fact).
    unseen: list[tuple[int, str]] = field(default_factory=list)

    @property
    def cairn_total(self) -> int:
        return self.cairn_main + self.cairn_compaction

    @property
    def ratio(self) -> float:
        total = self.opencode.total if self.opencode else 0
        return self.cairn_total / total if total else float("nan")

    @property
    def reread_ratio(self) -> float:
        """The ratio with each side's re-reads priced in."""
        total = (self.opencode.total if self.opencode else 0) + self.replay_rereads
        return (self.cairn_total + self.cairn_rereads) / total if total else float("nan")


def _result_index(messages: Sequence[Message], call_id: str) -> int:
    for index, message in enumerate(messages):
        if any(isinstance(p, ToolResultPart) and p.call_id == call_id for p in message.parts):
            return index
    raise SetupError(f"no recorded result for tool call {call_id}")


def planted_facts(run: SessionRun, session: Session) -> list[Fact]:
    """Constraints, goals and tool facts with the message count from which each is known."""
    messages = run.messages
    starts = [i for i, m in enumerate(messages) if m.role == "user" and m.text()]
    facts: list[Fact] = []
    for planted in session.planted:
        if planted.kind == "constraint":
            facts.append(
                Fact(
                    "constraint", planted.marker, "marker", planted.marker, starts[planted.turn] + 1
                )
            )
            continue
        calls = [
            p
            for m in messages
            for p in m.parts
            if isinstance(p, ToolCallPart)
            and p.name == "goal"
            and planted.marker in str(p.arguments)
        ]
        if not calls:
            raise SetupError(f"the goal summary {planted.marker} was never recorded")
        facts.append(
            Fact(
                "goal",
                planted.marker,
                "marker",
                planted.marker,
                _result_index(messages, calls[0].call_id) + 1,
            )
        )
    for tool_fact in TOOL_FACTS:
        found = [
            i
            for i, m in enumerate(messages)
            for p in m.parts
            if isinstance(p, ToolResultPart) and tool_fact.marker in p.output
        ]
        if not found:
            raise SetupError(f"no tool output of the session shows {tool_fact.marker}")
        facts.append(Fact("tool", tool_fact.marker, "marker", tool_fact.marker, found[0] + 1))
    facts += [Fact("rule", r.marker, "marker", r.marker) for r in ROOT_RULES]
    facts += [Fact("rule", r.marker, "marker", r.marker, 0, r.folder) for r in NESTED_RULES]
    return facts


def unseen_claims(run: SessionRun, session: Session) -> list[tuple[int, str]]:
    """(compaction call, marker) of each tool fact a narrative restated that the request it
    answered did not hold (its previous summary included)."""
    narratives = [
        str(line["text"]) for line in session.lines if line.get("agent") == COMPACTION_LANE
    ]
    calls = [r for r in run.requests if r.lane == COMPACTION_LANE]
    out: list[tuple[int, str]] = []
    for number, (request, narrative) in enumerate(zip(calls, narratives, strict=False), start=1):
        held = "\n".join(request_lines(request.messages))
        out += [
            (number, f.marker)
            for f in TOOL_FACTS
            if f.sentence in narrative and f.marker not in held
        ]
    return out


def point(
    label: str,
    call: int,
    request: Recorded,
    facts: Sequence[Fact],
    run: SessionRun,
    unseen: Sequence[str] = (),
) -> Point:
    """The fact shares of one request (lines holding an `unseen` sentence left out)."""
    upto = request.session_messages
    scope = RuleScope.of(run.messages)
    turn = turn_of(run.messages, upto)
    wanted = [
        f
        for f in [*facts, *ledger_facts(run.messages, upto)]
        if f.known_after <= upto
        and (f.kind != "rule" or not f.detail or scope.applies(f.detail, upto, turn))
    ]
    lines = [line for line in request_lines(request.messages) if not any(s in line for s in unseen)]
    found: dict[Kind, int] = dict.fromkeys(KINDS, 0)
    expected: dict[Kind, int] = dict.fromkeys(KINDS, 0)
    missing: list[str] = []
    for fact in wanted:
        expected[fact.kind] += 1
        if present(fact, lines):
            found[fact.kind] += 1
        else:
            missing.append(f"{fact.kind}: {fact.label}")
    return Point(label, call, found, expected, missing)


def worst_share(figures: Figures, kind: Kind | None = None) -> float | None:
    """The lowest share of `kind` (all kinds when None) over the measured points."""
    shares = [s for s in (p.share(kind) for p in figures.points) if s is not None]
    return min(shares) if shares else None


def check_setup(run: SessionRun, session: Session) -> None:
    """Raise `SetupError` when the session did not run as scripted."""
    if len(run.main) != session.main_calls:
        raise SetupError(f"{len(run.main)} main calls made, the script has {session.main_calls}")
    results = [p for m in run.messages for p in m.parts if isinstance(p, ToolResultPart)]
    for part in results:
        if part.name == "edit_file" and not part.ok:
            raise SetupError(f"a scripted edit failed: {part.output[:200]}")
        if part.name == "run_command" and (part.data or {}).get("exit_code") is None:
            raise SetupError(f"a scripted command did not run: {part.output[:200]}")
    first = next((i for i, r in enumerate(run.requests) if r.lane == COMPACTION_LANE), None)
    if first is not None:
        before = run.requests[first].session_messages
        seen = "\n".join(
            p.output
            for m in run.messages[:before]
            for p in m.parts
            if isinstance(p, ToolResultPart)
        )
        late = [f.marker for f in TOOL_FACTS if f.marker not in seen]
        if late:
            raise SetupError(f"the first summary restates {late} before the session found them")


def request_tokens(request: Recorded, model: str) -> int:
    return count_tokens(prompt_text(request.messages, request.tools), model)


def opencode_replay(run: SessionRun, session: Session) -> Replayed:
    """OpenCode's policy over the same message stream, with Cairn's harness text and root rules.

    OpenCode's prune thresholds scaled to the window (`scaled_thresholds`); requests
    measured like Cairn's (`request_tokens`: messages and tool schemas, one tokenizer).
    """
    model = str(run.settings.model)
    window = run.settings.context_window or 0
    system = [{"role": "system", "content": HARNESS_RULES + "\n\n" + project_files()["AGENTS.md"]}]
    summaries = [
        str(line["text"]) for line in session.lines if line.get("agent") == COMPACTION_LANE
    ]

    def count(text: str) -> int:
        return count_tokens(text, model)

    protect, minimum = scaled_thresholds(window)
    peer = Peer(
        policy=OpenCode(count, protect, minimum),
        system=system,
        tools=run.main[0].tools,
        limit=window - run.settings.max_output_tokens,
        summaries=summaries,
        size=lambda messages, tools: count(prompt_text(messages, tools)),
    )
    return replay(peer, run.messages, [CallPoint(r.session_messages) for r in run.main])


def measure(run: SessionRun, session: Session) -> Figures:
    """Every figure of the bench (see the module docstring)."""
    check_setup(run, session)
    model = str(run.settings.model)
    facts = planted_facts(run, session)
    figures = Figures(settings=run.settings, unseen=unseen_claims(run, session))
    sentences = {f.marker: f.sentence for f in TOOL_FACTS}
    unseen = [sentences[marker] for _, marker in figures.unseen]
    limit = (run.settings.context_window or 0) - run.settings.max_output_tokens
    main_index = 0
    after_summary = 0
    pending = False
    for request in run.requests:
        tokens = request_tokens(request, model)
        if request.lane == COMPACTION_LANE:
            figures.cairn_compaction += tokens
            pending = True
            continue
        figures.cairn_main += tokens
        figures.over_budget_requests += tokens > limit
        if pending:
            after_summary += 1
            label = f"after summary {after_summary}"
            figures.points.append(point(label, main_index + 1, request, facts, run, unseen))
            pending = False
        main_index += 1
    figures.points.append(point("last call", main_index, run.main[-1], facts, run, unseen))
    figures.over_budget_manifests = sum(m.used_input > m.available_input for m in run.manifests)
    for manifest in run.manifests:
        for block in manifest.blocks:
            if block.included:
                figures.by_source[block.source] = (
                    figures.by_source.get(block.source, 0) + block.tokens
                )
    figures.by_part = spend(run.main, lambda text: count_tokens(text, model))
    figures.opencode = opencode_replay(run, session)
    replies = session.lines[: session.main_calls]
    blind = blind_edits([r.messages for r in run.main], replies)
    cairn_sizes = [request_tokens(r, model) for r in run.main]
    figures.blind_edits, figures.cairn_rereads = len(blind), reread_tokens(blind, cairn_sizes)
    replay_main = [s for s in figures.opencode.sent if s.kind == "main"]
    blind = blind_edits([s.messages for s in replay_main], replies)
    figures.replay_blind_edits = len(blind)
    figures.replay_rereads = reread_tokens(blind, [s.size for s in replay_main])
    counts = run.marker_counts()
    figures.shape = {
        "main calls": len(run.main),
        "compaction calls": len(run.requests) - len(run.main),
        "summaries": counts.get("summary", 0),
        "prunes": counts.get("prune", 0),
        "goal folds": counts.get("goal", 0),
        "turns": len(session.users),
    }
    return figures


def shape_warnings(figures: Figures) -> list[str]:
    """What the session failed to exercise (its figures then say less)."""
    shape = figures.shape
    out: list[str] = []
    if shape["main calls"] < MIN_MAIN_CALLS:
        out.append(f"only {shape['main calls']} main calls (the bench wants ≥ {MIN_MAIN_CALLS})")
    if shape["summaries"] < MIN_SUMMARIES:
        out.append(f"only {shape['summaries']} summaries (the bench wants ≥ {MIN_SUMMARIES})")
    for kind in ("prunes", "goal folds"):
        if shape[kind] == 0:
            out.append(f"no {kind} happened")
    return out
