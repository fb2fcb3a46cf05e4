"""The degrade ladder: every block too large for its share gets the largest smaller form
that fits (chosen by what its content is), never a silent drop, and costs nothing when
no form can fit."""

from __future__ import annotations

from pathlib import Path

from cairn.context.blocks import Candidate, section
from cairn.context.degrade import DegradeContext, degrade
from cairn.context.kinds import looks_like_log, text_kind
from cairn.context.outline_memo import OutlineMemo
from cairn.context.priorities import MINIFIED_WHOLE_MAX_TOKENS
from cairn.context.select import select, share_limit
from cairn.tokens.counter import counter_for

count = counter_for("scripted/none")


class Store:
    """An artifact store that keeps what it was given (a real part: ids as the trace makes)."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def __call__(self, text: str, kind: str) -> str:
        self.texts.append(text)
        return f"{kind}-{len(self.texts):032x}"


def big_python_module(classes: int = 150, methods: int = 12) -> str:
    """A ~300 KB module whose full outline is itself tens of thousands of tokens."""
    parts = ['"""A large generated-looking but hand-written module."""', "import os", ""]
    for c in range(classes):
        parts.append(f"class Service{c}(Base):")
        parts.append(f'    """Service number {c}."""')
        for m in range(methods):
            parts.append(f"    def handle_request_{m}(self, request, *, retries=3, timeout=30.0):")
            parts.append(f"        value = request.payload.get('field_{m}', {m}) * {c}")
            parts.append("        return self.dispatch(value, retries=retries, timeout=timeout)")
            parts.append("")
    return "\n".join(parts) + "\n"


def build_log(lines: int = 20_000) -> str:
    out = [
        f"2026-12-01 10:{i // 60 % 60:02d}:{i % 60:02d} INFO worker handled job {i}"
        for i in range(lines)
    ]
    middle = lines // 2
    out[middle:middle] = [
        "2026-12-01 11:00:00 ERROR job 4711 crashed",
        "Traceback (most recent call last):",
        '  File "worker.py", line 88, in run',
        "    result = compute(job)",
        "ZeroDivisionError: division by zero",
    ]
    return "\n".join(out) + "\n"


def _buffer(path: str, text: str, priority: int = 60) -> Candidate:
    return section("buffer", priority, f"File: {path}", text, count=count, ref=path, kind="code")


def test_a_large_module_whose_outline_is_over_its_share_gets_a_coarser_form() -> None:
    text = big_python_module()
    assert len(text.encode()) > 250_000
    available = 40_000
    store = Store()
    selection = select([_buffer("pkg/services.py", text)], available, DegradeContext(count, store))
    block = selection.candidates[0].block
    assert block.included, block.reason
    assert block.tokens <= share_limit(available)
    assert block.reason is not None and block.reason.startswith("degraded to top-level outline")
    # The reason names the forms tried, the finer outline first, with its size.
    assert "tried outline " in block.reason and "top-level outline" in block.reason
    assert "class Service149(Base):" in block.text and "handle_request_0" not in block.text
    assert block.artifact_id is not None and store.texts == [text]


def test_when_no_outline_fits_the_module_is_one_line_naming_path_size_and_artifact() -> None:
    text = big_python_module()
    store = Store()
    selection = select([_buffer("pkg/services.py", text)], 2_000, DegradeContext(count, store))
    block = selection.candidates[0].block
    assert block.included, block.reason
    assert block.text.count("\n") == 1  # the title line and the one line
    assert "pkg/services.py" in block.text and "KiB" in block.text
    assert block.artifact_id is not None and block.artifact_id in block.text
    assert block.reason is not None and "one line" in block.reason
    assert "outline" in block.reason and "top-level outline" in block.reason


def test_a_log_in_an_editor_buffer_is_recognised_by_content_and_excerpted() -> None:
    text = build_log()
    store = Store()
    # An editor buffer is a "code" block, and the name says nothing: the content does.
    candidate = _buffer("ci/output.txt", text)
    selection = select([candidate], 20_000, DegradeContext(count, store))
    block = selection.candidates[0].block
    assert block.included, block.reason
    assert block.reason is not None and block.reason.startswith("degraded to excerpt")
    assert "ZeroDivisionError: division by zero" in block.text
    # The lines around the error line come with it (the traceback's frames).
    assert '  File "worker.py", line 88, in run' in block.text
    assert "handled job 0" in block.text and f"handled job {20_000 - 1}" in block.text


def test_a_minified_bundle_gets_a_one_line_form_not_an_outline() -> None:
    functions = ";".join(f"function f{i}(a,b){{return a+b*{i}}}" for i in range(6_000))
    bundle = f"!function(){{{functions}}}();\n"
    store = Store()
    selection = select([_buffer("static/app.js", bundle)], 20_000, DegradeContext(count, store))
    block = selection.candidates[0].block
    assert block.included, block.reason
    assert "minified" in block.text and block.text.count("\n") == 1
    assert "function f1(" not in block.text


def _bundle(functions: int) -> str:
    body = ";".join(f"function f{i}(a,b){{return a+b*{i}}}" for i in range(functions))
    return f"!function(){{{body}}}();\n"


def test_a_large_minified_bundle_is_one_line_even_when_the_window_holds_it() -> None:
    bundle = _bundle(3_000)
    assert count(bundle) > MINIFIED_WHOLE_MAX_TOKENS
    candidate = section(
        "reference", 90, "Referenced: app.min.js", bundle, count=count, ref="app.min.js"
    )
    store = Store()
    selection = select([candidate], 1_000_000, DegradeContext(count, store))
    block = selection.candidates[0].block
    assert block.included and block.tokens < 200, block.reason
    assert "minified" in block.text and "too long lines" in block.text
    assert block.reason is not None and f"{MINIFIED_WHOLE_MAX_TOKENS} allowed" in block.reason
    assert store.texts == [bundle]


def test_a_small_bundle_and_a_large_readable_file_stay_whole_in_a_large_window() -> None:
    small = _bundle(40)
    assert count(small) < MINIFIED_WHOLE_MAX_TOKENS
    module = big_python_module(classes=20)
    assert count(module) > 4 * MINIFIED_WHOLE_MAX_TOKENS
    candidates = [_buffer("static/tiny.min.js", small), _buffer("pkg/services.py", module)]
    selection = select(candidates, 1_000_000, DegradeContext(count, Store()))
    assert [c.block.text.split("\n", 1)[1] for c in selection.candidates] == [small, module]
    assert all(c.block.reason is None for c in selection.candidates)


def test_outlines_are_parsed_once_per_content() -> None:
    memo = OutlineMemo()
    text = big_python_module(classes=40)
    for _ in range(3):
        ctx = DegradeContext(count, Store(), outlines=memo)
        degrade(_buffer("pkg/a.py", text), 3_000, ctx)
    assert memo.parses == 1
    degrade(_buffer("pkg/a.py", text + "\n"), 3_000, DegradeContext(count, Store(), outlines=memo))
    assert memo.parses == 2


def test_a_block_that_cannot_fit_in_any_form_is_not_parsed_nor_stored() -> None:
    memo = OutlineMemo()
    store = Store()
    ctx = DegradeContext(count, store, outlines=memo)
    assert degrade(_buffer("pkg/a.py", big_python_module(classes=40)), 10, ctx) is None
    assert memo.parses == 0 and store.texts == []
    assert "one-line form needs" in ctx.tried


def test_a_dropped_block_reason_says_what_was_tried() -> None:
    rules = section("system", 100, None, "rule " * 2_000, count=count, required=True)
    low = _buffer("pkg/b.py", big_python_module(classes=5), priority=10)
    available = rules.block.tokens + 10
    selection = select([rules, low], available, DegradeContext(count, Store()))
    dropped = selection.candidates[1].block
    assert not dropped.included
    assert dropped.reason is not None and "one-line form needs" in dropped.reason


def test_content_kinds() -> None:
    pytest_run = "\n".join(
        [
            "============================= test session starts ==============================",
            *(f"tests/test_mod.py::test_case_{i} PASSED  [ {i}%]" for i in range(40)),
            "tests/test_mod.py::test_broken FAILED",
            "=========================== 1 failed, 40 passed in 0.5s ===========================",
        ]
    )
    compiler = "\n".join(f"src/mod{i}.c:{i}:5: error: unknown type name 'foo'" for i in range(10))
    assert looks_like_log(pytest_run) and looks_like_log(compiler)
    source = Path(__file__).read_text(encoding="utf-8")
    assert text_kind("tests/unit/test_degrade_ladder.py", source) == "code"
    assert text_kind("notes.md", "# Title\n\nSome prose.\n") == "text"
    assert text_kind("dist/app.js", "x=1;" * 5_000) == "minified"
    assert (
        text_kind("gen/api.py", "# Code generated by protoc. DO NOT EDIT.\nx = 1\n") == "generated"
    )
