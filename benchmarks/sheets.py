"""Suite `sheets`: spreadsheets and RTF against markitdown and kreuzberg.

* quality: on every workbook of ../shared/formats that markitdown converts, the
  bag-of-words recall of markitdown's words in indexer's chunks (lower-cased `\\w+`
  tokens, as ../shared/quality/score_html.py counts them), raw and with markitdown's
  own artefacts undone first (pandas' `NaN` and `Unnamed: 3`, `89.0` for 89,
  `0.500000` for 0.5, Markdown's `\\_`, a literal `\\n`); RTF against kreuzberg's words,
  since markitdown passes RTF through as its source;
* speed: single-core CPU seconds (best of `--repeat`) of indexer.extract,
  markitdown and kreuzberg over the same files, per format;
* memory: `indexer run` on generated workbooks (one sheet at the cell cap, one of
  1,048,576 rows past it): the peak RSS of any one process against the worker's cap.

Markitdown and kreuzberg are bench-only (`pip install 'markitdown[xlsx,xls]' kreuzberg`);
a missing one is reported, not fatal.
"""

from __future__ import annotations

import collections
import io
import re
import statistics
import zipfile
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import indexer
from benchmarks.common import INDEXER, SHARED, cached_tree, fresh_dir, load, run_command, table
from benchmarks.textual import best_of
from indexer.config import Config
from indexer.formats.sheets import samples as _sheetsamples

FORMATS = SHARED / "formats"
SUFFIXES = (".xlsx", ".xlsm", ".xlsb", ".xls", ".ods", ".rtf")
WORD = re.compile(r"\w+")
ARTEFACTS = (
    (re.compile(r"\bNaN\b|\bUnnamed: \d+\b|\\n"), " "),
    (re.compile(r"\\([_*#\[\]`|])"), r"\1"),
    (re.compile(r"\b(\d+)\.0+\b"), r"\1"),
    (re.compile(r"\b(\d+\.\d*?[1-9])0+\b"), r"\1"),
)
"""What markitdown adds that is not in the workbook: pandas' placeholders and float
formatting, Markdown escapes, newlines inside cells written as `\\n`."""
MIME = {
    ".xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    ".xlsm": "application/vnd.ms-excel.sheet.macroEnabled.12",
    ".xlsb": "application/vnd.ms-excel.sheet.binary.macroEnabled.12",
    ".xls": "application/vnd.ms-excel",
    ".ods": "application/vnd.oasis.opendocument.spreadsheet",
    ".rtf": "application/rtf",
}
Files = list[tuple[str, bytes]]


def _files() -> Files:
    if not FORMATS.is_dir():
        return []
    paths = sorted(p for p in FORMATS.rglob("*") if p.suffix.lower() in SUFFIXES)
    return [(str(p.relative_to(FORMATS)), p.read_bytes()) for p in paths]


def _ours(name: str, data: bytes) -> str:
    return "\n\n".join(c.text for c in indexer.extract(name, data).chunks)


def _markitdown() -> Callable[[str, bytes], str] | None:
    try:
        from markitdown import MarkItDown
    except ImportError:
        return None
    converter = MarkItDown()

    def convert(name: str, data: bytes) -> str:
        stream = io.BytesIO(data)
        return str(converter.convert_stream(stream, file_extension=Path(name).suffix).text_content)

    return convert


def _kreuzberg() -> Callable[[str, bytes], str] | None:
    try:
        import kreuzberg
    except ImportError:
        return None
    config = kreuzberg.ExtractionConfig(use_cache=False)  # each run must extract

    def convert(name: str, data: bytes) -> str:
        mime = MIME[Path(name).suffix.lower()]
        return str(kreuzberg.extract_bytes_sync(data, mime, config).content)

    return convert


def _converts(convert: Callable[[str, bytes], str], name: str, data: bytes) -> str | None:
    try:
        text = convert(name, data)
    except Exception:  # the other tool's failure: the file is left out of its figures
        return None
    return text if text.strip() else None


def _convert_all(convert: Callable[[str, bytes], str], files: Files) -> list[str]:
    return [convert(name, data) for name, data in files]


def _undo(text: str) -> str:
    for pattern, replacement in ARTEFACTS:
        text = pattern.sub(replacement, text)
    return text


def _recall(ours: str, theirs: str) -> float:
    got = collections.Counter(w.lower() for w in WORD.findall(ours))
    want = collections.Counter(w.lower() for w in WORD.findall(theirs))
    return sum((got & want).values()) / max(1, sum(want.values()))


def quality(files: Files) -> dict[str, Any]:
    """Per file and per format: recall of markitdown's words in indexer's chunks."""
    markitdown, kreuzberg = _markitdown(), _kreuzberg()
    if markitdown is None or kreuzberg is None:
        return {"error": "markitdown or kreuzberg is not installed"}
    rows: list[dict[str, Any]] = []
    for name, data in files:
        convert = kreuzberg if name.endswith(".rtf") else markitdown
        theirs = _converts(convert, name, data)
        if theirs is None:
            continue
        ours = _ours(name, data)
        clean = _undo(theirs)
        rows.append(
            {
                "file": name,
                "format": Path(name).suffix.lower(),
                "recall": round(_recall(ours, theirs), 3),
                "recall_clean": round(_recall(ours, clean), 3),
            }
        )
    by_format: dict[str, Any] = {}
    for fmt in sorted({r["format"] for r in rows}):
        mine = [r for r in rows if r["format"] == fmt]
        by_format[fmt] = {
            "files": len(mine),
            "median_recall": statistics.median(r["recall"] for r in mine),
            "median_recall_clean": statistics.median(r["recall_clean"] for r in mine),
        }
    sheets = [r for r in rows if r["format"] != ".rtf"]
    return {
        "files": rows,
        "by_format": by_format,
        "spreadsheets": {
            "files": len(sheets),
            "median_recall": statistics.median(r["recall"] for r in sheets) if sheets else None,
            "median_recall_clean": (
                statistics.median(r["recall_clean"] for r in sheets) if sheets else None
            ),
        },
    }


def speed(files: Files, repeat: int) -> list[dict[str, Any]]:
    """CPU seconds of each tool over the files markitdown converts, per format."""
    tools = {"indexer": _ours, "markitdown": _markitdown(), "kreuzberg": _kreuzberg()}
    convert = tools["markitdown"]
    common = [(n, d) for n, d in files if convert is None or _converts(convert, n, d) is not None]
    rows = []
    for fmt in sorted({Path(n).suffix.lower() for n, _ in common}):
        batch = [(n, d) for n, d in common if Path(n).suffix.lower() == fmt]
        row: dict[str, Any] = {"format": fmt, "files": len(batch), "load": load()}
        row["mb"] = round(sum(len(d) for _, d in batch) / 1e6, 2)
        for tool, run in tools.items():
            if run is None:
                row[tool] = None
                continue
            ok = [(n, d) for n, d in batch if _converts(run, n, d) is not None]
            seconds = best_of(repeat, partial(_convert_all, run, ok))
            row[tool] = {"files": len(ok), "cpu_s": round(seconds, 4)}
            row[f"{tool}_files_per_s"] = round(len(ok) / seconds, 1) if seconds else None
        if row.get("markitdown_files_per_s") and row.get("indexer_files_per_s"):
            row["x_markitdown"] = round(
                row["indexer_files_per_s"] / row["markitdown_files_per_s"], 1
            )
        if row.get("kreuzberg_files_per_s") and row.get("indexer_files_per_s"):
            row["x_kreuzberg"] = round(row["indexer_files_per_s"] / row["kreuzberg_files_per_s"], 2)
        rows.append(row)
    return rows


def big_xlsx(path: Path, rows: int, cols: int) -> int:
    """Write an xlsx of one `rows` x `cols` sheet (numbers, labels, dates); return its cells."""
    base = zipfile.ZipFile(io.BytesIO(_sheetsamples.xlsx([("Big", [["x"]])])))
    head = b'<?xml version="1.0"?><worksheet xmlns="http://schemas.openxmlformats.org/'
    head += b'spreadsheetml/2006/main"><sheetData>'
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as out:
        for name in base.namelist():
            if not name.endswith("sheet1.xml"):
                out.writestr(name, base.read(name))
        with out.open("xl/worksheets/sheet1.xml", "w") as sheet:
            sheet.write(head)
            for r in range(1, rows + 1):
                cells = [f'<c r="A{r}" t="inlineStr"><is><t>row {r}</t></is></c>']
                cells += [
                    f'<c r="{_sheetsamples.column_letters(c)}{r}"><v>{r * c + 0.25}</v></c>'
                    for c in range(1, cols)
                ]
                sheet.write(f'<row r="{r}">{"".join(cells)}</row>'.encode())
            sheet.write(b"</sheetData></worksheet>")
    return rows * cols


def memory(workdir: Path) -> list[dict[str, Any]]:
    """Peak RSS of `indexer run` on one generated workbook at a time."""
    cases = {"at-cap-100k-rows": (100_000, 20), "past-cap-1m-rows": (1_048_576, 16)}
    rows = []
    for label, (height, width) in cases.items():
        folder, cells = cached_tree(workdir, f"sheets-{label}", partial(_big_tree, height, width))
        out = fresh_dir(workdir / f"sheets-{label}-out")
        argv = [INDEXER, "run", str(folder), "--out", str(out), "--workers", "1",
                "--pdf-workers", "1", "--quiet", "--max-failures", "1"]  # fmt: skip
        measured = run_command(argv)
        doc = (out / "documents-00000.ndjson").read_text().splitlines()[0]
        rows.append(
            {
                "case": label,
                "cells": cells,
                "xlsx_mb": round((folder / "big.xlsx").stat().st_size / 1e6, 1),
                "wall_s": round(measured.wall, 1),
                "peak_process_rss_mb": round(measured.peak_proc_mb),
                "cap_mb": Config().max_memory_mb,
                "record": doc[:300],
                "load": measured.load_after,
            }
        )
    return rows


def _big_tree(rows: int, cols: int, folder: Path) -> int:
    """Fill `folder` with one `big_xlsx`; return its cells."""
    folder.mkdir(parents=True, exist_ok=True)
    return big_xlsx(folder / "big.xlsx", rows, cols)


def run(args: Any) -> dict[str, Any]:
    """The suite."""
    files = _files()
    sheets = [(n, d) for n, d in files if not n.endswith(".rtf")]
    return {
        "quality": quality(files),
        "speed": speed(files, args.repeat),
        "memory": memory(Path(args.workdir)) if not args.sheets_skip_memory else [],
        "spreadsheets": len(sheets),
    }


def render(result: dict[str, Any]) -> str:
    """The suite's tables."""
    q = result["quality"]
    lines = ["quality (recall of markitdown's words; median per format):"]
    if "error" in q:
        lines.append(q["error"])
    else:
        lines.append(table(
            ("format", "files", "median recall", "without NaN/Unnamed"),
            [(f, v["files"], v["median_recall"], v["median_recall_clean"])
             for f, v in q["by_format"].items()],
        ))  # fmt: skip
        s = q["spreadsheets"]
        lines.append(f"all spreadsheets: {s['files']} files, median recall {s['median_recall']}"
                     f" ({s['median_recall_clean']} without pandas' placeholders)")  # fmt: skip
    lines.append("\nspeed (files/s, one core, CPU time):")
    lines.append(table(
        ("format", "files", "MB", "indexer", "markitdown", "kreuzberg", "x markitdown",
         "x kreuzberg", "load"),
        [(r["format"], r["files"], r["mb"], r.get("indexer_files_per_s"),
          r.get("markitdown_files_per_s"), r.get("kreuzberg_files_per_s"),
          r.get("x_markitdown"), r.get("x_kreuzberg"), r["load"]) for r in result["speed"]],
    ))  # fmt: skip
    if result["memory"]:
        lines.append("\nmemory (indexer run, one workbook):")
        lines.append(table(
            ("case", "cells", "xlsx MB", "wall s", "peak RSS MB", "cap MB", "load"),
            [(r["case"], r["cells"], r["xlsx_mb"], r["wall_s"], r["peak_process_rss_mb"],
              r["cap_mb"], r["load"]) for r in result["memory"]],
        ))  # fmt: skip
    return "\n".join(lines)


def add_arguments(parser: Any) -> None:
    """The suite's flags."""
    parser.add_argument(
        "--sheets-skip-memory", action="store_true", help="no generated-workbook runs"
    )
    parser.add_argument("--repeat", type=int, default=3, help="best of N")
