"""The project profile as the engine uses it: scanned once, then kept until a refresh.

Delegates scanning to `cairn.context.profile_scan`; the result is stored as
the reviewable `profile.json` document of the trace store.
"""

from __future__ import annotations

from cairn.context.ignore import IgnoreRules
from cairn.context.profile_scan import scan_profile
from cairn.models.profile import ProjectProfile
from cairn.trace import TraceStore
from cairn.workspace import Workspace

PROFILE_DOC = "profile.json"


class Profiles:
    def __init__(self, workspace: Workspace, store: TraceStore) -> None:
        self.workspace = workspace
        self.store = store
        self._profile: ProjectProfile | None = None

    def get(self, refresh: bool = False) -> ProjectProfile:
        if self._profile is None or refresh:
            root = self.workspace.root
            self._profile = scan_profile(root, IgnoreRules.for_folder(root))
        return self._profile
