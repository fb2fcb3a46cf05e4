"""Every Markdown table in README.md and docs/ renders as a table (issue 30 item 2).

The README's settings table once had a paragraph between its rows, so half of it
rendered as loose text on every Markdown viewer; `tools/check_markdown.py` finds that
and the other ways a table breaks, and this test runs it over the project's docs.
"""

from __future__ import annotations

from tools.check_markdown import check_files, check_text, default_files

GOOD = """\
| key | default |
| --- | ---: |
| `a` | 1 |
| `b \\| c` | 2 |

Text after a blank line.
"""


def test_every_table_of_the_project_docs_is_well_formed() -> None:
    files = default_files()
    assert any(f.name == "README.md" for f in files)
    assert any(f.parent.name == "docs" for f in files)
    assert [str(p) for p in check_files(files)] == []


def test_a_well_formed_table_has_no_problem() -> None:
    assert check_text(GOOD, "x.md") == []


def test_a_paragraph_between_rows_leaves_the_rest_loose() -> None:
    text = "| k | v |\n| --- | --- |\n| a | 1 |\n\nA note.\n| b | 2 |\n| c | 3 |\n"
    problems = check_text(text, "x.md")
    assert len(problems) == 1
    assert problems[0].line == 6
    assert "lines 6-7" in problems[0].what


def test_a_row_with_an_unescaped_pipe_has_too_many_cells() -> None:
    text = "| k | v |\n| --- | --- |\n| `a|b` | 1 |\n"
    (problem,) = check_text(text, "x.md")
    assert problem.line == 3
    assert "3 cells in a table of 2 columns" in problem.what


def test_text_glued_under_a_table_is_reported() -> None:
    text = "| k | v |\n| --- | --- |\n| a | 1 |\nNot a row.\n"
    (problem,) = check_text(text, "x.md")
    assert problem.line == 4
    assert "blank line" in problem.what


def test_a_delimiter_row_of_the_wrong_width_is_reported() -> None:
    text = "| k | v | w |\n| --- | --- |\n"
    (problem,) = check_text(text, "x.md")
    assert "delimiter row has 2 cells, the header 3" in problem.what


def test_tables_inside_code_fences_are_not_checked() -> None:
    text = "```\n| not | a table\n```\n\n~~~md\n| x |\n~~~\n"
    assert check_text(text, "x.md") == []
