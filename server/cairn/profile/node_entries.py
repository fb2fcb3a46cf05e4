"""How the profile names a package.json entry (`main`, a `bin`): the file, or its source.

A package built before it is published points `main` at its build output
(`distribution/index.js`), which is not in the repository. Sending the model
there wastes a read, so `node_entry` names the entry's file when the project
has it; else the source it is built from, found by `_node_source` (the same
path below the build folder, under a source folder or the root, with a source
suffix: `source/index.ts (built to distribution/index.js)`); else the path
marked as build output.
"""

from __future__ import annotations

import posixpath
from collections.abc import Collection

# Where a built entry's source is looked for, and with which suffixes.
NODE_SOURCE_DIRS = ("src", "source", "lib", "")
NODE_SOURCE_SUFFIXES = (".ts", ".tsx", ".mts", ".cts", ".js", ".mjs", ".cjs", ".jsx")
NODE_BUILD_OUTPUT = "build output, not in the project"


def node_entry(files: Collection[str], base: str, target: str) -> str:
    """The entry `target` of the package at `base`, as the profile shows it (see the module
    docstring); `files` are the project's files relative to its root."""
    rel = posixpath.normpath(target.removeprefix("./"))
    prefix = f"{base}/" if base else ""
    if prefix + rel in files:
        return rel
    source = _node_source(files, prefix, rel)
    if source is not None:
        return f"{source} (built to {rel})"
    return f"{rel} ({NODE_BUILD_OUTPUT})"


def _node_source(files: Collection[str], prefix: str, rel: str) -> str | None:
    """The project file a built entry comes from, or None when there is none."""
    below = rel.partition("/")[2] or rel
    stem = posixpath.splitext(below)[0]
    for source_dir in NODE_SOURCE_DIRS:
        for suffix in NODE_SOURCE_SUFFIXES:
            candidate = posixpath.join(source_dir, stem + suffix)
            if prefix + candidate in files:
                return candidate
    return None
