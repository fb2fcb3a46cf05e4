"""ProfileManager: `.cairn/profile.json` is written once, refreshed on HEAD/rules change, user edits kept."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

import cairn.profile.store as profile_module
from cairn.files.ignore import IgnoreRules
from cairn.files.secrets import DEFAULT_SECRET_PATHS, SecretPaths
from cairn.models.profile import ProjectProfile
from cairn.profile.scan import read_git_head
from cairn.profile.store import PROFILE_DOC, SCANNED_KEY, ProfileManager, merge3
from cairn.trace import TraceStore

FIXTURES = Path(__file__).resolve().parents[1] / "workspaces"


def git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t", *args],
        check=True,
        capture_output=True,
    )


class ScanCounter:
    """Wraps scan_profile to count how often the manager really scans."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls = 0
        self._scan = profile_module.scan_profile
        monkeypatch.setattr(profile_module, "scan_profile", self)

    def __call__(
        self, folder: Path, ignore: IgnoreRules, secrets: SecretPaths = DEFAULT_SECRET_PATHS
    ) -> ProjectProfile:
        self.calls += 1
        return self._scan(folder, ignore, secrets)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "py_project"
    shutil.copytree(FIXTURES / "py_project", root)
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial")
    return root


@pytest.fixture
def counter(monkeypatch: pytest.MonkeyPatch) -> ScanCounter:
    return ScanCounter(monkeypatch)


def manager_for(root: Path) -> ProfileManager:
    return ProfileManager(root, TraceStore(root / ".cairn"), IgnoreRules.for_folder(root))


def doc_path(root: Path) -> Path:
    return root / ".cairn" / PROFILE_DOC


def edit_doc(root: Path, **changes: Any) -> None:
    doc = json.loads(doc_path(root).read_text())
    doc.update(changes)
    doc_path(root).write_text(json.dumps(doc))


def test_first_get_scans_and_writes_a_reviewable_doc(project: Path, counter: ScanCounter) -> None:
    profile = manager_for(project).get()
    assert counter.calls == 1
    doc = json.loads(doc_path(project).read_text())
    assert doc["packageManagers"] == ["uv"]
    assert doc[SCANNED_KEY]["testSuites"] == {"pytest": "uv run pytest"}
    assert profile.git_head is not None and len(profile.git_head) == 40
    # Another manager (a restart) loads the stored doc instead of scanning again.
    again = manager_for(project)
    assert again.get() == profile
    assert again.get() == profile
    assert counter.calls == 1


def test_refresh_without_change_does_not_rescan(project: Path, counter: ScanCounter) -> None:
    manager = manager_for(project)
    manager.get()
    (project / "src/pyapp/extra.js").write_text("let a = 1;\n")
    assert "javascript" not in manager.refresh().languages
    assert counter.calls == 1


def test_head_change_triggers_a_rescan(project: Path, counter: ScanCounter) -> None:
    manager = manager_for(project)
    first = manager.get()
    (project / "src/pyapp/extra.js").write_text("let a = 1;\n")
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "js")
    refreshed = manager.refresh()
    assert counter.calls == 2
    assert refreshed.git_head != first.git_head
    assert "javascript" in refreshed.languages


def test_rules_hash_change_triggers_a_rescan(project: Path, counter: ScanCounter) -> None:
    manager = manager_for(project)
    first = manager.get()
    (project / "AGENTS.md").write_text("# new rules\n")
    refreshed = manager.refresh()
    assert counter.calls == 2
    assert refreshed.rules_files[0].hash != first.rules_files[0].hash
    assert refreshed.git_head == first.git_head


def test_user_edit_survives_a_refresh(project: Path) -> None:
    manager = manager_for(project)
    manager.get()
    edit_doc(
        project,
        packageManagers=["uv", "hatch"],
        testSuites={"pytest": "uv run pytest", "e2e": "uv run pytest -m e2e"},
        importantPaths=None,
    )
    # The project changes in ways that alter other fields and the scanned pytest command.
    (project / "uv.lock").unlink()
    (project / "AGENTS.md").write_text("# changed rules\n")
    (project / "src/pyapp/extra.js").write_text("let a = 1;\n")
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "drop uv, add js")
    profile = manager.refresh()
    assert manager.problems == ["profile.json: importantPaths: Input should be a valid list"]
    # The user's values survive...
    assert profile.package_managers == ["uv", "hatch"]
    assert profile.test_suites["e2e"] == "uv run pytest -m e2e"
    # ...fields (and dict keys) the user did not touch follow the new scan.
    assert profile.test_suites["pytest"] == "pytest"
    assert profile.languages == ["python", "javascript"]
    assert profile.rules_files[0].hash != ""
    doc = json.loads(doc_path(project).read_text())
    assert doc["packageManagers"] == ["uv", "hatch"]
    assert doc[SCANNED_KEY]["packageManagers"] == ["pip"]
    # A later refresh still knows which fields are the user's.
    assert manager_for(project).refresh(force=True).package_managers == ["uv", "hatch"]


def test_corrupt_doc_is_never_overwritten(project: Path) -> None:
    manager_for(project).get()
    doc_path(project).write_text("{ broken json")
    manager = manager_for(project)
    profile = manager.refresh(force=True)
    assert profile.package_managers == ["uv"]
    assert "not valid JSON" in manager.problems[0]
    assert doc_path(project).read_text() == "{ broken json"


def test_merge3_keeps_user_changes_and_deletions() -> None:
    base = {"a": 1, "b": [1], "d": {"x": "1", "y": "2"}, "gone": 5}
    current = {"a": 1, "b": [1, 2], "d": {"x": "1", "z": "mine"}, "added": True}
    new = {"a": 2, "b": [3], "d": {"x": "new", "y": "new"}, "gone": 6, "fresh": 0}
    assert merge3(base, current, new) == {
        "a": 2,
        "b": [1, 2],
        "d": {"x": "new", "z": "mine"},
        "fresh": 0,
        "added": True,
    }


def test_get_notices_head_and_rules_changes_by_itself(project: Path, counter: ScanCounter) -> None:
    manager = manager_for(project)
    first = manager.get()
    assert manager.get() is first
    assert counter.calls == 1
    (project / "AGENTS.md").write_text("# edited rules\n")
    second = manager.get()
    assert counter.calls == 2
    assert second.rules_files[0].hash != first.rules_files[0].hash
    assert manager.get() is second
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "rules")
    third = manager.get()
    assert counter.calls == 3
    assert third.git_head != first.git_head
    assert manager.get() is third


def test_head_is_read_from_packed_refs_and_detached_heads(project: Path) -> None:
    manager = manager_for(project)
    head = manager.get().git_head
    git_dir = project / ".git"
    assert read_git_head(git_dir) == head
    git(project, "pack-refs", "--all")
    assert read_git_head(git_dir) == head
    git(project, "checkout", "-q", "--detach")
    assert read_git_head(git_dir) == head


class ReadOnlyStore:
    """A store whose writes fail, like a read-only workspace."""

    def read_doc(self, name: str) -> dict[str, Any] | None:
        return None

    def write_doc(self, name: str, data: dict[str, Any]) -> None:
        raise PermissionError(13, "Permission denied")


def test_unwritable_store_still_serves_the_profile(project: Path) -> None:
    manager = ProfileManager(project, ReadOnlyStore(), IgnoreRules.for_folder(project))
    assert manager.get().package_managers == ["uv"]
    assert manager.problems == ["profile.json: not saved: [Errno 13] Permission denied"]
