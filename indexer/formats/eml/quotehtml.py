"""An HTML mail body marked for `quotes.passages`: where a client's reply container starts.

The html extractor already writes `<blockquote>` (Gmail's `gmail_quote`, Apple Mail's
`type="cite"`, Thunderbird's) as `>` lines, at any depth and inside tables. What it
cannot show is Outlook's way: the quoted message is not inside anything, it follows a
header container (`divRplyFwdMsg` in Outlook on the web and new Outlook, a `border-top`
rule div in Outlook for Windows, `OutlookMessageHeader`, `appendonsend`). `mark` puts
the `CUT` token before each such container, in a paragraph of its own, so the
splitter knows the rest is quoted whatever language the header block is in. A
client's signature container (Gmail's `gmail_signature`, Thunderbird's `moz-signature`,
Outlook's `Signature`) gets a `-- ` delimiter line before it, for the same reason.
"""

from __future__ import annotations

from selectolax.lexbor import LexborHTMLParser

from indexer.formats.eml.quotelines import CUT

__all__ = ["mark"]

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
_HINTS = (
    "divRplyFwdMsg", "OutlookMessageHeader", "appendonsend", "stopSpelling", "border-top",
    "gmail_signature", "moz-signature", "Signature",
)  # fmt: skip


def mark(markup: str) -> str:
    """Return `markup` with a `<p>CUT</p>` before every reply container and a `<p>-- </p>`
    before every signature container; `markup` itself when it has none (most mail: found
    by a substring test, without parsing)."""
    if not any(hint in markup for hint in _HINTS):
        return markup
    tree = LexborHTMLParser(markup)
    marked = [(node, CUT) for node in tree.css(_CONTAINERS)]
    marked += [(node, "-- ") for node in tree.css(_SIGNATURES)]
    if not marked:
        return markup
    for node, text in marked:
        token = LexborHTMLParser(f"<p>{text}</p>").css_first("p")
        if token is not None:
            node.insert_before(token)
    return tree.html or markup
