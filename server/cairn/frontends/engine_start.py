"""Starting, warming and closing engines: the steps both front ends' engine hosts share.

The engine module (and, when the model is known, its tokenizer) is loaded on
a worker thread, so the connection keeps answering meanwhile
(`load_engine_module`). A built engine
is warmed on one too (file listing, repository-map index: `warm`); a warm-up
that fails is logged and left to the first context build, and one cancelled
(the front end is shutting down) closes the engine it was warming, waiting
for its MCP servers, since nobody else holds it yet. `close_engines` /
`aclose_engines` stop a host's engines for good, logging any that fail.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the core is loaded after the first answer
    from cairn.agent.api import EngineApi

logger = logging.getLogger(__name__)

ENGINE_MODULE = "cairn.agent.engine"
TOKENS_MODULE = "cairn.tokens.counter"
WARM_UP_TEXT = "cairn"


def load_engine_module(model: str | None = None) -> object:
    """Import the engine module and, given a `model` ("" for the default), load its
    tokenizer (~1.5 s of work: call it on a worker thread, or it stalls the first requests
    on the event loop)."""
    module = importlib.import_module(ENGINE_MODULE)
    if model is None:
        return module
    try:
        importlib.import_module(TOKENS_MODULE).count_tokens(WARM_UP_TEXT, model or "")
    except Exception:
        logger.warning("tokenizer warm-up failed", exc_info=True)
    return module


async def warm(engine: EngineApi, where: str) -> None:
    """Warm `engine` on a thread; cancelled: close it (waiting) and re-raise."""
    try:
        await asyncio.to_thread(engine.warm)
    except asyncio.CancelledError:
        await engine.aclose()  # shut down while warming: nobody else will close it
        raise
    except Exception:
        logger.exception("warming the engine of %s failed (the first context build does it)", where)


async def aclose_engines(engines: Iterable[EngineApi]) -> None:
    """Stop each engine's MCP servers, waiting until they are gone (bounded by the engine)."""
    for engine in engines:
        try:
            await engine.aclose()
        except Exception:
            logger.exception("closing an engine failed")


def close_engines(engines: Iterable[EngineApi]) -> None:
    """`aclose_engines` without waiting (the MCP servers are only asked to stop)."""
    for engine in engines:
        try:
            engine.close()
        except Exception:
            logger.exception("closing an engine failed")
