"""What the Markdown renderer needs to know about Lexbor DOM nodes: kinds and attributes.

Elements are told apart by Lexbor tag id, not name: reading a name costs a new
string per node, and the render loop is the extractor's hot path. The ids are
probed from the running Lexbor once, at import, so they can never drift from it.
"""

from __future__ import annotations

from selectolax.lexbor import LexborHTMLParser, LexborNode

# Node kinds (anything unlisted, like <span> or a custom element, is transparent).
(TEXT, SKIP, BLOCK, HEADING, PRE, HR, LINEBREAK, LINK, CODE, IMG) = range(1, 11)
(LIST, ORDERED, ITEM, QUOTE, TABLE, PART, ROW, CELL, CAPTION) = range(11, 20)
FIRST_CONTAINER = LIST
"""Kinds from here on open containers (`Containers.open`)."""

_NAMES = {
    SKIP: "script style noscript template svg iframe head title select datalist",
    BLOCK: "address article aside body center dd details dialog div dl dt fieldset "
    "figcaption figure footer form frameset header hgroup html legend main nav "
    "optgroup option p search section summary",
    HEADING: "h1 h2 h3 h4 h5 h6",
    PRE: "pre xmp listing plaintext",
    HR: "hr",
    LINEBREAK: "br",
    LINK: "a",
    CODE: "code kbd samp tt",
    IMG: "img",
    LIST: "ul menu dir",
    ORDERED: "ol",
    ITEM: "li",
    QUOTE: "blockquote",
    TABLE: "table",
    PART: "tbody thead tfoot colgroup col",
    ROW: "tr",
    CELL: "td th",
    CAPTION: "caption",
}
DROPPED = frozenset(_NAMES[SKIP].split())
"""Elements skipped with all they hold: a reader never sees their content."""


def _probe_kinds() -> dict[int, int]:
    probe = LexborHTMLParser("<p>x<!---->")
    body = probe.body
    paragraph = body.first_child if body is not None else None
    text = paragraph.first_child if paragraph is not None else None
    comment = text.next if text is not None else None
    if text is None or comment is None:
        raise RuntimeError("cannot probe Lexbor's node ids")
    kinds = {text.tag_id: TEXT, comment.tag_id: SKIP}
    for kind, names in _NAMES.items():
        kinds.update((probe.create_node(name).tag_id, kind) for name in names.split())
    return kinds


KINDS = _probe_kinds()
"""Lexbor tag id to node kind."""
_PROBE = LexborHTMLParser("")
TH = _PROBE.create_node("th").tag_id
"""Lexbor's tag id of `<th>`, the header cell."""
SVG = _PROBE.create_node("svg").tag_id
"""Lexbor's tag id of `<svg>`."""
TITLE = _PROBE.create_node("title").tag_id
"""Lexbor's tag id of `<title>`."""
TEMPLATE = _PROBE.create_node("template").tag_id
"""Lexbor's tag id of `<template>`."""
LEVELS = {_PROBE.create_node(f"h{level}").tag_id: level for level in range(1, 7)}
"""Lexbor tag id of each heading element to its level."""


def only_text(node: LexborNode) -> str | None:
    """Return the text of `node` when its only child is a text node, else None."""
    child = node.first_child
    if child is None or not child.is_text_node or child.next is not None:
        return None
    return child.text_content or ""


def int_attr(node: LexborNode, name: str, default: int, low: int, high: int = 10**6) -> int:
    """Return attribute `name` as an int clamped to [low, high], or `default` if not a number."""
    return int_value(node.attributes.get(name), default, low, high)


def int_value(value: str | None, default: int, low: int, high: int = 10**6) -> int:
    """Return an attribute's `value` as an int clamped to [low, high], or `default` if not one."""
    value = (value or "").strip()
    if not (value.isascii() and value.isdigit()) or len(value) > 7:
        return default
    return min(max(int(value), low), high)


def is_presentation(node: LexborNode) -> bool:
    """True when `node` says it is layout (`role="presentation"` or `"none"`)."""
    return (node.attributes.get("role") or "").strip().lower() in ("presentation", "none")


def pre_text(node: LexborNode) -> str:
    """Return the text of a `<pre>` as written: every text node, `<br>` as a newline."""
    parts: list[str] = []
    for sub in node.traverse(include_text=True):
        if sub.is_text_node:
            parts.append(sub.text_content or "")
        elif sub.tag == "br":
            parts.append("\n")
    return "".join(parts)


def pre_language(node: LexborNode) -> str:
    """Return the language a `language-x` (or `lang-x`) class names on a `<pre>` or its `<code>`."""
    code = node.first_child
    for element in (node, code if code is not None and code.tag == "code" else None):
        if element is None:
            continue
        for name in (element.attributes.get("class") or "").split():
            for prefix in ("language-", "lang-"):
                if name.startswith(prefix) and len(name) > len(prefix):
                    return name[len(prefix) :].replace("`", "")
    return ""
