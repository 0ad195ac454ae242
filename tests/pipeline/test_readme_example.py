"""The README's worked example ("What you get") is what a run writes for its mail, every
record and every key, hashes shortened with `…`."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path
from typing import Any

import pytest
from loaders import parsed

import indexer
from indexer._samples import minimal_pdf
from indexer.config import Config

README = Path(__file__).resolve().parents[2] / "README.md"


def q3_mail() -> bytes:
    """`mail/q3.eml`: a mail with a one-page PDF report attached."""
    pdf = base64.encodebytes(minimal_pdf([["Revenue grew 12% in the third quarter."]]))
    return (
        b"From: Ann <ann@example.com>\r\nTo: team@example.com\r\nSubject: Q3 numbers\r\n"
        b"Date: Mon, 02 Oct 2023 09:00:00 +0000\r\nMessage-ID: <q3@example.com>\r\n"
        b'MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary="b"\r\n\r\n'
        b"--b\r\nContent-Type: text/plain\r\n\r\nThe numbers are in the report.\r\n"
        b"--b\r\nContent-Type: application/pdf\r\nContent-Transfer-Encoding: base64\r\n"
        b"Content-Disposition: attachment; filename=report.pdf\r\n\r\n" + pdf + b"--b--\r\n"
    )


def shown() -> dict[str, list[Any]]:
    """The README example's records, by the file its `// name` comment names."""
    text = README.read_text("utf-8")
    block = text[text.index("A worked example") :]
    block = block[block.index("```jsonc\n") + 9 : block.index("\n```\n")]
    files: dict[str, list[Any]] = {}
    name = ""
    for line in block.splitlines():
        if line.startswith("// "):
            name = line[3:]
            files[name] = []
        elif line.strip():
            files[name].append(json.loads(line))
    return files


def matches(shown: Any, real: Any) -> bool:
    """`real` as the README shows it: equal, but a string ending in `…` is a prefix."""
    if isinstance(shown, dict):
        return (
            isinstance(real, dict)
            and list(shown) == list(real)
            and all(matches(v, real[k]) for k, v in shown.items())
        )
    if isinstance(shown, str) and "…" in shown:
        head, _, tail = shown.partition("…")
        return isinstance(real, str) and real.startswith(head) and real.endswith(tail)
    return bool(shown == real)


@pytest.mark.slow  # a whole run, with an isolated PDF worker
def test_the_readme_example_is_what_a_run_writes(tmp_path: Path) -> None:
    (tmp_path / "src" / "mail").mkdir(parents=True)
    (tmp_path / "src" / "mail" / "q3.eml").write_bytes(q3_mail())
    indexer.run(tmp_path / "src", tmp_path / "out", Config(workers=1, pdf_workers=1))
    files = shown()
    assert set(files) == {"documents-00000.ndjson", "chunks-00000.ndjson", "changes.ndjson"}
    for name, records in files.items():
        real = parsed(tmp_path / "out", re.sub(r"\d{5}", "*", name))
        assert len(real) == len(records), name
        for want, got in zip(records, real, strict=True):
            assert matches(want, got), f"{name}: {got}"
