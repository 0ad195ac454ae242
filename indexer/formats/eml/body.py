"""A mail's body as chunks: the sender's own text, then what it quotes, signs or forwards.

The body is every inline `text/plain` part at any depth, in order; when there is none,
the `text/html` parts rendered by the html extractor; when there is none either, a
`multipart/report`'s preamble. Each part is split by `quotes.passages` (unless
`mail_keep_quotes`) and each passage into paragraphs, a chunk each, whose `meta.part`
says its role:

| part | what | `meta.quoted` |
|---|---|---|
| `body` | the sender's own text | false |
| `quoted` | a quote, `>` markers stripped, and its attribution line or header block | true |
| `forwarded` | a forwarded message's text and header block | false |
| `signature` | the sender's (or a forwarded message's) signature | false |
| `disclaimer` | a legal disclaimer | false |

With `mail_keep_quotes` every paragraph is `body`, as it is written (markers kept).
"""

from __future__ import annotations

from dataclasses import replace
from email.message import Message

from selectolax.lexbor import LexborHTMLParser

from indexer._text import split_paragraphs
from indexer._types import Chunk, Options
from indexer.formats import html
from indexer.formats.eml.mime import Leaf, decode_bytes, part_text, walk
from indexer.formats.eml.quotehtml import has_containers, mark, mark_tree
from indexer.formats.eml.quotes import Passage, passages

__all__ = ["PARTS", "body_chunks"]

PARTS = {"own": "body", "forwarded": "forwarded", "signature": "signature"}
"""`meta.part` of each passage kind that is not quoted (`quoted` for the quoted ones)."""
_QUOTED = {"part": "quoted", "quoted": True}


def body_chunks(message: Message, options: Options, *, forward: bool) -> list[Chunk]:
    """Return the body chunks of `message` (see the module doc); never raises.

    `forward`: the message's subject says it forwards another (`quotes.passages`).
    """
    leaves = [leaf for _, leaf in walk(message) if leaf is not None]
    split = not options.mail_keep_quotes
    plain = [part_text(leaf.part) for leaf in leaves if not leaf.html]
    if any(text.strip() for text in plain):
        return [c for text in plain for c in _chunks(text, split, forward)]
    rendered = [_render_html(leaf, options, split) for leaf in leaves if leaf.html]
    if any(rendered):
        if not split:
            return [_body(p) for paragraphs in rendered for p in paragraphs]
        return [c for paras in rendered for c in _chunks("\n\n".join(paras), split, forward)]
    # Some bounces (multipart/report) carry their only human text in the preamble;
    # elsewhere the preamble is "This is a multi-part message in MIME format." noise.
    if message.get_content_type() != "multipart/report":
        return []
    preamble = message.preamble or ""
    text = decode_bytes(preamble.encode("utf-8", "surrogateescape"), None)
    return _chunks(text, split, forward)


def _chunks(text: str, split: bool, forward: bool) -> list[Chunk]:
    if not split:
        return [_body(p) for p in split_paragraphs(text)]
    return [c for s in passages(text, forward=forward) for c in _passage_chunks(s)]


def _passage_chunks(found: Passage) -> list[Chunk]:
    meta = _QUOTED if found.kind == "quoted" else {"part": PARTS.get(found.kind, found.kind)}
    if "\n" not in found.text:  # one paragraph (a passage is never blank): no split
        return [Chunk(text=found.text.strip(), meta=dict(meta))]
    return [Chunk(text=p, meta=dict(meta)) for p in split_paragraphs(found.text)]


def _body(paragraph: str) -> Chunk:
    return Chunk(text=paragraph, meta={"part": "body"})


def _render_html(leaf: Leaf, options: Options, split: bool) -> list[str]:
    markup = part_text(leaf.part)
    # A mail is its own main content: rendered whole unless asked otherwise.
    options = replace(options, html_main_content=options.html_mail_main_content)
    try:
        if not split or not has_containers(markup):
            return [c.text for c in html.chunk(markup, options).chunks]
        # reply containers marked in the page the renderer parses, not in a copy
        rendered = html.chunk(markup, options, prepare=mark_tree)
        if rendered.degraded:  # its text is the source's: marked in the source
            rendered = html.chunk(mark(markup), options)
        return [c.text for c in rendered.chunks]
    except Exception:  # a failing renderer must not cost the mail its headers and other parts
        tree = LexborHTMLParser(mark(markup) if split else markup)
        tree.strip_tags(["script", "style", "head"])
        return split_paragraphs(tree.text(separator="\n"))
