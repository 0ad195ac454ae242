"""An HTML page's source before parsing: how to decode it, and whether it is safe to parse.

Decoding: a BOM wins; a page that starts with `<` in UTF-16/32 without a BOM is read
as such; otherwise `indexer._text.decode` with the `<meta>` charset of the first 4 KB
(read as browsers do), then UTF-8, then detection. Depth: an HTML5 tree builder walks
its open elements for each block start tag, so a page nested thousands deep costs
quadratic time; `too_deep` estimates the nesting linearly, so such a page can be read
as plain text instead.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from indexer._text import decode, normalize_newlines, strip_bom

DEPTH_LIMIT = 512
"""Deeper nesting is not parsed (Chromium caps its DOM at this depth, too)."""

_SNIFF_BYTES = 4096
_META_CHARSET = re.compile(rb"<meta[^>]{0,512}?charset\s*=\s*[\"']?\s*([A-Za-z0-9._:-]+)", re.I)
_WIDE_STARTS = (
    (b"<\x00\x00\x00", "utf-32-le"),
    (b"\x00\x00\x00<", "utf-32-be"),
    (b"<\x00", "utf-16-le"),
    (b"\x00<", "utf-16-be"),
)
_SEGMENT = 4096
_RAW_START = re.compile(
    rb"<!--|<(script|style|textarea|title|xmp|iframe|noembed|noframes|noscript|plaintext)"
    rb"(?=[\s/>])",
    re.I,
)
_START_OR_END = re.compile(rb"<(/?)([a-zA-Z][^\s/>]*)")
# Elements that never nest deeper: void ones, and those whose end tag is implied.
_FLAT_NAMES = (
    "area base br col embed hr img input link meta source track wbr param keygen frame "
    "basefont bgsound image p li dt dd option optgroup tr td th thead tbody tfoot "
    "colgroup caption rb rt rp rtc html head body"
)
_FLAT = frozenset(_FLAT_NAMES.encode().split())


def decode_html(data: bytes) -> str:
    """Return `data` decoded as a browser would (see the module docstring). Never raises."""
    body, bom = strip_bom(data)
    if bom is not None:
        return decode(data)
    for start, encoding in _WIDE_STARTS:
        if data.startswith(start):
            return normalize_newlines(data.decode(encoding, errors="replace"))
    return decode(data, declared=declared_charset(body))


def decode_ascii_html(data: bytes) -> str:
    """`decode_html` of ASCII `data` without NULs (the commonest page), on a short path.

    Such bytes start with no BOM and no UTF-16/32 `<`, and without a declared
    charset `decode` reads them as UTF-8, which is ASCII itself.
    """
    declared = declared_charset(data)
    if declared is None:
        return normalize_newlines(data.decode("ascii"))
    return decode(data, declared=declared)


def declared_charset(data: bytes) -> str | None:
    """Return the charset label a `<meta>` in the first 4 KB declares, or None."""
    head = data[:_SNIFF_BYTES]
    # A case-insensitive regex scans slowly: first find where a <meta> may start.
    start = find_start_tag(head, b"meta")
    found = _META_CHARSET.search(head, start) if start >= 0 else None
    if found is None:
        return None
    label = found.group(1).decode("ascii").lower()
    # A page that declares UTF-16 in ASCII-compatible bytes is not UTF-16 (WHATWG).
    if label.startswith(("utf-16", "utf-32", "unicode")):
        return "utf-8"
    return label


def find_start_tag(data: bytes, name: bytes) -> int:
    """Return where `data` first has `<` and then `name` (lower case) in any case, or -1.

    One search in a lowered copy: lowering is a table lookup per byte, quicker
    than a case-insensitive regex (which tests every byte in Python's regex
    engine) or than searching for `<n` and `<N` (each `<n` found is checked).
    """
    return data.lower().find(b"<" + name)


def too_deep(raw: bytes) -> bool:
    """True when the page `raw` (UTF-8) may nest elements deeper than `DEPTH_LIMIT`.

    Two linear steps: a bound from the counts of `<` and `</` per 4 KB segment
    (C-speed scans, enough for nearly every page), and only past that a
    tag-by-tag count that skips comments, raw text and void elements.
    """
    # Each start tag takes two bytes at least: a short page cannot nest too deep.
    if len(raw) <= 2 * DEPTH_LIMIT:
        return False
    # Nor can one with fewer tags than that: the bound below never exceeds their count.
    if raw.count(b"<") <= DEPTH_LIMIT:
        return False
    return segment_bound(raw) > DEPTH_LIMIT and tag_depth(raw) > DEPTH_LIMIT


def segment_bound(raw: bytes) -> int:
    """Return an upper bound of the nesting depth, counting `<` and `</` per segment."""
    bound = peak = 0
    for start in range(0, len(raw), _SEGMENT):
        end = start + _SEGMENT
        closes = raw.count(b"</", start, end)
        opens = raw.count(b"<", start, end) - closes
        peak = max(peak, bound + opens)
        bound = max(bound + opens - closes, opens)
    return peak


def tag_depth(raw: bytes) -> int:
    """Return the deepest nesting of elements that the start and end tags of `raw` imply.

    An estimate: implied end tags and misnesting are not modelled, but an element
    whose end tag is optional or that is void never counts.
    """
    depth = deepest = 0
    for markup in _markup(raw):
        for slash, name in _START_OR_END.findall(markup):
            if name.lower() in _FLAT:
                continue
            if slash:
                depth = max(depth - 1, 0)
            else:
                depth += 1
                deepest = max(deepest, depth)
    return deepest


def _markup(raw: bytes) -> Iterator[bytes]:
    # The stretches of `raw` outside comments and raw-text elements; linear,
    # because each search starts where the last one ended.
    pos = 0
    while True:
        found = _RAW_START.search(raw, pos)
        if found is None:
            yield raw[pos:]
            return
        yield raw[pos : found.start()]
        name = found.group(1)
        if name is None:
            end = raw.find(b"-->", found.end())
            pos = end + 3
        else:
            close = re.compile(b"</" + name, re.I).search(raw, found.end())
            end = -1 if close is None else raw.find(b">", close.end())
            pos = end + 1
        if end < 0:
            return
