"""What an extractor declares about itself (`ExtractorSpec`), and dispatch by extension.

Below the registry and the formats alike, so the built-ins can declare their specs
without importing the registry that loads them.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, BinaryIO

from indexer._limits import ContainerLimits
from indexer._pickling import slotted_state
from indexer._types import Extracted, Options

if TYPE_CHECKING:
    from indexer.formats.archive.budget import Budget

__all__ = [
    "CONTEXT_CHARS",
    "ChildrenFn",
    "ChunkerFn",
    "ExtractorFn",
    "ExtractorSpec",
    "Held",
    "Listing",
    "ListsFn",
    "Nesting",
    "extension_of",
]

ExtractorFn = Callable[[bytes, str, Options], Extracted]
ChunkerFn = Callable[[str, Options], Extracted]

CONTEXT_CHARS = 1000
"""The most characters of one value a container passes to its children (`Held.context`):
a 2 MB Subject is not copied into every chunk of every attachment."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Held:
    """A document a container holds, as its reader found it (see `ChildrenFn`)."""

    path: str
    """Where it is inside its container, `/`-separated (`att/2/report.pdf`, `docs/a.txt`),
    printable, a backslash only in a `\\xNN` escape: its record path is the container's,
    `#`, and this with each `#` written `\\x23`."""
    name: str
    """The name its extractor is chosen by (its extension) and given."""
    data: bytes | None
    """Its content; None when it was not read (`problem` says why)."""
    size: int
    content_type: str = ""
    """Its declared MIME type: the extractor is chosen by it when no extension claims `name`
    (or when `typed`); a type nothing claims is `skipped`."""
    typed: bool = False
    """Choose by `content_type` even when an extension claims `name` (the bytes are not
    what the name says: `report.xml.gz` that is no gzip)."""
    context: Mapping[str, Any] | None = None
    """What the container knows that its descendants' chunks carry as `meta.mail` (each
    value at most `CONTEXT_CHARS`); None: the container's own context passes on."""
    problem: str | None = None
    """Why the reader passed it over (an unsafe name, a link, a limit): a `skipped` record."""
    damaged: bool = False
    """It could not be read whole: a `failed` record naming `problem`."""


@slotted_state
@dataclass(frozen=True, slots=True, kw_only=True)
class Nesting:
    """Where a container being opened sits, and what everything inside it shares.

    One is made per document of the walk (`top`); each level below gets a copy one
    deeper. The `budget` object is the same for every descendant of that document, so
    three zips attached to one mail share one unpacking budget.
    """

    path: str
    """The container's citation path (a record path)."""
    depth: int = 0
    """Containers around it (0: a file of the walk)."""
    limits: ContainerLimits
    budget: Budget
    """What the descendants of the top-level document may still unpack, together."""
    context: Mapping[str, Any] = field(default_factory=dict)
    """The enclosing mail's headers, for its descendants' chunks (`Held.context`)."""

    @staticmethod
    def top(path: str, limits: ContainerLimits) -> Nesting:
        """The nesting of a document of the walk at `path`: depth 0, a fresh budget."""
        # The unpacking budget is the archive reader's (it charges what it unpacks); it is
        # imported here, late, because the formats import this module.
        from indexer.formats.archive.budget import Budget

        return Nesting(path=path, limits=limits, budget=Budget(limits))


ChildrenFn = Callable[[bytes, str, Options, Nesting], Generator[Held, None, Extracted]]
"""A container's reader `(data, path, options, nesting)`: yields what `data` holds, in
order, a child at a time (each is extracted before the next is read), and returns the
container's own document (which may tell what was read: an archive's member list).
It replaces `extract` when the pipeline opens a container; an exception it raises makes
the container `failed`, the children yielded before it kept."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Listing:
    """A file whose documents the walk lists as entries of their own (a mailbox): what
    its extractor's `lists` is given."""

    rel: str
    """Its record path."""
    path: bytes | None
    """A local file to open, for a reader that needs one (libpff); None when the source
    is not local (then only `open` reads it)."""
    size: int
    open: Callable[[], BinaryIO]
    """Its bytes, as a stream (the source's `open`); raises OSError."""
    max_bytes: int
    """The largest document to read whole (`max_file_bytes`)."""


ListsFn = Callable[[Listing], Iterator[Held]]
"""A mailbox's lister: yields what the file holds, in order, one `Held` at a time (its
`path` the part after `#` in the record path; `damaged` with a `problem` for one that
could not be read: an `unreadable` record). Never raises: a failure to read the file
is one last damaged `Held`."""


# Slot-wise pickling: a PDF's job carries its spec through the pipe on every call.
@slotted_state
@dataclass(frozen=True, slots=True, kw_only=True)
class ExtractorSpec:
    """One registered extractor and what it declares about itself."""

    name: str
    """Unique name, e.g. `pdf`; also the cache key's extractor part."""
    kind: str
    """The `kind` tag its documents carry."""
    extensions: tuple[str, ...]
    """Lower-case extensions without the dot. Empty for the fallback (`text`)."""
    version: str
    """Bumped whenever its output changes; incremental runs re-extract on change."""
    extract: ExtractorFn
    """The extractor itself."""
    chunker: ChunkerFn | None = None
    """Text-to-chunks form, for text-based formats; None for binary ones."""
    isolated: bool = False
    """Run each document in the isolated process pool (timeout, memory cap)."""
    builtin: bool = False
    """True for the extractors shipped with indexer."""
    fallback: bool = False
    """Used for every path no other extractor claims (exactly one may be)."""
    options_used: tuple[str, ...] | None = None
    """The `Options` fields its output depends on; None means all of them. Incremental
    runs re-extract a document only when one of these (or `version`) changes."""
    mime_types: tuple[str, ...] = ()
    """MIME types it reads (`type/*` for a whole family), for a mail's attachments whose
    name no extension claims."""
    children: ChildrenFn | None = None
    """Set for a container: what it holds becomes child documents (see `ChildrenFn`)."""
    folder: bool = False
    """Its children are judged as files in a folder, by the walk's rules: its globs (the
    container read as a folder), binary sniffing; the walk lets it in for its members."""
    max_depth: int | None = None
    """Containers of its kind nested deeper are `skipped` (`depth_limit`); None: the
    `max_depth` of `ContainerLimits`."""
    lists: ListsFn | None = None
    """Set for a mailbox: the walk lists what the file holds as entries of their own,
    after the file's own record, so that a file of many GB streams and each message
    is stored and reused on its own; the file is never `too_large` nor sniffed.
    `extract` (a direct `indexer.extract` call) reads it whole."""
    file_names: tuple[str, ...] = ()
    """Whole lower-case file names it claims besides its extensions (`mbox`)."""


def extension_of(path: str) -> str:
    """Return the lower-cased ASCII extension of `path`'s last component, or ''.

    A dotfile with no other dot (`.json`), a name with no dot and a trailing dot
    all have no extension; a non-ASCII extension matches nothing.
    """
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    stem, dot, ext = name.rpartition(".")
    if not dot or not stem or not ext.isascii():
        return ""
    return ext.lower()
