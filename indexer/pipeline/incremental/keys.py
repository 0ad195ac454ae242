"""Which extractor a walk entry goes to, and the key its output is stored under.

Kept apart from the extraction machinery (process pools, extractor modules), so
that a re-run over an unchanged tree can check its keys' settings without importing it.
"""

from __future__ import annotations

import hashlib

from indexer._types import Options
from indexer._version import OUTPUT_FORMAT
from indexer.chunking import VERSION as PACKER_VERSION
from indexer.config import Config
from indexer.hygiene import tag as hygiene_tag
from indexer.pipeline.incremental.limits import CLAIMS, LIMITS, general_limits
from indexer.pipeline.walk.walker import Entry
from indexer.registry import ExtractorSpec, Registry, extension_of

MESSAGE = "message/rfc822"
"""What a Maildir, mbox or Outlook mailbox message is: a MIME mail."""


def spec_for(registry: Registry, entry: Entry) -> ExtractorSpec:
    """The extractor of a walk entry: for a mailbox's message (its bytes in `data`, or a
    Maildir file) the one declaring `message/rfc822` (eml), else by path."""
    if entry.mail or entry.data is not None:
        spec = registry.for_type(MESSAGE)
        if spec is not None:
            return spec
    return registry.for_path(entry.rel)


def cache_key(sha256: str, extractor: str, digest: str) -> str:
    """The cache key of an extractor's result on content `sha256` (see `BatchExtractor`)."""
    return f"{sha256}:{extractor}:{digest}"


class CacheKeys:
    """The cache keys of this run's options: what a stored output is valid under."""

    def __init__(self, config: Config, registry: Registry) -> None:
        options = config.extract_options()
        limits = f"{config.timeout:g}s/{config.max_memory_mb}MB"
        self.digests = {spec.name: _digest(options, spec, limits) for spec in registry.extractors()}
        """Per extractor name, the digest of its version and the options it uses."""
        self.digests[LIMITS] = general_limits(config)  # what general workers' failures depend on
        self.digests[CLAIMS] = registry.claims()  # what unread attachments depend on
        self.tag = packing_tag(options)
        """The packing a stored output's documents must be rendered under to be written
        as they are; under another, they are re-packed from its blocks."""

    def key(self, sha256: str, spec: ExtractorSpec, entry: Entry) -> str:
        """The cache key of `spec`'s output on content `sha256` under this run's options.

        The extension is part of it: extractors read some by it (`.jsonl`, `.tsv`).
        Messages of an mbox or a Maildir are all `eml`, whatever their position.
        """
        ext = "eml" if entry.mail or entry.data is not None else extension_of(entry.rel)
        return f"{cache_key(sha256, spec.name, self.digests[spec.name])}:{ext}"

    def digest(self) -> str:
        """One digest of every extractor's `digests` entry and the packing: equal digests,
        equal keys and output rendered alike."""
        raw = "\n".join(f"{name}={digest}" for name, digest in sorted(self.digests.items()))
        raw += f"\npacking={self.tag}"
        return hashlib.sha256(raw.encode()).hexdigest()

    def limits_dep(self) -> str:
        """What a general worker's output depends on when its limits made it fail: a
        dependency in the form of a cache key, checked by `current` like an attachment's."""
        return cache_key("limits", LIMITS, self.digests[LIMITS])

    def current(self, deps: tuple[str, ...]) -> bool:
        """True when every attachment of a stored mail was extracted under today's key."""
        for dep in deps:
            extractor, _, digest = dep.split(":", 1)[-1].partition(":")
            if self.digests.get(extractor) != digest:
                return False
        return True


def packing_tag(options: Options) -> str:
    """What rendered chunks depend on besides the blocks: the records' format, and for
    packed ones the settings, the packer's version, the size no chunk may pass and the
    tokenizer's file, by content; and the `[hygiene]` annotations (`hygiene.tag`)."""
    packing = options.packing
    if packing.mode == "blocks":
        return f"blocks|format.{OUTPUT_FORMAT}|{hygiene_tag(options.hygiene)}"
    tag = f"{packing!r}|{options.max_chunk_chars}|packer.{PACKER_VERSION}|format.{OUTPUT_FORMAT}"
    tag += f"|{hygiene_tag(options.hygiene)}"
    return tag if packing.tokenizer is None else f"{tag}|{_file_digest(packing.tokenizer)}"


def _file_digest(path: str) -> str:
    """A short hash of the file at `path` (a tokenizer edited in place counts)."""
    try:
        with open(path, "rb") as handle:
            return hashlib.file_digest(handle, "sha256").hexdigest()[:16]
    except OSError as exc:  # the packer meets it too, and says so
        return f"unreadable: {exc.strerror}"


def _digest(options: Options, spec: ExtractorSpec, limits: str) -> str:
    """Only the options the extractor declares it uses count, plus the isolation limits
    for isolated extractors, so changing `rows_per_chunk` re-extracts CSV files and
    nothing else; the packing is not in it (`packing_tag`). Extractors that use OCR
    count the installed engine's version too. A stored mail also records its
    attachments' keys and is reused only while they all still hold (`CacheKeys.current`)."""
    # The output format too: a stored output is rendered records, re-rendered when it changes
    raw = options.digest(spec.options_used) + f"|{spec.version}|{OUTPUT_FORMAT}"
    if spec.isolated:
        raw += f"|{limits}"
    if options.ocr_mode != "off" and "ocr_engine" in (spec.options_used or ("ocr_engine",)):
        # Which engine (and version) is installed decides what a scan reads as: installing
        # or upgrading it re-extracts the documents that use OCR.
        from indexer.formats.ocr import identity

        raw += f"|{identity(options.ocr_engine)}"
    return hashlib.sha256(raw.encode()).hexdigest()[:16]
