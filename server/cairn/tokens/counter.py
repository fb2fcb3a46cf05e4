"""Token counting with the model's real tokenizer, offline, cached by content hash.

`count_tokens(text, model)` is what the budget, the manifest and the scripted
model's usage all use, so their numbers agree.

Offline tiktoken: tiktoken would download its BPE files on first use. litellm
ships them in `litellm/litellm_core_utils/tokenizers/`, named exactly as
tiktoken's cache names them (sha1 of the download URL). Before the first
`get_encoding` we point `TIKTOKEN_CACHE_DIR` there, finding the folder with
`cairn.tokens.model_info` without importing litellm (that import
costs seconds). A user-set `TIKTOKEN_CACHE_DIR` is respected.

Tokenizer per model family (provider prefixes like `openai/` are ignored):
`o200k_base` for gpt-4o, gpt-4.1, gpt-4.5, gpt-5, o1/o3/o4 and gpt-oss;
`cl100k_base` for gpt-4 and gpt-3.5 and OpenAI embeddings; DeepSeek's own
tokenizer for the DeepSeek chat/reasoner models (the `tokenizers` file litellm
ships, read directly: litellm's own counter is never used, so a count does
not depend on whether litellm happens to be imported — a dry run counts what
a real run counts). Every other family (Claude, Gemini, Llama, the scripted
model…) is approximated with `o200k_base`; those counts are *estimates*, and
the budget corrects them by the factor learned from the provider's reported
input usage (`cairn.tokens.calibration`). `tokenizer_for(model)` says which
tokenizer a model gets and whether it is the model's own.

Counts are cached by (encoding, xxhash of the text) in a bounded LRU, so an
unchanged block is never counted twice.
"""

from __future__ import annotations

import os
import re
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, TypeVar

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
# DeepSeek's own tokenizer, as litellm ships it inside its package (no download needed).
DEEPSEEK_TOKENIZER = "deepseek"
DEEPSEEK_TOKENIZER_FILE = "deepseek_tokenizer.json"
# The DeepSeek models that tokenizer is for (the same rule litellm's `token_counter` uses).
_DEEPSEEK_MODEL = re.compile(
    r"deepseek[-_.](?:chat[-_.])?v[34]|(?:^|/)deepseek-(?:chat|reasoner|flash)(?::free)?$",
    re.IGNORECASE,
)

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
T = TypeVar("T")
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


def _loaded_once(loaded: dict[str, T], name: str, load: Callable[[], T]) -> T:
    """`loaded[name]`, loaded by `load` the first time any thread asks for it."""
    found = loaded.get(name)
    if found is not None:
        return found
    with _lock:
        found = loaded.get(name)
        if found is None:
            found = loaded[name] = load()
    return found


def _load_encoding(name: str) -> _Encoding:
    configure_offline_cache()
    import tiktoken

    return tiktoken.get_encoding(name)


def get_encoding(name: str) -> _Encoding:
    """The tiktoken encoding `name`, loaded once per process (offline)."""
    return _loaded_once(_encodings, name, lambda: _load_encoding(name))


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


def _is_deepseek(model: str) -> bool:
    return _DEEPSEEK_MODEL.search(model) is not None


@dataclass(frozen=True)
class Tokenizer:
    """Which tokenizer counts a model's text: its name, and whether it is the model's own."""

    name: str
    exact: bool


def tokenizer_for(model: str) -> Tokenizer:
    """The tokenizer of `model` (see the module docstring for the families)."""
    if _is_deepseek(model) and deepseek_tokenizer_file() is not None:
        return Tokenizer(DEEPSEEK_TOKENIZER, exact=True)
    bare = _bare_model(model)
    exact = any(bare.startswith(prefix) for prefix, _name in _ENCODING_PREFIXES)
    return Tokenizer(encoding_name_for(model), exact=exact)


def deepseek_tokenizer_file() -> Path | None:
    """DeepSeek's tokenizer file as litellm ships it (found without importing litellm)."""
    folder = litellm_tokenizers_dir()
    if folder is None:
        return None
    path = folder / DEEPSEEK_TOKENIZER_FILE
    return path if path.is_file() else None


_hf_tokenizers: dict[str, Callable[[str], int]] = {}


def _deepseek_counter() -> Callable[[str], int]:
    """DeepSeek's tokenizer, loaded once per process (special tokens are not added)."""
    return _loaded_once(_hf_tokenizers, DEEPSEEK_TOKENIZER, _load_deepseek)


def _load_deepseek() -> Callable[[str], int]:
    from tokenizers import Tokenizer as HuggingFaceTokenizer

    path = deepseek_tokenizer_file()
    if path is None:
        raise FileNotFoundError(DEEPSEEK_TOKENIZER_FILE)
    loaded = HuggingFaceTokenizer.from_file(str(path))
    return lambda text: len(loaded.encode(text, add_special_tokens=False).ids)


class TokenCounter:
    """Counts tokens, remembering the last `capacity` counts by (tokenizer, content hash)."""

    def __init__(self, capacity: int = TOKEN_CACHE_SIZE) -> None:
        self.capacity = capacity
        self._cache: OrderedDict[tuple[str, str], int] = OrderedDict()
        self._lock = threading.Lock()

    def count(self, text: str, model: str) -> int:
        if not text:
            return 0
        tokenizer = tokenizer_for(model).name
        key = (tokenizer, xxhash.xxh3_128_hexdigest(text.encode("utf-8", "surrogatepass")))
        with self._lock:
            cached = self._cache.get(key)
            if cached is not None:
                self._cache.move_to_end(key)
                return cached
        value = self._encode_count(text, tokenizer)
        with self._lock:
            self._cache[key] = value
            if len(self._cache) > self.capacity:
                self._cache.popitem(last=False)
        return value

    @staticmethod
    def _encode_count(text: str, tokenizer: str) -> int:
        if tokenizer == DEEPSEEK_TOKENIZER:
            return _deepseek_counter()(text)
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
