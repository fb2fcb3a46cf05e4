"""`cairn doctor`: what a new user gets wrong, each checked and printed with its fix.

One line per check, `ok` or `problem` (a problem a turn can live with is
`note`), and under each problem the fix: Python's version; the settings
loading (the user's config, the folder's `cairn.toml`); the model and its
provider; its key variable, named, and whether it is set (never its value);
`api_base` answering an HTTP request (`probe`: 2 s, no model call, no key
sent, proxies as the environment sets them; only the `api_base` in effect,
so never one an untrusted folder names); the tree-sitter grammars loading;
git; the command sandbox `run_command` would use (`cairn.sandbox`); whether the folder is trusted;
the MCP servers starting — only in a trusted folder, since starting them runs
them. Exit code 1 when something a turn needs is missing (`Check.needed`).
"""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import shlex
import shutil
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path

import typer

from cairn import __version__
from cairn.commands.checks import require_workspace
from cairn.commands.models_report import role_report
from cairn.errors import SettingsError
from cairn.files.settings_layers import origin_label
from cairn.files.trust import untrusted_notice, workspace_settings
from cairn.llm.guide import suggested_model
from cairn.llm.provider import ProviderSetup, provider_setup
from cairn.sandbox.choice import INSTALL_HINT, choose_sandbox
from cairn.settings import Settings

PROBE_TIMEOUT_S = 2.0
MIN_PYTHON = (3, 11)
GIT_TIMEOUT_S = 5.0
LABEL_WIDTH = 10


@dataclass(frozen=True)
class Check:
    """One thing checked: whether it is fine, what was found, and the fix when it is not."""

    name: str
    ok: bool
    detail: str
    fix: str = ""
    # Whether a turn needs it: a problem then makes the exit code 1.
    needed: bool = True

    @property
    def status(self) -> str:
        return "ok" if self.ok else ("problem" if self.needed else "note")


def probe(url: str, timeout: float = PROBE_TIMEOUT_S) -> str | None:
    """Why `url` does not answer an HTTP GET within `timeout` (None when it answers at all,
    an error status included). No key or header of the provider is sent."""
    if not url.startswith(("http://", "https://")):
        return "not an http:// or https:// URL"
    request = urllib.request.Request(url, headers={"User-Agent": f"cairn-doctor/{__version__}"})
    try:
        with urllib.request.urlopen(request, timeout=timeout):
            return None
    except urllib.error.HTTPError:  # it answered: reachable, whatever it thinks of the path
        return None
    except urllib.error.URLError as exc:
        reason = exc.reason
        text = getattr(reason, "strerror", None) or str(reason)
        return f"no answer within {timeout:g} s" if isinstance(reason, TimeoutError) else text
    except TimeoutError:
        return f"no answer within {timeout:g} s"
    except (OSError, http.client.HTTPException, ValueError) as exc:
        return str(exc) or type(exc).__name__


def python_check() -> Check:
    version = ".".join(map(str, sys.version_info[:3]))
    fine = sys.version_info >= MIN_PYTHON
    need = ".".join(map(str, MIN_PYTHON))
    return Check("python", fine, version, "" if fine else f"install Python {need} or newer")


def settings_check(folder: Path) -> tuple[Check, Settings]:
    """Whether the settings load, and the settings (the defaults when they do not)."""
    try:
        settings = workspace_settings(folder)
    except SettingsError as exc:
        fix = "correct it: `cairn config edit` (your file) or `cairn config edit --workspace`"
        return Check("settings", False, str(exc), fix), Settings()
    return Check("settings", True, "loaded (`cairn config show` shows each value)"), settings


def model_check(settings: Settings, folder: Path, env: Mapping[str, str]) -> Check:
    if settings.model is None:
        model = suggested_model(env)[0]
        fix = f"`cairn config set model {model}` (every folder), or `model` in cairn.toml"
        return Check("model", False, "none configured", fix)
    origin = origin_label(settings.origins["model"], env)
    report = role_report("main", settings, {}, env, folder)
    setup_problem = report.setup.problem if report.setup is not None else None
    others = [p for p in report.problems if p != setup_problem]
    if others:
        return Check(
            "model", False, f"{settings.model} ({origin}): {others[0]}", "see docs/MODELS.md"
        )
    return Check("model", True, f"{settings.model} ({origin})")


def key_check(setup: ProviderSetup) -> Check:
    variable = setup.key_variable
    if setup.key_source == "none_needed":
        return Check("key", True, "none needed (a local provider)")
    if setup.key_source == "unchecked":
        return Check("key", True, f"not checked: {setup.provider} takes its own credentials")
    if setup.key_source == "placeholder":
        names = " or ".join(setup.key_candidates)
        return Check("key", True, f"{names} not set: a placeholder key goes to api_base")
    where = "api_key_env names it" if setup.key_source == "api_key_env" else "the provider's"
    if setup.key_present:
        return Check("key", True, f"{variable} is set ({where})")
    fix = f"export {variable}=<your {setup.provider or 'provider'} API key>"
    if setup.key_source != "api_key_env":
        fix += ", or set api_key_env to the variable that holds it"
    return Check("key", False, f"{variable} is not set ({where})", fix)


def endpoint_check(setup: ProviderSetup, settings: Settings, env: Mapping[str, str]) -> Check:
    if setup.api_base is None:
        return Check("api_base", True, "not set: the provider's usual endpoint (not probed)")
    origin = origin_label(settings.origins["api_base"], env)
    why = probe(setup.api_base)
    if why is None:
        return Check("api_base", True, f"{setup.api_base} answers ({origin})")
    fix = f"start the server it names, or correct api_base ({origin})"
    return Check("api_base", False, f"{setup.api_base} does not answer: {why}", fix)


def grammars_check() -> Check:
    from cairn.code.languages import LANGUAGES, definition_query

    failed: list[str] = []
    for name in LANGUAGES:
        try:
            definition_query(name)
        except Exception as exc:  # any failure of a wheel or a query is this check's finding
            failed.append(f"{name} ({type(exc).__name__}: {exc})")
    if failed:
        fix = "reinstall Cairn with its dependencies (pip install --force-reinstall cairn-lsp)"
        return Check("grammars", False, "not loading: " + "; ".join(failed), fix, needed=False)
    return Check("grammars", True, f"{len(LANGUAGES)} load: {', '.join(LANGUAGES)}")


def git_check() -> Check:
    git = shutil.which("git")
    if git is None:
        fix = "install git (without it: no diffs in the context, no checkpoints from git)"
        return Check("git", False, "not found on PATH", fix, needed=False)
    try:
        done = subprocess.run(
            [git, "--version"], capture_output=True, text=True, timeout=GIT_TIMEOUT_S, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return Check("git", False, f"{git} does not run: {exc}", "reinstall git", needed=False)
    return Check("git", True, done.stdout.strip() or git)


def sandbox_check(settings: Settings) -> Check:
    """The sandbox `run_command` would use under these settings (the same probe it runs)."""
    use = choose_sandbox(settings.sandbox, settings.sandbox_network)
    if use.active:
        return Check("sandbox", True, use.describe())
    if use.mode == "off":
        return Check("sandbox", True, 'off (sandbox = "off"): commands run with your rights')
    return Check("sandbox", False, use.why_not, INSTALL_HINT, needed=use.refusal is not None)


def trust_check(folder: Path, settings: Settings) -> Check:
    if settings.workspace_trusted:
        return Check("trust", True, f"{folder} is trusted")
    if not settings.ignored_keys:
        return Check("trust", True, "not trusted; its cairn.toml has nothing that needs it")
    fix = f"`cairn trust {shlex.quote(str(folder))}` if you trust what its cairn.toml runs"
    return Check("trust", False, untrusted_notice(settings.ignored_keys, folder), fix, False)


def mcp_check(folder: Path, settings: Settings) -> list[Check]:
    names = sorted(settings.mcp.servers)
    ignored = " (cairn.toml's are ignored: see trust)" if "mcp" in settings.ignored_keys else ""
    if not names:
        return [Check("mcp", True, f"no servers in effect{ignored}")]
    if not settings.workspace_trusted:
        detail = f"{', '.join(names)} not started: doctor starts servers only in a trusted folder"
        return [Check("mcp", True, detail + ignored)]
    from cairn.commands.mcp import server_statuses

    typer.echo(f"starting {len(names)} MCP server(s) to check them (this runs them)…", err=True)
    statuses = asyncio.run(server_statuses(folder, settings))
    fix = "`cairn mcp list` shows it; see docs/MCP.md"
    return [
        Check(f"mcp {s.name}", s.state == "ready", f"{s.state}: {s.reason or s.target}", fix, False)
        for s in statuses
    ]


def run_checks(folder: Path, env: Mapping[str, str]) -> list[Check]:
    """Every check, in the order a new user would fix them."""
    loaded, settings = settings_check(folder)
    checks = [python_check(), loaded, model_check(settings, folder, env)]
    if settings.model is not None:
        setup = provider_setup(settings, settings.model, env)
        checks += [key_check(setup), endpoint_check(setup, settings, env)]
    checks += [
        grammars_check(),
        git_check(),
        sandbox_check(settings),
        trust_check(folder, settings),
    ]
    return checks + mcp_check(folder, settings)


def render(checks: list[Check]) -> list[str]:
    lines: list[str] = []
    for check in checks:
        lines.append(f"{check.status:<8} {check.name:<{LABEL_WIDTH}} {check.detail}")
        if not check.ok and check.fix:
            lines.append(f"{'':<8} {'':<{LABEL_WIDTH}} fix: {check.fix}")
    blocking = [c.name for c in checks if not c.ok and c.needed]
    verdict = f"a turn cannot run: fix {', '.join(blocking)}" if blocking else "a turn can run"
    return [*lines, "", verdict]


def doctor(folder: Path, as_json: bool) -> None:
    """`cairn doctor` (see the module docstring); exit 1 when a turn would not run."""
    require_workspace(folder)
    checks = run_checks(folder, os.environ)
    if as_json:
        typer.echo(json.dumps([{**asdict(c), "status": c.status} for c in checks], indent=2))
    else:
        typer.echo("\n".join(render(checks)))
    if any(not c.ok and c.needed for c in checks):
        raise SystemExit(1)
