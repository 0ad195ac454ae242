"""The conformance suite's built-in corpus: deterministic strings, bytes and mutants."""

from __future__ import annotations

import datetime
import random
from collections.abc import Iterator

from indexer.formats.mail_samples import MAIL_SAMPLES
from indexer.formats.office.samples import OFFICE_SAMPLES
from indexer.formats.sheets import samples as _sheetsamples

REFERENCE_STRINGS = (
    "",
    "single line",
    "a\n\n\n\nb  \n",
    "para one\n\npara two\n\n\npara three",
    "mültibyte ä ö ü 漢字 \n\n end",
)
"""The five strings of the reference implementation's conformance corpus."""

WHITESPACE = (b"", b" ", b"\n\n", b" \t\r\n \x0b\x0c ", b"\xef\xbb\xbf  \n")


def minimal_pdf(pages: list[list[str]]) -> bytes:
    """Build a small valid PDF: one page per item, one text line per string (Latin-1)."""
    count = len(pages)
    kids = " ".join(f"{3 + 2 * i} 0 R" for i in range(count))
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        f"<< /Type /Pages /Kids [{kids}] /Count {count} >>".encode(),
    ]
    font = 3 + 2 * count
    for i, lines in enumerate(pages):
        ops = " ".join(f"({_pdf_escape(line)}) Tj 0 -16 Td" for line in lines)
        stream = f"BT /F1 12 Tf 72 720 Td {ops} ET".encode("latin-1", "replace")
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
            f"/Resources << /Font << /F1 {font} 0 R >> >> /Contents {4 + 2 * i} 0 R >>".encode()
        )
        objects.append(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream))
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    return pdf_file(objects)


def pdf_file(objects: list[bytes]) -> bytes:
    """A PDF 1.4 file of `objects` (numbered from 1, the catalog first) with its xref table."""
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % off for off in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


def _pdf_escape(line: str) -> str:
    return line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


SAMPLES: dict[str, bytes] = {
    "csv": b'name,age,city\r\nAlice,30,"Paris, France"\r\nBob,25,"He said ""hi"""\r\n',
    "tsv": b"name\tage\nAlice\t30\nBob\t25\n",
    "json": b'{"title": "Report", "items": [1, 2.5, null, true], "nested": {"a": "\\u00e9"}}',
    "jsonl": b'{"id": 1, "text": "one"}\n{"id": 2, "text": "two"}\n',
    "eml": (
        b"From: =?UTF-8?Q?Andr=C3=A9?= <a@example.com>\r\nTo: b@example.com\r\n"
        b"Subject: Quarterly report\r\nMIME-Version: 1.0\r\n"
        b'Content-Type: multipart/alternative; boundary="XX"\r\n\r\n'
        b"--XX\r\nContent-Type: text/plain; charset=utf-8\r\n"
        b"Content-Transfer-Encoding: quoted-printable\r\n\r\n"
        b"Caf=C3=A9 numbers are up.\r\n\r\nSee you.\r\n"
        b"--XX\r\nContent-Type: text/html\r\n\r\n<p>Caf&eacute;</p>\r\n--XX--\r\n"
    ),
    "html": (
        b"<!doctype html><html><head><meta charset=utf-8><title>T</title></head><body>"
        b"<main><h1>Heading</h1><p>Para <a href='/x'>link</a>.</p><ul><li>one</li></ul>"
        b"<table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table>"
        b"<pre>code\n  block</pre></main></body></html>"
    ),
    "pdf": minimal_pdf([["Hello conformance"], ["Second page"]]),
    "txt": "First paragraph.\r\n\r\nSecond, with ünïcödé.\n\n\n  Third.  ".encode(),
    "xlsx": _sheetsamples.xlsx(
        [
            ("Sales", [["Region", "Q1", "When"], ["Nord", 12, datetime.date(2024, 3, 31)]]),
            ("Notes", [["Grüße", True], ["#DIV/0!", 2.5]]),
        ],
        {"title": "Conformance", "creator": "indexer"},
    ),
    "ods": _sheetsamples.ods([("Sheet1", [["name", "n"], ["é", 1], [None, 2.5]])]),
    "rtf": (
        b"{\\rtf1\\ansi\\ansicpg1252{\\fonttbl{\\f0 Arial;}}{\\info{\\title Sample}}"
        b"\\f0 Caf\\'e9 \\b bold\\b0\\par Second \\u8364? para.\\par}"
    ),
    **OFFICE_SAMPLES,
    **MAIL_SAMPLES,
}
"""One small valid sample per built-in format, keyed by extension."""


def random_blobs(seed: int = 0, count: int = 12) -> Iterator[tuple[str, bytes]]:
    """Yield `count` seeded random byte strings of assorted lengths."""
    rng = random.Random(seed)
    for i in range(count):
        size = rng.choice((1, 2, 7, 64, 513, 4096))
        yield f"random-{i}", rng.randbytes(size)


def mutants(name: str, data: bytes, seed: int = 0) -> Iterator[tuple[str, bytes]]:
    """Yield deterministic damaged variants of `data`: truncations, flips, insertions."""
    rng = random.Random(f"{seed}:{name}")
    for k in (1, 3, 5, 7):
        yield f"{name}-truncated-{k}of8", data[: len(data) * k // 8]
    for i in range(4):
        flipped = bytearray(data)
        for _ in range(max(1, len(data) // 50)):
            flipped[rng.randrange(len(data))] = rng.randrange(256)
        yield f"{name}-flipped-{i}", bytes(flipped)
    yield f"{name}-nul", data[: len(data) // 2] + b"\x00" + data[len(data) // 2 :]
    yield f"{name}-bom", b"\xef\xbb\xbf" + data
    yield f"{name}-doubled", data + data
    yield f"{name}-latin1", data.decode("utf-8", "replace").encode("latin-1", "replace")
