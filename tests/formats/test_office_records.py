"""Office files through the whole tool: every real file ends in one record via the isolated
pool, mail attachments become child documents, capabilities and conformance cover the kinds."""

from __future__ import annotations

import json
import shutil
from email.message import EmailMessage
from pathlib import Path

import anyio
import pytest
from outputs import document_lines

import indexer
from indexer.capabilities import capabilities
from indexer.config import Config
from indexer.conformance import check
from indexer.formats.office.samples import OFFICE_SAMPLES
from indexer.pipeline.output import shape
from indexer.registry import Registry, default_registry

KINDS = {"docx": "docx", "docm": "docx", "dotx": "docx", "pptx": "pptx", "odt": "odt",
         "odp": "odp", "epub": "epub", "doc": "doc", "ppt": "ppt"}  # fmt: skip
CONFIG = Config(workers=2, pdf_workers=2, max_failures=10**6)


def _docs(out: Path) -> dict[str, dict[str, object]]:
    lines = document_lines(out)
    return {json.loads(x)["path"]: json.loads(x) for x in lines}


def _chunks(out: Path) -> list[dict[str, object]]:
    shards = sorted(out.glob("chunks-*.ndjson"))
    return [json.loads(line) for shard in shards for line in shard.read_bytes().splitlines()]


@pytest.mark.slow  # every shared office file through worker processes
def test_every_real_office_file_ends_in_one_clear_record(formats: Path, tmp_path: Path) -> None:
    source = tmp_path / "src"
    files = [p for p in sorted(formats.rglob("*")) if p.suffix.lower()[1:] in KINDS]
    for path in files:
        target = source / path.relative_to(formats)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
    indexer.run(source, tmp_path / "out", CONFIG)
    found = _docs(tmp_path / "out")
    docs = {rel: doc for rel, doc in found.items() if "#" not in rel}
    assert sorted(docs) == sorted(p.relative_to(formats).as_posix() for p in files)
    for rel, doc in found.items():  # what the files embed: a clear record each too
        if "#" in rel:
            assert doc["status"] != "failed" or doc["reason"] in ("corrupt", "refused"), rel
    for rel, doc in docs.items():
        assert doc["kind"] == KINDS[rel.rsplit(".", 1)[1].lower()], rel
        assert doc["status"] in ("ok", "degraded", "failed", "empty"), rel
        reason = str(doc["reason"])
        if doc["status"] == "failed":  # said plainly, never a crash, a hang or a traceback
            assert reason in ("encrypted", "corrupt", "wrong_format"), rel
        if doc["status"] == "empty":
            assert reason == "no_text", rel
        # only text is written: a failed or empty document has no chunks in the shards
        written = doc["chunks"] >= 1 or bool(doc["duplicate_of"])  # a copy names its first
        assert written == (doc["status"] in ("ok", "degraded")), rel
    failed = {rel for rel, doc in docs.items() if doc["status"] == "failed"}
    assert len(failed) <= len(docs) // 6, failed


@pytest.mark.slow  # a whole run
def test_office_attachments_become_extracted_child_documents(tmp_path: Path) -> None:
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = "Ann <ann@example.com>", "b@example.com", "Decks"
    msg["Date"], msg["Message-ID"] = "Mon, 01 Jan 2024 10:00:00 +0000", "<d@example.com>"
    msg.set_content("Both attached.")
    office = "vnd.openxmlformats-officedocument"
    for name, subtype, ext in (
        ("report.docx", f"{office}.wordprocessingml.document", "docx"),
        ("slides.pptx", f"{office}.presentationml.presentation", "pptx"),
        ("ATT00001", "msword", "doc"),
    ):
        msg.add_attachment(
            OFFICE_SAMPLES[ext], maintype="application", subtype=subtype, filename=name
        )
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "mail.eml").write_bytes(msg.as_bytes())
    indexer.run(tmp_path / "src", tmp_path / "out", CONFIG)
    docs = _docs(tmp_path / "out")
    assert {p: (d["kind"], d["status"]) for p, d in docs.items()} == {
        "mail.eml": ("eml", "ok"),
        "mail.eml#att/1/report.docx": ("docx", "ok"),
        "mail.eml#att/2/slides.pptx": ("pptx", "ok"),
        "mail.eml#att/3/ATT00001": ("doc", "ok"),
    }
    by_path: dict[str, list[dict[str, object]]] = {}
    for chunk in _chunks(tmp_path / "out"):
        by_path.setdefault(str(chunk["path"]), []).append(chunk)
    slide = by_path["mail.eml#att/2/slides.pptx"][0]
    assert slide["text"] == "# Roadmap\n\nBody below"
    assert {key: value for key, value in dict(slide["meta"]).items() if key != "blocks"} == {
        **{key: value for key, value in shape.CHUNK_META.items() if key != "blocks"},
        "slide": 1,
        "mail": {
            "subject": "Decks",
            "from": "Ann <ann@example.com>",
            "date": "Mon, 01 Jan 2024 10:00:00 +0000",
            "message_id": "<d@example.com>",
        },
    }
    assert str(by_path["mail.eml#att/3/ATT00001"][0]["text"]).startswith("Legacy memo")


def test_capabilities_list_every_office_kind_as_isolated() -> None:
    listed = {e["name"]: e for e in capabilities()["extractors"]}
    expected = {
        "doc": ["doc", "dot"],
        "docx": ["docx", "docm", "dotx", "dotm"],
        "epub": ["epub"],
        "odp": ["odp", "otp"],
        "odt": ["odt", "ott"],
        "ppt": ["ppt", "pps", "pot"],
        "pptx": ["pptx", "pptm", "ppsx", "potx"],
    }
    for name, extensions in expected.items():
        entry = listed[name]
        assert (entry["kind"], entry["extensions"], entry["isolated"]) == (name, extensions, True)
        assert entry["origin"] == "builtin"


@pytest.mark.slow  # every sample and mutant through each office extractor, twice, isolated
def test_conformance_holds_for_every_office_extractor() -> None:
    registry = Registry()
    for spec in default_registry().extractors():
        if spec.kind in set(KINDS.values()):
            registry.register(spec)
    card = anyio.run(check, registry)
    assert card.all_passed, [c for c in card.checks if not c.passed]
    subjects = {c.name.split(":")[1] for c in card.checks}
    assert subjects == set(KINDS.values())
