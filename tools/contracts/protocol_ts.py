"""`client-vscode/src/protocol.ts`: the wire types of every `cairn/*` message.

Written from `cairn.lsp.contract` (method → params → result) and the
pydantic models' JSON schema with camelCase aliases: params and
client-sent notifications in validation mode (what the server accepts;
fields with a default are optional), results and server notifications in
serialization mode (what `wire()` sends: every field present). The method
and command names come from `cairn.lsp.methods`.
"""

from __future__ import annotations

from typing import Literal, get_args

from pydantic import BaseModel
from pydantic.json_schema import JsonSchemaMode, models_json_schema

from cairn import settings
from cairn.compaction.ledger import COMMAND_TOOL
from cairn.lsp import contract, methods
from cairn.mcp.tools import MCP_REF_PREFIX
from cairn.models import diagnostics, events, goals, messages, session
from tools.contracts.typescript import Translator, literal

CUSTOM_PREFIX = "cairn/"
COMMAND_PREFIX = "cairn."
COMMAND_SUFFIX = "_COMMAND"
# Method constants that are not part of the protocol (test builds only).
PRIVATE_METHODS = frozenset({methods.DEBUG})

# Named literal unions: an inline union with exactly these values is written as the name.
ALIASES: dict[str, object] = {
    "CompactionKind": messages.CompactionKind,
    "FinishReason": session.FinishReason,
    "GoalStatus": goals.GoalStatus,
    "Mode": settings.Mode,
    "ApprovalDecision": events.ApprovalDecision,
    "Severity": diagnostics.Severity,
    "TurnEventKind": events.TurnEventKind,
}

# Aliases whose values the extension also needs as a list (the chat's mode picker).
VALUE_LISTS: dict[str, str] = {"MODES": "Mode"}

ModelMode = tuple[type[BaseModel], JsonSchemaMode]


def _camel(name: str) -> str:
    head, *rest = name.lower().split("_")
    return head + "".join(part.title() for part in rest)


def method_names() -> dict[str, str]:
    """`{key: method}` for every public `cairn/*` method (key: the name after `cairn/`)."""
    found = {
        value.removeprefix(CUSTOM_PREFIX): value
        for name, value in vars(methods).items()
        if name.isupper() and isinstance(value, str) and value.startswith(CUSTOM_PREFIX)
    }
    return {key: value for key, value in found.items() if value not in PRIVATE_METHODS}


def command_names() -> dict[str, str]:
    """`{key: command}` for every `cairn.*` server command."""
    return {
        _camel(name.removesuffix(COMMAND_SUFFIX)): value
        for name, value in vars(methods).items()
        if name.endswith(COMMAND_SUFFIX) and isinstance(value, str)
    }


def wire_models() -> list[ModelMode]:
    """Every model on the wire with the direction it travels in, in contract order."""
    pairs: list[ModelMode] = []
    for request in contract.REQUESTS:
        pairs += [(request.params, "validation"), (request.result, "serialization")]
    for asked in contract.SERVER_REQUESTS:
        pairs.append((asked.params, "serialization"))
        pairs.append((asked.result, "validation"))
    for note in contract.NOTIFICATIONS:
        pairs.append((note.params, "validation" if note.sender == "client" else "serialization"))
    for result in contract.COMMAND_RESULTS.values():
        pairs.append((result, "serialization"))
    return list(dict.fromkeys(pairs))


def _const_object(name: str, doc: str, entries: dict[str, str]) -> list[str]:
    lines = [f"/** {doc} */", f"export const {name} = {{"]
    lines += [f"  {key}: '{value}'," for key, value in entries.items()]
    return [*lines, "} as const;"]


def _map(name: str, doc: str, entries: dict[str, str]) -> list[str]:
    lines = [f"/** {doc} */", f"export interface {name} {{"]
    lines += [f"  '{key}': {value};" for key, value in entries.items()]
    return [*lines, "}"]


def _maps() -> list[str]:
    requests = {
        r.method: f"{{ params: {r.params.__name__}; result: {r.result.__name__} }}"
        for r in contract.REQUESTS
    }
    by_sender: dict[Literal["client", "server"], dict[str, str]] = {"client": {}, "server": {}}
    for note in contract.NOTIFICATIONS:
        by_sender[note.sender][note.method] = note.params.__name__
    commands = {name: model.__name__ for name, model in contract.COMMAND_RESULTS.items()}
    server_requests = {
        r.method: f"{{ params: {r.params.__name__}; result: {r.result.__name__} }}"
        for r in contract.SERVER_REQUESTS
    }
    return [
        *_map("Requests", "Params and result of every request, by method.", requests),
        "",
        *_map(
            "ServerRequests",
            "Params and result of every server → client request, by method.",
            server_requests,
        ),
        "",
        *_map(
            "ClientNotifications",
            "Params of every client → server notification.",
            by_sender["client"],
        ),
        "",
        *_map(
            "ServerNotifications",
            "Params of every server → client notification.",
            by_sender["server"],
        ),
        "",
        *_map("CommandResults", "What each `workspace/executeCommand` command answers.", commands),
    ]


def _translator() -> Translator:
    return Translator({tuple(get_args(alias)): name for name, alias in ALIASES.items()})


def protocol_ts(header: str) -> str:
    """The whole generated `protocol.ts`."""
    translator = _translator()
    _, schema = models_json_schema(wire_models(), by_alias=True)
    definitions: dict[str, dict[str, object]] = schema.get("$defs", {})
    clashes = [name for name in definitions if name.endswith(("-Input", "-Output"))]
    if clashes:
        raise ValueError(f"models with different input and output shapes: {clashes}")
    lines = [header, ""]
    lines += _const_object("Method", "Custom LSP methods (PROTOCOL.md).", method_names())
    lines += [""]
    lines += _const_object(
        "ServerCommand",
        "Server-side commands run through `workspace/executeCommand`.",
        command_names(),
    )
    lines += [""]
    lines += _const_object(
        "EditLabel",
        "The labels of the server's `workspace/applyEdit` requests.",
        {"agent": methods.AGENT_EDIT_LABEL, "restore": methods.RESTORE_EDIT_LABEL},
    )
    lines += [""]
    lines += _const_object(
        "ClientCapability",
        "`initialize` capabilities.experimental.<section>.<key> the server reads.",
        {"section": methods.EXPERIMENTAL_SECTION, "approvals": methods.APPROVALS_CAPABILITY},
    )
    lines += [""]
    lines += _const_object(
        "ApprovalTool",
        "What `cairn/approval`'s `tool` names: the shell tool, or an MCP tool by this prefix.",
        {"shell": COMMAND_TOOL, "mcpPrefix": MCP_REF_PREFIX},
    )
    lines += ["", *translator.alias_declarations()]
    for constant, alias in VALUE_LISTS.items():
        values = ", ".join(literal(v) for v in get_args(ALIASES[alias]))
        lines += [f"export const {constant}: readonly {alias}[] = [{values}];"]
    for name in sorted(definitions):
        lines += ["", *translator.interface(name, definitions[name])]
    lines += ["", *_maps()]
    return "\n".join(lines) + "\n"
