"""Suite `kinds`: single-core in-process throughput of each kind via `indexer.extract`.

Text, JSON and CSV inputs come from `benchmarks.textual.inputs`, PDFs from
`benchmarks.pdf` (the corpus PDFs, both engines); email and HTML inputs are generated
here (`benchmarks.mail`, `indexer._corpusgen`) and read from ../shared/corpus. Rates use
the process's CPU time (best of `--repeat`), so other load barely moves them.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from functools import partial
from typing import Any

from selectolax.lexbor import LexborHTMLParser

import indexer
from benchmarks import mail, pdf, textual
from benchmarks.common import SHARED_CORPUS, load, table
from indexer._corpusgen import _html
from indexer._samples import minimal_pdf
from indexer.formats.html.dom import KINDS, TEXT

Files = list[tuple[str, bytes]]
TARGETS = {"text": 50.0, "json": 50.0, "csv": 200_000.0, "eml": 1_000.0, "html": 30.0}
UNITS = {"csv": "rows/s", "eml": "messages/s"}
_TEXT_ID = next(tag for tag, kind in KINDS.items() if kind == TEXT)
"""Lexbor's tag id of a text node, as the HTML extractor probed it."""


def _corpus_files(*suffixes: str) -> Files:
    if not SHARED_CORPUS.is_dir():
        return []
    paths = sorted(p for p in SHARED_CORPUS.rglob("*") if p.suffix.lower() in suffixes)
    return [(str(p.relative_to(SHARED_CORPUS)), p.read_bytes()) for p in paths if p.is_file()]


def _extract_all(files: Files, options: indexer.Options | None = None) -> int:
    """Extract every file once; return the total of the `pages` metadata (PDFs)."""
    pages = 0
    for path, data in files:
        pages += int(indexer.extract(path, data, options).metadata.get("pages", 0) or 0)
    return pages


def _cpu_best(repeat: int, run: Callable[[], Any]) -> tuple[float, Any]:
    """The least CPU seconds of `repeat` runs after a warm-up run, and the warm-up's result."""
    result = run()  # imports, caches
    return textual.best_of(repeat, run), result


def _row(
    kind: str, label: str, files: Files, seconds: float, count: int, unit: str
) -> dict[str, Any]:
    mb = sum(len(d) for _, d in files) / 1e6
    rate = count / seconds if unit != "MB/s" else mb / seconds
    target = TARGETS.get(kind) if unit == UNITS.get(kind, "MB/s") else None
    return {
        "kind": kind, "input": label, "files": len(files), "mb": round(mb, 2),
        "cpu_s": round(seconds, 3), "mb_per_s": round(mb / seconds, 1),
        "rate": round(rate, 1), "unit": unit, "target": target,
        "met": None if target is None else rate >= target, "load": load(),
    }  # fmt: skip


def _textual_rows(scale: float, repeat: int) -> list[dict[str, Any]]:
    rows = []
    for kind, label, path, data in textual.inputs(scale):
        seconds, _ = _cpu_best(repeat, partial(indexer.extract, path, data))
        rows.append(_row(kind, label, [(path, data)], seconds, 0, "MB/s"))
        if kind == "csv":
            count = textual.data_rows(path, data)
            rows.append(_row(kind, label, [(path, data)], seconds, count, "rows/s"))
    return rows


def _mail_rows(scale: float, repeat: int) -> list[dict[str, Any]]:
    generated = [(f"m{i}.eml", m) for i, m in enumerate(mail.messages(int(3000 * scale)))]
    rows = []
    for label, files in (
        ("generated mail (benchmarks.mail)", generated),
        ("shared corpus email-*/*.eml", _corpus_files(".eml")),
    ):
        if files:
            seconds, _ = _cpu_best(repeat, partial(_extract_all, files))
            rows.append(_row("eml", label, files, seconds, len(files), "messages/s"))
    return rows


def _html_rows(scale: float, repeat: int) -> list[dict[str, Any]]:
    rng = random.Random(7)
    pages = [(f"p{i}.html", _html(rng, i)) for i in range(int(2000 * scale))]
    sections = b"".join(d.split(b"<main>")[1].split(b"</main>")[0] for _, d in pages[:300])
    big = b"<!doctype html><html><body><main>" + sections + b"</main></body></html>"
    rows = []
    for label, files in (
        ("generated pages (_corpusgen)", pages),
        ("generated one large page", [("big.html", big)]),
        ("shared corpus html-*", _corpus_files(".html", ".htm", ".xhtml")),
    ):
        if files:
            seconds, _ = _cpu_best(repeat, partial(_extract_all, files))
            rows.append(_row("html", label, files, seconds, 0, "MB/s"))
    # What any Markdown renderer on Lexbor must spend on the generated pages before it
    # renders anything: the parse, then one visit of every node (no target: a floor).
    for label, visit in (("floor: Lexbor parse alone", _parse), ("floor: parse + visit", _visit)):
        seconds, _ = _cpu_best(repeat, partial(_each, visit, pages))
        row = _row("html", f"{label}, generated pages", pages, seconds, 0, "MB/s")
        rows.append({**row, "target": None, "met": None})
    return rows


def _each(visit: Callable[[bytes], object], files: Files) -> None:
    for _, data in files:
        visit(data)


def _parse(data: bytes) -> object:
    return LexborHTMLParser(data, scripting=True)


def _visit(data: bytes) -> list[str]:
    """Parse, then visit every node of the body once (its tag id; a text node's text)."""
    tree = LexborHTMLParser(data, scripting=True)
    texts: list[str] = []
    node, stack = tree.body, []
    while node is not None:
        if node.tag_id == _TEXT_ID:
            texts.append(node.text_content or "")
        elif (child := node.first_child) is not None:
            stack.append(node)
            node = child
            continue
        while (after := node.next) is None and stack:
            node = stack.pop()
        node = after
    return texts


def _pdf_rows(scale: float, repeat: int, plumber_max_bytes: int) -> list[dict[str, Any]]:
    rng = random.Random(11)
    generated = [
        (f"g{i}.pdf", minimal_pdf([[mail._sentence(rng) for _ in range(30)]] * pages))
        for i, pages in enumerate(rng.randint(1, 9) for _ in range(int(100 * scale)))
    ]
    rows = []
    for engine in pdf.ENGINES:
        options = indexer.Options(pdf_engine=engine)  # type: ignore[arg-type]
        limit = None if engine == "pdfium" else plumber_max_bytes
        corpus = pdf.corpus_pdfs(SHARED_CORPUS, limit) if SHARED_CORPUS.is_dir() else []
        label = "corpus" + ("" if limit is None else f" <= {limit // 1000} KB")
        for name, files in (("generated 1-9 pages", generated), (label, corpus)):
            if not files:
                continue
            if engine == "pdfplumber":  # ~10 pages/s: keep it to a minute
                files, rounds = files[:10] if files is generated else files, 1
            else:
                rounds = repeat
            seconds, pages = _cpu_best(rounds, partial(_extract_all, files, options))
            row = _row("pdf", f"{engine}: {name}", files, seconds, pages, "pages/s")
            if engine == "pdfium":
                row.update(target=200.0, met=pages / seconds >= 200.0)
            rows.append(row)
    return rows


def run(args: Any) -> dict[str, Any]:
    """Measure every kind; return `{"rows": [...]}`."""
    started = time.perf_counter()
    rows = _textual_rows(args.scale, args.repeat)
    rows += _mail_rows(args.scale, args.repeat)
    rows += _html_rows(args.scale, args.repeat)
    rows += _pdf_rows(args.scale, args.repeat, args.plumber_max_bytes)
    return {"rows": rows, "seconds": round(time.perf_counter() - started, 1)}


def render(result: dict[str, Any]) -> str:
    """The suite's table."""
    headers = ("kind", "input", "files", "MB", "cpu s", "rate", "unit", "target", "met", "load")
    rows = [
        (r["kind"], r["input"][:46], r["files"], r["mb"], r["cpu_s"], r["rate"], r["unit"],
         "" if r["target"] is None else r["target"],
         "" if r["met"] is None else ("yes" if r["met"] else "NO"), r["load"])
        for r in result["rows"]
    ]  # fmt: skip
    return table(headers, rows)


def add_arguments(parser: Any) -> None:
    """The suite's flags."""
    parser.add_argument("--scale", type=float, default=1.0, help="input size factor (kinds)")
    parser.add_argument("--repeat", type=int, default=3, help="best of N (kinds)")
    parser.add_argument(
        "--plumber-max-bytes", type=int, default=100_000,
        help="pdfplumber: only corpus PDFs up to this size (it runs ~10 pages/s)",
    )  # fmt: skip
