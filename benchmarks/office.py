"""Suite `office`: office formats against markitdown and kreuzberg, throughput and words kept.

Every file of the office kinds under `../shared/formats` (docx, pptx, odt, odp, epub,
doc, ppt) is read into memory, then converted by each tool in turn, round after
round (interleaved, so load on the shared machine hits all tools alike), on one core.
Rates use the best round's CPU time; a tool's time counts only the files it converts
(a file it raises on costs it nothing and is left out of its count).

Words kept: for each file markitdown converts to any words, the bag-of-words recall
of markitdown's words in indexer's chunks (lower-cased `\\w+` tokens, as
`../shared/quality/score_html.py` counts them), median and mean per format. `raw`
counts every word markitdown prints; `content` first drops the markup markitdown
adds itself: its `<!-- Slide number: n -->` lines, the targets of its image links
(`![alt](Picture2.jpg)`, `data:image/png;base64...`; the alt text is kept), its
backslash escapes and its emphasis asterisks, which split words (`F**oo**bar`).

Word files are also read by mammoth and python-docx, the readers indexer's own walk
was measured against. markitdown, kreuzberg, mammoth and python-docx are bench-only
dependencies (not in pyproject; markitdown's docx extra brings mammoth):
    .venv/bin/pip install 'markitdown[docx,pptx]' kreuzberg python-docx
A tool that is not installed is left out.
"""

from __future__ import annotations

import collections
import io
import logging
import os
import re
import statistics
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import indexer
from benchmarks.common import SHARED

DEFAULT_FORMATS = SHARED / "formats"
KINDS = ("docx", "pptx", "odt", "odp", "epub", "doc", "ppt")
MIME = {
    "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    "odt": "application/vnd.oasis.opendocument.text",
    "odp": "application/vnd.oasis.opendocument.presentation",
    "epub": "application/epub+zip",
    "doc": "application/msword",
    "ppt": "application/vnd.ms-powerpoint",
}
MARKITDOWN_READS = ("docx", "pptx", "epub")  # it has no odt, odp, doc or ppt converter
_WORD = re.compile(r"\w+")
_SLIDE_MARK = re.compile(r"<!-- Slide number: \d+ -->")
_IMAGE_TARGET = re.compile(r"(!\[[^\]]*\])\([^)]*\)")
_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|])")
_EMPHASIS = re.compile(r"\*+")

Convert = Callable[[str, bytes], str]


def files_of(root: Path) -> dict[str, list[tuple[str, bytes]]]:
    """(relative path, bytes) of every office file under `root`, by kind, sorted."""
    found: dict[str, list[tuple[str, bytes]]] = {kind: [] for kind in KINDS}
    for path in sorted(root.rglob("*")):
        kind = path.suffix.lower().lstrip(".")
        if kind in found and path.is_file():
            found[kind].append((path.relative_to(root).as_posix(), path.read_bytes()))
    return found


def tools() -> dict[str, Convert]:
    """The converters that are installed, by name: indexer first."""
    found: dict[str, Convert] = {"indexer": _indexer}
    try:
        from markitdown import MarkItDown

        converter = MarkItDown()

        def _markitdown(path: str, data: bytes) -> str:
            kind = path.rsplit(".", 1)[-1]
            if kind not in MARKITDOWN_READS:
                raise ValueError(f"markitdown has no {kind} converter")
            stream = io.BytesIO(data)
            return str(converter.convert_stream(stream, file_extension="." + kind).text_content)

        found["markitdown"] = _markitdown
    except ImportError:
        pass
    try:
        import kreuzberg

        def _kreuzberg(path: str, data: bytes) -> str:
            mime = MIME[path.rsplit(".", 1)[-1]]
            return str(kreuzberg.extract_bytes_sync(data, mime).content)

        found["kreuzberg"] = _kreuzberg
    except ImportError:
        pass
    return found


def docx_readers() -> dict[str, Convert]:
    """The Python Word readers indexer's own walk was chosen against, when installed:
    mammoth (Word to HTML, as markitdown uses it) and python-docx (paragraphs, then
    tables: not reading order, no notes)."""
    found: dict[str, Convert] = {}
    try:
        import mammoth

        found["mammoth"] = lambda path, data: str(mammoth.convert_to_html(io.BytesIO(data)).value)
    except ImportError:
        pass
    try:
        import docx

        def _python_docx(path: str, data: bytes) -> str:
            document = docx.Document(io.BytesIO(data))
            texts = [p.text for p in document.paragraphs]
            for table in document.tables:
                texts.extend(" | ".join(c.text for c in row.cells) for row in table.rows)
            return "\n".join(texts)

        found["python-docx"] = _python_docx
    except ImportError:
        pass
    return found


def _indexer(path: str, data: bytes) -> str:
    return "\n\n".join(chunk.text for chunk in indexer.extract(path, data).chunks)


def one_round(convert: Convert, files: list[tuple[str, bytes]]) -> tuple[float, int, int]:
    """CPU seconds of converting `files` once, and the files and bytes converted."""
    seconds, count, size = 0.0, 0, 0
    for path, data in files:
        start = time.process_time()
        try:
            convert(path, data)
        except Exception:  # a file a tool cannot read costs it nothing here
            continue
        seconds += time.process_time() - start
        count += 1
        size += len(data)
    return seconds, count, size


def throughput(
    files: list[tuple[str, bytes]], convert: dict[str, Convert], rounds: int
) -> dict[str, Any]:
    """Each tool's best round over `files`: files, MB, CPU s, files/s and MB/s."""
    best: dict[str, tuple[float, int, int]] = {}
    for tool in convert.values():  # warm: imports and first-call set-up are not timed
        for path, data in files[:1]:
            _quietly(tool, path, data)
    for _ in range(rounds):
        for name, tool in convert.items():
            measured = one_round(tool, files)
            if name not in best or measured[0] < best[name][0]:
                best[name] = measured
    return {
        name: {
            "files": count,
            "mb": round(size / 1e6, 2),
            "cpu_s": round(seconds, 3),
            "files_per_s": round(count / seconds, 1) if seconds else None,
            "mb_per_s": round(size / 1e6 / seconds, 2) if seconds else None,
        }
        for name, (seconds, count, size) in best.items()
    }


def _quietly(tool: Convert, path: str, data: bytes) -> str | None:
    try:
        return tool(path, data)
    except Exception:  # a tool with no reader for the file, or one that chokes on it
        return None


def words(text: str) -> collections.Counter[str]:
    """Lower-cased `\\w+` tokens, as the quality scorers count them."""
    return collections.Counter(w.lower() for w in _WORD.findall(text))


def content_only(markdown: str) -> str:
    """markitdown's text without the markup it adds: slide marks, image link targets,
    backslash escapes (`Outer\\_haystack`) and emphasis marks inside words (`F**oo**`)."""
    text = _IMAGE_TARGET.sub(r"\1", _SLIDE_MARK.sub("", markdown))
    return _EMPHASIS.sub("", _ESCAPE.sub(r"\1", text))


def recall(files: list[tuple[str, bytes]], convert: dict[str, Convert]) -> dict[str, Any] | None:
    """Median and mean recall of markitdown's words in indexer's text, raw and content."""
    if "markitdown" not in convert:
        return None
    raw: list[float] = []
    content: list[float] = []
    for path, data in files:
        reference = _quietly(convert["markitdown"], path, data)
        if not reference or not words(reference):
            continue
        ours = words(_indexer(path, data))
        for scores, want in ((raw, words(reference)), (content, words(content_only(reference)))):
            total = sum(want.values())
            scores.append(sum((ours & want).values()) / total if total else 1.0)
    if not raw:
        return None
    return {
        "files": len(raw),
        "raw_median": round(statistics.median(raw), 3),
        "raw_mean": round(statistics.mean(raw), 3),
        "content_median": round(statistics.median(content), 3),
        "content_mean": round(statistics.mean(content), 3),
    }


def run(args: Any) -> dict[str, Any]:
    """The suite: per format, every tool's throughput and indexer's recall, on one core."""
    cpus = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(cpus)})
    logging.disable(logging.CRITICAL)
    warnings.filterwarnings("ignore")
    try:
        convert = tools()
        results: dict[str, Any] = {"tools": list(convert), "formats": {}}
        for kind, files in files_of(Path(args.formats)).items():
            if files:
                results["formats"][kind] = {
                    "throughput": throughput(
                        files,
                        {**convert, **docx_readers()} if kind == "docx" else convert,
                        args.office_rounds,
                    ),
                    "recall": recall(files, convert) if kind in MARKITDOWN_READS else None,
                }
    finally:  # `scripts/bench all` runs other suites in this process after this one
        os.sched_setaffinity(0, cpus)
        logging.disable(logging.NOTSET)
    return results


def render(result: dict[str, Any]) -> str:
    """One table: per format and tool, files, MB, files/s, MB/s, speed-up, recall."""
    head = f"{'format':<7}{'tool':<12}{'files':>6}{'MB':>7}{'files/s':>10}{'MB/s':>9}{'x md':>7}"
    lines = [head]
    for kind, row in result["formats"].items():
        md = row["throughput"].get("markitdown", {}).get("files_per_s")
        for name, m in row["throughput"].items():
            if not m["files"]:  # a tool with no reader for the format
                continue
            ratio = f"{m['files_per_s'] / md:.1f}" if md and m["files_per_s"] else "-"
            lines.append(
                f"{kind:<7}{name:<12}{m['files']:>6}{m['mb']:>7.2f}{m['files_per_s']:>10.1f}"
                f"{m['mb_per_s']:>9.2f}{ratio:>7}"
            )
        if row["recall"]:
            r = row["recall"]
            lines.append(
                f"{'':<7}recall of markitdown's words over {r['files']} files: median "
                f"{r['raw_median']} (content {r['content_median']}), mean {r['raw_mean']} "
                f"(content {r['content_mean']})"
            )
    return "\n".join(lines)


def add_arguments(parser: Any) -> None:
    """The suite's flags."""
    parser.add_argument("--formats", default=str(DEFAULT_FORMATS), help="office files")
    parser.add_argument("--office-rounds", type=int, default=3, help="interleaved rounds per tool")
