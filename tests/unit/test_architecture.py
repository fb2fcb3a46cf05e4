"""The layer rule of docs/ARCHITECTURE.md: a package imports only packages of lower layers.

Every `import` and `from … import` of every module under `server/cairn` is read
with `ast` (including imports inside functions and under `TYPE_CHECKING`), so
a lazy import cannot hide an upward dependency. Third-party boundaries are
checked the same way: pygls and lsprotocol only in the LSP front end, litellm
only in the model runtime, the MCP SDK (and its HTTP client) only in `mcp/`.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE_ROOT = Path(__file__).resolve().parents[2] / "server" / "cairn"

# Lower number = lower layer. A module may import its own package and any lower layer.
LAYERS: dict[str, int] = {
    "errors": 0,
    "resources": 0,
    "stop_signals": 0,
    "models": 0,
    "settings": 1,
    "tokens": 1,
    "files": 2,
    "code": 3,
    "trace": 3,
    "goals": 3,
    "sandbox": 3,
    "repomap": 4,
    "profile": 4,
    "compaction": 4,
    "context": 5,
    "llm": 6,
    "mcp": 6,
    "agent": 7,
    "frontends": 8,
    "lsp": 9,
    "acp": 9,
    "commands": 10,
    "cli": 11,
    "__main__": 12,
    "__init__": 11,
}
# Third-party packages and the only Cairn packages that may import them.
CONFINED_IMPORTS: dict[str, frozenset[str]] = {
    "pygls": frozenset({"lsp"}),
    "lsprotocol": frozenset({"lsp"}),
    "litellm": frozenset({"llm"}),
    # The secret-value detector sits behind `cairn.files.redaction`.
    "detect_secrets": frozenset({"files"}),
    "mcp": frozenset({"mcp"}),
    "mcp_types": frozenset({"mcp"}),
    "httpx2": frozenset({"mcp"}),
}


def _package_of(path: Path) -> str:
    relative = path.relative_to(PACKAGE_ROOT)
    return relative.parts[0] if len(relative.parts) > 1 else relative.stem


def _imported_modules(tree: ast.AST) -> list[tuple[int, str]]:
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
    return found


def _modules() -> list[Path]:
    return sorted(PACKAGE_ROOT.rglob("*.py"))


def test_every_package_has_a_layer() -> None:
    packages = {_package_of(path) for path in _modules()}
    assert packages - set(LAYERS) == set(), "add the new package to LAYERS (and ARCHITECTURE.md)"


def violations(source: str, tree: ast.AST) -> list[str]:
    """Every import of `tree` (a module of package `source`) that breaks the layer rule."""
    problems: list[str] = []
    for line, module in _imported_modules(tree):
        top = module.split(".")[0]
        if top == "cairn" and "." in module:
            target = module.split(".")[1]
            if target == source or target not in LAYERS:
                continue
            if LAYERS[target] >= LAYERS[source]:
                problems.append(
                    f"line {line}: {source} (layer {LAYERS[source]}) imports"
                    f" {module} (layer {LAYERS[target]})"
                )
        elif top in CONFINED_IMPORTS and source not in CONFINED_IMPORTS[top]:
            allowed = sorted(CONFINED_IMPORTS[top])
            problems.append(f"line {line}: {top} may only be imported by {allowed}")
    return problems


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(PACKAGE_ROOT)))
def test_imports_only_go_down(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    assert violations(_package_of(path), tree) == []


# The two front ends: each translates its protocol onto the shared core, never onto the other.
FRONT_ENDS = ("lsp", "acp")
SHARED_CORE = "frontends"


def front_end_crossings(source: str, tree: ast.AST) -> list[str]:
    """Every import in `tree` (a module of front end `source`) of the other front end."""
    others = {f"cairn.{name}" for name in FRONT_ENDS if name != source}
    return [
        f"line {line}: {source} imports {module} (share it through cairn.{SHARED_CORE})"
        for line, module in _imported_modules(tree)
        if any(module == other or module.startswith(f"{other}.") for other in others)
    ]


def _front_end_modules() -> list[Path]:
    return [path for path in _modules() if _package_of(path) in FRONT_ENDS]


@pytest.mark.parametrize(
    "path", _front_end_modules(), ids=lambda p: str(p.relative_to(PACKAGE_ROOT))
)
def test_lsp_and_acp_never_import_each_other(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    assert front_end_crossings(_package_of(path), tree) == []


def test_the_front_ends_share_a_core_below_them() -> None:
    assert all(LAYERS[SHARED_CORE] < LAYERS[name] for name in FRONT_ENDS)
    crossing = ast.parse("def f():\n    from cairn.lsp.rpc import parse_params\n")
    assert front_end_crossings("acp", crossing) == [
        "line 2: acp imports cairn.lsp.rpc (share it through cairn.frontends)"
    ]
    assert front_end_crossings("lsp", ast.parse("import cairn.acp\n")) != []
    assert front_end_crossings("lsp", ast.parse("from cairn.frontends import codes\n")) == []


def test_the_rule_catches_upward_and_confined_imports() -> None:
    lazy_upward = ast.parse("def f():\n    from cairn.agent.engine import Engine\n")
    assert violations("context", lazy_upward) == [
        "line 2: context (layer 5) imports cairn.agent.engine (layer 7)"
    ]
    assert violations("files", ast.parse("import litellm\n")) != []
    assert violations("agent", ast.parse("from cairn.context.builder import X\n")) == []


AGENT_ROOT = PACKAGE_ROOT / "agent"
# The rooms of `agent/`, lowest first: a module imports its own room and the rooms below it,
# never one above (lazy and TYPE_CHECKING imports included).
AGENT_ROOMS: dict[str, int] = {
    "contracts": 0,  # api, ids, listener: what the front ends and every room share
    "sessions": 1,  # sessions at run time: book, recovery, snapshots, transcripts, goal changes
    "tools": 2,  # the tools, their context and registry, the command process groups
    "scope": 3,  # a turn's state: inputs, scope, tool offer, context builds, prompt cache
    "compaction": 4,  # when a session compacts, the compaction call, cache breaks
    "turn": 5,  # the loop: model calls, tool calls, records, explore, overflow, stopping
    "facade": 6,  # engine, parts, read_only: what the front ends call
}
# The modules at `agent/` itself, by room (the subpackages are rooms of their own name).
AGENT_ROOT_MODULES: dict[str, str] = {
    "__init__": "contracts",
    "api": "contracts",
    "ids": "contracts",
    "listener": "contracts",
    "progress": "contracts",
    "engine": "facade",
    "engine_goals": "facade",
    "engine_mcp": "facade",
    "meter": "facade",
    "parts": "facade",
    "read_only": "facade",
}


def agent_room(module: str) -> str | None:
    """The room of dotted `module` (`cairn.agent.x...`); None outside `agent/` or unplaced."""
    parts = module.split(".")
    if parts[:2] != ["cairn", "agent"]:
        return None
    if len(parts) == 2:
        return "contracts"
    head = parts[2]
    if head in AGENT_ROOT_MODULES:
        return AGENT_ROOT_MODULES[head]
    return head if head in AGENT_ROOMS else None


def _agent_module(path: Path) -> str:
    return ".".join(("cairn", *path.relative_to(PACKAGE_ROOT).with_suffix("").parts))


def _agent_modules() -> list[Path]:
    return sorted(AGENT_ROOT.rglob("*.py"))


def room_violations(room: str, tree: ast.AST) -> list[str]:
    """Every import of `tree` (a module of agent room `room`) of a room above it."""
    problems: list[str] = []
    for line, module in _imported_modules(tree):
        target = agent_room(module)
        if target is not None and AGENT_ROOMS[target] > AGENT_ROOMS[room]:
            problems.append(
                f"line {line}: agent room {room} ({AGENT_ROOMS[room]}) imports"
                f" {module} (room {target}, {AGENT_ROOMS[target]})"
            )
    return problems


def test_every_agent_module_has_a_room() -> None:
    unplaced = [
        str(path.relative_to(AGENT_ROOT))
        for path in _agent_modules()
        if agent_room(_agent_module(path)) is None
    ]
    assert unplaced == [], "put the module in a room (AGENT_ROOMS / AGENT_ROOT_MODULES)"


@pytest.mark.parametrize("path", _agent_modules(), ids=lambda p: str(p.relative_to(AGENT_ROOT)))
def test_agent_imports_only_go_down_the_rooms(path: Path) -> None:
    room = agent_room(_agent_module(path))
    assert room is not None
    tree = ast.parse(path.read_text(encoding="utf-8"))
    assert room_violations(room, tree) == []


def test_the_room_rule_catches_upward_imports() -> None:
    type_only = ast.parse(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from cairn.agent.scope.turn_scope import TurnScope\n"
    )
    assert room_violations("tools", type_only) == [
        "line 3: agent room tools (2) imports cairn.agent.scope.turn_scope (room scope, 3)"
    ]
    lazy = ast.parse("def f():\n    import cairn.agent.engine\n")
    assert room_violations("turn", lazy) == [
        "line 2: agent room turn (5) imports cairn.agent.engine (room facade, 6)"
    ]
    assert room_violations("turn", ast.parse("from cairn.agent.turn.loop import X\n")) == []
    assert room_violations("scope", ast.parse("from cairn.agent.tools import X\n")) == []
    assert room_violations("contracts", ast.parse("from cairn.context import X\n")) == []
    assert agent_room("cairn.agent.sessions.session") == "sessions"
    assert agent_room("cairn.agent.nowhere") is None


def _table_rows() -> list[list[str]]:
    """The cells of every three-column table row of docs/ARCHITECTURE.md."""
    doc = PACKAGE_ROOT.parents[1] / "docs" / "ARCHITECTURE.md"
    rows = [line.split("|")[1:-1] for line in doc.read_text(encoding="utf-8").splitlines()]
    return [[cell.strip() for cell in row] for row in rows if len(row) == 3]


def test_the_layer_table_is_the_rule() -> None:
    documented: dict[str, int] = {}
    for layer, packages, _ in _table_rows():
        if layer.isdigit():
            for name in packages.replace("`", "").split(","):
                documented[name.strip().rstrip("/")] = int(layer)
    assert documented == LAYERS


def test_the_room_table_is_the_rule() -> None:
    documented: dict[str, int] = {}
    for room, _, _ in _table_rows():
        if room[:1].isdigit() and " " in room:
            number, name = room.split(maxsplit=1)
            documented[name.strip("`").rstrip("/")] = int(number)
    assert documented == AGENT_ROOMS
