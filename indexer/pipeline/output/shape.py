"""The stable shape of the records: every record of a file has the same keys, in the same
order, with the same types, whatever its kind.

Loaders infer a schema from the first rows (polars from 100, DuckDB from 20,480) and then
drop a key that first appears later, or fail on a value where they saw only nulls, or
read a list they saw only empty as a list of nulls (`docs/output.md` has the
measurements). So no value is ever null or an empty list: a key that does not apply to a
record holds its type's "none" (`""`, `-1`, `false`, `[-1, -1]`), lists of names or
numbers that may be empty are strings, and every kind's keys are in every record. The
JSON Schemas in `indexer/schemas/` say the same; `tests/pipeline/test_record_shape.py`
checks real output against them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from indexer.hygiene.quality import QUALITY

NONE = -1
"""A number (a page, a slide, a paragraph) that does not apply to the record."""

MAIL = ("subject", "from", "date", "message_id")
"""The keys of a chunk's `mail`: the message it belongs to or is attached to."""
MAIL_CHARS = 200
"""The longest value of a chunk's `mail` (a subject may run to pages, and every chunk
of the message carries it)."""

CHUNK_META: dict[str, Any] = {
    "blocks": [NONE, NONE],
    "context": "",
    "headings": "",
    "part": "",
    "quoted": False,
    "mail": dict.fromkeys(MAIL, ""),
    "page": NONE,
    "pages": [NONE, NONE],
    "ocr": False,
    "ocr_confidence": -1.0,
    "low_confidence": False,
    "picture": NONE,
    "sheet": "",
    "rows": [NONE, NONE],
    "slide": NONE,
    "chapter": NONE,
    "para": NONE,
    "index": NONE,
    "indexes": [NONE, NONE],
    "key": "",
    "keys": ["", ""],
    "line": NONE,
    "lines": [NONE, NONE],
    "language": "",
    "pii": "",
}
"""Every chunk's `meta`, in this order, as it is where no key applies. `language` is an
ISO 639 code (`""`: none, or `[hygiene] language = false`); `pii` the personal data
found, `type:start-end` spans space-separated (`docs/hygiene.md`)."""

HEADING_JOIN = " > "
"""How a chunk's heading path is written in `meta.headings` (as in `meta.context`)."""

OCR = (
    "engine", "pages", "pictures", "failed", "unread", "blank", "low_confidence", "confidence",
)  # fmt: skip
"""The string keys of a document's `metadata.ocr`: the engine, and its pages read,
failed, left unread (no engine installed), blank (never sent to the engine) and read
under the confidence threshold, space-separated (an office file's are its `pictures`);
`confidence` is the mean word confidence of every page (picture) read, in the order of
`pages` (`pictures`), then of the pictures read too poorly to place (`low_confidence`)."""
OCR_COUNTS = ("max_pages", "not_read")
"""The number keys of `metadata.ocr`: the page cap and the pages past it (`-1`: none)."""

THREAD = ("id", "parent")
"""The keys of a message's `metadata.thread`: its thread's id, and its parent's `doc_id`
(`""` for a thread's first message and for a parent not resolved)."""

METADATA: dict[str, Any] = {
    "title": "",
    "author": "",
    "description": "",
    "created": "",
    "modified": "",
    "subject": "",
    "from": "",
    "to": "",
    "date": "",
    "message_id": "",
    "in_reply_to": "",
    "references": "",
    "thread": dict.fromkeys(THREAD, ""),
    "format": "",
    "format_version": "",
    "container": "",
    "pages": NONE,
    "failed_pages": "",
    "ocr": {**dict.fromkeys(OCR, ""), **dict.fromkeys(OCR_COUNTS, NONE)},
    "width": NONE,
    "height": NONE,
    "pictures": NONE,
    "slides": NONE,
    "chapters": NONE,
    "sheets": "",
    "members": NONE,
    "notes": "",
    "language": {"code": "", "confidence": -1.0, "mixed": False},
    "quality": dict(QUALITY),
    "near_duplicate": {"cluster": "", "representative": False},
}
"""Every document record's `metadata`, in this order, as it is where no key applies
(`language` and `quality` are `indexer.hygiene`'s, `docs/hygiene.md`)."""

_SPACED = frozenset({"references", "failed_pages"})
"""Lists written as one string, space-separated (as a `References` header is)."""
_LINED = frozenset({"sheets", "notes"})
"""Lists of names and sentences, written one a line."""


def chunk_meta(meta: Mapping[str, Any], mail: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Return `meta` in the stable shape: every key of `CHUNK_META`, in order, then any
    other key as it is (the schema test names it). `mail` fills `meta.mail` when the
    chunk has none (a message's own chunks carry its subject and sender)."""
    out = dict(CHUNK_META)
    out.update(meta)
    headings = meta.get("headings")
    if isinstance(headings, list | tuple):
        out["headings"] = HEADING_JOIN.join(" ".join(str(h).split()) for h in headings)
    if meta.get("ocr_confidence", 0.0) is None:  # no word read: a float all the same
        out["ocr_confidence"] = -1.0
    elif "ocr_confidence" in meta:
        out["ocr_confidence"] = float(meta["ocr_confidence"])
    found = meta.get("mail") or mail
    if isinstance(found, Mapping):
        out["mail"] = {key: _capped(str(found.get(key) or "")) for key in MAIL}
    return out


def metadata(found: Mapping[str, Any]) -> dict[str, Any]:
    """Return a document's `metadata` in the stable shape: every key of `METADATA`, in
    order, lists as strings, then any other key as it is (the schema test names it)."""
    out = dict(METADATA)
    for key, value in found.items():
        if key in _SPACED:
            value = _spaced(value)
        elif key in _LINED and isinstance(value, list | tuple):
            value = "\n".join(str(v) for v in value)
        elif key == "ocr" and isinstance(value, Mapping):
            value = _ocr(value)
        elif key == "thread" and isinstance(value, Mapping):
            value = {k: str(value.get(k) or "") for k in THREAD}
        out[key] = value
    return out


def _ocr(found: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {k: _spaced(found.get(k)) for k in OCR}
    confidence = found.get("confidence")
    if isinstance(confidence, Mapping):  # in the order of `pages` (`pictures`), then the
        # rest: pictures read too poorly to place are in `low_confidence`, not `pictures`
        listed = [str(p) for p in found.get("pages") or found.get("pictures") or ()]
        order = listed + [str(p) for p in confidence if str(p) not in listed]
        out["confidence"] = " ".join(_confidence(confidence.get(p)) for p in order)
    for key in OCR_COUNTS:
        value = found.get(key)
        out[key] = value if isinstance(value, int) else NONE
    return out


def _confidence(value: Any) -> str:
    return "-1" if value is None else f"{float(value):.1f}"


def _capped(value: str) -> str:
    return value if len(value) <= MAIL_CHARS else f"{value[: MAIL_CHARS - 1].rstrip()}…"


def _spaced(value: Any) -> str:
    """A list as one string, space-separated; None as `""`."""
    if isinstance(value, list | tuple):
        return " ".join(str(v) for v in value)
    return "" if value is None else str(value)


def text(value: str | None) -> str:
    """A string field of a record: `""` for none."""
    return "" if value is None else value
