"""`calendar`: iCalendar (`.ics`) and vCalendar (`.vcs`) files, read by `icalendar`.

One chunk per event, to-do or journal entry (`meta.index` its number), in file order:
`Event: <summary>`, then `When:` its start and end (a date, or a time with its time
zone's name), `Repeats:` its recurrence rule as written (a rule is rendered, never
expanded), `Location:`, `Organizer:`, `Attendees:` (`Name <address>`, comma-separated)
and the description. `metadata.title` is the calendar's name (`X-WR-CALNAME`), else
the first summary. A file that does not parse is
read as plain text (`degraded`).
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from icalendar import Calendar

from indexer._text import decode
from indexer._types import Chunk, Extracted, Options, make_chunk
from indexer.formats import VERSIONS, text
from indexer.formats.vcard import quoted_printable, unfold

__all__ = ["KIND", "VERSION", "chunk", "extract"]

KIND = "calendar"
VERSION = VERSIONS[KIND]  # bumped in indexer/formats/__init__.py
_ITEMS = {"VEVENT": "Event", "VTODO": "To-do", "VJOURNAL": "Journal"}


def extract(data: bytes, path: str, options: Options) -> Extracted:
    """Extract the events of a calendar file; never raises for bad input."""
    if not data.strip():
        return Extracted(kind=KIND, text="")
    try:
        calendars = Calendar.from_ical(_source(data), multiple=True)
        chunks = [
            make_chunk(rendered, {"index": i})
            for i, rendered in enumerate(
                _item(item) for cal in calendars for item in cal.walk() if item.name in _ITEMS
            )
        ]
    except Exception:  # icalendar raises ValueError, KeyError, ... on damaged input
        return _as_text(data, path, options)
    if not chunks:
        return _as_text(data, path, options)
    return Extracted(
        kind=KIND,
        text="\n\n".join(c.text for c in chunks),
        chunks=tuple(chunks),
        metadata=_metadata(calendars, chunks),
    )


def _source(data: bytes) -> bytes | str:
    """`data` as icalendar takes it: vCalendar 1.0's quoted-printable soft line breaks
    joined first (icalendar knows only folding)."""
    if b"QUOTED-PRINTABLE" not in data.upper():
        return data
    return "\r\n".join(unfold(decode(data))) + "\r\n"


def _as_text(data: bytes, path: str, options: Options) -> Extracted:
    plain = text.extract(data, path, options)
    return Extracted(kind=KIND, text=plain.text, chunks=plain.chunks, degraded=True)


def _metadata(calendars: list[Calendar], chunks: list[Chunk]) -> dict[str, Any]:
    name = next((str(c["X-WR-CALNAME"]) for c in calendars if "X-WR-CALNAME" in c), "")
    first = chunks[0].text.partition("\n")[0].partition(": ")[2]
    return {"title": name.strip() or first}


def _item(item: Any) -> str:
    lines = [f"{_ITEMS[item.name]}: {_value(item.get('SUMMARY')) or '(no summary)'}"]
    span = (_time(item.get("DTSTART")), _time(item.get("DTEND") or item.get("DUE")))
    when = " – ".join(t for t in span if t)
    fields = (
        ("When", when),
        ("Repeats", "; ".join(r.to_ical().decode() for r in _many(item.get("RRULE")))),
        ("Location", _value(item.get("LOCATION"))),
        ("Organizer", _person(item.get("ORGANIZER"))),
        ("Attendees", ", ".join(p for p in map(_person, _many(item.get("ATTENDEE"))) if p)),
    )
    lines += [f"{name}: {value}" for name, value in fields if value]
    description = _value(item.get("DESCRIPTION"))
    return "\n".join(lines) + (f"\n\n{description}" if description else "")


def _many(value: Any) -> list[Any]:
    if value is None:
        return []
    return list(value) if isinstance(value, list) else [value]


def _value(value: Any) -> str:
    return " ".join(map(_decoded, _many(value))).strip()


def _decoded(prop: Any) -> str:
    params = getattr(prop, "params", {})
    if str(params.get("ENCODING", "")).upper() == "QUOTED-PRINTABLE":  # vCalendar 1.0
        return quoted_printable(str(prop), params.get("CHARSET"))
    return str(prop)


def _time(prop: Any) -> str:
    """A start or end as written: a date, or a time and its zone (`TZID`, `UTC`)."""
    if prop is None:
        return ""
    when = getattr(prop, "dt", None)
    if isinstance(when, datetime):
        zone = prop.params.get("TZID") or (when.tzname() if when.tzinfo else "")
        return f"{when:%Y-%m-%d %H:%M}" + (f" {zone}" if zone else "")
    if isinstance(when, date):
        return f"{when:%Y-%m-%d}"
    return str(when or "")


def _person(prop: Any) -> str:
    if prop is None:
        return ""
    addr = str(prop)
    addr = addr[7:] if addr.lower().startswith("mailto:") else addr
    name = str(prop.params.get("CN", "")).strip() if hasattr(prop, "params") else ""
    return f"{name} <{addr}>" if name and addr else name or addr


def chunk(text: str, options: Options) -> Extracted:
    """Chunk a file given as text (encoded as UTF-8 and read as `extract` reads bytes)."""
    return extract(text.encode("utf-8", "replace"), "", options)
