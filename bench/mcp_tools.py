"""MCP tools in a context build: the cost of offering (or deferring) 69 MCP tools, and their tokens.

Usage:
    .venv/bin/python -m bench.mcp_tools [--generated 60] [--repeats 30] [--write]

Starts the fixture MCP server (`tests/fakes/mcp_server.py`, the SDK's
`MCPServer` over stdio) with `--generated` extra tools once, then times, in
the same process and interleaved, one main-agent context build
(`Engine.scope` — which makes the turn's `ToolOffer` — then `Contexts.build`)
in three settings: no MCP server (the peer), the MCP tools deferred behind
`tool_search` (the default share), and all of them offered
(`tool_search_share = 1`). Prints the median build time of each, the ratio to
the peer, and the tool-schema tokens each call sends; `--write` records the
run (`bench/history/mcp_tools.jsonl`, `bench/RESULTS.md`).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from tests.fakes.mcp_fixture import fixture_server

from bench.harness.machine import current_machine
from bench.harness.records import Figure
from bench.harness.writer import record, this_run
from cairn.agent.engine import Engine
from cairn.agent.scope.inputs import TurnInputs
from cairn.mcp import EMPTY_CATALOG, McpCatalog
from cairn.settings import Settings

DESCRIPTION = "the cost of offering or deferring MCP tools in a context build"
MODEL = "scripted/none.jsonl"


def build_seconds(engine: Engine, catalog: McpCatalog) -> tuple[float, int]:
    """One build's wall time and the tool-schema tokens it sends."""
    session = engine.session()
    inputs = TurnInputs(model=MODEL, mode="build", user_message="hello")
    start = time.perf_counter()
    built = engine.contexts.build(engine.scope(session, inputs, catalog=catalog))
    return time.perf_counter() - start, built.stats.tool_schema_tokens


async def measure(generated: int, repeats: int, write: bool) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / "app.py").write_text("def add(a, b):\n    return a + b\n")
        servers = {"gen": fixture_server("--generated", str(generated))}
        engine = Engine(
            [root], Settings.model_validate({"model": MODEL, "mcp": {"servers": servers}})
        )
        try:
            catalog = await engine.mcp.catalog(engine.active_session_id)
            tools = len(catalog.tools)
            cases = {
                "no MCP server": (EMPTY_CATALOG, 0.1),
                "deferred": (catalog, 0.1),
                "offered": (catalog, 1.0),
            }
            times: dict[str, list[float]] = {name: [] for name in cases}
            tokens: dict[str, int] = {}
            for _ in range(repeats + 1):  # the first round warms caches and is not kept
                for name, (which, share) in cases.items():
                    engine.config.current.mcp.tool_search_share = share
                    seconds, tokens[name] = build_seconds(engine, which)
                    times[name].append(seconds)
            peer = statistics.median(times["no MCP server"][1:])
            lines = [
                f"machine: {current_machine().describe()}",
                f"{tools} MCP tools, {repeats} builds each (medians):",
            ]
            figures: list[Figure] = []
            for name, values in times.items():
                median = statistics.median(values[1:])
                lines.append(
                    f"  {name:14} {median * 1000:7.1f} ms  ({median / peer:.2f}x the peer)"
                    f"  tool schemas sent: {tokens[name]} tokens"
                )
                if name != "no MCP server":
                    figures.append(
                        Figure(
                            f"context build, {tools} MCP tools {name}, median",
                            round(median * 1000, 1),
                            "ms",
                            round(peer * 1000, 1),
                            "no MCP server",
                        )
                    )
            text = "\n".join(lines)
            print(text)
            if write:
                record(this_run("mcp_tools", figures, text))
        finally:
            await engine.aclose()


def main() -> None:
    parser = argparse.ArgumentParser(description=DESCRIPTION)
    parser.add_argument("--generated", type=int, default=60)
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument(
        "--write", action="store_true", help="record the run and regenerate bench/RESULTS.md"
    )
    args = parser.parse_args()
    asyncio.run(measure(args.generated, args.repeats, args.write))


if __name__ == "__main__":
    main()
