"""The extension's settings from `cairn.settings.Settings`: package.json and `settingKeys.ts`.

Every `Settings` field becomes `cairn.<camelCaseName>` in the
`contributes.configuration` block of `client-vscode/package.json` (type,
default, bounds and the field's docstring as its description), and its key
in `SERVER_SETTING_KEYS` (what the extension forwards as
`initializationOptions`). The few settings only the extension reads (how to
start the server, LSP tracing) are defined here, once.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from pydantic.alias_generators import to_camel

from cairn.settings import RESTART_SETTINGS, Settings
from tools.contracts.typescript import literal

SECTION = "cairn"
TITLE = "Cairn"
SERVER_COMMAND_KEY = "server.command"
SERVER_PYTHON_KEY = "server.pythonPath"
REVIEW_EDITS_KEY = "edits.review"
DEFAULT_SERVER_COMMAND = ["cairn", "serve"]

# Settings of the extension itself (never sent to the server), in package.json order.
CLIENT_SETTINGS: dict[str, dict[str, Any]] = {
    SERVER_COMMAND_KEY: {
        "type": "array",
        "items": {"type": "string"},
        "default": DEFAULT_SERVER_COMMAND,
        "markdownDescription": (
            "The command that starts the Cairn language server over stdio (program and "
            "arguments). Ignored when `#cairn.server.pythonPath#` is set."
        ),
    },
    SERVER_PYTHON_KEY: {
        "type": "string",
        "default": "",
        "markdownDescription": (
            "A Python interpreter that has Cairn installed; when set the server is started as "
            "`<python> -m cairn serve`."
        ),
    },
    REVIEW_EDITS_KEY: {
        "type": "boolean",
        "default": False,
        "description": (
            "Review the agent's edits before they are applied: each file's change opens as a "
            "diff with Accept and Reject (in the diff editor's title and in the chat); a "
            "rejected edit leaves the file unchanged and the agent is told."
        ),
    },
    "trace.server": {
        "type": "string",
        "enum": ["off", "messages", "verbose"],
        "default": "off",
        "description": (
            "Log the LSP traffic between VS Code and the Cairn server to the 'Cairn' output "
            "channel."
        ),
    },
}
# The order of keys in one generated property.
PROPERTY_KEYS = ("type", "items", "enum", "default", "minimum", "exclusiveMinimum", "maximum")
# Values at most this long (as one-line JSON) are written on one line.
INLINE_WIDTH = 60


def _flatten_nullable(schema: Mapping[str, Any]) -> dict[str, Any]:
    """`anyOf: [X, {type: null}]` → X with `type: [X.type, "null"]`."""
    options = schema.get("anyOf")
    if not options:
        return dict(schema)
    concrete = [o for o in options if o != {"type": "null"}]
    if len(concrete) != 1 or len(concrete) == len(options):
        raise ValueError(f"setting schema not translatable: {dict(schema)!r}")
    merged = {**concrete[0], **{k: v for k, v in schema.items() if k != "anyOf"}}
    merged["type"] = [concrete[0]["type"], "null"]
    return merged


def _tidy(value: object) -> object:
    """A whole float as an int (`120`, not `120.0`), as package.json is written by hand."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


def description_key(text: str) -> str:
    """`markdownDescription` when the text uses Markdown (code spans), else `description`."""
    return "markdownDescription" if "`" in text else "description"


def setting_property(schema: Mapping[str, Any], default: object) -> dict[str, Any]:
    """One `contributes.configuration` property from a field's JSON schema and default."""
    flat = _flatten_nullable(schema)
    if "$ref" in flat:  # a nested model (the `[mcp]` table): an object in settings.json
        flat["type"] = "object"
    kinds = flat.get("type")
    if "integer" in (kinds if isinstance(kinds, list) else [kinds]) and "exclusiveMinimum" in flat:
        flat["minimum"] = flat.pop("exclusiveMinimum") + 1
    flat["default"] = _tidy(default)
    prop = {key: flat[key] for key in PROPERTY_KEYS if key in flat}
    text = " ".join(str(flat.get("description", "")).split())
    if not text:
        raise ValueError(f"a setting has no description (a field docstring): {dict(schema)!r}")
    prop[description_key(text)] = text
    return prop


def server_settings() -> dict[str, dict[str, Any]]:
    """`{camelKey: property}` for every `Settings` field, in declaration order."""
    properties = Settings.model_json_schema(by_alias=True)["properties"]
    defaults = Settings().model_dump(mode="json", by_alias=True)
    return {key: setting_property(schema, defaults[key]) for key, schema in properties.items()}


def configuration() -> dict[str, Any]:
    """The whole `contributes.configuration` value."""
    merged = {**CLIENT_SETTINGS, **server_settings()}
    return {"title": TITLE, "properties": {f"{SECTION}.{k}": v for k, v in merged.items()}}


def format_json(value: object, indent: str, step: str = "  ") -> str:
    """JSON laid out like package.json: small values on one line, the rest indented."""
    one_line = json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
    if isinstance(value, dict) and value:
        one_line = "{ " + one_line[1:-1] + " }"
    nested = isinstance(value, dict) and any(isinstance(v, dict | list) for v in value.values())
    if (len(one_line) <= INLINE_WIDTH and not nested) or not isinstance(value, dict | list):
        return one_line
    inner = indent + step
    if isinstance(value, list):
        items = [inner + format_json(v, inner, step) for v in value]
        return "[\n" + ",\n".join(items) + "\n" + indent + "]"
    entries = [f"{inner}{json.dumps(k)}: {format_json(v, inner, step)}" for k, v in value.items()]
    return "{\n" + ",\n".join(entries) + "\n" + indent + "}"


def with_configuration(package_json: str) -> str:
    """`package_json` with its `contributes.configuration` value regenerated (the rest kept)."""
    key = '"configuration": '
    if package_json.count(key) != 1:
        raise ValueError(f"package.json must hold exactly one {key.strip()} key")
    start = package_json.index(key) + len(key)
    _, end = json.JSONDecoder().raw_decode(package_json, start)
    line = package_json[package_json.rfind("\n", 0, start) + 1 : start]
    indent = line[: len(line) - len(line.lstrip())]
    updated = package_json[:start] + format_json(configuration(), indent) + package_json[end:]
    expected = json.loads(package_json)
    expected["contributes"]["configuration"] = configuration()
    if json.loads(updated) != expected:
        raise ValueError("the configuration block is not `contributes.configuration`")
    return updated


def setting_keys_ts(header: str, distribution: str) -> str:
    """The generated `settingKeys.ts`: the configuration keys the extension reads, and
    the server's distribution name (what `pip install` takes)."""
    keys = ",\n".join(f"  {literal(key)}" for key in server_settings())
    restart = ", ".join(literal(to_camel(name)) for name in sorted(RESTART_SETTINGS))
    default_command = ", ".join(map(literal, DEFAULT_SERVER_COMMAND))
    return f"""{header}

/** The server's package on PyPI (`pip install` it; the command and module are `cairn`). */
export const SERVER_DISTRIBUTION = {literal(distribution)};

/** The configuration section; every key below lives under it. */
export const CONFIG_SECTION = '{SECTION}';
/** How the extension starts the server (not sent to it). */
export const CONFIG_SERVER_COMMAND = '{SERVER_COMMAND_KEY}';
export const CONFIG_SERVER_PYTHON = '{SERVER_PYTHON_KEY}';
export const DEFAULT_SERVER_COMMAND: readonly string[] = [{default_command}];
/** Review the agent's edits as diffs before they are applied (the extension's own setting). */
export const CONFIG_REVIEW_EDITS = '{REVIEW_EDITS_KEY}';

/**
 * Settings forwarded to the server as `initializationOptions`, camelCase as on
 * the wire: every field of `Settings` in server/cairn/settings.py.
 */
export const SERVER_SETTING_KEYS = [
{keys},
] as const;
export type ServerSettingKey = (typeof SERVER_SETTING_KEYS)[number];

/** Server settings a running server cannot take over: changing one restarts it (the rest apply live). */
export const RESTART_SETTING_KEYS: readonly ServerSettingKey[] = [{restart}];
"""
