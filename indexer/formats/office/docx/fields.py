"""Word fields: a `HYPERLINK` field's result becomes a Markdown link to its target.

A complex field is `fldChar begin`, its instruction (`instrText` runs), `fldChar
separate`, the result runs, `fldChar end`; fields nest. Only the result is text; a
`HYPERLINK "url"` field (Word writes many links this way, and mail merges) wraps its
result as `[result](url)`. A link to a bookmark (`\\l`) stays plain text.
"""

from __future__ import annotations

import re

__all__ = ["Fields", "link_target"]

_HYPERLINK = re.compile(r'^\s*HYPERLINK\s+(?:"([^"]*)"|(\S+))(.*)$', re.DOTALL)
_EXTERNAL = ("http://", "https://", "mailto:", "ftp://")
_MAX_OPEN = 64
"""Fields open at once: deeper nesting is damage, and is read as plain text."""


def link_target(instruction: str) -> str | None:
    """The external target of a `HYPERLINK` instruction, else None."""
    match = _HYPERLINK.match(instruction)
    if match is None or "\\l" in (match.group(3) or "").split('"')[0]:
        return None
    target = (match.group(1) or match.group(2) or "").strip()
    return target.replace(" ", "%20") if target.lower().startswith(_EXTERNAL) else None


class Fields:
    """The complex fields open in a story, innermost last."""

    __slots__ = ("_open",)

    def __init__(self) -> None:
        self._open: list[tuple[list[str], str | None]] = []

    def begin(self) -> None:
        """A field starts: its instruction follows."""
        if len(self._open) < _MAX_OPEN:
            self._open.append(([], None))

    def instruction(self, text: str) -> None:
        """Part of the innermost field's instruction."""
        if self._open:
            self._open[-1][0].append(text)

    def separate(self, out: list[str]) -> None:
        """The innermost field's result starts; a link opens its bracket in `out`."""
        if self._open:
            parts, _ = self._open[-1]
            target = link_target("".join(parts))
            self._open[-1] = (parts, target)
            if target:
                out.append("[")

    def end(self, out: list[str]) -> None:
        """The innermost field ends; a link closes with its target in `out`."""
        if self._open:
            _, target = self._open.pop()
            if target:
                out.append(f"]({target})")
