"""Provider faults over real HTTP: requests made and time to the error, Cairn vs the old path.

    .venv/bin/python -m bench.provider_retries [--write]

Each scenario runs against the local OpenAI-compatible server
(`tests/fakes/openai_server.py`) through litellm's `openai/` provider, with
real sleeps:

- Cairn: `ModelRuntime.complete` as it is now (litellm's and the SDK's own
  retries off, `model_retries` counted in requests);
- peer (same run): the retry loop Cairn had before, rebuilt here — up to
  `model_retries + 1` attempts with 1, 2, 4 … s backoff, each a litellm call
  with the SDK's default retries (2 per attempt).

litellm is imported (and one request made) before anything is timed.
Scenarios: a permanent HTTP 500 (`model_retries = 3`), a server that never
answers (`model_timeout_s = 2`, `model_retries = 1`), and a missing
`OPENAI_API_KEY` (`model_retries = 3`; the old path reported it as a server
error and retried it). Prints one row per scenario: requests and seconds
for each, and the ratio of seconds; `--write` records the run
(`bench/history/provider_retries.jsonl`, `bench/RESULTS.md`).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import time
from typing import Any

from tests.fakes.openai_server import OpenAIServer, Reply

from bench.harness.machine import current_machine
from bench.harness.records import Figure
from bench.harness.writer import record, this_run
from cairn.errors import ModelError
from cairn.llm import ModelRuntime
from cairn.llm.lazy import load_litellm
from cairn.llm.retry import backoff_delay
from cairn.settings import Settings

MESSAGES = [{"role": "user", "content": "hello"}]
HANG_S = 30.0
KEY_VARIABLE = "BENCH_FIXTURE_KEY"
# Below this a time ratio says nothing (the call failed before any request).
MIN_RATIO_S = 0.05


async def cairn_call(settings: Settings) -> float:
    runtime = ModelRuntime(settings)
    started = time.monotonic()
    with contextlib.suppress(ModelError):
        await runtime.complete(settings.model, MESSAGES, None)
    return time.monotonic() - started


async def peer_call(model: str, retries: int, **request: Any) -> float:
    """The old loop: attempts with backoff, each litellm call keeping the SDK's own retries."""
    litellm = load_litellm()
    started = time.monotonic()
    for attempt in range(1, retries + 2):
        try:
            stream = await litellm.acompletion(
                model=model, messages=MESSAGES, stream=True, **request
            )
            async for _ in stream:
                pass
            break
        except Exception:
            if attempt == retries + 1:
                break
            await asyncio.sleep(backoff_delay(attempt))
    return time.monotonic() - started


def row(name: str, cairn: tuple[int, float], peer: tuple[int, float]) -> str:
    ratio = f"{peer[1] / cairn[1]:.1f}x" if cairn[1] >= MIN_RATIO_S else "—"
    return (
        f"| {name} | {cairn[0]} requests, {cairn[1] * 1000:.0f} ms | {peer[0]} requests,"
        f" {peer[1]:.1f} s | {ratio} |"
    )


async def measured(server: OpenAIServer, call: Any) -> tuple[int, float]:
    before = len(server.requests)
    seconds = await call
    return len(server.requests) - before, seconds


def time_figure(scenario: str, cairn: tuple[int, float], peer: tuple[int, float]) -> Figure:
    """Seconds to the error, Cairn against the old loop."""
    return Figure(
        f"{scenario}: time to the error (lower is better)",
        round(cairn[1], 2),
        "s",
        round(peer[1], 2),
        "old retry loop, SDK retries on",
    )


async def main(write: bool) -> None:
    os.environ[KEY_VARIABLE] = "sk-bench"
    os.environ.pop("OPENAI_API_KEY", None)
    await asyncio.to_thread(load_litellm)  # import costs are not part of either side
    rows = [
        "| scenario | Cairn | peer (old loop, SDK retries on) | peer / Cairn time |",
        "| --- | --- | --- | --- |",
    ]
    with OpenAIServer(cache="none") as server:
        base = {"api_base": server.base_url, "api_key_env": KEY_VARIABLE, "context_window": 8000}
        await cairn_call(Settings(model="openai/bench", **base))  # warm the HTTP client path
        server.responder = lambda request: Reply.server_error()
        settings = Settings(model="openai/bench", model_retries=3, **base)
        cairn = await measured(server, cairn_call(settings))
        peer = await measured(
            server, peer_call("openai/bench", 3, api_base=server.base_url, api_key="sk-bench")
        )
        rows.append(row("permanent HTTP 500, model_retries = 3", cairn, peer))
        figures = [time_figure("permanent HTTP 500, model_retries = 3", cairn, peer)]
        server.responder = lambda request: Reply(hang_s=HANG_S)
        settings = Settings(model="openai/bench", model_retries=1, model_timeout_s=2, **base)
        cairn = await measured(server, cairn_call(settings))
        peer = await measured(
            server,
            peer_call("openai/bench", 1, api_base=server.base_url, api_key="sk-bench", timeout=2),
        )
        rows.append(row("no answer, model_timeout_s = 2, model_retries = 1", cairn, peer))
        figures.append(
            time_figure("no answer, model_timeout_s = 2, model_retries = 1", cairn, peer)
        )
    missing = Settings(model="openai/gpt-4o-mini", model_retries=3)
    cairn_s = await cairn_call(missing)
    peer_s = await peer_call("openai/gpt-4o-mini", 3)
    rows.append(row("OPENAI_API_KEY not set, model_retries = 3", (0, cairn_s), (0, peer_s)))
    text = "\n".join([f"machine: {current_machine().describe()}", "", *rows])
    print(text)
    if write:
        record(this_run("provider_retries", figures, text))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--write", action="store_true", help="record the run and regenerate bench/RESULTS.md"
    )
    asyncio.run(main(parser.parse_args().write))
