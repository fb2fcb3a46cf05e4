"""Secret values in text that leaves the machine: found by detect-secrets, replaced by a marker.

`Redactor.redact(text)` returns the text with every high-confidence secret
value replaced by `[redacted: <kind>]` and how many of each kind it
replaced (never the values). Detection is detect-secrets' (Yelp, offline:
no plugin's network verification is ever called), restricted to the
plugins in `DETECTORS` — the ones that recognise a value by a fixed prefix
or a key's structure (cloud keys, private keys, service tokens). Keyword,
entropy and IP-address plugins are left out: in ordinary code they flag
hashes, fixtures and identifiers, and a redacted line the model copies back
would corrupt the user's file.

What is replaced (a value's *span*; detect-secrets only reports values;
the spans of a match are `cairn.files.secret_spans`'):

- each match of a plugin's patterns, confirmed by the plugin itself on the
  matched text (its own validation, e.g. a JWT's parts must decode); the
  value group when the pattern captures one (`VALUE_GROUP_MIN_CHARS`), else
  the whole match, widened over the token's adjacent characters (a JWT's
  signature, the rest of a token a pattern matched only the start of);
- a private key's header widened to its whole PEM block, through its `END`
  line (or over the base64 body of a truncated key), and only when the
  block has a key's body: a lone header in code that parses PEM files is
  not a secret;
- every match of the user's extra patterns (setting `secret_value_patterns`,
  which a workspace's `cairn.toml` may add to): they run under the `regex`
  package with the GIL released and `USER_PATTERN_TIMEOUT_S` per text, and a
  text a pattern cannot be checked against in that time is replaced whole
  (kind `TIMEOUT_KIND`: shown nowhere unchecked, and not remembered as a
  value), so a backtracking pattern costs one bounded scan per text instead
  of freezing every build;
- every later occurrence of a value found once, even without the context a
  plugin needs (an AWS secret key is only recognised next to its variable
  name, then also when the model or a command echoes it bare): found values
  of at least `KNOWN_VALUE_MIN_CHARS` are remembered in memory (at most
  `KNOWN_VALUES_MAX`, never written anywhere), and `generation` counts how
  often a new one was learnt, so a caller can redo what it redacted before
  (a cached text from an older generation is only searched for the values
  learnt since, not scanned again).

A value the user exempts (setting `redaction_exemptions`: the exact value,
or a regular expression matching all of it) is kept. Results are cached by
content hash (`CACHE_MAX_ENTRIES`), so a block seen on every call of a
session is scanned once; a caller that already has a hash of a whole block
(its version) can record it as clean and skip even the hashing.
"""

from __future__ import annotations

import json
import re
import threading
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import regex
from detect_secrets.plugins.aws import AWSKeyDetector
from detect_secrets.plugins.azure_storage_key import AzureStorageKeyDetector
from detect_secrets.plugins.base import RegexBasedDetector
from detect_secrets.plugins.discord import DiscordBotTokenDetector
from detect_secrets.plugins.github_token import GitHubTokenDetector
from detect_secrets.plugins.gitlab_token import GitLabTokenDetector
from detect_secrets.plugins.jwt import JwtTokenDetector
from detect_secrets.plugins.mailchimp import MailchimpDetector
from detect_secrets.plugins.npm import NpmDetector
from detect_secrets.plugins.openai import OpenAIDetector
from detect_secrets.plugins.private_key import PrivateKeyDetector
from detect_secrets.plugins.pypi_token import PypiTokenDetector
from detect_secrets.plugins.sendgrid import SendGridDetector
from detect_secrets.plugins.slack import SlackDetector
from detect_secrets.plugins.square_oauth import SquareOAuthDetector
from detect_secrets.plugins.stripe import StripeDetector
from detect_secrets.plugins.twilio import TwilioKeyDetector

from cairn.files.secret_spans import Span, pem_span, value_span, widen
from cairn.files.text import content_hash

# The detect-secrets plugins used: each recognises a value by its prefix or structure.
DETECTORS: tuple[type[RegexBasedDetector], ...] = (
    AWSKeyDetector,
    AzureStorageKeyDetector,
    DiscordBotTokenDetector,
    GitHubTokenDetector,
    GitLabTokenDetector,
    JwtTokenDetector,
    MailchimpDetector,
    NpmDetector,
    OpenAIDetector,
    PrivateKeyDetector,
    PypiTokenDetector,
    SendGridDetector,
    SlackDetector,
    SquareOAuthDetector,
    StripeDetector,
    TwilioKeyDetector,
)
MARKER = "[redacted: {kind}]"
CUSTOM_KIND = "custom pattern"
# A text a custom pattern could not be checked against within `USER_PATTERN_TIMEOUT_S`.
TIMEOUT_KIND = "custom pattern too slow: simplify it"
USER_PATTERN_TIMEOUT_S = 2.0
# Texts remembered (by content hash) with their redaction, most recently used kept.
CACHE_MAX_ENTRIES = 4096
# Found values remembered to redact their bare repetitions (shorter ones are too common).
KNOWN_VALUE_MIN_CHARS = 16
KNOWN_VALUES_MAX = 1024


@dataclass(frozen=True, slots=True)
class Redaction:
    """A text after redaction and how many values of each kind were replaced."""

    text: str
    counts: dict[str, int] = field(default_factory=dict)

    @property
    def changed(self) -> bool:
        return bool(self.counts)


def _confirmed(plugin: RegexBasedDetector, matched: str) -> bool:
    """The plugin itself reports a value in the matched text (its own validation applied)."""
    return any(True for _ in plugin.analyze_string(matched))


def _plugin_spans(plugin: RegexBasedDetector, text: str) -> Iterator[Span]:
    kind = str(plugin.secret_type)
    for denied in plugin.denylist:
        for match in denied.finditer(text):
            if not _confirmed(plugin, match.group(0)):
                continue
            if isinstance(plugin, PrivateKeyDetector):
                span = pem_span(text, match)
                if span is not None:
                    yield Span(span[0], span[1], kind)
                continue
            start, end = widen(text, *value_span(match))
            yield Span(start, end, kind)


def _merged(spans: list[Span]) -> list[Span]:
    """Spans sorted and overlapping ones joined (the earlier one's kind kept)."""
    out: list[Span] = []
    for span in sorted(spans, key=lambda s: (s.start, -s.end)):
        if out and span.start < out[-1].end:
            last = out[-1]
            out[-1] = Span(last.start, max(last.end, span.end), last.kind)
        else:
            out.append(span)
    return out


def _replaced(text: str, spans: list[Span], counts: dict[str, int]) -> Redaction:
    """`text` with each span replaced by its marker; `counts` plus the spans' kinds."""
    if not spans:
        return Redaction(text, counts)
    pieces: list[str] = []
    total = dict(counts)
    position = 0
    for span in spans:
        pieces += [text[position : span.start], MARKER.format(kind=span.kind)]
        total[span.kind] = total.get(span.kind, 0) + 1
        position = span.end
    pieces.append(text[position:])
    return Redaction("".join(pieces), total)


def compile_value_patterns(patterns: Sequence[str], origin: str) -> list[regex.Pattern[str]]:
    """User regular expressions; `ValueError` naming `origin` and the bad pattern."""
    compiled: list[regex.Pattern[str]] = []
    for pattern in patterns:
        try:
            compiled.append(regex.compile(pattern, flags=regex.VERSION0))
        except regex.error as error:
            raise ValueError(f"{origin}: invalid regular expression {pattern!r}: {error}") from None
    return compiled


def custom_spans(pattern: regex.Pattern[str], text: str) -> list[Span]:
    """The matches of a user's pattern, or all of `text` when they take too long to find."""
    try:
        found = pattern.finditer(text, concurrent=True, timeout=USER_PATTERN_TIMEOUT_S)
        return [Span(m.start(), m.end(), CUSTOM_KIND) for m in found]
    except TimeoutError:
        return [Span(0, len(text), TIMEOUT_KIND)]


def _lenient_patterns(entries: Sequence[str]) -> list[re.Pattern[str]]:
    """The entries that are valid regular expressions (the others only match exactly)."""
    compiled: list[re.Pattern[str]] = []
    for entry in entries:
        try:
            compiled.append(re.compile(entry))
        except re.error:
            continue
    return compiled


class Redactor:
    """Finds and replaces secret values (see the module docstring); safe to share by threads."""

    def __init__(
        self,
        *,
        exempt: Sequence[str] = (),
        patterns: Sequence[str] = (),
        enabled: bool = True,
    ) -> None:
        self.enabled = enabled
        self._plugins = [detector() for detector in DETECTORS]
        self._exempt_values = frozenset(exempt)
        self._exempt = _lenient_patterns(exempt)
        self._patterns = compile_value_patterns(patterns, "secret_value_patterns")
        # content hash → (generation scanned at, the redaction or None when clean)
        self._cache: OrderedDict[str, tuple[int, Redaction | None]] = OrderedDict()
        self._clean: OrderedDict[str, None] = OrderedDict()
        self._known: OrderedDict[str, str] = OrderedDict()  # value → kind
        self._known_pattern: re.Pattern[str] | None = None
        self._lock = threading.Lock()
        # Incremented whenever a new value is learnt (earlier clean results may be stale).
        self.generation = 0

    def known_clean(self, key: str) -> bool:
        """True when a content `key` (a block version) was `remember_clean`ed: nothing to redact."""
        with self._lock:
            if key in self._clean:
                self._clean.move_to_end(key)
                return True
        return False

    def remember_clean(self, key: str) -> None:
        """Record that the content of `key` holds no secret value (a caller's own hash)."""
        with self._lock:
            self._clean[key] = None
            while len(self._clean) > CACHE_MAX_ENTRIES:
                self._clean.popitem(last=False)

    def _exempted(self, value: str) -> bool:
        return value in self._exempt_values or any(p.fullmatch(value) for p in self._exempt)

    def spans(self, text: str) -> list[Span]:
        """Where the secret values of `text` are (merged, exemptions applied)."""
        found = [span for plugin in self._plugins for span in _plugin_spans(plugin, text)]
        for pattern in self._patterns:
            found += custom_spans(pattern, text)
        kept = [s for s in found if s.end > s.start and not self._exempted(text[s.start : s.end])]
        self._learn(text, kept)
        return _merged(kept + self._known_spans(text))

    def _learn(self, text: str, spans: list[Span]) -> None:
        """Remember the values found, for their bare repetitions; a new one bumps `generation`."""
        new = False
        with self._lock:
            for span in spans:
                value = text[span.start : span.end]
                if span.kind == TIMEOUT_KIND or len(value) < KNOWN_VALUE_MIN_CHARS:
                    continue
                if value in self._known:
                    continue
                self._known[value] = span.kind
                new = True
                while len(self._known) > KNOWN_VALUES_MAX:
                    self._known.popitem(last=False)
            if new:
                self._known_pattern = re.compile(
                    "|".join(re.escape(v) for v in sorted(self._known, key=len, reverse=True))
                )
                self._clean.clear()  # cached texts are looked at again for the new value
                self.generation += 1

    def _known_spans(self, text: str) -> list[Span]:
        with self._lock:
            pattern, known = self._known_pattern, dict(self._known)
        if pattern is None:
            return []
        return [Span(m.start(), m.end(), known[m.group(0)]) for m in pattern.finditer(text)]

    def redact(self, text: str) -> Redaction:
        """`text` with its secret values replaced (unchanged, with no counts, when it has none)."""
        if not self.enabled or not text:
            return Redaction(text)
        key = content_hash(text)
        with self._lock:
            entry = self._cache.get(key)
            if entry is not None:
                self._cache.move_to_end(key)
        if entry is None:
            result = self._scan(text)
        else:
            generation, cached = entry
            result = cached if cached is not None else Redaction(text)
            if generation == self.generation:
                return result
            result = self._with_known(result)  # values learnt since: only they are looked for
        with self._lock:
            self._cache[key] = (self.generation, result if result.changed else None)
            while len(self._cache) > CACHE_MAX_ENTRIES:
                self._cache.popitem(last=False)
        return result

    def _scan(self, text: str) -> Redaction:
        return _replaced(text, self.spans(text), {})

    def _with_known(self, done: Redaction) -> Redaction:
        """A redaction with the bare repetitions of the values learnt since also replaced."""
        return _replaced(done.text, _merged(self._known_spans(done.text)), done.counts)

    def redact_json(self, encoded: str) -> Redaction:
        """A JSON document (tool-call arguments) with the secret values in its strings replaced.

        Redacting the decoded strings keeps the document valid JSON; text that is
        not JSON is redacted as it is.
        """
        quick = self.redact(encoded)
        if not quick.changed:
            return quick
        try:
            decoded = json.loads(encoded)
        except ValueError:
            return quick
        counts: dict[str, int] = {}
        cleaned = self._redact_value(decoded, counts)
        if not counts:  # found only across the JSON syntax: keep the plain redaction
            return quick
        return Redaction(json.dumps(cleaned, ensure_ascii=False), counts)

    def _redact_value(self, value: Any, counts: dict[str, int]) -> Any:
        if isinstance(value, str):
            result = self.redact(value)
            add_counts(counts, result.counts)
            return result.text
        if isinstance(value, list):
            return [self._redact_value(item, counts) for item in value]
        if isinstance(value, dict):
            return {k: self._redact_value(v, counts) for k, v in value.items()}
        return value


def add_counts(total: dict[str, int], more: dict[str, int]) -> None:
    """Add `more`'s counts per kind into `total`."""
    for kind, n in more.items():
        total[kind] = total.get(kind, 0) + n
