"""Retrieval chunks: an extractor's blocks packed to a target size, with their context.

Extractors return extractors-v1's per-kind chunks; here they are *blocks*. `pack`
joins consecutive blocks of one document into chunks of about `target` (never over
`maximum`; a chunk under `minimum` takes a neighbour), without crossing a hard
boundary: a new top-level heading, a mail part, a sheet, a slide, a chapter; a block
that is only context (a mail's header summary, a table's header line) always shares a
chunk with what it introduces. A block
(a paragraph, a JSON record, a row group) is cut only when it is over `maximum`: at
sentence, then word boundaries, a table's header rows repeated in every piece. Each
chunk's `meta` merges its blocks' (heading path in common, page and row ranges) and
adds `{"blocks": [first, last]}`. Sizes count characters, or tokens of a local
`tokenizer.json` (the `tokenizers` package; nothing is downloaded).
"""

from __future__ import annotations

import functools
import itertools
import os
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from indexer._text import split_text
from indexer._types import Chunk, Packing

__all__ = ["VERSION", "Packing", "pack"]

VERSION = "4"
"""Bumped whenever `pack` gives other chunks for the same blocks and settings: packed
runs key their stored outputs with it, so an upgrade re-packs what earlier runs stored."""

_HARD_KEYS = ("part", "sheet", "slide", "chapter", "mail")
"""Blocks differing in one of these never share a chunk, but for a lead and its part."""
_LEADS = {"headers": ("body", "quoted", "forwarded", "signature", "disclaimer")}
"""A part that is only context (a mail's header summary) and the parts it leads (a
body may open with a quote or a forward): the lead shares a chunk with the start of
what follows, never a chunk of its own."""
_JOIN = "\n\n"
_SHEET_HEAD_LINES = 6
"""`## name`, up to three title lines and the header row, then a first record."""
_LETTERS = re.compile(r"[A-Z]{1,3}: ")
_CONTEXT_CHARS = 200
"""The longest context (a mail's subject is its title, and some run to pages)."""


@dataclass(slots=True)
class _Piece:
    text: str
    block: int
    meta: dict[str, Any]
    lead: bool = False
    """Only context: it never ends a chunk (`_LEADS`)."""


def pack(
    blocks: Sequence[Chunk], packing: Packing, max_chars: int, title: str | None = None
) -> tuple[Chunk, ...]:
    """Return `blocks` packed into chunks by `packing`, none over `max_chars` characters.

    Words and their order are kept (a split table repeats its header rows; `overlap`
    repeats a tail); `mode = "blocks"` returns `blocks` as they are.
    """
    if packing.mode == "blocks" or not blocks:
        return tuple(blocks)
    size = _measure(packing.tokenizer)
    out: list[Chunk] = []
    most = min(_CONTEXT_CHARS, packing.maximum // 4, max_chars // 4)
    for section in _sections(blocks):
        context = _context(title, section[0].meta, most)
        reserved = len(context) + len(_JOIN) if packing.prefix and context else 0
        budget = _Budget(packing, size, max_chars, reserved)
        groups = _group(_pieces(section, budget), budget)
        texts = _overlapped([_JOIN.join(p.text for p in g) for g in groups], packing, size)
        for text, group in zip(texts, groups, strict=True):
            meta = _merged(group)
            if context:
                meta["context"] = context
            if packing.prefix and context:
                text = f"{context}{_JOIN}{text}"
            out.append(Chunk(text=text, meta=meta))
    return tuple(out)


@dataclass(frozen=True, slots=True)
class _Budget:
    packing: Packing
    size: Callable[[str], int]
    max_chars: int
    reserved: int

    @property
    def chars(self) -> int:
        """The most characters a chunk's body may have."""
        return self.max_chars - self.packing.overlap - self.reserved

    @property
    def maximum(self) -> int:
        """The largest size (characters or tokens) a chunk's body may have."""
        return self.packing.maximum - self.packing.overlap - self.reserved

    def fits(self, text: str) -> bool:
        """Whether `text` may be a chunk's body (before overlap and prefix)."""
        return self.fits_sizes(len(text), self.size(text))

    def fits_sizes(self, chars: int, size: int) -> bool:
        """Whether a body of `chars` characters and `size` units may be a chunk's."""
        return chars <= self.chars and size <= self.maximum


def _sections(blocks: Sequence[Chunk]) -> Iterator[list[_Piece]]:
    """Runs of blocks that may share chunks: split at every hard boundary."""
    section: list[_Piece] = []
    for i, block in enumerate(blocks):
        if section and _boundary(section[-1].meta, block.meta):
            yield section
            section = []
        section.append(_Piece(block.text, i, block.meta))
    if section:
        yield section


def _boundary(before: dict[str, Any], after: dict[str, Any]) -> bool:
    part = before.get("part")
    led = part in _LEADS and after.get("part") in _LEADS[part]
    if any(before.get(k) != after.get(k) for k in _HARD_KEYS[led:]):  # "part" is first
        return True
    return bool(_top(before) != _top(after))


def _top(meta: dict[str, Any]) -> Any:
    """The top-level heading a block sits under (None before the first)."""
    headings = meta.get("headings")
    return headings[0] if headings else None


def _pieces(section: list[_Piece], budget: _Budget) -> list[_Piece]:
    """The blocks of `section` as pieces that fit `budget`. A lead (`_LEADS`) that leaves
    room is marked, and the block after it cut to fit beside it."""
    out: list[_Piece] = []
    after: _Budget | None = None
    for block in section:
        pieces = _split(block, after or budget)
        after = None
        if block.meta.get("part") in _LEADS and len(pieces) == 1 and block is not section[-1]:
            room = budget.reserved + len(block.text) + len(_JOIN)
            if 2 * room <= min(budget.chars, budget.maximum):
                pieces[0].lead = True
                after = _Budget(budget.packing, budget.size, budget.max_chars, room)
        out.extend(pieces)
    return out


def _split(piece: _Piece, budget: _Budget) -> list[_Piece]:
    """`piece` as it is when it fits, else cut (tables keep their header rows; a header
    too wide to repeat starts the first piece, never a piece alone)."""
    if budget.fits(piece.text):
        return [piece]
    head = _table_head(piece)
    header = head if head and _repeatable(head, budget) else ""
    limit = max(64, min(budget.chars, budget.maximum) - len(header))
    if head and not header:  # cut after the head, never inside it
        parts = [head.rstrip("\n"), *_cut(piece.text[len(head) :], "", limit, budget)]
        parts = _headed(parts, head, limit, budget)
    else:
        parts = _cut(piece.text[len(header) :], header, limit, budget)
    return [_Piece(header + part, piece.block, piece.meta) for part in parts]


def _headed(parts: list[str], head: str, limit: int, budget: _Budget) -> list[str]:
    """`parts` with a first part that is the table's header alone joined to the start of
    the second, which is cut where the two fit (the rest of it a part of its own)."""
    if len(parts) < 2 or parts[0] != head.rstrip("\n") or limit - len(head) < 64:
        return parts
    start = split_text(parts[1], limit - len(head))[0]  # a prefix of parts[1]
    rest = parts[1][len(start) :].strip()
    if not budget.fits(head + start):
        return parts
    return [head + start, *([rest] if rest else []), *parts[2:]]


def _cut(text: str, header: str, limit: int, budget: _Budget) -> list[str]:
    """Pieces of `text` that fit `budget` after `header`, cut at paragraph, line,
    sentence, then word boundaries."""
    parts = _even(text, limit)
    while not all(budget.fits(header + p) for p in parts) and limit > 64:
        limit = max(64, limit * 3 // 4)
        parts = _even(text, limit)
    return parts


def _even(text: str, limit: int) -> list[str]:
    """`split_text`'s pieces of at most `limit`, as few, of about equal size: cutting
    at the limit would leave a short tail (a 4,000-character block in 1,990, 1,995, 15)."""
    parts = split_text(text, limit)
    low, high = len(text) // len(parts), limit
    while low < high:  # the smallest limit that needs no more pieces
        middle = (low + high) // 2
        if len(split_text(text, middle)) <= len(parts):
            high = middle
        else:
            low = middle + 1
    return parts if high == limit else split_text(text, high)


def _table_head(piece: _Piece) -> str:
    """The lines a cut table repeats in every piece, each ending in a newline: a Markdown
    table's header rows, a CSV block's header line, a sheet block's lines before its
    first record (`## name`, titles, the header row); "" for a block that is no table."""
    lines = piece.text.split("\n")
    if len(lines) > 2 and lines[0].startswith("|") and lines[1].lstrip("| :-") == "":
        head = lines[:2]
    elif "rows" in piece.meta:
        head = lines[: _first_record(lines)] if "sheet" in piece.meta else lines[:1]
    else:
        return ""
    return "".join(f"{line}\n" for line in head) if len(head) < len(lines) else ""


def _repeatable(head: str, budget: _Budget) -> bool:
    """Whether `head` may repeat in every piece: when it takes at most half of one."""
    return budget.fits_sizes(2 * len(head), 2 * budget.size(head))


def _first_record(lines: list[str]) -> int:
    """The line where a sheet block's records (`label: value | ...`) start: the first
    after `## name` that starts with a label of the line above (the header row) or
    with a column letter (a sheet without a header row)."""
    for i in range(1, min(len(lines), _SHEET_HEAD_LINES)):
        labels = lines[i - 1].split(" | ")
        if _LETTERS.match(lines[i]) or any(lines[i].startswith(f"{x}: ") for x in labels):
            return i
    return 1


def _group(pieces: list[_Piece], budget: _Budget) -> list[list[_Piece]]:
    """Greedy packing to `target`; a chunk under `minimum` takes more up to `maximum`."""
    target, minimum = budget.packing.target, budget.packing.minimum
    joint = (len(_JOIN), budget.size(_JOIN))
    groups: list[list[_Piece]] = []
    current: list[_Piece] = []
    chars = size = 0
    for piece in pieces:
        alone = (len(piece.text), budget.size(piece.text))
        grown = (chars + joint[0] + alone[0], size + joint[1] + alone[1])
        if not current:
            chars, size = alone
        elif not budget.fits_sizes(*grown) or (
            size >= minimum and grown[1] > target and not current[-1].lead
        ):
            groups.append(current)
            current, (chars, size) = [], alone
        else:
            chars, size = grown
        current.append(piece)
    if current:
        if groups and size < minimum and _fits_after(groups[-1], current, budget):
            groups[-1].extend(current)
        else:
            groups.append(current)
    return groups


def _fits_after(group: list[_Piece], tail: list[_Piece], budget: _Budget) -> bool:
    return budget.fits(_JOIN.join(p.text for p in group + tail))


def _overlapped(texts: list[str], packing: Packing, size: Callable[[str], int]) -> list[str]:
    """Each text after the first starts with the previous one's last `overlap` units."""
    if packing.overlap == 0:
        return texts
    out = texts[:1]
    for before, text in itertools.pairwise(texts):
        tail = _tail(before, packing.overlap, size)
        out.append(f"{tail}\n{text}" if tail else text)
    return out


def _tail(text: str, amount: int, size: Callable[[str], int]) -> str:
    """The longest run of whole words at the end of `text` no larger than `amount`."""
    words = text.split()
    taken: list[str] = []
    for word in reversed(words):
        if size(" ".join([word, *taken])) > amount:
            break
        taken.insert(0, word)
    return " ".join(taken)


def _merged(group: list[_Piece]) -> dict[str, Any]:
    """One meta for the blocks of a chunk: ranges widened, the heading path in common."""
    first, last = group[0].meta, group[-1].meta
    meta = dict(first)
    if "headings" in first:
        meta["headings"] = _common([p.meta.get("headings") or [] for p in group])
    if "page" in first:
        meta["pages"] = [first["page"], last.get("page", first["page"])]
    if "rows" in first and "rows" in last:
        meta["rows"] = [first["rows"][0], last["rows"][-1]]
    if any(p.meta.get("ocr") for p in group):
        meta["ocr"] = True
    if any(p.meta.get("low_confidence") for p in group):  # any page read poorly taints it
        meta["low_confidence"] = True
    if first.get("part") in _LEADS and len(group) > 1 and group[1].meta.get("part") != "body":
        # a header summary leading a quote (or a forward, a signature) says what it leads:
        # the chunk's text is mostly that, and a quote must stay marked as one
        led = group[1].meta
        meta["part"] = led["part"]
        if "quoted" in led:
            meta["quoted"] = led["quoted"]
    meta["blocks"] = [group[0].block, group[-1].block]
    return meta


def _common(paths: list[list[str]]) -> list[str]:
    common = list(paths[0])
    for path in paths[1:]:
        n = 0
        while n < min(len(common), len(path)) and common[n] == path[n]:
            n += 1
        del common[n:]
    return common


def _context(title: str | None, meta: dict[str, Any], most: int) -> str:
    """`title > top heading`, whitespace collapsed, cut to `most` characters."""
    parts = [title] if title else []
    parts.extend(str(h) for h in (meta.get("headings") or [])[:1])
    context = " > ".join(" ".join(p.split()) for p in parts)
    return context if len(context) <= most else f"{context[: most - 1].rstrip()}…"


MAX_TOKENIZER_BYTES = 128 << 20
"""The largest `tokenizer.json` loaded: several times the largest published ones
(tens of MB); a bigger file is refused before it is read."""


def tokenizer_problem(path: str) -> str | None:
    """Return why the `tokenizer.json` at `path` cannot count tokens (too large, not
    readable, not one the `tokenizers` package loads), or None when it can. Loads it
    (and keeps it, for this process's packing) only when its size is within
    `MAX_TOKENIZER_BYTES`."""
    try:
        _measure(path)
    except Exception as exc:  # tokenizers raises a bare Exception for a bad file
        return str(exc) if isinstance(exc, _TooLarge) else f"{type(exc).__name__}: {exc}"
    return None


class _TooLarge(ValueError):
    pass


def _measure(tokenizer: str | None) -> Callable[[str], int]:
    if tokenizer is None:
        return len
    info = os.stat(tokenizer)  # a file edited in place is loaded again
    if info.st_size > MAX_TOKENIZER_BYTES:
        raise _TooLarge(f"{info.st_size} bytes, over the {MAX_TOKENIZER_BYTES >> 20} MiB limit")
    return _token_counter(tokenizer, info.st_mtime_ns, info.st_size)


@functools.lru_cache(maxsize=4)
def _token_counter(path: str, mtime_ns: int, size: int) -> Callable[[str], int]:
    from tokenizers import Tokenizer  # only with unit = "tokens"

    model = Tokenizer.from_file(path)
    return lambda text: len(model.encode(text, add_special_tokens=False).ids)
