"""The registry: dispatch by extension, registration rules, plugins through entry points."""

from __future__ import annotations

import pytest

import indexer
from indexer import Extracted, Options
from indexer.errors import RegistryError
from indexer.registry import ExtractorSpec, Registry, default_registry, extension_of


def _upper(data: bytes, path: str, options: Options) -> Extracted:
    text = data.decode().upper()
    return Extracted(kind="shout", text=text, chunks=(indexer.Chunk(text=text),))


SHOUT = ExtractorSpec(
    name="shout", kind="shout", extensions=("shout",), version="1", extract=_upper
)


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        ("A.PDF", "pdf"),
        ("DATA.JSON", "json"),
        ("t.Csv", "csv"),
        ("t.tsv", "csv"),
        ("p.HTM", "html"),
        ("p.xhtml", "html"),
        ("m.eml", "eml"),
        ("d.jsonl", "json"),
        ("d.ndjson", "json"),
        (".json", "text"),
        ("README", "text"),
        ("file.", "text"),
        ("n.md", "text"),
        ("n.xml", "text"),
        ("dir.json/notes", "text"),
        ("x.ｊｓｏｎ", "text"),
    ],
)
def test_dispatch_follows_the_seed_table(path: str, kind: str) -> None:
    assert default_registry().for_path(path).kind == kind


def test_extension_of_ignores_dotfiles_and_trailing_dots() -> None:
    assert [extension_of(p) for p in (".json", "a.b.JSON", "a.", "a", "d/.x.y")] == [
        "",
        "json",
        "",
        "",
        "y",
    ]


def test_builtins_register_through_the_public_api_and_are_marked() -> None:
    specs = {s.name: s for s in default_registry().extractors()}
    assert sorted(specs) == [
        "archive", "calendar", "csv", "doc", "docx", "eml", "emlx", "epub", "html", "image",
        "json", "mbox", "mhtml", "msg", "odp", "odt", "pdf", "ppt", "pptx", "pst", "rtf",
        "spreadsheet", "text", "tnef", "vcard",
    ]  # fmt: skip
    assert all(s.builtin for s in specs.values())
    assert sorted(n for n, s in specs.items() if s.isolated) == [
        "doc", "docx", "epub", "image", "odp", "odt", "pdf", "ppt", "pptx", "pst", "rtf",
        "spreadsheet",
    ]  # fmt: skip
    assert sorted(n for n, s in specs.items() if s.lists is not None) == ["mbox", "pst"]
    assert [s.name for s in default_registry().chunkers()] == [
        "calendar", "csv", "eml", "emlx", "html", "json", "mhtml", "text", "vcard",
    ]  # fmt: skip


def test_register_rejects_a_taken_extension_unless_replacing() -> None:
    registry = default_registry().copy()
    clash = ExtractorSpec(name="other", kind="x", extensions=("pdf",), version="1", extract=_upper)
    with pytest.raises(RegistryError, match=r"\.pdf is already handled by 'pdf'"):
        registry.register(clash)
    registry.register(clash, replace_existing=True)
    assert registry.for_path("a.pdf").name == "other"


def test_a_mime_type_is_claimed_as_an_extension_is() -> None:
    """A taken type is refused unless replacing, and then the last claim wins, as for
    extensions: a plugin replacing the PDF reader also reads attached PDFs."""
    registry = default_registry().copy()
    clash = ExtractorSpec(
        name="other", kind="x", extensions=("xpdf",), version="1", extract=_upper,
        mime_types=("application/pdf",),
    )  # fmt: skip
    with pytest.raises(RegistryError, match=r"application/pdf is already handled by 'pdf'"):
        registry.register(clash)
    assert registry.for_type("application/pdf").name == "pdf"  # type: ignore[union-attr]
    registry.register(clash, replace_existing=True)
    assert registry.for_type("application/pdf").name == "other"  # type: ignore[union-attr]


def test_register_validates_extensions() -> None:
    bad = ExtractorSpec(name="bad", kind="x", extensions=(".PDF",), version="1", extract=_upper)
    with pytest.raises(RegistryError, match="lower-case ASCII, no dot"):
        Registry().register(bad)


def test_a_registered_extension_is_used_by_extract() -> None:
    registry = default_registry().copy()
    registry.register(SHOUT)
    result = indexer.extract("x.SHOUT", b"hey", registry=registry)
    assert (result.kind, [c.text for c in result.chunks]) == ("shout", ["HEY"])
    assert "shout" not in [s.name for s in default_registry().extractors()]


def test_registry_without_fallback_says_so() -> None:
    with pytest.raises(RegistryError, match=r"no extractor for 'a\.zzz'"):
        Registry().for_path("a.zzz")


def test_public_api_is_pinned() -> None:
    assert indexer.__all__ == [
        "CONTRACT",
        "KINDS",
        "Chunk",
        "Config",
        "ConfigError",
        "Extracted",
        "IndexerError",
        "Options",
        "RegistryError",
        "RunSummary",
        "__version__",
        "extract",
        "index",
        "load_config",
        "pad_heap",
        "registry",
        "run",
    ]
    assert callable(indexer.index) and callable(indexer.run)
    assert issubclass(indexer.ConfigError, indexer.IndexerError)
    assert issubclass(indexer.RegistryError, indexer.IndexerError)
    assert indexer.RunSummary.__name__ == "RunSummary"


def test_plugins_are_discovered_through_the_entry_point_group(
    tmp_path: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pathlib import Path

    from plugins import install_plugin

    from indexer import registry as registry_module

    module = "from test_registry import SHOUT\ndef specs():\n    return [SHOUT]\n"
    install_plugin(Path(str(tmp_path)), "shoutplugin", module, monkeypatch)
    loaded = registry_module.default_registry()
    spec = loaded.get("shout")
    assert (spec.builtin, loaded.for_path("a.shout").name) == (False, "shout")
    from indexer.capabilities import capabilities

    origins = {e["name"]: e["origin"] for e in capabilities(loaded)["extractors"]}
    from indexer.formats import BUILTIN_SPECS

    assert origins == {"shout": "plugin", **{s.name: "builtin" for s in BUILTIN_SPECS}}


def _raises(data: bytes, path: str, options: Options) -> Extracted:
    raise ValueError("bad input")


def _raises_text(text: str, options: Options) -> Extracted:
    raise ValueError("bad text")


def test_an_extractor_that_raises_gives_a_failed_result_with_the_raw_text() -> None:
    from indexer._extract import run_chunker

    boom = ExtractorSpec(
        name="boom", kind="boom", extensions=("boom",), version="1",
        extract=_raises, chunker=_raises_text,
    )  # fmt: skip
    registry = default_registry().copy()
    registry.register(boom)
    result = indexer.extract("a.boom", b"  some raw text \n", registry=registry)
    assert (result.status, result.error, [c.text for c in result.chunks]) == (
        "failed",
        "exception in boom extractor: ValueError: bad input",
        ["some raw text"],
    )
    chunked = run_chunker(boom, "typed text", Options())
    assert (chunked.error, [c.text for c in chunked.chunks]) == (
        "exception in boom chunker: ValueError: bad text",
        ["typed text"],
    )


def test_builtin_versions_come_from_one_table() -> None:
    """Each module's `VERSION` is its spec's; kinds that render through the html, csv or
    image extractors (mail bodies, attachments, members, chapters, the pictures
    of office files) also count theirs."""
    import importlib

    from indexer.formats import VERSIONS

    embeds = {
        "doc": f"+image.{VERSIONS['image']}",
        "docx": f"+image.{VERSIONS['image']}",
        "pptx": f"+image.{VERSIONS['image']}",
        "odp": f"+image.{VERSIONS['image']}",
        "odt": f"+image.{VERSIONS['image']}",
        "archive": f"+image.{VERSIONS['image']}",
        "eml": f"+html.{VERSIONS['html']}+image.{VERSIONS['image']}",
        "msg": f"+html.{VERSIONS['html']}+rtf.{VERSIONS['rtf']}+image.{VERSIONS['image']}",
        "epub": f"+html.{VERSIONS['html']}+image.{VERSIONS['image']}",
        "spreadsheet": f"+html.{VERSIONS['html']}+csv.{VERSIONS['csv']}+image.{VERSIONS['image']}",
        "mbox": f"+eml.{VERSIONS['eml']}",
        "pst": f"+eml.{VERSIONS['eml']}",
    }
    mail = f"+eml.{VERSIONS['eml']}{embeds['eml']}"  # formats whose message eml reads
    embeds |= {
        "calendar": f"+text.{VERSIONS['text']}",
        "vcard": f"+text.{VERSIONS['text']}",
        "emlx": mail,
        "mhtml": f"+html.{VERSIONS['html']}{mail}",
        "tnef": f"{mail}+rtf.{VERSIONS['rtf']}+text.{VERSIONS['text']}",
    }
    for spec in default_registry().extractors():
        module = importlib.import_module(spec.extract.module)  # type: ignore[attr-defined]
        assert VERSIONS[spec.name] == module.VERSION
        assert spec.version == VERSIONS[spec.name] + embeds.get(spec.name, "")


def test_builtins_are_imported_only_when_first_called() -> None:
    """The registry and cache keys need no parser: a re-run that finds nothing changed
    never imports one (the keys ask which OCR engine is installed: a light probe, no
    Pillow). A spec's function pickles by name and works after the trip."""
    import pickle
    import subprocess
    import sys

    script = (
        "import sys, pickle\n"
        "from indexer.registry import default_registry\n"
        "from indexer.pipeline.incremental.keys import CacheKeys\n"
        "from indexer.config import Config\n"
        "registry = default_registry(); CacheKeys(Config(), registry)\n"
        "print(sorted(m for m in sys.modules if m.startswith('indexer.formats.')\n"
        "      and not m.startswith('indexer.formats.ocr')\n"
        "      or m in ('selectolax', 'pypdfium2', 'PIL', 'indexer.pipeline.engines.local')))\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
    spec = pickle.loads(pickle.dumps(default_registry().get("csv")))
    assert spec.extract(b"a,b\n1,2\n", "t.csv", Options()).chunks[0].text.startswith("a")
    assert "indexer.formats.csv" in repr(spec.extract)


def test_plugin_lookup_is_skipped_only_when_nothing_can_declare_one(
    tmp_path: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without a plugin, `importlib.metadata` (60 ms) is never imported; an egg, a
    zip on sys.path, or any entry_points.txt naming the group sends it to the real
    lookup."""
    import subprocess
    import sys
    import zipfile
    from pathlib import Path

    from indexer.registry import _may_declare_plugins

    script = (
        "import sys\nfrom indexer.registry import default_registry\ndefault_registry()\n"
        "print('importlib.metadata' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"

    # Another finder that provides distributions (importlib_metadata's, once some
    # dependency imports it) may find them anywhere: then the real lookup decides.
    from importlib.machinery import PathFinder

    class Elsewhere:
        def find_distributions(self, context: object = None) -> list[object]:
            return []

    own = [f for f in sys.meta_path if f is PathFinder or not hasattr(f, "find_distributions")]
    monkeypatch.setattr(sys, "meta_path", [*own, Elsewhere()])
    assert _may_declare_plugins()
    monkeypatch.setattr(sys, "meta_path", own)
    assert not _may_declare_plugins()

    root = Path(str(tmp_path))
    egg = root / "other.egg"
    (egg / "EGG-INFO").mkdir(parents=True)
    (egg / "EGG-INFO" / "entry_points.txt").write_text("[console_scripts]\nx = y:z\n")
    monkeypatch.syspath_prepend(str(egg))
    assert not _may_declare_plugins()  # entry points, but not ours
    (egg / "EGG-INFO" / "entry_points.txt").write_text("[indexer.extractors]\nx = y:z\n")
    assert _may_declare_plugins()

    monkeypatch.syspath_prepend(str(root / "plugins.zip"))
    (egg / "EGG-INFO" / "entry_points.txt").write_text("")
    with zipfile.ZipFile(root / "plugins.zip", "w") as archive:
        archive.writestr("p-1.0.dist-info/entry_points.txt", "[indexer.extractors]\n")
    assert _may_declare_plugins()  # a zip: only importlib.metadata can tell


def _chunks_of_str(data: bytes, path: str, options: Options) -> Extracted:
    return Extracted(kind="wrong", text="t", chunks=("a",))  # type: ignore[arg-type]


def _text_of_bytes(data: bytes, path: str, options: Options) -> Extracted:
    return Extracted(kind="wrong", text=b"t", chunks=(indexer.Chunk(text="a"),))  # type: ignore[arg-type]


def _chunk_of_int(data: bytes, path: str, options: Options) -> Extracted:
    return Extracted(kind="wrong", text="t", chunks=(indexer.Chunk(text=5),))  # type: ignore[arg-type]


def _metadata_list(data: bytes, path: str, options: Options) -> Extracted:
    chunk = indexer.Chunk(text="a")
    return Extracted(kind="wrong", text="t", chunks=(chunk,), metadata=["x"])  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("extract", "detail"),
    [
        (_chunks_of_str, "returned Extracted whose chunks[0] is str, not Chunk"),
        (_text_of_bytes, "returned Extracted whose text is bytes, not str"),
        (_chunk_of_int, "returned Extracted whose chunks[0].text is int, not str"),
        (_metadata_list, "returned Extracted whose metadata is list, not dict"),
    ],
)
def test_a_result_of_the_wrong_shape_fails_naming_the_extractor_and_the_type(
    extract: object, detail: str, tmp_path: pytest.TempPathFactory
) -> None:
    """In a run too: the record's reason says what came back from which extractor.
    It used to be the bare code `error`, from an AttributeError far downstream (or
    `ok`, for text of bytes)."""
    from pathlib import Path

    from outputs import document_records

    from indexer.config import Config

    wrong = ExtractorSpec(name="wrong", kind="wrong", extensions=("wrong",), version="1",
                          extract=extract)  # type: ignore[arg-type]  # fmt: skip
    registry = default_registry().copy()
    registry.register(wrong)
    reason = f"exception in wrong extractor: TypeError: {detail}"
    assert indexer.extract("a.wrong", b"x", registry=registry).error == reason
    source = Path(str(tmp_path)) / "src"
    source.mkdir()
    (source / "a.wrong").write_bytes(b"x")
    (source / "b.txt").write_bytes(b"fine")
    config = Config(workers=1, pdf_workers=1, max_failures=1)
    indexer.run(source, source.parent / "out", config, registry=registry)
    docs = document_records(source.parent / "out")
    assert [(d["status"], d["reason"]) for d in docs] == [
        ("failed", "extractor_error"),
        ("ok", ""),
    ]
    assert f"TypeError: {detail}" in docs[0]["reason_text"]
