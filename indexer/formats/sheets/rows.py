"""A sheet's rows as text: cells as a person sees them, a header found, records grouped.

A chunk is the sheet's header block (`## name`, any title lines above the table,
the header row) and then up to `rows_per_chunk` records `label: value | ...`, as
the CSV kind's; empty cells are left out of a record and empty rows dropped. The
header is the first non-empty row when all its cells are text; a header cell
merged across columns labels each of them, and a text row under a merged or a
sparser header row completes its labels (`Revenue 2023`). Columns without a
label use their letter.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import chain, islice
from typing import Any

from indexer._types import Chunk, Options, make_chunk
from indexer.formats.sheets.samples import column_letters

Position = tuple[int, int]
Merged = list[tuple[Position, Position]]
_MAX_TITLES = 3
_EXACT = float(2**53)
"""Whole floats below this are exact integers, and print as such."""


def cell_text(value: Any) -> str:
    """A cell as a person sees it: `3` not `3.0`, ISO 8601 dates and times, `TRUE`, trimmed
    text (its line breaks as spaces), durations as `h:mm:ss`."""
    kind = type(value)
    if kind is float:
        if value.is_integer() and -_EXACT < value < _EXACT:
            return str(int(value))
        text = repr(value)  # the shortest exact form; float noise gets Excel's 15 digits
        return text if len(text) < 17 else format(value, ".15g")
    if kind is str:
        if not value:
            return ""
        return " ".join(value.split()) if "\n" in value or "\r" in value else value.strip()
    if kind is bool:
        return "TRUE" if value else "FALSE"
    if kind is datetime.timedelta:
        seconds = int(value.total_seconds())
        sign, seconds = ("-", -seconds) if seconds < 0 else ("", seconds)
        return f"{sign}{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"
    if kind is datetime.datetime:  # ISO 8601 with a space (RFC 3339): `2024-01-31 10:00:00`
        return _whole_seconds(value).isoformat(sep=" ")
    if kind is datetime.time:
        return (
            _whole_seconds(datetime.datetime.combine(datetime.date.min, value)).time().isoformat()
        )
    if kind is datetime.date:
        return value.isoformat()  # type: ignore[no-any-return]
    return str(value)


def _whole_seconds(value: datetime.datetime) -> datetime.datetime:
    """Rounded to the second: a stored time of day carries float noise (06:15:00.687)."""
    if not value.microsecond:
        return value
    return (value + datetime.timedelta(microseconds=500_000)).replace(microsecond=0)


@dataclass(frozen=True, slots=True, kw_only=True)
class SheetText:
    """One sheet rendered: its header block and its records with their row numbers."""

    name: str
    head: str
    records: list[tuple[int, str]]

    @property
    def text(self) -> str:
        """The whole sheet: the header block, then every record."""
        return "\n".join([self.head, *(record for _, record in self.records)])


def render(
    name: str,
    rows: Iterable[tuple[int, list[Any]]],
    col0: int,
    merged: Merged,
    errors: dict[int, dict[int, str]],
) -> SheetText | None:
    """Render a sheet's `(row number, cells)` rows; None when it has no non-empty cell.

    `col0` is the 0-based column of each row list's first cell; `errors` gives the
    text of error cells the reader left empty, by 0-based row and column.
    """
    cells = _texts(rows, col0, errors)
    first = list(islice(cells, _MAX_TITLES + 2))
    if not first:
        return None
    titles, header, rest = _split_head(first)
    labels = _Labels(col0)
    lines = [f"## {name}", *titles]
    if header is not None:
        second = rest[0] if rest and _completes(header, rest[0], merged) else None
        if second is not None:
            rest = rest[1:]
        labels.named = _labels(header, second, col0, merged)
        named = labels.named
        lines.append(" | ".join(v for i, v in enumerate(named) if v != column_letters(col0 + i)))
    records = [
        (number, record) for number, row, _ in chain(rest, cells) if (record := labels.of(row))
    ]
    return SheetText(name=name, head="\n".join(lines), records=records)


Row = tuple[int, list[str], bool]
"""A non-empty row: its number, its cells' text, and whether every cell is text."""


def _texts(
    rows: Iterable[tuple[int, list[Any]]], col0: int, errors: dict[int, dict[int, str]]
) -> Iterator[Row]:
    for number, raw in rows:
        texts = list(map(cell_text, raw))
        for c, text in errors.get(number - 1, {}).items():
            if 0 <= c - col0 < len(texts):
                texts[c - col0] = text
        if any(texts):
            yield number, texts, all(type(v) is str for v in raw)


def _split_head(first: list[Row]) -> tuple[list[str], Row | None, list[Row]]:
    """Title lines (one text cell above a wider table), the header row or None, the rest."""
    width = max(sum(1 for v in row if v) for _, row, _ in first)
    titles: list[str] = []
    k = 0
    while k < len(first) - 1 and width > 1 and len(titles) < _MAX_TITLES:
        _, row, textual = first[k]
        if not textual or sum(1 for v in row if v) != 1:
            break
        titles.append(next(v for v in row if v))
        k += 1
    if not first[k][2]:  # a number or a date in the first row: data, not a header
        return titles, None, first[k:]
    return titles, first[k], first[k + 1 :]


def _completes(header: Row, below: Row, merged: Merged) -> bool:
    """True when the text row `below` completes the header's labels: under a merged
    group label, or under a row with fewer labels (`Q1` above `Sales | Costs`)."""
    if not below[2]:
        return False
    filled = sum(1 for v in header[1] if v)
    return bool(_spans(header[0], merged)) or filled < sum(1 for v in below[1] if v)


def _spans(number: int, merged: Merged) -> list[tuple[int, int]]:
    """The column spans of the cells merged across columns on row `number` (1-based)."""
    return [(c1, c2) for (r1, c1), (r2, c2) in merged if r1 <= number - 1 <= r2 and c2 > c1]


def _labels(header: Row, second: Row | None, col0: int, merged: Merged) -> list[str]:
    """The header's labels: merged cells fill their span; a second row completes them."""
    labels = list(header[1])
    for c1, c2 in _spans(header[0], merged):
        value = labels[c1 - col0] if 0 <= c1 - col0 < len(labels) else ""
        for i in range(max(c1 - col0, 0), min(c2 - col0 + 1, len(labels))):
            labels[i] = labels[i] or value
    if second is not None:
        below = second[1]
        width = max(len(labels), len(below))
        labels += [""] * (width - len(labels))
        below = below + [""] * (width - len(below))
        labels = [" ".join(p for p in (a, b) if p) for a, b in zip(labels, below, strict=True)]
    return [label or column_letters(col0 + i) for i, label in enumerate(labels)]


class _Labels:
    """Column labels: the header's where it has one, else the column's letter."""

    def __init__(self, col0: int) -> None:
        self.col0 = col0
        self.named: list[str] = []
        self._prefixes: list[str] = []

    def of(self, row: list[str]) -> str:
        """The record `label: value | ...` of a row's non-empty cells."""
        prefixes = self._prefixes
        if len(prefixes) < len(row):
            prefixes = self._prefixes = [f"{label}: " for label in self._labels(len(row))]
        return " | ".join([p + v for p, v in zip(prefixes, row, strict=False) if v])

    def _labels(self, width: int) -> list[str]:
        named = self.named
        return [named[i] if i < len(named) else column_letters(self.col0 + i) for i in range(width)]


def cut_note(name: str, rows: int, cells: int, cap: int) -> str:
    """The note on a sheet cut to `rows` rows (dropped, at 0) for passing `cap` cells."""
    if not rows:
        return f"sheet {name!r} dropped: its cells lie beyond its rows (about {cells} cells)"
    return f"sheet {name!r} cut to its first {rows} rows: about {cells} cells, over {cap}"


def group(sheet: SheetText, options: Options) -> Iterator[Chunk]:
    """The sheet's chunks: its header block, then up to `rows_per_chunk` records each.

    Fewer records go in a chunk when more would pass `max_chunk_chars`; meta is
    `{"sheet": name, "rows": [first, last]}` with the sheet's own row numbers.
    """
    head, records = sheet.head, sheet.records
    if not records:
        yield make_chunk(head, {"sheet": sheet.name})  # no data rows: no range
        return
    budget = options.max_chunk_chars - len(head) - 1
    start = 0
    while start < len(records):
        end = min(len(records), start + options.rows_per_chunk)
        size = sum(len(text) + 1 for _, text in records[start:end])
        while size > budget and end > start + 1:
            end -= 1
            size -= len(records[end][1]) + 1
        text = "\n".join([head, *(t for _, t in records[start:end])])
        meta = {"sheet": sheet.name, "rows": [records[start][0], records[end - 1][0]]}
        yield make_chunk(text, meta)
        start = end
