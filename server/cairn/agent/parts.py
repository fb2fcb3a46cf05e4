"""The context side of an engine, built in dependency order: what every context build uses.

`context_parts` makes, for one workspace, in this order and each from the
ones before it: the workspace (folders and open buffers), the trace store
at `<root>/<settings.trace_dir>`, the root folder's ignore rules (the file
listing), the project profile, the repository map with its index under
`<trace_dir>/cache/repomap/`, the context builder, the file sync and the
tool registry, then `Contexts`. Nothing is patched in afterwards. Both
engines use it: `Engine` (which adds the model runtime, compaction, turns
and explore) and `ReadOnlyEngine` (`cairn context`), whose parts read the
profile document without writing it and store no artifact; the repository
map keeps its index in both (it is a cache: refreshing it changes no record).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cairn.agent.scope.contexts import Contexts
from cairn.agent.tools import ToolRegistry, default_registry
from cairn.context.builder import ContextBuilder
from cairn.files.ignore import IgnoreRules
from cairn.files.sync import FileSync
from cairn.files.workspace import Workspace
from cairn.profile.store import DocStore, ProfileManager
from cairn.repomap.map import RepoMap
from cairn.settings import SettingsRef
from cairn.tokens.calibration import Calibrations
from cairn.trace import TraceStore

logger = logging.getLogger(__name__)

REPOMAP_CACHE = "repomap"


class ReadOnlyDocs:
    """The trace store's workspace documents, read but never written (a dry run)."""

    def __init__(self, store: TraceStore) -> None:
        self.store = store

    def read_doc(self, name: str) -> dict[str, Any] | None:
        return self.store.read_doc(name)

    def write_doc(self, name: str, data: dict[str, Any]) -> None:
        """Discarded: a read-only engine writes no document."""


@dataclass(frozen=True)
class ContextParts:
    """The parts every context build of one workspace goes through."""

    workspace: Workspace
    store: TraceStore
    ignore: IgnoreRules
    profiles: ProfileManager
    repomap: RepoMap | None
    builder: ContextBuilder
    files: FileSync
    registry: ToolRegistry
    contexts: Contexts


def repo_map(workspace: Workspace, ignore: IgnoreRules, store: TraceStore) -> RepoMap | None:
    """The repository map (optional: without it the map section is absent). It reads
    the workspace's secret rules at each refresh (the user's lists included)."""
    try:
        return RepoMap(
            workspace.root,
            ignore,
            store.cache_dir(REPOMAP_CACHE),
            secrets=lambda: workspace.secrets,
        )
    except (OSError, ValueError) as exc:
        logger.warning("repository map unavailable: %s", exc)
        return None


def context_parts(
    folders: list[Path],
    config: SettingsRef,
    *,
    read_only: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> ContextParts:
    """The parts of one workspace in dependency order (see the module docstring); `progress`
    follows the repository map's scans (`RepoMap.progress`)."""
    workspace = Workspace(list(folders))
    store = TraceStore(workspace.root / config.current.trace_dir)
    ignore = IgnoreRules.for_folder(workspace.root)
    docs: DocStore = ReadOnlyDocs(store) if read_only else store
    profiles = ProfileManager(workspace.root, docs, ignore, secrets=lambda: workspace.secrets)
    repomap = repo_map(workspace, ignore, store)
    if repomap is not None:
        repomap.progress = progress
    builder = ContextBuilder(
        workspace, config, profile_provider=profiles.get, repomap=repomap, ignore=ignore
    )
    files = FileSync(workspace, ignore, repomap)
    registry = default_registry()
    contexts = Contexts(
        workspace, builder, config, files, read_only=read_only, calibrations=Calibrations(docs)
    )
    return ContextParts(
        workspace=workspace,
        store=store,
        ignore=ignore,
        profiles=profiles,
        repomap=repomap,
        builder=builder,
        files=files,
        registry=registry,
        contexts=contexts,
    )
