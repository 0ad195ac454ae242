"""Run configuration: every option of `indexer run`, declared once.

Each key is one field of `Config`, whose metadata gives its TOML table, its check,
its comment in `configs/default.toml`, its command-line flag and whether it changes
the output bytes. `TABLES`, `OUTPUT_KEYS`, `FLAGS` and `render_defaults()` (the
text of `configs/default.toml`, compared by a test) are derived from those fields.
`load_config(path, overrides)` reads a TOML file, lays the command line's overrides
on top and returns a frozen `Config`; anything wrong raises `ConfigError` naming the
key, the bad value and what is allowed, before any work starts.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import MISSING, Field, asdict, dataclass, field, fields
from typing import Any, Literal

import orjson

from indexer._config_checks import (
    Check,
    boolean,
    choice,
    env_name,
    fraction,
    globs,
    integer,
    languages,
    matching,
    option,
    path_or_none,
    scheduler_address,
    seconds,
    words_per_shingle,
)
from indexer._limits import ContainerLimits
from indexer._types import PII_MODES, Hygiene, OcrMode, Options, Packing, PdfEngine, PiiMode
from indexer.errors import ConfigError
from indexer.procpool.cpus import usable_cpus
from indexer.sinks.base import SinkOptions

__all__ = [
    "FLAGS",
    "OUTPUT_KEYS",
    "TABLES",
    "Config",
    "ConfigError",
    "Flag",
    "load_config",
    "render_defaults",
]

MiB = 1024 * 1024


@dataclass(frozen=True, slots=True)
class Flag:
    """A command-line flag of `indexer run` that overrides one key."""

    flag: str
    """The flag, e.g. `--workers`."""
    key: str
    """The `Config` field it sets."""
    type: type | None
    """The argparse type of its value; None for a switch (`store_true`)."""
    help: str
    """Its one-line help."""


def _key(
    table: str,
    default: Any = MISSING,
    *,
    check: Check,
    doc: str,
    factory: Callable[[], Any] | None = None,
    output: bool = False,
    flag: str | None = None,
    flag_type: type | None = None,
    help: str = "",
    toml: str | None = None,
) -> Any:
    """Declare one key: its table, default, check, doc and (optionally) its CLI flag.

    `output` keys change the output bytes, so `Config.digest` covers them; `toml` is
    the value's text in the defaults file where it is not the default's own (`"auto"`),
    or a whole example line to show commented out (`# scheduler = ...`).
    """
    meta = {
        "table": table,
        "check": check,
        "doc": doc,
        "output": output,
        "flag": flag,
        "flag_type": flag_type,
        "help": help,
        "toml": toml,
    }
    if factory is not None:
        return field(default_factory=factory, metadata=meta)
    return field(default=default, metadata=meta)


def _names(key: str, value: Any) -> tuple[str, ...]:
    """A list of names, or one string of comma-separated names (the flag's form)."""
    names = value.split(",") if isinstance(value, str) else value
    if not isinstance(names, list | tuple) or not all(isinstance(n, str) for n in names):
        raise ConfigError(key, f"{key} = {value!r} is not allowed: expected a list of names")
    if any(not n.strip() for n in names):
        raise ConfigError(key, f"{key} = {value!r} is not allowed: a name is empty")
    return tuple(n.strip() for n in names)


_SINKS = SinkOptions()
"""The built-in sinks' defaults."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Config:
    """Every option of a run. Raises `ConfigError` for a bad value."""

    workers: int = _key(
        "run",
        factory=usable_cpus,
        check=integer(1, auto=True),
        toml='"auto"',
        doc='Extraction processes for everything but PDFs. "auto" = the CPUs this process may use.',
        flag="--workers",
        flag_type=int,
        help="extraction worker processes (default: all cores)",
    )
    pdf_workers: int = _key(
        "run",
        factory=usable_cpus,
        check=integer(1, auto=True),
        toml='"auto"',
        doc='Isolated processes that parse PDFs, one file at a time. "auto" = usable CPUs.',
        flag="--pdf-workers",
        flag_type=int,
        help="isolated PDF worker processes (default: all cores)",
    )
    max_failures: int = _key(
        "run",
        0,
        check=integer(0),
        doc="Exit 1 (output still complete and committed) when more documents than this failed.",
        flag="--max-failures",
        flag_type=int,
        help="failed documents tolerated before exit code 1",
    )
    batch_files: int = _key(
        "run",
        64,
        check=integer(1),
        doc="Small files are sent to a worker process in batches of at most this many files...",
    )
    batch_bytes: int = _key(
        "run",
        4 * MiB,
        check=integer(1),
        doc="...or this many bytes (4 MiB), whichever comes first: it amortises the round trip.",
    )
    window: int = _key(
        "run",
        1024,
        check=integer(1),
        doc="Reorder window, in documents: results arrive out of order and are written in walk\n"
        "order; peak memory is bounded by this window and the largest file.",
    )
    engine: Literal["local", "dask"] = _key(
        "run",
        "local",
        check=choice("local", "dask"),
        doc='"local" (this machine\'s processes) or "dask" (a dask.distributed cluster).',
        flag="--engine",
        flag_type=str,
        help="local (default) or dask",
    )
    scheduler: str | None = _key(
        "run",
        None,
        check=scheduler_address,
        toml='# scheduler = "tcp://127.0.0.1:8786"',
        doc='Address of the dask scheduler; only with engine = "dask". Unset: a local cluster.',
        flag="--scheduler",
        flag_type=str,
        help="dask scheduler address (default: a local cluster)",
    )
    worker_wait: float = _key(
        "run",
        60.0,
        check=seconds,
        doc="Seconds the dask engine waits for a worker, none connected yet or the last one gone,\n"
        "before the run fails (exit 3, nothing committed) rather than wait forever.",
    )
    partition_files: int = _key(
        "run",
        1024,
        check=integer(1),
        doc="The dask engine's unit of work: whole shards, cut at the first shard start once a\n"
        "partition holds this many walk entries... (speed only: any size, the same bytes)",
    )
    partition_bytes: int = _key(
        "run",
        64 * MiB,
        check=integer(1),
        doc="...or this many bytes of files (64 MiB), whichever comes first.",
    )
    quiet: bool = _key(
        "run",
        False,
        check=boolean,
        doc="No progress bar: only errors and the final summary line.",
        flag="--quiet",
        help="no progress bar; errors and summary only",
    )
    json: bool = _key(
        "run",
        False,
        check=boolean,
        doc="Print the final summary as JSON on stdout (for cron).",
        flag="--json",
        help="print the summary as JSON on stdout",
    )
    full: bool = _key(
        "run",
        False,
        check=boolean,
        doc="Re-extract everything, ignoring what an earlier run in OUT could be reused for.",
        flag="--full",
        help="re-extract everything",
    )
    allow_empty: bool = _key(
        "run",
        False,
        check=boolean,
        doc="Index a SOURCE folder that holds nothing at all even when OUT indexes documents.\n"
        "Off, such a run stops (exit 2) before committing: an unmounted archive would\n"
        "otherwise empty the index and list every document as removed.",
        flag="--allow-empty",
        help="index an empty SOURCE even when OUT indexes documents (off: exit 2)",
    )
    timeout: float = _key(
        "isolation",
        120.0,
        check=seconds,
        output=True,
        doc="The isolated workers' limits: every extractor marked isolated (PDF, Office, OCR,\n"
        "RTF, spreadsheets, images, plugins that ask for it) runs in a killable process.\n"
        "(A [pdf] table is read as this one, with a warning.)\n"
        "Wall-clock limit per isolated file, in seconds; past it the file is recorded as\n"
        "failed (timeout).",
        flag="--timeout",
        flag_type=float,
        help="seconds one isolated file (PDF, Office, OCR) may take before its worker is killed",
    )
    max_memory_mb: int = _key(
        "isolation",
        2048,
        check=integer(64),
        output=True,
        doc="Address-space cap per isolated worker, in MB; past it the file fails (out_of_memory).",
        flag="--max-memory",
        flag_type=int,
        help="address-space cap of an isolated worker, in MB",
    )
    recycle_after: int = _key(
        "isolation",
        1000,
        check=integer(1),
        doc="An isolated worker is replaced after parsing this many files, so leaks cannot\n"
        "pile up (the memory cap above still stops any one file; files go to a worker four\n"
        "per call, so it is replaced after at most this many). A replacement costs a few\n"
        "hundred ms of imports, so a small value slows PDF-heavy runs.",
    )
    include: tuple[str, ...] = _key(
        "walk",
        (),
        check=globs,
        output=True,
        doc="Globs a file's path (relative to SOURCE) must match; [] = every file. Gitignore-ish:\n"
        '"*.pdf" matches at any depth, "reports/**" everything under reports/, "/a.txt" only at '
        "the top.",
        flag="--include",
        flag_type=list,
        help="a glob files must match (repeatable; replaces the config's list)",
    )
    exclude: tuple[str, ...] = _key(
        "walk",
        (),
        check=globs,
        output=True,
        doc="Globs that exclude a file, or a whole directory (one record) when they match it.",
        flag="--exclude",
        flag_type=list,
        help="a glob of files or folders to leave out (repeatable; replaces the config's list)",
    )
    skip_hidden: bool = _key(
        "walk",
        True,
        check=boolean,
        output=True,
        doc='Pass over names starting with "." (.git, node_modules, __pycache__ and virtualenvs '
        "always are).",
    )
    max_file_bytes: int = _key(
        "walk",
        256 * MiB,
        check=integer(1),
        output=True,
        doc="Files larger than this many bytes (256 MiB) are recorded as skipped (too_large).",
    )
    rows_per_chunk: int = _key(
        "extract",
        20,
        check=option(int),
        output=True,
        doc="CSV data rows per chunk, each chunk prefixed with the header line.",
    )
    max_chunk_chars: int = _key(
        "extract",
        4000,
        check=option(int),
        output=True,
        doc="No chunk is longer than this many characters (at least 64).",
    )
    pdf_engine: PdfEngine = _key(
        "extract",
        "pdfium",
        check=option(str),
        output=True,
        doc='"pdfium" (fast, reading order) or "pdfplumber" (tables as Markdown).',
        flag="--pdf-engine",
        flag_type=str,
        help="pdfium (fast) or pdfplumber (tables as Markdown)",
    )
    max_sheet_cells: int = _key(
        "extract",
        2_000_000,
        check=option(int),
        output=True,
        doc="A spreadsheet sheet of more cells than this (rows x columns) is cut to the rows\n"
        "that fit, and its document recorded as degraded with a note: a reader holds every cell.",
    )
    chunking: Literal["packed", "blocks"] = _key(
        "chunking",
        "packed",
        check=choice("packed", "blocks"),
        output=True,
        doc='"packed": blocks joined to about chunk_target within a section, for retrieval;\n'
        '"blocks": the extractors\' own chunks, exactly (extractors-v1).',
        flag="--chunking",
        flag_type=str,
        help="packed (retrieval-sized chunks) or blocks (the extractors' own chunks)",
    )
    chunk_target: int = _key(
        "chunking",
        1200,
        check=integer(1),
        output=True,
        doc="A chunk is closed once the next block would take it past this size.",
    )
    chunk_max: int = _key(
        "chunking",
        2000,
        check=integer(1),
        output=True,
        doc="No chunk is larger (nor over max_chunk_chars characters); bigger blocks are cut\n"
        "at sentence, then word boundaries, tables repeating their header rows.",
    )
    chunk_min: int = _key(
        "chunking",
        300,
        check=integer(1),
        output=True,
        doc="A chunk smaller than this takes the next block even past the target.",
    )
    chunk_overlap: int = _key(
        "chunking",
        0,
        check=integer(0),
        output=True,
        doc="Characters (or tokens) of a chunk's end repeated at the next one's start.",
    )
    chunk_unit: Literal["chars", "tokens"] = _key(
        "chunking",
        "chars",
        check=choice("chars", "tokens"),
        output=True,
        doc='What sizes count: "chars", or "tokens" of the tokenizer below.',
    )
    tokenizer: str | None = _key(
        "chunking",
        None,
        check=path_or_none,
        output=True,
        toml='# tokenizer = "/models/bge-small/tokenizer.json"',
        doc='A local tokenizer.json (Hugging Face `tokenizers`), with chunk_unit = "tokens".',
    )
    chunk_prefix: bool = _key(
        "chunking",
        False,
        check=boolean,
        output=True,
        doc="Start each chunk's text with its document title and top heading (for embedding);\n"
        'meta "context" holds them either way.',
    )
    main_content: bool = _key(
        "html",
        True,
        check=boolean,
        output=True,
        doc="Web pages (.html .htm .xhtml): render only the main content (the article, without\n"
        "menus, footers, share bars, comments), links as their text. A page where no article\n"
        "is found with confidence is rendered whole. false: the whole page, links as Markdown.",
    )
    mail_main_content: bool = _key(
        "html",
        False,
        check=boolean,
        output=True,
        doc="The same for the HTML bodies of mails; off, a mail's HTML is rendered whole.",
    )
    keep_quotes: bool = _key(
        "mail",
        False,
        check=boolean,
        output=True,
        doc="Mail bodies as written: quoted replies, signatures and forwarded messages left in\n"
        "the body chunks. false: each in chunks of their own (meta.part quoted, signature,\n"
        "...; quoted text with meta.quoted = true, its > markers stripped).",
    )
    ocr_mode: OcrMode = _key(
        "ocr",
        "auto",
        check=option(str),
        output=True,
        doc="OCR of scanned PDF pages and of images (.png .jpg .jpeg .tif .tiff .bmp .gif .webp).\n"
        '"auto": only PDF pages without a text layer, and images, when an engine is installed;\n'
        '"off": never (scanned PDFs and images are skipped, ocr_off); "force": every\n'
        "PDF page, text layer or not. Without an installed engine, auto and force read nothing.",
        flag="--ocr",
        flag_type=str,
        help="OCR of scans and images: auto (default), off or force",
    )
    ocr_engine: str = _key(
        "ocr",
        "tesseract",
        check=option(str),
        output=True,
        doc='The engine: "tesseract" (the `tesseract` program on PATH; see docs/ocr.md).',
    )
    ocr_language: str = _key(
        "ocr",
        "eng",
        check=languages,
        output=True,
        doc='Its language models, read together: a list (["eng", "deu"]) or "+"-joined\n'
        '("eng+deu"). Each must be installed (Debian: tesseract-ocr-deu; scripts/install-ocr\n'
        "CONFIG installs those a config names); a missing one skips images and scans naming it.",
    )
    ocr_dpi: int = _key(
        "ocr",
        300,
        check=option(int),
        output=True,
        doc="PDF pages are rendered at this resolution for OCR (72-600); scans that are finer\n"
        "are scaled down to it, and a scan of at least 200 dpi is read at its own resolution.",
    )
    ocr_page_timeout: float = _key(
        "ocr",
        60.0,
        check=option(float),
        output=True,
        doc="Seconds the engine may take on one page; past it that page fails (the file's own\n"
        "[isolation] timeout still bounds the whole file).",
    )
    ocr_max_pages: int = _key(
        "ocr",
        100,
        check=option(int),
        output=True,
        doc="A document's pages past this many that need OCR are not read: it is degraded,\n"
        "with metadata.ocr.not_read (at about a second a page this fits the 120 s timeout).",
    )
    shard_bytes: int = _key(
        "output",
        64 * MiB,
        check=integer(1024),
        output=True,
        doc="A chunk shard rolls over before it would exceed this many bytes (64 MiB).",
    )
    shard_files: int = _key(
        "output",
        8192,
        check=integer(1),
        output=True,
        doc="A shard holds at most this many walk entries. Shards end after entries whose path\n"
        "hash has its low `shard_boundary_bits` bits zero (docs/architecture.md), so a file\n"
        "added or removed rewrites only its own shard, not every later one.",
    )
    shard_min_files: int = _key(
        "output",
        384,
        check=integer(1),
        output=True,
        doc="A shard ends at a boundary entry only once it holds this many walk entries\n"
        "(`shard_files` wins when it is smaller).",
    )
    shard_boundary_bits: int = _key(
        "output",
        7,
        check=integer(0),
        output=True,
        doc="One walk entry in 2**bits is a boundary entry (7: shards of ~512 entries on\n"
        "average with the default minimum, 384 to ~1,000); 0 makes every entry one. A\n"
        "minimum over 3x 2**bits makes shards more even but lets a change now and then\n"
        "move the cuts of several shards after its own (docs/architecture.md).",
    )
    sinks: tuple[str, ...] = _key(
        "output",
        (),
        check=_names,
        doc='Sinks applied after each commit, by name: "fts" (a full-text index in OUT/.sinks/,\n'
        'for `indexer search`), "postgres" (tables in a PostgreSQL database, [postgres]), or\n'
        "one an installed package adds (entry point group indexer.sinks). The commit never\n"
        "waits for them; a sink's failure is a warning and exit 1, with the output committed.",
        flag="--sink",
        flag_type=str,
        help='sinks to apply after the commit, comma-separated (e.g. "fts")',
    )
    postgres_dsn_env: str = _key(
        "postgres",
        _SINKS.postgres_dsn_env,
        check=matching(r"[A-Za-z_][A-Za-z0-9_]*", "an environment variable's name"),
        doc="The `postgres` sink connects with the libpq connection string in this environment\n"
        'variable (e.g. "postgresql://indexer@db.example/archive"). The config holds no\n'
        "password: put it in ~/.pgpass or PGPASSWORD, or in the variable (docs/sinks.md).",
    )
    postgres_schema: str = _key(
        "postgres",
        _SINKS.postgres_schema,
        check=matching(r"[a-z_][a-z0-9_]{0,62}", "a lower-case PostgreSQL name"),
        doc="The schema of the sink's tables (documents, chunks, meta); created if missing.",
    )
    postgres_language: str = _key(
        "postgres",
        _SINKS.postgres_language,
        check=matching(r"[a-z_][a-z0-9_]{0,62}", "a text search configuration's name"),
        doc='The text search configuration of chunks.tsv ("english", "simple", "german", ...);\n'
        "query with the same one. Changing it rebuilds the tables.",
    )
    max_unpacked_bytes: int = _key(
        "archive",
        256 * MiB,
        check=integer(1),
        output=True,
        doc="Bytes the archives (.zip, .tar, .tar.gz, .gz, ...) inside one file of the walk may\n"
        "unpack to in memory together (256 MiB): the file itself, what it holds at any depth,\n"
        "and every archive attached to one mail share it; nothing is unpacked to disk. Past\n"
        "it, or past max_members, the archive's record is skipped (unpacked_limit,\n"
        "member_limit) with the reason, after the members read before it.",
    )
    max_members: int = _key(
        "archive",
        10_000,
        check=integer(1),
        output=True,
        doc="Members the archives inside one file of the walk may hold together, at any depth.",
    )
    max_ratio: int = _key(
        "archive",
        100,
        check=integer(1),
        output=True,
        doc="Unpacked to packed size a member (or a compressed tar as a whole) may reach once\n"
        "past 1 MiB; a member beyond it is skipped (compression_ratio): a zip bomb's is in\n"
        "the thousands.",
    )
    max_depth: int = _key(
        "archive",
        3,
        check=integer(0),
        output=True,
        doc="Archives inside archives that are opened; one nested deeper is skipped (depth_limit).",
    )
    imap_ca_file: str | None = _key(
        "imap",
        None,
        check=path_or_none,
        toml='# imap_ca_file = "/etc/ssl/private-ca.pem"',
        doc="For SOURCE imaps://... (and imap://... upgraded by STARTTLS): a PEM file of the\n"
        "CAs to trust instead of the system's (a server with a private CA's certificate).\n"
        "Certificates are always verified.",
    )
    imap_starttls: str = _key(
        "imap",
        "auto",
        check=choice("auto", "require", "off"),
        doc="For SOURCE imap://...: auto upgrades the connection to TLS (STARTTLS) when the\n"
        "server offers it, before the login; require refuses a server that does not (exit\n"
        "2); off logs in unencrypted.",
    )
    imap_retries: int = _key(
        "imap",
        3,
        check=integer(0),
        doc="For an IMAP SOURCE: connections made again after one drops, before the run\n"
        "fails (exit 3, nothing committed).",
    )
    imap_backoff: float = _key(
        "imap",
        1.0,
        check=seconds,
        doc="Seconds before the first new connection after a drop; doubled before each next one.",
    )
    language: bool = _key(
        "hygiene",
        False,
        check=boolean,
        output=True,
        doc="Name each chunk's language (meta.language) and each document's, with a confidence\n"
        "and whether it is mixed (metadata.language); docs/hygiene.md. Off by default: it adds\n"
        "about 9% to a run's CPU (docs/hygiene.md, Cost; a corpus build turns it on).",
    )
    quality: bool = _key(
        "hygiene",
        True,
        check=boolean,
        output=True,
        doc="Score each document (metadata.quality: mojibake, junk, repetition, OCR confidence).",
    )
    pii: PiiMode = _key(
        "hygiene",
        "off",
        check=choice(*PII_MODES),
        output=True,
        doc='Personal data in chunk texts (e-mail, phone, IBAN, card, IP): "off", "mark" (offsets\n'
        'in meta.pii), "redact" ([EMAIL]) or "pseudonymise" ([EMAIL:token], keyed by pii_key_env).'
        '\nOff by default: "mark" adds about 8% to a run\'s CPU (docs/hygiene.md, Cost).',
    )
    pii_key_env: str = _key(
        "hygiene",
        "INDEXER_PII_KEY",
        check=env_name,
        doc='The environment variable holding the key of pii = "pseudonymise" (never written).',
    )
    exact: str = _key(
        "dedup",
        "drop",
        check=choice("drop", "mark", "off"),
        output=True,
        doc="Exact duplicates (docs/dedup.md): a document whose content, or whose normalised\n"
        'text, is an earlier one\'s in walk order names it in `duplicate_of`. "drop" writes\n'
        'no chunks for it, "mark" keeps them, "off" leaves every duplicate_of "".',
        flag="--exact-duplicates",
        flag_type=str,
        help="exact duplicates: drop (default), mark or off",
    )
    near: str = _key(
        "dedup",
        "off",
        check=choice("off", "mark", "drop"),
        output=True,
        doc='Near duplicates (word multisets, MinHash LSH for candidates): "mark" puts each\n'
        "document in the cluster of the first earlier one at least near_threshold similar\n"
        '(metadata.near_duplicate), "drop" also writes no chunks for those, "off" makes\n'
        "every document its own cluster. Costs a read of every chunk shard per run.",
        flag="--near-duplicates",
        flag_type=str,
        help="near duplicates: off (default), mark or drop",
    )
    near_threshold: float = _key(
        "dedup",
        0.8,
        check=fraction,
        output=True,
        doc="The Jaccard similarity of two documents' multisets of near_shingle-word\n"
        "shingles (of their words by default) from which one is the other's near duplicate.",
    )
    near_shingle: int = _key(
        "dedup",
        1,
        check=words_per_shingle,
        output=True,
        doc="Words per shingle (1 to 8): 1 compares the documents' words and how often each\n"
        "occurs; 3 or more also their order (an edit of 10% of the words is then below 0.8).",
    )
    boilerplate: int = _key(
        "dedup",
        0,
        check=integer(0),
        output=True,
        doc="Repeated paragraphs (disclaimers, footers): one of 8 words or more is indexed in\n"
        "at most this many documents, the first in walk order; later ones leave it out of\n"
        "their chunks (a quoted one, meta.quoted, once one document has it). 0 keeps all.",
        flag="--boilerplate",
        flag_type=int,
        help="index a repeated paragraph in at most N documents (default 0: all)",
    )

    def __post_init__(self) -> None:
        for f in _FIELDS:
            object.__setattr__(self, f.name, f.metadata["check"](f.name, getattr(self, f.name)))
        self.packing()  # refuses sizes that cannot work together, naming the key
        self._check_tokenizer()
        if self.pii == "pseudonymise" and not os.environ.get(self.pii_key_env):
            raise ConfigError(
                "pii",
                f"pii = 'pseudonymise' needs a key: set the variable {self.pii_key_env}",
            )
        if self.scheduler is not None and self.engine != "dask":
            raise ConfigError(
                "scheduler",
                f"scheduler = {self.scheduler!r} is only used with engine = 'dask', "
                f"but engine = {self.engine!r}: drop it or set engine = 'dask'",
            )

    def extract_options(self) -> Options:
        """Return the extraction options these settings imply."""
        return Options(
            rows_per_chunk=self.rows_per_chunk,
            max_chunk_chars=self.max_chunk_chars,
            pdf_engine=self.pdf_engine,
            max_sheet_cells=self.max_sheet_cells,
            packing=self.packing(),
            html_main_content=self.main_content,
            html_mail_main_content=self.mail_main_content,
            mail_keep_quotes=self.keep_quotes,
            containers=ContainerLimits(
                include=self.include,
                exclude=self.exclude,
                max_member_bytes=self.max_file_bytes,
                max_unpacked_bytes=self.max_unpacked_bytes,
                max_members=self.max_members,
                max_ratio=self.max_ratio,
                max_depth=self.max_depth,
            ),
            ocr_mode=self.ocr_mode,
            ocr_engine=self.ocr_engine,
            ocr_language=self.ocr_language,
            ocr_dpi=self.ocr_dpi,
            ocr_page_timeout=self.ocr_page_timeout,
            ocr_max_pages=self.ocr_max_pages,
            hygiene=Hygiene(
                language=self.language,
                quality=self.quality,
                pii=self.pii,
                pii_key_env=self.pii_key_env,
            ),
        )

    def packing(self) -> Packing:
        """Return the chunk packing these settings ask for; raises `ConfigError`."""
        try:
            return Packing(
                mode=self.chunking,
                target=self.chunk_target,
                maximum=self.chunk_max,
                minimum=self.chunk_min,
                overlap=self.chunk_overlap,
                unit=self.chunk_unit,
                tokenizer=self.tokenizer,
                prefix=self.chunk_prefix,
            )
        except ValueError as exc:
            raise ConfigError("chunking", _packing_error(self, str(exc))) from exc

    def _check_tokenizer(self) -> None:
        """Refuse a tokenizer that is missing, too large or not loadable: at startup,
        exit 2, not an exception out of the first document packed."""
        if self.tokenizer is not None and not os.path.isfile(self.tokenizer):
            raise ConfigError("tokenizer", f"tokenizer = {self.tokenizer!r}: no such file")
        if self.tokenizer is not None and self.chunking == "packed":
            from indexer.chunking import tokenizer_problem

            if problem := tokenizer_problem(self.tokenizer):
                raise ConfigError("tokenizer", f"tokenizer = {self.tokenizer!r}: {problem}")

    def digest(self) -> str:
        """Return the sha256 (hex) of the settings that can change the output bytes.

        Those are the keys declared `output=True`: the extraction options, the walk's
        filters, the shard settings, and `timeout` and `max_memory_mb` (when they
        trigger, a PDF's record reads `failed`); not the chunking keys with
        `chunking = "blocks"`, nor the near-duplicate keys with `near = "off"`. Settings
        that change only speed or reporting are left out, so `--workers 1` and
        `--workers 16` give one digest.
        """
        values = asdict(self)
        keys = [k for k in OUTPUT_KEYS if self.chunking == "packed" or k not in _PACKING_KEYS]
        if self.near == "off":  # they change nothing then
            keys = [k for k in keys if k not in _NEAR_KEYS]
        picked = {k: values[k] for k in keys}
        if self.near != "off":  # a new clustering re-decides an unchanged tree's output
            picked["near_version"] = NEAR_VERSION
        raw = orjson.dumps(picked, option=orjson.OPT_SORT_KEYS)
        return hashlib.sha256(raw).hexdigest()


_PACKING_NAMES = {
    "mode": "chunking", "target": "chunk_target", "maximum": "chunk_max",
    "minimum": "chunk_min", "overlap": "chunk_overlap", "unit": "chunk_unit",
}  # fmt: skip
"""`Packing`'s field names, as the keys a user writes."""


def _packing_error(config: Config, message: str) -> str:
    """`Packing`'s refusal in the user's words: the keys it names, with their values."""
    named = [k for f, k in _PACKING_NAMES.items() if re.search(rf"\b{f}\b", message)]
    for field_name, key in _PACKING_NAMES.items():
        message = re.sub(rf"\b{field_name}\b", key, message)
    values = ", ".join(f"{k} = {getattr(config, k)!r}" for k in named)
    return f"[chunking] {values}: {message}" if values else f"[chunking]: {message}"


_FIELDS: tuple[Field[Any], ...] = fields(Config)

TABLES: dict[str, tuple[str, ...]] = {}
"""Which TOML table holds each key, in declaration order."""
for _f in _FIELDS:
    TABLES[_f.metadata["table"]] = (*TABLES.get(_f.metadata["table"], ()), _f.name)

NEAR_VERSION = 2
"""The near-duplicate clustering's version (`pipeline/output/dedup/near.py`), in the
digest of a config with near duplicates on: 2 compares word multisets by their exact
Jaccard similarity, 1 estimated that of 3-word shingle sets."""

OUTPUT_KEYS: tuple[str, ...] = tuple(f.name for f in _FIELDS if f.metadata["output"])
"""The keys `Config.digest` covers."""

FLAGS: tuple[Flag, ...] = tuple(
    Flag(f.metadata["flag"], f.name, f.metadata["flag_type"], f.metadata["help"])
    for f in _FIELDS
    if f.metadata["flag"]
)
"""`indexer run`'s flags, each overriding one key."""

_PACKING_KEYS = frozenset(TABLES["chunking"])
"""With chunking = "blocks" these change nothing, so the digest leaves them out."""
_NEAR_KEYS = frozenset(("near_threshold", "near_shingle"))
"""With near = "off" these change nothing, so the digest leaves them out."""

_TABLE_OF = {key: table for table, keys in TABLES.items() for key in keys}

_HEADER = """\
# indexer run: every configuration key, with its default.
#
# Use:  indexer run SOURCE --out OUT --config my.toml
# Flags on the command line override this file. A key that is unknown, in the
# wrong table, of the wrong type or out of range stops the run before any work
# (exit 2) with a message naming it. This file is generated from indexer/config.py
# (`render_defaults()`) and a test checks it, so what you read here is what you get.
"""


def render_defaults() -> str:
    """Return the text of `configs/default.toml`: every key, its comment and its default."""
    lines = [_HEADER]
    for table, keys in TABLES.items():
        lines.append(f"[{table}]")
        for f in (f for f in _FIELDS if f.name in keys):
            lines.extend(f"# {line}" for line in f.metadata["doc"].splitlines())
            toml = f.metadata["toml"]
            if toml is not None and toml.startswith("#"):
                lines.append(toml)
            else:
                lines.append(f"{f.name} = {toml or _toml_value(f.default)}")
        lines.append("")
    return "\n".join(lines)


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, tuple):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, str):
        return orjson.dumps(value).decode()
    return str(value)


def load_config(path: str | os.PathLike[str] | None, overrides: Mapping[str, object]) -> Config:
    """Return the defaults, overlaid by the TOML file at `path`, overlaid by `overrides`.

    `overrides` are flat keys (the CLI's flags); a None value means "not given".
    Raises `ConfigError` for an unreadable or malformed file (key `config`), an
    unknown key, a key in the wrong table, a wrong type or a value out of range.
    """
    values = _read_file(path) if path is not None else {}
    for key, value in overrides.items():
        if key not in _TABLE_OF:
            raise ConfigError(key, f"unknown option {key!r}{_did_you_mean(key)}")
        if value is not None:
            values[key] = value
    return Config(**values)


def _read_file(path: str | os.PathLike[str]) -> dict[str, Any]:
    import tomllib  # here: most runs have no config file to pay its import for

    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except OSError as exc:
        raise ConfigError(
            "config", f"cannot read config file {os.fsdecode(path)!r}: {exc}"
        ) from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError("config", f"config file {os.fsdecode(path)!r}: {exc}") from exc
    except UnicodeDecodeError as exc:  # TOML is UTF-8; tomllib raises this outside its errors
        raise ConfigError(
            "config", f"config file {os.fsdecode(path)!r} is not UTF-8 (byte {exc.start})"
        ) from exc
    values: dict[str, Any] = {}
    data = _renamed(data, os.fsdecode(path))
    for table, body in data.items():
        if table not in TABLES:
            raise _misplaced(table)
        if not isinstance(body, dict):
            raise ConfigError(table, f"[{table}] must be a table, got {body!r}")
        for key, value in body.items():
            if _TABLE_OF.get(key) != table:
                raise _misplaced(key, table)
            values[key] = value
    return values


_OLD_TABLES = {"pdf": "isolation"}
"""Tables renamed for what they govern: the old name is still read, with one warning."""


def _renamed(data: dict[str, Any], path: str) -> dict[str, Any]:
    """`data` with each old table's keys read into its new table (one warning per file)."""
    old = [t for t in _OLD_TABLES if isinstance(data.get(t), dict)]
    if not old:
        return data
    import logging  # here: only an old config file pays for it

    logging.getLogger("indexer").warning(
        "%s: %s read as %s (they govern every isolated extractor); rename the tables",
        path, ", ".join(f"[{t}]" for t in old), ", ".join(f"[{_OLD_TABLES[t]}]" for t in old),
    )  # fmt: skip
    merged = {t: b for t, b in data.items() if t not in old}
    for table in old:
        new = _OLD_TABLES[table]
        body = merged.get(new)
        merged[new] = {**data[table], **(body if isinstance(body, dict) else {})}
    return merged


def _misplaced(key: str, table: str | None = None) -> ConfigError:
    where = f"[{table}] {key}" if table else key
    if key in _TABLE_OF:
        return ConfigError(key, f"{where}: this key belongs in the [{_TABLE_OF[key]}] table")
    tables = ", ".join(f"[{t}]" for t in TABLES)
    hint = _did_you_mean(key) or f"; the tables are {tables}"
    return ConfigError(key, f"unknown config table or key {where!r}{hint}")


def _did_you_mean(key: str) -> str:
    import difflib  # here: only a mistake pays for its import

    close = difflib.get_close_matches(key, [*_TABLE_OF, *TABLES], n=1)
    return f"; did you mean {close[0]!r}?" if close else ""
