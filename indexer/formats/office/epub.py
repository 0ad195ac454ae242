"""`epub`: e-books, the spine's XHTML documents in reading order through the html extractor.

`META-INF/container.xml` names the package document; its spine lists the content
documents in order. Each is rendered by the `html` kind (Markdown blocks, heading
paths), and its chunks get `meta` `{"chapter": n, "headings": [...]}`, `n` the
document's 1-based place in the spine. A spine entry that names no manifest item,
or whose document is missing or not (X)HTML, is passed over and the result marked
`degraded`, `metadata["notes"]` naming each such entry. Title, author, dates and
description from the package's metadata go in `metadata`, with the spine's length
as `chapters`. The text OCR reads in a chapter's pictures (`office.picture_text`, under
`ocr_mode`) follows the chapter's chunks, each with the chapter, `picture` (its place
among the chapter's pictures) and the page's OCR flags (`low_confidence` among them),
and `metadata["ocr"]` lists the pictures read. A book whose content documents are
encrypted (DRM; obfuscated fonts do not count) fails with `encrypted`.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import replace
from functools import partial
from typing import Any

from indexer._types import Chunk, Extracted, Options, make_chunk
from indexer.formats import VERSIONS
from indexer.formats.office.blocks import Doc
from indexer.formats.office.container import ENCRYPTED, ContainerError, Package, open_zip
from indexer.formats.office.entry import run
from indexer.formats.office.picture_text import PictureText

__all__ = ["VERSION", "extract", "read"]

VERSION = VERSIONS["epub"]  # bumped in indexer/formats/__init__.py

_OPF = "{http://www.idpf.org/2007/opf}"
_DC = "{http://purl.org/dc/elements/1.1/}"
_CONTAINER = "{urn:oasis:names:tc:opendocument:xmlns:container}"
_ENC = "{http://www.w3.org/2001/04/xmlenc#}"
_FONT_OBFUSCATION = ("http://www.idpf.org/2008/embedding", "http://ns.adobe.com/pdf/enc#RC")
_HTML_TYPES = ("application/xhtml+xml", "text/html", "application/xml", "text/xml")
_ACCEPTS = ("epub", "zip")


def extract(data: bytes, path: str, options: Options) -> Extracted:
    """Extract an EPUB book; never raises for bad input (see `entry.run`)."""
    return run("epub", _ACCEPTS, partial(read, path=path), data, path, options)


def read(data: bytes, options: Options, path: str = "") -> Doc:
    """Read an EPUB package into chapter chunks, the text OCR reads in each chapter's
    pictures after it; raises `ContainerError`."""
    package = open_zip(data)
    opf_name = _package_document(package)
    opf = package.xml(opf_name)
    if opf is None:
        raise ContainerError(f"corrupt: no package document {opf_name}")
    spine = _spine(opf, posixpath.dirname(opf_name))
    _refuse_drm(package, {entry[0] for entry in spine if not isinstance(entry, str)})
    doc = Doc(metadata={**_properties(opf), "chapters": len(spine)}, chunks=[])
    pictures = PictureText(package, options, path)
    chunks: list[Chunk] = []
    notes: list[str] = []
    for number, entry in enumerate(spine, start=1):
        content, problem = _content(package, entry)
        if content is None:
            notes.append(f"spine entry {number} passed over: {problem}")
            continue
        chunks.extend(_chapter(content, entry[0], number, options))
        chunks.extend(_pictures(pictures, content, entry[0], number))
    pictures.place(doc)
    if notes:
        doc.degraded = True
        doc.metadata["notes"] = notes
    doc.chunks = chunks
    return doc


def _content(package: Package, entry: tuple[str, str] | str) -> tuple[bytes | None, str]:
    """A spine entry's document, or None and why: the entry is an idref the manifest
    lacks (a `str`), or its document is missing or not (X)HTML."""
    if isinstance(entry, str):
        return None, f"idref {entry!r} is not in the manifest"
    name, media_type = entry
    if media_type not in _HTML_TYPES:
        return None, f"{name} is {media_type or 'of no media type'}, not (X)HTML"
    content = package.read(name)
    return content, "" if content is not None else f"{name} is missing"


def _package_document(package: Package) -> str:
    container = package.xml("META-INF/container.xml")
    rootfile = (
        next(container.iter(_CONTAINER + "rootfile"), None) if container is not None else None
    )
    name = rootfile.get("full-path") if rootfile is not None else None
    if name:
        return str(name)
    found = [n for n in package.names() if n.lower().endswith(".opf")]
    if not found:
        raise ContainerError("corrupt: no package document (META-INF/container.xml)")
    return found[0]


def _spine(opf: Any, folder: str) -> list[tuple[str, str] | str]:
    """The spine's documents in order: (part name, media type), or the idref itself
    where the manifest has no such item."""
    items: dict[str, tuple[str, str]] = {}
    for item in opf.iter(_OPF + "item"):
        href = (item.get("href") or "").split("#", 1)[0]
        name = posixpath.normpath(posixpath.join(folder, _unquote(href))).lstrip("/")
        items[item.get("id") or ""] = (name, item.get("media-type") or "")
    refs = (ref.get("idref") or "" for ref in opf.iter(_OPF + "itemref"))
    return [items.get(ref, ref) for ref in refs]


def _unquote(href: str) -> str:
    from urllib.parse import unquote

    return unquote(href)


def _refuse_drm(package: Package, content: set[str]) -> None:
    """Raise `encrypted` when `META-INF/encryption.xml` encrypts a content document."""
    root = (
        package.xml("META-INF/encryption.xml") if package.has("META-INF/encryption.xml") else None
    )
    for data in root.iter(_ENC + "EncryptedData") if root is not None else ():
        method = data.find(_ENC + "EncryptionMethod")
        if method is not None and method.get("Algorithm") in _FONT_OBFUSCATION:
            continue
        reference = data.find(f"{_ENC}CipherData/{_ENC}CipherReference")
        uri = reference.get("URI") if reference is not None else None
        if uri is None or posixpath.normpath(_unquote(uri)).lstrip("/") in content:
            raise ContainerError(ENCRYPTED)


def _chapter(content: bytes, name: str, number: int, options: Options) -> list[Chunk]:
    from indexer.formats import html  # Lexbor is imported with the first book

    # A chapter is all content: no menus or sidebars for main-content extraction to drop.
    rendered = html.extract(content, name, replace(options, html_main_content=False))
    if rendered.degraded:  # no visible content: a cover image, an empty page
        return []
    return [
        make_chunk(chunk.text, {"chapter": number, "headings": chunk.meta.get("headings", [])})
        for chunk in rendered.chunks
    ]


_IMAGE = re.compile(
    rb"""<(?:\w+:)?(?:img|image)\b[^>]*?\s(?:src|(?:xlink:)?href)\s*=\s*["']([^"']+)["']""", re.I
)


def _pictures(pictures: PictureText, content: bytes, name: str, number: int) -> list[Chunk]:
    """The text OCR reads in the pictures chapter `name` shows (`img`, SVG `image`), in
    their order, as chunks of the chapter (`meta.picture` their place in it)."""
    if pictures.off:
        return []
    folder = posixpath.dirname(name)
    chunks: list[Chunk] = []
    for at, match in enumerate(_IMAGE.finditer(content), start=1):
        href = match.group(1).decode("utf-8", "replace").split("#", 1)[0]
        if not href or ":" in href:  # data: URIs, links outside the book
            continue
        part = posixpath.normpath(posixpath.join(folder, _unquote(href))).lstrip("/")
        meta = {"chapter": number, "headings": [], "picture": at}
        chunks.extend(pictures.chunks(part, meta))
    return chunks


def _properties(opf: Any) -> dict[str, str]:
    found: dict[str, str] = {}
    for key, tag in (("title", "title"), ("author", "creator"), ("created", "date"),
                     ("description", "description")):  # fmt: skip
        element = next(opf.iter(_DC + tag), None)
        text = " ".join((element.text or "").split()) if element is not None else ""
        if text:
            found[key] = text
    for meta in opf.iter(_OPF + "meta"):
        if meta.get("property") == "dcterms:modified" and (meta.text or "").strip():
            found["modified"] = meta.text.strip()
            break
    return found
