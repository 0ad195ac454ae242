"""A single-pass RTF reader: the text a word processor shows, and the `\\info` properties.

Tokens come from one regular expression; each group keeps its state (skipping,
the `\\uc` count, the codepage) on a stack. Destinations that hold no text (font
and colour tables, pictures, object data, field instructions, every unknown
`\\*` one) are jumped over by brace matching alone, so a megabyte of picture hex
costs one scan rather than a token per byte; `\\binN` data is skipped by length.
Paragraphs end in a blank line, table cells in ` | `, table rows in a newline.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

_TOKEN = re.compile(
    r"\\([a-zA-Z]{1,32})(-?\d{1,10})? ?|\\'([0-9a-fA-F]{2})|\\([^a-zA-Z])|([{}])"
    r"|([^\\{}\r\n]+)|[\r\n]+"
)
_BRACES = re.compile(r"\\bin(\d{1,10}) ?|\\[\\{}]|[{}]")
_NO_TEXT = frozenset((
    "fonttbl", "colortbl", "stylesheet", "listtable", "listoverridetable", "revtbl", "rsidtbl",
    "filetbl", "pict", "objdata", "objclass", "objname", "fldinst", "datastore", "themedata",
    "colorschememapping", "latentstyles", "xmlnstbl", "generator", "pgdsctbl", "bkmkstart",
    "bkmkend", "nonshppict", "sp", "xe", "tc", "template", "docvar", "userprops", "ftnsep",
    "ftnsepc", "aftnsep", "aftnsepc", "pntxta", "pntxtb", "falt", "panose", "fontemb",
    "fontfile", "listpicture", "blipuid", "wgrffmtfilter", "operator", "password",
    "passwordhash", "keywords", "comment", "doccomm", "subject", "company", "manager",
    "category", "hlinkbase", "list", "listlevel", "listoverride", "leveltext", "levelnumbers",
    "listname", "atnid", "atnauthor", "atnref", "atndate",
))  # fmt: skip
"""Destinations that hold no text a reader sees."""
_KEPT_STARRED = frozenset(("annotation", "footnote", "shppict", "shptxt", "fldrslt"))
"""`\\*` destinations whose text a reader sees."""
_ASIDES = frozenset(("annotation", "footnote"))
"""Destinations set off in brackets where they stand: comments and footnotes."""
_SYMBOLS = {
    "par": "\n\n", "line": "\n", "sect": "\n\n", "page": "\n\n", "tab": "\t", "cell": " | ",
    "nestcell": " | ", "emdash": "\u2014", "endash": "\u2013", "bullet": "\u2022",
    "lquote": "\u2018", "rquote": "\u2019", "ldblquote": "\u201c", "rdblquote": "\u201d",
    "emspace": " ", "enspace": " ", "qmspace": " ", "~": " ", "_": "-", "{": "{", "}": "}",
    "\\": "\\", "\n": "\n\n", "\r": "\n\n",
}  # fmt: skip
_CHARSETS = {
    2: "symbol", 77: "mac_roman", 128: "cp932", 129: "cp949", 130: "johab", 134: "gb18030",
    136: "cp950", 161: "cp1253", 162: "cp1254", 163: "cp1258", 177: "cp1255", 178: "cp1256",
    186: "cp1257", 204: "cp1251", 222: "cp874", 238: "cp1250",
}  # fmt: skip
_SYMBOL_FONT = {0xB7: "\u2022", 0xA7: "\u25aa", 0xD8: "\u2022", 0xFC: "\u2713"}
"""The Symbol and Wingdings bytes that lists use as bullets."""
_CHARSET_WORDS = {"mac": "mac_roman", "pc": "cp437", "pca": "cp850"}
_PROPERTIES = {"title": "title", "author": "author", "creatim": "created", "revtim": "modified"}
_DATE_PARTS = ("yr", "mo", "dy", "hr", "min")


@dataclass(frozen=True, slots=True)
class RtfText:
    """What the reader found: the text and the document properties."""

    text: str
    properties: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class _State:
    uc: int = 1
    codepage: str = "cp1252"
    mode: str = ""
    """`fonttbl` or `info`, or the property being read (`title`, `created`); else text."""
    closer: str = ""
    """Text to emit when the group closes (the `]` of a comment)."""


def read_rtf(source: str) -> RtfText:
    """Read RTF `source` (bytes decoded as Latin-1); never raises on malformed input."""
    return _Reader(source).run()


class _Reader:
    def __init__(self, source: str) -> None:
        self.source = source
        self.out: list[str] = []
        self.pending = bytearray()
        self.state = _State()
        self.stack: list[_State] = []
        self.fonts: dict[str, str] = {}
        self.font = ""
        self.default = "cp1252"
        self.to_skip = 0
        self.high = 0
        self.props: dict[str, str] = {}
        self.field: list[str] = []
        self.date: dict[str, int] = {}

    def run(self) -> RtfText:
        source, pos, end = self.source, 0, len(self.source)
        while pos < end:
            match = _TOKEN.match(source, pos)
            if match is None:  # a lone backslash at the very end
                break
            pos = match.end()
            word, arg, hexa, symbol, brace, text = match.groups()
            if hexa is None and self.pending:
                self._flush()
            if text is not None:
                self._text(text)
            elif word is not None:
                pos = self._word(word, arg, pos)
            elif hexa is not None:
                self._byte(int(hexa, 16))
            elif brace == "{":
                pos = self._open(pos)
            elif brace == "}" and self._close():
                break
            elif symbol is not None:
                self._emit(_SYMBOLS.get(symbol, ""))
        self._flush()
        return RtfText(text="".join(self.out), properties=self.props)

    def _open(self, pos: int) -> int:
        """After `{`: jump over a group that holds no text, else enter it."""
        self.stack.append(self.state)
        if self.state.closer:  # the group's own, not its children's
            self.state = replace(self.state, closer="")
        head = _TOKEN.match(self.source, pos)
        word = head.group(1) if head else None
        if head is not None and head.group(4) == "*":
            after = _TOKEN.match(self.source, head.end())
            word = after.group(1) if after else None
            if word not in _KEPT_STARRED:
                return self._jump(pos)
        if word == "fonttbl":
            self.state = replace(self.state, mode="fonttbl")
        elif word in _ASIDES:
            self._emit(" [")
            self.state = replace(self.state, closer="]")
        elif word in _NO_TEXT:
            return self._jump(pos)
        return pos

    def _jump(self, pos: int) -> int:
        """The position after the group opened just before `pos` closes."""
        depth, source = 1, self.source
        while depth:
            match = _BRACES.search(source, pos)
            if match is None:
                pos = len(source)
                break
            pos = match.end()
            if match.group(1) is not None:
                pos += int(match.group(1))
            elif match.group(0) == "{":
                depth += 1
            elif match.group(0) == "}":
                depth -= 1
        self.state = self.stack.pop()
        return pos

    def _close(self) -> bool:
        """Leave a group; True when it closed the document."""
        if not self.stack:
            return True
        mode, closer = self.state.mode, self.state.closer
        self._flush()
        self.state = self.stack.pop()
        if closer:
            self._emit(closer)
        if mode in _PROPERTIES.values() and self.state.mode != mode:
            self._property(mode)
        return not self.stack

    def _property(self, name: str) -> None:
        if name in ("title", "author"):
            value = " ".join("".join(self.field).split())
        elif {"yr", "mo", "dy"} <= self.date.keys() and self.date["yr"] > 0:
            d = self.date
            day = f"{d['yr']:04d}-{d['mo']:02d}-{d['dy']:02d}"
            value = f"{day}T{d.get('hr', 0):02d}:{d.get('min', 0):02d}:00"
        else:
            value = ""
        if value:
            self.props[name] = value
        self.field, self.date = [], {}

    def _word(self, word: str, arg: str | None, pos: int) -> int:
        mode = self.state.mode
        if word in _SYMBOLS and not mode:
            self._emit(_SYMBOLS[word])
        elif word == "u" and arg is not None:
            self._unicode(int(arg))
        elif word == "row" and not mode:
            self._end_row()
        elif word == "uc" and arg is not None:
            self.state = replace(self.state, uc=max(0, int(arg)))
        elif word == "bin" and arg is not None:
            return pos + max(0, int(arg))
        elif word == "f" and arg is not None:
            self._font(arg)
        elif word in ("fcharset", "cpg") and arg is not None and mode == "fonttbl":
            codepage = f"cp{arg}" if word == "cpg" else _CHARSETS.get(int(arg), "")
            if codepage:
                self.fonts[self.font] = codepage
        elif word == "ansicpg" and arg is not None:
            self.default = f"cp{arg}"
            self.state = replace(self.state, codepage=self.default)
        elif word in _CHARSET_WORDS:
            self.default = _CHARSET_WORDS[word]
            self.state = replace(self.state, codepage=self.default)
        elif word == "info":
            self.state = replace(self.state, mode="info")
        elif word in _PROPERTIES and mode == "info":
            self.state = replace(self.state, mode=_PROPERTIES[word])
        elif word in _DATE_PARTS and arg is not None and mode in ("created", "modified"):
            self.date[word] = int(arg)
        return pos

    def _font(self, arg: str) -> None:
        if self.state.mode == "fonttbl":
            self.font = arg
        elif not self.state.mode:
            self.state = replace(self.state, codepage=self.fonts.get(arg, self.default))

    def _emit(self, text: str) -> None:
        mode = self.state.mode
        if not mode:
            self.out.append(text)
        elif mode in ("title", "author"):
            self.field.append(text)

    def _text(self, text: str) -> None:
        if self.to_skip:
            skipped = min(self.to_skip, len(text))
            self.to_skip -= skipped
            text = text[skipped:]
        if text and not text.isascii():  # raw 8-bit bytes, in the group's codepage
            text = _decode(text.encode("latin-1"), self.state.codepage)
        if text:
            self._emit(text)

    def _byte(self, value: int) -> None:
        if self.to_skip:
            self.to_skip -= 1
        else:
            self.pending.append(value)

    def _flush(self) -> None:
        if self.pending:
            text = _decode(bytes(self.pending), self.state.codepage)
            self.pending.clear()
            self._emit(text)

    def _unicode(self, code: int) -> None:
        code %= 0x10000  # written signed 16-bit
        self.to_skip = self.state.uc
        if 0xD800 <= code < 0xDC00:
            self.high = code
            return
        if 0xDC00 <= code < 0xE000:
            if self.high:
                self._emit(chr(0x10000 + ((self.high - 0xD800) << 10) + code - 0xDC00))
            self.high = 0
            return
        self.high = 0
        self._emit(chr(code))

    def _end_row(self) -> None:
        if self.out and self.out[-1] == " | ":
            self.out.pop()
        self.out.append("\n")


def _decode(data: bytes, codepage: str) -> str:
    if codepage == "symbol":
        return "".join(_SYMBOL_FONT.get(b, "") for b in data)
    try:
        return data.decode(codepage, "replace")
    except LookupError:
        return data.decode("cp1252", "replace")
