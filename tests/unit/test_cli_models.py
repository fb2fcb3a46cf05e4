"""The model path from the command line, as a new user meets it: no model, a missing key,
`--session` keeping its model, retries and usage on the terminal, and `cairn models`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from cairn.files.trust import grant
from cairn.trace import TraceStore
from tests.fakes.openai_server import OpenAIServer, Reply

CLI_TIMEOUT_S = 240
KEY_VARIABLE = "CAIRN_CLI_KEY"
# Variables a user's shell may hold that would change what the CLI reports.
KEY_VARIABLES = (
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "DEEPSEEK_API_KEY",
    "OPENROUTER_API_KEY",
)


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in KEY_VARIABLES and k != KEY_VARIABLE}
    return {**env, **extra}


def cairn(
    root: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cairn", *args],
        cwd=root,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=CLI_TIMEOUT_S,
        check=False,
        env=env if env is not None else clean_env(),
    )


@pytest.fixture
def server() -> Iterator[OpenAIServer]:
    with OpenAIServer(cache="none") as running:
        yield running


def served_workspace(root: Path, server: OpenAIServer, model: str = "openai/model-a") -> Path:
    (root / "cairn.toml").write_text(
        f'model = "{model}"\napi_base = "{server.base_url}"\napi_key_env = "{KEY_VARIABLE}"\n'
        "context_window = 32000\n",
        encoding="utf-8",
    )
    return root


def trusted_workspace(root: Path, server: OpenAIServer, model: str = "openai/model-a") -> Path:
    """`served_workspace`, trusted by the user (its api_base and api_key_env then count)."""
    grant(served_workspace(root, server, model))
    return root


def test_run_without_a_model_says_how_to_set_one(tmp_path: Path) -> None:
    done = cairn(tmp_path, "run", "-w", str(tmp_path), "hello")
    assert done.returncode == 1
    assert done.stderr.startswith("error: no model configured. Set `model` in cairn.toml")
    assert 'model = "anthropic/claude-sonnet-4-5"    # then export ANTHROPIC_API_KEY' in done.stderr
    assert "scripted" not in done.stderr and "Traceback" not in done.stderr
    assert TraceStore(tmp_path / ".cairn").list() == []


def test_a_missing_key_is_named_whole_before_any_request(tmp_path: Path) -> None:
    done = cairn(tmp_path, "run", "-w", str(tmp_path), "--model", "openai/gpt-4o-mini", "hello")
    assert done.returncode == 1
    line = done.stderr.strip().splitlines()[-1]
    assert line == (
        "error: model openai/gpt-4o-mini: OPENAI_API_KEY is not set: export it with your openai"
        " API key, or set api_key_env in cairn.toml to the variable that holds it"
    )
    assert TraceStore(tmp_path / ".cairn").list() == []


def test_session_keeps_its_model_and_retries_and_usage_are_shown(
    tmp_path: Path, server: OpenAIServer
) -> None:
    root = trusted_workspace(tmp_path, server, model="openai/configured-model")
    env = clean_env(**{KEY_VARIABLE: "sk-cli"})
    server.queue(Reply.rate_limit(retry_after_s=0.2), Reply(text="First answer."))
    first = cairn(root, "run", "-w", str(root), "--model", "openai/model-a", "one", env=env)
    assert first.returncode == 0, first.stderr
    assert "First answer." in first.stdout
    assert "↻ rate limited (HTTP 429): Rate limit reached; retrying in 0.2 s (request 2)" in (
        first.stderr
    )
    assert " in / " in first.stderr and " out · 2 requests" in first.stderr
    [meta] = TraceStore(root / ".cairn").list()
    server.queue(Reply(text="Second answer."))
    second = cairn(root, "run", "-w", str(root), "--session", meta.id, "two", env=env)
    assert second.returncode == 0, second.stderr
    assert [r.model for r in server.requests] == ["model-a", "model-a", "model-a"]
    assert [t.model for t in TraceStore(root / ".cairn").open(meta.id).meta().turns] == [
        "openai/model-a",
        "openai/model-a",
    ]


def test_models_lists_each_role_and_where_its_settings_came_from(
    tmp_path: Path, server: OpenAIServer
) -> None:
    root = served_workspace(tmp_path, server)
    with (root / "cairn.toml").open("a", encoding="utf-8") as toml:
        toml.write('compaction_model = "deepseek/deepseek-chat"\n')
    grant(root)
    secret = "sk-cli-secret-value"
    done = cairn(root, "models", "-w", str(root), env=clean_env(**{KEY_VARIABLE: secret}))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].split() == ["main", "openai/model-a", "(model:", "cairn.toml)"]
    assert f"  key       {KEY_VARIABLE} is set (api_key_env: cairn.toml)" in lines
    assert "  window    32,000 tokens (context_window)" in lines
    assert "  call      possible" in lines
    assert (
        "  history   summary at 70% of the input, keeping 25%; old tool output pruned past"
        " 6,400 tokens once 3,200 can go (the provider caches prompt prefixes)"
    ) in lines
    assert "  map       up to 1,024 tokens (a 32k window)" in lines  # the first call's map cap
    compaction = lines[lines.index(next(x for x in lines if x.startswith("compaction"))) :]
    assert not any(x.startswith("  map ") for x in compaction)
    assert "  key       DEEPSEEK_API_KEY is NOT set (the provider's variable)" in compaction
    assert "  window    131,072 tokens (litellm's model map)" in compaction
    assert secret not in done.stdout
    report = json.loads(cairn(root, "models", "-w", str(root), "--json", env=clean_env()).stdout)
    assert [r["role"] for r in report] == ["main", "compaction", "explore"]
    assert report[0]["compaction"] == {
        "threshold": 0.7,
        "keepRecent": 0.25,
        "pruneProtect": 6_400,
        "pruneMinimum": 3_200,
        "promptCache": True,
    }
    assert report[1]["compaction"] is None
    assert (report[0]["repoMapTokens"], report[1]["repoMapTokens"]) == (1_024, None)
    assert report[0]["possible"] is False
    assert report[0]["problems"] == [
        f"{KEY_VARIABLE} is not set (api_key_env names it): export it with your openai API key"
    ]
    assert cairn(root, "models", "-w", str(root), env=clean_env()).returncode == 1


def test_models_without_any_model_exits_non_zero_with_the_example(tmp_path: Path) -> None:
    done = cairn(tmp_path, "models", "-w", str(tmp_path))
    assert done.returncode == 1
    assert done.stdout.splitlines()[0].split() == ["main", "(none)", "(model:", "default)"]
    assert "no model configured. Set `model` in cairn.toml" in done.stdout
