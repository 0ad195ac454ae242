"""The walk of a WordprocessingML story (body, header, note, cell) into Markdown blocks.

Block-level content in document order: paragraphs, headings (their text prefixed by
`#`s, the heading path updated), runs of list items as one list block, tables as GFM,
content controls and tracked insertions as what they hold, deleted and moved-away text
left out. A text box is detached from its anchor paragraph before the walk and its
content follows that paragraph, as do its charts and the text OCR reads in its pictures
(`Context.picture`); of an `mc:AlternateContent`, only the first choice is read (the
fallback repeats it).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lxml import etree

from indexer.formats.html.mdsyntax import list_item
from indexer.formats.office.blocks import Block, HeadingPath, table_blocks
from indexer.formats.office.docx.elements import cells, clean, numbering_of, rows, span, symbol
from indexer.formats.office.docx.fields import Fields, link_target
from indexer.formats.office.docx.styles import Numbering, Styles
from indexer.formats.office.ooxml import Rel

__all__ = ["Context", "Walker", "prepare"]

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_MC = "{http://schemas.openxmlformats.org/markup-compatibility/2006}"
_M = "{http://schemas.openxmlformats.org/officeDocument/2006/math}"
_R_ID = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}id"
_DOC_PR = "{http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing}docPr"
_CHART = "{http://schemas.openxmlformats.org/drawingml/2006/chart}chart"
_BLIP = "{http://schemas.openxmlformats.org/drawingml/2006/main}blip"
_R_EMBED = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}embed"
_VML_IMAGE = "{urn:schemas-microsoft-com:vml}imagedata"
P, TBL, R, T = W + "p", W + "tbl", W + "r", W + "t"
_TXBX, _SDT, _SDT_CONTENT = W + "txbxContent", W + "sdt", W + "sdtContent"
_ALT, _CHOICE = _MC + "AlternateContent", _MC + "Choice"
_HYPERLINK, _VAL = W + "hyperlink", W + "val"
_PPR, _PSTYLE, _NUMPR, _OUTLINE = W + "pPr", W + "pStyle", W + "numPr", W + "outlineLvl"
_FLD_CHAR, _FLD_TYPE, _INSTR = W + "fldChar", W + "fldCharType", W + "instrText"
_FLD_SIMPLE, _INSTR_ATTR = W + "fldSimple", W + "instr"
_BLOCK_WRAPPERS = frozenset({W + "customXml", W + "ins", W + "moveTo", _ALT, _CHOICE})
_INLINE_WRAPPERS = frozenset(
    {W + "ins", W + "moveTo", W + "smartTag", W + "customXml", W + "fldSimple", W + "dir",
     W + "bdo", _ALT, _CHOICE}
)  # fmt: skip
_CHARS = {W + "tab": "\t", W + "ptab": "\t", W + "br": "\n", W + "cr": "\n",
          W + "noBreakHyphen": "-"}  # fmt: skip
_MATH = frozenset({_M + "oMathPara", _M + "oMath"})


class Context:
    """What every story of one document shares: styles, lists, notes and links."""

    def __init__(self, styles: Styles, numbering: Numbering) -> None:
        self.styles = styles
        self.numbering = numbering
        self.note_labels: dict[tuple[str, str], int] = {}
        """(`f` or `e`, note id) to the label its first reference gave it."""
        self.alt_chunk: Callable[[str, tuple[str, ...]], list[Block]] = lambda name, path: []
        """Renders an imported HTML part (`w:altChunk`), by part name."""
        self.chart: Callable[[str, tuple[str, ...]], list[Block]] = lambda name, path: []
        """Renders a chart part, by part name."""
        self.picture: Callable[[str, tuple[str, ...]], list[Block]] = lambda name, path: []
        """Reads the text in a picture part (OCR), by part name."""

    def note(self, kind: str, note_id: str) -> str:
        """The label of a footnote (`f`) or endnote (`e`) reference: `[^n]`."""
        label = self.note_labels.setdefault((kind, note_id), len(self.note_labels) + 1)
        return f"[^{label}]"


def prepare(root: Any) -> dict[Any, list[Any]]:
    """Drop `mc:Fallback` copies and detach text boxes from `root`; return the boxes
    by the paragraph they were anchored in (`None` for boxes outside any)."""
    etree.strip_elements(root, _MC + "Fallback", with_tail=False)
    boxes: dict[Any, list[Any]] = {}
    for box in list(root.iter(_TXBX)):
        anchor = next(box.iterancestors(P), None)
        parent = box.getparent()
        if parent is not None:
            parent.remove(box)
        boxes.setdefault(anchor, []).append(box)
    return boxes


class Walker:
    """Blocks of one story; `rels` are its part's relationships (`ooxml.relationships`)."""

    def __init__(
        self, ctx: Context, rels: dict[str, Rel], boxes: dict[Any, list[Any]], *, cell: bool = False
    ) -> None:
        self.ctx = ctx
        self.rels = rels
        self.boxes = boxes
        self.cell = cell
        self.blocks: list[Block] = []
        self.path = HeadingPath()
        self._items: list[str] = []
        self.fields = Fields()
        self._embedded: list[tuple[str, str]] = []
        """(`chart` or `image`, part) met in the paragraph being read: they follow it."""

    def walk(self, container: Any) -> list[Block]:
        """Add the blocks of `container`'s children; return all blocks so far."""
        for child in container:
            tag = child.tag
            if tag == P:
                self._paragraph(child)
            elif tag == TBL:
                self._table(child)
            elif tag == _SDT:
                content = child.find(_SDT_CONTENT)
                if content is not None:
                    self.walk(content)
            elif tag in _BLOCK_WRAPPERS:
                self.walk(child)
            elif tag == W + "altChunk":
                self._end_list()
                target = self._target(child.get(_R_ID), "aFChunk", external=False)
                self.blocks.extend(self.ctx.alt_chunk(target, self.path.path) if target else ())
        self._end_list()
        return self.blocks

    def _paragraph(self, p: Any) -> None:
        text = clean(self.inline(p, []))
        level, numbering = self._props(p)
        if level and text and not self.cell:
            self._end_list()
            path = self.path.enter(level, text)
            self.blocks.append(Block("#" * min(level, 6) + " " + text, "heading", path))
        elif numbering is not None and (marker := self.ctx.numbering.marker(*numbering)):
            if text:
                self._items.append("  " * numbering[1] + list_item(marker, text))
        elif text:
            self._end_list()
            self.blocks.append(Block(text, "para", self.path.path))
        for box in self.boxes.get(p, ()):
            self.walk(box)
        if self._embedded:
            embedded, self._embedded = self._embedded, []
            self._end_list()
            for kind, name in embedded:
                render = self.ctx.chart if kind == "chart" else self.ctx.picture
                self.blocks.extend(render(name, self.path.path))

    def _props(self, p: Any) -> tuple[int, tuple[str, int] | None]:
        ppr = p.find(_PPR)
        if ppr is None:
            return 0, None
        sid = outline = num = None
        for child in ppr:  # one pass: a find() per property costs as much each
            tag = child.tag
            if tag == _PSTYLE:
                sid = child.get(_VAL)
            elif tag == _NUMPR:
                num = child
            elif tag == _OUTLINE:
                outline = child.get(_VAL)
        styles = self.ctx.styles
        level = styles.heading_level(sid) if sid else 0
        if outline is not None and outline.isdigit():
            level = int(outline) + 1 if int(outline) < 9 else 0
        numbering = styles.numbering(sid) if sid else None
        if num is not None:
            numbering = numbering_of(num, numbering)
        return level, numbering

    def _end_list(self) -> None:
        if self._items:
            self.blocks.append(Block("\n".join(self._items), "list", self.path.path))
            self._items = []

    def inline(self, node: Any, out: list[str]) -> list[str]:
        """Append the text of `node`'s runs, links and fields to `out`; return it."""
        for child in node:
            tag = child.tag
            if tag == R:
                self._run(child, out)
            elif tag == _HYPERLINK:
                self._link(child, out)
            elif tag == _FLD_SIMPLE and (target := link_target(child.get(_INSTR_ATTR) or "")):
                out.extend(("[", *self.inline(child, []), f"]({target})"))
            elif tag in _INLINE_WRAPPERS:
                self.inline(child, out)
            elif tag == _SDT:
                content = child.find(_SDT_CONTENT)
                if content is not None:
                    self.inline(content, out)
            elif tag in _MATH:
                out.append(" " + "".join(child.itertext(_M + "t")) + " ")
        return out

    def _link(self, link: Any, out: list[str]) -> None:
        text = "".join(self.inline(link, []))
        target = self._target(link.get(_R_ID), "hyperlink", external=True)
        if target and text.strip() and "\n" not in text:
            out.append(f"[{text.strip()}]({target.replace(' ', '%20')})")
        else:
            out.append(text)

    def _run(self, run: Any, out: list[str]) -> None:
        for child in run:
            tag = child.tag
            if tag == T:
                out.append(child.text or "")
            elif tag in _CHARS:
                out.append(_CHARS[tag])
            elif tag == W + "footnoteReference":
                out.append(self.ctx.note("f", child.get(W + "id") or ""))
            elif tag == W + "endnoteReference":
                out.append(self.ctx.note("e", child.get(W + "id") or ""))
            elif tag == W + "drawing":
                out.extend(f" {alt} " for d in child.iter(_DOC_PR) if (alt := d.get("descr")))
                self._parts(child)
            elif tag == W + "pict":  # a VML picture, as Word 2003 and converters write them
                self._parts(child)
            elif tag == _FLD_CHAR:
                self._field(child.get(_FLD_TYPE), out)
            elif tag == _INSTR:
                self.fields.instruction(child.text or "")
            elif tag == W + "sym":
                out.append(symbol(child.get(W + "char") or ""))
            elif tag == W + "ruby":
                base = child.find(W + "rubyBase")
                if base is not None:
                    self.inline(base, out)
            elif tag in (_ALT, _CHOICE):
                self._run(child, out)

    def _parts(self, drawing: Any) -> None:
        """Note the charts and pictures `drawing` shows, to follow their paragraph."""
        for node in drawing.iter(_CHART, _BLIP, _VML_IMAGE):
            kind = "chart" if node.tag == _CHART else "image"
            rid = node.get(_R_ID if node.tag != _BLIP else _R_EMBED)
            name = self._target(rid, kind, external=False)
            self._embedded.extend([(kind, name)] if name else [])

    def _field(self, kind: str | None, out: list[str]) -> None:
        if kind == "begin":
            self.fields.begin()
        elif kind == "separate":
            self.fields.separate(out)
        elif kind == "end":
            self.fields.end(out)

    def _target(self, rid: str | None, kind: str, *, external: bool) -> str | None:
        """The target of relationship `rid` when it is of type `kind` (and `external`)."""
        rel = self.rels.get(rid or "")
        return rel[1] if rel is not None and rel[0] == kind and rel[2] == external else None

    def _table(self, table: Any) -> None:
        self._end_list()
        grid = [[self._cell(cell) for cell in cells(row)] for row in rows(table)]
        if self.cell:  # a table in a cell: its text, since a GFM cell holds one line
            text = " ".join(text for row in grid for text, _ in row if text)
            self.blocks.extend([Block(text, "para", self.path.path)] if text else [])
            return
        self.blocks.extend(table_blocks(grid, self.path.path))

    def _cell(self, cell: Any) -> tuple[str, int]:
        props = cell.find(W + "tcPr")
        columns = 1
        if props is not None:
            columns = span(props)
            merge = props.find(W + "vMerge")
            if merge is not None and merge.get(_VAL) != "restart":
                return "", columns  # a merged cell's text is in the cell it continues
        blocks = Walker(self.ctx, self.rels, self.boxes, cell=True).walk(cell)
        return " ".join(" ".join(b.text.split()) for b in blocks), columns
