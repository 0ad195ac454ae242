"""Word's footnotes, endnotes and comments, each once, after the body.

Notes come in the order of their labels, which the body's references assigned
(`Context.note`); a note nothing references follows with the next label. Word's
separator "notes" (ids -1 and 0, or a `w:type`) are layout, not text.
"""

from __future__ import annotations

from typing import Any

from indexer.formats.office.blocks import Block
from indexer.formats.office.container import ContainerError, Package
from indexer.formats.office.docx.body import Context, Walker, prepare
from indexer.formats.office.ooxml import part_xml, relationships, rels_kind

__all__ = ["comments", "notes"]

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_KINDS = (("footnotes", "footnote", "f"), ("endnotes", "endnote", "e"))


def notes(package: Package, rels: dict[str, Any], ctx: Context, names: list[str]) -> list[Block]:
    """The footnotes and endnotes of the parts `names`, as `[^n]: text` blocks."""
    texts: dict[tuple[str, str], str] = {}
    for name in names:
        kind = rels_kind(rels, name)
        for part, tag, letter in _KINDS:
            if kind == part:
                texts.update(_texts(package, name, ctx, W + tag, letter))
    for key in texts:  # notes without a reference still count, after those with one
        ctx.note(*key)
    ordered = sorted(ctx.note_labels.items(), key=lambda item: item[1])
    return [
        Block(f"[^{label}]: {texts[key]}", "para", ()) for key, label in ordered if texts.get(key)
    ]


def _texts(
    package: Package, name: str, ctx: Context, tag: str, letter: str
) -> dict[tuple[str, str], str]:
    root = _root(package, name)
    if root is None:
        return {}
    rels = relationships(package, name)
    boxes = prepare(root)
    found: dict[tuple[str, str], str] = {}
    for note in root.iter(tag):
        note_id = note.get(W + "id") or ""
        if note.get(W + "type") or note_id in ("-1", "0"):
            continue
        blocks = Walker(ctx, rels, boxes, cell=True).walk(note)
        found[(letter, note_id)] = " ".join(" ".join(b.text.split()) for b in blocks)
    return found


def comments(package: Package, rels: dict[str, Any], ctx: Context) -> list[Block]:
    """Each comment as a `Comment (author): text` block, in the part's order."""
    blocks: list[Block] = []
    for key in sorted(rels):
        kind, name, external = rels[key]
        root = _root(package, name) if kind == "comments" and not external else None
        if root is None:
            continue
        part_rels = relationships(package, name)
        boxes = prepare(root)
        for comment in root.iter(W + "comment"):
            inner = Walker(ctx, part_rels, boxes, cell=True).walk(comment)
            text = " ".join(" ".join(b.text.split()) for b in inner)
            author = " ".join((comment.get(W + "author") or "").split())
            if text:
                blocks.append(Block(f"Comment ({author}): {text}" if author else text, "para", ()))
    return blocks


def _root(package: Package, name: str) -> Any:
    try:
        return part_xml(package, name)
    except ContainerError:  # a broken notes part loses its notes, not the document
        return None
