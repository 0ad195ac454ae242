"""Word styles and numbering: which paragraphs are headings, which are list items and
what marker each item shows.

A heading is a paragraph whose style (or a style it is based on) is a built-in
`heading N` or `Title`, or has an outline level; a list item is one with numbering
(its own `numPr`, or its style's). Markers follow the level's `lvlText` pattern
(`%1.%2.`) with the counters Word keeps per list; bullets are `-`.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["Numbering", "Styles"]

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_VAL = W + "val"
_HEADING_NAME = re.compile(r"heading\s*([1-9])$")
_MAX_CHAIN = 16
"""How many `basedOn` links are followed (a cycle must not loop)."""


def _val(element: Any, path: str) -> str | None:
    found = element.find(path)
    return None if found is None else found.get(_VAL)


class Styles:
    """Paragraph styles by id: heading levels and inherited numbering."""

    def __init__(self, root: Any) -> None:
        self._based: dict[str, str] = {}
        self._level: dict[str, int] = {}
        self._numbering: dict[str, tuple[str, int]] = {}
        if root is not None:
            for style in root.iter(W + "style"):
                self._add(style)

    def _add(self, style: Any) -> None:
        sid = style.get(W + "styleId") or ""
        name = (_val(style, W + "name") or "").strip().lower()
        based = _val(style, W + "basedOn")
        if based:
            self._based[sid] = based
        match = _HEADING_NAME.match(name)
        outline = _val(style, f"{W}pPr/{W}outlineLvl")
        if match:
            self._level[sid] = int(match.group(1))
        elif name == "title":
            self._level[sid] = 1
        elif outline is not None and outline.isdigit() and int(outline) < 9:
            self._level[sid] = int(outline) + 1
        num_id = _val(style, f"{W}pPr/{W}numPr/{W}numId")
        if num_id is not None:
            ilvl = _val(style, f"{W}pPr/{W}numPr/{W}ilvl") or "0"
            self._numbering[sid] = (num_id, int(ilvl) if ilvl.isdigit() else 0)

    def _chain(self, sid: str) -> list[str]:
        chain = [sid]
        while len(chain) < _MAX_CHAIN and chain[-1] in self._based:
            chain.append(self._based[chain[-1]])
        return chain

    def heading_level(self, sid: str) -> int:
        """The heading level (1-9) of style `sid`, or 0 for body text."""
        for link in self._chain(sid):
            if link in self._level:
                return self._level[link]
        return 0

    def numbering(self, sid: str) -> tuple[str, int] | None:
        """The (numId, level) numbering style `sid` gives its paragraphs, if any."""
        for link in self._chain(sid):
            if link in self._numbering:
                return self._numbering[link]
        return None


class Numbering:
    """List definitions, and the counters that number items as they come."""

    def __init__(self, root: Any) -> None:
        self._levels: dict[str, dict[int, tuple[str, str, int]]] = {}
        self._nums: dict[str, str] = {}
        self._counters: dict[str, list[int]] = {}
        if root is None:
            return
        for abstract in root.iter(W + "abstractNum"):
            levels: dict[int, tuple[str, str, int]] = {}
            for lvl in abstract.iter(W + "lvl"):
                ilvl = lvl.get(W + "ilvl") or "0"
                start = _val(lvl, W + "start") or "1"
                levels[int(ilvl) if ilvl.isdigit() else 0] = (
                    _val(lvl, W + "numFmt") or "decimal",
                    _val(lvl, W + "lvlText") or "",
                    int(start) if start.isdigit() else 1,
                )
            self._levels[abstract.get(W + "abstractNumId") or ""] = levels
        for num in root.iter(W + "num"):
            self._nums[num.get(W + "numId") or ""] = _val(num, W + "abstractNumId") or ""

    def marker(self, num_id: str, ilvl: int) -> str | None:
        """Count one more item of list `num_id` at level `ilvl`; return its marker, or
        None when `num_id` is 0 or unknown (numbering removed: not a list item)."""
        abstract = self._nums.get(num_id)
        if num_id == "0" or abstract is None:
            return None
        levels = self._levels.get(abstract, {})
        ilvl = max(0, min(ilvl, 8))
        counters = self._counters.setdefault(abstract, [0] * 9)
        counters[ilvl] += 1
        for deeper in range(ilvl + 1, 9):
            counters[deeper] = 0
        fmt, pattern, _ = levels.get(ilvl, ("bullet", "", 1))
        if fmt in ("bullet", "none") or not pattern:
            return "-"
        return _expand(pattern, counters, levels) or "-"


def _expand(pattern: str, counters: list[int], levels: dict[int, tuple[str, str, int]]) -> str:
    def number(match: re.Match[str]) -> str:
        at = int(match.group(1)) - 1
        fmt, _, start = levels.get(at, ("decimal", "", 1))
        return _format(fmt, start + max(counters[at], 1) - 1)

    return _PLACEHOLDER.sub(number, pattern).strip()


_PLACEHOLDER = re.compile(r"%([1-9])")


def _format(fmt: str, n: int) -> str:
    if fmt == "lowerLetter":
        return _letters(n)
    if fmt == "upperLetter":
        return _letters(n).upper()
    if fmt == "lowerRoman":
        return _roman(n).lower()
    if fmt == "upperRoman":
        return _roman(n)
    return str(n)


def _letters(n: int) -> str:
    n = max(n, 1)
    return chr(ord("a") + (n - 1) % 26) * ((n - 1) // 26 + 1)


_ROMAN = ((1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"),
          (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I"))  # fmt: skip


def _roman(n: int) -> str:
    if not 0 < n < 4000:
        return str(n)
    out = []
    for value, letters in _ROMAN:
        count, n = divmod(n, value)
        out.append(letters * count)
    return "".join(out)
