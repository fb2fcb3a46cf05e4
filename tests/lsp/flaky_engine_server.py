"""`cairn serve` whose engine cannot start while `ENGINE_FAILS_FILE` exists in the workspace.

A real server and a real engine; only the cause of the failure is staged (no
real condition fails the engine's construction reliably on every machine), so
a test can show that a failed start is retried once the cause is gone.
Run: `python tests/lsp/flaky_engine_server.py` (stdio), from the workspace.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from cairn.commands.serve import configure_logging, guard_stdout

ENGINE_FAILS_FILE = "engine-fails"


def flaky_engine(folders: list[Path], settings: Any, **callbacks: Any) -> Any:
    from cairn.lsp.engine_host import default_engine

    marker = folders[0] / ENGINE_FAILS_FILE
    if marker.exists():
        raise RuntimeError(f"staged failure: {marker} exists")
    return default_engine(folders, settings, **callbacks)


def main() -> int:
    protocol_out = guard_stdout()
    configure_logging()
    from cairn.lsp.server import create_server
    from cairn.lsp.transport import serve_stdio

    return serve_stdio(create_server(flaky_engine), sys.stdin.buffer, protocol_out)


if __name__ == "__main__":
    sys.exit(main())
