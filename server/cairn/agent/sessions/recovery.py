"""Recovery: a session's records brought back to a consistent state when it is loaded.

After a crash (a SIGKILL, a power cut) or a damaged file, `recover(trace)`:
- ends every turn that started and never ended as `interrupted`, at the time
  of its last record — unless another process holds the trace's write lock
  (then the turn may still be running there);
- rebuilds an unreadable `goal.json` from the goal operations recorded in
  `messages.jsonl` (`cairn.goals.replay_goals`);
- writes back the `meta.json` the trace rebuilt from `journal.jsonl` and the
  messages when it could not read it;
- after a crash (a turn it closed), makes `goal.json` agree with the goal
  operations in the messages: a process killed between saving the tree and
  recording the operation leaves them one step apart, and the records win.

Each repair is one line of the returned notes (shown as warnings). With
`write=False` nothing is written: the notes say what a repair would do, and
`goals_of` / `meta_of` give the repaired view (what `cairn trace show`
prints). The engine recovers every session it opens; `cairn trace repair ID`
does it on request. Explore branches are recovered with their parent.

`fork_session` forks at a point in time: the child's goal tree is the parent's
as it was at the fork message, replayed from the same records.
"""

from __future__ import annotations

from cairn.errors import InvalidRequestError, TraceLockedError
from cairn.goals.replay import replay_goals
from cairn.models.goals import GoalTree
from cairn.models.session import SessionMeta, TurnRecord
from cairn.trace import Trace, TraceStore
from cairn.trace.rebuild import Reconciled, close_interrupted, open_turns, reconcile
from cairn.trace.records import GOAL_FILE, META_FILE, DamagedRecordError

TIME_FORMAT = "%Y-%m-%d %H:%M:%S UTC"


def goals_of(trace: Trace) -> tuple[GoalTree, str | None]:
    """The goal tree as a repair leaves it, and a note when that is not `goal.json`'s:
    rebuilt from the messages when `goal.json` is unreadable, or after a crash."""
    try:
        tree = trace.goals()
    except DamagedRecordError as exc:
        replay = replay_goals(trace.messages())
        note = (
            f"{trace.id}: {GOAL_FILE} is unreadable ({exc.reason}); rebuilt from "
            f"{replay.applied} goal operation(s) in messages.jsonl"
        )
        if replay.skipped:
            note += f" ({replay.skipped} no longer applied and were skipped)"
        return replay.tree, note
    if trace.writer_pid() is None and open_turns(_reconciled(trace)[0]):
        return _tree_after_crash(trace, tree)
    return tree, None


def _tree_after_crash(trace: Trace, tree: GoalTree) -> tuple[GoalTree, str | None]:
    """The replayed tree (and a note) when it differs from `goal.json` in a trace whose
    messages record every operation (one with a journal, written by this version)."""
    if not trace.journal():
        return tree, None
    replay = replay_goals(trace.messages())
    if replay.skipped or replay.tree == tree:
        return tree, None
    note = f"{trace.id}: {GOAL_FILE} did not match the recorded goal operations; rebuilt from them"
    return replay.tree, note


def _reconciled(trace: Trace) -> tuple[SessionMeta, Reconciled]:
    """`meta.json` with what the journal recorded after it was last saved (see `reconcile`)."""
    meta = trace.meta()
    if META_FILE in trace.damaged or not trace.journal():
        return meta, Reconciled()
    return meta, reconcile(meta, trace.rebuilt_meta())


def meta_of(trace: Trace) -> SessionMeta:
    """The metadata as a repair would leave it: open turns of a dead process `interrupted`."""
    meta, _ = _reconciled(trace)
    if trace.writer_pid() is None:
        close_interrupted(meta, trace.messages())
    return meta


def _recover_one(trace: Trace, write: bool) -> list[str]:
    notes: list[str] = []
    meta, reconciled = _reconciled(trace)
    if reconciled:
        notes.append(
            f"{trace.id}: {META_FILE} lacked the journal's record of "
            f"{reconciled.describe()}; updated"
        )
    meta_damaged = META_FILE in trace.damaged or bool(reconciled)
    if META_FILE in trace.damaged:
        notes.append(
            f"{trace.id}: {META_FILE} is unreadable ({trace.damaged[META_FILE]}); "
            "rebuilt from journal.jsonl and messages.jsonl"
        )
    tree, goal_note = goals_of(trace)
    if goal_note is not None:
        notes.append(goal_note)
    holder = trace.writer_pid()
    closed = [] if holder is not None else close_interrupted(meta, trace.messages())
    for turn in closed:
        ended = turn.ended_at.strftime(TIME_FORMAT) if turn.ended_at else "?"
        notes.append(f"{trace.id}: turn {turn.id} never ended; closed as interrupted at {ended}")

    if not write or not (meta_damaged or goal_note or closed):
        return notes
    if holder is not None:
        notes.append(f"{trace.id}: not repaired: being written by another process (pid {holder})")
        return notes
    if goal_note is not None:
        trace.save_goals(tree)
    for turn in closed:
        trace.append_record(TurnRecord(turn=turn))
    if meta_damaged or closed:
        trace.save_meta(meta)
    return notes


def recover(trace: Trace, *, write: bool = True) -> list[str]:
    """Repair `trace` and its explore branches (see the module docstring); one note per repair.

    A trace another process is writing is left as it is (noted when it needed a repair)."""
    notes: list[str] = []
    try:
        notes += _recover_one(trace, write)
    except TraceLockedError as exc:
        notes.append(f"{trace.id}: not repaired: {exc}")
    for name in trace.branches():
        branch = trace.existing_branch(name)
        if branch is not None:
            notes += recover(branch, write=write)
    return notes


def fork_session(
    store: TraceStore,
    session_id: str,
    at_message_id: str | None = None,
    *,
    before_message_id: str | None = None,
    title: str | None = None,
) -> Trace:
    """Fork `session_id` at `at_message_id`, or just before `before_message_id` (all of it
    when neither is given), with the goal tree of that moment, titled `title` (the parent's
    when None).

    At or before a message, the tree is replayed from the parent's records up to it; a fork
    of the whole session keeps the parent's current tree (rebuilt too if `goal.json` is
    damaged)."""
    parent = store.open(session_id)
    messages = parent.messages()
    if before_message_id is not None:
        ids = [m.id for m in messages]
        if before_message_id not in ids:
            raise InvalidRequestError(
                f"message {before_message_id!r} is not in session {parent.id}"
            )
        tree = replay_goals(messages[: ids.index(before_message_id)]).tree
    elif at_message_id is None:
        tree, _ = goals_of(parent)
    else:
        tree = replay_goals(messages, until=at_message_id).tree
    return store.fork(
        parent.id, at_message_id, before_message_id=before_message_id, title=title, goals=tree
    )
