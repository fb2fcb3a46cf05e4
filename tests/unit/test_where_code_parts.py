"""The where-to-look parts read from quoted text and pasted code, the template filter, weak
paths, link anchors, stub roles and numbered names: one pure function at a time."""

from __future__ import annotations

from cairn.models.where_weights import DEFAULT_WHERE_WEIGHTS
from cairn.repomap.file_roles import role_of
from cairn.repomap.lexicon import FileFacts, Lexicon
from cairn.repomap.message_code import (
    Import,
    imports,
    phrase_pattern,
    phrase_windows,
    qualified_names,
    quoted_phrases,
)
from cairn.repomap.message_mentions import mentions_in, resolve_path_depth
from cairn.repomap.message_template import without_boilerplate
from cairn.repomap.where import rank_files
from cairn.repomap.where_parts import file_parts

PYTEST_ERROR = """\
    def test_alias():
>       lint(sql)
E       ValueError: Avoid using aliases in join condition: 'a'
"""
MYPY_TEMPLATE = """\
Segfault on a recursive tuple alias

**Crash Report**

mypy crashes on `tuple[Hashable | HashableArg]`.

**Your Environment**

- Mypy version used: 1.18.2
- Mypy configuration options from `mypy.ini` (and other config files): none
- Python version used: 3.13

**To Reproduce**

```python
type HashableArg = dict[Hashable, HashableArg]
```
"""


def test_error_messages_and_quoted_text_are_phrases() -> None:
    text = (
        'L031 triggers "Avoid using aliases in join condition" wrongly\n'
        + PYTEST_ERROR
        + "ERROR: Parsing errors found and dialect is set to 'mysql'\n"
        + "`x = f(1)` and 'two words' and \"one\" are no phrases\n"
    )
    phrases = quoted_phrases(text)
    assert ("avoid", "using", "aliases", "in", "join", "condition", "a") in phrases
    assert ("avoid", "using", "aliases", "in", "join", "condition") in phrases
    assert ("parsing", "errors", "found", "and", "dialect", "is", "set", "to", "mysql") in phrases
    assert all(len(p) >= 3 for p in phrases)
    assert not any("two" in p or "x" in p for p in phrases)


def test_phrase_windows_and_their_pattern_cross_format_placeholders() -> None:
    assert phrase_windows(("a", "b", "c")) == [("a", "b", "c")]
    assert phrase_windows(("a", "b", "c", "d", "e")) == [("a", "b", "c", "d"), ("b", "c", "d", "e")]
    pattern = phrase_pattern(("could", "not", "convert", "value"))
    assert pattern.search('raise ValueError(\n    "Could not "\n    "convert value")')
    assert pattern.search("msg = f'Could not {verb} convert value'") is None
    assert phrase_pattern(("join", "condition")).search("f'{join} {n}: condition'") is None


def test_imports_of_pasted_code() -> None:
    text = (
        ">>> from pydantic import BaseModel, Field as F\n"
        "from hydra.utils import (instantiate,\n"
        "import boto3, os.path as p\n"
        "    from . import relative\n"
    )
    assert imports(text) == [
        Import("pydantic", ("BaseModel", "Field")),
        Import("hydra.utils", ("instantiate",)),
        Import("boto3", ()),
        Import("os.path", ()),
    ]


def test_qualified_names_of_dotted_names_and_imports() -> None:
    pairs = qualified_names(
        ("pkg.mod.Parser.parse", "Parser.__init__"), [Import("pkg.io", ("read", "__all__"))]
    )
    assert pairs == [("Parser", "parse"), ("pkg.mod.Parser", "parse"), ("pkg.io", "read")]


def test_a_qualified_name_points_at_the_file_defining_it_next_to_its_qualifier() -> None:
    # `run` is defined in many files: the one defining it beside `Engine` is meant.
    facts = {
        "pkg/engine.py": FileFacts(("Engine", "run"), {}),
        "pkg/jobs.py": FileFacts(("run",), {}),
        "pkg/cli.py": FileFacts(("run", "main"), {}),
        "pkg/io/read.py": FileFacts(("load",), {}),
        "pkg/io/__init__.py": FileFacts((), {}),
    }
    message = "Engine.run hangs\n```\nfrom pkg.io import load\n```"
    parts = file_parts(facts, mentions_in(message), message, Lexicon(facts))
    assert parts["pkg/engine.py"].qualified == 1.0
    assert parts["pkg/io/read.py"].qualified == 1.0
    assert parts["pkg/jobs.py"].qualified == 0.0
    weights = DEFAULT_WHERE_WEIGHTS.model_copy(update={"qualified": 2.0})
    assert rank_files(facts, message, {}, weights=weights)[0].rel == "pkg/engine.py"


def test_a_phrase_points_at_the_file_holding_it_read_only_when_its_words_are_there() -> None:
    facts = {
        "rules/L031.py": FileFacts(
            ("Rule_L031",), {"Avoid": 1, "using": 1, "aliases": 1, "join": 2, "condition": 1}
        ),
        "rules/L032.py": FileFacts(("Rule_L032",), {"join": 3, "using": 1}),
        "core/linter.py": FileFacts(("lint",), {"condition": 1}),
    }
    texts = {
        "rules/L031.py": 'MESSAGE = "Avoid using aliases in join condition"\n',
        "rules/L032.py": "# joins using ...\n",
    }
    read: list[str] = []

    def read_text(rel: str) -> str | None:
        read.append(rel)
        return texts.get(rel)

    message = 'Linting fails with "Avoid using aliases in join condition" on a query'
    parts = file_parts(facts, mentions_in(message), message, Lexicon(facts), None, read_text)
    assert read == ["rules/L031.py"]  # the only file whose words hold a whole window
    assert parts["rules/L031.py"].phrase == 1.0
    assert parts["rules/L031.py"].phrases == ["avoid using aliases in join condition"]
    weights = DEFAULT_WHERE_WEIGHTS.model_copy(update={"phrase": 2.0})
    ranked = rank_files(facts, message, {}, weights=weights, read_text=read_text)
    assert ranked[0].rel == "rules/L031.py"
    assert 'holds "avoid using aliases in join condition"' in ranked[0].reason


def test_template_headings_and_the_environment_section_leave_the_words() -> None:
    kept = without_boilerplate(MYPY_TEMPLATE)
    assert "Crash Report" not in kept and "To Reproduce" not in kept
    assert "mypy.ini" not in kept and "version used" not in kept
    assert "HashableArg" in kept and "Segfault on a recursive tuple alias" in kept
    words = mentions_in(MYPY_TEMPLATE).words
    assert "config" not in words and "crash" not in words and "report" not in words
    assert "recursive" in words
    fenced = "```\n# comment, not a heading\nx = 1\n```\n## Environment\nlinux\n"
    assert without_boilerplate(fenced) == "```\n# comment, not a heading\nx = 1\n```"


def test_a_path_sharing_only_its_file_name_is_weak_and_names_nothing() -> None:
    files = ["examples/complex/cli.py", "src/click/core.py"]
    assert resolve_path_depth("llm/cli.py", files) == (["examples/complex/cli.py"], 1)
    assert resolve_path_depth("click/core.py", files) == (["src/click/core.py"], 2)
    facts = {rel: FileFacts((), {}) for rel in files}
    message = "see https://github.com/o/llm/blob/main/llm/cli.py#L365-L373"
    parts = file_parts(facts, mentions_in(message), message, Lexicon(facts))
    weak = parts["examples/complex/cli.py"]
    assert weak.weak_path == 1.0 and weak.path == 0.0 and not weak.named


def test_a_link_line_anchor_is_a_frame() -> None:
    mentions = mentions_in("See https://github.com/o/r/blob/abc/moto/s3/models.py#L243-L250")
    [path] = mentions.paths
    assert path.line == 243 and path.frame
    assert path.path.endswith("moto/s3/models.py")


def test_stubs_typeshed_and_test_data_roles() -> None:
    assert role_of("src/attr/__init__.pyi") == "stub"
    assert role_of("types/index.d.ts") == "stub"
    assert role_of("src/index.ts") == "source"
    assert role_of("mypy/typeshed/stdlib/builtins.pyi") == "vendored"
    assert role_of("test-data/unit/lib-stub/typing.pyi") == "fixture"


def test_an_undefined_numbered_name_names_its_base() -> None:
    facts = {
        "pkg/valuerep.py": FileFacts(("PersonName",), {}),
        "pkg/dataset.py": FileFacts(("Dataset",), {}),
    }
    message = "TypeError: argument of type 'PersonName3' is not iterable"
    parts = file_parts(facts, mentions_in(message), message, Lexicon(facts))
    assert parts["pkg/valuerep.py"].defines_code > 0
    assert "pkg/dataset.py" not in parts or parts["pkg/dataset.py"].defines_code == 0
