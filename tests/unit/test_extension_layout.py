"""The extension's shape (issue 25): a small entry point, one error text, the webview's state
in one object. Read as text: these are the places a change would grow back into a heap."""

from __future__ import annotations

import re
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "client-vscode" / "src"
# `extension.ts` only wires the parts together; each part lives in its own module.
MAX_ENTRY_POINT_LINES = 60


def _sources() -> list[Path]:
    return sorted(SRC.rglob("*.ts"))


def test_the_entry_point_only_wires() -> None:
    lines = len((SRC / "extension.ts").read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_ENTRY_POINT_LINES


def test_an_error_becomes_text_in_one_module() -> None:
    defining = [
        path.name
        for path in _sources()
        if re.search(r"function errorText\b", path.read_text(encoding="utf-8"))
    ]
    assert defining == ["errorText.ts"]


def test_the_webview_keeps_its_state_in_one_object() -> None:
    text = (SRC / "webview" / "chat.ts").read_text(encoding="utf-8")
    assert re.findall(r"^(?:let|var) \w+", text, flags=re.MULTILINE) == []
    assert re.search(r"^const page: PageState = \{", text, flags=re.MULTILINE)
