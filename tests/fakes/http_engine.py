"""An engine whose models are served by the local OpenAI-compatible server, over real HTTP.

`http_engine(server, root, ...)` configures the engine the way a user would
for a local OpenAI-compatible server: `model = "openai/<name>"`, `api_base`
the server's URL, `api_key_env` naming the variable that holds the key (set
by the `key` fixture of the tests). Sleeps and the clock are a `FakeTime`,
so retry waits are asserted rather than waited.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cairn.agent.api import EngineListener
from cairn.agent.engine import Engine
from cairn.settings import Settings
from tests.fakes.openai_server import OpenAIServer, RecordedRequest
from tests.fakes.timing import FakeTime

MODEL_NAME = "fixture-model"
MODEL = f"openai/{MODEL_NAME}"
KEY_VARIABLE = "CAIRN_FIXTURE_KEY"
KEY_VALUE = "sk-fixture-0123"
# The fixture model is not in litellm's map: its window is configured, as a user would.
WINDOW = 32_000


def http_engine(
    server: OpenAIServer,
    root: Path,
    recorder: EngineListener | None = None,
    fake: FakeTime | None = None,
    **settings: Any,
) -> Engine:
    options: dict[str, Any] = {
        "model": MODEL,
        "api_base": server.base_url,
        "api_key_env": KEY_VARIABLE,
        "context_window": WINDOW,
        "max_output_tokens": 1_000,
        "safety_margin": 200,
        "allowed_commands": [],
        **settings,
    }
    return Engine(
        [root],
        Settings.model_validate(options),
        listener=recorder,
        timing=(fake or FakeTime()).timing(),
    )


def chat_requests(server: OpenAIServer, model: str = MODEL_NAME) -> list[RecordedRequest]:
    """The chat requests the server received for `model`, in order."""
    return [r for r in server.requests if r.model == model]
