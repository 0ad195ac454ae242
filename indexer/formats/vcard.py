"""`vcard`: contact cards (`.vcf`, vCard 2.1, 3.0 and 4.0), one chunk per card.

Each card's chunk (`meta.index` its number) has `Name:` (`FN`, else the parts of `N`),
`Organization:` and `Title:`, then a line per `EMAIL`, `TEL`, `ADR` and `URL` with its
types (`Email (work): ...`), then the `NOTE`. Lines are unfolded, 2.1's
quoted-printable values decoded in their `CHARSET`, escapes (`\\n`, `\\,`) undone;
pictures and keys are left out. `metadata.title` is the first card's name. Input with
no `BEGIN:VCARD` is read as plain text (`degraded`).
"""

from __future__ import annotations

import quopri
import re
from collections.abc import Iterator

from indexer._text import decode
from indexer._types import Extracted, Options, make_chunk
from indexer.formats import VERSIONS, text

__all__ = ["KIND", "VERSION", "chunk", "extract", "quoted_printable", "read_cards", "unfold"]

KIND = "vcard"
VERSION = VERSIONS[KIND]  # bumped in indexer/formats/__init__.py
Line = tuple[str, dict[str, str], str]
"""A content line: its upper-case name, its parameters (upper-case names), its raw value."""

_FOLD = re.compile(r"\r?\n[ \t]")
_QP_FOLD = re.compile(r"=\r?\n[ \t]")
_ESCAPE = re.compile(r"\\(.)")
_LISTED = {"EMAIL": "Email", "TEL": "Phone", "ADR": "Address", "URL": "Web"}
_TYPE_WORDS = {"HOME", "WORK", "CELL", "FAX", "MOBILE", "OTHER", "PAGER", "MAIN"}
_BINARY = {"PHOTO", "LOGO", "SOUND", "KEY"}


def extract(data: bytes, path: str, options: Options) -> Extracted:
    """Extract the cards of a `.vcf` file; never raises."""
    if not data.strip():
        return Extracted(kind=KIND, text="")
    chunks = [make_chunk(card, {"index": i}) for i, card in enumerate(read_cards(decode(data)))]
    if not chunks:
        plain = text.extract(data, path, options)
        return Extracted(kind=KIND, text=plain.text, chunks=plain.chunks, degraded=True)
    title = chunks[0].text.partition("\n")[0].removeprefix("Name: ")
    return Extracted(
        kind=KIND,
        text="\n\n".join(c.text for c in chunks),
        chunks=tuple(chunks),
        metadata={"title": title},
    )


def read_cards(source: str) -> Iterator[str]:
    """Each card of `source` rendered as text, in order (cards without text left out)."""
    card: list[Line] | None = None
    for line in _lines(source):
        name, _, value = line
        if name == "BEGIN" and value.strip().upper() == "VCARD":
            card = []
        elif name == "END" and card is not None:
            if rendered := _render(card):
                yield rendered
            card = None
        elif card is not None:
            card.append(line)


def _lines(source: str) -> Iterator[Line]:
    for raw in unfold(source):
        if line := _line(raw):
            yield line


def unfold(source: str) -> Iterator[str]:
    """The content lines of a vCard or vCalendar `source`: folded lines joined, and the
    soft line breaks of quoted-printable values (vCard 2.1, vCalendar 1.0) too."""
    pending = ""
    # a folded quoted-printable soft break (`=` then a folded line) stays a soft break
    for raw in _FOLD.sub("", _QP_FOLD.sub("=\n", source)).splitlines():
        if pending:
            raw, pending = pending[:-1] + raw.lstrip(" \t"), ""
        if raw.endswith("=") and "QUOTED-PRINTABLE" in raw.partition(":")[0].upper():
            pending = raw
            continue
        yield raw
    if pending:
        yield pending


def _line(raw: str) -> Line | None:
    head, colon, value = raw.partition(":")
    if not colon:
        return None
    name, *params = head.split(";")
    return name.rpartition(".")[2].strip().upper(), _params(params), value


def _params(params: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for param in params:
        key, eq, value = param.partition("=")
        if not eq:  # 2.1's bare types: TEL;WORK;VOICE
            key, value = "TYPE", key
        key = key.strip().upper()
        out[key] = f"{out[key]},{value}" if key in out else value
    return out


def quoted_printable(value: str, charset: str | None) -> str:
    """A quoted-printable value decoded, its bytes read in `charset` (UTF-8 if none),
    its line breaks `\n`."""
    raw = quopri.decodestring(value.encode("latin-1", "replace"))
    try:
        text = raw.decode(charset or "utf-8", "replace")
    except LookupError:  # a charset Python does not know
        text = raw.decode("utf-8", "replace")
    return text.replace("\r\n", "\n")


def _value(params: dict[str, str], value: str) -> str:
    if params.get("ENCODING", "").upper() == "QUOTED-PRINTABLE":
        value = quoted_printable(value, params.get("CHARSET"))
    value = _ESCAPE.sub(lambda m: "\n" if m.group(1) in "nN" else m.group(1), value)
    return value.replace("\r\n", "\n").strip()


def _render(card: list[Line]) -> str:
    values: dict[str, list[tuple[dict[str, str], str]]] = {}
    for name, params, raw in card:
        if name not in _BINARY and params.get("ENCODING", "").upper() not in ("B", "BASE64"):
            values.setdefault(name, []).append((params, _value(params, raw)))
    first = {name: found[0][1] for name, found in values.items()}
    name = first.get("FN") or " ".join(p for p in _parts(first.get("N", ""))[::-1][-4:] if p)
    lines = [f"Name: {name}"] if name else []
    if org := ", ".join(p for p in _parts(first.get("ORG", "")) if p):
        lines.append(f"Organization: {org}")
    if title := first.get("TITLE"):
        lines.append(f"Title: {title}")
    for key, label in _LISTED.items():
        for params, value in values.get(key, []):
            shown = ", ".join(p for p in _parts(value) if p) if key == "ADR" else value
            if shown:
                lines.append(f"{label}{_types(params)}: {shown}")
    if note := "\n".join(v for _, v in values.get("NOTE", []) if v):
        lines.append(f"\n{note}")
    return "\n".join(lines).strip()


def _parts(value: str) -> list[str]:
    """A structured value's parts (`N`, `ORG`, `ADR` are `;`-separated), trimmed."""
    return [part.strip() for part in value.replace("\n", " ").split(";")]


def _types(params: dict[str, str]) -> str:
    types = [t.strip().lower() for t in params.get("TYPE", "").replace('"', "").split(",")]
    shown = [t for t in types if t.upper() in _TYPE_WORDS]
    return f" ({', '.join(shown)})" if shown else ""


def chunk(text: str, options: Options) -> Extracted:
    """Chunk a file given as text (encoded as UTF-8 and read as `extract` reads bytes)."""
    return extract(text.encode("utf-8", "replace"), "", options)
