"""The scoring parts of the where-to-look ranking, one pure function at a time."""

from __future__ import annotations

import math

from cairn.models.where_weights import DEFAULT_WHERE_WEIGHTS
from cairn.repomap.file_roles import role_of
from cairn.repomap.lexicon import FileFacts, definition_idf
from cairn.repomap.message_mentions import (
    looks_like_code,
    mentions_in,
    module_paths,
    query_words,
    resolve_path,
    split_identifier,
)
from cairn.repomap.where import rank_files

PYTHON_TRACEBACK = """Traceback (most recent call last):
  File "test-mm.py", line 8, in <module>
    s = MySchema()
  File "/Users/v/.pyenv/lib/python3.6/site-packages/marshmallow/schema.py", line 383, in __init__
    self.fields = self._init_fields()
  File "/Users/v/.pyenv/lib/python3.6/site-packages/marshmallow/fields.py", line 1117, in _bind
AttributeError: 'List' object has no attribute 'opts'
"""
PYTEST_FAILURE = """\
    def test_parse():
>       assert parse("x") == 1
E       AssertionError

src/pkg/parser.py:206: AssertionError
/venv/lib/site-packages/pkg/reporters/text.py:206: UserWarning: no color
"""
NODE_STACK = """TypeError: Cannot read properties of undefined (reading 'map')
    at renderList (/app/src/components/List.js:12:5)
    at Object.<anonymous> (src/index.js:40:17)
"""
TYPESCRIPT_ERROR = "src/server/router.ts(31,7): error TS2345: Argument of type 'string'"
TSC_PRETTY = "src/server/router.ts:31:7 - error TS2345: Argument of type 'string'"


def _frames(text: str) -> list[tuple[str, int | None]]:
    return [(m.path, m.line) for m in mentions_in(text).paths]


def test_python_traceback_frames_with_lines() -> None:
    frames = _frames(PYTHON_TRACEBACK)
    assert ("Users/v/.pyenv/lib/python3.6/site-packages/marshmallow/schema.py", 383) in frames
    assert ("Users/v/.pyenv/lib/python3.6/site-packages/marshmallow/fields.py", 1117) in frames
    assert ("test-mm.py", 8) in frames


def test_pytest_and_warning_locations() -> None:
    frames = _frames(PYTEST_FAILURE)
    assert ("src/pkg/parser.py", 206) in frames
    assert ("venv/lib/site-packages/pkg/reporters/text.py", 206) in frames


def test_node_stack_frames() -> None:
    frames = _frames(NODE_STACK)
    assert ("app/src/components/List.js", 12) in frames
    assert ("src/index.js", 40) in frames


def test_typescript_compiler_locations() -> None:
    assert ("src/server/router.ts", 31) in _frames(TYPESCRIPT_ERROR)
    assert ("src/server/router.ts", 31) in _frames(TSC_PRETTY)


def test_a_bare_path_is_a_mention_without_line() -> None:
    mentions = mentions_in("the bug is in docs/format.rst and pkg/io/card.py, see e.g. 3.0.1")
    assert [(m.path, m.line, m.frame) for m in mentions.paths] == [("pkg/io/card.py", None, False)]


def test_dotted_names_and_code_words() -> None:
    mentions = mentions_in("Calling `parse` on pkg.mod.Parser._split_header fails for the rules")
    assert "pkg.mod.Parser._split_header" in mentions.dotted
    assert {"Parser", "_split_header", "parse"} <= mentions.code
    assert "rules" in mentions.identifiers and "rules" not in mentions.code


def test_looks_like_code() -> None:
    assert looks_like_code("_bind_to_schema") and looks_like_code("DateTime")
    assert looks_like_code("L060") and looks_like_code("camelCase")
    assert not looks_like_code("rules") and not looks_like_code("Rules")
    assert not looks_like_code("HTTP")


def test_identifier_splitting() -> None:
    assert split_identifier("HTTPServer_error2") == ["http", "server", "error", "2"]
    assert split_identifier("_split_header") == ["split", "header"]
    assert split_identifier("parseJSONResponse") == ["parse", "json", "response"]
    assert query_words("The DateTime field fails") == ["date", "time", "field", "fails"]


def test_idf_of_definitions() -> None:
    idf = definition_idf({"rare": 1, "test": 40}, total_files=40)
    assert idf("rare") == math.log(41.0)
    assert idf("test") == math.log(2.0)
    assert idf("rare") > 5 * idf("test")
    assert idf("nowhere") == 0.0


def test_role_classification() -> None:
    assert role_of("src/pkg/fields.py") == "source"
    assert role_of("tests/test_fields.py") == "test"
    assert role_of("pkg/parser_test.py") == "test"
    assert role_of("src/app.spec.ts") == "test"
    assert role_of("test/fixtures/linter/a.py") == "fixture"
    assert role_of("docs/conf.py") == "docs"
    assert role_of("examples/flask_example.py") == "example"
    assert role_of("third_party/six.py") == "vendored"
    assert role_of("proto/api_pb2.py") == "generated"


def test_path_suffix_resolution() -> None:
    files = ["src/marshmallow/fields.py", "src/marshmallow/schema.py", "tests/fields.py"]
    site = "Users/v/lib/python3.6/site-packages/marshmallow/fields.py"
    assert resolve_path(site, files) == ["src/marshmallow/fields.py"]
    assert resolve_path("fields.py", files) == ["src/marshmallow/fields.py", "tests/fields.py"]
    assert resolve_path("nothing.py", files) == []


def test_module_paths_of_a_dotted_name() -> None:
    assert module_paths("pkg.mod.Class") == [
        "pkg/mod/Class.py",
        "pkg/mod/Class/__init__.py",
        "pkg/mod.py",
        "pkg/mod/__init__.py",
    ]


def _long_body(count: int) -> FileFacts:
    return FileFacts(names=tuple(f"segment_{n}" for n in range(count)), references={})


def test_a_word_of_the_path_ranks_a_long_file_the_body_dilutes() -> None:
    # A dialect file is long (BM25 divides its matches by its length); its path names
    # the dialect the issue is about. A short file that mentions it once comes second.
    facts = {
        "src/dialects/dialect_snowflake.py": _long_body(400),
        "src/dialects/dialect_postgres.py": _long_body(400),
        "src/core/config.py": FileFacts(names=("load",), references={"snowflake": 1}),
    }
    message = "Unable to parse the snowflake 'unset comment' command"
    ranked = [r.rel for r in rank_files(facts, message, prior={})]
    assert ranked[0] == "src/dialects/dialect_snowflake.py"
    without = DEFAULT_WHERE_WEIGHTS.model_copy(update={"path_words": 0.0})
    assert rank_files(facts, message, {}, weights=without)[0].rel == "src/core/config.py"


def test_a_path_word_every_file_has_weighs_less_than_a_rare_one() -> None:
    facts = {
        "pkg/io/reader.py": FileFacts(names=(), references={}),
        "pkg/io/writer.py": FileFacts(names=(), references={}),
        "pkg/io/card.py": FileFacts(names=(), references={}),
    }
    ranked = rank_files(facts, "the pkg io writer drops a card", prior={})
    # `pkg` and `io` are in every path: `writer` and `card` decide, equally rare.
    assert {r.rel for r in ranked[:2]} == {"pkg/io/writer.py", "pkg/io/card.py"}
    assert ranked[2].rel == "pkg/io/reader.py" and ranked[2].score < ranked[0].score
