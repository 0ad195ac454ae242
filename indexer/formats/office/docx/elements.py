"""Small readers of WordprocessingML elements, for the body walk."""

from __future__ import annotations

from typing import Any

__all__ = ["cells", "clean", "numbering_of", "rows", "span", "symbol"]

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_VAL = W + "val"
_SDT, _SDT_CONTENT = W + "sdt", W + "sdtContent"
_MC = "{http://schemas.openxmlformats.org/markup-compatibility/2006}"
_WRAPPERS = frozenset({W + "customXml", W + "ins", W + "moveTo", _MC + "AlternateContent",
                       _MC + "Choice"})  # fmt: skip


def numbering_of(num: Any, inherited: tuple[str, int] | None) -> tuple[str, int]:
    """A paragraph's own `numPr`, completed by what its style gives."""
    num_id, ilvl = num.find(W + "numId"), num.find(W + "ilvl")
    fallback = inherited or ("0", 0)
    number = num_id.get(_VAL) or "0" if num_id is not None else fallback[0]
    depth = ilvl.get(_VAL) or "0" if ilvl is not None else str(fallback[1])
    return number, int(depth) if depth.isdigit() else 0


def span(props: Any) -> int:
    grid = props.find(W + "gridSpan")
    value = grid.get(_VAL) or "1" if grid is not None else "1"
    return min(int(value), 20) if value.isdigit() and int(value) > 0 else 1


def rows(table: Any) -> list[Any]:
    """A table's rows, through content controls."""
    return _unwrapped(table, W + "tr")


def cells(row: Any) -> list[Any]:
    """A row's cells, through content controls."""
    return _unwrapped(row, W + "tc")


def _unwrapped(parent: Any, tag: str) -> list[Any]:
    """`parent`'s children called `tag`, looking through content controls and custom XML."""
    found = []
    for child in parent:
        if child.tag == tag:
            found.append(child)
        elif child.tag == _SDT:
            content = child.find(_SDT_CONTENT)
            if content is not None:
                found.extend(_unwrapped(content, tag))
        elif child.tag in _WRAPPERS:
            found.extend(_unwrapped(child, tag))
    return found


def symbol(code: str) -> str:
    try:
        value = int(code, 16)
    except ValueError:
        return ""
    # Symbol-font characters sit in the private use area: they mean nothing as text.
    return "" if 0xE000 <= value <= 0xF8FF or value < 32 else chr(value)


def clean(parts: list[str]) -> str:
    """A paragraph's text: whitespace runs one space within each line, blank lines gone."""
    text = "".join(parts)
    if "\n" not in text:
        return " ".join(text.split())
    lines = (" ".join(line.split()) for line in text.split("\n"))
    return "\n".join(line for line in lines if line)
