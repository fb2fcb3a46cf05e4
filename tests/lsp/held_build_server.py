"""`cairn serve` whose context builds wait at a step while the test holds that step.

A real server and a real engine; only the moment is staged: a test cannot
otherwise stop a build at a known point. The folder given as the argument
holds the switches: while `hold-gather` (or `hold-assemble`) exists there,
each gather (or assembly) that starts writes `held-gather` (`held-assemble`)
and waits, on whatever thread runs it, until the test deletes the switch.
Run: `python tests/lsp/held_build_server.py HOLD_DIR` (stdio), from the workspace.
"""

from __future__ import annotations

import functools
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cairn.commands.serve import configure_logging, guard_stdout

STEPS = ("gather", "assemble")
POLL_S = 0.01


def switch(folder: Path, step: str) -> Path:
    """The file that holds `step` while it exists."""
    return folder / f"hold-{step}"


def held_marker(folder: Path, step: str) -> Path:
    """The file a held `step` writes once it waits."""
    return folder / f"held-{step}"


def holding(folder: Path, step: str, work: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(work)
    def held(*args: Any, **kwargs: Any) -> Any:
        if switch(folder, step).exists():
            held_marker(folder, step).touch()
            while switch(folder, step).exists():
                time.sleep(POLL_S)
        return work(*args, **kwargs)

    return held


def held_engine(folder: Path) -> Callable[..., Any]:
    def build(folders: list[Path], settings: Any, **callbacks: Any) -> Any:
        from cairn.lsp.engine_host import default_engine

        engine: Any = default_engine(folders, settings, **callbacks)
        builder = engine.builder  # the one builder every build of the engine goes through
        for step in STEPS:
            setattr(builder, step, holding(folder, step, getattr(builder, step)))
        return engine

    return build


def main() -> int:
    protocol_out = guard_stdout()
    configure_logging()
    from cairn.lsp.server import create_server
    from cairn.lsp.transport import serve_stdio

    engine = held_engine(Path(sys.argv[1]))
    return serve_stdio(create_server(engine), sys.stdin.buffer, protocol_out)


if __name__ == "__main__":
    sys.exit(main())
