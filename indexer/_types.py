"""Value types that cross boundaries: options, chunks and extraction results.

All are frozen, slotted and keyword-only so that they pickle cleanly across the
process pool, compare by value in tests and cannot be mutated after the fact.
"""

from __future__ import annotations

import hashlib
import re
from collections import deque
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from itertools import repeat
from typing import Any, Literal

import orjson

from indexer._limits import ContainerLimits
from indexer.reasons import status_of

KINDS = ("json", "csv", "eml", "html", "pdf", "text")
"""The seed's kind tags, exactly. Later built-ins (the office formats) and plugins add
their own kinds through the registry; `capabilities` lists them all."""

PdfEngine = Literal["pdfium", "pdfplumber"]
OcrMode = Literal["auto", "off", "force"]
OCR_ENGINES = ("tesseract", "tesserocr")
"""The OCR engines indexer can drive (`indexer.formats.ocr`)."""
_LANGUAGES = re.compile(r"[A-Za-z][A-Za-z0-9_]*(\+[A-Za-z][A-Za-z0-9_]*)*")


@dataclass(frozen=True, slots=True, kw_only=True)
class Packing:
    """How blocks become chunks. Raises ValueError for sizes that cannot work."""

    mode: Literal["packed", "blocks"] = "packed"
    """`blocks` gives the extractors' own chunks, exactly (extractors-v1)."""
    target: int = 1200
    """A chunk is closed once adding the next block would pass this size."""
    maximum: int = 2000
    """No chunk is larger (and none over `max_chunk_chars` characters either)."""
    minimum: int = 300
    """A chunk smaller than this takes the next block even past `target`."""
    overlap: int = 0
    """Characters (or tokens) of a chunk's end repeated at the next one's start."""
    unit: Literal["chars", "tokens"] = "chars"
    """What sizes count."""
    tokenizer: str | None = None
    """Path of a `tokenizer.json`, with `unit = "tokens"`."""
    prefix: bool = False
    """Start each chunk's text with its document title and heading path."""

    def __post_init__(self) -> None:
        if self.mode not in ("packed", "blocks"):
            raise ValueError(f"mode must be packed or blocks, got {self.mode!r}")
        if not 0 < self.minimum <= self.target <= self.maximum:
            raise ValueError("sizes must satisfy 0 < minimum <= target <= maximum")
        if not 0 <= self.overlap < self.maximum // 2:
            raise ValueError("overlap must be >= 0 and under half of maximum")
        if self.unit not in ("chars", "tokens"):
            raise ValueError(f"unit must be chars or tokens, got {self.unit!r}")
        if (self.unit == "tokens") != (self.tokenizer is not None):
            raise ValueError('unit = "tokens" needs a tokenizer, and a tokenizer needs it')


BLOCKS = Packing(mode="blocks")
"""The extractors' own chunks, as extractors-v1 defines them."""

PiiMode = Literal["off", "mark", "redact", "pseudonymise"]
PII_MODES = ("off", "mark", "redact", "pseudonymise")


@dataclass(frozen=True, slots=True, kw_only=True)
class Hygiene:
    """What the pipeline adds to each document as it renders it (`indexer.hygiene`):
    extractors ignore it, and `extract()` returns their output whatever it says."""

    language: bool = False
    """Name each chunk's and document's language (`meta.language`, `metadata.language`)."""
    quality: bool = True
    """Score each document (`metadata.quality`)."""
    pii: PiiMode = "off"
    """Personal data in chunk texts: `off`, `mark` (offsets in `meta.pii`), `redact`
    (replaced by `[TYPE]`) or `pseudonymise` (by `[TYPE:token]`, a keyed hash)."""
    pii_key_env: str = "INDEXER_PII_KEY"
    """The environment variable holding the pseudonymisation key."""

    def __post_init__(self) -> None:
        if self.pii not in PII_MODES:
            raise ValueError(f"pii must be one of {PII_MODES}, got {self.pii!r}")


@dataclass(frozen=True, slots=True, kw_only=True)
class Options:
    """Options that change what an extractor produces (and so the cache key)."""

    rows_per_chunk: int = 20
    """CSV data rows per chunk, each chunk prefixed with the header line."""
    max_chunk_chars: int = 4000
    """No chunk is longer than this; longer ones are split at a boundary."""
    pdf_engine: PdfEngine = "pdfium"
    """`pdfium` (fast, reading order) or `pdfplumber` (tables as Markdown)."""
    max_sheet_cells: int = 2_000_000
    """A spreadsheet sheet whose cells pass this is cut to the rows that fit (degraded)."""
    packing: Packing = BLOCKS
    """How the pipeline packs a document's chunks (`indexer.chunking`); extractors
    ignore it, and `extract()` returns their own chunks whatever it says."""
    html_main_content: bool = True
    """Web pages: render only the main content (the article), not menus and footers."""
    html_mail_main_content: bool = False
    """HTML mail bodies: the same, for the `text/html` parts of a mail."""
    mail_keep_quotes: bool = False
    """Mail bodies as written, every paragraph `body`: quotes, signatures and forwarded
    messages not told apart from the sender's own text (`formats.eml.body`)."""
    containers: ContainerLimits = field(default_factory=ContainerLimits)
    """What an archive may unpack, and the globs its members must pass."""
    hygiene: Hygiene = field(default_factory=Hygiene)
    """Language, quality and personal data, added as documents are rendered; extractors
    ignore it (the cache keys add it, as they add `packing`)."""
    ocr_mode: OcrMode = "auto"
    """`auto`: OCR PDF pages without a text layer, and images, when an engine is installed;
    `off`: never; `force`: every PDF page, text layer or not."""
    ocr_engine: str = "tesseract"
    """The OCR engine (one of `OCR_ENGINES`)."""
    ocr_language: str = "eng"
    """The engine's language models, `+`-joined (`eng+deu`)."""
    ocr_dpi: int = 300
    """The resolution PDF pages are rendered at for OCR (scans above it are scaled down)."""
    ocr_page_timeout: float = 60.0
    """Seconds the engine may take on one page before that page fails."""
    ocr_max_pages: int = 100
    """A document's pages past this many that need OCR are not read (it is `degraded`)."""

    def __post_init__(self) -> None:
        if self.rows_per_chunk < 1:
            raise ValueError(f"rows_per_chunk must be >= 1, got {self.rows_per_chunk}")
        if self.max_chunk_chars < 64:
            raise ValueError(f"max_chunk_chars must be >= 64, got {self.max_chunk_chars}")
        if self.max_sheet_cells < 1:
            raise ValueError(f"max_sheet_cells must be >= 1, got {self.max_sheet_cells}")
        if self.pdf_engine not in ("pdfium", "pdfplumber"):
            raise ValueError(f"pdf_engine must be pdfium or pdfplumber, got {self.pdf_engine!r}")
        self._check_ocr()

    def _check_ocr(self) -> None:
        if self.ocr_mode not in ("auto", "off", "force"):
            raise ValueError(f"ocr_mode must be auto, off or force, got {self.ocr_mode!r}")
        if self.ocr_engine not in OCR_ENGINES:
            raise ValueError(f"ocr_engine must be one of {OCR_ENGINES}, got {self.ocr_engine!r}")
        if not _LANGUAGES.fullmatch(self.ocr_language):
            raise ValueError(f"ocr_language must be like eng or eng+deu, got {self.ocr_language!r}")
        if not 72 <= self.ocr_dpi <= 600:
            raise ValueError(f"ocr_dpi must be from 72 to 600, got {self.ocr_dpi}")
        if not 0 < self.ocr_page_timeout < 1e6:
            raise ValueError(f"ocr_page_timeout must be seconds > 0, got {self.ocr_page_timeout}")
        if self.ocr_max_pages < 1:
            raise ValueError(f"ocr_max_pages must be >= 1, got {self.ocr_max_pages}")

    def digest(self, names: tuple[str, ...] | None = None) -> str:
        """Return a short stable hash of these options (or only of `names`), for cache keys."""
        values = asdict(self)
        del values["packing"]  # not the extractors': the cache keys add it (`keys._digest`)
        del values["hygiene"]  # nor this: added at rendering, in the packing tag
        if names is not None:
            values = {name: values[name] for name in names}
        raw = orjson.dumps(values, option=orjson.OPT_SORT_KEYS)
        return hashlib.sha256(raw).hexdigest()[:16]


DEFAULT_OPTIONS = Options()


@dataclass(frozen=True, slots=True, kw_only=True)
class Chunk:
    """One piece of a document's text, with the structure it came from."""

    text: str
    """The chunk's text: never blank, at most `max_chunk_chars` characters."""
    meta: dict[str, Any] = field(default_factory=dict)
    """Where the chunk came from (`{"page": 3}`, `{"headings": [...]}`, ...).

    JSON-serialisable; its key order is fixed by the extractor, so it is stable.
    """

    def __reduce__(self) -> tuple[Any, ...]:
        # Results cross the process pool by the hundred thousand; the generated
        # slots pickling calls dataclasses.fields() per object.
        return (_chunk, (self.text, self.meta))


@dataclass(frozen=True, slots=True, kw_only=True)
class Extracted:
    """What an extractor made of one document."""

    kind: str
    """One of `KINDS`, or the kind of another registered extractor (`docx`, a plugin's)."""
    text: str
    """The document's whole clean text."""
    chunks: tuple[Chunk, ...] = ()
    """The document's chunks, in document order."""
    degraded: bool = False
    """True when the input did not parse as its format and a fallback was used."""
    error: str | None = None
    """Why the document could not be read (`timeout`, `encrypted`, `corrupt: <message>`),
    else None: a reason of `indexer.reasons`, whose status is the result's. Most are
    `failed`; `no_text` (a blank page, a deck without text) is `empty` and `ocr_off`
    `skipped`: the result keeps its marker chunk (extractors-v1, invariant 3), and a run
    writes no chunk for it."""
    metadata: dict[str, Any] = field(default_factory=dict)
    """Document-level facts: an HTML title, email headers, a PDF page count."""
    skipped: str | None = None
    """Why the extractor passed the document over (an image too small to hold text, no
    OCR engine installed), else None. A skipped document has no chunks."""

    def __reduce__(self) -> tuple[Any, ...]:
        return (
            _extracted,
            (
                self.kind, self.text, self.chunks, self.degraded, self.error, self.metadata,
                self.skipped,
            ),
        )  # fmt: skip

    @property
    def status(self) -> str:
        """`skipped`, `empty`, then the status of `error`'s reason (`failed`, `empty`,
        `skipped`), `degraded` or `ok`, in that order of precedence."""
        if self.skipped is not None:
            return "skipped"
        if not self.chunks:
            return "empty"
        if self.error is not None:
            return status_of(self.error)
        return "degraded" if self.degraded else "ok"


def make_chunk(text: str, meta: dict[str, Any]) -> Chunk:
    """`Chunk(text=text, meta=meta)`, cheaper: extractors make tens of thousands per
    document. It sets the slots directly, as unpickling does."""
    chunk = _new(Chunk)
    _set_text(chunk, text)
    _set_meta(chunk, meta)
    return chunk


def make_chunks(texts: Iterable[str], metas: Iterable[dict[str, Any]], n: int) -> tuple[Chunk, ...]:
    """`make_chunk` of the first `n` texts and metas, pairwise, looping in C.

    Sets the slots as `make_chunk` does, without its Python call per chunk: a
    JSON document can have tens of thousands.
    """
    chunks = tuple(map(_new, repeat(Chunk, n)))
    deque(map(_set_text, chunks, texts), maxlen=0)
    deque(map(_set_meta, chunks, metas), maxlen=0)
    return chunks


_new = object.__new__
_set_text = Chunk.__dict__["text"].__set__  # the slot descriptors
_set_meta = Chunk.__dict__["meta"].__set__
_chunk = make_chunk


def _extracted(
    kind: str,
    text: str,
    chunks: tuple[Chunk, ...],
    degraded: bool,
    error: str | None,
    metadata: dict[str, Any],
    skipped: str | None = None,
) -> Extracted:
    return Extracted(
        kind=kind, text=text, chunks=chunks, degraded=degraded, error=error, metadata=metadata,
        skipped=skipped,
    )  # fmt: skip
