"""`doc`: legacy Word 97-2003 binary documents, text through the piece table.

The `WordDocument` stream's FIB says where the text lives: the piece table (`Clx`) in
the table stream maps character positions to 8-bit (cp1252) or UTF-16 runs. The
stories follow each other in that text: main body, footnotes, headers, comments,
endnotes, text boxes. Paragraphs end with CR; field instructions (between the
field's begin and separator marks) are dropped and their results kept; table
cells end with BEL. There are no heading styles here: every paragraph is a plain
block, `meta` `{"headings": []}`, with `part` on the non-body stories as `docx`
does. An encrypted document fails with `encrypted`; a Word 6 or Word 95 file (an
older FIB) is skipped with "legacy binary Word format: Word 6.0/95 (nFib 104), convert
to .docx", the version by its nFib.

A document without text of its own can still show some: a Word document embedded as
an object (`ObjectPool`) is read, its blocks with `part` `embedded`; else pictures
(a scan pasted into Word) are read by OCR (`pictures`), chunks with `{"picture": n,
"ocr": true}`. When neither gives text the failure says so: "no text: only pictures
(2); OCR is off", say, rather than a bare "no text".
"""

from __future__ import annotations

import re
import struct
from typing import Any

from indexer._types import Extracted, Options
from indexer.formats import VERSIONS
from indexer.formats.office.blocks import Block, Doc
from indexer.formats.office.container import ENCRYPTED, ContainerError
from indexer.formats.office.entry import run
from indexer.formats.office.ole import ole_metadata, open_ole, stream
from indexer.formats.office.picture_text import PictureText
from indexer.formats.office.pictures import blips

__all__ = ["LEGACY_WORD", "VERSION", "extract", "legacy_word", "read"]

VERSION = VERSIONS["doc"]  # bumped in indexer/formats/__init__.py

LEGACY_WORD = "legacy binary Word format"
"""The reason code of a Word file older than Word 97: `skipped`, its version in the detail."""
_ACCEPTS = ("doc",)
_WORD97 = 193
"""The FIB version (`nFib`) of Word 97, which the piece table layout needs."""
_STORIES = ("body", "notes", "header", "macro", "comments", "notes", "boxes", "header")
"""What each `ccp*` count of the FIB (in order) measures, as the part a block names."""
_PICTURE_MARKS = "\x01\x08"
"""The characters that stand for an inline picture and a drawn (floating) object."""
Section = tuple[str | None, list[Block]]
_FIELD = re.compile("\x13[^\x13\x14\x15]*(?:\x14([^\x13\x14\x15]*))?\x15")
_CONTROL = str.maketrans(
    {"\x07": "\t", "\x0b": "\n", "\x0c": "\n\n", "\x0e": "\n", "\x1e": "-", "\x1f": None,
     "\xa0": " ", "\x01": None, "\x02": None, "\x03": None, "\x04": None, "\x05": None,
     "\x08": None, "\x13": None, "\x14": None, "\x15": None}
)  # fmt: skip


def extract(data: bytes, path: str, options: Options) -> Extracted:
    """Extract a Word 97-2003 document; never raises for bad input (see `entry.run`)."""
    return run("doc", _ACCEPTS, read, data, path, options)


def read(data: bytes, options: Options) -> Doc:
    """Read a Word 97-2003 document into paragraph blocks; raises `ContainerError`."""
    with open_ole(data) as ole:
        raw, counts, header_cps, word = _word(ole, "")
        doc = Doc(sections=_sections(raw, counts, header_cps), metadata=ole_metadata(ole))
        if not _has_text(doc.sections):  # what it shows is objects: a document, pictures
            embedded = [
                b for prefix in _objects(ole) for _, bs in _embedded(ole, prefix) for b in bs
            ]
            if embedded:
                doc.sections.append(("embedded", embedded))
            else:
                pictures = stream(ole, "Data") if ole.exists("Data") else b""
                _read_pictures(doc, raw, (pictures, word), options)
    return doc


def _word(ole: Any, prefix: str) -> tuple[bytes, list[int], list[int], bytes]:
    """The text (UTF-16-LE), story lengths and header positions of the Word document in
    storage `prefix` (`""`: the file's own), and its `WordDocument` stream."""
    word = stream(ole, f"{prefix}WordDocument")
    if len(word) < 0x200 or struct.unpack_from("<H", word, 0)[0] != 0xA5EC:
        raise ContainerError("corrupt: no Word document stream")
    n_fib, flags = struct.unpack_from("<H", word, 2)[0], struct.unpack_from("<H", word, 10)[0]
    if flags & 0x0100 or flags & 0x8000:  # fEncrypted, fObfuscated
        raise ContainerError(ENCRYPTED)
    if n_fib < _WORD97:
        raise ContainerError(legacy_word(n_fib))
    table = stream(ole, prefix + ("1Table" if flags & 0x0200 else "0Table"))
    counts, clx, hdd = _fib(word)
    return _piece_text(word, table, clx, sum(counts) + 1), counts, _plc(table, hdd), word


def legacy_word(n_fib: int) -> str:
    """The skip reason of a Word file older than Word 97, naming its version by `nFib`."""
    if 101 <= n_fib <= 105:
        version = "Word 6.0/95"
    elif n_fib <= 45:  # Word for Windows 2.0's FIB, and older
        version = "Word 2.0 or older"
    else:  # the betas between Word 95 and Word 97
        version = "a pre-release of Word 97"
    return f"{LEGACY_WORD}: {version} (nFib {n_fib}), convert to .docx"


def _has_text(sections: list[Section]) -> bool:
    return any(blocks for _, blocks in sections)


def _objects(ole: Any) -> list[str]:
    """The storages of the Word documents embedded as objects (`ObjectPool/_n/`)."""
    found = {"/".join(e[:2]) for e in ole.listdir() if len(e) == 3 and e[0] == "ObjectPool"}
    return sorted(f"{p}/" for p in found if ole.exists(f"{p}/WordDocument"))


def _embedded(ole: Any, prefix: str) -> list[Section]:
    """An embedded Word document's stories; none when it cannot be read (an old version)."""
    try:
        return _sections(*_word(ole, prefix)[:3])
    except (ContainerError, struct.error, IndexError):
        return []


def _sections(raw: bytes, counts: list[int], header_cps: list[int]) -> list[Section]:
    """The stories of the text as blocks by part, in output order."""
    sections: dict[str | None, list[Block]] = {}
    at = 0
    for count, story in zip(counts, _STORIES, strict=True):
        if story == "header":
            for kind, text in _header_stories(raw, at, count, header_cps):
                sections.setdefault(kind, []).extend(_blocks(text))
        elif story != "macro":
            part = None if story == "body" else story
            sections.setdefault(part, []).extend(_blocks(_story(raw, at, at + count)))
        at += count
    order = ("header", None, "boxes", "notes", "comments", "footer")
    return [(p, _unique(sections.get(p, []), p)) for p in order]


def _read_pictures(doc: Doc, raw: bytes, streams: tuple[bytes, ...], options: Options) -> None:
    """A document without text made of pictures (scans, say): their text by OCR, or
    the reason there is none that says what the document holds."""
    marks = sum(raw.decode("utf-16-le", "replace").count(c) for c in _PICTURE_MARKS)
    if not marks:
        return
    found = [picture for data in streams for picture in blips(data)]
    doc.metadata["pictures"] = marks
    if not found:
        doc.no_text = f"no text: only pictures ({marks}), none in a format OCR reads"
        return
    pictures = PictureText.of(found, options, "")
    chunks = [
        chunk
        for n in range(1, len(found) + 1)
        for chunk in pictures.chunks(str(n), {"headings": [], "picture": n})
    ]
    pictures.place(doc)
    if chunks:
        doc.chunks = chunks
    else:
        doc.no_text = f"no text: only pictures ({marks}); {pictures.why_not}"


def _story(raw: bytes, start: int, end: int) -> str:
    """Characters `start`..`end` of the text, counted in UTF-16 code units as Word does
    (a character outside the BMP is two)."""
    return raw[2 * start : 2 * end].decode("utf-16-le", "replace")


def _header_stories(raw: bytes, at: int, count: int, cps: list[int]) -> list[tuple[str, str]]:
    """The header story cut into its headers and footers: after six separator stories,
    each section has even, odd header; even, odd footer; first header, first footer."""
    if len(cps) < 8:
        return [("header", _story(raw, at, at + count))]
    found = []
    for i in range(6, len(cps) - 1):
        start, end = min(cps[i], count), min(cps[i + 1], count)
        if end > start:
            part = "footer" if (i - 6) % 6 in (2, 3, 5) else "header"
            found.append((part, _story(raw, at + start, at + end)))
    return found


def _plc(table: bytes, place: tuple[int, int]) -> list[int]:
    """The character positions of a PLC without data (as `PlcfHdd` is)."""
    fc, lcb = place
    count = min(lcb, len(table) - fc) // 4 if fc < len(table) else 0
    return list(struct.unpack_from(f"<{count}I", table, fc)) if count > 0 else []


def _fib(word: bytes) -> tuple[list[int], tuple[int, int], tuple[int, int]]:
    """The story lengths (`ccpText` ... `ccpHdrTxbx`), and where the piece table
    (`Clx`) and the header stories' positions (`PlcfHdd`) are in the table stream."""
    at = 32
    csw = struct.unpack_from("<H", word, at)[0]
    at += 2 + csw * 2
    cslw = struct.unpack_from("<H", word, at)[0]
    lw = at + 2
    counts = list(struct.unpack_from("<8i", word, lw + 12))
    fc_lcb = lw + cslw * 4 + 2
    clx = struct.unpack_from("<II", word, fc_lcb + 33 * 8)
    hdd = struct.unpack_from("<II", word, fc_lcb + 11 * 8)
    if any(c < 0 for c in counts):
        raise ContainerError("corrupt: negative story length in the FIB")
    return counts, clx, hdd


def _piece_text(word: bytes, table: bytes, clx: tuple[int, int], limit: int) -> bytes:
    """The document's characters 0..`limit` from the piece table, as UTF-16-LE."""
    fc_clx, lcb_clx = clx
    data = table[fc_clx : fc_clx + lcb_clx]
    at = 0
    while at < len(data) and data[at] == 0x01:  # Prc: formatting, skipped
        size = struct.unpack_from("<h", data, at + 1)[0]
        if size < 0:
            raise ContainerError("corrupt: negative formatting size in the piece table")
        at += 3 + size
    if at + 5 > len(data) or data[at] != 0x02:
        raise ContainerError("corrupt: no piece table")
    size = struct.unpack_from("<I", data, at + 1)[0]
    plc = data[at + 5 : at + 5 + size]
    count = (len(plc) - 4) // 12
    cps = struct.unpack_from(f"<{count + 1}I", plc, 0)
    parts: list[bytes] = []
    for i in range(count):
        start, end = cps[i], min(cps[i + 1], limit)
        if end <= start:
            continue
        fc = struct.unpack_from("<I", plc, 4 * (count + 1) + 8 * i + 2)[0]
        if fc & 0x40000000:  # 8-bit text: one code unit per byte
            offset = (fc & 0x3FFFFFFF) // 2
            chunk = word[offset : offset + end - start].decode("cp1252", "replace")
            parts.append(chunk.encode("utf-16-le"))
        else:
            parts.append(word[fc : fc + 2 * (end - start)])
    return b"".join(parts)


def _blocks(text: str) -> list[Block]:
    """Paragraph blocks of a story: fields reduced to their results, controls cleaned."""
    for _ in range(8):  # nested fields: the innermost goes first
        reduced = _FIELD.sub(lambda m: m.group(1) or "", text)
        if reduced == text:
            break
        text = reduced
    blocks = []
    for para in text.replace("\x07\x07", "\r").translate(_CONTROL).split("\r"):
        lines = (" ".join(line.split()) for line in para.split("\n"))
        cleaned = "\n".join(line for line in lines if line)
        if cleaned:
            blocks.append(Block(cleaned, "para", ()))
    return blocks


def _unique(blocks: list[Block], part: str | None) -> list[Block]:
    """Headers repeat per section: each distinct one once."""
    if part not in ("header", "footer"):
        return blocks
    seen: set[str] = set()
    unique = []
    for block in blocks:
        if block.text not in seen:
            seen.add(block.text)
            unique.append(block)
    return unique
