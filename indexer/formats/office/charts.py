"""DrawingML charts (in Word and PowerPoint files) as a title line and a GFM data table.

A chart part caches the values it plots: the categories, each series' name and its
values by point index. The table has a row per category and a column per series.
"""

from __future__ import annotations

from typing import Any

from indexer.formats.office.blocks import Block, table_blocks
from indexer.formats.office.container import ContainerError, Package
from indexer.formats.office.ooxml import part_xml

__all__ = ["chart_blocks"]

C = "{http://schemas.openxmlformats.org/drawingml/2006/chart}"
A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
_MAX_POINTS = 10_000
"""Points per series read: a chart is a summary, and its table should stay one."""


def chart_blocks(package: Package, name: str, headings: tuple[str, ...] = ()) -> list[Block]:
    """Chart part `name`'s title (`Chart: ...`) and its data as a table, or nothing (a
    broken chart loses itself only)."""
    try:
        root = part_xml(package, name)
    except ContainerError:
        return []
    chart = root.find(C + "chart") if root is not None else None
    if chart is None:
        return []
    title = chart.find(C + "title")
    name = " ".join("".join(title.itertext(A + "t")).split()) if title is not None else ""
    series = list(chart.iter(C + "ser"))
    categories = _points(series[0].find(C + "cat")) if series else {}
    columns = [_points(ser.find(C + "val")) for ser in series]
    blocks = [Block(f"Chart: {name}" if name else "Chart", "para", headings)]
    if columns:
        header = [("Category", 1), *((_series_name(ser, i), 1) for i, ser in enumerate(series))]
        indexes = sorted(set(categories).union(*columns))[:_MAX_POINTS]
        rows = [
            [(categories.get(i, ""), 1), *((col.get(i, ""), 1) for col in columns)] for i in indexes
        ]
        blocks.extend(table_blocks([header, *rows], headings))
    return blocks if name or len(blocks) > 1 else []


def _series_name(ser: Any, index: int) -> str:
    tx = ser.find(C + "tx")
    text = " ".join("".join(tx.itertext(C + "v", A + "t")).split()) if tx is not None else ""
    return text or f"Series {index + 1}"


def _points(ref: Any) -> dict[int, str]:
    """A cached data reference's values by point index (`c:pt idx=`)."""
    found: dict[int, str] = {}
    if ref is None:
        return found
    for pt in ref.iter(C + "pt"):
        idx = pt.get("idx") or ""
        value = pt.find(C + "v")
        if idx.isdigit() and value is not None and value.text and int(idx) < _MAX_POINTS:
            found.setdefault(int(idx), _tidy(" ".join(value.text.split())))
    return found


def _tidy(value: str) -> str:
    """A cached number as a person reads it: 4.4000000000000004 is 4.4."""
    if len(value) < 16 or "." not in value:
        return value
    try:
        return f"{float(value):.15g}"
    except ValueError:
        return value
