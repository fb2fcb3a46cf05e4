"""`cairn init [--model M]`: a starter `cairn.toml` and an `AGENTS.md` for the user to edit.

`cairn.toml` gets the model: `--model`, else on a terminal the one chosen
from the catalogue (`cairn.commands.init_model`), else a commented line
(with the model the user's own settings already give, when they do),
followed by commented examples of what a folder usually sets. It is
validated before it is written. `AGENTS.md` is written only where the folder
has no rules file (`AGENTS.md`, or a `CLAUDE.md` an `AGENTS.md` would
shadow): seeded from the project profile (`cairn.profile.scan`: the test
commands, the build command where a manifest says it, languages, package
managers, entry points, important paths and what is at the top level), with the
parts only the user knows left for them to write. Neither file is ever
overwritten: an existing one is named and left as it is.
"""

from __future__ import annotations

import json
import os
import sys
import tomllib
from collections.abc import Mapping
from pathlib import Path

import typer

from cairn.commands.checks import require_workspace
from cairn.commands.init_model import choose_model
from cairn.errors import SettingsError
from cairn.files.ignore import IgnoreRules
from cairn.files.rules import RULES_FILE_NAMES
from cairn.files.trust import workspace_settings
from cairn.llm.guide import suggested_model
from cairn.models.profile import ProjectProfile
from cairn.profile.scan import scan_profile
from cairn.settings import SETTINGS_FILE, validate_settings
from cairn.trace.files import atomic_write

AGENTS_FILE = "AGENTS.md"
# The build command a manifest implies, by package manager (Node's only with a `build` script).
BUILD_COMMANDS: dict[str, str] = {"cargo": "cargo build", "go": "go build ./..."}
NODE_MANAGERS = ("npm", "pnpm", "yarn", "bun")
TOP_LEVEL_SHOWN = 15


def starter_toml(model: str | None, inherited: str | None, tests: list[str]) -> str:
    """The text of a starter `cairn.toml`."""
    lines = [
        "# Cairn's settings for this folder, over your own config.toml (`cairn config path`);",
        "# `cairn config show` shows every value in effect and where it comes from.",
    ]
    if model is not None:
        lines.append(f"model = {json.dumps(model)}")
    else:
        example = inherited or suggested_model(os.environ)[0]
        now = f" (now: {inherited}, from your settings)" if inherited else ""
        lines.append(f"# model = {json.dumps(example)}  # litellm's provider/model{now}")
    lines += [
        "",
        "# A local or OpenAI-compatible server needs its endpoint and its window:",
        '# api_base = "http://localhost:1234/v1"',
        "# context_window = 32768",
        "",
        "# Commands the agent runs without asking (default: the project's test commands):",
        f"# allowed_commands = {json.dumps(tests or ['make check'])}",
    ]
    return "\n".join(lines) + "\n"


def build_commands(folder: Path, profile: ProjectProfile) -> list[str]:
    """The build commands the profile's manifests imply."""
    found = [BUILD_COMMANDS[m] for m in profile.package_managers if m in BUILD_COMMANDS]
    node = next((m for m in profile.package_managers if m in NODE_MANAGERS), None)
    if node is not None:
        try:
            package = json.loads((folder / "package.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            package = {}
        scripts = package.get("scripts") if isinstance(package, dict) else None
        if isinstance(scripts, dict) and "build" in scripts:
            found.append(f"{node} run build")
    return found


def top_level(ignore: IgnoreRules) -> list[str]:
    """The folder's visible top-level folders (with a `/`) then files, the first few."""
    tops = {path.relative_to(ignore.root).parts[0] for path in ignore.files()}
    shown = [top for top in tops if not top.startswith(".")]
    folders = sorted(top + "/" for top in shown if (ignore.root / top).is_dir())
    files = sorted(top for top in shown if not (ignore.root / top).is_dir())
    return [*folders, *files][:TOP_LEVEL_SHOWN]


def _items(label: str, values: list[str]) -> list[str]:
    return [f"- {label}: " + ", ".join(f"`{v}`" for v in values)] if values else []


def agents_text(folder: Path, profile: ProjectProfile, ignore: IgnoreRules) -> str:
    """The text of a seeded `AGENTS.md`."""
    tests = [f"- Test ({name}): `{command}`" for name, command in profile.test_suites.items()]
    builds = [f"- Build: `{command}`" for command in build_commands(folder, profile)]
    lines = [
        f"# {folder.name}",
        "",
        "Notes for coding agents (Cairn, and others that read AGENTS.md). `cairn init` wrote",
        "them from what it detected: check them, and add what a new colleague would need.",
        "",
        "## Commands",
        "",
        *(tests or ["- Test: (none detected: write the command that runs the tests)"]),
        *(builds or ["- Build: (none detected: write it here if the project has one)"]),
        "",
        "## Layout",
        "",
        *_items("Languages", profile.languages),
        *_items("Package managers", profile.package_managers),
        *_items("Entry points", profile.entry_points),
        *_items("Important paths", profile.important_paths),
        *_items("Top level", top_level(ignore)),
        "",
        "## Conventions",
        "",
        "- (Write the rules a change must follow: style, what not to touch, when it is done.)",
    ]
    return "\n".join(lines) + "\n"


def _rules_file(folder: Path) -> Path | None:
    return next((folder / n for n in RULES_FILE_NAMES if (folder / n).exists()), None)


def _inherited_model(folder: Path) -> str | None:
    """The model the user's settings already give this folder (None when none, or invalid)."""
    try:
        return workspace_settings(folder).model
    except SettingsError:
        return None


def _ask(question: str, default: str) -> str:
    return str(typer.prompt(question, default=default))


def init_folder(folder: Path, model: str | None, environ: Mapping[str, str] = os.environ) -> None:
    """`cairn init` (see the module docstring)."""
    require_workspace(folder)
    if model is not None:
        validate_settings({"model": model}, origin="--model")
    ignore = IgnoreRules.for_folder(folder)
    profile = scan_profile(folder, ignore)
    settings_path = folder / SETTINGS_FILE
    if settings_path.exists():
        typer.echo(f"{settings_path} exists: left as it is")
    else:
        if model is None and sys.stdin.isatty() and sys.stdout.isatty():
            model = choose_model(environ, _ask, typer.echo)
        text = starter_toml(model, _inherited_model(folder), list(profile.test_suites.values()))
        validate_settings(tomllib.loads(text), origin=str(settings_path))
        atomic_write(settings_path, text.encode("utf-8"))
        typer.echo(f"wrote {settings_path}")
    existing = _rules_file(folder)
    if existing is not None:
        typer.echo(f"{existing} exists: no {AGENTS_FILE} written")
    else:
        atomic_write(folder / AGENTS_FILE, agents_text(folder, profile, ignore).encode("utf-8"))
        typer.echo(f"wrote {folder / AGENTS_FILE}: check it, and add what only you know")
