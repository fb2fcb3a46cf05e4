"""Source: the project profile (languages, package managers, tests, important paths).

The profile itself is detected by `cairn.profile.store` (H4); this module
only renders it as a system-prompt section.
"""

from __future__ import annotations

from cairn.context.blocks import Candidate, Count, section
from cairn.context.priorities import PRIORITY_PROFILE
from cairn.models.profile import ProjectProfile

PROFILE_TITLE = "Project profile"


def render_profile(profile: ProjectProfile) -> str:
    """The profile as short lines; empty facts left out."""
    lines: list[str] = []
    if profile.languages:
        lines.append(f"Languages: {', '.join(profile.languages)}")
    if profile.package_managers:
        lines.append(f"Package managers: {', '.join(profile.package_managers)}")
    if profile.test_suites:
        lines.append("Tests:")
        lines += [f"- {name}: `{command}`" for name, command in sorted(profile.test_suites.items())]
    if profile.entry_points:
        lines.append(f"Entry points: {', '.join(profile.entry_points)}")
    if profile.important_paths:
        lines.append(f"Important paths: {', '.join(profile.important_paths)}")
    if profile.rules_files:
        lines.append(f"Rules files: {', '.join(r.path for r in profile.rules_files)}")
    return "\n".join(lines)


def profile_candidate(profile: ProjectProfile, count: Count) -> Candidate | None:
    """The profile section, or None when the profile says nothing."""
    body = render_profile(profile)
    if not body:
        return None
    return section("profile", PRIORITY_PROFILE, PROFILE_TITLE, body, count=count, ref="profile")
