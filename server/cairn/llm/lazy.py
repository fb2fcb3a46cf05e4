"""Import litellm on first use only, configured to stay offline and silent.

Importing litellm costs ~3 s and ~200 MB, so nothing imports it at module
level: `load_litellm()` does it once, with the local model cost map (else it
downloads one), debug banners off, anything it writes to stdout sent to
stderr (stdout is the LSP channel), the warnings its import raises (pydantic
schema notices about litellm's own types) silenced, its loggers stripped of
their own handlers. `prefetch_litellm()` starts that import in a daemon thread,
so a command that will call a real provider overlaps it with its other work
(the first call then waits only for what is left of it).
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import os
import sys
import threading
import warnings
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
_module: ModuleType | None = None
_prefetch: threading.Thread | None = None


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


def prefetch_litellm() -> None:
    """Start `load_litellm` in a daemon thread (once); errors surface at the first real call."""
    global _prefetch
    with _lock:
        if _module is not None or _prefetch is not None:
            return
        _prefetch = threading.Thread(target=_quiet_load, name="cairn-litellm-import", daemon=True)
        _prefetch.start()


def _quiet_load() -> None:
    with contextlib.suppress(Exception):
        load_litellm()


def is_loaded() -> bool:
    """Whether litellm has been imported through `load_litellm` yet."""
    return _module is not None
