"""The context builder every model call goes through.

A build is two steps: `gather(request)` reads the world once, for a frozen
`GatherRequest`, into a `ContextSnapshot` (`cairn.context.gather`:
references, files in play,
rules, diagnostics, the uncommitted diff, the profile and the repository
map — the only I/O), and `assemble(snapshot, view)` turns it into the
messages, manifest and stats of the call without touching the world
(`cairn.context.assemble`: zones, whole-block selection under the budget,
the cacheable prefix compared with the previous call's). `build` does both,
as for a session's first call; the engine keeps the snapshot and a
`CacheView` between the two so measuring a compaction candidate is one more
`assemble`, and the prefix stays byte-identical from call to call.

Before selection every candidate passes one redaction step
(`cairn.context.redact`, the per-block transform of `assemble`):
high-confidence secret values are replaced, and the block's manifest entry
says which kinds how often. The builder owns the workspace's secret policy:
from the current settings (at construction and before every gather, so a
settings change applies from the next call) it sets the workspace's
secret-path rules (`Workspace.secrets`, obeyed by the guard, the tools, the
diff) and the value redactor.

Collaborators are optional: without a profile provider or a repository map
those sections are simply absent; a collaborator that fails yields an
excluded block whose reason names the failure instead of failing the call.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import PurePosixPath

from cairn.context.assemble import BuiltContext, assemble
from cairn.context.blocks import Candidate, Count
from cairn.context.cache import CacheView
from cairn.context.degrade import DegradeContext, StoreArtifact
from cairn.context.gather import (
    Collaborators,
    GatherRequest,
    gather,
    mentioned_words,
)
from cairn.context.redact import redact_candidate
from cairn.context.snapshot import ContextSnapshot
from cairn.context.sources.mode import MODE_TOOLS
from cairn.context.sources.repomap import RepoMapRenderer
from cairn.files.ignore import IgnoreRules
from cairn.files.redaction import Redactor
from cairn.files.secrets import SecretPaths
from cairn.files.workspace import Workspace
from cairn.models.profile import ProjectProfile
from cairn.settings import Settings, SettingsRef, shared
from cairn.tokens.counter import counter_for

__all__ = [
    "MODE_TOOLS",
    "BuiltContext",
    "ContextBuilder",
    "GatherRequest",
    "RepoMapRenderer",
    "mentioned_words",
]


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
        # The engine's shared settings, read on every build (`config.current`).
        self.config = shared(settings)
        self.redactor = Redactor()
        self._policy: tuple[object, ...] | None = None
        self.apply_secret_policy()
        self.profile_provider = profile_provider
        self.repomap = repomap
        self._ignore = ignore
        # Per session: content version → artifact id of texts already stored.
        self._stored: dict[str, dict[str, str]] = {}

    def apply_secret_policy(self) -> None:
        """Set the workspace's secret paths and the redactor from the current settings.

        Done at construction and before every gather, and only rebuilt when one of
        the secret settings changed (so the redactor's cache survives other changes).
        """
        settings = self.config.current
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

    def is_secret_path(self, rel: str) -> bool:
        """For root-relative paths (the profile's): secret by the workspace's rules."""
        return self.workspace.secrets.is_secret(PurePosixPath(rel))

    def redacted(self, candidates: list[Candidate], count: Count) -> list[Candidate]:
        """Every candidate through the redaction step; again when it learnt a new value
        (a bare repetition in a block redacted before it would otherwise be missed)."""
        before = self.redactor.generation
        redacted = [redact_candidate(c, self.redactor, count) for c in candidates]
        if self.redactor.generation != before:
            redacted = [redact_candidate(c, self.redactor, count) for c in candidates]
        return redacted

    def ignore_rules(self) -> IgnoreRules:
        """The root folder's ignore rules (given, or loaded once; `refresh()` them on changes)."""
        if self._ignore is None:
            self._ignore = IgnoreRules.for_folder(self.workspace.root)
        return self._ignore

    def gather(self, request: GatherRequest, workspace: Workspace | None = None) -> ContextSnapshot:
        """One snapshot of everything the call's context is made from (blocking I/O).

        `workspace` is a copy of the editor state to read instead of the live one (a
        gather on another thread reads a copy the editor's changes cannot touch).
        """
        self.apply_secret_policy()
        parts = Collaborators(
            workspace=workspace or self.workspace,
            settings=self.config.current,
            ignore=self.ignore_rules(),
            profile_provider=self.profile_provider,
            repomap=self.repomap,
            is_secret_path=self.is_secret_path,
        )
        return gather(parts, request)

    def degrade_context(
        self, session_id: str, model: str, store_artifact: StoreArtifact | None
    ) -> DegradeContext:
        """Where degraded blocks' full texts go: the session's artifacts, each text once."""
        memo = self._stored.setdefault(session_id, {})
        return DegradeContext(count=counter_for(model), store_artifact=store_artifact, stored=memo)

    def assemble(
        self,
        snapshot: ContextSnapshot,
        view: CacheView | None = None,
        store_artifact: StoreArtifact | None = None,
    ) -> BuiltContext:
        """The call's messages, manifest and stats from `snapshot` (pure but for artifacts)."""
        ctx = self.degrade_context(snapshot.session_id, snapshot.model, store_artifact)
        return assemble(snapshot, view, ctx, prepare=self.redacted)

    def build(
        self, request: GatherRequest, store_artifact: StoreArtifact | None = None
    ) -> BuiltContext:
        """The context of a session's first call: gather, then assemble with no cache view
        (degraded blocks' full texts go to `store_artifact`)."""
        return self.assemble(self.gather(request), None, store_artifact)
