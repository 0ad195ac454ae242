"""Suite `bigtree`: a tree of real-size documents, `--gb` gigabytes, through `indexer run`.

The tree is made of the real files of `../shared/corpus` and `../shared/formats`, copied
round after round (`round-0000/`, `round-0001/`, ...) until it holds `--gb` GB; round 0
is the files as they are, every later round a variant of each file whose bytes differ
(so no file is another's exact copy and each is extracted):

- text kinds (text, Markdown, CSV, TSV, JSON Lines, HTML, RTF, mail) get a line or a
  sentence naming the round, so their text differs too;
- JSON is wrapped as `{"variant": k, "document": ...}`;
- PDFs and pictures get bytes after their end marker, zip-based files (Office, ODF, EPUB,
  zip) an archive comment: their text is the original's, so the run extracts them and
  then finds them as text duplicates (`duplicate_of`), as with a resent attachment;
- other kinds (OLE, mailboxes, other archives) are kept in round 0 only.

Then a first run, an unchanged re-run and a night (0.1% of the files edited, deleted and
added, undone afterwards), each with CPU seconds, every process's peak RSS and what it
leaves (state, shards, `changes.ndjson`), as suite `scale` measures them. `--ocr off` by
default: OCR would be most of the time, and its cost per page is `scripts/bench ocr`'s.
"""

from __future__ import annotations

import io
import json
import os
import zipfile
from pathlib import Path
from typing import Any

from benchmarks.common import SHARED, cached_tree, fresh_dir, table
from benchmarks.scale import run_index

TEXT = {"txt", "md", "csv", "tsv", "ndjson", "jsonl", "log"}
"""Kinds whose variant is the file with a line naming its round (UTF-8 or ASCII only)."""
HTML = {"html", "htm", "xhtml"}
TRAILING = {"pdf", "png", "jpg", "jpeg", "gif", "tif", "tiff", "bmp", "webp"}
ZIPPED = {"docx", "xlsx", "xlsm", "pptx", "odt", "ods", "odp", "epub", "zip"}


def variant(data: bytes, ext: str, k: int) -> bytes | None:
    """Round `k`'s bytes for a file of extension `ext`; None when the kind has none."""
    if k == 0 or not data.strip():
        return data  # an empty file has no variant but itself
    if b"\0" in data[:4096] or data.startswith((b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")):
        return None if ext in TEXT | HTML | {"json", "eml"} else _binary(data, ext, k)
    mark = f"Variant {k} of this document.".encode()
    if ext in {"ndjson", "jsonl"}:
        return data.rstrip(b"\n") + b'\n{"variant": %d}\n' % k
    if ext in TEXT:
        return data.rstrip(b"\n") + b"\n" + mark + b"\n"
    if ext in HTML:
        return data + b"\n<p>" + mark + b"</p>\n"
    if ext == "json":
        return b'{"variant": %d, "document": ' % k + data + b"}\n"
    if ext == "eml":
        head, sep, body = data.partition(b"\nSubject:")
        return head + sep + f" [{k}]".encode() + body if sep else None
    if ext == "rtf":
        end = data.rfind(b"}")
        return data[:end] + b"\\par " + mark + data[end:] if end > 0 else None
    return _binary(data, ext, k)


def _binary(data: bytes, ext: str, k: int) -> bytes | None:
    mark = f"Variant {k} of this document.".encode()
    if ext in TRAILING:
        return data + b"\n%" + mark + b"\n"
    if ext in ZIPPED:
        return _commented(data, mark)
    return None


def _commented(data: bytes, mark: bytes) -> bytes | None:
    buffer = io.BytesIO(data)
    try:
        with zipfile.ZipFile(buffer, "a") as archive:
            archive.comment = mark
    except (zipfile.BadZipFile, OSError, ValueError, EOFError):
        return None
    return buffer.getvalue()


def _sources() -> list[tuple[str, Path]]:
    """Every shared real file, by its path under `corpus/` or `formats/`, sorted."""
    found = []
    for top in ("corpus", "formats"):
        for path in sorted((SHARED / top).rglob("*")):
            if path.is_file() and not path.name.isupper():  # not SOURCES.md, MANIFEST
                found.append((f"{top}/{path.relative_to(SHARED / top)}", path))
    return found


def big_tree(tree_dir: Path, gb: float) -> Path:
    """The tree of `gb` GB, cached under `tree_dir`."""

    def make(root: Path) -> int:
        os.nice(10)
        sources, written, count, k = _sources(), 0, 0, 0
        if not sources:
            raise SystemExit(f"bigtree: no shared files under {SHARED} (set INDEXER_SHARED)")
        while written < gb * 1e9:
            for name, path in sources:
                data = variant(path.read_bytes(), path.suffix.lower().lstrip("."), k)
                if data is None:
                    continue
                dest = root / f"round-{k:04d}" / name
                dest.parent.mkdir(parents=True, exist_ok=True)
                dest.write_bytes(data)
                written, count = written + len(data), count + 1
                if written >= gb * 1e9:
                    break
            k += 1
        return count

    return cached_tree(tree_dir, f"bigtree-{gb:g}gb", make)[0]


class _Night:
    """0.1% of the files edited, deleted and added (variants of a later round); undone."""

    def __init__(self, root: Path, share: float) -> None:
        files = sorted(p for p in root.rglob("*") if p.is_file())
        step = max(1, round(1 / share))
        picks = files[::step]
        self.edited, self.deleted, self.models = picks[0::3], picks[1::3], picks[2::3]
        self.saved: dict[Path, bytes] = {}
        self.added: list[Path] = []

    def apply(self) -> int:
        """Change the tree; return how many files changed."""
        for path in self.edited + self.deleted:
            self.saved[path] = path.read_bytes()
        for n, path in enumerate(self.edited):
            data = variant(self.saved[path], path.suffix.lower().lstrip("."), 90_000 + n)
            if data is None:  # a kind without variants is deleted instead
                self.deleted.append(path)
            else:
                path.write_bytes(data)
        self.edited = [p for p in self.edited if p not in self.deleted]
        for path in self.deleted:
            path.unlink()
        for n, path in enumerate(self.models):
            data = variant(path.read_bytes(), path.suffix.lower().lstrip("."), 80_000 + n)
            if data is not None:
                self.added.append(path.with_name(f"new-{path.name}"))
                self.added[-1].write_bytes(data)
        return len(self.edited) + len(self.deleted) + len(self.added)

    def undo(self) -> None:
        """Put the tree back as it was."""
        for path in self.added:
            path.unlink(missing_ok=True)
        for path, data in self.saved.items():
            path.write_bytes(data)


def _size(args: Any, gb: float) -> dict[str, Any]:
    src = big_tree(Path(args.tree_dir or args.workdir), gb)
    out = fresh_dir(Path(args.workdir) / f"bigtree-out-{gb:g}gb")
    flags = ("--ocr", args.ocr)
    tree_bytes = sum(p.stat().st_size for p in src.rglob("*") if p.is_file())
    first = run_index(src, out, args.workers, flags)
    unchanged = run_index(src, out, args.workers, flags)
    night = _Night(src, args.night)
    try:
        changed = night.apply()
        nightly = run_index(src, out, args.workers, flags)
    finally:
        night.undo()
    return {
        "gb": gb, "tree_bytes": tree_bytes, "night_files": changed,
        "first": first.to_dict(), "unchanged": unchanged.to_dict(), "night": nightly.to_dict(),
    }  # fmt: skip


def run(args: Any) -> dict[str, Any]:
    """Each size: first run, an unchanged re-run, a night."""
    sizes = []
    for gb in args.gb:
        sizes.append(_size(args, gb))
        print(json.dumps(sizes[-1], default=str), flush=True)  # a long suite: show each size
    return {"corpus": {"ocr": args.ocr, "workers": args.workers}, "sizes": sizes}


def render(result: dict[str, Any]) -> str:
    """Deterministic figures first, then times and peaks."""
    rows = result["sizes"]
    left = table(
        ["GB", "files", "shards", "shard MB", "state.sqlite MB", ".state MB", "night files",
         "night shards"],
        [[s["gb"], s["first"]["files"], s["first"]["shards"], s["first"]["shard_bytes"] / 1e6,
          s["first"]["state_sqlite_bytes"] / 1e6, s["first"]["state_bytes"] / 1e6,
          s["night_files"], s["night"]["shards"]] for s in rows],
    )  # fmt: skip
    times = table(
        ["GB", "first wall s", "first CPU s", "CPU s/GB", "unchanged wall s", "unchanged CPU s",
         "night CPU s", "night/first CPU", "parent MB first/night", "largest worker MB"],
        [[s["gb"], s["first"]["wall_s"], s["first"]["cpu_s"],
          s["first"]["cpu_s"] * 1e9 / s["tree_bytes"], s["unchanged"]["wall_s"],
          s["unchanged"]["cpu_s"], s["night"]["cpu_s"],
          f"{100 * s['night']['cpu_s'] / s['first']['cpu_s']:.1f}%",
          f"{s['first']['parent_peak_mb']} / {s['night']['parent_peak_mb']}",
          max(s["first"]["worker_peaks_mb"], default=0)] for s in rows],
    )  # fmt: skip
    return f"corpus: {result['corpus']}\n{left}\n\n{times}"


def add_arguments(parser: Any) -> None:
    """The suite's flags."""
    parser.add_argument("--gb", type=float, nargs="+", default=[1.0], help="tree sizes, GB")
    parser.add_argument("--workers", type=int, default=2, help="workers")
    parser.add_argument("--night", type=float, default=0.001, help="share of files a night changes")
    parser.add_argument("--ocr", default="off", help="--ocr of the runs (default off)")
    parser.add_argument("--tree-dir", default="", help="where trees go (default: --workdir)")
