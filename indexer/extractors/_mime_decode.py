"""Decoding for mail: RFC 2047 header words, raw 8-bit headers and MIME charsets.

`compat32` leaves all decoding to the caller, which is the point: every step
here has a fallback, so a lying or unknown charset gives UTF-8 or detected text
rather than an exception or mojibake. Nothing here raises.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterator
from email.charset import ALIASES
from email.header import decode_header
from functools import lru_cache

from indexer._text import decode, detect_encoding, normalize_newlines, strip_bom

__all__ = ["decode_bytes", "has_raw_bytes", "header_text"]

_FOLD = re.compile(r"[ \t]*(?:\r\n|\n|\r)[ \t]*")
_ASCII = bytes(range(128))
_MIN_DETECT_BYTES = 16
_SLICE = 4096
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


def header_text(raw: str, charset: str | None = None) -> str:
    """Return a raw header value unfolded and decoded, never raising.

    Raw 8-bit bytes (kept by the parser as surrogate escapes) are decoded as UTF-8,
    else with `charset` (pass the message's body charset: what mail clients do),
    else detected; RFC 2047 encoded words are decoded with their declared charset
    when it works, else detected; malformed words are left as written.
    """
    if has_raw_bytes(raw):
        raw = decode_bytes(raw.encode("utf-8", "surrogateescape"), charset)
    value = _FOLD.sub(" ", raw).strip()
    if "=?" not in value:
        return value
    # decode_header is quadratic in the number of words (15 s for a 1.5 MB header):
    # decode bounded slices cut at spaces; the price is a space kept between two
    # encoded words that meet at a cut, once per slice, in headers over 4 KB only.
    return " ".join(_decode_words(piece) for piece in _slices(value))


def _slices(value: str) -> Iterator[str]:
    start = 0
    while len(value) - start > _SLICE:
        cut = value.rfind(" ", start + 1, start + _SLICE)
        if cut < 0:
            cut = start + _SLICE
        yield value[start:cut]
        start = cut + 1 if value[cut : cut + 1] == " " else cut
    yield value[start:]


def _decode_words(value: str) -> str:
    try:
        words = decode_header(value)
    except Exception:  # a malformed encoded word: keep what the sender wrote
        return value
    return _join_words(words)


def _join_words(words: list[tuple[bytes | str, str | None]]) -> str:
    # Header.__str__'s spacing rule, without make_header's strict decoding (which
    # raises on unknown or lying charsets): a space between an encoded and a plain
    # word unless one side already has one.
    out: list[str] = []
    last_encoded = False
    for word, charset in words:
        if isinstance(word, str):
            text = word
        elif charset is None:
            text = word.decode("raw-unicode-escape")  # how decode_header encoded it
        else:
            text = decode_bytes(word, charset.split("*", 1)[0])
        encoded = charset is not None
        if out and encoded != last_encoded and not (out[-1][-1:].isspace() or text[:1].isspace()):
            out.append(" ")
        out.append(text)
        last_encoded = encoded
    return "".join(out).strip()


def has_raw_bytes(text: str) -> bool:
    """True when parsed header text holds raw 8-bit bytes (as surrogate escapes)."""
    return not text.isascii() and any("\udc80" <= c <= "\udcff" for c in text)


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
    if strip_bom(data)[1] is not None:
        return decode(data)
    return _undeclared(data)


def _undeclared(data: bytes) -> str:
    text = data.decode("utf-8", "replace")
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
