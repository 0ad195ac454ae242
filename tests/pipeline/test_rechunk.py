"""Incremental runs re-pack stored blocks: a change of [chunking] calls no extractor and
gives a fresh run's bytes; a change of what an extractor reads extracts again."""

from __future__ import annotations

import logging
import sqlite3
import zipfile
from dataclasses import replace
from pathlib import Path

import hostile
import orjson
import pytest
from outputs import committed

import indexer
from indexer._corpusgen import write_corpus
from indexer.config import Config
from indexer.pipeline.incremental.state import FileRow, State
from indexer.pipeline.output.stored import decode, encode
from indexer.pipeline.walk.walker import policy_for, walk
from indexer.registry import Registry, default_registry

pytestmark = pytest.mark.slow  # whole runs over a generated tree, re-run after each change

BASE = Config(workers=2, pdf_workers=1, shard_files=9, chunk_overlap=60, chunk_prefix=True)
CHANGES: list[dict[str, object]] = [
    {"chunk_target": 600, "chunk_min": 200},
    {"chunking": "blocks"},
    {"chunk_overlap": 0, "chunk_prefix": False},
    {"chunk_max": 1500, "chunk_target": 1000},
]
TALLIES = 3
ATTACHMENTS = Path(__file__).parents[1] / "formats" / "fixtures" / "eml" / "ok_attachments.eml"


def registry(version: str = "1") -> Registry:
    registry = default_registry().copy()
    registry.register(replace(hostile.TALLY, version=version))
    return registry


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A generated corpus, a mail with attachments, a zip of some of them, and files
    whose extractor counts its calls in `calls.log`, beside the source."""
    root = tmp_path_factory.mktemp("rechunk") / "src"
    write_corpus(root, 150_000, seed=21)
    (root / "mail" / "attached.eml").write_bytes(ATTACHMENTS.read_bytes())
    with zipfile.ZipFile(root / "bundle.zip", "w") as bundle:  # members settled in workers
        for member in sorted([*root.glob("notes/*/*"), *root.glob("reports/*/*")]):
            bundle.write(member, member.relative_to(root).as_posix())
        bundle.write(root / "mail" / "attached.eml", "mail/attached.eml")
    log = root.parent / "calls.log"
    for n in range(TALLIES):
        lines = [f"line {i} of tally {n}, " + "with some words " * (i % 9) for i in range(90)]
        (root / f"t{n}.tally").write_text("\n".join([str(log), *lines]) + "\n")
    return root


def calls(source: Path) -> int:
    """How many times the counting extractor has run so far."""
    log = source.parent / "calls.log"
    return len(log.read_text().splitlines()) if log.exists() else 0


def fresh(source: Path, out: Path, config: Config, version: str = "1") -> dict[str, bytes]:
    indexer.run(source, out, config, registry=registry(version))
    return committed(out)


def test_a_chunking_change_re_packs_stored_blocks_without_calling_an_extractor(
    source: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    first = indexer.run(source, out, BASE, registry=registry())
    assert first.extracted > 0 and first.repacked == 0
    # The zip's copy of the mail's attachments is rendered from one extraction: reused
    documents = first.extracted + first.reused
    for change in [*CHANGES, {}]:  # and back to where it began
        config = replace(BASE, **change)  # type: ignore[arg-type]
        before = calls(source)
        again = indexer.run(source, out, config, registry=registry())
        assert calls(source) == before, change
        assert (again.extracted, again.reused) == (0, documents), change
        assert again.repacked == documents == repacked_in_report(out), change
        assert committed(out) == fresh(source, tmp_path / f"fresh-{len(change)}", config)
        # re-packed outputs are stored anew: the next run takes them as they are
        rerun = indexer.run(source, out, config, registry=registry())
        assert (rerun.extracted, rerun.repacked, repacked_in_report(out)) == (0, 0, 0), change


def repacked_in_report(out: Path) -> int:
    """The `repacked` count `run.json` reports."""
    count: int = orjson.loads((out / "run.json").read_bytes())["repacked"]
    return count


def test_an_option_the_extractor_reads_or_its_version_extracts_again(
    source: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    indexer.run(source, out, BASE, registry=registry())
    before = calls(source)
    rows = replace(BASE, rows_per_chunk=7, chunk_target=700)
    assert indexer.run(source, out, rows, registry=registry()).extracted > TALLIES  # csv too
    assert calls(source) == before + TALLIES
    upgraded = indexer.run(source, out, rows, registry=registry(version="2"))
    assert (upgraded.extracted, calls(source)) == (TALLIES, before + 2 * TALLIES)
    assert committed(out) == fresh(source, tmp_path / "fresh", rows, version="2")


@pytest.mark.parametrize("old", ["5", "6"])
def test_a_state_of_an_older_schema_is_set_aside_with_a_warning_and_rebuilt(
    source: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture, old: str
) -> None:
    """5's stored outputs hold no blocks, 6's rows hold the stat's four columns, not a
    version token: neither is ever read as if it were the current schema."""
    out = tmp_path / "out"
    first = indexer.run(source, out, BASE, registry=registry())
    with sqlite3.connect(out / ".state" / "state.sqlite") as db:
        db.execute("UPDATE meta SET value = ? WHERE name = 'schema'", (old,))
    db.close()
    caplog.set_level(logging.WARNING)
    changed = replace(BASE, chunk_target=800)
    again = indexer.run(source, out, changed, registry=registry())
    [warning] = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert f"schema {old}, expected 7" in warning and "extracting everything" in warning
    assert again.extracted == first.extracted
    assert committed(out) == fresh(source, tmp_path / "fresh", changed)


def test_stored_blocks_that_do_not_read_back_mean_one_extraction_not_a_failed_run(
    source: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    indexer.run(source, out, BASE, registry=registry())
    state = State(out / ".state" / "state.sqlite")
    [entry] = [e for e in walk(source, policy_for(BASE, registry())) if e.rel == "t0.tally"]
    [known] = state.known([entry])
    assert known is not None and known.output is not None
    stored = decode(known.output)
    junk = encode(stored.docs, stored.tag, b"not what freeze wrote")
    state.record([FileRow(entry, known.sha256, known.key, junk, known.deps)])
    state.close()
    before = calls(source)
    changed = replace(BASE, chunk_target=700)
    assert indexer.run(source, out, changed, registry=registry()).extracted == 1
    assert calls(source) == before + 1
    assert committed(out) == fresh(source, tmp_path / "fresh", changed)


def test_a_tokenizer_edited_in_place_re_packs_as_a_fresh_run_would(
    source: Path, tmp_path: Path
) -> None:
    path = tmp_path / "tokenizer.json"
    save_tokenizer(path, split_punctuation=True)
    sizes = {"chunk_target": 120, "chunk_max": 200, "chunk_min": 40}
    config = replace(BASE, chunk_unit="tokens", tokenizer=str(path), **sizes)  # type: ignore[arg-type]
    out = tmp_path / "out"
    indexer.run(source, out, config, registry=registry())
    before = committed(out)
    save_tokenizer(path, split_punctuation=False)
    assert indexer.run(source, out, config, registry=registry()).extracted == 0
    assert committed(out) != before
    assert committed(out) == fresh(source, tmp_path / "fresh", config)
    save_tokenizer(path, split_punctuation=True)  # back, in this process's re-packing too
    assert indexer.run(source, out, config, registry=registry()).extracted == 0
    assert committed(out) == before


def save_tokenizer(path: Path, *, split_punctuation: bool) -> None:
    """A word-level tokenizer that knows no word: a token per word, and per mark of
    punctuation too when `split_punctuation`."""
    from tokenizers import Tokenizer, models, pre_tokenizers

    tokenizer = Tokenizer(models.WordLevel({"[UNK]": 0}, unk_token="[UNK]"))
    split = pre_tokenizers.Whitespace() if split_punctuation else pre_tokenizers.WhitespaceSplit()
    tokenizer.pre_tokenizer = split
    tokenizer.save(str(path))
