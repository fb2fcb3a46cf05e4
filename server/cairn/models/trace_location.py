"""Where a workspace's traces may live: `trace_dir` must stay inside its `.cairn/`.

Traces hold whole sessions (messages, tool output, snapshots of the workspace):
a `trace_dir` outside `.cairn/` would write them into the project's tracked
tree, into `.git/` (where git reads config and hooks), or anywhere on disk.
The check is lexical, on the setting's text, before any folder is made.
"""

from __future__ import annotations

from pathlib import PurePath

STATE_FOLDER = ".cairn"
GIT_FOLDER = ".git"


def trace_dir_problem(value: str) -> str | None:
    """Why `value` cannot be a `trace_dir` (None: it can), naming the fix."""
    path = PurePath(value.replace("\\", "/"))
    parts = [part for part in path.parts if part not in ("", ".")]
    if path.is_absolute() or not parts or parts[0] != STATE_FOLDER:
        where = "an absolute path" if path.is_absolute() else "outside .cairn/"
        return (
            f"trace_dir {value!r} is {where}: it must be a folder inside the workspace's"
            f" {STATE_FOLDER}/ (e.g. {STATE_FOLDER!r} or '{STATE_FOLDER}/traces')"
        )
    if ".." in parts or GIT_FOLDER in parts:
        return (
            f"trace_dir {value!r} leaves {STATE_FOLDER}/ or enters {GIT_FOLDER}/: use a folder"
            f" inside {STATE_FOLDER}/ without '..' or '{GIT_FOLDER}'"
        )
    return None
