"""Fixtures: a tmp workspace with a scripted model, and `cairn serve` started as each editor.

Every test using `start` runs twice, once with VS Code's and once with
Neovim's client capabilities (as esbonio does).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from tests.lsp.harness import EDITORS, CairnClient, Starter, start_client, write_workspace


@pytest.fixture(params=EDITORS)
def editor(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest_asyncio.fixture
async def start(editor: str, tmp_path: Path) -> AsyncIterator[Starter]:
    """`await start(script=[...], settings={...}, files={...}, options=..., experimental=...)`
    → an initialized client."""
    clients: list[CairnClient] = []

    async def starter(
        *,
        script: list[dict[str, Any]] | None = None,
        settings: dict[str, Any] | None = None,
        files: dict[str, str] | None = None,
        options: Any = None,
        experimental: Any = None,
    ) -> CairnClient:
        root = write_workspace(tmp_path / "ws", script=script, settings=settings, files=files)
        client = await start_client(editor, root, options, experimental=experimental)
        clients.append(client)
        return client

    yield starter
    for client in clients:
        try:
            await client.shutdown_session()
        finally:
            await client.stop()
