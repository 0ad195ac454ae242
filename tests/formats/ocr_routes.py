"""Which pages of which PDFs would be OCR'd: run in a child process, no page ever read.

As a script it reads PDF paths on stdin and prints, per path, one JSON line: the pages
the PDF extractor rendered for OCR (handed to the engine, or found blank and kept from
it: `pdf-pypdf/box.pdf`). The engine is a recorder that answers "" (so
nothing is OCR'd for real), and hostile corpus files cannot take the test runner down.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def routes(paths: Sequence[Path], *, timeout: float) -> dict[str, list[int]]:
    """Return, per path, the page numbers OCR would read (in a child process)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join((str(ROOT), str(Path(__file__).parent)))}
    done = subprocess.run(
        [sys.executable, __file__],
        input="".join(f"{p}\n" for p in paths),
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        check=True,
    )
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    return {line["path"]: line["pages"] for line in lines}


def _serve() -> None:
    import pytest
    from engines import Recorder

    import indexer

    with pytest.MonkeyPatch.context() as monkeypatch:
        recorder = Recorder(reply="").install(monkeypatch)
        for line in sys.stdin:
            path = line.rstrip("\n")
            before = len(recorder.calls)
            result = indexer.extract(path, Path(path).read_bytes())
            ocr = result.metadata.get("ocr", {})
            read, blank = ocr.get("pages", []), ocr.get("blank", [])
            assert len(read) == len(recorder.calls) - before  # blank pages are not sent
            print(json.dumps({"path": path, "pages": sorted(read + blank)}), flush=True)


if __name__ == "__main__":
    _serve()
