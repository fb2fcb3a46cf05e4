"""A real MCP server (the official SDK's `MCPServer`, FastMCP style) for tests, run over stdio.

`python tests/fakes/mcp_server.py [--generated N] [--starts FILE] [--exit-at-start]`

Its tools, defined out of name order on purpose (Cairn sorts them):
- `write_note(title, body?)` — not marked read-only (plan mode refuses it);
  appends to `--notes FILE` when given.
- `echo(text)` — read-only.
- `big_output(lines)` — read-only, `lines` numbered lines of text.
- `picture()` — read-only, a small PNG image and a text line.
- `find_note(key)` — read-only, a resource link to `notes://{key}`.
- `crash()` — the process exits in the middle of the call.
- `exit_later()` — answers, then the process exits a moment later (while idle).
- `--generated N` more: `gen_tool_00` … with realistic descriptions and four
  parameters each (read-only), for the schema-deferral tests.

- `grow()` — adds a tool `grown` and tells the client its tool list changed.
- `header(name)` — read-only, the value of an HTTP request header (over HTTP).

Resources: `notes://readme` (text). `--starts FILE` appends one line per
process start (so tests count restarts); `--exit-at-start` writes to stderr
and exits before serving (a server that cannot start); `--http PORT` serves
streamable HTTP on 127.0.0.1:PORT (path `/mcp`) instead of stdio.
`--hang-at-exit` makes a server that will not stop: it ignores SIGTERM and,
when its stdin ends, keeps running (only SIGKILL ends it).
`--list-ttl-ms MS` puts `ttlMs` on its `tools/list` results (2026-07-28);
`--rotate-list` lists its tools in another order each time; `--listings FILE`
appends one line per `tools/list` it answers (so tests count them).
`--ask` adds `order()`, which asks the user a form (MCP elicitation: a name,
a size out of two, a count from 1 to 5, a yes/no) through the SDK's resolver
(`Resolve(Elicit)`: an `InputRequiredResult` answered on a retry under
2026-07-28, a request in the middle of the call before) and answers with
the action and the values.
"""

from __future__ import annotations

import argparse
import base64
import os
import signal
import sys
import threading
from pathlib import Path
from typing import Annotated, Literal

from mcp.server.caching import CacheableMethod, CacheHint
from mcp.server.mcpserver import (
    AcceptedElicitation,
    Context,
    Elicit,
    ElicitationResult,
    MCPServer,
    Resolve,
)
from mcp.types import ContentBlock, ImageContent, ResourceLink, TextContent, Tool, ToolAnnotations
from pydantic import BaseModel, Field

READ_ONLY = ToolAnnotations(read_only_hint=True)
# A 1x1 transparent PNG.
PNG_1X1 = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)
EXIT_AT_START_CODE = 7
CRASH_CODE = 3
EXIT_LATER_S = 0.2
TOPICS = (
    "weather forecasts",
    "invoice records",
    "customer tickets",
    "deployment logs",
    "calendar events",
    "inventory levels",
    "build artifacts",
    "translation memories",
    "sensor readings",
    "payroll entries",
)


class ListingServer(MCPServer):
    """Counts its `tools/list` answers and, when asked, rotates their order each time."""

    def __init__(self, listings: Path | None, rotate: bool, ttl_ms: int | None) -> None:
        hints: dict[CacheableMethod, CacheHint] | None = (
            {"tools/list": CacheHint(ttl_ms=ttl_ms)} if ttl_ms is not None else None
        )
        super().__init__("fixture", instructions="Test fixture server.", cache_hints=hints)
        self.listings, self.rotate, self.listed = listings, rotate, 0

    async def list_tools(self) -> list[Tool]:
        tools = await super().list_tools()
        self.listed += 1
        if self.listings is not None:
            with self.listings.open("a", encoding="utf-8") as out:
                out.write(f"{self.listed}\n")
        if self.rotate:
            turn = self.listed % len(tools)
            tools = tools[turn:] + tools[:turn]
        return tools


def build(
    notes: Path | None,
    generated: int,
    listings: Path | None = None,
    rotate: bool = False,
    ttl_ms: int | None = None,
) -> MCPServer:
    server = ListingServer(listings, rotate, ttl_ms)

    @server.tool(description="Write a note with a title and a body.")
    def write_note(title: str, body: str = "") -> str:
        if notes is not None:
            with notes.open("a", encoding="utf-8") as out:
                out.write(f"{title}: {body}\n")
        return f"wrote note {title!r}"

    @server.tool(annotations=READ_ONLY, description="Echo the text back.")
    def echo(text: str) -> str:
        return text

    @server.tool(annotations=READ_ONLY, description="Print many numbered lines.")
    def big_output(lines: int) -> str:
        return "\n".join(f"line {n:05d} of the big output" for n in range(1, lines + 1))

    @server.tool(annotations=READ_ONLY, description="Return a tiny picture.")
    def picture() -> list[ContentBlock]:
        data = base64.b64encode(PNG_1X1).decode("ascii")
        return [
            TextContent(type="text", text="a picture follows"),
            ImageContent(type="image", data=data, mime_type="image/png"),
        ]

    @server.tool(annotations=READ_ONLY, description="Find a note by key (a resource link).")
    def find_note(key: str) -> list[ContentBlock]:
        return [
            ResourceLink(
                type="resource_link",
                name=key,
                uri=f"notes://{key}",
                mime_type="text/markdown",
                description="the note",
            )
        ]

    @server.tool(description="Exit the server process in the middle of the call.")
    def crash() -> str:
        sys.stderr.write("crashing on purpose\n")
        sys.stderr.flush()
        os._exit(CRASH_CODE)

    @server.tool(annotations=READ_ONLY, description="The value of one HTTP request header.")
    def header(name: str, ctx: Context) -> str:
        headers = ctx.headers or {}
        return str(headers.get(name.lower(), headers.get(name, "(not sent)")))

    @server.tool(annotations=READ_ONLY, description="Answer, then exit a moment later.")
    def exit_later() -> str:
        threading.Timer(EXIT_LATER_S, os._exit, args=(CRASH_CODE,)).start()
        return "bye"

    @server.tool(description="Add the tool `grown` and announce the changed tool list.")
    async def grow(ctx: Context) -> str:
        server.add_tool(lambda: "grown", name="grown", description="Added at run time.")
        await ctx.notify_tools_changed()  # to `subscriptions/listen` subscribers (2026-07-28)
        return "grew"

    @server.resource("notes://readme", mime_type="text/markdown")
    def readme() -> str:
        return "# Readme\nThe fixture's notes live here."

    for index in range(generated):
        add_generated(server, index)
    return server


class Order(BaseModel):
    """The form `order()` asks for."""

    name: str = Field(title="Your name", description="Who the order is for")
    size: Literal["small", "large"] = Field(title="Size")
    count: int = Field(title="How many", ge=1, le=5)
    gift: bool = Field(default=False, title="Gift wrap")


def ask_order() -> Elicit[Order]:
    return Elicit("Which order should I place?", Order)


def add_asking(server: MCPServer) -> None:
    @server.tool(description="Ask the user for an order (a form) and say what they answered.")
    async def order(answer: Annotated[ElicitationResult[Order], Resolve(ask_order)]) -> str:
        if isinstance(answer, AcceptedElicitation):
            return f"accept {answer.data.model_dump_json()}"
        return answer.action


def add_generated(server: MCPServer, index: int) -> None:
    topic = TOPICS[index % len(TOPICS)]

    def generated(query: str, limit: int = 10, region: str = "", include_archived: bool = False):
        return f"gen_tool_{index:02d}: {query} (limit {limit}, region {region or 'any'})"

    server.add_tool(
        generated,
        name=f"gen_tool_{index:02d}",
        description=(
            f"Search the {topic} of shard {index} by a free-text query. Returns matching"
            " entries with their identifiers, timestamps and a short summary of each, newest"
            " first. Use `limit` to bound the number of entries, `region` to restrict the"
            " search to one region code, and `include_archived` to include entries that were"
            " archived more than ninety days ago."
        ),
        annotations=READ_ONLY,
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--generated", type=int, default=0)
    parser.add_argument("--starts", type=Path)
    parser.add_argument("--notes", type=Path)
    parser.add_argument("--exit-at-start", action="store_true")
    parser.add_argument("--http", type=int, metavar="PORT")
    parser.add_argument("--hang-at-exit", action="store_true")
    parser.add_argument("--list-ttl-ms", type=int)
    parser.add_argument("--rotate-list", action="store_true")
    parser.add_argument("--listings", type=Path)
    parser.add_argument("--ask", action="store_true")
    args = parser.parse_args()
    if args.hang_at_exit:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if args.starts is not None:
        with args.starts.open("a", encoding="utf-8") as out:
            out.write(f"{os.getpid()}\n")
    if args.exit_at_start:
        sys.stderr.write("fixture: cannot open its database\n")
        sys.stderr.flush()
        sys.exit(EXIT_AT_START_CODE)
    server = build(args.notes, args.generated, args.listings, args.rotate_list, args.list_ttl_ms)
    if args.ask:
        add_asking(server)
    if args.http is not None:
        server.run("streamable-http", host="127.0.0.1", port=args.http)
    else:
        server.run("stdio")
    if args.hang_at_exit:
        threading.Event().wait()


if __name__ == "__main__":
    main()
