"""Token counting with the model's real tokenizer, offline, cached by content hash.

`count_tokens(text, model)` is what the budget, the manifest and the scripted
model's usage all use, so their numbers agree.

Offline tiktoken: tiktoken would download its BPE files on first use. litellm
ships them in `litellm/litellm_core_utils/tokenizers/`, named exactly as
tiktoken's cache names them (sha1 of the download URL). Before the first
`get_encoding` we point `TIKTOKEN_CACHE_DIR` there, finding the folder with
`cairn.tokens.model_info` without importing litellm (that import
costs seconds). A user-set `TIKTOKEN_CACHE_DIR` is respected.

Encoding per model family (provider prefixes like `openai/` are ignored):
`o200k_base` for gpt-4o, gpt-4.1, gpt-4.5, gpt-5, o1/o3/o4 and gpt-oss;
`cl100k_base` for gpt-4 and gpt-3.5 and OpenAI embeddings. Every other family
(Claude, Gemini, Llama, the scripted model…) is approximated with
`o200k_base`: real tokenizers disagree with it by up to ~8%, which the
safety margin absorbs. When litellm is already imported and bundles the
family's own tokenizer (older Claude, DeepSeek), `litellm.token_counter` is
used instead.

Counts are cached by (encoding, xxhash of the text) in a bounded LRU, so an
unchanged block is never counted twice.
"""

from __future__ import annotations

import os
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

import xxhash

from cairn.tokens.model_info import litellm_package_dir

O200K = "o200k_base"
CL100K = "cl100k_base"
# The approximation used for families without a known tiktoken encoding.
FALLBACK_ENCODING = O200K
# How many distinct (encoding, content) counts are remembered.
TOKEN_CACHE_SIZE = 16_384
# Where litellm keeps tiktoken's BPE files, relative to the litellm package folder.
LITELLM_TOKENIZERS_SUBDIR = ("litellm_core_utils", "tokenizers")
# litellm tokenizer kinds it ships inside the package (no download needed).
LITELLM_BUNDLED_KINDS = frozenset({"anthropic", "deepseek"})

# Model-name prefixes (after the provider prefix) and their tiktoken encodings; first match wins.
_ENCODING_PREFIXES: tuple[tuple[str, str], ...] = (
    ("ft:gpt-4o", O200K),
    ("chatgpt-4o", O200K),
    ("gpt-4o", O200K),
    ("gpt-4.1", O200K),
    ("gpt-4.5", O200K),
    ("gpt-5", O200K),
    ("gpt-oss", O200K),
    ("o1", O200K),
    ("o3", O200K),
    ("o4", O200K),
    ("ft:gpt-4", CL100K),
    ("ft:gpt-3.5", CL100K),
    ("gpt-4", CL100K),
    ("gpt-3.5", CL100K),
    ("gpt-35", CL100K),
    ("text-embedding", CL100K),
)


class _Encoding(Protocol):
    def encode_ordinary(self, text: str) -> list[int]: ...


_lock = threading.Lock()
_encodings: dict[str, _Encoding] = {}


def litellm_tokenizers_dir() -> Path | None:
    """litellm's bundled tokenizer folder, located without importing litellm."""
    package = litellm_package_dir()
    if package is None:
        return None
    folder = package.joinpath(*LITELLM_TOKENIZERS_SUBDIR)
    return folder if folder.is_dir() else None


def configure_offline_cache() -> None:
    """Point tiktoken's cache at litellm's bundled files unless the user chose a folder."""
    if os.environ.get("TIKTOKEN_CACHE_DIR"):
        return
    folder = litellm_tokenizers_dir()
    if folder is not None:
        os.environ["TIKTOKEN_CACHE_DIR"] = str(folder)


def get_encoding(name: str) -> _Encoding:
    """The tiktoken encoding `name`, loaded once per process (offline)."""
    encoding = _encodings.get(name)
    if encoding is not None:
        return encoding
    with _lock:
        encoding = _encodings.get(name)
        if encoding is None:
            configure_offline_cache()
            import tiktoken

            encoding = tiktoken.get_encoding(name)
            _encodings[name] = encoding
    return encoding


def _bare_model(model: str) -> str:
    """`openai/gpt-4o` → `gpt-4o` (provider prefixes do not change the tokenizer)."""
    return model.rsplit("/", 1)[-1].lower()


def encoding_name_for(model: str) -> str:
    """The tiktoken encoding used for `model` (see the module docstring for the families)."""
    bare = _bare_model(model)
    for prefix, name in _ENCODING_PREFIXES:
        if bare.startswith(prefix):
            return name
    return FALLBACK_ENCODING


def _litellm_counter(model: str) -> Callable[[str], int] | None:
    """litellm's own counter for families whose tokenizer litellm bundles, if litellm is loaded."""
    litellm = sys.modules.get("litellm")
    utils = sys.modules.get("litellm.utils")
    if litellm is None or utils is None:
        return None
    kind_of = getattr(utils, "huggingface_tokenizer_kind", None)
    counter = getattr(litellm, "token_counter", None)
    if kind_of is None or counter is None:
        return None
    try:
        kind = kind_of(model)
    except Exception:
        return None
    if kind not in LITELLM_BUNDLED_KINDS:
        return None
    return lambda text: int(counter(model=model, text=text))


# Tokenizer choices made once litellm is loaded (they cannot change after that).
_resolved: dict[str, tuple[str, Callable[[str], int] | None]] = {}


def _tokenizer_for(model: str) -> tuple[str, Callable[[str], int] | None]:
    """(cache key of the tokenizer, litellm counter or None to use tiktoken)."""
    known = _resolved.get(model)
    if known is not None:
        return known
    litellm_count = _litellm_counter(model)
    choice = (
        (f"litellm:{_bare_model(model)}", litellm_count)
        if litellm_count is not None
        else (encoding_name_for(model), None)
    )
    if "litellm.utils" in sys.modules:
        _resolved[model] = choice
    return choice


class TokenCounter:
    """Counts tokens, remembering the last `capacity` counts by (tokenizer, content hash)."""

    def __init__(self, capacity: int = TOKEN_CACHE_SIZE) -> None:
        self.capacity = capacity
        self._cache: OrderedDict[tuple[str, str], int] = OrderedDict()
        self._lock = threading.Lock()

    def count(self, text: str, model: str) -> int:
        if not text:
            return 0
        tokenizer, litellm_count = _tokenizer_for(model)
        key = (tokenizer, xxhash.xxh3_128_hexdigest(text.encode("utf-8", "surrogatepass")))
        with self._lock:
            cached = self._cache.get(key)
            if cached is not None:
                self._cache.move_to_end(key)
                return cached
        value = self._encode_count(text, tokenizer, litellm_count)
        with self._lock:
            self._cache[key] = value
            if len(self._cache) > self.capacity:
                self._cache.popitem(last=False)
        return value

    def _encode_count(
        self, text: str, tokenizer: str, litellm_count: Callable[[str], int] | None
    ) -> int:
        if litellm_count is not None:
            try:
                return litellm_count(text)
            except Exception:
                tokenizer = FALLBACK_ENCODING
        return len(get_encoding(tokenizer).encode_ordinary(text))

    def clear(self) -> None:
        with self._lock:
            self._cache.clear()

    def __len__(self) -> int:
        return len(self._cache)


DEFAULT_COUNTER = TokenCounter()


def count_tokens(text: str, model: str) -> int:
    """Tokens of `text` for `model` (special-token text is counted as ordinary text)."""
    return DEFAULT_COUNTER.count(text, model)


def counter_for(model: str) -> Callable[[str], int]:
    """A one-argument counting function for `model`, for collaborators that take `count`."""
    return lambda text: count_tokens(text, model)
