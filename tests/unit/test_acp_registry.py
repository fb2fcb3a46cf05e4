"""Cairn's ACP agent registry entry and the editor snippets of docs/ACP.md (issue 28 item 6).

The entry (`packaging/acp-registry/cairn/agent.json`) is checked against the registry's
rules, transcribed below from `agentclientprotocol/registry` (its draft-07
`agent.schema.json` at 172d5034b0aa7f91b24622ce4ee4459414e0e07e and the CI checks listed
in `CONTRIBUTING.md` at f22b4ce84f4a55fc3289be3609f06b2ed356a8e8); its version must be
`cairn.__version__` and its argv must start the real agent. Every snippet of the section
"Editors and the ACP registry" must parse in its language (JSON, JSONC, Lua, Emacs Lisp),
use only the keys its client documents (sources in that section) and name the manifest's
command and arguments: the manifest is the one source of the argv.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import sexpdata
from jsonschema import Draft7Validator
from luaparser import ast as lua_ast
from luaparser import astnodes as lua
from markdown_it import MarkdownIt

import cairn

ROOT = Path(__file__).resolve().parents[2]
ENTRY_DIR = ROOT / "packaging" / "acp-registry" / "cairn"
DOC = ROOT / "docs" / "ACP.md"
SECTION = "Editors and the ACP registry"
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))

PLATFORMS = [
    f"{os}-{arch}" for os in ("darwin", "linux", "windows") for arch in ("aarch64", "x86_64")
]
_STR = {"type": "string"}
_STRINGS = {"type": "array", "items": _STR}
_ENV = {"type": "object", "additionalProperties": {"type": "string"}}
_PACKAGE = {
    "type": "object",
    "required": ["package"],
    "properties": {"package": {"type": "string", "minLength": 1}, "args": _STRINGS, "env": _ENV},
    "additionalProperties": False,
}
_SHA256 = {"type": "string", "pattern": "^[a-fA-F0-9]{64}$"}
_BINARY_TARGET = {
    "type": "object",
    "required": ["archive", "cmd"],
    "properties": {"archive": _STR, "sha256": _SHA256, "cmd": _STR, "args": _STRINGS, "env": _ENV},
    "additionalProperties": False,
}
# The registry's agent.schema.json, rule for rule (written here, not copied).
AGENT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["id", "name", "version", "description", "distribution"],
    "properties": {
        "id": {"type": "string", "pattern": "^[a-z][a-z0-9-]*$"},
        "name": {"type": "string", "minLength": 1},
        "version": {"type": "string", "pattern": r"^[0-9]+\.[0-9]+\.[0-9]+"},
        "description": {"type": "string", "minLength": 1},
        "repository": _STR,
        "website": _STR,
        "authors": _STRINGS,
        "license": _STR,
        "license_url": _STR,
        "icon": _STR,
        "distribution": {
            "type": "object",
            "minProperties": 1,
            "properties": {
                "binary": {
                    "type": "object",
                    "minProperties": 1,
                    "propertyNames": {"enum": PLATFORMS},
                    "additionalProperties": _BINARY_TARGET,
                },
                "npx": _PACKAGE,
                "uvx": _PACKAGE,
            },
            "additionalProperties": False,
        },
    },
}

# The keys each client documents for an agent (the sources are in the docs section).
ZED_COMMON = {"type", "env", "default_mode", "default_model", "favorite_models"}
ZED_COMMON |= {"default_config_options", "favorite_config_option_values"}
ZED_KEYS = {"custom": ZED_COMMON | {"command", "args"}, "registry": ZED_COMMON}
JETBRAINS_KEYS = {"command", "args", "env"}
CODECOMPANION_KEYS = {"name", "formatted_name", "type", "roles", "opts", "commands", "defaults"}
CODECOMPANION_KEYS |= {"parameters", "handlers", "env"}
CODECOMPANION_HANDLERS = {"setup", "auth", "form_messages", "on_exit"}
AVANTE_KEYS = {"command", "args", "env", "auth_method"}
AGENT_SHELL_CONFIG = {":identifier", ":mode-line-name", ":welcome-function", ":buffer-name"}
AGENT_SHELL_CONFIG |= {":shell-prompt", ":shell-prompt-regexp", ":client-maker", ":icon-name"}
AGENT_SHELL_CONFIG |= {":needs-authentication", ":authenticate-request-maker"}
AGENT_SHELL_CONFIG |= {":default-model-id", ":default-session-mode-id", ":install-instructions"}
AGENT_SHELL_CLIENT = {":command", ":command-params", ":environment-variables", ":context-buffer"}


def manifest() -> dict[str, Any]:
    return json.loads((ENTRY_DIR / "agent.json").read_text(encoding="utf-8"))


def registry_problems(entry: dict[str, Any], folder: str) -> list[str]:
    """The entry's schema errors and the registry CI's further checks (CONTRIBUTING.md)."""
    problems = [error.message for error in Draft7Validator(AGENT_SCHEMA).iter_errors(entry)]
    if problems:
        return problems
    if entry["id"] != folder:
        problems.append(f"id {entry['id']!r} is not the folder's name {folder!r}")
    parts = entry["version"].split(".")
    if len(parts) != 3 or not all(part.isdigit() for part in parts):
        problems.append(f"version {entry['version']!r} is not x.y.z")
    distribution = entry["distribution"]
    oses = {platform.split("-")[0] for platform in distribution.get("binary", {})}
    if "binary" in distribution and oses != {"darwin", "linux", "windows"}:
        problems.append(f"binary builds cover {sorted(oses)}, not darwin, linux and windows")
    for kind in ("npx", "uvx"):
        package = distribution.get(kind, {}).get("package", "")
        if "@latest" in package.lower():
            problems.append(f"{kind} package {package!r} uses @latest")
        pinned = re.search(r"(?:==|@)v?([\d.]+)$", package) if kind == "uvx" else None
        if pinned and pinned.group(1) != entry["version"]:
            problems.append(f"{kind} package {package!r} is not version {entry['version']}")
    return problems


def manifest_argv() -> tuple[str, list[str]]:
    """What a registry client runs: `uvx <package> <args>`, i.e. the package's executable."""
    uvx = manifest()["distribution"]["uvx"]
    return re.split(r"[\[<>=!~@; ]", uvx["package"], maxsplit=1)[0], list(uvx.get("args", []))


def entry_point(command: str) -> str:
    scripts: dict[str, str] = PYPROJECT["project"]["scripts"]
    assert command in scripts, f"{command!r} is not a console script of pyproject.toml"
    return scripts[command]


def assert_runs_cairn_acp(command: str, args: list[str]) -> None:
    """The snippet's command is the manifest's entry point, with the manifest's arguments."""
    executable, manifest_args = manifest_argv()
    assert "/" not in command, f"{command!r}: a snippet names the command, not a path"
    assert entry_point(command) == entry_point(executable)
    assert args == manifest_args


@dataclass(frozen=True)
class Snippet:
    heading: str
    lang: str
    text: str


def section_snippets() -> dict[str, list[Snippet]]:
    """The fenced blocks of the section, by their `###` heading."""
    tokens = MarkdownIt().parse(DOC.read_text(encoding="utf-8"))
    found: dict[str, list[Snippet]] = {}
    section = heading = ""
    for index, token in enumerate(tokens):
        if token.type == "heading_open":
            title = tokens[index + 1].content
            section = title if token.tag == "h2" else section
            heading = title if token.tag == "h3" else ""
        elif token.type == "fence" and section == SECTION:
            found.setdefault(heading, []).append(
                Snippet(heading, token.info.strip(), token.content)
            )
    return found


def strip_jsonc(text: str) -> str:
    """JSON with `//` and `/* */` comments removed, strings (and `//` in them) kept."""
    out: list[str] = []
    i, in_string = 0, False
    while i < len(text):
        char = text[i]
        if in_string:
            out.append(char)
            if char == "\\":
                out.append(text[i + 1])
                i += 1
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
            out.append(char)
        elif text.startswith("//", i):
            i = text.find("\n", i) - 1 if "\n" in text[i:] else len(text)
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            assert end >= 0, "an unclosed /* comment"
            i = end + 1
        else:
            out.append(char)
        i += 1
    return "".join(out)


def lua_value(node: Any) -> Any:
    """A Lua expression as Python data: tables as dicts or lists, a function as what it returns."""
    if isinstance(node, lua.Table):
        keyed = [field for field in node.fields if field.key is not None]
        if not keyed:
            return [lua_value(field.value) for field in node.fields]
        assert len(keyed) == len(node.fields), "a table mixing keyed and positional fields"
        return {lua_key(field.key): lua_value(field.value) for field in node.fields}
    if isinstance(node, lua.String):
        return node.s.decode() if isinstance(node.s, bytes) else node.s
    if isinstance(node, lua.Number):
        return node.n
    if isinstance(node, lua.TrueExpr | lua.FalseExpr):
        return isinstance(node, lua.TrueExpr)
    if isinstance(node, lua.AnonymousFunction):
        returns = [stat for stat in node.body.body if isinstance(stat, lua.Return)]
        return {"<function returns>": lua_value(returns[-1].values[0]) if returns else None}
    return f"<{type(node).__name__}>"


def lua_key(key: Any) -> str:
    return key.id if isinstance(key, lua.Name) else lua_value(key)


def lua_setup_table(text: str, module: str) -> dict[str, Any]:
    """The table passed to `require("<module>").setup(...)`, the only statement."""
    body = lua_ast.parse(text).body.body
    assert len(body) == 1 and isinstance(body[0], lua.Call), "one setup call"
    call = body[0]
    assert isinstance(call.func, lua.Index) and lua_key(call.func.idx) == "setup"
    required = call.func.value
    assert isinstance(required, lua.Call) and lua_key(required.func) == "require"
    assert lua_value(required.args[0]) == module
    return lua_value(call.args[0])


def test_the_entry_follows_the_registry_rules() -> None:
    assert registry_problems(manifest(), ENTRY_DIR.name) == []
    assert sorted(path.name for path in ENTRY_DIR.iterdir()) == ["agent.json", "icon.svg"]
    outside = registry_problems(manifest(), "cairn-acp")
    assert outside == ["id 'cairn' is not the folder's name 'cairn-acp'"]


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"id": "Cairn"}, "does not match"),
        ({"version": "0.1"}, "does not match"),
        ({"distribution": {}}, "should be non-empty"),
        ({"distribution": {"pip": {"package": "cairn-lsp"}}}, "Additional properties"),
        ({"distribution": {"uvx": {"args": ["acp"]}}}, "'package' is a required property"),
        ({"distribution": {"uvx": {"package": "cairn-lsp==9.9.9"}}}, "is not version"),
        ({"distribution": {"uvx": {"package": "cairn-lsp@latest"}}}, "uses @latest"),
        ({"distribution": {"binary": {"linux-x86_64": {"archive": "a", "cmd": "c"}}}}, "darwin"),
        (
            {"distribution": {"binary": {"linux-riscv": {"archive": "a", "cmd": "c"}}}},
            "is not one of",
        ),
    ],
)
def test_the_registry_rules_refuse_a_bad_entry(change: dict[str, Any], problem: str) -> None:
    problems = registry_problems({**manifest(), **change}, ENTRY_DIR.name)
    assert any(problem in text for text in problems), problems


def test_the_entry_is_the_distribution_at_its_version() -> None:
    entry, project = manifest(), PYPROJECT["project"]
    assert entry["version"] == cairn.__version__
    assert entry["distribution"]["uvx"]["package"] == f"{project['name']}=={cairn.__version__}"
    assert (entry["description"], entry["license"]) == (project["description"], project["license"])


def test_the_entrys_argv_is_cairn_acp_and_answers_initialize(tmp_path: Path) -> None:
    executable, args = manifest_argv()
    assert (entry_point(executable), args) == (entry_point("cairn"), ["acp"])
    module, function = entry_point(executable).split(":")
    runner = f"import importlib; importlib.import_module({module!r}).{function}()"
    request = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}}
    done = subprocess.run(
        [sys.executable, "-c", runner, *args],
        input=json.dumps(request) + "\n",
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    info = json.loads(done.stdout.splitlines()[0])["result"]["agentInfo"]
    entry = {key: manifest()[key] for key in ("id", "name", "version")}
    assert entry == {"id": info["name"], "name": info["title"], "version": info["version"]}


def test_the_icon_follows_the_registry_rules() -> None:
    svg = (ENTRY_DIR / "icon.svg").read_text(encoding="utf-8")
    root = re.search(r"<svg\b[^>]*>", svg)
    assert root is not None
    assert 'width="16"' in root.group(0) and 'height="16"' in root.group(0)
    paints = re.findall(r'\b(?:fill|stroke)\s*=\s*"([^"]*)"', svg)
    assert paints and {paint.lower() for paint in paints} <= {"currentcolor", "none", "inherit"}


def test_the_section_has_each_clients_snippets() -> None:
    langs = {
        heading: [s.lang for s in snippets] for heading, snippets in section_snippets().items()
    }
    assert langs == {
        "Zed": ["jsonc", "jsonc"],
        "JetBrains IDEs": ["json"],
        "Neovim: CodeCompanion": ["lua"],
        "Neovim: avante.nvim": ["lua"],
        "Emacs: agent-shell": ["emacs-lisp"],
    }


def test_jsonc_comments_go_and_strings_stay() -> None:
    text = '{"a": "http://x/*y*/", // note\n "b": [1, /* two */ 2]}'
    assert json.loads(strip_jsonc(text)) == {"a": "http://x/*y*/", "b": [1, 2]}


def test_the_zed_snippets() -> None:
    registry, custom = (json.loads(strip_jsonc(s.text)) for s in section_snippets()["Zed"])
    assert list(registry) == ["agent_servers"] and list(custom) == ["agent_servers"]
    [(registry_key, by_registry)] = registry["agent_servers"].items()
    assert by_registry["type"] == "registry" and set(by_registry) <= ZED_KEYS["registry"]
    assert registry_key == manifest()["id"]
    [by_hand] = custom["agent_servers"].values()
    assert by_hand["type"] == "custom" and set(by_hand) <= ZED_KEYS["custom"]
    assert_runs_cairn_acp(by_hand["command"], by_hand["args"])


def test_the_jetbrains_snippet() -> None:
    [snippet] = section_snippets()["JetBrains IDEs"]
    config = json.loads(snippet.text)
    assert list(config) == ["agent_servers"]
    [agent] = config["agent_servers"].values()
    assert set(agent) <= JETBRAINS_KEYS
    assert_runs_cairn_acp(agent["command"], agent["args"])


def test_the_codecompanion_snippet() -> None:
    [snippet] = section_snippets()["Neovim: CodeCompanion"]
    setup = lua_setup_table(snippet.text, "codecompanion")
    [(name, make)] = setup["adapters"]["acp"].items()
    adapter = make["<function returns>"]
    assert set(adapter) <= CODECOMPANION_KEYS and adapter["type"] == "acp"
    assert set(adapter["handlers"]) <= CODECOMPANION_HANDLERS
    assert name == adapter["name"] == manifest()["id"]
    assert setup["interactions"]["chat"]["adapter"] == name
    command, *args = adapter["commands"]["default"]
    assert_runs_cairn_acp(command, args)


def test_the_avante_snippet() -> None:
    [snippet] = section_snippets()["Neovim: avante.nvim"]
    setup = lua_setup_table(snippet.text, "avante")
    [(name, provider)] = setup["acp_providers"].items()
    assert set(provider) <= AVANTE_KEYS
    assert name == setup["provider"] == manifest()["id"]
    assert_runs_cairn_acp(provider["command"], provider["args"])


def keywords(form: list[Any]) -> dict[str, Any]:
    """The `:key value` pairs after a call's function."""
    rest = form[1:]
    assert len(rest) % 2 == 0 and all(isinstance(k, sexpdata.Symbol) for k in rest[::2])
    return {str(key): value for key, value in zip(rest[::2], rest[1::2], strict=True)}


def quoted(value: Any) -> Any:
    assert isinstance(value, sexpdata.Quoted), f"{value!r} is not quoted"
    inner = value.x
    return str(inner) if isinstance(inner, sexpdata.Symbol) else inner


def test_the_agent_shell_snippet() -> None:
    [snippet] = section_snippets()["Emacs: agent-shell"]
    forms = sexpdata.parse(snippet.text)
    heads = [str(form[0]) for form in forms]
    assert heads == ["require", "defun", "add-to-list"]
    _, name, _, _docstring, config = forms[1]
    assert str(config[0]) == "agent-shell-make-agent-config"
    options = keywords(config)
    assert set(options) <= AGENT_SHELL_CONFIG
    assert quoted(options[":identifier"]) == manifest()["id"]
    lambda_, _buffer, client = options[":client-maker"]
    assert (str(lambda_), str(client[0])) == ("lambda", "agent-shell--make-acp-client")
    launch = keywords(client)
    assert set(launch) <= AGENT_SHELL_CLIENT
    assert_runs_cairn_acp(launch[":command"], quoted(launch[":command-params"]))
    added = forms[2]
    assert quoted(added[1]) == "agent-shell-agent-configs" and added[2] == [name]
