"""Gathering: the one place a context build reads the world (`gather` → `ContextSnapshot`).

Reads, for one call: the referenced files and directories (through the
path guard), the files in play (the editor's text wins over the disk) and
the other open buffers, the rules files of the files in play (and of the
files the history keeps in play across the turn boundary,
`cairn.context.in_play`; those whose files left play say why), the editor's
diagnostics, `git diff HEAD` of every workspace folder, and — when the
caller asks for a fresh preamble — the project profile and the repository
map rendered for its budget (`cairn.context.sources.repomap`: a fixed
modest size, shrunk as the session reads the repository). Every source
turns its input into candidates here (token counts included, cached by content hash), so
assembling the snapshot later does no I/O.

It blocks (subprocesses, file reads): async callers run it in a thread
(`asyncio.to_thread`). A collaborator that fails yields an excluded block
whose reason names the failure instead of failing the call.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from cairn.context.blocks import Candidate, Count, framed, make_block
from cairn.context.budget import Budget, context_window_for
from cairn.context.in_play import history_play
from cairn.context.priorities import (
    PRIORITY_BUFFER,
    PRIORITY_LOW_RELEVANCE,
    PRIORITY_PROFILE,
    PRIORITY_REPOMAP,
)
from cairn.context.references import block_kind, reference_blocks
from cairn.context.rules import out_of_play_blocks, rules_blocks
from cairn.context.snapshot import ContextSnapshot, FileView
from cairn.context.sources.buffers import TabPolicy, other_tabs, tab_body, tab_policy
from cairn.context.sources.diagnostics import diagnostics_candidates
from cairn.context.sources.diff import diff_candidates, own_edit_hashes
from cairn.context.sources.mode import mode_candidate
from cairn.context.sources.profile import profile_candidate
from cairn.context.sources.repomap import RepoMapRenderer, map_cap, repomap_candidates
from cairn.context.sources.system import system_candidate
from cairn.context.tool_schemas import ToolLine, schema_text
from cairn.errors import CairnError, PathRefusedError
from cairn.files.guard import read_text_guarded
from cairn.files.ignore import IgnoreRules
from cairn.files.text import content_hash
from cairn.files.trust import trust_notes
from cairn.files.workspace import Workspace
from cairn.models.goals import GoalTree
from cairn.models.manifest import ContextBlock, Source
from cairn.models.messages import Message
from cairn.models.profile import ProjectProfile
from cairn.settings import Mode, Settings
from cairn.tokens.calibration import ModelCalibration
from cairn.tokens.counter import counter_for

RULES_TITLE = "Project rules: {ref}"
# Words of the user message handed to the repository map as mentioned identifiers.
_MENTIONED = re.compile(r"[A-Za-z_][A-Za-z0-9_./-]{2,}")
ORIGIN_BUFFER = "editor buffer"
ORIGIN_DISK = "disk"
ORIGIN_DIRECTORY = "directory"


@dataclass(frozen=True)
class GatherRequest:
    """What one call's context depends on (the engine's side of it)."""

    session_id: str
    model: str
    mode: Mode = "build"
    goals: GoalTree = field(default_factory=GoalTree)
    history: tuple[Message, ...] = ()
    user_message: str = ""
    # The id the session gave the recorded `user_message` (the turn's first user message);
    # None when it is not recorded (a dry run): it is then shown last.
    user_message_id: str | None = None
    references: tuple[str, ...] = ()
    files_in_play: tuple[Path, ...] = ()
    # Files the agent edited in this turn: in play, but never attached (the model made them).
    edited: tuple[Path, ...] = ()
    extra_blocks: tuple[ContextBlock, ...] = ()
    # Every tool the call knows, in the order sent (offered ones are sent; see tool_schemas).
    tools: tuple[ToolLine, ...] = ()
    # Gather the profile and the repository map (a fresh preamble); False: a frozen one is used.
    preamble: bool = True
    call_id: str | None = None
    # A smaller window the provider reported for this session's model (its refusal said so).
    window_limit: int | None = None
    # The window of a role's own model (an explore branch's), instead of the main model's.
    role_window: int | None = None
    # Files in play the turn read, searched or listed (rules, diagnostics, map; not shown).
    seen_files: tuple[Path, ...] = ()
    # The model's token calibration (its factor divides the room for input).
    calibration: ModelCalibration = field(default_factory=ModelCalibration)
    # The provider's prompt-cache read price (a multiple of the input price; None: unknown).
    cache_read: float | None = None


@dataclass(frozen=True)
class Collaborators:
    """The parts gathering reads through (optional ones may be None)."""

    workspace: Workspace
    settings: Settings
    ignore: IgnoreRules
    profile_provider: Callable[[], ProjectProfile] | None = None
    repomap: RepoMapRenderer | None = None
    # Whether a root-relative path is secret (the profile leaves such paths out).
    is_secret_path: Callable[[str], bool] | None = None


def mentioned_words(text: str) -> set[str]:
    """Identifier-like words and paths of a message (what the repository map ranks by)."""
    return set(_MENTIONED.findall(text))


def budget_for(
    model: str,
    settings: Settings,
    tools: Sequence[ToolLine],
    window_limit: int | None = None,
    role_window: int | None = None,
    calibration: float = 1.0,
) -> tuple[Budget, tuple[int, ...]]:
    """The budget of a call to `model` with `tools`, and each line's schema tokens: its window
    (`role_window` for a role's own model) with the model's `calibration` factor, within
    `window_limit` (a window a provider stated, already in our counter's units); the offered
    schemas' tokens are set aside (each counted once). A stated window that leaves no room
    for input (kept by an older version) is not applied: the call is made, and a provider
    that refuses it again ends the turn with the reason (`cairn.agent.turn.overflow`)."""
    count = counter_for(model)
    per_tool = tuple(count(schema_text(t.schema)) if t.schema is not None else 0 for t in tools)
    schema_tokens = sum(n for t, n in zip(tools, per_tool, strict=True) if t.offered)
    window = role_window or context_window_for(model, settings)
    budget = Budget.of(window, settings, tool_schema_tokens=schema_tokens, calibration=calibration)
    if window_limit is not None:
        learned = replace(budget, context_window=min(window, window_limit), calibration=1.0)
        if 0 < learned.available_input < budget.available_input:
            budget = learned
    return budget, per_tool


def failed_candidate(
    source: Source, priority: int, ref: str, error: Exception, count: Count
) -> Candidate:
    block = make_block(source, priority, "", count=count, ref=ref)
    block.included = False
    block.reason = f"unavailable: {error}"
    return Candidate(block=block, body="")


def _rules(workspace: Workspace, files: list[Path], count: Count) -> tuple[Candidate, ...]:
    """Rules files in play, general to specific (nearest last)."""
    out: list[Candidate] = []
    for index, block in enumerate(rules_blocks(workspace, files, count)):
        title = RULES_TITLE.format(ref=block.ref or "")
        candidate = framed(block, title, count, body_version=True)
        candidate.seq = float(index)
        out.append(candidate)
    return tuple(out)


def _in_play(
    workspace: Workspace, request: GatherRequest
) -> tuple[list[Path], tuple[Candidate, ...]]:
    """The files in play for rules and the map: the ones shown, the turn's seen files, then
    those the history keeps in play (not for diagnostics and diffs: the turn's own files
    are); and the blocks of rules files whose files left play."""
    play = history_play(request.history, next_turn=request.user_message_id is None)
    carried: list[Path] = []
    for rel in play.carried:
        try:
            carried.append(workspace.resolve(rel))
        except CairnError:
            continue
    files = _unique([*request.files_in_play, *request.seen_files, *carried])
    left = out_of_play_blocks(workspace, play.left, files)
    return files, tuple(Candidate(block=b, body="") for b in left)


def _unique(paths: Sequence[Path]) -> list[Path]:
    return list(dict.fromkeys(paths))


def _reference_views(parts: Collaborators, refs: Sequence[str], count: Count) -> list[FileView]:
    if not refs:
        return []
    workspace = parts.workspace
    views: list[FileView] = []
    for block in reference_blocks(workspace, list(refs), ignore=parts.ignore, count=count):
        rel = block.ref or ""
        if not block.included:
            refused = _refused("reference", rel, block.priority, block.reason or "refused")
            views.append(replace(refused, target=block.target))
            continue
        origin = _origin(workspace, rel)
        views.append(
            FileView(
                source="reference",
                rel=rel,
                text=block.text,
                version=block.version,
                kind=block.kind,
                priority=block.priority,
                origin=origin,
                reason=block.reason,
            )
        )
    return views


def _origin(workspace: Workspace, rel: str) -> str:
    try:
        path = workspace.resolve(rel)
    except PathRefusedError:
        return ORIGIN_DISK
    if path.is_dir():
        return ORIGIN_DIRECTORY
    return ORIGIN_BUFFER if path in workspace.buffers else ORIGIN_DISK


def _refused(source: str, rel: str, priority: int, reason: str) -> FileView:
    return FileView(
        source="reference" if source == "reference" else "buffer",
        rel=rel,
        text="",
        version="",
        kind="text",
        priority=priority,
        origin="",
        refusal=reason,
    )


def _buffer_view(workspace: Workspace, path: Path, priority: int) -> FileView:
    rel = workspace.relative(path)
    try:
        text = read_text_guarded(workspace, str(path))
    except PathRefusedError as refusal:
        return _refused("buffer", rel, priority, f"refused: {refusal}")
    return FileView(
        source="buffer",
        rel=rel,
        text=text,
        version=content_hash(text),
        kind=block_kind(path),
        priority=priority,
        origin=ORIGIN_BUFFER if path in workspace.buffers else ORIGIN_DISK,
    )


def _tab_view(workspace: Workspace, path: Path, policy: TabPolicy, count: Count) -> FileView:
    """An open tab that is not in play: its outline (or one line), or its whole text."""
    view = _buffer_view(workspace, path, PRIORITY_LOW_RELEVANCE)
    if policy.form == "whole" or view.refusal is not None:
        return view
    body = tab_body(view.text, view.rel, count)
    return replace(view, text=body, version=content_hash(body), kind="text")


def _buffer_views(
    workspace: Workspace, request: GatherRequest, skip: set[str], policy: TabPolicy, count: Count
) -> tuple[list[FileView], dict[str, str]]:
    """Files in play (bar the agent's own edits) then a few other open tabs, small
    (`cairn.context.sources.buffers`); and the edits."""
    edited = set(request.edited)
    in_play = list(request.files_in_play)
    views: list[FileView] = []
    seen: set[Path] = set()
    for path in in_play:
        if path in seen or path in edited or workspace.relative(path) in skip:
            continue
        seen.add(path)
        views.append(_buffer_view(workspace, path, PRIORITY_BUFFER))
    for path in other_tabs(workspace, set(in_play), policy):
        if path not in edited and workspace.relative(path) not in skip:
            views.append(_tab_view(workspace, path, policy, count))
    texts: dict[str, str] = {}
    for path in request.edited:
        try:
            texts[workspace.relative(path)] = workspace.read_text(path)
        except OSError:
            continue
    return views, texts


def _repomap(
    parts: Collaborators,
    request: GatherRequest,
    files: list[Path],
    count: Count,
    available: int,
    window: int,
) -> tuple[Candidate, ...]:
    """The map ranked for `files`, within its budget (`cairn.context.sources.repomap`)."""
    if parts.repomap is None:
        return ()
    mentioned = mentioned_words(request.user_message)
    cap = map_cap(window, parts.settings.repo_map_tokens, request.cache_read)
    try:
        return repomap_candidates(
            parts.repomap,
            files,
            mentioned,
            request.history,
            count,
            available,
            request.user_message,
            cap,
            parts.settings.where_to_look,
        )
    except Exception as error:  # an optional collaborator must not fail the call
        return (failed_candidate("repomap", PRIORITY_REPOMAP, "repomap", error, count),)


def _profile(parts: Collaborators, count: Count) -> tuple[Candidate, ...]:
    if parts.profile_provider is None:
        return ()
    try:
        profile = parts.profile_provider()
    except Exception as error:  # an optional collaborator must not fail the call
        return (failed_candidate("profile", PRIORITY_PROFILE, "profile", error, count),)
    if parts.is_secret_path is not None:
        candidate = profile_candidate(profile, count, parts.is_secret_path)
    else:
        candidate = profile_candidate(profile, count)
    return (candidate,) if candidate is not None else ()


def gather(parts: Collaborators, request: GatherRequest) -> ContextSnapshot:
    """Read everything the call's context is made from (see the module docstring)."""
    workspace = parts.workspace
    count = counter_for(request.model)
    budget, per_tool = budget_for(
        request.model,
        parts.settings,
        request.tools,
        request.window_limit,
        request.role_window,
        request.calibration.factor,
    )
    available = budget.require_positive(request.model)
    shown = list(request.files_in_play)
    # Files the turn read, searched or listed: their diagnostics too, and with the ones the
    # history keeps in play their rules and ranking.
    files = _unique([*shown, *request.seen_files])
    ranked, out_of_play = _in_play(workspace, request)
    references = _reference_views(parts, request.references, count)
    # A reference's file is not shown again as a buffer (nor refused twice, for a link).
    skip = {v.rel for v in references} | {v.target for v in references if v.target}
    policy = tab_policy(parts.settings)
    buffers, edited = _buffer_views(workspace, request, skip, policy, count)
    with_preamble = request.preamble
    return ContextSnapshot(
        session_id=request.session_id,
        model=request.model,
        mode=request.mode,
        budget=budget,
        tools=request.tools,
        tool_tokens=per_tool,
        user_message=request.user_message,
        user_message_id=request.user_message_id,
        goals=request.goals.model_copy(deep=True),
        history=request.history,
        system=(system_candidate(count), mode_candidate(request.mode, count)),
        rules=_rules(workspace, ranked, count),
        profile=_profile(parts, count) if with_preamble else (),
        repomap=(
            _repomap(parts, request, ranked, count, available, budget.context_window)
            if with_preamble
            else ()
        ),
        diagnostics=tuple(diagnostics_candidates(workspace, files, count)),
        diff=tuple(diff_candidates(workspace, files, count, own_edit_hashes(request.history))),
        extra=tuple(framed(b, None, count) for b in request.extra_blocks),
        out_of_play=out_of_play,
        files=tuple(references + buffers),
        edited=edited,
        in_play=tuple(workspace.relative(p) for p in shown),
        has_preamble=with_preamble,
        call_id=request.call_id,
        calibration=request.calibration,
        notes=tuple(trust_notes(parts.settings, workspace.root)),
    )
