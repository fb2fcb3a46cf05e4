"""Source: the project profile (languages, package managers, tests, important paths).

The profile itself is detected by `cairn.profile.store` (H4); this module
only renders it as a system-prompt section. Paths the workspace's secret
rules name (`is_secret`, given the workspace-relative path) are left out,
whatever the stored profile says (it may be hand-edited or older than the
rules).
"""

from __future__ import annotations

from collections.abc import Callable

from cairn.context.blocks import Candidate, Count, section
from cairn.context.priorities import PRIORITY_PROFILE
from cairn.models.profile import ProjectProfile

PROFILE_TITLE = "Project profile"


SecretTest = Callable[[str], bool]


def _never(_rel: str) -> bool:
    return False


def _shown(paths: list[str], is_secret: SecretTest) -> list[str]:
    return [path for path in paths if not is_secret(path.rstrip("/"))]


def render_profile(profile: ProjectProfile, is_secret: SecretTest = _never) -> str:
    """The profile as short lines; empty facts and secret paths left out."""
    entry_points = _shown(profile.entry_points, is_secret)
    important = _shown(profile.important_paths, is_secret)
    rules = _shown([r.path for r in profile.rules_files], is_secret)
    lines: list[str] = []
    if profile.languages:
        lines.append(f"Languages: {', '.join(profile.languages)}")
    if profile.package_managers:
        lines.append(f"Package managers: {', '.join(profile.package_managers)}")
    if profile.test_suites:
        lines.append("Tests:")
        lines += [f"- {name}: `{command}`" for name, command in sorted(profile.test_suites.items())]
    if entry_points:
        lines.append(f"Entry points: {', '.join(entry_points)}")
    if important:
        lines.append(f"Important paths: {', '.join(important)}")
    if rules:
        lines.append(f"Rules files: {', '.join(rules)}")
    return "\n".join(lines)


def profile_candidate(
    profile: ProjectProfile, count: Count, is_secret: SecretTest = _never
) -> Candidate | None:
    """The profile section, or None when the profile says nothing."""
    body = render_profile(profile, is_secret)
    if not body:
        return None
    return section("profile", PRIORITY_PROFILE, PROFILE_TITLE, body, count=count, ref="profile")
