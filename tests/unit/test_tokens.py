"""Token counting: offline tiktoken through litellm's bundled files, encodings, the count cache."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cairn.tokens import counter as tokens
from cairn.tokens.counter import CL100K, O200K, TokenCounter, count_tokens, encoding_name_for

TIKTOKEN_URL = "https://openaipublic.blob.core.windows.net/encodings/{}.tiktoken"

# Runs in a fresh interpreter with every socket connection refused: the encoding must
# load from litellm's folder, and litellm itself must not be imported.
OFFLINE_SCRIPT = """
import json, os, socket, sys

def refuse(*args, **kwargs):
    raise OSError("network disabled in this test")

socket.socket.connect = refuse
socket.create_connection = refuse
from cairn.tokens.counter import count_tokens
result = {
    "o200k": count_tokens("hello world, offline", "gpt-4o"),
    "cl100k": count_tokens("hello world, offline", "gpt-4"),
    "cache_dir": os.environ.get("TIKTOKEN_CACHE_DIR"),
    "litellm_imported": "litellm" in sys.modules,
}
print(json.dumps(result))
"""


def _offline_env(tmp_path: Path) -> dict[str, str]:
    env = {
        k: v for k, v in os.environ.items() if k not in ("TIKTOKEN_CACHE_DIR", "DATA_GYM_CACHE_DIR")
    }
    env["TMPDIR"] = str(tmp_path)  # tiktoken's default cache would be under here, and is empty
    return env


def test_litellm_ships_tiktoken_files_under_the_names_tiktoken_looks_up() -> None:
    folder = tokens.litellm_tokenizers_dir()
    assert folder is not None
    for name in (O200K, CL100K):
        cache_key = hashlib.sha1(TIKTOKEN_URL.format(name).encode()).hexdigest()
        assert (folder / cache_key).is_file(), name


def test_encoding_loads_offline_from_litellm_folder_without_importing_litellm(
    tmp_path: Path,
) -> None:
    done = subprocess.run(
        [sys.executable, "-c", OFFLINE_SCRIPT],
        env=_offline_env(tmp_path),
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["o200k"] > 0 and result["cl100k"] > 0
    assert result["cache_dir"] == str(tokens.litellm_tokenizers_dir())
    assert result["litellm_imported"] is False


def test_a_user_chosen_cache_dir_is_respected(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", "/somewhere/else")
    tokens.configure_offline_cache()
    assert os.environ["TIKTOKEN_CACHE_DIR"] == "/somewhere/else"


@pytest.mark.parametrize(
    ("model", "encoding"),
    [
        ("gpt-4o", O200K),
        ("openai/gpt-4o-mini", O200K),
        ("azure/gpt-4.1", O200K),
        ("gpt-5-mini", O200K),
        ("o3-mini", O200K),
        ("gpt-4", CL100K),
        ("gpt-4-turbo", CL100K),
        ("openai/gpt-3.5-turbo", CL100K),
        ("anthropic/claude-sonnet-4-5", O200K),
        ("scripted/script.jsonl", O200K),
    ],
)
def test_encoding_per_model_family(model: str, encoding: str) -> None:
    assert encoding_name_for(model) == encoding


def test_special_token_text_is_counted_as_ordinary_text() -> None:
    assert count_tokens("x = '<|endoftext|>'", "gpt-4o") > 3


def test_o200k_and_cl100k_counts_are_the_real_tokenizers() -> None:
    # Known counts of these encodings for a fixed text.
    text = "Hello, world! The quick brown fox."
    assert count_tokens(text, "gpt-4o") == len(tokens.get_encoding(O200K).encode_ordinary(text))
    assert count_tokens(text, "gpt-4") == len(tokens.get_encoding(CL100K).encode_ordinary(text))
    assert count_tokens("", "gpt-4o") == 0


class _SpyEncoding:
    def __init__(self) -> None:
        self.calls = 0

    def encode_ordinary(self, text: str) -> list[int]:
        self.calls += 1
        return list(range(len(text.split())))


def test_unchanged_text_is_never_encoded_twice(monkeypatch: pytest.MonkeyPatch) -> None:
    spy = _SpyEncoding()
    monkeypatch.setattr(tokens, "get_encoding", lambda name: spy)
    counter = TokenCounter()
    assert counter.count("one two three", "gpt-4o") == 3
    assert counter.count("one two three", "gpt-4o") == 3
    assert spy.calls == 1
    counter.count("one two three", "gpt-4")  # another encoding is another count
    assert spy.calls == 2


def test_cache_is_bounded_and_evicts_least_recently_used(monkeypatch: pytest.MonkeyPatch) -> None:
    spy = _SpyEncoding()
    monkeypatch.setattr(tokens, "get_encoding", lambda name: spy)
    counter = TokenCounter(capacity=2)
    counter.count("a", "gpt-4o")
    counter.count("b", "gpt-4o")
    counter.count("a", "gpt-4o")  # refreshes "a"
    counter.count("c", "gpt-4o")  # evicts "b"
    assert len(counter) == 2
    calls = spy.calls
    counter.count("a", "gpt-4o")
    assert spy.calls == calls
    counter.count("b", "gpt-4o")
    assert spy.calls == calls + 1


# Counts a text for several models in a fresh interpreter, before and after importing
# litellm (and its `litellm.utils`, whose tokenizer table the old counter consulted).
SAME_COUNT_SCRIPT = """
import json, sys
from cairn.tokens.counter import DEFAULT_COUNTER, count_tokens, tokenizer_for
text = sys.stdin.read()
models = json.loads(sys.argv[1])
before = {m: count_tokens(text, m) for m in models}
import litellm, litellm.utils  # noqa: F401
DEFAULT_COUNTER.clear()
after = {m: count_tokens(text, m) for m in models}
print(json.dumps({"before": before, "after": after,
                  "tokenizers": {m: tokenizer_for(m).name for m in models}}))
"""
SAME_COUNT_MODELS = ("deepseek/deepseek-chat", "anthropic/claude-sonnet-4-5", "gpt-4o")


def test_a_count_does_not_depend_on_whether_litellm_is_imported() -> None:
    """A dry run (no litellm) and a real run (litellm loaded) count the same tokens; DeepSeek
    models get DeepSeek's own tokenizer in both."""
    text = Path(tokens.__file__).read_text(encoding="utf-8")
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    done = subprocess.run(
        [sys.executable, "-c", SAME_COUNT_SCRIPT, json.dumps(SAME_COUNT_MODELS)],
        input=text,
        capture_output=True,
        text=True,
        check=True,
        env=env,
        timeout=300,
    )
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["before"] == result["after"]
    assert result["tokenizers"]["deepseek/deepseek-chat"] == tokens.DEEPSEEK_TOKENIZER
    o200k = len(tokens.get_encoding(O200K).encode_ordinary(text))
    assert result["before"]["deepseek/deepseek-chat"] != o200k  # its own tokenizer, not o200k
    assert result["before"]["anthropic/claude-sonnet-4-5"] == o200k


def test_approximated_families_are_marked_as_estimates() -> None:
    assert tokens.tokenizer_for("anthropic/claude-sonnet-4-5") == tokens.Tokenizer(O200K, False)
    assert tokens.tokenizer_for("gemini/gemini-2.5-pro").exact is False
    assert tokens.tokenizer_for("openai/gpt-4o") == tokens.Tokenizer(O200K, True)
    assert tokens.tokenizer_for("gpt-4") == tokens.Tokenizer(CL100K, True)
    assert tokens.tokenizer_for("deepseek/deepseek-reasoner").exact is True
