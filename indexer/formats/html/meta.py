"""A page's author, date and description, from its `<meta>` tags and JSON-LD.

`<meta>` tags come first (`author`, `article:published_time`, `description` and
their Dublin Core, Open Graph and Twitter kin), then the JSON-LD
(`schema.org` `author`, `datePublished`, `description` of an object with a
`headline` or a `datePublished`: an article, not the site) for what they lack. Values
are whitespace-collapsed, at most `MAX_CHARS` long; an author that is a URL (a
profile page) is not a name and is skipped.
"""

from __future__ import annotations

from typing import Any

import orjson
from selectolax.lexbor import LexborHTMLParser

MAX_CHARS = 1000
"""Longer values are cut to this many characters."""

_PREFERRED = {
    "author": "dc.creator dcterms.creator author article:author parsely-author sailthru.author byl",
    "date": "article:published_time dc.date dc.date.issued dcterms.created datepublished "
    "date pubdate publish-date parsely-pub-date sailthru.date",
    "description": "dc.description dcterms.description og:description description "
    "twitter:description",
}
"""`<meta>` names or properties (lower case) by the key they give, the best first."""
_RANK = {
    name: (key, rank)
    for key, names in _PREFERRED.items()
    for rank, name in enumerate(names.split())
}
_KEYS = ("author", "date", "description")
_LD_KEYS = {"author": "author", "datePublished": "date", "description": "description"}


def page_metadata(tree: LexborHTMLParser) -> dict[str, str]:
    """Return the page's `author`, `date` and `description` where it gives them."""
    found: dict[str, str] = {}
    ranks: dict[str, int] = {}
    for node in tree.tags("meta"):
        attrs = node.attributes
        names = attrs.get("name") or attrs.get("property") or attrs.get("itemprop") or ""
        # `property` may list several names; `dc:creator` is `dc.creator` written as RDFa.
        for name in names.lower().replace("dc:", "dc.").replace("dcterms:", "dcterms.").split():
            key, rank = _RANK.get(name, ("", 0))
            if (
                key
                and rank < ranks.get(key, len(_RANK))
                and _keep(found, key, attrs.get("content"))
            ):
                ranks[key] = rank
    if len(found) < len(_KEYS):
        for node in tree.tags("script"):
            if (node.attributes.get("type") or "").strip().lower() == "application/ld+json":
                _from_json_ld(found, node.text(deep=True))
    return {key: found[key] for key in _KEYS if key in found}


def _keep(found: dict[str, str], key: str, value: Any) -> bool:
    """Set `found[key]` to `value` cleaned, if it is a usable value; return whether it was."""
    if not isinstance(value, str):
        return False
    value = " ".join(value.split())[:MAX_CHARS]
    if not value or (key == "author" and value.startswith(("http://", "https://"))):
        return False
    found[key] = value
    return True


def _from_json_ld(found: dict[str, str], text: str) -> None:
    try:
        data = orjson.loads(text)
    except orjson.JSONDecodeError:
        return
    pending = [data]
    while pending and len(found) < len(_KEYS):
        item = pending.pop()
        if isinstance(item, list):
            pending.extend(reversed(item))
        elif isinstance(item, dict):
            if "@graph" in item:
                pending.append(item["@graph"])
            if "headline" not in item and "datePublished" not in item:
                continue  # not an article: a site's or a publisher's description
            for name, key in _LD_KEYS.items():
                if key not in found and name in item:
                    _keep(found, key, _ld_text(item[name]))


def _ld_text(value: Any) -> Any:
    """A JSON-LD value as text: a person's `name`; several joined by commas."""
    if isinstance(value, dict):
        return value.get("name")
    if isinstance(value, list):
        names = [_ld_text(v) for v in value]
        return ", ".join(n for n in names if isinstance(n, str) and n.strip())
    return value
