"""One secret policy for everything sent to the provider (issue 15 item 4).

Secret-named files never reach the context; high-confidence secret values in ordinary
code, buffers, tool outputs, tool-call arguments, diffs, diagnostics, summaries and the
repository map are redacted from the exact messages the builder returns, with a manifest
note per block (kind and count, never the value); the user's lists add and exempt paths
and values. The secret-looking values are assembled at run time so this file holds none.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from cairn.agent.engine import Engine
from cairn.agent.tools import ToolContext, default_registry
from cairn.compaction.narrative import COMPACTION_INSTRUCTION
from cairn.context.blocks import MESSAGE_OVERHEAD_TOKENS
from cairn.context.builder import BuiltContext, ContextBuilder, GatherRequest
from cairn.context.sources.profile import profile_candidate
from cairn.errors import SettingsError
from cairn.files import redaction
from cairn.files.ignore import IgnoreRules
from cairn.files.redaction import Redactor
from cairn.files.secrets import SecretPaths
from cairn.files.text import content_hash
from cairn.files.workspace import Workspace
from cairn.models.diagnostics import Diagnostic
from cairn.models.manifest import ManifestBlock
from cairn.models.messages import (
    CompactionPart,
    Message,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)
from cairn.models.summary import SessionSummary
from cairn.profile.scan import scan_profile
from cairn.repomap.map import RepoMap
from cairn.settings import Settings, SettingsRef, validate_settings
from cairn.tokens.counter import counter_for
from cairn.trace import Trace
from tests.fakes.openai_server import OpenAIServer, Reply

MODEL = "gpt-4o"
COUNT = counter_for(MODEL)
AWS_ID = "AKIA" + "IOSFODNN7" + "EXAMPLE"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/" + "bPxRfiCYEXAMPLEKEY"
GITHUB = "ghp_" + "16C7e42F292c6912E7710c838347Ae178B4a"
OTHER_GITHUB = "ghp_" + "Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0Pp9Oo8"
KEY_BODY = "\n".join(["MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun"] * 6)
PRIVATE_KEY = (
    "-----BEGIN RSA " + "PRIVATE KEY-----\n" + KEY_BODY + "\n-----END RSA PRIVATE KEY-----"
)
VALUES = (AWS_ID, AWS_SECRET, GITHUB, OTHER_GITHUB, KEY_BODY.splitlines()[0])


def _git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.email=t@example.com", "-c", "user.name=t", *args],
        cwd=root,
        check=True,
        capture_output=True,
    )


def sent(built: BuiltContext) -> str:
    """Everything the provider would receive, as one string."""
    return json.dumps(built.messages, ensure_ascii=False)


def notes_of(built: BuiltContext) -> dict[tuple[str, str | None], dict[str, int]]:
    return {
        (b.source, b.ref): {n.kind: n.count for n in b.redactions}
        for b in built.manifest.blocks
        if b.redactions
    }


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A git project whose ordinary code holds credentials, with an uncommitted key."""
    root = tmp_path / "ws"
    root.mkdir()
    (root / "config.py").write_text(
        f'AWS_ACCESS_KEY_ID = "{AWS_ID}"\nAWS_SECRET_ACCESS_KEY = "{AWS_SECRET}"\n\n'
        "def bucket_name():\n    return 'assets'\n"
    )
    (root / "deploy.py").write_text("def deploy():\n    return 'ok'\n")
    (root / "certs.py").write_text("def load():\n    return None\n")
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "init")
    (root / "certs.py").write_text(f'KEY = """{PRIVATE_KEY}"""\n\ndef load():\n    return KEY\n')
    return root


def history() -> list[Message]:
    return [
        Message(id="u1", role="user", parts=[TextPart(text="read the deploy notes")]),
        Message(
            id="a1",
            role="assistant",
            parts=[ToolCallPart(call_id="c1", name="run_command", arguments={"command": "env"})],
        ),
        Message(
            id="t1",
            role="tool",
            parts=[
                ToolResultPart(
                    call_id="c1", name="run_command", output=f"HOME=/root\nGH_TOKEN={GITHUB}\n"
                )
            ],
        ),
        Message(
            id="a2",
            role="assistant",
            parts=[
                ToolCallPart(
                    call_id="c2",
                    name="edit_file",
                    arguments={"path": "deploy.py", "new": f'TOKEN = "{OTHER_GITHUB}"\n'},
                )
            ],
        ),
        Message(
            id="t2",
            role="tool",
            parts=[ToolResultPart(call_id="c2", name="edit_file", output="edited deploy.py")],
        ),
        Message(id="u2", role="user", parts=[TextPart(text="now fix the config")]),
    ]


def build(root: Path, settings: Settings | None = None, **extra: object) -> BuiltContext:
    workspace = Workspace([root])
    ignore = IgnoreRules.for_folder(root)
    builder = ContextBuilder(
        workspace,
        settings or Settings(),
        profile_provider=lambda: scan_profile(root, ignore),
        repomap=RepoMap(root, ignore),
    )
    workspace.open_buffer(root / "deploy.py", f'TOKEN = "{OTHER_GITHUB}"\ndef deploy(): ...\n')
    workspace.set_diagnostics(
        root / "deploy.py",
        [
            Diagnostic.model_validate(
                {
                    "range": {
                        "start": {"line": 0, "character": 0},
                        "end": {"line": 0, "character": 5},
                    },
                    "message": f"hard-coded token {OTHER_GITHUB}",
                    "severity": 2,
                }
            )
        ],
    )
    request = GatherRequest(
        session_id="s",
        model=MODEL,
        user_message="now fix the config",
        history=tuple(history()),
        references=("config.py",),
        files_in_play=(root / "deploy.py",),
        **extra,  # type: ignore[arg-type]
    )
    return builder.build(request)


def test_secret_values_never_reach_the_messages_and_the_manifest_says_where(
    project: Path,
) -> None:
    built = build(project)
    text = sent(built)
    for value in VALUES:
        assert value not in text
    assert "[redacted: AWS Access Key]" in text
    assert "[redacted: GitHub Token]" in text
    assert "[redacted: Private Key]" in text
    [diff] = [b for b in built.blocks if b.source == "diff"]
    assert '+KEY = """[redacted: Private Key]"""\n+\n def load():' in diff.text  # code kept
    notes = notes_of(built)
    assert notes[("reference", "config.py")] == {"AWS Access Key": 2}
    assert notes[("buffer", "deploy.py")] == {"GitHub Token": 1}
    assert notes[("diagnostics", "deploy.py")] == {"GitHub Token": 1}
    assert notes[("diff", "certs.py")] == {"Private Key": 1}
    assert notes[("history", "a1")] == {"GitHub Token": 1}  # the tool output
    assert notes[("history", "a2")] == {"GitHub Token": 1}  # the tool-call arguments
    assert notes[("repomap", "repomap")] == {"AWS Access Key": 2}
    # Tool-call arguments stay valid JSON.
    [edit] = [
        call
        for message in built.messages
        for call in message.get("tool_calls") or []
        if call["function"]["name"] == "edit_file"
    ]
    assert (
        json.loads(edit["function"]["arguments"])["new"] == 'TOKEN = "[redacted: GitHub Token]"\n'
    )


def test_redacted_blocks_are_counted_and_versioned_as_sent(project: Path) -> None:
    built = build(project)
    [reference] = [b for b in built.blocks if b.source == "reference"]
    assert reference.version == content_hash(reference.text)
    assert AWS_SECRET not in reference.text
    # A reference is attached to the history as its own message: the message overhead.
    assert reference.zone == "history"
    assert reference.tokens == COUNT(reference.text) + MESSAGE_OVERHEAD_TOKENS
    wire = {b.ref: b.wire() for b in built.manifest.blocks if b.source in ("reference", "mode")}
    assert wire["config.py"]["redactions"] == [{"kind": "AWS Access Key", "count": 2}]
    assert "redactions" not in wire["build"]  # optional: absent when nothing was redacted
    assert ManifestBlock.model_validate(wire["build"]).redactions is None


def test_a_summary_is_redacted_too(project: Path) -> None:
    summary = SessionSummary(
        objective="deploy",
        confirmed_facts=[f"the token is {GITHUB}"],
        covered_until_message_id="t1",
    )
    marker = Message(
        id="m1",
        role="system",
        parts=[CompactionPart(kind="summary", summary=summary)],
    )
    workspace = Workspace([project])
    built = ContextBuilder(workspace, Settings()).build(
        GatherRequest(session_id="s", model=MODEL, history=(*history(), marker))
    )
    assert GITHUB not in sent(built)
    [block] = [b for b in built.manifest.blocks if b.source == "summary"]
    assert block.redactions is not None and block.redactions[0].kind == "GitHub Token"


def test_the_allow_list_exempts_a_value_and_custom_patterns_are_redacted(project: Path) -> None:
    settings = validate_settings(
        {
            "redactionExemptions": [AWS_ID, r"ghp_16C7.*"],
            "secretValuePatterns": [r"bucket_name"],
        }
    )
    built = build(project, settings)
    text = sent(built)
    assert AWS_ID in text and GITHUB in text  # exempt: one exactly, one by expression
    assert AWS_SECRET not in text and OTHER_GITHUB not in text
    assert "bucket_name" not in text and "[redacted: custom pattern]" in text
    assert notes_of(built)[("reference", "config.py")] == {
        "AWS Access Key": 1,
        "custom pattern": 1,
    }


def test_redaction_can_be_turned_off(project: Path) -> None:
    built = build(project, Settings(redact_secrets=False))
    assert AWS_SECRET in sent(built)
    assert notes_of(built) == {}


def test_secret_named_files_are_absent_from_every_source(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root / ".aws").mkdir(parents=True)
    secrets = {
        ".env.py": "ENV_MARKER_1 = 'x'\n",
        "id_rsa_tools.py": "def rsa_marker_2():\n    pass\n",
        ".aws/cfg.py": "def aws_marker_3():\n    pass\n",
        "config/prod/settings.py": "def prod_marker_4():\n    pass\n",
    }
    for name, text in secrets.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    (root / "fixtures").mkdir()
    (root / "fixtures" / "test.pem").write_text("fixture_marker_5\n")
    (root / "app.py").write_text("def app():\n    pass\n")
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "init")
    for name in secrets:  # uncommitted changes to every secret file: the diff source
        (root / name).write_text((root / name).read_text() + "CHANGED_MARKER = 1\n")
    settings = validate_settings(
        {"secretPaths": ["config/prod/**"], "secretPathExemptions": ["fixtures/*.pem"]}
    )
    workspace = Workspace([root])
    ignore = IgnoreRules.for_folder(root)
    builder = ContextBuilder(
        workspace, settings, profile_provider=lambda: scan_profile(root, ignore)
    )
    for name in secrets:
        workspace.open_buffer(root / name, (root / name).read_text())
    built = builder.build(
        GatherRequest(
            session_id="s",
            model=MODEL,
            user_message="look",
            references=(*secrets, "fixtures/test.pem", "."),
            files_in_play=tuple(root / name for name in secrets),
        )
    )
    text = sent(built)
    for marker in ("ENV_MARKER_1", "rsa_marker_2", "aws_marker_3", "prod_marker_4", "CHANGED"):
        assert marker not in text
    assert "fixture_marker_5" in text  # exempted by the user's list
    refused = {b.ref: b.reason for b in built.blocks if b.source == "reference" and not b.included}
    assert refused["config/prod/settings.py"] == (
        "config/prod/settings.py: secret file (matches 'config/prod/**')"
    )
    assert refused[".env.py"] == ".env.py: secret file (matches '.env.*')"
    assert not [b for b in built.blocks if b.source == "diff"]


def test_the_profile_leaves_out_paths_the_users_rules_make_secret(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root / "ops").mkdir(parents=True)
    (root / "ops" / "Makefile").write_text("test:\n\tpytest\n")
    (root / "README.md").write_text("# demo\n")
    profile = scan_profile(root, IgnoreRules.for_folder(root))
    assert "README.md" in profile.important_paths
    hidden = SecretPaths(deny=("README.md",))
    candidate = profile_candidate(profile, COUNT, lambda rel: hidden.is_secret(Path(rel)))
    assert candidate is not None and "README.md" not in candidate.body


def test_invalid_lists_are_refused_naming_the_setting() -> None:
    with pytest.raises(SettingsError, match=r"secretValuePatterns.*invalid regular expression"):
        validate_settings({"secretValuePatterns": ["(unclosed"]})
    # An exemption that is no valid expression is still an exact value.
    settings = validate_settings({"redactionExemptions": ["p@ss(word"]})
    assert settings.redaction_exemptions == ["p@ss(word"]


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        # Code that parses PEM files: a header with no key body is no secret.
        (
            'BEGIN = "-----BEGIN PRIVATE KEY-----"\nEND = "-----END PRIVATE KEY-----"\n',
            True,
        ),
        ("sha = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'\n", True),
        ("AKIA is the prefix of AWS key ids\n", True),
    ],
)
def test_ordinary_code_is_left_alone(text: str, kept: bool) -> None:
    assert (Redactor().redact(text).text == text) is kept


def test_whole_tokens_and_truncated_keys_are_redacted() -> None:
    redactor = Redactor()
    jwt = (
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9."
        "eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkphbmUifQ."
        "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
    )
    out = redactor.redact(f"Authorization: Bearer {jwt}\n")
    assert out.text == "Authorization: Bearer [redacted: JSON Web Token]\n"
    truncated = PRIVATE_KEY.split("-----END")[0]  # a log cut inside the key
    cut = redactor.redact(f"key dump:\n{truncated}")
    assert KEY_BODY.splitlines()[-1] not in cut.text and cut.counts == {"Private Key": 1}
    escaped = json.dumps({"private_key": PRIVATE_KEY + "\n"})  # a service-account JSON
    assert redactor.redact(escaped).counts == {"Private Key": 1}
    assert json.loads(redactor.redact_json(escaped).text) == {
        "private_key": "[redacted: Private Key]\n"
    }


async def test_what_crosses_the_wire_to_a_provider_holds_no_secret_value(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A real turn and a compaction against a local OpenAI-compatible server over HTTP."""
    root = tmp_path / "ws"
    root.mkdir()
    padding = "".join(f"def helper_{n}(value):\n    return value + {n}\n\n" for n in range(80))
    (root / "config.py").write_text(f'AWS_SECRET_ACCESS_KEY = "{AWS_SECRET}"\n\n{padding}')
    # A small window, so the compaction has history to cover beyond the recent part it keeps.
    settings = Settings(
        model="openai/fixture-model",
        context_window=12_000,
        max_output_tokens=1_024,
        safety_margin=512,
        model_retries=0,
    )
    with OpenAIServer() as server:
        monkeypatch.setenv("OPENAI_API_BASE", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        server.queue(
            Reply(tool_calls=[{"name": "read_file", "arguments": {"path": "config.py"}}]),
            Reply(text=f"The key is {AWS_SECRET}."),  # the model echoes it: stored, not re-sent
            Reply(text="Noted. " * 1500),  # longer than the recent part a summary keeps
            Reply(text='{"objective": "read config", "confirmed_facts": []}'),
        )
        engine = Engine([root], settings)
        try:
            first = await engine.turn("read config.py")
            second = await engine.turn("and now?")
            compacted = await engine.compact()
        finally:
            engine.close()
    assert first.finish_reason == "stop" and second.finish_reason == "stop"
    assert compacted.kind == "summary"
    bodies = [json.dumps(request.body, ensure_ascii=False) for request in server.requests]
    assert len(bodies) == 4
    assert [AWS_SECRET in body for body in bodies] == [False] * 4, [
        b[-3000:] for b in bodies if AWS_SECRET in b
    ]
    assert "[redacted: AWS Access Key]" in bodies[1]  # the tool output
    assert "[redacted: AWS Access Key]" in bodies[2]  # the echoed answer in history
    # The compaction call repeats the session's (redacted) prefix plus one instruction.
    compaction = server.requests[3].messages
    assert str(compaction[-1]["content"]).startswith(COMPACTION_INSTRUCTION.split("]")[0])
    prefix = json.dumps(compaction[:-1])
    assert AWS_SECRET not in prefix
    assert '     1\\tAWS_SECRET_ACCESS_KEY = \\"[redacted: AWS Access Key]\\"' in prefix
    assert "The key is [redacted: AWS Access Key]." in prefix


async def test_a_settings_change_reaches_the_guard_and_the_tools(
    tmp_path: Path, trace: Trace
) -> None:
    root = tmp_path / "ws"
    (root / "ops").mkdir(parents=True)
    (root / "ops" / "deploy.py").write_text("REGION = 'eu-west-1'\n")
    config = SettingsRef(Settings())
    workspace = Workspace([root])
    builder = ContextBuilder(workspace, config)
    ctx = ToolContext(
        workspace=workspace,
        config=config,
        trace=trace,
        ignore=IgnoreRules.for_folder(root),
        allowed_commands=[],
    )
    registry = default_registry()
    assert (await registry.run("read_file", {"path": "ops/deploy.py"}, ctx)).ok
    config.current = Settings(secret_paths=["ops/"])  # what the editor's new settings do
    builder.build(GatherRequest(session_id="s", model=MODEL))  # applied before every build
    refused = await registry.run("read_file", {"path": "ops/deploy.py"}, ctx)
    assert refused.output == "error: ops/deploy.py: secret file (matches 'ops/')"
    found = await registry.run("grep", {"pattern": "REGION"}, ctx)
    assert found.output == "no matches for 'REGION'"
    listing = await registry.run("list_dir", {"path": "ops"}, ctx)
    assert "deploy.py" in listing.output and "(secret: not readable)" in listing.output


def test_a_value_found_once_is_redacted_when_repeated_bare() -> None:
    redactor = Redactor()
    bare = f"echo {AWS_SECRET}\n"
    assert redactor.redact(bare).text == bare  # alone it has no context to be recognised
    generation = redactor.generation
    redactor.redact(f'aws_secret_key = "{AWS_SECRET}"')
    assert redactor.generation == generation + 1
    assert redactor.redact(bare).text == "echo [redacted: AWS Access Key]\n"  # no stale cache


@pytest.mark.timeout(120)  # a hang guard: Python's `re` takes hours on this pattern
def test_a_backtracking_custom_pattern_costs_a_bounded_scan_and_shows_nothing_unchecked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A workspace's cairn.toml may add `secret_value_patterns`: `(a|aa)+$` on a run of 60
    `a`s backtracks exponentially. The text it cannot be checked against in time is
    replaced whole (and not remembered as a value); texts it can be checked against are
    redacted as usual."""
    monkeypatch.setattr(redaction, "USER_PATTERN_TIMEOUT_S", 0.5)
    redactor = Redactor(patterns=[r"(a|aa)+$"])
    slow = redactor.redact("key = " + "a" * 60 + "!\nmore text")
    assert slow.text == f"[redacted: {redaction.TIMEOUT_KIND}]"
    assert slow.counts == {redaction.TIMEOUT_KIND: 1}
    quick = redactor.redact("plain words, then aa")
    assert quick.text == "plain words, then [redacted: custom pattern]"
    assert redactor.redact("more text").text == "more text"  # the slow text was not learnt
