"""The corpus pass's mail decisions, measured on real runs (`scripts/bench mail-threads`).

The generated messages (`tests/formats/mailthreads.py`) are written as `.eml` files, a
folder per conversation, each reply before the message it answers in walk order, and
indexed with `indexer run` (the defaults); then again without each conversation's
first message (its quotes are orphans). Per style, over every chunk a message has in
the output: the recall of its new words, and the share of its quoted words left in it
(where every original is indexed, all of them could go). Orphan quotes: the share of
the missing first messages' words still in the output. On `enron.pst`: chunks and
chunk characters with `[mail] keep_quotes` and with the defaults, and the messages
whose own words (their chunks but the quoted ones) all stay in their chunks.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import indexer
from benchmarks.common import SHARED
from indexer.config import Config
from tests.formats.mailthreads import Labelled, measured, words

ENRON = SHARED / "formats" / "mail" / "enron.pst"
_CONFIG = Config(workers=2)


def measure(mails: list[Labelled]) -> dict[str, Any]:
    """Index the generated mails and `enron.pst` with the corpus pass; return the numbers."""
    with tempfile.TemporaryDirectory(prefix="mail-pass-") as tmp:
        root = Path(tmp)
        names = _write(root / "all", mails, keep_first=True)
        full = _chunks_by_path(_run(root / "all", root / "out"))
        orphans = _write(root / "orphans", mails, keep_first=False)
        lost = _chunks_by_path(_run(root / "orphans", root / "out-orphans"))
        enron = _enron(root) if ENRON.exists() else None
    styles: dict[str, list[float]] = {}
    for mail, name in zip(mails, names, strict=True):
        text = "\n".join(c["text"] for c in full.get(name or "", []))
        new, old, have = measured(mail.new), measured(mail.quoted), measured(text)
        tally = styles.setdefault(mail.style, [0, 0, 0, 0])
        tally[0] += sum((new & have).values())
        tally[1] += sum(new.values())
        tally[2] += sum((old & (have - new)).values())
        tally[3] += sum(old.values())
    everything = measured("\n".join(c["text"] for cs in lost.values() for c in cs))
    firsts = Counter[str]()
    for mail, name in zip(mails, orphans, strict=True):
        if name is None:
            firsts += measured(mail.new)
    return {
        "styles": {s: (t[0] / max(t[1], 1), t[2] / max(t[3], 1)) for s, t in styles.items()},
        "orphans_kept": sum((firsts & everything).values()) / max(sum(firsts.values()), 1),
        "enron": enron,
    }


def _write(src: Path, mails: list[Labelled], keep_first: bool) -> list[str | None]:
    """Write `mails` under `src`; return each one's path (None for one left out)."""
    out: list[str | None] = []
    rank: Counter[int] = Counter()
    for mail in mails:
        n = rank[mail.thread]
        rank[mail.thread] += 1
        if n == 0 and not keep_first:
            out.append(None)
            continue
        name = f"t{mail.thread:03d}/{99 - n:02d}.eml"  # replies first in walk order
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        (src / name).write_bytes(mail.mime)
        out.append(name)
    return out


def _run(src: Path, out: Path, config: Config = _CONFIG) -> Path:
    indexer.run(src, out, config)
    return out


def _chunks_by_path(out: Path) -> dict[str, list[dict[str, Any]]]:
    found: dict[str, list[dict[str, Any]]] = {}
    for shard in sorted(out.glob("chunks-*.ndjson")):
        for line in shard.read_bytes().splitlines():
            chunk = json.loads(line)
            found.setdefault(chunk["path"], []).append(chunk)
    return found


def _enron(root: Path) -> dict[str, Any]:
    """`enron.pst` indexed with `keep_quotes` and with the defaults: the messages' chunks
    and characters, their quoted chunks, those whose own words (`eml.extract` split, but
    the quoted chunks) all stay in their chunks, and those with a word nowhere left."""
    (root / "enron").mkdir()
    shutil.copy(ENRON, root / "enron" / ENRON.name)
    runs = {}
    for name, config in (("kept", replace(_CONFIG, keep_quotes=True)), ("pass", _CONFIG)):
        runs[name] = _chunks_by_path(_run(root / "enron", root / f"enron-{name}", config))
    own = _own_words()
    archive = {w for cs in runs["pass"].values() for c in cs for w in _w(c)}
    mail = {k: [c for p in own for c in r.get(p, [])] for k, r in runs.items()}
    return {
        "messages": len(own),
        "chunks": [len(mail["kept"]), len(mail["pass"])],
        "chars": [_chars(mail["kept"]), _chars(mail["pass"])],
        "quoted_chunks": sum(bool(c["meta"]["quoted"]) for c in mail["pass"]),
        "own_kept": sum(
            not (words_ - Counter(w for c in runs["pass"].get(p, []) for w in _w(c)))
            for p, words_ in own.items()
        ),
        "words_lost": sum(
            any(w not in archive for c in runs["kept"].get(p, []) for w in _w(c)) for p in own
        ),
    }


def _own_words() -> dict[str, Counter[str]]:
    """The words of each `enron.pst` message's own chunks (all but the quoted ones), by
    its path in a run's output."""
    from indexer._types import DEFAULT_OPTIONS
    from indexer.formats import eml
    from indexer.formats.msg.pst import iter_messages

    found = {}
    for prefix, n, data, _ in iter_messages(str(ENRON)):
        if data:
            chunks = eml.extract(data, "", DEFAULT_OPTIONS).chunks
            text = "\n".join(c.text for c in chunks if not c.meta.get("quoted"))
            found[f"{ENRON.name}#{prefix}/{n}"] = Counter(words(text.replace(">", " ")))
    return found


def _chars(chunks: list[dict[str, Any]]) -> int:
    return sum(len(c["text"]) for c in chunks)


def _w(chunk: dict[str, Any]) -> list[str]:
    return words(str(chunk["text"]).replace(">", " "))


def render(found: dict[str, Any]) -> list[str]:
    """Lines for the bench's report."""
    cells = ", ".join(f"{s} {r:.3f} / {q:.1%}" for s, (r, q) in found["styles"].items())
    out = [
        "corpus pass (indexer run, replies before originals in walk order), new words in a "
        f"message's chunks / quoted words left in them: {cells}",
        f"orphan quotes (first messages left out): their words kept {found['orphans_kept']:.3f}",
    ]
    e = found["enron"]
    if e is not None:
        out.append(
            f"enron.pst through indexer run: {e['messages']} messages; chunks "
            f"{e['chunks'][0]} (keep_quotes) -> {e['chunks'][1]} (defaults, "
            f"{e['quoted_chunks']} quoted); chunk chars {e['chars'][0]} -> {e['chars'][1]}; "
            f"own words all kept {e['own_kept']}/{e['messages']}; messages with a word "
            f"nowhere in the output {e['words_lost']}"
        )
    return out
