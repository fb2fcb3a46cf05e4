"""The pure parts of MCP support: names, specs, search, results, deferral, variables, settings."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import mcp_types
import pytest

from cairn.agent.scope.offer import make_offer, split_by_mode
from cairn.agent.tools import default_registry
from cairn.agent.tools.tool_search import ToolSearch
from cairn.context.tool_schemas import defer_mcp_schemas, schema_text
from cairn.errors import SettingsError
from cairn.files.settings_layers import load_settings
from cairn.mcp import McpCatalog, McpToolSpec, ServerStatus
from cairn.mcp.results import format_size, render_content, render_resource
from cairn.mcp.search import search_tools
from cairn.mcp.state import MAX_RESTARTS, RESTART_MAX_S, restart_delay
from cairn.mcp.tools import MAX_TOOL_NAME_CHARS, hint_words, qualified_name, tool_specs
from cairn.mcp.transport import McpConfigError, expand, expanded
from cairn.settings import McpServerSettings, Mode, Settings, validate_settings
from cairn.tokens.counter import count_tokens

MODEL = "scripted/script.jsonl"
PROVIDER_NAME_CHARS = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")


def tool(name: str, description: str = "", read_only: bool | None = None, **props: Any) -> Any:
    annotations = mcp_types.ToolAnnotations(read_only_hint=read_only) if read_only else None
    schema = {"type": "object", "properties": {k: {"type": v} for k, v in props.items()}}
    return mcp_types.Tool(
        name=name, description=description, input_schema=schema, annotations=annotations
    )


def stdio(**extra: Any) -> McpServerSettings:
    return McpServerSettings.model_validate({"command": "server", **extra})


# -- names and specs ------------------------------------------------------------


def test_names_are_namespaced_and_safe_for_providers() -> None:
    assert qualified_name("docs", "search") == "mcp__docs__search"
    odd = qualified_name("docs", "files.read/all")
    assert odd.startswith("mcp__docs__files_read_all") and set(odd) <= PROVIDER_NAME_CHARS
    long = qualified_name("server", "x" * 100)
    assert len(long) == MAX_TOOL_NAME_CHARS and set(long) <= PROVIDER_NAME_CHARS
    assert qualified_name("server", "x" * 100) == long  # the same tool, the same name
    clash = qualified_name("docs", "a.b", taken={"mcp__docs__a_b"})
    assert clash != "mcp__docs__a_b" and clash.startswith("mcp__docs__a_b_")


def test_specs_are_sorted_and_only_the_user_allows_a_tool_whatever_its_hints() -> None:
    tools = [tool("write", "Write."), tool("read", "Read.", read_only=True), tool("deploy")]
    specs = tool_specs("srv", tools, stdio(allowed_tools=["deploy"]))
    assert [s.name for s in specs] == ["mcp__srv__deploy", "mcp__srv__read", "mcp__srv__write"]
    flags = {s.tool: (s.read_only, s.allowed) for s in specs}
    # A server's readOnlyHint narrows plan mode; it never lets a call skip the user.
    assert flags == {"deploy": (False, True), "read": (True, False), "write": (False, False)}
    assert specs[0].description == "Tool deploy of the MCP server srv."
    assert specs[0].ref == "mcp:srv/deploy"
    everything = tool_specs("srv", tools, stdio(allowed_tools=["*"]))
    assert all(s.allowed for s in everything)


def test_hints_take_the_specs_defaults_and_read_only_is_never_destructive() -> None:
    hinted = mcp_types.ToolAnnotations
    tools = [
        mcp_types.Tool(name="plain", input_schema={"type": "object"}),
        mcp_types.Tool(
            name="reader",
            input_schema={"type": "object"},
            annotations=hinted(read_only_hint=True, destructive_hint=True, open_world_hint=False),
        ),
        mcp_types.Tool(
            name="adder",
            input_schema={"type": "object"},
            annotations=hinted(read_only_hint=False, destructive_hint=False),
        ),
    ]
    specs = tool_specs("srv", tools, stdio())
    words = {s.tool: hint_words(s.read_only, s.destructive, s.open_world) for s in specs}
    assert words == {
        "plain": ["destructive", "open-world"],
        "reader": ["read-only"],
        "adder": ["open-world"],
    }


# -- search ----------------------------------------------------------------------


def specs_for_search() -> list[McpToolSpec]:
    tools = [
        tool("create_issue", "Create an issue in a repository.", title="string"),
        tool("list_issues", "List the issues of a repository.", state="string"),
        tool("get_weather", "The weather forecast of a city.", city="string"),
    ]
    return tool_specs("gh", tools, stdio())


def test_search_by_keywords_ranks_the_tool_name_highest() -> None:
    found = search_tools("create issue", specs_for_search())
    # list_issues shares only the common word: too weak a match to reveal.
    assert [s.tool for s in found] == ["create_issue"]
    assert [s.tool for s in search_tools("issue", specs_for_search())] == [
        "create_issue",
        "list_issues",
    ]
    assert [s.tool for s in search_tools("city forecast", specs_for_search())] == ["get_weather"]
    assert search_tools("database migration", specs_for_search()) == []


def wild_specs() -> list[McpToolSpec]:
    """The tools of mcp-server-time, server-everything and server-filesystem, as they
    describe themselves (abridged descriptions)."""
    time_tools = [
        tool("get_current_time", "Get current time in a specific timezone", timezone="string"),
        tool(
            "convert_time",
            "Convert time between timezones",
            source_timezone="string",
            time="string",
            target_timezone="string",
        ),
    ]
    everything = [
        tool("echo", "Echoes back the input", message="string"),
        tool("add", "Adds two numbers", a="number", b="number"),
        tool(
            "gzip-file-as-resource",
            "Compresses a single file using gzip compression. Depending upon the selected"
            " output type, returns either the compressed data as a gzipped resource or a"
            " resource link, allowing it to be downloaded in a subsequent request during the"
            " current session.",
            data="string",
            outputType="string",
        ),
        tool("long-running-operation", "Demonstrates a long running operation", steps="number"),
        tool("get-tiny-image", "Returns the MCP_TINY_IMAGE"),
    ]
    filesystem = [
        tool(
            "get_file_info",
            "Retrieve detailed metadata about a file or directory: size, creation time,"
            " last modified time, permissions and type.",
            path="string",
        ),
        tool(
            "search_files",
            "Recursively search for files and directories matching a pattern. Searches"
            " through all subdirectories from the starting path.",
            path="string",
            pattern="string",
        ),
        tool("read_text_file", "Read the complete contents of a file", path="string"),
    ]
    return [
        *tool_specs("time", time_tools, stdio()),
        *tool_specs("everything", everything, stdio()),
        *tool_specs("fs", filesystem, stdio()),
    ]


def test_search_reveals_the_tools_a_query_is_about_not_every_word_match() -> None:
    found = {s.tool for s in search_tools("current time timezone", wild_specs())}
    assert found == {"get_current_time", "convert_time"}
    found = {s.tool for s in search_tools("file metadata size", wild_specs())}
    assert found == {"get_file_info"}


def test_the_limit_and_threshold_of_a_search_are_settings() -> None:
    query, specs = "current time timezone", wild_specs()
    assert len(search_tools(query, specs, limit=1)) == 1
    # A lower threshold lets weaker matches in (a file tool mentioning a modification time).
    loose = {s.tool for s in search_tools(query, specs, threshold=0.01)}
    assert loose == {"get_current_time", "convert_time", "get_file_info", "gzip-file-as-resource"}
    settings = Settings.model_validate(
        {"context_window": 4_096, "mcp": {"tool_search_limit": 2, "tool_search_threshold": 0.05}}
    )
    offer = make_offer(
        default_registry(), "build", catalog_of(specs), model=MODEL, settings=settings
    )
    search = offer.registry.get("tool_search")
    assert isinstance(search, ToolSearch) and (search.limit, search.threshold) == (2, 0.05)
    limit = search.schema()["function"]["parameters"]["properties"]["limit"]
    assert limit["maximum"] == 2 and "(default and most: 2)" in limit["description"]
    for wrong in ({"tool_search_limit": 0}, {"tool_search_threshold": 0}):
        with pytest.raises(ValueError, match="tool_search_"):
            Settings.model_validate({"mcp": wrong})


def test_search_by_exact_names_and_select() -> None:
    specs = specs_for_search()
    assert [s.tool for s in search_tools("mcp__gh__list_issues", specs)] == ["list_issues"]
    assert [s.tool for s in search_tools("gh/get_weather", specs)] == ["get_weather"]
    picked = search_tools("select:create_issue, mcp__gh__get_weather", specs)
    assert [s.tool for s in picked] == ["create_issue", "get_weather"]
    assert len(search_tools("issue", specs, limit=1)) == 1


# -- results --------------------------------------------------------------------


def test_results_become_text_with_binaries_noted_and_links_as_references() -> None:
    image = base64.b64encode(b"\x89PNG" + b"0" * 2044).decode()
    stored: list[tuple[bytes, str]] = []

    def store(data: bytes, kind: str) -> str:
        stored.append((data, kind))
        return "image-1"

    blocks = [
        mcp_types.TextContent(type="text", text="hello"),
        mcp_types.ImageContent(type="image", data=image, mime_type="image/png"),
        mcp_types.ResourceLink(type="resource_link", name="log", uri="file:///log", size=2048),
        mcp_types.EmbeddedResource(
            type="resource",
            resource=mcp_types.TextResourceContents(uri="mem://a", text="embedded text"),
        ),
    ]
    text = render_content("srv", blocks, structured={"ignored": True}, store=store)
    lines = text.splitlines()
    assert lines[0] == "hello"
    assert lines[1] == "[image image/png, 2.0 KB, kept as artifact image-1; not shown to the model]"
    assert lines[2] == (
        "[resource log (2.0 KB) — read it with read_file(path='mcp:srv/file:///log')]"
    )
    assert lines[3:] == ["[resource mem://a]", "embedded text"]
    assert stored == [(base64.b64decode(image), "image")]
    assert "ignored" not in text  # structured content only stands in for missing text


def test_structured_content_and_empty_results() -> None:
    assert render_content("srv", [], structured={"rows": 2}) == '{\n  "rows": 2\n}'
    assert render_content("srv", []) == "(no output)"
    blob = mcp_types.BlobResourceContents(uri="mem://b", blob=base64.b64encode(b"xy").decode())
    assert render_resource([blob]) == "[mem://b] [blob, 2 B; not shown to the model]"
    assert [format_size(n) for n in (12, 1536, 3 * 1024 * 1024)] == ["12 B", "1.5 KB", "3.0 MB"]


# -- deferral, restarts -----------------------------------------------------------


def test_schemas_are_deferred_only_past_the_share_of_the_input() -> None:
    assert not defer_mcp_schemas(1_000, 10_000, 0.1)
    assert defer_mcp_schemas(1_001, 10_000, 0.1)
    assert not defer_mcp_schemas(5_000, 10_000, 0.5)


def test_restarts_back_off_exponentially_up_to_a_cap() -> None:
    delays = [restart_delay(n) for n in range(1, MAX_RESTARTS + 10)]
    assert delays == sorted(delays) and delays[1] == 2 * delays[0]
    assert max(delays) == RESTART_MAX_S


# -- offers ---------------------------------------------------------------------


def catalog_of(specs: list[McpToolSpec], *unavailable: ServerStatus) -> McpCatalog:
    ready = ServerStatus("gh", "stdio", "server", "settings", "ready", None, tuple(specs))
    return McpCatalog(session_id=None, servers=(ready, *unavailable))


def test_read_only_modes_and_branches_offer_only_read_only_tools() -> None:
    specs = tool_specs("gh", [tool("read", read_only=True), tool("write")], stdio())
    assert [[s.tool for s in part] for part in split_by_mode(specs, "build", False)] == [
        ["read", "write"],
        [],
    ]
    cases: list[tuple[Mode, bool]] = [("plan", False), ("review", False), ("build", True)]
    for mode, branch in cases:
        allowed, refused = split_by_mode(specs, mode, branch)
        assert [s.tool for s in allowed] == ["read"] and [s.tool for s in refused] == ["write"]


def test_an_offer_lists_every_tool_and_defers_past_the_share() -> None:
    specs = specs_for_search()
    failed = ServerStatus("db", "stdio", "db", "settings", "failed", "cannot start", ())
    settings = Settings.model_validate({"context_window": 100_000})
    offer = make_offer(
        default_registry(), "build", catalog_of(specs, failed), model=MODEL, settings=settings
    )
    assert offer.offered()[-3:] == tuple(s.name for s in specs)
    assert offer.deferred == ()
    refs = [line.ref for line in offer.lines()]
    assert refs[-1] == "mcp:db" and offer.lines()[-1].reason == "server failed: cannot start"

    tokens = sum(count_tokens(schema_text(s.schema()), MODEL) for s in specs)
    small = Settings.model_validate({"context_window": 4_096 + tokens * 5})  # 20% > 10%
    deferred = make_offer(
        default_registry(), "build", catalog_of(specs), model=MODEL, settings=small
    )
    assert deferred.offered()[-1] == "tool_search"
    assert [s.name for s in deferred.deferred] == [s.name for s in specs]
    deferred.reveal(specs[2:])
    assert deferred.offered()[-2:] == ("tool_search", specs[2].name)
    assert deferred.schemas()[-1]["function"]["name"] == specs[2].name


# -- variables and settings ---------------------------------------------------------


def test_variables_are_expanded_and_a_missing_one_names_the_key() -> None:
    env = {"TOKEN": "abc"}
    assert expand("Bearer ${TOKEN}", "k", env) == "Bearer abc"
    assert expand("${UNSET:-fallback}/x", "k", env) == "fallback/x"
    settings = McpServerSettings.model_validate(
        {
            "url": "https://example.test/${UNSET:-mcp}",
            "headers": {"Authorization": "Bearer ${TOKEN}"},
        }
    )
    done = expanded("api", settings, env)
    assert done.url == "https://example.test/mcp" and done.headers["Authorization"] == "Bearer abc"
    with pytest.raises(
        McpConfigError, match=r"MISSING is not set \(used in mcp.servers.api.env.KEY\)"
    ):
        expanded("api", stdio(env={"KEY": "${MISSING}"}), env)


@pytest.mark.timeout(120)  # a hang guard: the old scan of this value was quadratic (hours)
def test_a_megabyte_of_unclosed_references_is_scanned_once() -> None:
    """`${A:-` repeated without a `}` (a value from cairn.toml or the editor) is left as it
    is, and the references before the last `}` are still expanded."""
    unclosed = "${A:-" * (1024 * 1024 // 5)
    assert expand(unclosed, "k", {}) == unclosed
    assert expand("${T}/${U:-x}" + unclosed, "k", {"T": "t"}) == "t/x" + unclosed
    assert expand("${A:-" + unclosed + "}", "k", {}) == unclosed


def test_server_tables_are_checked_and_name_the_key() -> None:
    cases = {
        "give either `command`": {"gh": {}},
        "unknown setting 'mcp.servers.gh.comand'": {"gh": {"command": "x", "comand": "y"}},
        "server name 'my server'": {"my server": {"command": "x"}},
        "`headers` are for `url` servers": {"gh": {"command": "x", "headers": {"A": "b"}}},
    }
    for message, servers in cases.items():
        with pytest.raises(SettingsError, match=message):
            validate_settings({"mcp": {"servers": servers}})
    with pytest.raises(SettingsError, match=r"mcp\.toolSearchShare"):
        validate_settings({"mcp": {"toolSearchShare": 0}})


def test_editor_servers_join_those_of_cairn_toml_by_name(tmp_path: Path) -> None:
    (tmp_path / "cairn.toml").write_text(
        '[mcp.servers.a]\ncommand = "a-server"\n\n[mcp.servers.b]\ncommand = "b-server"\n'
    )
    editor = {"mcp": {"servers": {"b": {"url": "http://127.0.0.1:1/mcp"}, "c": {"command": "c"}}}}
    servers = load_settings(tmp_path, editor, trusted=True).mcp.servers
    assert sorted(servers) == ["a", "b", "c"]
    assert servers["a"].command == "a-server" and servers["b"].url == "http://127.0.0.1:1/mcp"
    # Untrusted, the file's servers are ignored; the editor's (trusted) still count.
    assert sorted(load_settings(tmp_path, editor).mcp.servers) == ["b", "c"]
    share = {"mcp": {"toolSearchShare": 0.2}}
    assert load_settings(tmp_path, share, trusted=True).mcp.servers.keys() == {
        "a",
        "b",
    }
