"""MCP elicitation forms: fields read from a requested schema, typed answers, checked content,
and the session a question goes to (`cairn.mcp.forms`, `cairn.mcp.elicitation`)."""

from __future__ import annotations

import pytest

from cairn.mcp.elicitation import (
    Caller,
    ElicitationAnswer,
    ElicitationRoute,
    checked_answer,
    elicitation_request,
)
from cairn.mcp.forms import FormError, checked_content, field_value, form_fields

SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "title": "Name", "maxLength": 5},
        "email": {"type": "string", "format": "email"},
        "count": {"type": "integer", "minimum": 1, "maximum": 5, "default": 2},
        "ratio": {"type": "number", "minimum": 0},
        "ok": {"type": "boolean"},
        "size": {"type": "string", "enum": ["s", "l"], "enumNames": ["Small", "Large"]},
        "hero": {"type": "string", "oneOf": [{"const": "h1", "title": "Superman"}]},
        "tags": {
            "type": "array",
            "items": {"anyOf": [{"const": "a", "title": "A"}, {"const": "b", "title": "B"}]},
            "maxItems": 1,
        },
    },
    "required": ["name", "ok"],
}


def test_every_primitive_kind_is_read_in_order() -> None:
    fields = form_fields(SCHEMA)
    assert [(f.name, f.kind) for f in fields] == [
        ("name", "string"),
        ("email", "string"),
        ("count", "integer"),
        ("ratio", "number"),
        ("ok", "boolean"),
        ("size", "choice"),
        ("hero", "choice"),
        ("tags", "choices"),
    ]
    by_name = {f.name: f for f in fields}
    assert by_name["name"].required and not by_name["email"].required
    assert by_name["email"].format == "email" and by_name["name"].max_length == 5
    assert (by_name["count"].minimum, by_name["count"].maximum, by_name["count"].default) == (
        1,
        5,
        2,
    )
    assert by_name["size"].options == (("s", "Small"), ("l", "Large"))
    assert by_name["hero"].options == (("h1", "Superman"),)
    assert by_name["tags"].max_length == 1 and by_name["count"].title == "count"


@pytest.mark.parametrize(
    ("schema", "named"),
    [
        ({"properties": {"nested": {"type": "object"}}}, "'nested' has the type 'object'"),
        (
            {"properties": {"list": {"type": "array", "items": {"type": "string"}}}},
            "'list' is a list",
        ),
        ({"properties": {"x": "string"}}, "'x' has no schema"),
        ({"properties": []}, "not an object"),
    ],
)
def test_a_field_a_form_cannot_ask_is_refused_by_name(schema: dict, named: str) -> None:
    with pytest.raises(FormError, match=named):
        form_fields(schema)


def test_typed_answers_become_values_or_say_what_is_expected() -> None:
    by_name = {f.name: f for f in form_fields(SCHEMA)}
    assert field_value(by_name["ok"], " Yes ") is True
    assert field_value(by_name["ok"], "no") is False
    assert field_value(by_name["count"], "3") == 3
    assert field_value(by_name["ratio"], "0.5") == 0.5
    assert field_value(by_name["size"], "Large") == "l"
    assert field_value(by_name["size"], "1") == "s"
    assert field_value(by_name["tags"], "B") == ["b"]
    assert field_value(by_name["name"], "Ada") == "Ada"
    for name, typed, why in [
        ("ok", "maybe", "answer yes or no"),
        ("count", "9", "above the maximum 5"),
        ("count", "2.5", "whole number"),
        ("ratio", "x", "not a number"),
        ("ratio", "nan", "is not a number"),
        ("size", "m", "'m' is not one of s, l"),
        ("tags", "a, b", "at most 1 choices"),
        ("name", "Adalbert", "at most 5 characters"),
    ]:
        with pytest.raises(FormError, match=why):
            field_value(by_name[name], typed)


def test_a_clients_content_is_checked_and_only_the_forms_fields_kept() -> None:
    fields = form_fields(SCHEMA)
    content = {"name": "Ada", "ok": False, "count": 5.0, "tags": ["a"], "extra": "x"}
    assert checked_content(fields, content) == {
        "name": "Ada",
        "ok": False,
        "count": 5,
        "tags": ["a"],
    }
    for wrong, why in [
        ({"ok": True}, "Name: required"),
        ({"name": "A", "ok": "yes"}, "expected true or false"),
        ({"name": "A", "ok": True, "count": True}, "expected a number"),
        ({"name": 3, "ok": True}, "expected text"),
        ({"name": "A", "ok": True, "hero": "h9"}, "not one of h1"),
        ("text", "not an object"),
    ]:
        with pytest.raises(FormError, match=why):
            checked_content(fields, wrong)


def test_requests_from_the_wire_and_answers_checked_against_them() -> None:
    form = elicitation_request("srv", "s-1", {"message": "Who?", "requestedSchema": SCHEMA})
    assert form.mode == "form" and form.schema == SCHEMA and len(form.fields) == 8
    accepted = checked_answer(form, ElicitationAnswer("accept", {"name": "A", "ok": True}))
    assert accepted == ElicitationAnswer("accept", {"name": "A", "ok": True})
    assert checked_answer(form, ElicitationAnswer("decline", {"name": "A"})).content is None
    url = elicitation_request(
        "srv", None, {"mode": "url", "message": "Sign in", "url": "https://x", "elicitationId": "e"}
    )
    assert (url.mode, url.url, url.elicitation_id, url.fields) == ("url", "https://x", "e", ())
    assert checked_answer(url, ElicitationAnswer("accept", {"secret": 1})).content is None
    with pytest.raises(FormError, match="no URL"):
        elicitation_request("srv", None, {"mode": "url", "message": "m"})
    with pytest.raises(FormError, match="no requestedSchema"):
        elicitation_request("srv", None, {"message": "m"})


def test_a_question_goes_to_the_latest_calls_session_else_the_servers() -> None:
    route = ElicitationRoute("srv", "owner", None)
    assert route.callback is None, "no elicitor: the capability is not declared"
    assert route.asking() == Caller("owner")
    with route.during(Caller("s-1", "call-1")):
        with route.during(Caller()), route.during(Caller("s-2", "call-2")):
            assert route.asking() == Caller("s-2", "call-2")
        assert route.asking() == Caller("s-1", "call-1")
    assert route.asking() == Caller("owner")
