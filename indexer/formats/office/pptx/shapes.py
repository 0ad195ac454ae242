"""A slide's shape tree as Markdown blocks: the title, then text frames and tables in
reading order (top to bottom, then left to right).

A placeholder without its own position takes its layout's (then its master's), as
PowerPoint draws it; a group's shapes are ordered among themselves and sit where
the group sits. Of an `mc:AlternateContent`, only the first choice is read. A picture
gives its alternative text, then the text OCR reads in it (by the `embedded` renderer).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from indexer.formats.office.blocks import Block, table_blocks

__all__ = ["Positions", "SlideText", "frame_lines", "slide_blocks"]

A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
P = "{http://schemas.openxmlformats.org/presentationml/2006/main}"
_MC = "{http://schemas.openxmlformats.org/markup-compatibility/2006}"
_TITLES = ("title", "ctrTitle")
_NOTES_FURNITURE = ("sldNum", "dt", "sldImg", "hdr", "ftr")
"""What a notes page shows besides its notes: not the speaker's text."""
_CHART = "{http://schemas.openxmlformats.org/drawingml/2006/chart}chart"
_R_ID = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}id"
_R_EMBED = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}embed"
_FAR = 1 << 62

Position = tuple[int, int]


class Positions:
    """Where the placeholders of a slide's layout and master sit, by index and by type."""

    def __init__(self, *trees: Any) -> None:
        self._by: dict[str, Position] = {}
        for tree in reversed(trees):  # the layout's, read last, win over the master's
            if tree is None:
                continue
            for shape in tree.iter(P + "sp"):
                ph = _placeholder(shape)
                at = _offset(shape)
                if ph is not None and at is not None:
                    self._by[f"idx:{ph.get('idx')}"] = at
                    self._by[f"type:{ph.get('type') or 'body'}"] = at

    def of(self, shape: Any) -> Position:
        """The position of `shape`: its own, else its placeholder's; unknown ones last."""
        at = _offset(shape)
        if at is not None:
            return at
        ph = _placeholder(shape)
        if ph is None:
            return (_FAR, _FAR)
        by = self._by
        return (
            by.get(f"idx:{ph.get('idx')}")
            or by.get(f"type:{ph.get('type') or 'body'}")
            or (
                _FAR,
                _FAR,
            )
        )


class SlideText:
    """The title and the other blocks of one slide (or notes page)."""

    def __init__(self, embedded: Callable[[str], list[Block]], notes: bool) -> None:
        self.title: list[str] = []
        self.blocks: list[Block] = []
        self.embedded = embedded
        """Renders a chart or reads a picture, by the relationship id the slide names it with."""
        self.notes = notes


def slide_blocks(
    tree: Any, positions: Positions, embedded: Callable[[str], list[Block]], *, notes: bool = False
) -> SlideText:
    """The text of the shape tree `tree`; on a notes page only its notes."""
    out = SlideText(embedded, notes)
    for shape in _ordered(tree, positions):
        _shape(shape, out)
    return out


def _ordered(group: Any, positions: Positions) -> list[Any]:
    shapes = [s for s in _children(group) if s.tag in _SHAPES]
    keyed = [(positions.of(s), i, s) for i, s in enumerate(shapes)]
    return [shape for _, _, shape in sorted(keyed, key=lambda k: (k[0][1], k[0][0], k[1]))]


_SHAPES = frozenset({P + "sp", P + "graphicFrame", P + "grpSp", P + "pic", P + "cxnSp"})


def _children(group: Any) -> list[Any]:
    """`group`'s shapes, an `mc:AlternateContent` standing for its first choice's."""
    found: list[Any] = []
    for child in group:
        if child.tag == _MC + "AlternateContent":
            choice = child.find(_MC + "Choice")
            found.extend(_children(choice) if choice is not None else ())
        else:
            found.append(child)
    return found


def _shape(shape: Any, out: SlideText) -> None:
    tag = shape.tag
    if tag == P + "grpSp":
        for inner in _ordered(shape, Positions()):
            _shape(inner, out)
    elif out.notes:
        _notes_shape(shape, out)
    elif tag == P + "graphicFrame":
        table = shape.find(f".//{A}tbl")
        if table is not None:
            out.blocks.extend(table_blocks(_rows(table), ()))
        for chart in shape.iter(_CHART):
            out.blocks.extend(out.embedded(chart.get(_R_ID) or ""))
    elif tag == P + "pic":
        alt = shape.find(f"{P}nvPicPr/{P}cNvPr")
        text = " ".join((alt.get("descr") or "").split()) if alt is not None else ""
        out.blocks.extend([Block(text, "para", ())] if text else [])
        for blip in shape.iter(A + "blip"):
            out.blocks.extend(out.embedded(blip.get(_R_EMBED) or ""))
    else:
        _text_shape(shape, out)


def _notes_shape(shape: Any, out: SlideText) -> None:
    ph = _placeholder(shape)
    kind = (ph.get("type") or "body") if ph is not None else ""
    if kind not in _NOTES_FURNITURE:
        _text_shape(shape, out)


def _text_shape(shape: Any, out: SlideText) -> None:
    body = shape.find(P + "txBody")
    if body is None:
        return
    ph = _placeholder(shape)
    kind = (ph.get("type") or "body") if ph is not None else ""
    lines = frame_lines(body)
    if kind in _TITLES and not out.notes:
        out.title.extend(lines)
    elif lines:
        out.blocks.append(Block("\n".join(lines), "para", ()))


def frame_lines(body: Any) -> list[str]:
    """The non-blank paragraphs of a text body, whitespace collapsed."""
    lines = []
    for para in body.iter(A + "p"):
        parts: list[str] = []
        for node in para.iter(A + "t", A + "br"):
            parts.append(node.text or "" if node.tag == A + "t" else "\n")
        for text in "".join(parts).split("\n"):
            text = " ".join(text.split())
            if text:
                lines.append(text)
    return lines


def _rows(table: Any) -> list[list[tuple[str, int]]]:
    rows = []
    for tr in table.iter(A + "tr"):
        row = []
        for tc in tr.iter(A + "tc"):
            if tc.get("hMerge") == "1" or tc.get("vMerge") == "1":
                row.append(("", 1))  # covered by a merged cell: its text is in that cell
                continue
            body = tc.find(A + "txBody")
            row.append((" ".join(frame_lines(body)) if body is not None else "", 1))
        rows.append(row)
    return rows


def _placeholder(shape: Any) -> Any:
    for nv in (P + "nvSpPr", P + "nvPicPr", P + "nvGraphicFramePr"):
        found = shape.find(f"{nv}/{P}nvPr/{P}ph")
        if found is not None:
            return found
    return None


def _offset(shape: Any) -> Position | None:
    for path in (f"{P}spPr/{A}xfrm/{A}off", f"{P}xfrm/{A}off", f"{P}grpSpPr/{A}xfrm/{A}off"):
        off = shape.find(path)
        if off is not None:
            try:
                return int(off.get("x") or 0), int(off.get("y") or 0)
            except ValueError:
                return None
    return None
