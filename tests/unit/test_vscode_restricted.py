"""The VS Code extension's `restrictedConfigurations` cover what an untrusted folder may not set.

VS Code ignores a workspace's `.vscode/settings.json` value of each setting the
extension lists there while the folder is in Restricted Mode. The list must be
the server launch and the editor's name of every key the server ignores in an
untrusted `cairn.toml` (`EXEC_KEYS`): one missing is a program or an endpoint
the folder chooses before the user trusts it (docs/SECURITY.md).
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic.alias_generators import to_camel

from cairn.settings import EXEC_KEYS

PACKAGE_JSON = Path(__file__).resolve().parents[2] / "client-vscode" / "package.json"
LAUNCH = ("cairn.server.command", "cairn.server.pythonPath")


def test_restricted_configurations_are_the_launch_and_the_exec_keys() -> None:
    package = json.loads(PACKAGE_JSON.read_text(encoding="utf-8"))
    untrusted = package["capabilities"]["untrustedWorkspaces"]
    assert untrusted["supported"] == "limited"
    listed = untrusted["restrictedConfigurations"]
    expected = [*LAUNCH, *(f"cairn.{to_camel(key)}" for key in EXEC_KEYS)]
    assert sorted(listed) == sorted(expected)
    settings = package["contributes"]["configuration"]["properties"]
    assert [key for key in listed if key not in settings] == []
