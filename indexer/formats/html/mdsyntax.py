"""Markdown syntax for the HTML renderer: blocks, inline runs, links, code, quotes, items.

Pure string functions (plus the `<pre>` reader), so each is tested on its own,
and the splitting of a block too long for one chunk along its own syntax.
"""

from __future__ import annotations

from typing import NamedTuple

from indexer._text import split_text


class Block(NamedTuple):
    """One Markdown block: a paragraph, heading, list, quote, table, code block or rule."""

    text: str
    kind: str
    """`para`, `heading`, `list` (or `item` inside one), `quote`, `table`, `pre` or `hr`."""
    headings: tuple[str, ...]
    """The heading path in force where the block starts."""


new_block = tuple.__new__
"""`new_block(Block, (text, kind, headings))` makes a `Block` without `Block(...)`'s
`__new__`, a Python function: the walk makes thousands."""

BR = "\x00"
"""Stands for `<br>` in raw inline text: HTML text nodes never hold U+0000."""


def collapse(text: str) -> str:
    """Return `text` with every run of whitespace one space, trimmed: `" ".join(text.split())`.

    Long text already so (the commonest) is returned as is, without splitting it
    into words: in ASCII text, after ruling out each whitespace character but
    the space (a C-speed search each); else by `isprintable`, since every
    whitespace character but the space is unprintable.
    """
    if len(text) < _LONG or text[0] == " " or text[-1] == " " or "  " in text:
        return " ".join(text.split())
    if text.isascii():
        if (
            "\n" not in text
            and "\t" not in text
            and "\r" not in text
            and "\x0b" not in text
            and "\x0c" not in text
            and "\x1c" not in text
            and "\x1d" not in text
            and "\x1e" not in text
            and "\x1f" not in text
        ):
            return text
    elif text.isprintable():
        return text
    return " ".join(text.split())


_LONG = 48
"""Shorter text is split and joined: that is cheaper than the checks."""


def paragraphs(raw: str) -> list[str]:
    """Return the paragraphs of raw inline text, whitespace collapsed as a browser does.

    Every run of whitespace (any Unicode space, not only ASCII) becomes one space.
    A single `BR` is a line break inside a paragraph; two in a row end it. Lines
    are trimmed; empty paragraphs are dropped.
    """
    if BR not in raw:
        text = collapse(raw)
        return [text] if text else []
    paras: list[str] = []
    lines: list[str] = []
    for line in raw.split(BR):
        line = collapse(line)
        if line:
            lines.append(line)
        elif lines:
            paras.append("\n".join(lines))
            lines = []
    if lines:
        paras.append("\n".join(lines))
    return paras


def inline_span(raw: str, href: str | None) -> str:
    """Return raw inline text as a `[text](href)` link, or a code span when `href` is None.

    Surrounding whitespace stays outside the span; a span with no text is dropped
    (only its whitespace is kept). A code span's fence outruns any backtick run in it.
    """
    text = " ".join(raw.replace(BR, " ").split())
    lead = " " if raw[:1].isspace() or raw[:1] == BR else ""
    if not text:
        return lead
    trail = " " if raw[-1:].isspace() or raw[-1:] == BR else ""
    if href is not None:
        return f"{lead}[{text}]({href}){trail}"
    ticks = "`" * (_longest_run(text) + 1)
    pad = " " if text[0] == "`" or text[-1] == "`" else ""
    return f"{lead}{ticks}{pad}{text}{pad}{ticks}{trail}"


def link_target(href: str | None) -> str | None:
    """Return `href` fit for a Markdown link, or None for one a reader cannot follow.

    Empty, fragment-only, `javascript:` and `data:` targets give None. The ends
    are trimmed and tabs and newlines removed, as browsers do; spaces and
    parentheses are percent-escaped.
    """
    if not href:
        return None
    href = href.strip()
    if "\n" in href or "\t" in href or "\r" in href:
        href = href.replace("\n", "").replace("\t", "").replace("\r", "")
    if " " in href:
        href = href.replace(" ", "%20")
    if not href or href[0] == "#":
        return None
    if href[0] in "jJdD" and href[:11].lower().startswith(("javascript:", "data:")):
        return None
    if "(" in href or ")" in href:
        href = href.replace("(", "%28").replace(")", "%29")
    return href


def code_block(text: str, language: str = "") -> str:
    """Return `text` (a `<pre>`'s) as a fenced code block, or '' when it is blank.

    Lines keep their indentation, lose trailing spaces; blank lines at either end
    are dropped. The fence is longer than any backtick run inside.
    """
    lines = [line.rstrip() for line in text.split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    start = next((i for i, line in enumerate(lines) if line), len(lines))
    body = "\n".join(lines[start:])
    if not body:
        return ""
    fence = "`" * (max(_longest_run(body), 2) + 1)
    return f"{fence}{language}\n{body}\n{fence}"


def _longest_run(text: str) -> int:
    """Return the length of the longest run of backticks in `text`."""
    # str.find skips to each run at C speed; a regex would try every position.
    longest = 0
    at = text.find("`")
    while at >= 0:
        end = at + 1
        while end < len(text) and text[end] == "`":
            end += 1
        longest = max(longest, end - at)
        at = text.find("`", end)
    return longest


def quote(text: str) -> str:
    """Return `text` with every line prefixed `> ` (an empty line becomes `>`)."""
    return "\n".join(f"> {line}" if line else ">" for line in text.split("\n"))


def list_item(marker: str, text: str) -> str:
    """Return `text` as a list item: `marker` on the first line, the rest indented under it."""
    pad = " " * (len(marker) + 1)
    first, *rest = text.split("\n")
    return "\n".join([f"{marker} {first}", *(pad + line if line else "" for line in rest)])


def split_block(block: Block, max_chars: int) -> list[str]:
    """Cut an oversized block into pieces of at most `max_chars`, keeping its syntax.

    A table's pieces each repeat its header, a code block's are each fenced, a
    list breaks between items and a quote between lines; a paragraph (or any
    single line still too long) is cut by `split_text`.
    """
    lines = block.text.split("\n")
    if block.kind == "table" and len(lines) > 2:
        return _pack(lines[2:], max_chars, head=lines[:2])
    if block.kind == "pre" and len(lines) > 2:
        return _pack(lines[1:-1], max_chars, head=lines[:1], tail=lines[-1:])
    if block.kind == "list":
        return _pack(_items(lines), max_chars)
    if block.kind == "quote":
        return _pack(lines, max_chars)
    return split_text(block.text, max_chars)


def _items(lines: list[str]) -> list[str]:
    items: list[str] = []
    for line in lines:
        if items and line[:1] in ("", " "):
            items[-1] += "\n" + line
        else:
            items.append(line)
    return items


def _pack(
    units: list[str], max_chars: int, head: list[str] | None = None, tail: list[str] | None = None
) -> list[str]:
    frame = [*(head or []), *(tail or [])]
    # A piece is the frame's lines and its group's, joined by newlines.
    budget = max_chars - (len("\n".join(frame)) if frame else -1)
    if budget < max_chars // 4:
        return split_text("\n".join([*(head or []), *units, *(tail or [])]), max_chars)
    groups: list[list[str]] = [[]]
    size = 0
    for unit in units:
        for part in [unit] if len(unit) < budget else split_text(unit, budget - 1):
            if groups[-1] and size + len(part) + 1 > budget:
                groups.append([])
                size = 0
            groups[-1].append(part)
            size += len(part) + 1
    return ["\n".join([*(head or []), *group, *(tail or [])]) for group in groups if group]
