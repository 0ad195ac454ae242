"""Marking, redacting or pseudonymising the personal data `pii.find` finds.

A pseudonym is `[TYPE:token]`, the token the first 12 hex digits of an HMAC-SHA256,
under the key in the environment, of the type and the normalised value: the same
address gives the same token in every document, every worker and every run with that
key, and no token can be turned back into its value without the key.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from indexer._types import Hygiene
from indexer.hygiene.pii import Found, find

MAIL_FIELDS = ("from", "to", "subject", "author", "title", "description")
"""The string fields of a document's metadata (and of a chunk's `meta.mail`) scrubbed
under `redact` and `pseudonymise`: where a mail's addresses are written outside its text."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Scrubber:
    """Finds personal data in texts and, unless it only marks, replaces it."""

    mode: str
    key: bytes

    @property
    def replaces(self) -> bool:
        """Whether texts are rewritten (`redact`, `pseudonymise`)."""
        return self.mode in ("redact", "pseudonymise")

    def text(self, text: str) -> tuple[str, str]:
        """Return `text` as it is written, and its `meta.pii`: `type:start-end` spans,
        space-separated, in the returned text's code-point offsets (`""` for none)."""
        found = find(text)
        if not found:
            return text, ""
        if not self.replaces:
            return text, " ".join(f"{f.kind}:{f.start}-{f.end}" for f in found)
        parts: list[str] = []
        spans: list[str] = []
        at = length = 0
        for f in found:
            parts.append(text[at : f.start])
            length += f.start - at
            token = self._token(f)
            spans.append(f"{f.kind}:{length}-{length + len(token)}")
            parts.append(token)
            length += len(token)
            at = f.end
        parts.append(text[at:])
        return "".join(parts), " ".join(spans)

    def metadata(self, found: Mapping[str, Any]) -> dict[str, Any]:
        """`found` with its `MAIL_FIELDS` strings (and lists of strings) scrubbed."""
        out = dict(found)
        for key in MAIL_FIELDS:
            value = out.get(key)
            if isinstance(value, str):
                out[key] = self.text(value)[0]
            elif isinstance(value, list | tuple):
                out[key] = [self.text(v)[0] if isinstance(v, str) else v for v in value]
        return out

    def _token(self, found: Found) -> str:
        kind = found.kind.upper()
        if self.mode == "redact":
            return f"[{kind}]"
        mac = hmac.new(self.key, f"{found.kind}:{found.value}".encode(), hashlib.sha256)
        return f"[{kind}:{mac.hexdigest()[:12]}]"


def scrubber(settings: Hygiene) -> Scrubber | None:
    """The scrubber `settings` ask for, None for `pii = "off"`. Raises `KeyError`
    naming the variable when `pseudonymise` finds it unset or empty."""
    if settings.pii == "off":
        return None
    key = _key(settings.pii_key_env) if settings.pii == "pseudonymise" else b""
    return _scrubber(settings.pii, key)


@functools.cache
def _scrubber(mode: str, key: bytes) -> Scrubber:
    return Scrubber(mode=mode, key=key)


def _key(variable: str) -> bytes:
    value = os.environ.get(variable, "")
    if not value:
        raise KeyError(f"{variable} is unset: [hygiene] pii = 'pseudonymise' needs a key")
    return value.encode()


def key_fingerprint(settings: Hygiene) -> str:
    """A hash naming the key `settings` pseudonymise with (`""` when they do not), for
    the cache keys: a new key re-renders every document, and the key is never written."""
    if settings.pii != "pseudonymise":
        return ""
    return hmac.new(_key(settings.pii_key_env), b"indexer-pii-key", hashlib.sha256).hexdigest()[:16]
