"""docs/PROTOCOL.md against the models; the checker tells implemented, different and missing apart."""

from __future__ import annotations

from pathlib import Path

from tools.contracts.doc_shapes import parse_object
from tools.contracts.protocol_doc import check

DOC = Path(__file__).resolve().parents[2] / "docs" / "PROTOCOL.md"
CHECK = ".venv/bin/python -m tools.check_protocol --strict"


def doc_text() -> str:
    return DOC.read_text(encoding="utf-8")


def test_docs_protocol_md_matches_the_models_exactly() -> None:
    report = check(doc_text())
    assert report.mismatches == [], f"documented differently than implemented; see {CHECK}"
    assert report.undocumented == [], f"implemented but not in docs/PROTOCOL.md; see {CHECK}"
    assert report.missing == [], f"documented but not implemented; see {CHECK}"


def test_a_method_and_fields_of_a_later_issue_are_missing_not_wrong() -> None:
    text = doc_text()
    later_row = "| `cairn/explain` | `{sessionId, turnId}` | `{sessionId, text: string}` |\n"
    text = text.replace("| `cairn/projectProfile` |", later_row + "| `cairn/projectProfile` |")
    zone = 'zone: "tools"|"system"|"preamble"|"history"|"tail"|null}'
    assert zone in text
    text = text.replace(zone, zone[:-1] + ", pinned?: boolean}")
    report = check(text)
    assert report.consistent
    assert report.missing == ["cairn/explain", "Manifest.blocks[].pinned"]


def test_a_wrong_literal_or_optionality_is_a_mismatch() -> None:
    text = doc_text().replace('"build"\\|"plan"\\|"review"', '"build"\\|"plan"', 1)
    text = text.replace("`{sessionId?, message, mode?", "`{sessionId?, message?, mode?", 1)
    report = check(text)
    assert len(report.mismatches) == 2
    assert any("cairn/turn params.mode" in m for m in report.mismatches)
    assert any("cairn/turn params.message: documented optional" in m for m in report.mismatches)


def test_a_field_left_out_of_a_shape_is_undocumented() -> None:
    text = doc_text().replace("summary: string|null, children: Goal[]}", "children: Goal[]}")
    report = check(text)
    assert report.undocumented == ["Goal.summary"]
    assert report.missing == [] and report.mismatches == []


def test_a_nested_shape_of_the_wrong_model_is_a_mismatch() -> None:
    text = doc_text().replace(
        "tree: GoalTree, rendered: string}` — after", "tree: Goal, rendered: string}` — after"
    )
    report = check(text)
    assert report.mismatches == [
        "cairn/goalTreeChanged.tree: documented Goal, the model has GoalTree"
    ]


def test_a_removed_source_or_method_is_undocumented() -> None:
    text = (
        doc_text().replace("`repomap`,", "").replace("| `cairn/compact` |", "| `cairn/compactX` |")
    )
    report = check(text)
    assert "source repomap" in report.undocumented
    assert "cairn/compact" in report.undocumented and "cairn/compactX" in report.missing


def test_the_shape_parser_reads_maps_lists_and_notes() -> None:
    shape, _ = parse_object(
        '{a?, b: "x"|"y", c: {[k: string]: number}, d: [{e}], f: string[] (a note), g: {h}}'
    )
    assert shape.fields["a"].optional and shape.fields["b"].literals == ["x", "y"]
    assert shape.fields["c"].map_of == "number"
    assert shape.fields["d"].array_of_objects and shape.fields["d"].nested is not None
    assert shape.fields["f"].type_text == "string[]"
    nested = shape.fields["g"].nested
    assert nested is not None and list(nested.fields) == ["h"]
