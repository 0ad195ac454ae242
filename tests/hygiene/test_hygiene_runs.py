"""`[hygiene]` through real runs: what the records say, a changed setting re-rendered from
the state without extracting again, and pseudonyms the same across files and workers."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

import indexer
from indexer.config import Config
from indexer.errors import ConfigError

BASE = Config(workers=1, pdf_workers=1, language=True, pii="mark")  # what a corpus build sets
FR = "Le comité se réunira jeudi pour discuter du budget de l'année prochaine, puis du reste."
EN = "Please send the signed contract back to ann@example.com before Friday, thanks."


def source(root: Path) -> Path:
    root.mkdir(parents=True)
    (root / "fr.txt").write_text(FR + "\n")
    (root / "en.txt").write_text(EN + "\n")
    (root / "again.md").write_text("# Note\n\nAnn (ann@example.com) and 10.1.2.3 again.\n")
    (root / "figures.csv").write_text("a,b\n1,2\n3,4\n")
    return root


def records(out: Path, name: str) -> dict[str, dict[str, Any]]:
    files = sorted(out.glob(f"{name}-*.ndjson"))
    rows = (json.loads(line) for f in files for line in f.read_bytes().splitlines())
    return {r["path"]: r for r in rows}


def test_records_name_languages_quality_and_personal_data(tmp_path: Path) -> None:
    out = tmp_path / "out"
    indexer.run(source(tmp_path / "src"), out, BASE)
    docs, chunks = records(out, "documents"), records(out, "chunks")
    assert docs["fr.txt"]["metadata"]["language"]["code"] == "fr"
    assert docs["en.txt"]["metadata"]["language"]["code"] == "en"
    assert docs["figures.csv"]["metadata"]["language"] == {
        "code": "",
        "confidence": -1.0,
        "mixed": False,
    }
    assert docs["en.txt"]["metadata"]["quality"]["words"] == 11  # whitespace-separated
    assert chunks["en.txt"]["meta"]["language"] == "en"
    text, pii = chunks["en.txt"]["text"], chunks["en.txt"]["meta"]["pii"]
    kind, span = pii.split(":")
    start, end = map(int, span.split("-"))
    assert (kind, text[start:end]) == ("email", "ann@example.com")


def test_a_changed_setting_is_rendered_again_from_the_state_as_a_fresh_run_renders_it(
    tmp_path: Path,
) -> None:
    src, out = source(tmp_path / "src"), tmp_path / "out"
    indexer.run(src, out, BASE)
    redact = replace(BASE, pii="redact", language=False)
    again = indexer.run(src, out, redact)
    assert again.extracted == 0 and again.repacked == again.documents
    chunks = records(out, "chunks")
    assert "ann@example.com" not in json.dumps(chunks) and "[EMAIL]" in chunks["en.txt"]["text"]
    assert chunks["en.txt"]["meta"]["language"] == ""
    fresh = tmp_path / "fresh"
    indexer.run(src, fresh, redact)
    for name in ("documents", "chunks"):
        assert records(out, name) == records(fresh, name)


def test_pseudonyms_match_across_files_and_worker_counts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("INDEXER_PII_KEY", "a test key")
    src = source(tmp_path / "src")
    one = replace(BASE, pii="pseudonymise")
    indexer.run(src, tmp_path / "one", one)
    indexer.run(src, tmp_path / "two", replace(one, workers=2))
    for name in ("documents", "chunks"):
        assert records(tmp_path / "one", name) == records(tmp_path / "two", name)
    chunks = records(tmp_path / "one", "chunks")
    [token] = [w for w in chunks["en.txt"]["text"].split() if w.startswith("[EMAIL:")]
    assert token in chunks["again.md"]["text"]
    assert "a test key" not in (tmp_path / "one" / "run.json").read_text()


def test_pseudonymise_without_its_key_stops_before_any_work(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("INDEXER_PII_KEY", raising=False)
    with pytest.raises(ConfigError, match="INDEXER_PII_KEY"):
        Config(pii="pseudonymise")
