"""The extractor registry: dispatch by extension, for built-ins and plugins alike.

Built-in extractors register through `Registry.register` exactly as a third-party
one does; plugins are found through the `indexer.extractors` entry point group,
whose objects are `ExtractorSpec` instances (or callables returning one or a
sequence of them). A container format (one whose documents hold documents) is an
extractor with `children` set: the pipeline nests what it yields, nothing else to wire.

An extractor is a plain module-level function `(data, path, options) -> Extracted`.
It must be importable by reference, because the pipeline sends it to worker
processes by pickling.
"""

from __future__ import annotations

import hashlib
import logging
import os
import sys
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import replace

from indexer._spec import (
    ChildrenFn,
    ChunkerFn,
    ExtractorFn,
    ExtractorSpec,
    Held,
    Listing,
    ListsFn,
    Nesting,
    extension_of,
)
from indexer._types import Options
from indexer.errors import RegistryError

__all__ = [
    "ENTRY_POINT_GROUP",
    "ChildrenFn",
    "ChunkerFn",
    "ExtractorFn",
    "ExtractorSpec",
    "Held",
    "Listing",
    "ListsFn",
    "Nesting",
    "Registry",
    "RegistryError",
    "active_registry",
    "default_registry",
    "dispatching",
    "extension_of",
    "register",
]

log = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "indexer.extractors"


class Registry:
    """Extractors by name and by extension."""

    def __init__(self) -> None:
        self._by_name: dict[str, ExtractorSpec] = {}
        self._by_ext: dict[str, str] = {}
        self._by_type: dict[str, str] = {}
        self._by_file_name: dict[str, str] = {}
        self._fallback: str | None = None

    def register(self, spec: ExtractorSpec, *, replace_existing: bool = False) -> ExtractorSpec:
        """Add `spec`; return it.

        Raises `RegistryError` when its name, an extension or a MIME type is taken
        (unless `replace_existing`: then it takes them over), or when the spec is
        malformed.
        """
        _validate(spec)
        if not replace_existing:
            self._check_free(spec)
        old = self._by_name.pop(spec.name, None)
        if old is not None:
            self._forget(old)
        self._by_name[spec.name] = spec
        for ext in spec.extensions:
            self._by_ext[ext] = spec.name
        for mime in spec.mime_types:
            self._by_type[mime] = spec.name
        for file_name in spec.file_names:
            self._by_file_name[file_name] = spec.name
        if spec.fallback:
            self._fallback = spec.name
        return spec

    def _check_free(self, spec: ExtractorSpec) -> None:
        if spec.name in self._by_name:
            raise RegistryError(f"an extractor named {spec.name!r} is already registered")
        for ext in spec.extensions:
            if ext in self._by_ext:
                raise RegistryError(f".{ext} is already handled by {self._by_ext[ext]!r}")
        for mime in spec.mime_types:
            if mime in self._by_type:
                raise RegistryError(f"{mime} is already handled by {self._by_type[mime]!r}")
        for file_name in spec.file_names:
            if file_name in self._by_file_name:
                taken = self._by_file_name[file_name]
                raise RegistryError(f"files named {file_name} are already handled by {taken!r}")
        if spec.fallback and self._fallback is not None:
            raise RegistryError(f"the fallback extractor is already {self._fallback!r}")

    def _forget(self, spec: ExtractorSpec) -> None:
        for ext in spec.extensions:
            if self._by_ext.get(ext) == spec.name:
                del self._by_ext[ext]
        for mime in spec.mime_types:
            if self._by_type.get(mime) == spec.name:
                del self._by_type[mime]
        for file_name in spec.file_names:
            if self._by_file_name.get(file_name) == spec.name:
                del self._by_file_name[file_name]
        if self._fallback == spec.name:
            self._fallback = None

    def get(self, name: str) -> ExtractorSpec:
        """Return the extractor called `name`; raises KeyError."""
        return self._by_name[name]

    def for_path(self, path: str) -> ExtractorSpec:
        """Return the extractor for `path` by extension, else the fallback.

        Raises `RegistryError` when nothing claims the path and there is no fallback.
        """
        name = self._claimant(path) or self._fallback
        if name is None:
            raise RegistryError(f"no extractor for {path!r} and no fallback registered")
        return self._by_name[name]

    def _claimant(self, path: str) -> str | None:
        """The extractor claiming `path` by its whole file name, else by its extension."""
        if self._by_file_name:
            file_name = path.replace("\\", "/").rsplit("/", 1)[-1].lower()
            if file_name in self._by_file_name:
                return self._by_file_name[file_name]
        return self._by_ext.get(extension_of(path))

    def handles(self, path: str) -> bool:
        """True when an extractor claims `path` by its extension or name (not the fallback)."""
        return self._claimant(path) is not None

    def lister(self, path: str) -> ExtractorSpec | None:
        """The extractor that lists what the file at `path` holds (a mailbox:
        `ExtractorSpec.lists`), or None."""
        name = self._claimant(path)
        spec = None if name is None else self._by_name[name]
        return spec if spec is not None and spec.lists is not None else None

    def streams(self, path: str) -> bool:
        """True when the file at `path` is read as a stream of documents (`lister`):
        never too large for the walk."""
        return self.lister(path) is not None

    def for_type(self, content_type: str) -> ExtractorSpec | None:
        """The extractor declaring the MIME type `content_type` (else its `type/*`), or None."""
        name = self._by_type.get(content_type)
        if name is None:
            name = self._by_type.get(content_type.partition("/")[0] + "/*")
        return None if name is None else self._by_name.get(name)

    def extractors(self) -> tuple[ExtractorSpec, ...]:
        """All extractors, sorted by name."""
        return tuple(self._by_name[n] for n in sorted(self._by_name))

    def chunkers(self) -> tuple[ExtractorSpec, ...]:
        """The extractors that also offer a text-to-chunks form, sorted by name."""
        return tuple(s for s in self.extractors() if s.chunker is not None)

    def claims(self) -> str:
        """A digest of what is claimed by whom (extensions, MIME types, file names, the
        fallback): it changes when an extractor that reads something new is added, which
        a stored mail whose attachment nothing read depends on."""
        raw = repr(
            [sorted(self._by_ext.items()), sorted(self._by_type.items()),
             sorted(self._by_file_name.items()), self._fallback]
        )  # fmt: skip
        return hashlib.sha256(raw.encode()).hexdigest()[:16]

    def copy(self) -> Registry:
        """Return an independent registry with the same extractors."""
        other = Registry()
        other._by_name = dict(self._by_name)
        other._by_ext = dict(self._by_ext)
        other._by_type = dict(self._by_type)
        other._by_file_name = dict(self._by_file_name)
        other._fallback = self._fallback
        return other


def _validate(spec: ExtractorSpec) -> None:
    if not spec.name or not spec.kind or not spec.version:
        raise RegistryError(f"extractor spec needs a name, kind and version: {spec!r}")
    for ext in spec.extensions:
        if not ext or ext.startswith(".") or ext != ext.lower() or not ext.isascii():
            raise RegistryError(
                f"extension {ext!r} of {spec.name!r} must be lower-case ASCII, no dot"
            )
    if not callable(spec.extract):
        raise RegistryError(f"extractor {spec.name!r} has no callable extract")
    if spec.children is not None and not callable(spec.children):
        raise RegistryError(f"extractor {spec.name!r} has children that are not callable")
    if spec.lists is not None and not callable(spec.lists):
        raise RegistryError(f"extractor {spec.name!r} has a lister that is not callable")
    for file_name in spec.file_names:
        if not file_name or "/" in file_name or file_name != file_name.lower():
            raise RegistryError(f"file name {file_name!r} of {spec.name!r} must be lower-case")
    known = set(Options.__dataclass_fields__)
    unknown = sorted(set(spec.options_used or ()) - known)
    if unknown:
        raise RegistryError(f"extractor {spec.name!r} names unknown options {unknown}")


def _load_plugins(registry: Registry) -> None:
    if not _may_declare_plugins():
        return
    from importlib.metadata import entry_points  # a costly import: only when needed

    for ep in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
        try:
            loaded = ep.load()
            specs = (
                loaded() if callable(loaded) and not isinstance(loaded, ExtractorSpec) else loaded
            )
            for spec in _as_specs(specs):
                registry.register(replace(spec, builtin=False))
        except Exception as exc:  # a broken plugin must not take the tool down
            log.warning("skipping extractor plugin %s: %s", ep.name, exc)


def _may_declare_plugins() -> bool:
    """False only when no installed distribution can declare our entry point group.

    Importing `importlib.metadata` is a large part of a cron re-run over an unchanged
    tree, and most installations have no plugin. So look first, the way its
    path finder would: every `entry_points.txt` of a `*.dist-info`, `*.egg-info` or
    `EGG-INFO` folder in a `sys.path` directory. Anything this cannot see (a zip on
    `sys.path`, another finder that provides distributions) means True, and the real
    lookup decides; so does any file that merely mentions the group's name.
    """
    from importlib.machinery import PathFinder

    if any(f is not PathFinder and hasattr(f, "find_distributions") for f in sys.meta_path):
        return True
    for entry in sys.path:
        folder = entry or "."
        try:
            with os.scandir(folder) as listing:
                names = [e.name for e in listing if e.name.endswith(_DIST_SUFFIXES)]
        except NotADirectoryError:  # a zip or an egg file
            return True
        except OSError:  # missing or unreadable: skipped by importlib.metadata too
            continue
        for name in names:
            try:
                with open(os.path.join(folder, name, "entry_points.txt"), "rb") as handle:
                    if ENTRY_POINT_GROUP.encode() in handle.read():
                        return True
            except OSError:  # no entry points (or an egg-info file)
                continue
    return False


_DIST_SUFFIXES = (".dist-info", ".egg-info", "EGG-INFO")


def _as_specs(obj: object) -> Iterable[ExtractorSpec]:
    if isinstance(obj, ExtractorSpec):
        return (obj,)
    if isinstance(obj, Sequence) and all(isinstance(s, ExtractorSpec) for s in obj):
        return tuple(obj)
    raise RegistryError(f"entry point gave {type(obj).__name__}, not an ExtractorSpec")


_DEFAULT: Registry | None = None


def default_registry() -> Registry:
    """Return the process-wide registry: the built-ins, then the installed plugins."""
    global _DEFAULT
    if _DEFAULT is None:
        from indexer.formats import BUILTIN_SPECS

        registry = Registry()
        for spec in BUILTIN_SPECS:  # through the public API, as a plugin registers
            registry.register(spec)
        _load_plugins(registry)
        _DEFAULT = registry
    return _DEFAULT


_ACTIVE: ContextVar[Registry | None] = ContextVar("indexer_registry", default=None)


def active_registry() -> Registry:
    """Return the registry the extraction running here was dispatched by (`dispatching`),
    else the default one: an extractor that hands a document on to another (an office
    file whose bytes are another format) asks it, so a plugin in a `Registry` given to
    `indexer.run` or `indexer.extract` reads there too."""
    return _ACTIVE.get() or default_registry()


@contextmanager
def dispatching(registry: Registry) -> Iterator[None]:
    """Make `registry` the `active_registry()` of the extractions in this block."""
    token = _ACTIVE.set(registry)
    try:
        yield
    finally:
        _ACTIVE.reset(token)


def register(spec: ExtractorSpec, *, replace_existing: bool = False) -> ExtractorSpec:
    """Register `spec` in the default registry; see `Registry.register`."""
    return default_registry().register(spec, replace_existing=replace_existing)
