"""A shallow MIME parse for body text: the standard library's tree, found with `str.find`.

`email`'s feed parser reads every line of a mail in Python, though the body text needs
only the header blocks and the text parts. `parse_shallow` finds boundary lines with
`str.find` and parses each header block as the feed parser does, so it costs per part,
not per line, and builds the tree `parse_message` builds, except that `message/*` parts
keep their content as unparsed text and defects are not recorded. Inputs whose parse
hinges on rarer rules fall back to `parse_message`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from email.message import Message
from email.policy import compat32

from indexer.formats.eml.mime import MailMessage, parse_message, prepare

__all__ = ["parse_shallow"]

_LINE_END = re.compile(r"\r\n|\r|\n")
# Lines that feedparser.headerRE takes for header lines, as many as there are
_HEADER_BLOCK = re.compile(r"(?:(?:From |[\041-\071\073-\176]*:|[\t ])[^\r\n]*(?:\r\n|\r|\n|\Z))*")
_LINES = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")


class _Unusual(Exception):
    """The input needs a rule the scanner leaves to the standard parser."""


def parse_shallow(data: bytes) -> Message:
    """Parse mail bytes as `parse_message` does, leaving `message/*` parts unparsed.

    A `message/*` part's payload is its content as text, not a list holding the
    enclosed message. Raises only RecursionError on absurd nesting.
    """
    text = prepare(data).decode("ascii", "surrogateescape")
    try:
        return _Scanner(text).message(0, ())[0]
    except (_Unusual, RecursionError):
        return parse_message(data)


@dataclass(frozen=True, slots=True)
class _Boundary:
    separator: str
    """`--` and the multipart's boundary parameter."""
    line: re.Pattern[str]
    """feedparser's own pattern for the boundary lines, matched against whole lines."""

    @classmethod
    def of(cls, boundary: str) -> _Boundary:
        separator = "--" + boundary
        tail = r")(?P<end>--)?(?P<ws>[ \t]*)(?P<linesep>\r\n|\r|\n)?$"
        return cls(separator, re.compile("(?P<sep>" + re.escape(separator) + tail))


class _Scanner:
    def __init__(self, text: str) -> None:
        self.text = text
        self.end = len(text)
        # per separator: (searched from, first boundary line start from there)
        self.found: dict[str, tuple[int, int]] = {}

    def message(
        self, pos: int, enclosing: tuple[_Boundary, ...], default_type: str = "text/plain"
    ) -> tuple[Message, int]:
        """Parse the message at `pos`; return it and where it ends (at an enclosing boundary)."""
        eof = min((self.boundary(b, pos) for b in enclosing), default=self.end)
        msg = MailMessage(policy=compat32)
        msg.set_default_type(default_type)
        block = _HEADER_BLOCK.match(self.text, pos, eof)
        assert block is not None  # it matches the empty string
        _parse_headers(msg, _LINES.findall(block.group()))
        pos = block.end()
        if pos < eof and self.text[pos] in "\r\n":  # the blank line that ends the headers
            pos = self.line_end(pos)
        content_type = msg.get_content_type()
        boundary = msg.get_boundary() if content_type.startswith("multipart/") else None
        if boundary is None:
            msg.set_payload(self.text[pos:eof])
            return msg, eof
        enclosing = (*enclosing, _Boundary.of(boundary))
        return msg, self.multipart(msg, pos, eof, enclosing, content_type == "multipart/digest")

    def multipart(
        self, msg: Message, pos: int, eof: int, enclosing: tuple[_Boundary, ...], digest: bool
    ) -> int:
        """Parse the parts of `msg` (its boundary last in `enclosing`); return `eof`."""
        own = enclosing[-1]
        at = self.boundary(own, pos)
        if at >= eof or self.match(own, at).group("end"):
            msg.set_payload(self.text[pos : min(at, eof)])  # no first boundary: all text
            msg.epilogue = ""
            return eof
        if at > pos:
            msg.preamble = _strip_eol(self.text[pos:at])
        while True:
            pos = self.line_end(at)
            while pos < eof and own.line.match(self.line(pos)):  # repeated boundary lines
                pos = self.line_end(pos)
            if pos >= eof:  # the feed parser reads an empty part here
                raise _Unusual
            part, at = self.message(pos, enclosing, "message/rfc822" if digest else "text/plain")
            msg.attach(part)
            _strip_last_eol(part)
            if at >= eof:  # no closing boundary
                return eof
            close = self.match(own, at)
            if close.group("end"):
                break
        after = self.line_end(at)
        msg.epilogue = self.text[after:eof] if close.group("linesep") else ""
        return eof

    def boundary(self, boundary: _Boundary, pos: int) -> int:
        """The first line start at or after `pos` that is a `boundary` line, else the end."""
        searched, at = self.found.get(boundary.separator, (self.end + 1, self.end))
        if searched <= pos <= at:
            return at
        text = self.text
        at = text.find(boundary.separator, pos)
        while at >= 0 and not (
            (at == 0 or text[at - 1] in "\r\n") and boundary.line.match(self.line(at))
        ):
            at = text.find(boundary.separator, at + 1)
        if at < 0:
            at = self.end
        self.found[boundary.separator] = (pos, at)
        return at

    def match(self, boundary: _Boundary, pos: int) -> re.Match[str]:
        match = boundary.line.match(self.line(pos))
        if match is None:
            raise AssertionError("not a boundary line")
        return match

    def line_end(self, pos: int) -> int:
        match = _LINE_END.search(self.text, pos)
        return self.end if match is None else match.end()

    def line(self, pos: int) -> str:
        return self.text[pos : self.line_end(pos)]


def _strip_eol(text: str) -> str:
    if text.endswith("\r\n"):
        return text[:-2]
    return text[:-1] if text.endswith(("\r", "\n")) else text


def _strip_last_eol(part: Message) -> None:
    # The line break before a boundary belongs to the boundary (RFC 2046).
    if part.get_content_maintype() == "multipart":
        if part.epilogue == "":
            part.epilogue = None
        elif part.epilogue is not None:
            part.epilogue = _strip_eol(part.epilogue)
    else:
        payload = part.__dict__["_payload"]  # as stored: get_payload() decodes 8-bit text
        if isinstance(payload, str):
            part.set_payload(_strip_eol(payload))


def _parse_headers(msg: Message, lines: list[str]) -> None:
    # FeedParser._parse_headers, less the defects it records
    name, value = "", []
    for number, line in enumerate(lines):
        if line[0] in " \t":
            if name:  # else a continuation line with nothing to continue: dropped
                value.append(line)
            continue
        if name:
            msg.set_raw(*compat32.header_source_parse(value))
            name, value = "", []
        if line.startswith("From "):
            if number == 0:
                msg.set_unixfrom(_strip_eol(line))
            elif number == len(lines) - 1:  # the parser pushes it back into the body
                raise _Unusual
            continue  # elsewhere a misplaced envelope line: dropped
        colon = line.find(":")
        if colon > 0:  # else no header name: dropped
            name, value = line[:colon], [line]
    if name:
        msg.set_raw(*compat32.header_source_parse(value))
