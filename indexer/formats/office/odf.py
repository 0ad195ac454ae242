"""OpenDocument packages (`.odt`, `.odp`): the package checks, properties, and the walk of
text content (`text:h`, `text:p`, lists, tables, sections) into Markdown blocks.

Mixed content is read as ODF lays it out: an element's text, then each child and
its tail; `text:s` and `text:tab` are spaces. Footnotes are marked `[^n]` where they
are cited and collected for the end; annotations (comments) are collected too;
tracked deletions are not text. Frames anchored in a paragraph (text boxes) follow it,
and so does the text OCR reads in a picture (`draw:image`) when the walker is given a
`picture` renderer.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from indexer.formats.html.mdsyntax import list_item
from indexer.formats.office.blocks import Block, HeadingPath, table_blocks
from indexer.formats.office.container import ENCRYPTED, ContainerError, Package, open_zip

__all__ = ["TEXT", "OdfWalker", "Picture", "open_body", "open_odf", "picture_part", "properties"]

TEXT = "{urn:oasis:names:tc:opendocument:xmlns:text:1.0}"
TABLE = "{urn:oasis:names:tc:opendocument:xmlns:table:1.0}"
DRAW = "{urn:oasis:names:tc:opendocument:xmlns:drawing:1.0}"
OFFICE = "{urn:oasis:names:tc:opendocument:xmlns:office:1.0}"
_MANIFEST = "{urn:oasis:names:tc:opendocument:xmlns:manifest:1.0}"
_META = "{urn:oasis:names:tc:opendocument:xmlns:meta:1.0}"
_DC = "{http://purl.org/dc/elements/1.1/}"
_XLINK_HREF = "{http://www.w3.org/1999/xlink}href"
_SVG = "{urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0}"
_P, _H, _LIST = TEXT + "p", TEXT + "h", TEXT + "list"
_BLOCK_WRAPPERS = frozenset(
    {TEXT + "section", TEXT + "index-body", TEXT + "list-item", TEXT + "list-header",
     TEXT + "table-of-content", TEXT + "alphabetical-index", TEXT + "illustration-index",
     TEXT + "table-index", TEXT + "object-index", TEXT + "user-index",
     TEXT + "bibliography", TEXT + "index-title", DRAW + "text-box", OFFICE + "text"}
)  # fmt: skip
_ROW_GROUPS = frozenset(
    {TABLE + "table-header-rows", TABLE + "table-rows", TABLE + "table-row-group"}
)
_SILENT = frozenset(
    {TEXT + "tracked-changes", TEXT + "note-citation", TEXT + "bookmark-ref",
     OFFICE + "annotation", TEXT + "sequence-decls", TEXT + "variable-decls",
     OFFICE + "forms", TEXT + "soft-page-break", _SVG + "title", _SVG + "desc"}
)  # fmt: skip
Picture = Callable[[str | None, tuple[str, ...]], list[Block]]
"""The blocks of the text OCR reads in a picture part, under a heading path."""
_MAX_REPEAT = 64
"""Repeated columns (`number-columns-repeated`) rendered: spreadsheets repeat to 1024."""


def open_odf(data: bytes) -> Package:
    """Open an OpenDocument package; raises `ContainerError` (`encrypted` when its
    manifest says its content is encrypted)."""
    package = open_zip(data)
    manifest = package.xml("META-INF/manifest.xml")
    if (
        manifest is not None
        and next(manifest.iter(_MANIFEST + "encryption-data"), None) is not None
    ):
        raise ContainerError(ENCRYPTED)
    return package


def open_body(data: bytes, kind: str) -> tuple[Package, Any]:
    """The package and its `content.xml` body of `kind` (`text`, `presentation`); raises
    `ContainerError` (`corrupt` when there is no such body)."""
    package = open_odf(data)
    root = package.xml("content.xml")
    body = root.find(f"{OFFICE}body/{OFFICE}{kind}") if root is not None else None
    if body is None:
        raise ContainerError(f"corrupt: no {kind} body in content.xml")
    return package, body


def properties(package: Package) -> dict[str, str]:
    """Title, author, created and modified from `meta.xml`, those present."""
    try:
        root = package.xml("meta.xml")
    except ContainerError:  # properties are optional: a broken part loses only them
        return {}
    found: dict[str, str] = {}
    if root is None:
        return found
    for key, tags in _PROPERTIES:
        for tag in tags:
            element = next(root.iter(tag), None)
            text = " ".join((element.text or "").split()) if element is not None else ""
            if text:
                found[key] = text
                break
    return found


_PROPERTIES = (
    ("title", (_DC + "title",)),
    ("author", (_META + "initial-creator", _DC + "creator")),
    ("created", (_META + "creation-date",)),
    ("modified", (_DC + "date",)),
)


class OdfWalker:
    """Blocks of ODF text content; notes and comments gathered for the end."""

    def __init__(
        self,
        notes: list[str] | None = None,
        comments: list[str] | None = None,
        picture: Picture | None = None,
    ) -> None:
        self.blocks: list[Block] = []
        self.path = HeadingPath()
        self.notes = [] if notes is None else notes
        self.comments = [] if comments is None else comments
        self.picture = picture
        """Renders a picture part (`PictureText.blocks`); None: pictures give no text."""
        self._frames: list[Any] = []

    def walk(self, container: Any, depth: int = 0) -> list[Block]:
        """Add the blocks of `container`'s children; return all blocks so far."""
        for child in container:
            tag = child.tag
            if tag in (_P, _H):
                self._paragraph(child, tag == _H)
            elif tag == _LIST:
                self._list(child)
            elif tag == TABLE + "table":
                self.blocks.extend(table_blocks(self._rows(child), self.path.path))
            elif tag in _BLOCK_WRAPPERS or tag == DRAW + "frame":
                self.walk(child, depth)
            elif tag == DRAW + "image" and self.picture is not None:
                self.blocks.extend(self.picture(picture_part(child), self.path.path))
        return self.blocks

    def _paragraph(self, p: Any, heading: bool) -> None:
        text = self.line(p)
        if heading and text:
            level = p.get(TEXT + "outline-level") or "1"
            depth = min(int(level), 6) if level.isdigit() and int(level) > 0 else 1
            self.blocks.append(
                Block("#" * depth + " " + text, "heading", self.path.enter(depth, text))
            )
        elif text:
            self.blocks.append(Block(text, "para", self.path.path))
        self._flush_frames()

    def _flush_frames(self) -> None:
        frames, self._frames = self._frames, []
        for frame in frames:
            self.walk(frame)

    def _list(self, node: Any, depth: int = 0) -> None:
        items = self._items(node, depth)
        if items:
            self.blocks.append(Block("\n".join(items), "list", self.path.path))
        self._flush_frames()

    def _items(self, node: Any, depth: int) -> list[str]:
        items: list[str] = []
        for item in node:
            if item.tag not in (TEXT + "list-item", TEXT + "list-header"):
                continue
            for child in item:
                if child.tag in (_P, _H):
                    text = self.line(child)
                    items.extend(["  " * depth + list_item("-", text)] if text else [])
                elif child.tag == _LIST:
                    items.extend(self._items(child, depth + 1))
        return items

    def _rows(self, table: Any) -> list[list[tuple[str, int]]]:
        rows = []
        for row in _table_rows(table):
            cells: list[tuple[str, int]] = []
            for cell in row:
                if cell.tag not in (TABLE + "table-cell", TABLE + "covered-table-cell"):
                    continue
                repeat = _number(cell.get(TABLE + "number-columns-repeated"))
                span = _number(cell.get(TABLE + "number-columns-spanned"))
                inner = OdfWalker(self.notes, self.comments).walk(cell)
                text = " ".join(" ".join(b.text.split()) for b in inner)
                cells.extend([(text, min(span, 20))] * min(repeat, _MAX_REPEAT))
            rows.append(cells)
        return rows

    def line(self, node: Any) -> str:
        """The inline text of a paragraph or heading, whitespace collapsed."""
        parts: list[str] = []
        self._inline(node, parts)
        lines = (" ".join(line.split()) for line in "".join(parts).split("\n"))
        return "\n".join(line for line in lines if line)

    def _inline(self, node: Any, out: list[str]) -> None:
        if node.text:
            out.append(node.text)
        for child in node:
            self._child(child, out)
            if child.tail:
                out.append(child.tail)

    def _child(self, child: Any, out: list[str]) -> None:
        tag = child.tag
        if tag == TEXT + "s":
            out.append(" " * min(_number(child.get(TEXT + "c")), 100))
        elif tag == TEXT + "tab":
            out.append("\t")
        elif tag == TEXT + "line-break":
            out.append("\n")
        elif tag == TEXT + "note":
            self._note(child, out)
        elif tag == OFFICE + "annotation":
            self._comment(child)
        elif tag == TEXT + "a":
            self._link(child, out)
        elif tag == DRAW + "frame" or tag == DRAW + "a":
            self._frame(child, out)
        elif tag not in _SILENT:
            self._inline(child, out)

    def _note(self, note: Any, out: list[str]) -> None:
        body = note.find(TEXT + "note-body")
        text = (
            " ".join(b.text for b in OdfWalker(self.notes).walk(body)) if body is not None else ""
        )
        self.notes.append(" ".join(text.split()))
        out.append(f"[^{len(self.notes)}]")

    def _comment(self, annotation: Any) -> None:
        author = annotation.find(_DC + "creator")
        name = " ".join((author.text or "").split()) if author is not None else ""
        text = " ".join(b.text for b in OdfWalker(self.notes).walk(annotation))
        if text.strip():
            self.comments.append(f"Comment ({name}): {text}" if name else text)

    def _link(self, link: Any, out: list[str]) -> None:
        inner: list[str] = []
        self._inline(link, inner)
        text, href = " ".join("".join(inner).split()), link.get(_XLINK_HREF) or ""
        external = href.startswith(("http:", "https:", "mailto:", "ftp:"))
        out.append(f"[{text}]({href.replace(' ', '%20')})" if text and external else "".join(inner))

    def _frame(self, frame: Any, out: list[str]) -> None:
        for alt in (frame.find(_SVG + "title"), frame.find(_SVG + "desc")):
            if alt is not None and alt.text:
                out.append(f" {alt.text} ")
        self._frames.append(frame)


def picture_part(image: Any) -> str | None:
    """The package part a `draw:image` shows, or None (a link outside, inline data)."""
    href = (image.get(_XLINK_HREF) or "").removeprefix("./")
    return href if href and ":" not in href and not href.startswith("/") else None


def _table_rows(table: Any) -> list[Any]:
    rows = []
    for child in table:
        if child.tag == TABLE + "table-row":
            repeat = min(_number(child.get(TABLE + "number-rows-repeated")), _MAX_REPEAT)
            rows.extend([child] * repeat)
        elif child.tag in _ROW_GROUPS:
            rows.extend(_table_rows(child))
    return rows


def _number(value: str | None) -> int:
    return int(value) if value and value.isdigit() and int(value) > 0 else 1
