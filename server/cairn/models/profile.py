"""The project profile: what kind of repository this is, kept in `.cairn/profile.json`."""

from __future__ import annotations

from pydantic import Field

from cairn.models.base import WireModel


class RulesFile(WireModel):
    path: str
    hash: str


class ProjectProfile(WireModel):
    """PROTOCOL.md's ProjectProfile, plus the facts the profile is refreshed from."""

    languages: list[str] = Field(default_factory=list)
    package_managers: list[str] = Field(default_factory=list)
    test_suites: dict[str, str] = Field(default_factory=dict)
    important_paths: list[str] = Field(default_factory=list)
    rules_files: list[RulesFile] = Field(default_factory=list)
    entry_points: list[str] = Field(default_factory=list)
    language_bytes: dict[str, int] = Field(default_factory=dict)
    git_head: str | None = None
