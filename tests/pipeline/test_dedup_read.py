"""A document's chunk lines read once for near duplicates and repeated paragraphs
(`boilerplate.read`) give what each read of its own gave: `files.words_of`'s words and
each paragraph's key by the old formula, over the corpus's texts and hostile ones."""

from __future__ import annotations

import hashlib
import random

import orjson
import pytest
from corpustexts import texts

from indexer.pipeline.output.dedup import boilerplate, files
from indexer.pipeline.output.dedup.texthash import encoded_words

HOSTILE = [
    "",
    "\n\n",
    "\n\n\n\nword",
    "a\n\n\nb\n\n",
    "e\u0301te\u0301\n\n\u0301 combining after a blank line",
    "\u1100\n\n\u1161 jamo either side",
    "ﬁne ﬂour\n\nİstanbul STRASSE straße\n\n½ ⅓ ²",
    "\ufeff\u200b\u200d zero width\n\n\u2028\u2029 separators",
    "Ünïcode words one two three four five six seven eight\n\nand ASCII ones too here",
]


def old_key(paragraph: str) -> bytes | None:
    """A paragraph's key as `Paragraphs.strip` computed it before `read`."""
    found = encoded_words(paragraph)
    if len(found) < boilerplate.MIN_WORDS:
        return None
    return hashlib.sha256(b" ".join(found)).digest()[:16]


def contexts(text: str, rng: random.Random) -> list[object]:
    """Context prefixes of every kind `own_text` meets: none, the first paragraph, a
    prefix ending inside one, one holding a blank line, one that is not a prefix."""
    first = text.split("\n\n")[0]
    cut = rng.randrange(len(text) + 1)
    return [None, "", 7, first, text[:cut], text[: text.find("\n\n", 1) + 1], "not it"]


def lines_of(text: str, context: object) -> list[bytes]:
    meta = {} if context is None else {"context": context}
    body = f"{context}{text}" if isinstance(context, str) else text
    record = {"id": "0" * 24 + ":0", "doc_id": "0" * 24, "text": body, "meta": meta}
    return [orjson.dumps(record), orjson.dumps({**record, "text": text, "meta": {}})]


def check(text: str, rng: random.Random) -> None:
    for context in contexts(text, rng):
        lines = lines_of(text, context)
        found = boilerplate.read(lines)
        assert found.words == files.words_of(lines), (text, context)
        assert found.chunks == [orjson.loads(line) for line in lines]
        for chunk, part in zip(found.chunks, found.parts, strict=True):
            pieces = str(chunk["text"]).split("\n\n")
            assert part == [(p, old_key(p)) for p in pieces]
        assert boilerplate.read(lines, words=False).words == []


def test_hostile_and_random_texts_read_once_give_each_reads_words_and_keys() -> None:
    rng = random.Random(11)
    alphabet = [*" \n\n\n\t.,-_aZ09", "é", "\u0301", "ß", "ﬁ", "İ", "\u1100", "\u1161", "😀"]
    randoms = ["".join(rng.choice(alphabet) for _ in range(rng.randrange(80))) for _ in range(800)]
    ascii = [*" \n\n\n\t\r\x0b\x0c\x1c\x00.,-_aZ09"]  # what the ASCII split meets
    randoms += ["".join(rng.choice(ascii) for _ in range(rng.randrange(80))) for _ in range(800)]
    for text in HOSTILE + randoms:
        check(text, rng)


def test_the_corpus_texts_read_once_give_each_reads_words_and_keys() -> None:
    found = texts()
    if not found:
        pytest.skip("../shared/corpus is not available")
    rng = random.Random(5)
    for text in found[::7]:
        check(text, rng)
