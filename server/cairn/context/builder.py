"""The context builder every model call goes through, and the request it builds from.

`ContextBuilder.build(request)` rebuilds the model's input from its sources:
harness rules, the current user message and its `@` references, project
rules, mode rules, the current plan, diagnostics, the uncommitted diff, the
files in play, history (with compaction markers applied), the compacted
summary, the repository map and the project profile, plus any extra blocks
the engine adds. It computes the budget, selects whole blocks (degrading or
dropping what does not fit), and returns the chat messages with a manifest
explaining every block.

Before selection every candidate passes one redaction step
(`cairn.context.redact`): high-confidence secret values are replaced, and
the block's manifest entry says which kinds how often. The builder owns the
workspace's secret policy: from the current settings (at construction and
before every build, so a settings change applies from the next call) it
sets the workspace's secret-path rules (`Workspace.secrets`, obeyed by the
guard, the tools, the diff) and the value redactor.

Collaborators are optional: without a profile provider or a repository map
those sections are simply absent; a collaborator that fails yields an
excluded block whose reason names the failure instead of failing the call.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, Protocol

from cairn.context.assemble import layout, to_messages
from cairn.context.blocks import Candidate, ChatMessage, Count, framed, make_block, section
from cairn.context.budget import Budget, context_window_for
from cairn.context.degrade import DegradeContext, StoreArtifact
from cairn.context.history import render_history
from cairn.context.manifest import build_manifest, build_stats
from cairn.context.priorities import PRIORITY_PROFILE, PRIORITY_REPOMAP, REPOMAP_SHARE
from cairn.context.redact import redact_candidate
from cairn.context.references import reference_blocks
from cairn.context.rules import rules_blocks
from cairn.context.select import select
from cairn.context.sources.buffers import buffer_candidates
from cairn.context.sources.diagnostics import diagnostics_candidates
from cairn.context.sources.diff import diff_candidates
from cairn.context.sources.mode import MODE_TOOLS, mode_candidate
from cairn.context.sources.plan import plan_candidate
from cairn.context.sources.profile import profile_candidate
from cairn.context.sources.system import system_candidate
from cairn.files.ignore import IgnoreRules
from cairn.files.redaction import Redactor
from cairn.files.secrets import SecretPaths
from cairn.files.workspace import Workspace
from cairn.models.goals import GoalTree
from cairn.models.manifest import ContextBlock, ContextStats, Manifest, Source
from cairn.models.messages import Message
from cairn.models.profile import ProjectProfile
from cairn.settings import Mode, Settings, SettingsRef, shared
from cairn.tokens.counter import counter_for

__all__ = ["MODE_TOOLS", "BuiltContext", "ContextBuilder", "ContextRequest"]

REPOMAP_TITLE = "Repository map (outlines of related definitions)"
# Words of the user message handed to the repository map as mentioned identifiers.
_MENTIONED = re.compile(r"[A-Za-z_][A-Za-z0-9_./-]{2,}")
# Section titles of blocks made by collaborators (references, rules) that come unframed.
_TITLES: dict[str, str] = {
    "reference": "Referenced: {ref}",
    "rules": "Project rules: {ref}",
}


class RepoMapRenderer(Protocol):
    """What the builder needs of `cairn.repomap.map.RepoMap`."""

    def render(
        self,
        files_in_play: list[Path],
        mentioned: set[str],
        max_tokens: int,
        count: Callable[[str], int],
    ) -> str: ...


@dataclass
class ContextRequest:
    """Everything one model call's context depends on."""

    session_id: str
    model: str
    mode: Mode = "build"
    goals: GoalTree = field(default_factory=GoalTree)
    history: list[Message] = field(default_factory=list)
    user_message: str = ""
    references: list[str] = field(default_factory=list)
    files_in_play: list[Path] = field(default_factory=list)
    extra_blocks: list[ContextBlock] = field(default_factory=list)
    tool_schemas: list[dict[str, Any]] = field(default_factory=list)
    call_id: str | None = None
    store_artifact: StoreArtifact | None = None
    # A smaller window the provider reported for this session's model (its refusal said so).
    window_limit: int | None = None
    # The window of a role's own model (an explore branch's), instead of the main model's.
    role_window: int | None = None


@dataclass
class BuiltContext:
    """The messages to send, and the record of how they were chosen."""

    messages: list[ChatMessage]
    manifest: Manifest
    stats: ContextStats
    blocks: list[ContextBlock]


def mentioned_words(text: str) -> set[str]:
    """Identifier-like words and paths of a message (what the repository map ranks by)."""
    return set(_MENTIONED.findall(text))


def _failed(source: Source, priority: int, ref: str, error: Exception, count: Count) -> Candidate:
    block = make_block(source, priority, "", count=count, ref=ref)
    block.included = False
    block.reason = f"unavailable: {error}"
    return Candidate(block=block, body="")


class ContextBuilder:
    """Builds the context of model calls for one workspace."""

    def __init__(
        self,
        workspace: Workspace,
        settings: Settings | SettingsRef,
        *,
        profile_provider: Callable[[], ProjectProfile] | None = None,
        repomap: RepoMapRenderer | None = None,
        ignore: IgnoreRules | None = None,
    ) -> None:
        self.workspace = workspace
        self._settings = shared(settings)
        self.redactor = Redactor()
        self._policy: tuple[object, ...] | None = None
        self.apply_secret_policy()
        self.profile_provider = profile_provider
        self.repomap = repomap
        self._ignore = ignore
        # Per session: content version → artifact id of texts already stored.
        self._stored: dict[str, dict[str, str]] = {}

    @property
    def settings(self) -> Settings:
        """The current settings (read on every build)."""
        return self._settings.current

    def apply_secret_policy(self) -> None:
        """Set the workspace's secret paths and the redactor from the current settings.

        Done at construction and before every build, and only rebuilt when one of
        the secret settings changed (so the redactor's cache survives other changes).
        """
        settings = self.settings
        key = (
            tuple(settings.secret_paths),
            tuple(settings.secret_path_exemptions),
            settings.redact_secrets,
            tuple(settings.redaction_exemptions),
            tuple(settings.secret_value_patterns),
        )
        if key == self._policy:
            return
        self.workspace.secrets = SecretPaths(deny=key[0], allow=key[1])
        self.redactor = Redactor(exempt=key[3], patterns=key[4], enabled=settings.redact_secrets)
        self._policy = key

    def budget(
        self,
        model: str,
        tool_schemas: list[dict[str, Any]],
        window_limit: int | None = None,
        role_window: int | None = None,
    ) -> Budget:
        """The budget of a call to `model` offering `tool_schemas`: its window (`role_window`
        for a role's own model), within `window_limit`."""
        schema_tokens = counter_for(model)(json.dumps(tool_schemas)) if tool_schemas else 0
        window = role_window or context_window_for(model, self.settings)
        return Budget(
            context_window=min(window, window_limit) if window_limit else window,
            max_output_tokens=self.settings.max_output_tokens,
            tool_schema_tokens=schema_tokens,
            safety_margin=self.settings.safety_margin,
        )

    def ignore_rules(self) -> IgnoreRules:
        """The root folder's ignore rules (given, or loaded once; `refresh()` them on changes)."""
        if self._ignore is None:
            self._ignore = IgnoreRules.for_folder(self.workspace.root)
        return self._ignore

    def build(self, request: ContextRequest) -> BuiltContext:
        """The context of the next call: messages, manifest, stats and every block."""
        self.apply_secret_policy()
        count = counter_for(request.model)
        budget = self.budget(
            request.model, request.tool_schemas, request.window_limit, request.role_window
        )
        available = budget.require_positive(request.model)
        history = render_history(request.history, request.user_message, count)
        sections = self._sections(request, count, available)
        # Equal priorities keep list order: history goes newest first so older messages drop first.
        candidates = sections + sorted(history.candidates, key=lambda c: -c.seq)
        candidates = self._redacted(candidates, count)
        memo = self._stored.setdefault(request.session_id, {})
        ctx = DegradeContext(count=count, store_artifact=request.store_artifact, stored=memo)
        selection = select(candidates, available, ctx)
        ordered = layout(selection.candidates)
        blocks = [c.block for c in ordered]
        return BuiltContext(
            messages=to_messages(ordered),
            manifest=build_manifest(
                request.session_id, request.call_id, request.model, budget, blocks
            ),
            stats=build_stats(request.session_id, budget, blocks, history.compaction),
            blocks=blocks,
        )

    def _redacted(self, candidates: list[Candidate], count: Count) -> list[Candidate]:
        """Every candidate through the redaction step; again when it learnt a new value
        (a bare repetition in a block redacted before it would otherwise be missed)."""
        before = self.redactor.generation
        redacted = [redact_candidate(c, self.redactor, count) for c in candidates]
        if self.redactor.generation != before:
            redacted = [redact_candidate(c, self.redactor, count) for c in candidates]
        return redacted

    # -- sources --------------------------------------------------------------
    def _sections(self, request: ContextRequest, count: Count, available: int) -> list[Candidate]:
        """Every system-prompt section, each source's most relevant blocks first."""
        workspace = self.workspace
        files = list(request.files_in_play)
        out: list[Candidate] = [system_candidate(count)]
        references = self._references(request.references, count)
        out += references
        out += self._rules(files, count)
        out.append(mode_candidate(request.mode, count))
        plan = plan_candidate(request.goals, count)
        if plan is not None:
            out.append(plan)
        out += [framed(b, None, count) for b in request.extra_blocks]
        out += diagnostics_candidates(workspace, files, count)
        out += diff_candidates(workspace, files, count)
        referenced = {c.block.ref for c in references if c.block.ref}
        out += buffer_candidates(workspace, files, count, skip_refs=referenced)
        out += self._repomap(files, request.user_message, count, available)
        out += self._profile(count)
        return out

    def _rules(self, files: list[Path], count: Count) -> list[Candidate]:
        """Rules files, nearest first for selection (kept longest) but shown nearest last."""
        out: list[Candidate] = []
        for index, block in enumerate(rules_blocks(self.workspace, files, count)):
            candidate = framed(block, _title(block), count)
            candidate.seq = float(index)
            out.append(candidate)
        return out[::-1]

    def _references(self, refs: list[str], count: Count) -> list[Candidate]:
        if not refs:
            return []
        blocks = reference_blocks(self.workspace, refs, ignore=self.ignore_rules(), count=count)
        return [framed(b, _title(b), count) for b in blocks]

    def _repomap(
        self, files: list[Path], message: str, count: Count, available: int
    ) -> list[Candidate]:
        if self.repomap is None:
            return []
        try:
            text = self.repomap.render(
                files, mentioned_words(message), int(available * REPOMAP_SHARE), count
            )
        except Exception as error:  # an optional collaborator must not fail the call
            return [_failed("repomap", PRIORITY_REPOMAP, "repomap", error, count)]
        if not text.strip():
            return []
        return [
            section("repomap", PRIORITY_REPOMAP, REPOMAP_TITLE, text, count=count, ref="repomap")
        ]

    def _profile(self, count: Count) -> list[Candidate]:
        if self.profile_provider is None:
            return []
        try:
            profile = self.profile_provider()
        except Exception as error:  # an optional collaborator must not fail the call
            return [_failed("profile", PRIORITY_PROFILE, "profile", error, count)]
        candidate = profile_candidate(profile, count, self._is_secret_path)
        return [candidate] if candidate is not None else []

    def _is_secret_path(self, rel: str) -> bool:
        """For root-relative paths (the profile's): secret by the workspace's rules."""
        return self.workspace.secrets.is_secret(PurePosixPath(rel))


def _title(block: ContextBlock) -> str | None:
    template = _TITLES.get(block.source)
    return template.format(ref=block.ref or "") if template else None
