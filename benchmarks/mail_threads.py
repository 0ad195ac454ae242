"""Suite `mail-threads`: each message's own words once, and its thread, side by side with
`email_reply_parser` and `mail-parser-reply`.

The labelled corpus is `tests/formats/mailthreads.py`: `--threads` conversations in 9
quoting styles and 10 languages, every message knowing its new text, the text it quotes
and its thread. Per style, for indexer (`eml.extract` with the defaults) and each peer
(on the plain-text body, an HTML body given as `>`-quoted text, which they cannot read
themselves): the recall of new-text words in what is kept as the message's own (indexer:
every chunk but the header summary and the `quoted` ones; a peer: its reply text), and
the share of quoted words that leak into it. Only the generated words count (a word and
its number: `mailthreads.words`), not the sign-offs and client lines every message has.
Thread grouping is pairwise F1 over all messages: indexer's `metadata.thread.id` (one
message at a time) and `threads.group` (the corpus pass). Cost: the CPU time of
extracting every message with quotes split against `[mail] keep_quotes = true`, side by
side in this process, for the generated mails, the corpus's `.eml` files and enron.pst's
messages, and split with the splitter's results memoised: what splitting costs beyond
the splitter.

On `../shared/formats/mail/enron.pst` (71 messages of the public Enron sample, read
in-process): chunks and chunk characters with quotes kept and split, the share of
body characters that is quoted, chunks repeating another, and the messages whose words
were all kept (in some chunk: nothing lost) and whose own text is not empty.

The corpus pass's decisions (parents, quotes left out where their original is indexed,
orphan quotes kept once) on real runs: `benchmarks/mail_pass.py`.

Targets: recall >= 0.99 and leakage <= 2% in every style; thread F1 >= 0.98 (corpus
pass); cost <= 15%; through the corpus pass, recall >= 0.99, quoted words left <= 2%,
orphan-quote words kept >= 0.99. A peer not installed is skipped, and said so.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from typing import Any
from unittest.mock import patch

from benchmarks import mail_pass
from benchmarks.common import SHARED, SHARED_CORPUS, load, table, target, targets_table
from indexer._types import DEFAULT_OPTIONS, Extracted
from indexer.formats import eml
from indexer.formats.eml import body, quotes, threads
from tests.formats.mailthreads import (
    LANGUAGES,
    STYLES,
    Labelled,
    kept_text,
    measured,
    scores,
    words,
)
from tests.formats.mailthreads import threads as generate

ENRON = SHARED / "formats" / "mail" / "enron.pst"
_KEEP = replace(DEFAULT_OPTIONS, mail_keep_quotes=True)
Peer = Callable[[str], str]


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--threads", type=int, default=180, help="generated conversations")
    p.add_argument("--repeat", type=int, default=9, help="rounds of the cost measurement")


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Measure the generated threads and the Enron mailbox; return the numbers."""
    mails = generate(args.seed, args.threads)
    extracted = [eml.extract(m.mime, "", DEFAULT_OPTIONS) for m in mails]
    peers = _peers()
    styles = {style: _style(style, mails, extracted, peers) for style in STYLES}
    ours = [s["indexer"] for s in styles.values() if s["indexer"] is not None]
    grouping = _grouping(mails, extracted)
    quotes_kept = _quotes_kept(mails, extracted)
    cost = _cost(mails, args.repeat)
    enron = _enron() if ENRON.exists() else None
    corpus = mail_pass.measure(mails)
    f1 = grouping["group"]
    worst_recall = min(recall for recall, _ in ours)
    worst_leak = max(leak for _, leak in ours)
    result = {
        "messages": len(mails), "languages": len(LANGUAGES), "styles": styles,
        "peers": {name: peer is not None for name, peer in peers.items()},
        "grouping": grouping, "cost": cost, "enron": enron, "quotes_kept": quotes_kept,
        "corpus_pass": corpus,
    }  # fmt: skip
    pass_recall = min(r for r, _ in corpus["styles"].values())
    pass_leak = max(q for _, q in corpus["styles"].values())
    orphans = corpus["orphans_kept"]
    result["targets"] = [
        target("new words kept, worst style", ">= 0.99", worst_recall, worst_recall >= 0.99, ""),
        target("quoted words leaking, worst", "<= 0.02", worst_leak, worst_leak <= 0.02, ""),
        target("quoted words kept as quoted", ">= 0.99", quotes_kept, quotes_kept >= 0.99, ""),
        target("thread F1, corpus pass", ">= 0.98", f1, f1 >= 0.98, ""),
        *(
            target(f"cost of splitting, {name}", "<= 15%", c["added"], c["added"] <= 0.15, "")
            for name, c in cost.items()
            if c["mails"]
        ),
        target("corpus pass: new words, worst", ">= 0.99", pass_recall, pass_recall >= 0.99, ""),
        target("corpus pass: quotes left, worst", "<= 0.02", pass_leak, pass_leak <= 0.02, ""),
        target("corpus pass: orphan quotes kept", ">= 0.99", orphans, orphans >= 0.99, ""),
    ]  # fmt: skip
    return result


def _peers() -> dict[str, Peer | None]:
    found: dict[str, Peer | None] = {"email_reply_parser": None, "mail-parser-reply": None}
    try:
        from email_reply_parser import EmailReplyParser

        found["email_reply_parser"] = EmailReplyParser.parse_reply
    except ImportError:
        pass
    try:
        from mailparser_reply import EmailReplyParser as Parser

        parser = Parser(languages=["en", "de", "fr", "es", "it", "nl", "sv", "ja", "zh"])
        found["mail-parser-reply"] = lambda text: parser.read(text).latest_reply or ""
    except ImportError:
        pass
    return found


def _style(
    style: str, mails: list[Labelled], docs: list[Extracted], peers: dict[str, Peer | None]
) -> dict[str, tuple[float, float] | None]:
    picked = [(m, d) for m, d in zip(mails, docs, strict=True) if m.style == style]
    chosen = [m for m, _ in picked]
    out: dict[str, tuple[float, float] | None] = {
        "indexer": scores(chosen, (kept_text(d) for _, d in picked))
    }
    for name, peer in peers.items():
        out[name] = None if peer is None else scores(chosen, (peer(m.plain) for m in chosen))
    return out


def _quotes_kept(mails: list[Labelled], docs: list[Extracted]) -> float:
    """The share of quoted words found in the message's `quoted` chunks: what a corpus
    pass keeps of a quote whose original is not indexed."""
    found = total = 0
    for mail, doc in zip(mails, docs, strict=True):
        quoted = measured(mail.quoted)
        kept = measured("\n".join(c.text for c in doc.chunks if c.meta.get("quoted")))
        found += sum((quoted & kept).values())
        total += sum(quoted.values())
    return found / max(total, 1)


def _f1(labels: list[int], predicted: list[str]) -> float:
    """Pairwise F1 of `predicted` groups against the true `labels`."""
    pairs = same = both = 0
    for i in range(len(labels)):
        for j in range(i + 1, len(labels)):
            truth, guess = labels[i] == labels[j], predicted[i] == predicted[j]
            pairs += truth
            same += guess
            both += truth and guess
    precision, recall = both / max(same, 1), both / max(pairs, 1)
    return 2 * precision * recall / max(precision + recall, 1e-9)


def _grouping(mails: list[Labelled], docs: list[Extracted]) -> dict[str, float]:
    labels = [m.thread for m in mails]
    alone = [str(d.metadata["thread"]["id"]) for d in docs]
    corpus = threads.group([_mail(str(n), d) for n, d in enumerate(docs)])
    grouped = [corpus[str(n)][0] for n in range(len(docs))]
    return {"message": _f1(labels, alone), "group": _f1(labels, grouped)}


def _mail(key: str, doc: Extracted) -> threads.Mail:
    meta = doc.metadata
    return threads.Mail(
        key=key, message_id=meta.get("message_id", ""), in_reply_to=meta.get("in_reply_to", ""),
        references=meta.get("references", []), subject=meta.get("subject", ""),
        people=[meta.get("from", ""), meta.get("to", "")], date=meta.get("date", ""),
    )  # fmt: skip


def _cost(mails: list[Labelled], repeat: int) -> dict[str, Any]:
    """CPU seconds of extracting each set of mails (the generated ones, the corpus's,
    enron.pst's), quotes split and kept, in `repeat` interleaved rounds: the best of
    each, and `added`, the median of the rounds' ratios less 1 (a busy machine slows a
    whole round, not one side of it). A third side splits with the splitter's results
    memoised (`quotes.passages` looked up, not run): `rest`, what splitting costs
    beyond the splitter (more chunks, their paragraphs), so `added - rest` is the
    splitter's share. The load average before and after, for each set."""
    sets = {
        "generated": [m.mime for m in mails],
        "corpus": [p.read_bytes() for p in sorted(SHARED_CORPUS.glob("email-*/**/*.eml"))],
        "enron": _enron_mails(),
    }
    out: dict[str, Any] = {}
    for name, inputs in sets.items():
        before = load()
        memoised = _memoised(inputs)
        times: dict[str, list[float]] = {"split": [], "kept": [], "memoised": []}
        for _ in range(repeat):
            for side, options, splitter in (
                ("split", DEFAULT_OPTIONS, quotes.passages),
                ("kept", _KEEP, quotes.passages),
                ("memoised", DEFAULT_OPTIONS, memoised),
            ):
                with patch.object(body, "passages", splitter):  # the extractor's splitter
                    start = time.process_time()
                    for data in inputs:
                        eml.extract(data, "", options)
                    times[side].append(time.process_time() - start)
        split, kept, memo = times["split"], times["kept"], times["memoised"]
        out[name] = {"mails": len(inputs), "split": min(split), "kept": min(kept),
                     "memoised": min(memo), "added": _added(split, kept),
                     "rest": _added(memo, kept), "load": [before, load()]}  # fmt: skip
    return out


def _added(side: list[float], kept: list[float]) -> float:
    """The median of the rounds' ratios `side / kept`, less 1; 0 for no rounds of mail."""
    if not side or not any(kept):
        return 0.0
    return statistics.median(a / max(b, 1e-9) for a, b in zip(side, kept, strict=True)) - 1


def _memoised(inputs: list[bytes]) -> Callable[..., tuple[quotes.Passage, ...]]:
    """`quotes.passages` answering from the results of one extraction of `inputs`."""
    found: dict[tuple[str, bool], tuple[quotes.Passage, ...]] = {}

    def remember(text: str, *, forward: bool = False) -> tuple[quotes.Passage, ...]:
        key = (text, forward)
        if key not in found:
            found[key] = quotes.passages(text, forward=forward)
        return found[key]

    with patch.object(body, "passages", remember):
        for data in inputs:
            eml.extract(data, "", DEFAULT_OPTIONS)
    return remember


def _enron_mails() -> list[bytes]:
    if not ENRON.exists():
        return []
    from indexer.formats.msg.pst import iter_messages

    return [data for _, _, data, _ in iter_messages(str(ENRON)) if data]


def _enron() -> dict[str, Any]:
    before, after = [], []
    for data in _enron_mails():
        before.append(eml.extract(data, "", _KEEP))
        after.append(eml.extract(data, "", DEFAULT_OPTIONS))
    body = sum(len(c.text) for d in after for c in d.chunks if c.meta["part"] != "headers")
    quoted = sum(len(c.text) for d in after for c in d.chunks if c.meta.get("quoted"))
    kept = sum(
        not (Counter(words(_all(b))) - Counter(words(_all(a))))
        for b, a in zip(before, after, strict=True)
    )
    own = sum(any(c.meta["part"] == "body" for c in d.chunks) for d in after)
    return {
        "messages": len(after),
        "chunks": [sum(len(d.chunks) for d in before), sum(len(d.chunks) for d in after)],
        "chars": [_chars(before), _chars(after), _chars(after, own_only=True)],
        "repeated": [_repeated(before), _repeated(after), _repeated(after, own_only=True)],
        "quoted_share": quoted / max(body, 1),
        "all_words_kept": kept,
        "with_own_text": own,
    }


def _all(doc: Extracted) -> str:
    return "\n".join(c.text.replace(">", " ") for c in doc.chunks)


def _chars(docs: list[Extracted], own_only: bool = False) -> int:
    return sum(
        len(c.text) for d in docs for c in d.chunks if not (own_only and c.meta.get("quoted"))
    )


def _repeated(docs: list[Extracted], own_only: bool = False) -> int:
    texts = Counter(
        c.text for d in docs for c in d.chunks if not (own_only and c.meta.get("quoted"))
    )
    return sum(n for n in texts.values() if n > 1)


def render(result: dict[str, Any]) -> str:
    names = ["indexer", *result["peers"]]
    rows = [
        [style, *(_cell(scores.get(name)) for name in names)]
        for style, scores in result["styles"].items()
    ]
    out = [
        f"{result['messages']} messages, {len(result['styles'])} styles, "
        f"{result['languages']} languages; cells: recall of new words / quoted words leaking",
        table(["style", *names], rows),
    ]
    missing = [name for name, found in result["peers"].items() if not found]
    if missing:
        out.append(f"not installed, skipped: {', '.join(missing)}")
    g = result["grouping"]
    out.append(f"quoted words in the quoted chunks: {result['quotes_kept']:.3f}")
    out.append(f"thread F1: per message {g['message']:.3f}, corpus pass {g['group']:.3f}")
    for name, c in result["cost"].items():
        out.append(
            f"CPU, {name} ({c['mails']} mails): split {c['split']:.3f} s, quotes kept "
            f"{c['kept']:.3f} s, splitter memoised {c['memoised']:.3f} s (best of each); "
            f"median of rounds {c['added']:+.0%}, of which the splitter "
            f"{c['added'] - c['rest']:+.0%} and the rest {c['rest']:+.0%} (load "
            f"{c['load'][0]:.1f} -> {c['load'][1]:.1f})"
        )
    e = result["enron"]
    if e is None:
        out.append(f"{ENRON} not found: skipped")
    else:
        out.append(
            f"enron.pst: {e['messages']} messages; chunks {e['chunks'][0]} -> {e['chunks'][1]}; "
            f"chunk chars {e['chars'][0]} kept -> {e['chars'][1]} split, {e['chars'][2]} not "
            f"quoted; quoted {e['quoted_share']:.0%} of body chars; chunks repeating another "
            f"{e['repeated'][0]} -> {e['repeated'][1]} ({e['repeated'][2]} not quoted); "
            f"all words kept {e['all_words_kept']}/{e['messages']}; own text in "
            f"{e['with_own_text']}"
        )
    out.extend(mail_pass.render(result["corpus_pass"]))
    out.append(targets_table(result["targets"]))
    return "\n".join(out)


def _cell(scores: tuple[float, float] | None) -> str:
    return "-" if scores is None else f"{scores[0]:.3f} / {scores[1]:.1%}"
