"""The compaction model's part of a summary: its prompt and a lenient parser for its reply.

The model is asked for a JSON object with the narrative fields only
(objective, confirmed facts, decisions with reasons, open questions). The
call repeats the session's next request — same tools, system, preamble and
history, so the provider reads them from its cache — with one instruction
appended (`instruction_messages`); only when that prefix does not fit the
compaction model's window is a fresh transcript sent instead
(`compaction_messages`). Its reply is parsed leniently: the first JSON
object in the text, fields of the wrong type ignored. An empty or
unparseable reply gives an empty narrative; the summary still carries the
ledger from the records.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from cairn.models.summary import Decision, SessionSummary

COMPACTION_AGENT = "compaction"

# What the reply holds, asked the same way in both forms of the compaction call.
REPLY_SHAPE = """\
Reply with ONE JSON object and nothing else, with these keys:
  "objective": string: what the user wants overall, including every constraint they gave;
  "confirmed_facts": list of strings: facts established so far (findings, causes, results);
  "decisions": list of {"decision": string, "reason": string}: choices made and why, \
including approaches that were rejected;
  "open_questions": list of strings: what is still unknown or left to do.
Files read or changed, tests run and goal results are recorded separately: do not list them.\
"""

COMPACTION_SYSTEM_PROMPT = f"""\
You are compacting the history of a coding-agent session so that the work can continue \
in a fresh context. Provide what is needed to continue our conversation.
{REPLY_SHAPE}
When a previous summary is given, return the updated complete narrative (keep what still holds).\
"""


COMPACTION_INSTRUCTION = f"""[Compaction request from the harness] Stop working on the task for this one reply: do not call any tool. Write the summary that will replace the conversation above (a summary at its start is the previous one: keep what still holds) so that the work can continue in a fresh context.
{REPLY_SHAPE}"""


@dataclass(frozen=True)
class Narrative:
    objective: str = ""
    confirmed_facts: list[str] = field(default_factory=list)
    decisions: list[Decision] = field(default_factory=list)
    open_questions: list[str] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not (self.objective or self.confirmed_facts or self.decisions or self.open_questions)


def _first_object(text: str) -> dict[str, Any] | None:
    decoder = json.JSONDecoder()
    start = text.find("{")
    while start != -1:
        try:
            value, _ = decoder.raw_decode(text, start)
        except json.JSONDecodeError:
            start = text.find("{", start + 1)
            continue
        if isinstance(value, dict):
            return value
        start = text.find("{", start + 1)
    return None


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value] if value.strip() else []
    if not isinstance(value, list):
        return []
    return [str(v).strip() for v in value if isinstance(v, str | int | float) and str(v).strip()]


def _decisions(value: Any) -> list[Decision]:
    out: list[Decision] = []
    if not isinstance(value, list):
        return out
    for item in value:
        if isinstance(item, dict) and isinstance(item.get("decision"), str):
            reason = item.get("reason")
            out.append(Decision(decision=item["decision"], reason=str(reason or "")))
        elif isinstance(item, str) and item.strip():
            out.append(Decision(decision=item.strip(), reason=""))
    return out


def parse_narrative(text: str) -> Narrative:
    """The narrative in a model reply; empty when there is no usable JSON object."""
    data = _first_object(text or "")
    if data is None:
        return Narrative()
    objective = data.get("objective")
    return Narrative(
        objective=objective.strip() if isinstance(objective, str) else "",
        confirmed_facts=_strings(data.get("confirmed_facts", data.get("confirmedFacts"))),
        decisions=_decisions(data.get("decisions")),
        open_questions=_strings(data.get("open_questions", data.get("openQuestions"))),
    )


def narrative_of(summary: SessionSummary) -> dict[str, Any]:
    """The narrative fields of a previous summary, as shown to the compaction model."""
    return {
        "objective": summary.objective,
        "confirmed_facts": summary.confirmed_facts,
        "decisions": [d.model_dump() for d in summary.decisions],
        "open_questions": summary.open_questions,
    }


def compaction_messages(previous: SessionSummary | None, transcript: str) -> list[dict[str, str]]:
    """The chat messages of a compaction call: the prompt, the previous summary, the new part."""
    parts: list[str] = []
    if previous is not None:
        parts.append("Previous summary:\n" + json.dumps(narrative_of(previous), indent=1))
        parts.append("Conversation since that summary:\n" + transcript)
    else:
        parts.append("Conversation:\n" + transcript)
    return [
        {"role": "system", "content": COMPACTION_SYSTEM_PROMPT},
        {"role": "user", "content": "\n\n".join(parts)},
    ]


def instruction_messages(prefix: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A compaction call on the session's own prefix: its messages, then the instruction."""
    return [*prefix, {"role": "user", "content": COMPACTION_INSTRUCTION}]


def _union(first: list[str], second: list[str]) -> list[str]:
    seen: set[str] = set()
    out: list[str] = []
    for item in [*first, *second]:
        if item not in seen:
            seen.add(item)
            out.append(item)
    return out


def merge_narrative(previous: SessionSummary | None, new: Narrative) -> Narrative:
    """Combine the previous summary's narrative with the new one without losing facts.

    Facts and decisions accumulate; the objective and open questions are replaced
    when the model gives new ones (questions get answered), else kept.
    """
    if previous is None:
        return new
    decisions = list(previous.decisions)
    known = {(d.decision, d.reason) for d in decisions}
    decisions += [d for d in new.decisions if (d.decision, d.reason) not in known]
    return Narrative(
        objective=new.objective or previous.objective,
        confirmed_facts=_union(previous.confirmed_facts, new.confirmed_facts),
        decisions=decisions,
        open_questions=new.open_questions or previous.open_questions,
    )
