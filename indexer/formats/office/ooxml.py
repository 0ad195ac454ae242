"""Office Open XML packages: relationships, part names, core properties, Strict namespaces.

A package's parts are found through relationships (`_rels/.rels`, then each part's
own `_rels/<part>.rels`), never by fixed names alone; a part named by a missing or
dangling relationship is simply absent (python-docx and python-pptx raise there).
"""

from __future__ import annotations

import posixpath
from typing import Any

from indexer.formats.office.container import ContainerError, Package, parse_xml

__all__ = [
    "NS",
    "Rel",
    "core_properties",
    "main_part",
    "part_xml",
    "relationships",
    "rels_kind",
    "rels_of_type",
]

_REL_NS = "{http://schemas.openxmlformats.org/package/2006/relationships}"
NS = {
    "w": "http://schemas.openxmlformats.org/wordprocessingml/2006/main",
    "a": "http://schemas.openxmlformats.org/drawingml/2006/main",
    "p": "http://schemas.openxmlformats.org/presentationml/2006/main",
    "r": "http://schemas.openxmlformats.org/officeDocument/2006/relationships",
    "mc": "http://schemas.openxmlformats.org/markup-compatibility/2006",
    "m": "http://schemas.openxmlformats.org/officeDocument/2006/math",
    "wp": "http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing",
    "v": "urn:schemas-microsoft-com:vml",
}
_STRICT = (
    (b"http://purl.oclc.org/ooxml/wordprocessingml/main", NS["w"].encode()),
    (b"http://purl.oclc.org/ooxml/drawingml/main", NS["a"].encode()),
    (b"http://purl.oclc.org/ooxml/presentationml/main", NS["p"].encode()),
    (b"http://purl.oclc.org/ooxml/officeDocument/relationships", NS["r"].encode()),
    (b"http://purl.oclc.org/ooxml/officeDocument/math", NS["m"].encode()),
    (b"http://purl.oclc.org/ooxml/drawingml/wordprocessingDrawing", NS["wp"].encode()),
)
_OFFICE_DOCUMENT = "/officeDocument"
_CORE = (
    ("title", "{http://purl.org/dc/elements/1.1/}title"),
    ("author", "{http://purl.org/dc/elements/1.1/}creator"),
    ("created", "{http://purl.org/dc/terms/}created"),
    ("modified", "{http://purl.org/dc/terms/}modified"),
)

Rel = tuple[str, str, bool]
"""A relationship: its type's last path segment (`styles`, `footnotes`), its target
(a part name without the leading slash, or an external URL), and whether external."""


def part_xml(package: Package, name: str) -> Any:
    """Part `name` parsed, Strict OOXML's namespaces read as Transitional's; None if absent."""
    data = package.read(name)
    if data is None:
        return None
    if b"purl.oclc.org/ooxml" in data:
        for strict, transitional in _STRICT:
            data = data.replace(strict, transitional)
    return parse_xml(data, name)


def relationships(package: Package, part: str) -> dict[str, Rel]:
    """The relationships of `part` (`""` for the package's own), by id."""
    folder, base = posixpath.split(part)
    root = package.xml(posixpath.join(folder, "_rels", base + ".rels"))
    rels: dict[str, Rel] = {}
    if root is None:
        return rels
    for rel in root.iter(_REL_NS + "Relationship"):
        target = rel.get("Target") or ""
        external = rel.get("TargetMode") == "External"
        if not external:
            target = _resolve(folder, target)
        kind = (rel.get("Type") or "").rsplit("/", 1)[-1]
        rels[rel.get("Id") or ""] = (kind, target, external)
    return rels


def _resolve(folder: str, target: str) -> str:
    target = target.replace("\\", "/")
    if target.startswith("/"):
        return posixpath.normpath(target).lstrip("/")
    return posixpath.normpath(posixpath.join(folder, target)).lstrip("/")


def main_part(package: Package, default: str) -> str:
    """The package's main part (its `officeDocument` relationship), else `default`."""
    for kind, target, external in relationships(package, "").values():
        if "/" + kind == _OFFICE_DOCUMENT and not external and package.has(target):
            return target
    return default


def rels_of_type(rels: dict[str, Rel], kind: str) -> list[str]:
    """The internal targets of `rels` whose type is `kind`, in id order."""
    return [rels[key][1] for key in sorted(rels) if rels[key][0] == kind and not rels[key][2]]


def rels_kind(rels: dict[str, Rel], target: str) -> str:
    """The type of the relationship in `rels` that names part `target`, or ''."""
    return next((kind for kind, name, _ in rels.values() if name == target), "")


def core_properties(package: Package) -> dict[str, str]:
    """Title, author, created and modified from `docProps/core.xml`, those present; none
    when the part is broken (properties are optional: a broken part loses only them)."""
    try:
        name = next(
            (t for k, t, ext in relationships(package, "").values() if k == "core-properties"),
            "docProps/core.xml",
        )
        root = package.xml(name) if package.has(name) else None
    except ContainerError:
        return {}
    found: dict[str, str] = {}
    if root is None:
        return found
    for key, tag in _CORE:
        element = root.find(tag)
        text = " ".join((element.text or "").split()) if element is not None else ""
        if text:
            found[key] = text
    return found
