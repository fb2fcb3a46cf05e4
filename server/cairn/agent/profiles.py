"""The project profile as the engine uses it: scanned once, then kept until a refresh.

Delegates to `cairn.context.profile.ProfileManager`, which stores the profile
as the reviewable `profile.json` document of the trace store, refreshes it
when git HEAD or a rules file changes, and keeps the user's edits.
"""

from __future__ import annotations

from cairn.context.ignore import IgnoreRules
from cairn.context.profile import ProfileManager
from cairn.models.profile import ProjectProfile
from cairn.trace import TraceStore
from cairn.workspace import Workspace


class Profiles:
    def __init__(self, workspace: Workspace, store: TraceStore) -> None:
        self.workspace = workspace
        self.store = store
        self._manager: ProfileManager | None = None

    def get(self, refresh: bool = False) -> ProjectProfile:
        if self._manager is None:
            root = self.workspace.root
            self._manager = ProfileManager(root, self.store, IgnoreRules.for_folder(root))
        return self._manager.refresh(force=True) if refresh else self._manager.get()
