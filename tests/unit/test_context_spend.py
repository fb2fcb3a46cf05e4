"""Where tokens are not spent (issue 12.7): the map's budget, repeated tool results, own diffs."""

from __future__ import annotations

import subprocess
from pathlib import Path

from cairn.context.builder import ContextBuilder, GatherRequest
from cairn.context.history import render_history
from cairn.context.priorities import REPOMAP_MAX_TOKENS, REPOMAP_MIN_TOKENS
from cairn.context.repeats import goal_history_text, repeat_stub
from cairn.context.sources.diff import OWN_CHANGES_REF, diff_candidates, own_edit_hashes
from cairn.context.sources.repomap import covered_share, repomap_budget, session_files
from cairn.files.ignore import IgnoreRules
from cairn.files.text import content_hash
from cairn.files.workspace import Workspace
from cairn.models.goals import GoalTree
from cairn.models.messages import Message, TextPart, ToolCallPart, ToolResultPart
from cairn.repomap.map import RepoMap
from cairn.settings import Settings
from cairn.tokens.counter import count_tokens

MODEL = "gpt-4o"
LARGE_WINDOW_INPUT = 120_000
NOTE = "".join(f"line {n} of the design note\n" for n in range(80))


def count(text: str) -> int:
    return count_tokens(text, MODEL)


def tool_pair(
    n: int, name: str, args: dict, output: str, data: dict | None = None
) -> list[Message]:
    call = ToolCallPart(call_id=f"c{n}", name=name, arguments=args)
    result = ToolResultPart(call_id=f"c{n}", name=name, output=output, data=data)
    return [
        Message(id=f"a{n}", role="assistant", parts=[call]),
        Message(id=f"t{n}", role="tool", parts=[result]),
    ]


def tool_outputs(messages: list[Message]) -> list[str]:
    view = render_history(messages, "go", count)
    return [
        str(m["content"]) for c in view.candidates for m in c.messages or [] if m["role"] == "tool"
    ]


# -- the repository map's budget ---------------------------------------------------


def test_the_map_budget_is_a_fixed_modest_cap_not_a_share_of_a_large_window() -> None:
    # The old policy gave 10% of the input budget: 12,000 tokens here.
    assert repomap_budget(LARGE_WINDOW_INPUT, 0.0) == REPOMAP_MAX_TOKENS


def test_the_map_shrinks_as_the_session_reads_the_repository_and_then_goes() -> None:
    half = repomap_budget(LARGE_WINDOW_INPUT, 0.5)
    assert half == REPOMAP_MAX_TOKENS // 2
    assert repomap_budget(LARGE_WINDOW_INPUT, 0.9) == 0  # under REPOMAP_MIN_TOKENS
    assert REPOMAP_MAX_TOKENS * 0.1 < REPOMAP_MIN_TOKENS


def test_a_small_window_keeps_its_small_map_until_the_session_covers_it() -> None:
    small = 2_000  # 10% is 200 tokens, under the minimum: still a map with nothing read
    assert repomap_budget(small, 0.0) == 200
    assert repomap_budget(small, 0.25) == 0


def test_coverage_counts_the_files_the_session_read_or_edited_in_every_message() -> None:
    messages = [
        *tool_pair(1, "read_file", {"path": "a.py"}, "x", {"path": "a.py", "hash": "h"}),
        *tool_pair(2, "edit_file", {"path": "b.py"}, "edited", {"path": "b.py"}),
        *tool_pair(3, "grep", {"pattern": "x"}, "c.py:1: x"),
    ]
    seen = session_files(messages)
    assert seen == {"a.py", "b.py"}
    assert covered_share(["a.py", "b.py", "c.py", "d.py"], seen) == 0.5
    assert covered_share([], seen) == 0.0


def _git_repo(root: Path) -> None:
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    ident = ["-c", "user.email=t@example.com", "-c", "user.name=t"]
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run(["git", *ident, "commit", "-qm", "init"], cwd=root, check=True)


def test_a_fresh_session_with_no_file_in_play_still_gets_a_map(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "engine.py").write_text(
        "class Engine:\n    def run(self) -> int:\n        return 1\n"
    )
    (root / "pkg" / "cli.py").write_text(
        "from pkg.engine import Engine\n\ndef main():\n    Engine().run()\n"
    )
    ignore = IgnoreRules.for_folder(root)
    repomap = RepoMap(root, ignore, tmp_path / "cache")
    builder = ContextBuilder(Workspace([root]), Settings(), repomap=repomap, ignore=ignore)
    built = builder.build(
        GatherRequest(
            session_id="s", model=MODEL, mode="build", goals=GoalTree(), user_message="hi"
        )
    )
    [block] = [b for b in built.blocks if b.source == "repomap"]
    assert block.included and "class Engine" in block.text


# -- repeated tool results in the history ------------------------------------------


def test_a_goal_result_shows_its_change_line_not_the_whole_plan_again() -> None:
    output = "focus 2\n[x] 1 Survey — done: it works\n[~] 2 Fix ← current"
    assert goal_history_text(output) == "focus 2"
    assert goal_history_text("focus 2") == "focus 2"
    messages = [Message(id="u", role="user", parts=[TextPart(text="go")])]
    messages += tool_pair(1, "goal", {"focus": "2"}, output)
    assert tool_outputs(messages) == ["focus 2"]


def test_an_identical_second_read_is_a_stub_naming_the_first() -> None:
    messages = [Message(id="u", role="user", parts=[TextPart(text="go")])]
    messages += tool_pair(1, "read_file", {"path": "notes.md"}, NOTE)
    messages += tool_pair(2, "read_file", {"path": "notes.md"}, NOTE)
    messages += tool_pair(3, "read_file", {"path": "notes.md", "start_line": 2}, NOTE)
    messages += tool_pair(4, "run_command", {"command": "make"}, NOTE)
    messages += tool_pair(5, "run_command", {"command": "make"}, NOTE)
    shown = tool_outputs(messages)
    assert shown[0] == NOTE
    assert shown[1] == repeat_stub("read_file", "c1", None)
    assert shown[2:] == [NOTE, NOTE, NOTE]  # other arguments; a command is run again


def test_a_changed_file_read_again_is_shown_whole() -> None:
    messages = [Message(id="u", role="user", parts=[TextPart(text="go")])]
    messages += tool_pair(1, "read_file", {"path": "notes.md"}, NOTE)
    messages += tool_pair(2, "read_file", {"path": "notes.md"}, NOTE + "one more line\n")
    assert tool_outputs(messages) == [NOTE, NOTE + "one more line\n"]


def test_once_the_first_copy_is_pruned_the_repeat_is_shown_whole() -> None:
    from cairn.models.messages import CompactionPart

    messages = [Message(id="u", role="user", parts=[TextPart(text="go")])]
    messages += tool_pair(1, "read_file", {"path": "notes.md"}, NOTE)
    messages += tool_pair(2, "read_file", {"path": "notes.md"}, NOTE)
    prune = CompactionPart(kind="prune", pruned_call_ids=["c1"])
    messages.append(Message(id="p", role="assistant", parts=[prune]))
    shown = tool_outputs(messages)
    assert shown[0].startswith("[output pruned:") and shown[1] == NOTE


# -- the session's own diffs -----------------------------------------------------


def test_a_file_only_the_session_changed_is_one_line_out_of_play(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    for name in ("own.py", "user.py", "both.py"):
        (root / name).write_text("a = 1\n")
    _git_repo(root)
    edited = "a = 2\n"
    for name in ("own.py", "both.py"):
        (root / name).write_text(edited)
    (root / "user.py").write_text("a = 3\n")
    history: list[Message] = []
    for n, name in enumerate(("own.py", "both.py")):
        data = {"path": name, "hash": content_hash(edited)}
        history += tool_pair(n, "edit_file", {"path": name}, "edited", data)
    (root / "both.py").write_text(edited + "b = 1\n")  # the user changed it afterwards
    own = own_edit_hashes(history)
    assert own == {"own.py": content_hash(edited), "both.py": content_hash(edited)}
    workspace = Workspace([root])
    blocks = {c.block.ref: c.block.text for c in diff_candidates(workspace, [], count, own)}
    assert set(blocks) == {"user.py", "both.py", OWN_CHANGES_REF}
    listed = blocks[OWN_CHANGES_REF]
    assert "- own.py (+1 -1)" in listed and "+a = 2" not in listed and "both.py" not in listed
    assert "+a = 3" in blocks["user.py"] and "+b = 1" in blocks["both.py"]
    in_play = {
        c.block.ref: c.block.text for c in diff_candidates(workspace, [root / "own.py"], count, own)
    }
    assert "+a = 2" in in_play["own.py"] and OWN_CHANGES_REF not in in_play


def test_every_file_only_the_session_changed_shares_one_block(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    names = [f"m{n}.py" for n in range(4)]
    for name in names:
        (root / name).write_text("a = 1\nb = 1\n")
    _git_repo(root)
    history: list[Message] = []
    for n, name in enumerate(names):
        edited = f"a = {n + 2}\n" + "c = 1\n" * n
        (root / name).write_text(edited)
        data = {"path": name, "hash": content_hash(edited)}
        history += tool_pair(n, "edit_file", {"path": name}, "edited", data)
    found = diff_candidates(Workspace([root]), [], count, own_edit_hashes(history))
    assert [c.block.ref for c in found] == [OWN_CHANGES_REF]
    lines = found[0].block.text.splitlines()
    assert [line for line in lines if line.startswith("- ")] == [
        f"- m{n}.py (+{1 + n} -2)" for n in range(4)
    ]
