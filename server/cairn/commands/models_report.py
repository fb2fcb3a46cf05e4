"""What `cairn models` reports for each role, without calling (or importing) a model.

For the main, compaction and explore roles: the model and where that
setting came from (an `Origin`: default, user config, cairn.toml,
environment, editor, flag; or the session's own model), the provider and endpoint, whether the key variable is set, the
context window and output limit from litellm's model map (or the
configured `context_window`), and whether a call would be possible — with
every reason it would not. For the main model, the compaction knobs in
effect (`cairn.compaction.retention`: the settings, the unset ones from the
provider's prompt-cache price). For each role's model, the context limits
providers stated in the workspace's sessions (`learned`: one session's with
`--session`), each with the command that clears it. Pure apart from checking
that a scripted model's file exists; the environment and the learned limits
are passed in.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from cairn.compaction.retention import Retention, retention
from cairn.context.budget import Budget, role_window
from cairn.context.sources.repomap import map_cap
from cairn.errors import BudgetError
from cairn.llm.cache_hints import model_cache_price
from cairn.llm.provider import ProviderSetup, provider_setup
from cairn.models.session import SessionMeta
from cairn.settings import ROLES, Role, Settings, role_model
from cairn.tokens.model_info import SCRIPTED_PROVIDER, model_map_window, model_max_output

ROLE_SETTING: dict[Role, str] = {
    "main": "model",
    "compaction": "compaction_model",
    "explore": "explore_model",
}
# Where a model came from, beyond the settings' origins.
SESSION_ORIGIN = "session"
MAIN_ORIGIN = "default: the main model"
NO_MODEL = "no model configured"


@dataclass(frozen=True)
class LearnedLimit:
    """A context window a provider stated for a model in one session (it caps the window)."""

    session_id: str
    tokens: int

    @property
    def clear(self) -> str:
        """The command that clears it."""
        return f"cairn trace forget-limits {self.session_id}"


def learned_limits(metas: Iterable[SessionMeta]) -> dict[str, list[LearnedLimit]]:
    """model → the limits providers stated for it, per session (smallest first)."""
    out: dict[str, list[LearnedLimit]] = {}
    for meta in metas:
        for model, tokens in meta.context_limits.items():
            out.setdefault(model, []).append(LearnedLimit(meta.id, tokens))
    return {model: sorted(found, key=lambda x: x.tokens) for model, found in out.items()}


@dataclass(frozen=True)
class RoleReport:
    """One role's model and everything about calling it."""

    role: Role
    model: str | None
    origin: str
    setup: ProviderSetup | None = None
    window: int | None = None
    window_source: str = ""
    max_output: int | None = None
    reserved_output: int = 0
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # The main role's compaction knobs (None for the other roles, or without a window).
    retention: Retention | None = None
    # The main role's repository-map cap and why (None for the other roles, or without a
    # window): `map_cap`, as the first call's map is budgeted.
    map_tokens: int | None = None
    map_source: str = ""
    # The context limits providers stated for this model in the sessions asked about.
    learned: list[LearnedLimit] = field(default_factory=list)

    @property
    def possible(self) -> bool:
        return not self.problems


def _model_origin(role: Role, settings: Settings, origins: Mapping[str, str]) -> str:
    key = ROLE_SETTING[role]
    if role != "main" and getattr(settings, key) is None:
        return MAIN_ORIGIN
    return f"{key}: {origins.get(key, 'default')}"


def _window(model: str, main: str, settings: Settings) -> tuple[int | None, str, str | None]:
    """(window, where it comes from, the problem when there is none)."""
    try:
        window = role_window(model, main, settings)
    except BudgetError as exc:
        return None, "", str(exc)
    if model.startswith(SCRIPTED_PROVIDER + "/"):
        return window, "the scripted model's", None
    if model == main and settings.context_window is not None:
        return window, "context_window", None
    if model_map_window(model) == window:
        return window, "litellm's model map", None
    return window, "context_window", None


def _scripted_problem(model: str, root: Path) -> str | None:
    path = Path(model[len(SCRIPTED_PROVIDER) + 1 :]).expanduser()
    path = path if path.is_absolute() else root / path
    return None if path.is_file() else f"the script {path} does not exist"


def role_report(
    role: Role,
    settings: Settings,
    origins: Mapping[str, str],
    env: Mapping[str, str],
    root: Path,
    main: str | None = None,
    main_origin: str | None = None,
    learned: Mapping[str, list[LearnedLimit]] | None = None,
) -> RoleReport:
    """The report of one role; `main` overrides the main model (a session's own); `learned`:
    the limits providers stated, by model."""
    main_model = main or settings.model
    model = role_model(settings, role, main_model)
    origin = _model_origin(role, settings, origins)
    if role == "main" and main_origin is not None:
        origin = main_origin
    if model is None or main_model is None:
        return RoleReport(role, None, origin, problems=[NO_MODEL])
    setup = provider_setup(settings, model, env, main_model)
    problems: list[str] = []
    notes: list[str] = []
    if model.startswith(SCRIPTED_PROVIDER + "/"):
        problems += [p for p in [_scripted_problem(model, root)] if p]
    elif setup.provider is None:
        problems.append(
            f"litellm does not know the provider of {model!r}: write it as provider/model"
            " (e.g. openai/<name> for an OpenAI-compatible server)"
        )
    if setup.problem is not None:
        problems.append(setup.problem)
    window, source, window_problem = _window(model, main_model, settings)
    if window_problem is not None:
        problems.append(window_problem)
    limit = None if model.startswith(SCRIPTED_PROVIDER + "/") else model_max_output(model)
    reserved = settings.max_output_tokens
    if limit is not None and reserved > limit:
        notes.append(
            f"requests ask for {limit:,} output tokens (the model's limit), not "
            f"max_output_tokens = {reserved:,}"
        )
    if window is not None and Budget.of(window, settings).available_input <= 0:
        problems.append(
            f"no room for input: window {window:,} - max_output_tokens {reserved:,}"
            f" - safety_margin {settings.safety_margin:,} <= 0"
        )
    found = list((learned or {}).get(model, []))
    report = RoleReport(
        role, model, origin, setup, window, source, limit, reserved, problems, notes, learned=found
    )
    return _with_main_budget(report, settings) if role == "main" else report


def _with_main_budget(report: RoleReport, settings: Settings) -> RoleReport:
    """The main role's report with its compaction knobs and repository-map cap."""
    if report.window is None or report.model is None:
        return report
    price = model_cache_price(settings, report.model)
    tokens, why = map_cap(report.window, settings.repo_map_tokens, price.read)
    knobs = retention(settings, report.window, price)
    return replace(report, retention=knobs, map_tokens=tokens, map_source=why)


def models_report(
    settings: Settings,
    origins: Mapping[str, str],
    env: Mapping[str, str],
    root: Path,
    session_model: str | None = None,
    learned: Mapping[str, list[LearnedLimit]] | None = None,
) -> list[RoleReport]:
    """The report of every role (the main model a session's own when `session_model`)."""
    main_origin = SESSION_ORIGIN if session_model is not None else None
    return [
        role_report(role, settings, origins, env, root, session_model, main_origin, learned)
        for role in ROLES
    ]
