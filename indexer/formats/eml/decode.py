"""Decoding for mail: RFC 2047 header words, raw 8-bit headers and MIME charsets.

`compat32` leaves all decoding to the caller, which is the point: every step
here has a fallback, so a lying or unknown charset gives UTF-8 or detected text
rather than an exception or mojibake. Nothing here raises.
"""

from __future__ import annotations

import binascii
import re
from collections.abc import Iterator
from email import base64mime, quoprimime
from email.errors import HeaderParseError

from indexer._text import decode_bytes

__all__ = ["decode_bytes", "has_raw_bytes", "header_text"]

_FOLD = re.compile(r"[ \t]*(?:\r\n|\n|\r)[ \t]*")
_SLICE = 4096
_Q_ESCAPE = re.compile(rb"=[0-9A-Fa-f]{2}")
# email.header.ecre, which the type stubs do not declare
_ENCODED_WORD = re.compile(
    r"=\?(?P<charset>[^?]*?)\?(?P<encoding>[qQbB])\?(?P<encoded>.*?)\?=", re.M
)


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
    # decode_header is quadratic in the number of words: decode bounded slices cut at
    # spaces; the price is a space kept between two encoded words that meet at a cut,
    # once per slice, in headers over 4 KB only.
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
        words = _decode_header(value)
    except Exception:  # a malformed encoded word: keep what the sender wrote
        return value
    return _join_words(words)


def _decode_header(header: str) -> list[tuple[bytes | str, str | None]]:
    # email.header.decode_header (3.11) for a str, step for step, less its regex
    # callback per `=XX` of Q-encoded text (most of the time on long encoded headers).
    if not _ENCODED_WORD.search(header):
        return [(header, None)]
    words: list[tuple[str, str | None, str | None]] = []  # (text, encoding, charset)
    for line in header.splitlines():
        parts = _ENCODED_WORD.split(line)
        if unencoded := parts[0].lstrip():
            words.append((unencoded, None, None))
        for at in range(1, len(parts), 4):
            charset, encoding, encoded, unencoded = parts[at : at + 4]
            words.append((encoded, encoding.lower(), charset.lower()))
            if unencoded:
                words.append((unencoded, None, None))
    # whitespace between two encoded words goes
    dropped = {
        n - 1
        for n in range(2, len(words))
        if words[n][1] and words[n - 2][1] and words[n - 1][0].isspace()
    }
    collapsed: list[tuple[bytes | str, str | None]] = []
    run: list[bytes] = []
    last_charset: str | None = None
    for n, (text, encoding, charset) in enumerate(words):
        if n in dropped:
            continue
        if run and charset != last_charset:
            collapsed.append(((b" " if last_charset is None else b"").join(run), last_charset))
            run = []
        run.append(_word_bytes(text, encoding))
        last_charset = charset
    if run:
        collapsed.append(((b" " if last_charset is None else b"").join(run), last_charset))
    return collapsed


def _word_bytes(text: str, encoding: str | None) -> bytes:
    if encoding is None:
        return bytes(text, "raw-unicode-escape")
    if encoding == "b":
        if pad := len(text) % 4:  # Postel's law: add missing padding
            text += "==="[: 4 - pad]
        try:
            return base64mime.decode(text)
        except binascii.Error:
            raise HeaderParseError("Base64 decoding error") from None
    data = bytes(text, "raw-unicode-escape")
    if data.count(b"=") == len(_Q_ESCAPE.findall(data)):  # every `=` starts an escape
        return binascii.a2b_qp(data, header=True)
    return bytes(quoprimime.header_decode(text), "raw-unicode-escape")


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
