"""OCR's options: the [ocr] config table, the --ocr flag, and what they do to cache keys."""

from __future__ import annotations

from pathlib import Path

import pytest
import scanmaker
from outputs import documents
from PIL import Image

from indexer.cli import main
from indexer.config import Config, ConfigError, load_config
from indexer.formats import ocr
from indexer.pipeline.incremental.keys import CacheKeys
from indexer.reasons import BY_CODE
from indexer.registry import default_registry

OCR_USERS = {"doc", "docx", "epub", "image", "odp", "odt", "pdf", "pptx", "spreadsheet"}
"""Office files and e-books too: their pictures are OCR'd."""


def test_the_ocr_table_sets_every_ocr_option(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text(
        '[ocr]\nocr_mode = "force"\nocr_language = "eng+deu"\nocr_dpi = 200\nocr_page_timeout = 5\n'
    )
    options = load_config(str(path), {}).extract_options()
    assert (options.ocr_mode, options.ocr_language) == ("force", "eng+deu")
    assert (options.ocr_dpi, options.ocr_page_timeout, options.ocr_engine) == (
        200,
        5.0,
        "tesseract",
    )


def test_languages_may_be_a_list_and_the_page_cap_is_set_in_the_table(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text('[ocr]\nocr_language = ["eng", "deu"]\nocr_max_pages = 7\n')
    options = load_config(str(path), {}).extract_options()
    assert (options.ocr_language, options.ocr_max_pages) == ("eng+deu", 7)
    assert Config().extract_options().ocr_max_pages == 100


@pytest.mark.parametrize(
    ("key", "value", "fragment"),
    [
        ("ocr_mode", "sometimes", "auto, off or force"),
        ("ocr_engine", "rapidocr", "('tesseract', 'tesserocr')"),
        ("ocr_language", "eng; rm -rf /", "eng+deu"),
        ("ocr_dpi", 1200, "72 to 600"),
        ("ocr_dpi", "300", "an integer"),
        ("ocr_page_timeout", 0, "seconds > 0"),
        ("ocr_max_pages", 0, ">= 1"),
        ("ocr_language", ["eng", 3], "a string"),
    ],
)
def test_a_bad_ocr_value_is_refused_naming_the_key(key: str, value: object, fragment: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load_config(None, {key: value})
    assert caught.value.key == key and fragment in caught.value.message


def test_the_ocr_flag_turns_ocr_off_for_a_run(tmp_path: Path) -> None:
    source = tmp_path / "src"
    source.mkdir()
    blank = Image.new("L", (850, 1100), 255)
    (source / "scan.pdf").write_bytes(scanmaker.pdf_with_image(blank, (0, 0, 612, 792)))
    (source / "photo.png").write_bytes(scanmaker.png(scanmaker.page(1, dpi=200, angle=0, seed=1)))
    out = tmp_path / "out"
    args = ["run", str(source), "--out", str(out), "--ocr", "off", "--quiet", "--max-failures", "1"]
    assert main(args) == 0
    docs = documents(out)
    assert (docs["scan.pdf"]["status"], docs["scan.pdf"]["reason"]) == ("skipped", "ocr_off")
    assert (docs["photo.png"]["status"], docs["photo.png"]["reason"]) == ("skipped", "ocr_off")
    assert "--ocr auto" in BY_CODE["ocr_off"].action  # the reason says what to do


def _digests(config: Config) -> dict[str, str]:
    return CacheKeys(config, default_registry()).digests


def test_ocr_options_change_the_keys_of_the_extractors_that_use_ocr_only() -> None:
    base = _digests(Config())
    for changed in (Config(ocr_dpi=200), Config(ocr_language="deu"), Config(ocr_mode="force")):
        other = _digests(changed)
        assert {name for name in base if base[name] != other[name]} == OCR_USERS


def test_installing_or_upgrading_the_engine_changes_those_keys_too(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    base = _digests(Config())
    monkeypatch.setattr(ocr, "identity", lambda name: f"{name} 99.0")
    upgraded = _digests(Config())
    assert {name for name in base if base[name] != upgraded[name]} == OCR_USERS


def test_installing_a_language_pack_changes_those_keys_too(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from indexer.formats.ocr import tesseract

    base = _digests(Config())
    monkeypatch.setattr(tesseract, "languages", lambda found: ("eng", "osd", "zzz"))
    installed = _digests(Config())
    assert {name for name in base if base[name] != installed[name]} == OCR_USERS


def test_with_ocr_off_the_keys_do_not_ask_for_the_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(name: str) -> str:
        raise AssertionError("the engine was probed")

    monkeypatch.setattr(ocr, "identity", refuse)
    assert set(_digests(Config(ocr_mode="off"))) >= OCR_USERS
