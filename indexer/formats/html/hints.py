"""What an element's attributes say about it: hidden, boilerplate, content, byline.

`Hints.read(attributes)` gives an element's flags and weight from its `class`
and `id` (matched as substrings of the lower-cased names, as readers do: class
names run words together, `mainNav`, `post_body`, `sidebar-left`), its `role`,
`itemprop` and `rel`, and whether it is hidden (`hidden`, `display: none` or
`visibility: hidden` in its `style`, `aria-hidden="true"`).
"""

from __future__ import annotations

import re

HIDDEN, UNLIKELY, SHARE, BYLINE = 1, 2, 4, 8
"""Flags: hidden; unlikely to be content; a share bar; a byline."""

Hint = tuple[int, int, str]
"""An element's flags, its weight (+25 for each of a content-like class and id, -25
for each boilerplate-like one) and its `class` as written."""

_CATEGORIES = {
    "unlikely": "-ad-|ad-break|agegate|banner|breadcrumb|combx|comment|community|consent|"
    "cookie|cover-wrap|disqus|extra|footer|gdpr|header|legends|menu|masthead|modal|navbar|"
    "(?<![a-z])nav|newsletter|pager|pagination|popup|promo|related|remark|replies|rss|"
    "shoutbox|sidebar|skyscraper|social|sponsor|subscribe|supplemental|toolbar|yom-remote",
    "maybe": "and|article|body|column|content|main|mathjax|shadow",
    "positive": "article|body|content|entry|hentry|h-entry|main|page|post|text|blog|story",
    "negative": "-ad-|hidden|banner|breadcrumb|combx|comment|com-|contact|cookie|footer|gdpr|"
    "masthead|media|meta|menu|outbrain|promo|related|scroll|share|shoutbox|sidebar|"
    "skyscraper|social|sponsor|shopping|tags|widget",
    "share": "share",
    "byline": "byline|author|dateline|writtenby|p-author",
}
"""Substrings of a lower-cased class or id, by what they suggest."""
_BIT = {"unlikely": 1, "maybe": 2, "positive": 4, "negative": 8, "share": 16, "byline": 32}
_TOKEN = re.compile(
    "|".join(sorted({t for p in _CATEGORIES.values() for t in p.split("|")}, key=lambda t: -len(t)))
)
"""Every token of every category, longest first: one scan finds them all."""
_CATEGORY = {name: re.compile(pattern) for name, pattern in _CATEGORIES.items()}
_UNLIKELY_ROLES = frozenset(
    ("menu", "menubar", "complementary", "navigation", "alert", "alertdialog", "dialog")
)
_STYLE_HIDDEN = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden")


class Hints:
    """Reads elements' hints; one per page, remembering the class names it has seen."""

    def __init__(self) -> None:
        self._names: dict[tuple[str, str], tuple[int, int]] = {}
        self._tokens: dict[str, int] = {}

    def read(self, attrs: dict[str, str | None]) -> Hint | None:
        """Return what the element's `attrs` say, or None when they say nothing."""
        cls = attrs.get("class") or ""
        ident = attrs.get("id") or ""
        named = self._names.get((cls, ident))
        if named is None:
            named = self._names[cls, ident] = self._by_name(cls.lower(), ident.lower())
        flags, weight = named
        if len(attrs) > (cls != "") + (ident != ""):
            flags |= _other_flags(attrs, cls)
        return (flags, weight, cls) if flags or weight or cls else None

    def _by_name(self, cls: str, ident: str) -> tuple[int, int]:
        bits = (self._bits(cls), self._bits(ident))
        both = bits[0] | bits[1]
        flags = 0
        if both & 3 == 1:  # unlikely, and nothing says it may be content after all
            flags |= UNLIKELY
        if both & 16:
            flags |= SHARE
        if both & 32:
            flags |= BYLINE
        weight = sum(25 * (bool(b & 4) - bool(b & 8)) for b in bits)
        return flags, weight

    def _bits(self, name: str) -> int:
        bits = 0
        for token in _TOKEN.findall(name) if name else ():
            bit = self._tokens.get(token)
            if bit is None:
                bit = self._tokens[token] = sum(
                    _BIT[category] for category, regex in _CATEGORY.items() if regex.search(token)
                )
            bits |= bit
        return bits


def _other_flags(attrs: dict[str, str | None], cls: str) -> int:
    style = attrs.get("style")
    hidden = "hidden" in attrs or (style and _STYLE_HIDDEN.search(style.lower()))
    aria = (attrs.get("aria-hidden") or "").strip() == "true" and "fallback-image" not in cls
    flags = HIDDEN if hidden or aria else 0
    role = (attrs.get("role") or "").strip().lower()
    if role in _UNLIKELY_ROLES:
        flags |= UNLIKELY
    if role == "dialog" and attrs.get("aria-modal") == "true":
        flags |= HIDDEN
    if "author" in (attrs.get("itemprop") or "") or attrs.get("rel") == "author":
        flags |= BYLINE
    return flags
