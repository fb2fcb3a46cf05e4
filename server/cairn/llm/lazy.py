"""Import litellm on first use only, configured to stay offline and silent.

Importing litellm costs ~3 s and ~200 MB, so nothing imports it at module
level: `load_litellm()` does it once, with the local model cost map (else it
downloads one), debug banners off, anything it writes to stdout sent to
stderr (stdout is the LSP channel), the warnings its import raises (pydantic
schema notices about litellm's own types) silenced, its loggers stripped of
their own handlers. `litellm_future()` runs that import in a daemon thread
(`prefetch_litellm()` starts it early, so a command that will call a real
provider overlaps it with its other work: the first call then waits only for
what is left of it).
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import os
import sys
import threading
import warnings
from concurrent.futures import Future
from types import ModuleType

LITELLM_LOGGER_NAMES = ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy")
# Work litellm defers to its first call and that warns (pydantic notices about litellm's
# own TypedDicts): a module import, and the first build of some pydantic models. Done up
# front, with the warnings silenced; best effort (internals of litellm 1.110).
LITELLM_LAZY_MODULES = ("litellm.llms.github_copilot.per_user_auth",)
LITELLM_LAZY_MODELS = (
    ("litellm.types.router", "GenericLiteLLMParams"),
    ("litellm.types.utils", "ModelResponse"),
    ("litellm.types.utils", "ModelResponseStream"),
)

_lock = threading.Lock()
_future_lock = threading.Lock()
_module: ModuleType | None = None
_future: Future[ModuleType] | None = None


def _silence_loggers() -> None:
    """Drop litellm's own handlers (one writes to stdout); records still propagate."""
    for name in LITELLM_LOGGER_NAMES:
        logger = logging.getLogger(name)
        for handler in list(logger.handlers):
            logger.removeHandler(handler)
        logger.addHandler(logging.NullHandler())
        logger.setLevel(logging.WARNING)


def _warm_up() -> None:
    """Do litellm's deferred first-call work now (inside the caller's silenced block)."""
    for name in LITELLM_LAZY_MODULES:
        with contextlib.suppress(ImportError):
            importlib.import_module(name)
    for module_name, model_name in LITELLM_LAZY_MODELS:
        with contextlib.suppress(Exception):
            getattr(importlib.import_module(module_name), model_name)()


def load_litellm() -> ModuleType:
    """The litellm module, imported and configured on the first call (thread-safe)."""
    global _module
    if _module is not None:
        return _module
    with _lock:
        if _module is None:
            os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
            with contextlib.redirect_stdout(sys.stderr), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                import litellm

                _warm_up()

                litellm.suppress_debug_info = True
                setattr(litellm, "set_verbose", False)  # noqa: B010 (not in litellm's stubs)
                _silence_loggers()
            _module = litellm
    return _module


def litellm_future() -> Future[ModuleType]:
    """`load_litellm` running in a daemon thread (started on the first call), as a future.

    Awaiting it (`asyncio.wrap_future`) never keeps the process alive: a cancelled
    caller or an exiting process does not wait for the import to finish, as it
    would for a thread of asyncio's default executor."""
    global _future
    with _future_lock:
        if _future is None:
            _future = Future()
            threading.Thread(
                target=_load_into, args=(_future,), name="cairn-litellm-import", daemon=True
            ).start()
        return _future


def _load_into(future: Future[ModuleType]) -> None:
    try:
        future.set_result(load_litellm())
    except BaseException as exc:
        future.set_exception(exc)


def prefetch_litellm() -> None:
    """Start importing litellm in the background; errors surface at the first real call."""
    litellm_future()


def is_loaded() -> bool:
    """Whether litellm has been imported through `load_litellm` yet."""
    return _module is not None
