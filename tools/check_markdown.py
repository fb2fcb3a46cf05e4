"""Check that every Markdown table in the project's documentation is well-formed.

A table that a paragraph interrupts, a row with more or fewer cells than its header,
or a text line glued under a table's last row renders as loose text (or as a broken
row) on GitHub and in VS Code's preview, while the source still looks like a table.
This finds those, the way GitHub-flavoured Markdown reads a table:

- a table is a header row, a delimiter row (`| --- | :-: |`) with the same number of
  cells, then rows, up to a blank line;
- cells are split on `|` not escaped as `\\|` (inside code spans too: GFM splits
  there, so a pipe in a code span must be escaped);
- a line starting with `|` that is not inside such a table is a loose row;
- a non-blank line right under a table row joins the table as a one-cell row.

Fenced code blocks are skipped. `python -m tools.check_markdown [FILE...]` checks the
given files, or `README.md` and every Markdown file under `docs/`, `bench/README.md`
and `client-vscode/README.md`; it prints one line per problem (file, line, what, the
fix) and exits 1 when there is any.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_FILES = ("README.md", "bench/README.md", "client-vscode/README.md", "CHANGELOG.md")
DEFAULT_FOLDERS = ("docs",)

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_ROW = re.compile(r"^ {0,3}\|")
_DELIMITER_CELL = re.compile(r"^\s*:?-+:?\s*$")


@dataclass(frozen=True)
class Problem:
    """One malformed spot: where it is, what is wrong and how to fix it."""

    path: str
    line: int
    what: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.what}"


def cells(line: str) -> list[str]:
    """A table line's cells: split on unescaped pipes, the outer pipes dropped."""
    parts: list[str] = []
    current: list[str] = []
    escaped = False
    for char in line.strip():
        if escaped:
            current.append(char)
            escaped = False
        elif char == "\\":
            current.append(char)
            escaped = True
        elif char == "|":
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
    parts.append("".join(current))
    if parts and not parts[0].strip():
        parts = parts[1:]
    if parts and not parts[-1].strip():
        parts = parts[:-1]
    return parts


def is_delimiter(line: str) -> bool:
    """Whether `line` is a table's delimiter row (`| --- | :---: |`)."""
    found = cells(line)
    return bool(found) and all(_DELIMITER_CELL.match(c) for c in found)


def _outside_fences(lines: list[str]) -> list[bool]:
    """For each line, whether it is outside a fenced code block (fences themselves are not)."""
    outside: list[bool] = []
    fence: str | None = None
    for line in lines:
        match = _FENCE.match(line)
        if fence is None and match:
            fence = match.group(1)[0] * len(match.group(1))
            outside.append(False)
        elif fence is not None:
            if line.strip().startswith(fence) and not line.strip().strip(fence[0]):
                fence = None
            outside.append(False)
        else:
            outside.append(True)
    return outside


def check_text(text: str, path: str) -> list[Problem]:
    """Every malformed table spot in one Markdown text."""
    lines = text.splitlines()
    outside = _outside_fences(lines)
    problems: list[Problem] = []
    i = 0
    while i < len(lines):
        if not (outside[i] and _ROW.match(lines[i])):
            i += 1
            continue
        if i + 1 < len(lines) and outside[i + 1] and is_delimiter(lines[i + 1]):
            i = _check_table(lines, outside, i, path, problems)
            continue
        end = i
        while end + 1 < len(lines) and outside[end + 1] and _ROW.match(lines[end + 1]):
            end += 1
        rows = f"line {i + 1}" if end == i else f"lines {i + 1}-{end + 1}"
        problems.append(
            Problem(
                path,
                i + 1,
                f"table rows outside any table ({rows}: a paragraph or blank line cut the"
                " table, or the header's delimiter row is missing): keep the table's rows"
                " together under its header and delimiter row",
            )
        )
        i = end + 1
    return problems


def _check_table(
    lines: list[str], outside: list[bool], start: int, path: str, problems: list[Problem]
) -> int:
    """Check the table whose header is at `start`; return the index after it."""
    width = len(cells(lines[start]))
    if len(cells(lines[start + 1])) != width:
        problems.append(
            Problem(
                path,
                start + 2,
                f"the delimiter row has {len(cells(lines[start + 1]))} cells, the header"
                f" {width}: give it one `---` per header cell",
            )
        )
    i = start + 2
    while i < len(lines) and outside[i] and lines[i].strip():
        if not _ROW.match(lines[i]):
            problems.append(
                Problem(
                    path,
                    i + 1,
                    "a text line right under a table joins it as a row: leave a blank line"
                    " between the table and the text",
                )
            )
        elif (found := len(cells(lines[i]))) != width:
            problems.append(
                Problem(
                    path,
                    i + 1,
                    f"a row with {found} cells in a table of {width} columns: escape a pipe"
                    " inside a cell as `\\|` (code spans too), or add the missing cells",
                )
            )
        i += 1
    return i


def default_files(root: Path = ROOT) -> list[Path]:
    """README.md, the other READMEs and every Markdown file under docs/."""
    found = [root / name for name in DEFAULT_FILES if (root / name).is_file()]
    for folder in DEFAULT_FOLDERS:
        found.extend(sorted((root / folder).rglob("*.md")))
    return found


def check_files(paths: list[Path], root: Path = ROOT) -> list[Problem]:
    """Every malformed table spot in the given files (paths shown relative to `root`)."""
    problems: list[Problem] = []
    for path in paths:
        shown = str(path.relative_to(root)) if path.is_relative_to(root) else str(path)
        problems.extend(check_text(path.read_text(encoding="utf-8"), shown))
    return problems


def main(argv: list[str] | None = None) -> int:
    """Check the given Markdown files (or the default set); 1 when any table is malformed."""
    args = sys.argv[1:] if argv is None else argv
    paths = [Path(a).resolve() for a in args] if args else default_files()
    problems = check_files(paths)
    for problem in problems:
        print(problem)
    if not problems:
        print(f"{len(paths)} Markdown files, every table well-formed")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
