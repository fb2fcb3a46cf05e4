"""Source: the compacted summary of older history, rendered from a `SessionSummary`.

It stands for every message up to the summary's watermark and is shown as
the first message of the conversation.
"""

from __future__ import annotations

from cairn.models.summary import SessionSummary

SUMMARY_TITLE = "[Summary of the earlier conversation; the messages it covers are not shown]"


def _section(title: str, lines: list[str]) -> list[str]:
    return [f"{title}:", *(f"- {line}" for line in lines)] if lines else []


def render_summary(summary: SessionSummary) -> str:
    """The summary as one readable text, empty sections left out."""
    out = [SUMMARY_TITLE]
    if summary.objective:
        out.append(f"Objective: {summary.objective}")
    out += _section("Confirmed facts", summary.confirmed_facts)
    out += _section("Decisions", [f"{d.decision} (because {d.reason})" for d in summary.decisions])
    out += _section(
        "Goals finished",
        [f"{g.goal_id} {g.description} [{g.status}]: {g.summary}" for g in summary.goal_summaries],
    )
    out += _section("Files read", [f"{f.path} (hash {f.hash})" for f in summary.files_read])
    out += _section(
        "Files changed",
        [
            f"{f.path}"
            + (f" (patch artifact {f.patch_artifact_id})" if f.patch_artifact_id else "")
            for f in summary.files_changed
        ],
    )
    out += _section(
        "Tests",
        [
            f"{t.command}: {t.status}"
            + (f" (output artifact {t.artifact_id})" if t.artifact_id else "")
            for t in summary.tests
        ],
    )
    out += _section("Open questions", summary.open_questions)
    return "\n".join(out)
