"""An HTML mail body marked for `quotes.passages`: where a client's reply container starts.

The html extractor already writes `<blockquote>` (Gmail's `gmail_quote`, Apple Mail's
`type="cite"`, Thunderbird's) as `>` lines, at any depth and inside tables. What it
cannot show is Outlook's way: the quoted message is not inside anything, it follows a
header container (`divRplyFwdMsg` in Outlook on the web and new Outlook, a `border-top`
rule div in Outlook for Windows, `OutlookMessageHeader`, `appendonsend`). `mark_tree`
puts the `CUT` token before each such container, in a paragraph of its own, in the
page the html extractor has parsed (`mark`: in markup, parsed and re-serialised), so the
splitter knows the rest is quoted whatever language the header block is in. A
client's signature container (Gmail's `gmail_signature`, Thunderbird's `moz-signature`,
Outlook's `Signature`) gets a `-- ` delimiter line before it, for the same reason.
"""

from __future__ import annotations

from selectolax.lexbor import LexborHTMLParser

from indexer.formats.eml.quotelines import CUT

__all__ = ["has_containers", "mark", "mark_tree"]

_CONTAINERS = ", ".join(
    (
        "#divRplyFwdMsg",
        "div.OutlookMessageHeader",
        "#appendonsend",
        "hr#stopSpelling",
        'div[style*="border-top:solid #E1E1E1"]',
        'div[style*="border-top: solid #E1E1E1"]',
        'div[style*="border-top:solid #B5C4DF"]',
        'div[style*="border-top: solid #B5C4DF"]',
    )
)
_SIGNATURES = "div.gmail_signature, div.moz-signature, #Signature"
_TOKENS = LexborHTMLParser(f"<p>{CUT}</p><p>-- </p>")
"""The paragraphs `mark_tree` inserts (copies of), parsed once: a parser costs more
than the query."""
_HINTS = (
    "divRplyFwdMsg", "OutlookMessageHeader", "appendonsend", "stopSpelling", "border-top",
    "gmail_signature", "moz-signature", "Signature",
)  # fmt: skip


def has_containers(markup: str) -> bool:
    """False for markup with no reply or signature container (most mail): found by a
    substring test, without parsing."""
    return any(hint in markup for hint in _HINTS)


def mark_tree(tree: LexborHTMLParser) -> bool:
    """Put a `<p>CUT</p>` before every reply container of the parsed page `tree` and a
    `<p>-- </p>` before every signature container; return whether there was one."""
    cut, delimiter = _TOKENS.css("p")
    marked = [(node, cut) for node in tree.css(_CONTAINERS)]
    marked += [(node, delimiter) for node in tree.css(_SIGNATURES)]
    for node, token in marked:
        node.insert_before(token)  # a copy of the token
    return bool(marked)


def mark(markup: str) -> str:
    """Return `markup` with a `<p>CUT</p>` before every reply container and a `<p>-- </p>`
    before every signature container (`mark_tree`), re-serialised; `markup` itself when
    it has none."""
    if not has_containers(markup):
        return markup
    tree = LexborHTMLParser(markup)
    if not mark_tree(tree):
        return markup
    return tree.html or markup
