"""Aider, the peer of the repository-map benchmarks: its venv, its scratch HOME and the
environment it runs in (litellm's model map read from HOME, no analytics, no update
check, no Hugging Face download), shared by `bench.localize` and `bench.repomap_vs_aider`."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from bench.harness.paths import WORK

AIDER_VERSION = "0.86.2"
AIDER_VENV = WORK / "aider-venv"
AIDER_PYTHON = AIDER_VENV / "bin" / "python"
AIDER_HOME = WORK / "home"
MODEL_MAP = "lib/python*/site-packages/litellm/model_prices_and_context_window_backup.json"


def install_aider() -> Path:
    """Aider's python: its venv (created when missing) and its scratch HOME holding
    litellm's model map, so that Aider reads nothing from the network."""
    if not AIDER_PYTHON.exists():
        WORK.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "venv", str(AIDER_VENV)], check=True)
        subprocess.run(
            [str(AIDER_PYTHON), "-m", "pip", "install", "-q", f"aider-chat=={AIDER_VERSION}"],
            check=True,
        )
    caches = AIDER_HOME / ".aider" / "caches"
    caches.mkdir(parents=True, exist_ok=True)
    model_map = next(AIDER_VENV.glob(MODEL_MAP))
    shutil.copy(model_map, caches / "model_prices_and_context_window.json")
    return AIDER_PYTHON


def aider_env() -> dict[str, str]:
    """The environment Aider runs in."""
    env = dict(os.environ)
    env.update(
        HOME=str(AIDER_HOME),
        LITELLM_LOCAL_MODEL_COST_MAP="True",
        AIDER_ANALYTICS="false",
        AIDER_CHECK_UPDATE="false",
        HF_HUB_OFFLINE="1",
    )
    return env
