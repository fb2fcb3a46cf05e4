"""The project profile kept in `.cairn/profile.json`: scanned, refreshed, and open to user edits.

`ProfileManager(folder, store, ignore)` owns the document `profile.json` of a
`TraceStore` (the only writer under `.cairn/`). The document is the profile
in its wire shape — reviewable and editable by hand — plus a `_scanned` copy
of the values the last scan produced.

- `get()` loads the document (scanning and writing it the first time), checks
  whether it is stale, and then serves the profile from memory until HEAD (as
  read from the git directory) or a rules file's content changes.
- `refresh(force=False)` rescans when git HEAD or a rules file's hash differs
  from the last scan (or always, when forced). The new scan is merged 3-way:
  a field the user changed (document != `_scanned`) keeps the user's value,
  every other field takes the new scan; dict fields (`testSuites`,
  `languageBytes`) merge key by key, so a suite the user added survives a
  rescan that updates another suite's command. A field the user deleted
  stays deleted.
- A user value that is not valid for its field is set aside for the scanned
  one (the reason is in `problems`); a document that is not valid JSON is
  never overwritten — the profile is then served from a fresh scan in memory.

Rules files are found through `IgnoreRules.files()`, which is cached: whoever
sees files being created (the language server's file events) refreshes the
`IgnoreRules`; a HEAD change or a forced refresh refreshes it here.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from pydantic import ValidationError

from cairn.errors import CairnError
from cairn.files.ignore import IgnoreRules
from cairn.files.rules import hash_rules_files, rules_files_in_folder
from cairn.files.secrets import DEFAULT_SECRET_PATHS, SecretPaths
from cairn.models.profile import ProjectProfile
from cairn.profile.scan import git_head, read_git_head, scan_profile

__all__ = ["PROFILE_DOC", "SCANNED_KEY", "DocStore", "ProfileManager", "merge3", "scan_profile"]

PROFILE_DOC = "profile.json"
# Key of the last scan's values inside the document (the base of the 3-way merge).
SCANNED_KEY = "_scanned"
# Wire names of the facts whose change makes the profile stale.
GIT_HEAD_FIELD = "gitHead"
RULES_FIELD = "rulesFiles"


# What `get()` compares to notice a change: HEAD as read from disk, rules (path, hash).
Fingerprint = tuple[str | None, tuple[tuple[str, str], ...]]


class DocStore(Protocol):
    """The part of `cairn.trace.TraceStore` the profile needs."""

    def read_doc(self, name: str) -> dict[str, Any] | None: ...

    def write_doc(self, name: str, data: dict[str, Any]) -> None: ...


def merge3(base: dict[str, Any], current: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """Merge a new scan into a user-edited document, keeping the user's changes.

    `base` is what the previous scan wrote, `current` the document now, `new`
    the fresh scan. A key whose `current` value differs from `base` (or that
    the user added or deleted) is the user's: kept as is, or merged key by key
    when all three are dicts. Every other key takes `new`.
    """
    merged: dict[str, Any] = {}
    for key in dict.fromkeys([*new, *current]):
        if not _user_changed(key, base, current):
            if key in new:
                merged[key] = new[key]
            continue
        if key not in current:
            continue
        mine, old, fresh = current[key], base.get(key), new.get(key)
        if isinstance(mine, dict) and isinstance(old, dict) and isinstance(fresh, dict):
            merged[key] = merge3(old, mine, fresh)
        else:
            merged[key] = mine
    return merged


class ProfileManager:
    """Loads, refreshes and stores the profile of one workspace folder."""

    def __init__(
        self,
        folder: Path,
        store: DocStore,
        ignore: IgnoreRules,
        secrets: Callable[[], SecretPaths] = lambda: DEFAULT_SECRET_PATHS,
    ) -> None:
        self.folder = folder.resolve()
        self.store = store
        self.ignore = ignore
        # The secret-path rules in force, read at each scan (a workspace's, with the
        # user's lists; the built-in rules by default).
        self.secrets = secrets
        self.problems: list[str] = []
        self._profile: ProjectProfile | None = None
        self._seen: Fingerprint | None = None

    def get(self) -> ProjectProfile:
        """The profile: from memory while HEAD and the rules files stay as they were.

        Otherwise (first use, or a change) `refresh()`: loaded from the document,
        rescanned if stale. The check reads a few small files, no subprocess.
        """
        if self._profile is None or self._seen != self._fingerprint():
            return self.refresh()
        return self._profile

    def _fingerprint(self) -> Fingerprint:
        git_dir = self.ignore.git_dir
        head = read_git_head(git_dir) if git_dir is not None else None
        rules = hash_rules_files(self.folder, rules_files_in_folder(self.folder, self.ignore))
        return head, tuple((record.path, record.hash) for record in rules)

    def refresh(self, force: bool = False) -> ProjectProfile:
        """Rescan when stale (or `force`), merge with the user's edits, store, and return it."""
        self.problems = []
        self._seen = self._fingerprint()
        try:
            doc = self.store.read_doc(PROFILE_DOC)
        except CairnError as error:
            # Unreadable document: keep the user's file untouched, serve a fresh scan.
            self.problems.append(str(error))
            self._profile = scan_profile(self.folder, self.ignore, self.secrets())
            return self._profile
        base = doc.get(SCANNED_KEY) if doc is not None else None
        if doc is not None and isinstance(base, dict) and not force and not self._stale(base):
            self._profile = self._validated(_current(doc), base)
            return self._profile
        if doc is not None:
            self.ignore.refresh()
            self._seen = self._fingerprint()
        new = scan_profile(self.folder, self.ignore, self.secrets()).wire()
        if doc is None:
            merged = new
        else:
            merged = merge3(base if isinstance(base, dict) else {}, _current(doc), new)
        self._profile = self._validated(merged, new)
        try:
            self.store.write_doc(PROFILE_DOC, {**merged, SCANNED_KEY: new})
        except (OSError, CairnError) as error:
            # Not stored (read-only workspace...): still serve it, and say why.
            self.problems.append(f"{PROFILE_DOC}: not saved: {error}")
        return self._profile

    def _stale(self, base: dict[str, Any]) -> bool:
        if base.get(GIT_HEAD_FIELD) != git_head(self.folder):
            return True
        rules = hash_rules_files(self.folder, rules_files_in_folder(self.folder, self.ignore))
        return base.get(RULES_FIELD) != [record.wire() for record in rules]

    def _validated(self, current: dict[str, Any], fallback: dict[str, Any]) -> ProjectProfile:
        """`current` as a profile; fields the user made invalid fall back to the scanned value."""
        try:
            return ProjectProfile.model_validate(current)
        except ValidationError as error:
            bad = {str(item["loc"][0]) for item in error.errors() if item["loc"]}
            self.problems.extend(
                f"{PROFILE_DOC}: {'.'.join(map(str, item['loc']))}: {item['msg']}"
                for item in error.errors()
            )
        repaired = {key: value for key, value in current.items() if key not in bad}
        repaired.update({key: fallback[key] for key in bad if key in fallback})
        try:
            return ProjectProfile.model_validate(repaired)
        except ValidationError:
            return ProjectProfile.model_validate(fallback)


def _user_changed(key: str, base: dict[str, Any], current: dict[str, Any]) -> bool:
    """True when the user edited, added or deleted `key` since the scan `base`."""
    if key not in base:
        return key in current
    return key not in current or current[key] != base[key]


def _current(doc: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in doc.items() if key != SCANNED_KEY}
