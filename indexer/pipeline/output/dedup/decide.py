"""Duplicates, decided over the staged output in walk order (docs/dedup.md).

Both engines stage the same bytes for the same walk (every document with its chunks,
`duplicate_of` `""` and a near-duplicate cluster of its own), so the decisions are
made after staging, as one pass over them in walk order: the pass is a function of the
staged bytes, and gives the same output for any worker count, either engine, and a
fresh or an incremental run.

Exact: a document with chunks whose content sha256, or else its normalised text hash
(`texthash`), is an earlier document's names that document's path in `duplicate_of`.
Near (`near`): a document joins the cluster of the first earlier one like it. With
"drop", either writes no chunks (`chunks` 0, the digest of none). The pass reads the
document shards (and the chunk shards when near duplicates are looked for) and
rewrites only the shards it changed. Those lose their segment's summary, and their
dropped documents leave their layout lines, so the next run neither takes them whole
nor links them: it writes them from the stored outputs (no extraction) and decides
again, as a fresh run would; a shard decided into the previous commit's bytes is
linked from it (`relink`), not written.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import orjson

from indexer.config import Config
from indexer.pipeline.output.changes import CHANGES, Previous
from indexer.pipeline.output.dedup import distinct, files
from indexer.pipeline.output.dedup.boilerplate import Paragraphs, Read, read
from indexer.pipeline.output.dedup.mail import MailPass
from indexer.pipeline.output.dedup.relink import Committed
from indexer.pipeline.output.dedup.seen import Seen, keys
from indexer.pipeline.output.prevdocs import PreviousDocs
from indexer.pipeline.output.previous import LAYOUT
from indexer.pipeline.output.segments import SEG
from indexer.pipeline.output.staged import Staged

NO_CHUNKS = hashlib.sha256(b"").hexdigest()[:32]
"""The `digest` of a document with no chunk lines."""


@dataclass(slots=True)
class _Shard:
    """One staged shard: its layout line and what the pass changed in it."""

    layout: dict[str, Any]
    lines: list[bytes] = field(default_factory=list)
    dropped: set[str] = field(default_factory=set)
    """Doc ids whose chunk lines go."""
    replaced: dict[str, list[bytes]] = field(default_factory=dict)
    """Doc ids whose chunk lines change (repeated paragraphs left out), with the new."""
    gone: set[str] = field(default_factory=set)
    """The staged digests of the documents dropped or replaced: the layout's tags."""
    altered: bool = False

    @property
    def documents(self) -> str:
        return str(self.layout["name"]).replace("chunks-", "documents-", 1)


@dataclass(slots=True)
class _Pass:
    """The pass's tables and counts, over every shard in walk order."""

    config: Config
    seen: Seen = field(default_factory=Seen)
    clusters: Any = None
    """`near.Clusters` when near duplicates are looked for (numpy is imported then)."""
    paragraphs: Paragraphs | None = None
    """When repeated paragraphs are left out (`[dedup] boilerplate`)."""
    mail: MailPass | None = None
    """When the run holds mail messages: their threads and quotes (`mail`)."""
    duplicates: int = 0
    near: int = 0
    stripped: int = 0
    """Documents that left a repeated paragraph out."""
    dropped_chunks: int = 0
    repeated: bool = False
    """Whether any document with chunks had a hash an earlier one had (`distinct`)."""

    def close(self) -> None:
        self.seen.close()
        for table in (self.clusters, self.paragraphs, self.mail):
            if table is not None:
                table.close()


def apply(staging: Path, staged: Staged, config: Config, previous: Previous | None) -> Staged:
    """`staged` with its duplicates decided (`config.exact`, `config.near`): the shard
    files in `staging` rewritten where they changed, and the manifest entries, layout,
    tallies and `changes.ndjson` (against `previous`) to match. Blocking. Raises
    OSError when a staged file cannot be read or written."""
    if staged.unchanged:
        return staged
    check = distinct.begin(staging, staged, config)
    mail = MailPass.collect(staging, check.shard if check is not None else None)
    if config.exact == config.near == "off" and not config.boilerplate and mail is None:
        return staged
    if mail is None and check is not None and check.distinct():  # nothing to decide
        return _noted(staging, staged, config, repeated=False)
    run = _Pass(config, mail=mail)
    if config.near != "off":
        from indexer.pipeline.output.dedup.near import Clusters

        run.clusters = Clusters(config.near_threshold, config.near_shingle)
    if config.boilerplate:
        run.paragraphs = Paragraphs(config.boilerplate)
    try:
        infos, altered = _passed(staging, run)
    finally:
        run.close()
    if not altered:
        (staging / (LAYOUT + ".tmp")).unlink()
        return _noted(staging, staged, config, run.repeated)
    (staging / (LAYOUT + ".tmp")).replace(staging / LAYOUT)
    entries = {
        key: [infos.get(e["name"], e) for e in listed]
        for key, listed in staged.manifest_files.items()
    }
    tally = replace(staged.tally)
    tally.chunks -= run.dropped_chunks
    tally.duplicates += run.duplicates
    tally.near_duplicates += run.near
    tally.boilerplate += run.stripped
    if CHANGES in staged.files:
        tally.changes = files.track_changes(staging, _documents(staged), _previous(previous))
    return _noted(staging, replace(staged, manifest_files=entries, tally=tally), config, True)


def _noted(staging: Path, staged: Staged, config: Config, repeated: bool) -> Staged:
    """`staged` with the note of whether its keys were distinct (`distinct.NOTE`), when
    the pass decides exact duplicates alone."""
    if not distinct.skippable(config):
        return staged
    distinct.note(staging, staged.manifest_files["documents"], config, not repeated)
    return replace(staged, files=[*staged.files, distinct.NOTE])


def _passed(staging: Path, run: _Pass) -> tuple[dict[str, Any], bool]:
    """Decide every shard in walk order, one at a time (memory holds one shard), each
    changed one rewritten at once, the layout written beside as `.layout.ndjson.tmp`;
    return the manifest entries of the files rewritten, and whether any was."""
    infos: dict[str, Any] = {}
    recent: list[bool] = []
    """Whether each shard since the last segment summary changed."""
    committed = Committed(staging.parent)
    with open(staging / (LAYOUT + ".tmp"), "wb") as layout:
        for raw in files.lines(staging / LAYOUT):
            shard = _Shard(orjson.loads(raw))
            _decide(staging, shard, run)
            if shard.altered:
                infos.update(_rewritten(staging, shard, committed))
            recent.append(shard.altered)
            seg = shard.layout.get(SEG)
            if seg is not None:
                if any(recent[-int(seg["shards"]) :]):  # the next run must not take it whole
                    del shard.layout[SEG]
                recent = []
            layout.write(orjson.dumps(shard.layout, option=orjson.OPT_APPEND_NEWLINE))
        layout.flush()
        os.fsync(layout.fileno())
    return infos, bool(infos)


def _decide(staging: Path, shard: _Shard, run: _Pass) -> None:
    """Decide each document of `shard`, its lines kept or replaced in `shard.lines`."""
    whole = {tag for tag, _ in shard.layout["docs"]}
    """Documents whose chunks are all in this shard: one split over shards is never
    decided (its chunks are in shards already written), only seen."""
    quoting = run.mail is not None and shard.layout["name"] in run.mail.quoting
    reads = run.clusters is not None or run.paragraphs is not None or quoting
    chunks = files.chunks_by_doc(staging / str(shard.layout["name"])) if reads else {}
    lines = list(files.lines(staging / shard.documents))
    records = [orjson.loads(line) for line in lines]
    threaded = run.mail.assign(records) if run.mail is not None else [False] * len(records)
    run.seen.shard([k for r in records if r["chunks"] for k in keys(r["sha256"], r["text_sha256"])])
    for line, record, rethreaded in zip(lines, records, threaded, strict=True):
        if record["duplicate_of"]:
            raise RuntimeError(f"{shard.documents}: a staged record is decided already")
        did, decided = record["doc_id"], record["digest"] in whole
        ks = keys(record["sha256"], record["text_sha256"]) if record["chunks"] else []
        first = run.seen.first(ks) if decided and run.config.exact != "off" else None
        run.repeated = run.repeated or (first or run.seen.first(ks)) is not None
        if first is None:
            run.seen.add(ks, record["path"])
        own = chunks.get(did, [])
        parsed = _parsed(run, own) if decided else None
        cluster = did
        if decided and run.clusters is not None:
            cluster = run.clusters.assign(
                did, files.words_of(own) if parsed is None else parsed.words
            )
        changed = first is not None or cluster != did
        if changed:
            _mark(record, shard, run, first, cluster)
        strips = run.paragraphs is not None or run.mail is not None
        if decided and strips and did not in shard.dropped:
            changed = _strip(record, shard, run, own, parsed) or changed
        if not (changed or rethreaded):
            shard.lines.append(line)
            continue
        shard.lines.append(orjson.dumps(record, option=orjson.OPT_APPEND_NEWLINE))
        shard.altered = True
    run.seen.end_shard()


def _mark(
    record: dict[str, Any], shard: _Shard, run: _Pass, first: str | None, cluster: str
) -> None:
    """Write the decisions into `record`, noting its chunk lines to drop."""
    drop = False
    if first is not None:
        record["duplicate_of"] = first
        run.duplicates += 1
        drop = run.config.exact == "drop"
    if cluster != record["doc_id"]:
        record["metadata"]["near_duplicate"] = {"cluster": cluster, "representative": False}
        run.near += 1
        drop = drop or run.config.near == "drop"
    if drop:
        shard.dropped.add(record["doc_id"])
        shard.gone.add(record["digest"])
        run.dropped_chunks += record["chunks"]
        record["chunks"], record["digest"] = 0, NO_CHUNKS


def _parsed(run: _Pass, lines: list[bytes]) -> Read | None:
    """A document's chunk lines read once for near duplicates and repeated paragraphs
    both, when both are looked for (one parse, one word split); else None."""
    if run.clusters is None or run.paragraphs is None:
        return None
    return read(lines)


def _strip(
    record: dict[str, Any], shard: _Shard, run: _Pass, lines: list[bytes], parsed: Read | None
) -> bool:
    """Leave out of a document's chunks its quoted paragraphs indexed elsewhere (`mail`),
    then the repeated paragraphs (`boilerplate`); return whether any was. `parsed` is
    `lines` read already (`_parsed`)."""
    new = quotes = run.mail.strip(record, lines) if run.mail is not None else None
    if run.paragraphs is not None:
        if quotes is None:
            repeated = run.paragraphs.strip(lines, parsed)
        else:  # the quotes left: other lines than those read
            repeated = run.paragraphs.strip(quotes)
        if repeated is not None:
            new = repeated
            run.stripped += 1
    if new is None:
        return False
    shard.replaced[record["doc_id"]] = new
    shard.gone.add(record["digest"])
    run.dropped_chunks += record["chunks"] - len(new)
    record["chunks"] = len(new)
    record["digest"] = hashlib.sha256(b"".join(new)).hexdigest()[:32] if new else NO_CHUNKS
    return True


def _rewritten(staging: Path, shard: _Shard, committed: Committed) -> dict[str, Any]:
    """Write a changed shard's files, or link the committed ones of the same bytes;
    return their manifest entries by name."""
    lines, shard.lines = shard.lines, []
    infos = {shard.documents: committed.write(staging / shard.documents, lambda: lines)}
    if shard.dropped or shard.replaced:
        name, dropped, replaced = str(shard.layout["name"]), shard.dropped, shard.replaced
        infos[name] = committed.write(
            staging / name, lambda: files.kept(staging / name, dropped, replaced)
        )
        shard.layout["docs"] = [d for d in shard.layout["docs"] if d[0] not in shard.gone]
    return infos


def _documents(staged: Staged) -> list[str]:
    return [str(e["name"]) for e in staged.manifest_files["documents"]]


def _previous(previous: Previous | None) -> PreviousDocs:
    """The previous commit's documents, read now (on disk: `prevdocs`)."""
    return PreviousDocs() if previous is None else previous.load()
