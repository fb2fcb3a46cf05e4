"""An MCP server's question asked at the terminal, in `cairn run` (a TTY only).

The server's message, field titles, descriptions, choices and URL are
untrusted: all are shown through `cairn.files.visible` under the server's
name. The user first chooses to answer, decline or cancel; answering a form
asks each field in turn (its kind, choices, bounds and default shown; Enter
keeps the default, or leaves an optional field out), re-asking a field whose
answer does not fit (`cairn.mcp.forms.field_value` says why) up to
`TRIES` times before the question is cancelled. A URL is shown, never
opened: the user opens it and says so. `--yes` answers nothing here: only
the user can.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from cairn.files.visible import visible
from cairn.mcp.elicitation import (
    CANCELLED,
    DECLINED,
    ElicitationAnswer,
    ElicitationRequest,
    Elicitor,
)
from cairn.mcp.forms import FormError, FormField, Value, field_value

# Reads one line after showing a prompt (the terminal's `input`, off the event loop).
Ask = Callable[[str], Awaitable[str]]
TRIES = 3
ANSWER_WORDS = frozenset({"y", "yes", "a", "answer"})
DECLINE_WORDS = frozenset({"n", "no", "d", "decline"})


def _hint(field: FormField) -> str:
    """What a field takes: `a whole number, 1 to 10`, `1) Small 2) Large`, `yes/no`."""
    if field.kind in ("choice", "choices"):
        listed = " ".join(f"{i}) {visible(label)}" for i, (_, label) in enumerate(field.options, 1))
        return f"several, comma-separated: {listed}" if field.kind == "choices" else listed
    hint = {"boolean": "yes/no", "integer": "a whole number", "number": "a number"}.get(
        field.kind, visible(field.format or "text")
    )
    if field.minimum is not None or field.maximum is not None:
        low = "" if field.minimum is None else f"{field.minimum:g}"
        high = "" if field.maximum is None else f"{field.maximum:g}"
        hint += (
            f", {low} to {high}"
            if low and high
            else f", at least {low}"
            if low
            else f", at most {high}"
        )
    return hint


def shown_value(value: Value) -> str:
    """A value as the user types it: yes/no, choices comma-separated."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        return ", ".join(value)
    return str(value)


def field_prompt(field: FormField) -> str:
    """`  Title — description (hint) [default: D] (required): `."""
    about = f" — {visible(field.description)}" if field.description else ""
    default = "" if field.default is None else f" [default: {visible(shown_value(field.default))}]"
    required = " (required)" if field.required else ""
    return f"  {visible(field.title)}{about} ({_hint(field)}){default}{required}: "


async def _field(ask: Ask, field: FormField) -> tuple[bool, Value | None]:
    """(answered, value): the field's value (None: left out), or not answered in `TRIES`."""
    prompt = field_prompt(field)
    for _ in range(TRIES):
        typed = await ask(prompt)
        if not typed.strip():
            if field.default is not None:
                return True, field.default
            if not field.required:
                return True, None
            prompt = f"  {visible(field.title)} is required: "
            continue
        try:
            return True, field_value(field, typed)
        except FormError as exc:
            prompt = f"  {visible(str(exc))}; again: "
    return False, None


async def _form(ask: Ask, request: ElicitationRequest) -> ElicitationAnswer:
    content: dict[str, Value] = {}
    for field in request.fields:
        answered, value = await _field(ask, field)
        if not answered:
            return CANCELLED
        if value is not None:
            content[field.name] = value
    return ElicitationAnswer("accept", content)


def question(request: ElicitationRequest) -> str:
    """The first prompt: who asks what, and the three answers."""
    asks = f"The MCP server {visible(request.server)} asks: {visible(request.message)}"
    if request.url is not None:
        return (
            f"{asks}\n  It wants you to open {visible(request.url)}"
            " (Cairn does not open it). [y] I will open it / [n]o / [C]ancel "
        )
    fields = len(request.fields)
    return f"{asks}\n  ({fields} field{'s' if fields != 1 else ''}) [y] answer / [n]o, decline / [C]ancel "


def terminal_elicitor(ask: Ask) -> Elicitor:
    """The `Elicitor` of `cairn run` at a terminal (see the module docstring)."""

    async def elicit(request: ElicitationRequest) -> ElicitationAnswer:
        choice = (await ask(question(request))).strip().lower()
        if choice in DECLINE_WORDS:
            return DECLINED
        if choice not in ANSWER_WORDS:
            return CANCELLED
        if request.url is not None:
            return ElicitationAnswer("accept")
        return await _form(ask, request)

    return elicit
