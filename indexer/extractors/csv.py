"""`csv`/`tsv`: header-prefixed row groups of `label: value | label: value` records.

Parsing follows the reference implementation's lenient RFC-4180 reading: a
double quote anywhere opens a quoted section, `""` inside one is a literal
quote, and an unterminated section runs to the end of the input. Text whose
quotes all sit where RFC 4180 puts them reads the same under the standard
library's C reader, which is used then for speed. There is no field size
limit. Blank rows (every field empty or whitespace) are skipped; ragged rows
are kept, extra fields labelled `colN` (N the 0-based column).
"""

from __future__ import annotations

import csv as _stdcsv
import io
import re
from collections.abc import Iterator
from functools import lru_cache

from indexer._text import decode, gc_paused, normalize_newlines
from indexer._types import Chunk, Extracted, Options
from indexer.registry import extension_of

VERSION = "1"

_SNIFFED = (";", "|", "\t")
"""Delimiters tried, in this order of preference, when a `.csv` header has no comma."""
_QUOTED_SECTION = re.compile(r'"([^"]*(?:""[^"]*)*)"?')

# The standard library's default is 128 KiB per field; 2**31 - 1 fits a C long
# everywhere. Nothing else in indexer reads CSV, so raising it once is harmless.
_stdcsv.field_size_limit(2**31 - 1)


def extract(data: bytes, path: str, options: Options) -> Extracted:
    """Decode `data` and chunk it; `.tsv` is tab-separated, `.csv` comma or sniffed.

    Returns an `Extracted` of kind `csv`; never raises for any input.
    """
    text = decode(data)
    delimiter = "\t" if extension_of(path) == "tsv" else sniff_delimiter(text)
    return chunk_rows(text, delimiter, options)


def chunk(text: str, options: Options) -> Extracted:
    """Chunk already-decoded CSV text, comma-separated unless the header says otherwise."""
    text = normalize_newlines(text)
    return chunk_rows(text, sniff_delimiter(text), options)


def sniff_delimiter(text: str) -> str:
    """Return `,`, or the commonest of `;`, `|` and tab when the header row has no comma.

    Only delimiters outside quoted sections of the first non-blank row count.
    """
    header = _first_row(text)
    if '"' in header:
        header = _QUOTED_SECTION.sub("", header)
    if "," in header:
        return ","
    best = max(_SNIFFED, key=header.count)
    return best if header.count(best) else ","


def _first_row(text: str) -> str:
    lines: list[str] = []
    quotes = 0
    for line in text.split("\n", 1024):  # bounded: only the header row is wanted
        if not lines and not line.strip():
            continue
        lines.append(line)
        quotes += line.count('"')
        if quotes % 2 == 0:
            break
    return "\n".join(lines)


def parse_rows(text: str, delimiter: str) -> list[list[str]]:
    """Return the rows of LF-separated `text`, blank rows included, fields unquoted."""
    if '"' not in text:
        return [line.split(delimiter) for line in text.split("\n")]
    if _rfc_quoting(text, delimiter):
        try:
            reader = _stdcsv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
            return list(reader)
        except _stdcsv.Error:
            pass
    return _toggle_rows(text, delimiter)


def _rfc_quoting(text: str, delimiter: str) -> bool:
    """True when every quote opens a field, closes one or is half of a `""` inside one.

    Splitting on quotes alternates text outside and inside quoted sections; an
    empty outside piece between two inside ones is a doubled quote.
    """
    parts = text.split('"')
    if len(parts) % 2 == 0:  # an odd number of quotes: the last section never closes
        return False
    bounds = ("", delimiter, "\n")
    if parts[0][-1:] not in bounds or parts[-1][:1] not in bounds:
        return False
    return all(not p or (p[0] in bounds and p[-1] in bounds) for p in parts[2:-1:2])


def _toggle_rows(text: str, delimiter: str) -> list[list[str]]:
    rows: list[list[str]] = []
    pending: list[str] = []
    quotes = 0
    for line in text.split("\n"):
        if pending:
            # Every quote toggles the quoted state ("" toggles twice), so a row
            # that opened a quote ends at the first line bringing the count even.
            pending.append(line)
            quotes += line.count('"')
            if quotes % 2 == 0:
                rows.append(_split_quoted("\n".join(pending), delimiter))
                pending = []
        elif '"' not in line:
            rows.append(line.split(delimiter))
        else:
            quotes = line.count('"')
            if quotes % 2:
                pending = [line]
            else:
                rows.append(_split_quoted(line, delimiter))
    if pending:
        rows.append(_split_quoted("\n".join(pending), delimiter))
    return rows


def _split_quoted(row: str, delimiter: str) -> list[str]:
    if len(row) > 1 and row[0] == row[-1] == '"':
        # The common well-formed case: every field quoted, quotes inside doubled.
        cells = row[1:-1].split(f'"{delimiter}"')
        if '"' not in delimiter.join(cells).replace('""', ""):
            return [cell.replace('""', '"') for cell in cells]
    fields: list[str] = []
    for field, sep in _field_pattern(delimiter).findall(row):
        fields.append(_unquote(field) if '"' in field else field)
        if not sep:  # the end of the row; findall may add one empty match after it
            break
    return fields


@lru_cache(maxsize=8)
def _field_pattern(delimiter: str) -> re.Pattern[str]:
    # A field is a run of plain text and quoted sections, up to the delimiter
    # or the end of the row. A section's closing quote is optional so that an
    # unterminated one runs to the end of the input.
    d = re.escape(delimiter)
    return re.compile(rf'((?:[^"{d}]+|"[^"]*(?:""[^"]*)*"?)*)({d}|\Z)')


def _unquote(field: str) -> str:
    if len(field) > 1 and field[0] == field[-1] == '"':
        inner = field[1:-1]
        if '"' not in inner.replace('""', ""):
            return inner.replace('""', '"')
    return _QUOTED_SECTION.sub(lambda m: m.group(1).replace('""', '"'), field)


def chunk_rows(text: str, delimiter: str, options: Options) -> Extracted:
    """Chunk LF-separated `text` split on `delimiter` into header-prefixed row groups.

    Returns chunks of the header line then up to `options.rows_per_chunk` records
    (fewer when more would pass `options.max_chunk_chars`), meta `{"rows": [first,
    last]}` counting non-blank data rows from 1. Header-only input gives one
    chunk of the header line; input of blank rows only degrades to its text.
    """
    with gc_paused():
        return _chunk_rows(text, delimiter, options)


def _chunk_rows(text: str, delimiter: str, options: Options) -> Extracted:
    rows = iter([row for row in parse_rows(text, delimiter) if _has_content(row)])
    header = next(rows, None)
    if header is None:  # nothing but delimiters and whitespace
        trimmed = text.strip()
        if not trimmed:
            return Extracted(kind="csv", text="")
        return Extracted(kind="csv", text=trimmed, chunks=(Chunk(text=trimmed),), degraded=True)
    header_line = join_row(header, delimiter)
    records = _render_records(header, rows)
    if not records:
        return Extracted(kind="csv", text=header_line, chunks=(Chunk(text=header_line),))
    chunks = tuple(_group(header_line, records, options))
    return Extracted(kind="csv", text="\n".join(records), chunks=chunks)


def _has_content(row: list[str]) -> bool:
    return bool(row) and (bool(row[0].strip()) or any(f and not f.isspace() for f in row))


def join_row(row: list[str], delimiter: str) -> str:
    """Return `row` joined by `delimiter`, quoting the cells that need it to re-parse."""
    return delimiter.join(
        f'"{cell.replace(chr(34), chr(34) * 2)}"'
        if delimiter in cell or '"' in cell or "\n" in cell
        else cell
        for cell in row
    )


def _render_records(header: list[str], rows: Iterator[list[str]]) -> list[str]:
    labels = [cell.strip().replace("%", "%%") for cell in header]
    templates: dict[int, str] = {}
    records: list[str] = []
    for row in rows:
        template = templates.get(len(row))
        if template is None:
            template = templates[len(row)] = _template(labels, len(row))
        records.append(template % tuple(map(str.strip, row)))
    return records


def _template(labels: list[str], width: int) -> str:
    """`label: %s | ...` for a row of `width` fields: short rows name only theirs."""
    names = labels[:width] + [f"col{i}" for i in range(len(labels), width)]
    return " | ".join(f"{name}: %s" for name in names)


def _group(header_line: str, records: list[str], options: Options) -> Iterator[Chunk]:
    budget = options.max_chunk_chars - len(header_line) - 1
    start = 0
    while start < len(records):
        end, size = start + 1, len(records[start])
        limit = min(len(records), start + options.rows_per_chunk)
        while end < limit and size + 1 + len(records[end]) <= budget:
            size += 1 + len(records[end])
            end += 1
        body = "\n".join(records[start:end])
        yield Chunk(text=f"{header_line}\n{body}", meta={"rows": [start + 1, end]})
        start = end
