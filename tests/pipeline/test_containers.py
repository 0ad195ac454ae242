"""One recursion for every container: a plugin adds one through its entry point alone, and
a top-level document's descendants share one nesting (context, budget, depth)."""

from __future__ import annotations

import json
import os
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from outputs import documents
from zips import zip_of

import indexer
from indexer import registry as registry_module
from indexer._spec import CONTEXT_CHARS
from indexer.config import Config
from indexer.pipeline.output.shape import MAIL_CHARS

CONFIG = Config(workers=2, pdf_workers=2, max_failures=100, exact="off")
"""Exact duplicates kept: a member and the same file on disk both have chunks."""

TARLIST = '''\
"""A toy container from outside the package: `== name` lines open members."""

from indexer._types import Chunk, Extracted
from indexer.registry import ExtractorSpec, Held


def extract(data, path, options):
    return Extracted(kind="tarlist", text="", chunks=(Chunk(text="a tarlist"),))


def children(data, path, options, nesting):
    names, name, lines = [], None, []
    for line in data.decode().splitlines(keepends=True) + ["== "]:
        if line.startswith("== "):
            if name is not None:
                body = "".join(lines).encode()
                names.append(name)
                yield Held(path=name, name=name, data=body, size=len(body))
            name, lines = line[3:].strip(), []
        else:
            lines.append(line)
    text = "\\n".join(names)
    return Extracted(kind="tarlist", text=text, chunks=(Chunk(text=text),))


def specs():
    return [ExtractorSpec(
        name="tarlist", kind="tarlist", extensions=("tarlist",), version="1",
        extract=extract, children=children, folder=True,
    )]
'''


@pytest.fixture
def tarlist_plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The `tarlist` plugin installed as a distribution declaring the entry point, for this
    process and the worker processes."""
    _install_tarlist(tmp_path, monkeypatch)


def _install_tarlist(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "site"
    root.mkdir()
    (root / "tarlist_plugin.py").write_text(TARLIST)
    dist = root / "tarlist_plugin-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: tarlist-plugin\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[indexer.extractors]\ntarlist = tarlist_plugin:specs\n")
    monkeypatch.syspath_prepend(str(root))
    paths = [str(root), *filter(None, [os.environ.get("PYTHONPATH")])]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(paths))
    monkeypatch.setattr(registry_module, "_DEFAULT", None)


def test_a_plugin_container_is_nested_through_its_entry_point_alone(
    tmp_path: Path, tarlist_plugin: None
) -> None:
    box = "== notes.txt\nPlain notes.\n== sheet.csv\nregion,total\nnorth,10\n== blob.data\n\0\0\n"
    source = tmp_path / "src"
    source.mkdir()
    (source / "box.tarlist").write_text(box)
    (source / "outer.zip").write_bytes(zip_of({"in/box.tarlist": box.encode()}))
    out = tmp_path / "out"
    indexer.run(source, out, CONFIG)
    docs = {p: (d["kind"], d["status"], d["reason"]) for p, d in documents(out).items()}
    assert docs == {
        "box.tarlist": ("tarlist", "ok", ""),
        "box.tarlist#notes.txt": ("text", "ok", ""),
        "box.tarlist#sheet.csv": ("csv", "ok", ""),
        "box.tarlist#blob.data": ("", "skipped", "binary"),  # judged as a file in a folder
        "outer.zip": ("archive", "ok", ""),
        "outer.zip#in/box.tarlist": ("tarlist", "ok", ""),
        "outer.zip#in/box.tarlist#notes.txt": ("text", "ok", ""),
        "outer.zip#in/box.tarlist#sheet.csv": ("csv", "ok", ""),
        "outer.zip#in/box.tarlist#blob.data": ("", "skipped", "binary"),
    }
    chunks = _chunks(out)
    texts = {c["path"]: c["text"] for c in chunks}
    assert texts["box.tarlist"] == "notes.txt\nsheet.csv\nblob.data"
    assert texts["outer.zip#in/box.tarlist#notes.txt"] == "Plain notes."


def test_installing_an_extractor_re_reads_a_stored_mail_whose_attachment_nothing_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The stored mail names what its unread attachment was judged under (the registry's
    claims): a plugin claiming `.tarlist` makes the next run read the mail again."""
    box = b"== notes.txt\nPlain notes inside the box.\n"
    source = tmp_path / "src"
    source.mkdir()
    mail = _mail("A box", {"box.tarlist": ("application/octet-stream", box)})
    (source / "m.eml").write_bytes(mail)
    out = tmp_path / "out"
    monkeypatch.setattr(registry_module, "_DEFAULT", None)
    indexer.run(source, out, CONFIG)
    first = documents(out)["m.eml#att/1/box.tarlist"]
    assert (first["status"], first["reason"]) == ("skipped", "no_extractor")
    _install_tarlist(tmp_path, monkeypatch)
    indexer.run(source, out, CONFIG)
    docs = {p: (d["kind"], d["status"]) for p, d in documents(out).items()}
    assert docs["m.eml#att/1/box.tarlist"] == ("tarlist", "ok")
    assert docs["m.eml#att/1/box.tarlist#notes.txt"] == ("text", "ok")


def _chunks(out: Path) -> list[dict[str, Any]]:
    return [
        json.loads(line)
        for path in sorted(out.glob("chunks-*.ndjson"))
        for line in path.read_bytes().splitlines()
    ]


def _mail(subject: str, attachments: dict[str, tuple[str, bytes]]) -> bytes:
    msg = EmailMessage()
    msg["From"], msg["Subject"], msg["Message-ID"] = "a@example.com", subject, "<m@example.com>"
    msg.set_content("Body.")
    for name, (ctype, data) in attachments.items():
        main, sub = ctype.split("/")
        msg.add_attachment(data, maintype=main, subtype=sub, filename=name)
    return msg.as_bytes()


def test_what_a_mail_passes_to_its_children_is_bounded(tmp_path: Path) -> None:
    """A huge Subject is the mail's own, not copied whole into every descendant's chunks."""
    subject = "s" * (CONTEXT_CHARS * 5)
    notes = b"".join(b"Paragraph %d of the notes.\n\n" % i for i in range(50))
    source = tmp_path / "src"
    source.mkdir()
    (source / "m.eml").write_bytes(_mail(subject, {"notes.txt": ("text/plain", notes)}))
    out = tmp_path / "out"
    indexer.run(source, out, CONFIG)
    chunks = _chunks(out)
    child = [c for c in chunks if c["path"] == "m.eml#att/1/notes.txt"]
    # the context the children receive is cut at CONTEXT_CHARS, and the chunks' `mail`
    # values at the record shape's MAIL_CHARS (below it), with an ellipsis
    assert child and {c["meta"]["mail"]["subject"] for c in child} == {"s" * (MAIL_CHARS - 1) + "…"}
    assert MAIL_CHARS < CONTEXT_CHARS
    assert documents(out)["m.eml"]["status"] == "ok"


def test_archives_attached_to_one_mail_share_one_unpacking_budget(tmp_path: Path) -> None:
    """Each zip fits the budget alone; together they do not: the third stops at the limit."""
    zips = {
        f"z{i}.zip": ("application/zip", zip_of({f"f{i}.txt": os.urandom(400).hex().encode()}))
        for i in range(3)
    }
    source = tmp_path / "src"
    source.mkdir()
    (source / "m.eml").write_bytes(_mail("Three zips", zips))
    out = tmp_path / "out"
    indexer.run(source, out, Config(workers=2, max_failures=100, max_unpacked_bytes=2000))
    docs = documents(out)
    assert [docs[f"m.eml#att/{i}/z{i - 1}.zip"]["status"] for i in (1, 2, 3)] == [
        "ok", "ok", "skipped",
    ]  # fmt: skip
    assert docs["m.eml#att/3/z2.zip"]["reason"] == "unpacked_limit"
    assert "more than 2000 bytes" in docs["m.eml#att/3/z2.zip"]["reason_text"]


def test_a_member_the_pool_extracts_is_nested_as_deep_as_it_sits(tmp_path: Path) -> None:
    """A mail in a zip goes to the pool on its own; an archive attached to it is still two
    containers deep, past `max_depth` 1."""
    inner = zip_of({"deep.txt": b"Deep text."})
    mail = _mail("Zipped mail", {"inner.zip": ("application/zip", inner)})
    source = tmp_path / "src"
    source.mkdir()
    (source / "outer.zip").write_bytes(zip_of({"m.eml": mail}))
    out = tmp_path / "out"
    indexer.run(source, out, Config(workers=2, max_failures=100, max_depth=1))
    docs = documents(out)
    assert docs["outer.zip#m.eml"]["status"] == "ok"
    inner_doc = docs["outer.zip#m.eml#att/1/inner.zip"]
    assert (inner_doc["status"], inner_doc["reason"]) == ("skipped", "depth_limit")
    assert "outer.zip#m.eml#att/1/inner.zip#deep.txt" not in docs


def test_an_attachment_goes_by_its_extension_else_by_its_declared_type() -> None:
    from indexer._types import Options
    from indexer.pipeline.extract.nest import unit_of
    from indexer.registry import default_registry

    data = _mail(
        "Types",
        {
            "report.xml.gz": ("text/xml", b"<r>Not gzip at all.</r>\n"),  # named, not made so
            "payload": ("application/json", b'{"total": 12}'),
            "blob.bin": ("application/octet-stream", b"\0\1\2"),
            "table.csv": ("application/octet-stream", b"a,b\n1,2\n"),
        },
    )
    registry = default_registry()
    _, children = unit_of(registry.for_path("m.eml"), "m.eml", data, Options(), registry)
    found = {c.suffix: (c.extractor, c.skip) for c in children}
    assert found == {
        "#att/1/report.xml.gz": ("text", None),
        "#att/2/payload": ("json", None),
        "#att/3/blob.bin": (None, "no extractor for application/octet-stream"),
        "#att/4/table.csv": ("csv", None),
    }


def test_the_registry_finds_an_extractor_by_mime_type_exact_then_family() -> None:
    from indexer.registry import ExtractorSpec, default_registry

    registry = default_registry().copy()
    assert registry.for_type("message/rfc822") is registry.get("eml")
    assert registry.for_type("text/x-diff") is registry.get("text")  # `text/*`
    assert registry.for_type("text/html") is registry.get("html")  # exact before family
    assert registry.for_type("application/x-unknown") is None
    text = registry.get("text")
    registry.register(
        ExtractorSpec(
            name="diff", kind="diff", extensions=("diff",), version="1", extract=text.extract,
            mime_types=("text/x-diff",),
        )
    )  # fmt: skip
    assert registry.for_type("text/x-diff") is registry.get("diff")
