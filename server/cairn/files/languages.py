"""The one language table: which language a file is written in, and its tree-sitter grammar.

Judged by the file's name. Every programming language is listed, as GitHub's
linguist counts them for the profile (data and prose formats — JSON, YAML,
Markdown... — are not languages a project is "written in"); the languages
Cairn parses with tree-sitter also name their grammar (`cairn.code.languages`
loads it). A language and its grammar may differ: `.tsx` files are
TypeScript, parsed with the `tsx` grammar. Names are lower case.
"""

from __future__ import annotations

import os

FILE_LANGUAGES: dict[str, tuple[str, str | None]] = {
    ".py": ("python", "python"),
    ".pyi": ("python", "python"),
    ".pyx": ("python", None),
    ".js": ("javascript", "javascript"),
    ".mjs": ("javascript", "javascript"),
    ".cjs": ("javascript", "javascript"),
    ".jsx": ("javascript", "javascript"),
    ".ts": ("typescript", "typescript"),
    ".mts": ("typescript", "typescript"),
    ".cts": ("typescript", "typescript"),
    ".tsx": ("typescript", "tsx"),
    ".go": ("go", "go"),
    ".rs": ("rust", "rust"),
    ".java": ("java", "java"),
    ".kt": ("kotlin", None),
    ".kts": ("kotlin", None),
    ".scala": ("scala", None),
    ".groovy": ("groovy", None),
    ".c": ("c", "c"),
    ".h": ("c", "c"),
    ".cc": ("cpp", "cpp"),
    ".cpp": ("cpp", "cpp"),
    ".cxx": ("cpp", "cpp"),
    ".hh": ("cpp", "cpp"),
    ".hpp": ("cpp", "cpp"),
    ".hxx": ("cpp", "cpp"),
    ".cs": ("csharp", None),
    ".fs": ("fsharp", None),
    ".swift": ("swift", None),
    ".m": ("objective-c", None),
    ".rb": ("ruby", None),
    ".php": ("php", None),
    ".pl": ("perl", None),
    ".lua": ("lua", None),
    ".r": ("r", None),
    ".dart": ("dart", None),
    ".ex": ("elixir", None),
    ".exs": ("elixir", None),
    ".erl": ("erlang", None),
    ".hs": ("haskell", None),
    ".ml": ("ocaml", None),
    ".clj": ("clojure", None),
    ".zig": ("zig", None),
    ".nim": ("nim", None),
    ".jl": ("julia", None),
    ".sh": ("shell", None),
    ".bash": ("shell", None),
    ".zsh": ("shell", None),
    ".ps1": ("powershell", None),
    ".sql": ("sql", None),
    ".html": ("html", None),
    ".htm": ("html", None),
    ".css": ("css", None),
    ".scss": ("scss", None),
    ".sass": ("scss", None),
    ".less": ("less", None),
    ".vue": ("vue", None),
    ".svelte": ("svelte", None),
    ".c++": ("cpp", "cpp"),
    ".h++": ("cpp", "cpp"),
}
"""File extension (lower case, with the dot) → (language name, tree-sitter grammar or None)."""

LANGUAGE_BY_NAME: dict[str, str] = {
    "Makefile": "make",
    "GNUmakefile": "make",
    "Dockerfile": "dockerfile",
}
"""Whole file names that identify a language without an extension."""


def _extension(path: str | os.PathLike[str]) -> str | None:
    name = os.path.basename(path)
    dot = name.rfind(".")
    return name[dot:].lower() if dot > 0 else None


def language_of(path: str | os.PathLike[str]) -> str | None:
    """The programming language of a file from its name, or None (data, prose, unknown)."""
    by_name = LANGUAGE_BY_NAME.get(os.path.basename(path))
    if by_name is not None:
        return by_name
    entry = FILE_LANGUAGES.get(_extension(path) or "")
    return entry[0] if entry is not None else None


def grammar_of(path: str | os.PathLike[str]) -> str | None:
    """The tree-sitter grammar for a file from its extension, or None when Cairn has none."""
    entry = FILE_LANGUAGES.get(_extension(path) or "")
    return entry[1] if entry is not None else None
