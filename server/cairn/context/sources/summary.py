"""Source: the compacted summary of older history, rendered from a `SessionSummary`.

It stands for every message up to the summary's watermark and is shown as
the first message of the conversation. It shows the narrative only: the
objective, the confirmed facts, the user's own words (the facts recorded as
"The user said: …", listed under one heading), the decisions and the open
questions. The summary's ledger fields stay in the
record but are not repeated — the tests, commands and files changed are in
the ledger block of every call (`cairn.context.sources.ledger`) — except two:
the files read before the summary, on one line grouped by folder (so the
model knows what it has seen, though the messages that showed it are gone;
`read_file(path)` shows one again, and for a file the session changed after
reading it the artifact of the text as read is named), and the finished goals
(`goal_summaries`): they are shown here, frozen with the summary and read
from the cache, so the plan in the tail can count the goals of earlier
turns on one line instead of listing them (`cairn.context.sources.plan`).

The summary is never dropped: it is required within a reserved share of
the input budget (`SUMMARY_SHARE`), and `fit_summary` gives it that size by
leaving out the files read, then, oldest first, the model's own facts, then
decisions, then open questions, then finished goals, then the user's words,
and last by clipping the objective.
"""

from __future__ import annotations

from collections.abc import Callable

from cairn.compaction.summary_build import USER_FACT_PREFIX
from cairn.goals.render import outcome_text
from cairn.models.summary import GoalSummary, SessionSummary

SUMMARY_TITLE = "[Summary of the earlier conversation; the messages it covers are not shown]"
OMITTED_NOTE = "[{n} older summary lines left out to fit the summary's share of the budget]"
GOALS_TITLE = "Goals finished"
FILES_READ_TITLE = "Files read (if changed since: the artifact as read)"
USER_WORDS_TITLE = USER_FACT_PREFIX.rstrip(": ")


def _section(title: str, lines: list[str]) -> list[str]:
    return [f"{title}:", *(f"- {line}" for line in lines)] if lines else []


def goal_text(goal: GoalSummary) -> str:
    """One finished goal as the summary lists it: id, description, outcome."""
    return f"{goal.goal_id} {goal.description}{outcome_text(goal.status, goal.summary)}"


def files_read_line(summary: SessionSummary) -> list[str]:
    """The files read before the summary, grouped by folder, the last read of each; a file
    the session changed names that read's artifact."""
    changed = {c.path for c in summary.files_changed}
    folders: dict[str, list[str]] = {}
    for read in summary.files_read:
        folder, _, name = read.path.rpartition("/")
        names = folders.setdefault(folder, [])
        item = name
        if read.path in changed and read.artifact_id:
            item = f"{name} ({read.artifact_id})"
        names[:] = [n for n in names if n.split(" ", 1)[0] != name] + [item]
    groups = [
        f"{folder}/ " + ", ".join(names) if folder else ", ".join(names)
        for folder, names in folders.items()
    ]
    return [f"{FILES_READ_TITLE}: " + "; ".join(groups)] if groups else []


def render_summary(summary: SessionSummary, omitted: int = 0) -> str:
    """The summary as one readable text, empty sections left out."""
    out = [SUMMARY_TITLE]
    if summary.objective:
        out.append(f"Objective: {summary.objective}")
    facts = summary.confirmed_facts
    out += _section("Confirmed facts", [f for f in facts if not f.startswith(USER_FACT_PREFIX)])
    out += _section(
        USER_WORDS_TITLE,
        [f.removeprefix(USER_FACT_PREFIX) for f in facts if f.startswith(USER_FACT_PREFIX)],
    )
    out += _section("Decisions", [f"{d.decision} (because {d.reason})" for d in summary.decisions])
    out += _section("Open questions", summary.open_questions)
    out += _section(GOALS_TITLE, [goal_text(g) for g in summary.goal_summaries])
    out += files_read_line(summary)
    if omitted:
        out.append(OMITTED_NOTE.format(n=omitted))
    return "\n".join(out)


def _shrunk(summary: SessionSummary) -> SessionSummary | None:
    """The summary with its least important line left out (None when nothing is left)."""
    if summary.files_read:
        return summary.model_copy(update={"files_read": []})
    facts = summary.confirmed_facts
    model_facts = [i for i, f in enumerate(facts) if not f.startswith(USER_FACT_PREFIX)]
    if model_facts:
        drop = model_facts[0]
        return summary.model_copy(update={"confirmed_facts": facts[:drop] + facts[drop + 1 :]})
    if summary.decisions:
        return summary.model_copy(update={"decisions": summary.decisions[1:]})
    if summary.open_questions:
        return summary.model_copy(update={"open_questions": summary.open_questions[1:]})
    if summary.goal_summaries:
        return summary.model_copy(update={"goal_summaries": summary.goal_summaries[1:]})
    if facts:
        return summary.model_copy(update={"confirmed_facts": facts[1:]})
    return None


def fit_summary(summary: SessionSummary, limit: int, count: Callable[[str], int]) -> str:
    """The rendered summary within `limit` tokens (see the module docstring)."""
    text = render_summary(summary)
    current, omitted = summary, 0
    while count(text) > limit:
        smaller = _shrunk(current)
        if smaller is None:
            words = current.objective.split()
            while words and count(text) > limit:
                words = words[: len(words) // 2]
                current = current.model_copy(update={"objective": " ".join(words) + " …"})
                text = render_summary(current, omitted)
            return text if count(text) <= limit else SUMMARY_TITLE
        current, omitted = smaller, omitted + 1
        text = render_summary(current, omitted)
    return text
