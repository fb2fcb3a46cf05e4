"""Which programming language a file is written in, judged by its name (for the profile).

Broader than the tree-sitter languages of `cairn.code`: the profile counts
every programming language by bytes, as GitHub's linguist does, and leaves
out data and prose formats (JSON, YAML, Markdown...) which are not languages
a project is "written in". Language names are lower case, matching
`cairn.code.languages` where both know a language.
"""

from __future__ import annotations

from pathlib import PurePath

LANGUAGE_BY_EXTENSION: dict[str, str] = {
    ".py": "python",
    ".pyi": "python",
    ".pyx": "python",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "typescript",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".kt": "kotlin",
    ".kts": "kotlin",
    ".scala": "scala",
    ".groovy": "groovy",
    ".c": "c",
    ".h": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".cxx": "cpp",
    ".hh": "cpp",
    ".hpp": "cpp",
    ".hxx": "cpp",
    ".cs": "csharp",
    ".fs": "fsharp",
    ".swift": "swift",
    ".m": "objective-c",
    ".rb": "ruby",
    ".php": "php",
    ".pl": "perl",
    ".lua": "lua",
    ".r": "r",
    ".dart": "dart",
    ".ex": "elixir",
    ".exs": "elixir",
    ".erl": "erlang",
    ".hs": "haskell",
    ".ml": "ocaml",
    ".clj": "clojure",
    ".zig": "zig",
    ".nim": "nim",
    ".jl": "julia",
    ".sh": "shell",
    ".bash": "shell",
    ".zsh": "shell",
    ".ps1": "powershell",
    ".sql": "sql",
    ".html": "html",
    ".htm": "html",
    ".css": "css",
    ".scss": "scss",
    ".sass": "scss",
    ".less": "less",
    ".vue": "vue",
    ".svelte": "svelte",
}
"""File extension (lower case, with the dot) → language name."""

LANGUAGE_BY_NAME: dict[str, str] = {
    "Makefile": "make",
    "GNUmakefile": "make",
    "Dockerfile": "dockerfile",
}
"""Whole file names that identify a language without an extension."""


def language_of(path: str | PurePath) -> str | None:
    """The programming language of a file from its name, or None (data, prose, unknown)."""
    pure = PurePath(path)
    by_name = LANGUAGE_BY_NAME.get(pure.name)
    if by_name is not None:
        return by_name
    return LANGUAGE_BY_EXTENSION.get(pure.suffix.lower())
