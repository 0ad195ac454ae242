"""`csv`/`tsv`: header-prefixed row groups of `label: value | label: value` records.

Parsing follows the reference implementation's lenient RFC-4180 reading: a
double quote anywhere opens a quoted section, `""` inside one is a literal
quote, and an unterminated section runs to the end of the input; RFC-4180 text
reads as RFC 4180 says. There is no field size limit (the standard library's
reader, with its 128 KiB default, is not used). Blank rows (every field empty
or whitespace) are skipped; ragged rows are kept, extra fields labelled `colN`
(N the 0-based column).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from indexer._spec import extension_of
from indexer._text import decode, gc_paused, normalize_newlines, split_text
from indexer._types import Chunk, Extracted, Options, make_chunk
from indexer.formats import VERSIONS

VERSION = VERSIONS["csv"]  # bumped in indexer/formats/__init__.py

_SNIFFED = (";", "|", "\t")
"""Delimiters tried, in this order of preference, when a `.csv` header has no comma."""
_QUOTED_SECTION = re.compile(r'"([^"]*(?:""[^"]*)*)"?')


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
    lines = text.split("\n")
    rows: list[list[str]] = []
    pos = 0
    while pos < len(lines):
        row, pos = _read_row(lines, pos, delimiter)
        rows.append(row)
    return rows


def split_quoted(row: str, delimiter: str) -> list[str]:
    """Return the fields of one row holding quotes, read as the reference reads them."""
    if len(row) > 1 and row[0] == row[-1] == '"':
        # The common well-formed case: every field quoted, quotes inside doubled.
        cells = row[1:-1].split(f'"{delimiter}"')
        if row.count('"') == 2 * len(cells):  # no quote inside any cell
            return cells
        return _undouble(cells, delimiter) or _sections(row, delimiter)
    return _sections(row, delimiter)


def _undouble(cells: list[str], delimiter: str) -> list[str] | None:
    """`cells` of a row quoted end to end with `""` for `"`, None if other quotes are left."""
    if '"' in delimiter.join(cells).replace('""', ""):
        return None
    return [cell.replace('""', '"') for cell in cells]


def _sections(row: str, delimiter: str) -> list[str]:
    """The fields of `row` with every quote toggling a quoted section (the general case)."""
    # Split on quotes, pieces alternate outside and inside quoted sections; an
    # empty outside piece between two inside ones is a doubled (literal) quote.
    pieces = row.split('"')
    fields = pieces[0].split(delimiter)
    last = len(pieces) - 1
    for k in range(1, last + 1):
        piece = pieces[k]
        if k % 2:
            fields[-1] += piece
        elif not piece:
            if k < last:
                fields[-1] += '"'
        else:
            head, *rest = piece.split(delimiter)
            fields[-1] += head
            fields.extend(rest)
    return fields


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
    lines = text.split("\n")
    pos = 0
    while pos < len(lines):
        header, pos = _read_row(lines, pos, delimiter)
        if header[0].strip() or _has_content(header):
            break
    else:  # nothing but delimiters and whitespace
        trimmed = text.strip()
        if not trimmed:
            return Extracted(kind="csv", text="")
        return Extracted(kind="csv", text=trimmed, chunks=(Chunk(text=trimmed),), degraded=True)
    header_line = join_row(header, delimiter)
    records = _render_records(header, lines[pos:], delimiter)
    if not records:
        return Extracted(kind="csv", text=header_line, chunks=(Chunk(text=header_line),))
    chunks = tuple(_group(header_line, records, options))
    return Extracted(kind="csv", text="\n".join(records), chunks=chunks)


def _read_row(lines: list[str], i: int, delimiter: str) -> tuple[list[str], int]:
    """The row starting at `lines[i]`, as `parse_rows` reads it, and the index after it."""
    line = lines[i]
    if '"' not in line:
        return line.split(delimiter), i + 1
    # Every quote toggles the quoted state ("" toggles twice), so a row that
    # opened a quote ends at the first line bringing the count even.
    quotes = line.count('"')
    end = i + 1
    while quotes % 2 and end < len(lines):
        quotes += lines[end].count('"')
        end += 1
    return split_quoted("\n".join(lines[i:end]), delimiter), end


def _has_content(row: list[str]) -> bool:
    return any(field and not field.isspace() for field in row)


def join_row(row: list[str], delimiter: str) -> str:
    """Return `row` joined by `delimiter`, quoting the cells that need it to re-parse."""
    return delimiter.join(
        f'"{cell.replace(chr(34), chr(34) * 2)}"'
        if delimiter in cell or '"' in cell or "\n" in cell
        else cell
        for cell in row
    )


def _render_records(header: list[str], lines: list[str], delimiter: str) -> list[str]:
    """The records of the rows of `lines` under `header`, skipping rows that strip to empty.

    Rows are read as `parse_rows` reads them and rendered as they come, so no
    list of every row's cells is kept; a line quoted end to end with no quote
    inside a cell (`split_quoted`'s first case) is split here, saving a call.
    """
    labels = [cell.strip().replace("%", "%%") for cell in header]
    width = len(labels)
    full = _template(labels, width)
    strip = str.strip
    between = f'"{delimiter}"'
    records: list[str] = []
    pending: list[str] = []
    quotes = 0
    for line in lines:
        if pending:
            pending.append(line)
            quotes += line.count('"')
            if quotes % 2:
                continue
            row = split_quoted("\n".join(pending), delimiter)
            pending = []
        elif '"' not in line:
            row = line.split(delimiter)
        else:
            quotes = line.count('"')
            if quotes % 2:
                pending = [line]
                continue
            if line[0] == line[-1] == '"':
                row = line[1:-1].split(between)
                if quotes != 2 * len(row):
                    row = _undouble(row, delimiter) or _sections(line, delimiter)
            else:
                row = _sections(line, delimiter)
        if any(cells := tuple(map(strip, row))):
            records.append(
                full % cells if len(cells) == width else _template(labels, len(cells)) % cells
            )
    if pending and any(cells := tuple(map(strip, split_quoted("\n".join(pending), delimiter)))):
        records.append(
            full % cells if len(cells) == width else _template(labels, len(cells)) % cells
        )
    return records


def _template(labels: list[str], width: int) -> str:
    """`label: %s | ...` for a row of `width` fields: short rows name only theirs."""
    names = labels[:width] + [f"col{i}" for i in range(len(labels), width)]
    return " | ".join(f"{name}: %s" for name in names)


def _group(header_line: str, records: list[str], options: Options) -> Iterator[Chunk]:
    # A full group that fits is joined once, header and all: measuring it whole
    # costs less than summing record sizes, and most groups fit.
    budget = options.max_chunk_chars - len(header_line) - 1
    start = 0
    while start < len(records):
        limit = end = min(len(records), start + options.rows_per_chunk)
        text = "\n".join([header_line, *records[start:end]])
        if len(text) > options.max_chunk_chars:  # a full group does not fit
            end, size = start + 1, len(records[start])
            while end < limit and size + 1 + len(records[end]) <= budget:
                size += 1 + len(records[end])
                end += 1
            text = "\n".join([header_line, *records[start:end]])
        if len(text) > options.max_chunk_chars:  # one record too long for a chunk
            yield from _pieces(header_line, records[start], start + 1, options.max_chunk_chars)
        else:
            yield make_chunk(text, {"rows": [start + 1, end]})
        start = end


def _pieces(header_line: str, record: str, row: int, max_chars: int) -> Iterator[Chunk]:
    """A record too long for one chunk, cut at word boundaries: the first piece starts
    with the header line, so that no chunk is the header alone, and every piece names its
    columns (`label: value`); the header is not repeated (the labels say it)."""
    meta = {"rows": [row, row]}
    room = max_chars - len(header_line) - 1
    if room < 64:  # a header that fills a chunk: it is one, then the record's pieces
        yield make_chunk(header_line, meta)
        yield from (make_chunk(p, dict(meta)) for p in split_text(record, max_chars))
        return
    first = split_text(record, room)[0]  # a prefix of the record
    rest = record[len(first) :].strip()
    yield make_chunk(f"{header_line}\n{first}", meta)
    yield from (make_chunk(p, dict(meta)) for p in (split_text(rest, max_chars) if rest else ()))
