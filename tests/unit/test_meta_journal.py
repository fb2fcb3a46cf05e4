"""What a session keeps besides its turns (the commands allowed "always", the context limits
providers reported, the model setting) is journaled, so a damaged meta.json loses none of it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cairn.agent.sessions.recovery import recover
from cairn.agent.sessions.session import Session, session_model
from cairn.goals.replay import replay_goals
from cairn.models.messages import TextPart
from cairn.models.session import AllowRecord, LimitRecord, ModelSetting, Turn, TurnRecord
from cairn.trace import Trace, TraceStore
from cairn.trace.records import JOURNAL_FILE, META_FILE
from tests.unit.test_agent_support import call, reply
from tests.unit.test_approvals import COMMAND, Asker, engine_with, results

MODEL = "scripted/x.jsonl"
SETTING = "scripted/configured.jsonl"
TOOL = "mcp:files/write_file"
LIMIT = 40_000
# Reported after LIMIT: a larger window does not replace the smaller one.
LARGER_LIMIT = 60_000
DAMAGE = [None, b"", b'{"id": "x", "turns": [', b"\x00" * 32]


def _damage(trace: Trace, damage: bytes | None) -> None:
    path = trace.dir / META_FILE
    if damage is None:
        path.unlink()
    else:
        path.write_bytes(damage)


def _run_turn(session: Session, turn_id: str, configured: str | None) -> None:
    """Start and end one turn on MODEL under the model setting `configured`."""
    session.current_turn_id = turn_id
    user = session.append("user", [TextPart(text=f"prompt of {turn_id}")])
    turn = Turn(id=turn_id, user_message_id=user.id, model=MODEL)
    session.start_turn(turn, user.text(), configured)
    turn.finish_reason = "stop"
    session.save_turn(turn)
    session.current_turn_id = None


def _session_with_settings(store: TraceStore) -> Trace:
    """A session that ran two turns, allowed a command and an MCP tool, learned a limit."""
    trace = store.create("settings", model=MODEL)
    session = Session(trace)
    _run_turn(session, "t1", "scripted/old-setting.jsonl")
    session.allow_command(COMMAND)
    session.remember_limit(MODEL, LIMIT)
    session.remember_limit(MODEL, LARGER_LIMIT)
    _run_turn(session, "t2", SETTING)
    session.allow_command(TOOL)
    session.allow_command(COMMAND)
    trace.close()
    return trace


def _assert_settings(trace: Trace) -> None:
    meta = trace.meta()
    assert meta.allowed_commands == [COMMAND, TOOL]
    assert meta.context_limits == {MODEL: LIMIT}
    assert meta.configured_model == SETTING
    assert Session(trace).context_limit(MODEL) == LIMIT
    # The setting is unchanged: the session keeps its model.
    assert session_model(None, SETTING, meta) == MODEL


@pytest.mark.parametrize("damage", DAMAGE)
def test_a_rebuilt_meta_json_keeps_allowed_commands_limits_and_model_setting(
    tmp_path: Path, damage: bytes | None
) -> None:
    trace = _session_with_settings(TraceStore(tmp_path / ".cairn"))
    _damage(trace, damage)

    reopened = TraceStore(tmp_path / ".cairn").open(trace.id)
    _assert_settings(reopened)
    assert [t.id for t in reopened.meta().turns] == ["t1", "t2"]
    assert any("rebuilt from journal.jsonl" in note for note in recover(reopened))
    reopened.close()
    written = TraceStore(tmp_path / ".cairn").open(trace.id)
    assert META_FILE not in written.damaged
    _assert_settings(written)


async def test_an_always_approval_survives_a_damaged_meta_json(tmp_path: Path) -> None:
    run = call("run_command", command=COMMAND)
    lines = [reply("", run), reply("done"), reply("", run), reply("done")]
    asker = Asker("always", "reject")
    engine = engine_with(tmp_path, lines, asker)
    first = await engine.turn("run it")
    configured = engine.session(first.session_id).meta().configured_model
    assert configured is not None
    engine.close()
    folder = tmp_path / ".cairn" / "traces" / first.session_id
    (folder / META_FILE).write_bytes(b"{")

    again = engine_with(tmp_path, lines, asker)
    await again.turn("run it again", session_id=first.session_id)
    assert len(asker.asked) == 1, "the approval was kept: nothing more was asked"
    assert [r.ok for r in results(again, first.session_id)] == [True, True]
    meta = again.session(first.session_id).meta()
    assert meta.allowed_commands == [COMMAND] and meta.configured_model == configured
    again.close()


def test_an_older_journal_loads_with_those_fields_empty_and_takes_new_records(
    tmp_path: Path,
) -> None:
    """A journal written before these records existed: its meta.json's values are kept while
    it is readable; rebuilt, only what was journaled since is known."""
    store = TraceStore(tmp_path / ".cairn")
    trace = store.create("old", model=MODEL)
    trace.close()
    created = json.loads((trace.dir / JOURNAL_FILE).read_text(encoding="utf-8"))
    origin = {k: created[k] for k in ("kind", "id", "title", "createdAt", "model")}
    turn = {"id": "t-old", "userMessageId": "m-old", "startedAt": created["createdAt"]}
    old_turn = {"kind": "turn", "turn": {**turn, "model": MODEL, "finishReason": "stop"}}
    lines = [json.dumps(origin), json.dumps(old_turn)]
    (trace.dir / JOURNAL_FILE).write_text("\n".join(lines) + "\n", encoding="utf-8")
    meta = json.loads((trace.dir / META_FILE).read_text(encoding="utf-8"))
    meta |= {"turns": [old_turn["turn"]], "allowedCommands": ["make"]}
    meta |= {"contextLimits": {MODEL: LIMIT}, "configuredModel": SETTING}
    (trace.dir / META_FILE).write_text(json.dumps(meta), encoding="utf-8")

    old = TraceStore(tmp_path / ".cairn").open(trace.id)
    assert recover(old) == [], "a journal without those records is not behind meta.json"
    assert old.meta().allowed_commands == ["make"] and old.meta().configured_model == SETTING
    Session(old).allow_command(COMMAND)
    old.close()
    _damage(old, None)

    rebuilt = TraceStore(tmp_path / ".cairn").open(trace.id).meta()
    assert [t.id for t in rebuilt.turns] == ["t-old"]
    assert rebuilt.allowed_commands == [COMMAND]
    assert rebuilt.context_limits == {} and rebuilt.configured_model is None


def test_records_journaled_but_not_saved_in_meta_json_are_adopted(tmp_path: Path) -> None:
    """The process died between the journal's append and meta.json's save, for each change."""
    store = TraceStore(tmp_path / ".cairn")
    trace = store.create("crash", model=MODEL)
    session = Session(trace)
    _run_turn(session, "t1", "scripted/old-setting.jsonl")
    session.current_turn_id = "t2"
    user = session.append("user", [TextPart(text="the turn that crashed")])
    turn = Turn(id="t2", user_message_id=user.id, model=MODEL)
    trace.append_record(TurnRecord(turn=turn, setting=ModelSetting(model=SETTING)))
    trace.append_record(AllowRecord(command=COMMAND))
    trace.append_record(AllowRecord(command=TOOL))
    trace.append_record(LimitRecord(model=MODEL, tokens=LIMIT))
    trace.close()

    reopened = TraceStore(tmp_path / ".cairn").open(trace.id)
    assert reopened.meta().allowed_commands == [], "meta.json lags the journal"
    notes = recover(reopened)
    lagged = f"turn(s) t2; allowed command(s) {COMMAND}, {TOOL}; the context limit(s) of {MODEL}"
    assert any(lagged in note for note in notes), notes
    reopened.close()
    again = TraceStore(tmp_path / ".cairn").open(trace.id)
    _assert_settings(again)
    assert [(t.id, t.finish_reason) for t in again.meta().turns] == [
        ("t1", "stop"),
        ("t2", "interrupted"),
    ]
    assert recover(again) == []


def test_a_smaller_limit_journaled_but_not_saved_replaces_the_saved_one(tmp_path: Path) -> None:
    trace = TraceStore(tmp_path / ".cairn").create("limits", model=MODEL)
    Session(trace).remember_limit(MODEL, LARGER_LIMIT)
    trace.append_record(LimitRecord(model=MODEL, tokens=LIMIT))
    trace.close()

    reopened = TraceStore(tmp_path / ".cairn").open(trace.id)
    assert reopened.meta().context_limits == {MODEL: LARGER_LIMIT}
    assert recover(reopened)
    assert reopened.meta().context_limits == {MODEL: LIMIT}


@pytest.mark.parametrize("at_message", [False, True])
def test_a_fork_inherits_and_journals_allowed_commands_limits_and_model_setting(
    tmp_path: Path, at_message: bool
) -> None:
    store = TraceStore(tmp_path / ".cairn")
    parent = _session_with_settings(store)
    if at_message:
        first = parent.messages()[0]
        goals = replay_goals(parent.messages(), until=first.id).tree
        fork = store.fork(parent.id, first.id, goals=goals)
    else:
        fork = store.fork(parent.id)
    _assert_settings(fork)
    _damage(fork, None)

    rebuilt = TraceStore(tmp_path / ".cairn").open(fork.id)
    _assert_settings(rebuilt)
    assert rebuilt.meta().parent_id == parent.id
