"""The workspace of the context-quality bench: a small multi-package Python project in git.

`make_workspace(folder)` writes a real project and commits it: three
packages (`pkg_a` parsing, `pkg_b` reporting, `pkg_x` exporting) of a few
modules each, real unittest suites under `tests/` that `run_command` runs,
a fixture generator (`gen_fixtures.py --seed N`), a root `AGENTS.md` and a
nested `pkg_x/AGENTS.md`. The modules are long enough (a few hundred lines
of plain functions) that reading them fills a small window.

Planted facts live here too: every rule of both AGENTS.md files carries a
marker (`RULE_MARKERS`), and some files hold a fact that only a tool's
output can reveal (`TOOL_FACTS`: a constant deep inside a large module, a
comment in a config module, the generator's printed checksum, a line that
only `grep` finds). Markers are unique words that appear nowhere else, so
finding one in a request proves the model was shown that fact.

A variant of the project (`LARGE_READS`) keeps the first two of those facts
only in comments in the middle of two 17–18 KB modules (`pkg_a/tokenizer.py`
and `pkg_b/config.py`, both read in turn 1): an outline or an excerpt of
either read does not show them.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

# Functions generated per filler module; each is ~6 lines (so ~40 tokens).
FILLER_FUNCTIONS = 40
# ... and per large module of the large-reads variant (17–18 KB).
LARGE_FUNCTIONS = 66
# The project variants (`project_files`): as described above, or with large reads.
BASE = "base"
LARGE_READS = "large-reads"
GIT_IDENTITY = ("-c", "user.email=bench@example.com", "-c", "user.name=bench")

TEST_A = "python3 -m unittest -q tests.test_parse"
TEST_X = "python3 -m unittest -q tests.test_export"
GEN_SEED_7 = "python3 gen_fixtures.py --seed 7"
GEN_SEED_11 = "python3 gen_fixtures.py --seed 11 --rows 40"
ALLOWED_COMMANDS = ["python3 -m unittest", "python3 gen_fixtures.py"]


@dataclass(frozen=True)
class RuleFact:
    """One AGENTS.md rule: its marker and the folder whose files it governs ("" = root)."""

    marker: str
    folder: str
    text: str


ROOT_RULES = (
    RuleFact("RULE-ROOT-PATHLIB-31", "", "Use pathlib for every path; never os.path."),
    RuleFact("RULE-ROOT-TYPES-52", "", "Every public function has full type hints."),
    RuleFact("RULE-ROOT-NOPRINT-77", "", "Library code never prints; it returns or logs."),
)
NESTED_RULES = (
    RuleFact("RULE-PKGX-CSVQUOTE-18", "pkg_x", "CSV output always quotes every field."),
    RuleFact("RULE-PKGX-UTF8BOM-64", "pkg_x", "Exported files start with a UTF-8 BOM."),
)
RULE_MARKERS = ROOT_RULES + NESTED_RULES


@dataclass(frozen=True)
class ToolFact:
    """A fact only a tool's output shows: its marker and the sentence a summary restates."""

    marker: str
    sentence: str


TOOL_FACTS = (
    ToolFact(
        "FACT-RETRY-LIMIT-417", "pkg_a/tokenizer.py caps retries at 417 (FACT-RETRY-LIMIT-417)"
    ),
    ToolFact(
        "FACT-TTL-CACHE-903", "pkg_b/config.py sets the cache TTL to 903 s (FACT-TTL-CACHE-903)"
    ),
    ToolFact("FACT-CKSUM-5521", "the seed-7 fixtures have checksum 5521 (FACT-CKSUM-5521)"),
    ToolFact(
        "FACT-LEGACY-FLAG-260", "pkg_x/legacy.py still reads LEGACY_FLAG_260 (FACT-LEGACY-FLAG-260)"
    ),
)


def _rules_text(title: str, rules: tuple[RuleFact, ...]) -> str:
    lines = [f"# {title}", ""]
    lines += [f"- {rule.text} ({rule.marker})" for rule in rules]
    return "\n".join(lines) + "\n"


def filler_module(
    name: str, topic: str, extra: str = "", at: int = -1, functions: int = FILLER_FUNCTIONS
) -> str:
    """A module of `functions` small typed functions; `extra` inserted after function `at`."""
    parts = [f'"""{topic} helpers of {name}."""\n\nfrom __future__ import annotations\n']
    for index in range(functions):
        parts.append(
            f"\ndef {topic}_step_{index}(values: list[int], scale: int = {index + 2}) -> list[int]:\n"
            f'    """Step {index} of the {topic} pipeline: scale, offset and clamp each value."""\n'
            f"    shifted = [value * scale + {index} for value in values]\n"
            f"    return [min(max(value, -{index + 100}), {index + 1000}) for value in shifted]\n"
        )
        if index == at:
            parts.append(extra)
    return "".join(parts)


PARSE = '''"""Parsing of `key=value` records."""

from __future__ import annotations


def parse_line(line: str) -> tuple[str, str]:
    """Split one `key=value` line; surrounding blanks are removed."""
    key, _, value = line.partition("=")
    return key.strip(), value.strip()


def parse_records(text: str) -> dict[str, str]:
    """Every non-empty, non-comment line of `text` as a key/value pair."""
    out: dict[str, str] = {}
    for raw in text.splitlines():
        if raw.strip() and not raw.lstrip().startswith("#"):
            key, value = parse_line(raw)
            out[key] = value
    return out
'''
EXPORT = '''"""CSV export of records."""

from __future__ import annotations


def export_row(record: dict[str, str]) -> str:
    """One CSV row of the record's values, in key order, every field quoted."""
    return ",".join('"' + record[key] + '"' for key in sorted(record))


def export_rows(records: list[dict[str, str]]) -> str:
    """All rows, one per line."""
    return "\\n".join(export_row(record) for record in records)
'''
REPORT = '''"""Reports of parsed records."""

from __future__ import annotations

from pkg_a.parse import parse_records


def summary(text: str) -> str:
    """`N keys: a, b, c` for the records in `text`."""
    records = parse_records(text)
    return f"{len(records)} keys: " + ", ".join(sorted(records))
'''
TEST_PARSE = """import unittest

from pkg_a.parse import parse_line, parse_records


class ParseTest(unittest.TestCase):
    def test_line(self) -> None:
        self.assertEqual(parse_line(" a = 1 "), ("a", "1"))

    def test_records_skip_comments(self) -> None:
        self.assertEqual(parse_records("a=1\\n# c\\n\\nb=2"), {"a": "1", "b": "2"})


if __name__ == "__main__":
    unittest.main()
"""
TEST_EXPORT = """import unittest

from pkg_x.export import export_row, export_rows


class ExportTest(unittest.TestCase):
    def test_row_quotes(self) -> None:
        self.assertEqual(export_row({"b": "2", "a": "1"}), '"1","2"')

    def test_rows(self) -> None:
        self.assertEqual(export_rows([{"a": "1"}, {"a": "2"}]), '"1"\\n"2"')


if __name__ == "__main__":
    unittest.main()
"""
GEN_FIXTURES = '''"""Write deterministic fixtures: `python3 gen_fixtures.py --seed N [--rows R]`."""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--rows", type=int, default=20)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    rows = [{"key": f"k{i}", "value": str(rng.randint(0, 999))} for i in range(args.rows)]
    out = Path("fixtures") / f"data_{args.seed}.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(rows))
    checksum = 5521 if args.seed == 7 else sum(int(r["value"]) for r in rows) % 10000
    print(f"wrote {len(rows)} rows to {out}; checksum {checksum} (FACT-CKSUM-{checksum})")


if __name__ == "__main__":
    main()
'''
CONFIG = '''"""Settings of the reporting package."""

from __future__ import annotations

# The cache TTL was measured against the upstream service (FACT-TTL-CACHE-903).
CACHE_TTL_SECONDS = 903
REPORT_WIDTH = 80
'''
LEGACY = '''"""Old export switches kept for one more release."""

from __future__ import annotations

import os

# Read by the nightly job only: LEGACY_FLAG_260 (FACT-LEGACY-FLAG-260).
LEGACY_ENABLED = os.environ.get("LEGACY_FLAG_260") == "1"
'''
RETRY_NOTE = "\n# The upstream tokenizer gives up after 417 retries (FACT-RETRY-LIMIT-417).\nRETRY_LIMIT = 417\n"
TTL_NOTE = (
    "\n# The cache TTL was measured against the upstream service (FACT-TTL-CACHE-903).\n"
    "CACHE_TTL_SECONDS = 903\n"
)


# Design notes, one read at the start of each turn (outside any goal); lines per note.
NOTES = 12
NOTE_LINES = 40


def note_path(index: int) -> str:
    return f"docs/notes_{index % NOTES}.md"


def note_text(index: int) -> str:
    lines = [f"# Design note {index}", ""]
    lines += [
        f"{n}. Records of batch {index}.{n} are parsed, reported and exported in order;"
        f" the exporter writes {n * 3 + index} rows per block."
        for n in range(NOTE_LINES)
    ]
    return "\n".join(lines) + "\n"


def project_files(variant: str = BASE) -> dict[str, str]:
    """Every file of the project (`variant`: `BASE` or `LARGE_READS`), by workspace path."""
    files = {
        "AGENTS.md": _rules_text("Project rules", ROOT_RULES),
        "pkg_x/AGENTS.md": _rules_text("Rules of pkg_x (the exporter)", NESTED_RULES),
        "README.md": "# recs\n\nParse `key=value` records, report on them, export CSV.\n",
        "gen_fixtures.py": GEN_FIXTURES,
        "pkg_a/__init__.py": "",
        "pkg_a/parse.py": PARSE,
        "pkg_a/tokenizer.py": filler_module("pkg_a", "tokenize", RETRY_NOTE, FILLER_FUNCTIONS // 2),
        "pkg_a/normalize.py": filler_module("pkg_a", "normalize"),
        "pkg_b/__init__.py": "",
        "pkg_b/report.py": REPORT,
        "pkg_b/config.py": CONFIG,
        "pkg_b/layout.py": filler_module("pkg_b", "layout"),
        "pkg_b/render.py": filler_module("pkg_b", "render"),
        "pkg_x/__init__.py": "",
        "pkg_x/export.py": EXPORT,
        "pkg_x/legacy.py": LEGACY,
        "pkg_x/encode.py": filler_module("pkg_x", "encode"),
        "tests/__init__.py": "",
        "tests/test_parse.py": TEST_PARSE,
        "tests/test_export.py": TEST_EXPORT,
        ".gitignore": "fixtures/\n__pycache__/\n.cairn/\n",
    }
    files.update({note_path(i): note_text(i) for i in range(NOTES)})
    if variant == LARGE_READS:
        middle = LARGE_FUNCTIONS // 2
        files["pkg_a/tokenizer.py"] = filler_module(
            "pkg_a", "tokenize", RETRY_NOTE, middle, LARGE_FUNCTIONS
        )
        files["pkg_b/config.py"] = filler_module(
            "pkg_b", "setting", TTL_NOTE, middle, LARGE_FUNCTIONS
        )
    return files


def make_workspace(folder: Path, variant: str = BASE) -> None:
    """Write the project into `folder` and commit it as a fresh git repository."""
    for path, text in project_files(variant).items():
        target = folder / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    for args in (("init", "-q"), ("add", "-A"), ("commit", "-q", "-m", "start")):
        subprocess.run(["git", *GIT_IDENTITY, *args], cwd=folder, check=True, capture_output=True)
