"""Text helpers shared by the extractors: decoding, newlines, paragraphs, size limits."""

from __future__ import annotations

import codecs
import gc
import re
from collections.abc import Iterable
from functools import lru_cache

from indexer._types import Chunk

_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_DETECT_SAMPLE = 64 * 1024
_ASCII = bytes(range(128))
_MIN_DETECT_BYTES = 16
# What browsers (the WHATWG Encoding Standard) decode these labels as: senders
# declare the old name and write the superset (Outlook's cp1252 quotes in
# "iso-8859-1" mail, GBK characters in "gb2312" spam).
_SUPERSETS = {
    "ascii": "cp1252",
    "iso8859-1": "cp1252",
    "iso8859-9": "cp1254",
    "iso8859-11": "cp874",
    "tis-620": "cp874",
    "gb2312": "gb18030",
    "gbk": "gb18030",
    "euc_kr": "cp949",
    "shift_jis": "cp932",
    "big5": "big5hkscs",
}
_LABELS = {  # labels in real mail that Python does not know
    "windows-874": "cp874",
    "iso-8859-8-i": "iso8859-8",
    "unicode-1-1-utf-7": "utf-7",
}


_BLANK_LINES = re.compile(r"\n\s*\n")


def strip_bom(data: bytes) -> tuple[bytes, str | None]:
    """Return `data` without a leading byte-order mark, and the encoding the mark names."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return data[len(bom) :], encoding
    return data, None


def detect_encoding(data: bytes) -> str | None:
    """Guess the encoding of `data` from a bounded sample; None when nothing fits."""
    # Imported here: only a document that is not UTF-8 pays for charset-normalizer
    from charset_normalizer import from_bytes

    best = from_bytes(data[:_DETECT_SAMPLE]).best()
    return None if best is None else str(best.encoding)


def decode(data: bytes, declared: str | None = None) -> str:
    """Decode document bytes to text with LF newlines, never raising.

    `declared` is an HTML or MIME charset; see `decode_bytes` for the order of trust.
    """
    return decode_bytes(data, declared)


def decode_bytes(data: bytes, charset: str | None) -> str:
    """Decode `data` with a MIME `charset` when Python knows it and it fits, never raising.

    A single-byte charset (which decodes anything) loses to valid non-ASCII UTF-8,
    the commonest lie. Without a usable charset: a BOM wins; then UTF-8 when at
    most a tenth of the non-ASCII bytes are invalid (a stray byte must not turn a
    whole body into detected mojibake); then a detected ASCII-compatible charset,
    but only on enough non-ASCII bytes for detection to mean something; last
    Windows-1252 (Latin-1 for its five holes). Returns text with LF newlines.
    """
    codec = _codec(charset) if charset else None
    if codec is not None and not (_single_byte(codec) and not data.isascii() and _is_utf8(data)):
        text = _strict(data, codec)
        if text is not None:
            return text
    body, bom_encoding = strip_bom(data)
    if bom_encoding is not None:
        return normalize_newlines(body.decode(bom_encoding, errors="replace"))
    return _undeclared(data)


def _undeclared(data: bytes) -> str:
    wide = wide_encoding(data) if b"\x00" in data[:4096] else None
    if wide is not None:
        return normalize_newlines(data.decode(wide, errors="replace"))
    text = data.decode("utf-8", "replace")
    if "\ufffd" not in text:  # valid UTF-8: no need to count the non-ASCII bytes
        return normalize_newlines(text)
    non_ascii = len(data.translate(None, _ASCII))
    if text.count("\ufffd") * 10 <= non_ascii:
        return normalize_newlines(text)
    # charset-normalizer guesses wildly on a few bytes (EBCDIC for "Gr\xf6\xdfe")
    detected = detect_encoding(data) if non_ascii >= _MIN_DETECT_BYTES else None
    if detected is not None and _ascii_compatible(detected):
        text = _strict(data, detected) or ""
        if text:
            return text
    return _strict(data, "cp1252") or normalize_newlines(data.decode("latin-1"))


def wide_encoding(data: bytes) -> str | None:
    """The UTF-32 or UTF-16 byte order of BOM-less text whose NULs fall in a pattern.

    Text in those encodings has a NUL in the same position of most code units
    (ASCII in every other or every fourth byte); binary data does not. None otherwise.
    """
    sample = data[: 4096 - 4096 % 4]
    sample = sample[: len(sample) - len(sample) % 4]
    if len(sample) < 8:
        return None
    quarter = len(sample) // 4
    lanes = [sample[i::4].count(0) for i in range(4)]
    if lanes[0] == lanes[1] == quarter and lanes[3] <= quarter * 0.05:
        return "utf-32-be"
    if lanes[3] == lanes[2] == quarter and lanes[0] <= quarter * 0.05:
        return "utf-32-le"
    half = len(sample) // 2
    even, odd = lanes[0] + lanes[2], lanes[1] + lanes[3]
    if even >= half * 0.3 and odd <= half * 0.05:
        return "utf-16-be"
    if odd >= half * 0.3 and even <= half * 0.05:
        return "utf-16-le"
    return None


def _strict(data: bytes, codec: str) -> str | None:
    try:
        return normalize_newlines(data.decode(codec))
    except Exception:  # any codec can refuse hostile bytes, some not with UnicodeError
        return None


@lru_cache(maxsize=64)
def _ascii_compatible(codec: str) -> bool:
    return _strict(_ASCII, codec) == _ASCII.decode("ascii").replace("\r", "\n")


@lru_cache(maxsize=256)
def _codec(charset: str) -> str | None:
    # Here, not at the top: an unchanged re-run never decodes, so it skips the import.
    from email.charset import ALIASES

    name = charset.strip().strip("\"'").lower()
    name = _LABELS.get(name, ALIASES.get(name, name))
    try:
        codec = codecs.lookup(name).name
    except Exception:  # LookupError, or a name with a NUL in it
        return None
    return _SUPERSETS.get(codec, codec)


@lru_cache(maxsize=256)
def _single_byte(codec: str) -> bool:
    try:
        return len(b"\xc3\xa9".decode(codec)) == 2
    except Exception:  # a multi-byte or bytes-to-bytes codec
        return False


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def normalize_newlines(text: str) -> str:
    """Return `text` with CRLF and lone CR turned into LF."""
    if "\r" not in text:
        return text
    return text.replace("\r\n", "\n").replace("\r", "\n")


def split_paragraphs(text: str) -> list[str]:
    """Split on blank lines (lines of only whitespace count); trim; drop empty pieces."""
    pieces = _BLANK_LINES.split(text)
    return [p.strip() for p in pieces if p.strip()]


def limit_chunks(chunks: Iterable[Chunk], max_chars: int) -> tuple[Chunk, ...]:
    """Drop blank chunks and split any longer than `max_chars`; pieces keep their meta.

    Returns `chunks` itself when it is a tuple that needs no change (the common case).
    """
    if isinstance(chunks, tuple) and _within(chunks, max_chars):
        return chunks
    out: list[Chunk] = []
    for chunk in chunks:
        if not chunk.text.strip():
            continue
        if len(chunk.text) <= max_chars:
            out.append(chunk)
            continue
        out.extend(
            Chunk(text=piece, meta=chunk.meta) for piece in split_text(chunk.text, max_chars)
        )
    return tuple(out)


def _within(chunks: tuple[Chunk, ...], max_chars: int) -> bool:
    """True when no chunk is blank or too long (a loop, cheaper than `all()` over a
    generator, and every document of every kind passes here)."""
    for chunk in chunks:
        text = chunk.text
        if len(text) > max_chars or not text or text.isspace():
            return False
    return True


_BOUNDARIES = ("\n\n", "\n", ". ", "! ", "? ", "; ", " ")
_LEADING_SPACE = re.compile(r"\s*")


def split_text(text: str, max_chars: int) -> list[str]:
    """Cut `text` into non-blank pieces of at most `max_chars` characters.

    Each cut falls at the last paragraph, line, sentence or space boundary before
    the limit; only a run with no boundary at all is cut mid-word (never inside a
    character, since Python strings index code points). Works on offsets, never
    copying the rest after a cut, so a long value costs linear time.
    """
    pieces: list[str] = []
    start, end = 0, len(text)
    floor = max_chars // 4
    while end - start > max_chars:
        limit = start + max_chars + 1
        for sep in _BOUNDARIES:
            at = text.rfind(sep, start + floor, limit)
            if at > start:
                cut = at + len(sep)
                break
        else:
            cut = start + max_chars
        head = text[start:cut].rstrip()
        if head:
            pieces.append(head)
        space = _LEADING_SPACE.match(text, cut)  # always matches, maybe empty
        start = space.end() if space else cut
    rest = text[start:].strip()
    if rest:
        pieces.append(rest)
    return pieces


def gc_paused() -> _GcPaused:
    """`with gc_paused():` pauses the cyclic garbage collector for the block, then
    restores it.

    Parsing a large document allocates hundreds of thousands of acyclic objects,
    and each batch triggers a collection that walks the growing tree. Reference
    counting still frees all of them.
    """
    return _GcPaused()


class _GcPaused:
    """`gc_paused`'s context manager: a class, not `@contextmanager`, because it
    wraps every small page too and a generator costs several times more per block."""

    __slots__ = ("_was_enabled",)

    def __enter__(self) -> None:
        self._was_enabled = gc.isenabled()
        gc.disable()

    def __exit__(self, *exc: object) -> None:
        if self._was_enabled:
            gc.enable()
