"""`cairn/projectProfile`: the ProjectProfile shape, with and without refresh."""

from __future__ import annotations

import pytest
from pygls.exceptions import JsonRpcInvalidParams

from tests.lsp.harness import Starter

PROFILE_KEYS = {"languages", "packageManagers", "testSuites", "importantPaths", "rulesFiles"}


async def test_project_profile_has_the_protocol_shape(start: Starter) -> None:
    client = await start(
        files={
            "pyproject.toml": "[project]\nname = 'x'\n",
            "AGENTS.md": "# Rules\n",
            "x.py": "a = 1\n",
        }
    )
    profile = await client.request("cairn/projectProfile", {})
    assert set(profile) >= PROFILE_KEYS
    assert "python" in [language.lower() for language in profile["languages"]]
    assert all(set(rule) == {"path", "hash"} for rule in profile["rulesFiles"])
    assert "AGENTS.md" in [rule["path"] for rule in profile["rulesFiles"]]
    refreshed = await client.request("cairn/projectProfile", {"refresh": True})
    assert set(refreshed) >= PROFILE_KEYS
    with pytest.raises(JsonRpcInvalidParams, match="refresh"):
        await client.request("cairn/projectProfile", {"refresh": "yes"})
