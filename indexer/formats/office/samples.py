"""Small valid office files built in code, for the conformance corpus and the tests.

ZIP packages are written with fixed timestamps, and OLE compound files by a minimal
writer (`ole_file`: version 3, 512-byte sectors, every stream padded to the mini
stream cutoff so no mini stream is needed), so every sample is byte-for-byte
deterministic.
"""

from __future__ import annotations

import io
import zipfile

__all__ = [
    "OFFICE_SAMPLES",
    "docx_file",
    "epub_file",
    "odf_file",
    "pptx_file",
    "text_shape",
    "zip_package",
]

_W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
_A = 'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"'
_P = 'xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"'
_R = 'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"'
_RELS = "http://schemas.openxmlformats.org/package/2006/relationships"
_OFFICE_DOC = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"


def zip_package(parts: dict[str, bytes | str]) -> bytes:
    """A ZIP of `parts` in the order given, deflated, with fixed timestamps."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for name, body in parts.items():
            info = zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_STORED if name == "mimetype" else zipfile.ZIP_DEFLATED
            archive.writestr(info, body.encode() if isinstance(body, str) else body)
    return out.getvalue()


def _rels(*rels: tuple[str, str, str]) -> str:
    items = "".join(
        f'<Relationship Id="{i}" Type="{_OFFICE_DOC}/{t}" Target="{g}"/>' for i, t, g in rels
    )
    return f'<?xml version="1.0"?><Relationships xmlns="{_RELS}">{items}</Relationships>'


def docx_file(body: str, styles: str = "", extra: dict[str, bytes | str] | None = None) -> bytes:
    """A Word package whose body is the WordprocessingML `body` (and optional styles)."""
    parts: dict[str, bytes | str] = {
        "_rels/.rels": _rels(("rId1", "officeDocument", "word/document.xml")),
        "word/document.xml": f"<w:document {_W} {_R}><w:body>{body}</w:body></w:document>",
        "word/_rels/document.xml.rels": _rels(("rId1", "styles", "styles.xml")),
        "word/styles.xml": f"<w:styles {_W}>{styles or _HEADING_STYLE}</w:styles>",
    }
    parts.update(extra or {})
    return zip_package(parts)


_HEADING_STYLE = '<w:style w:styleId="Heading1"><w:name w:val="heading 1"/></w:style>'


def _para(text: str, style: str = "") -> str:
    props = f'<w:pPr><w:pStyle w:val="{style}"/></w:pPr>' if style else ""
    return f"<w:p>{props}<w:r><w:t>{text}</w:t></w:r></w:p>"


def _cell(text: str) -> str:
    return f"<w:tc>{_para(text)}</w:tc>"


DOCX = docx_file(
    _para("Quarterly report", "Heading1")
    + _para("Revenue grew in every region.")
    + "<w:tbl><w:tr>"
    + _cell("region")
    + _cell("growth")
    + "</w:tr><w:tr>"
    + _cell("north")
    + _cell("12%")
    + "</w:tr></w:tbl>"
)


def pptx_file(
    slides: list[str], order: list[int] | None = None, extra: dict[str, bytes | str] | None = None
) -> bytes:
    """A PowerPoint package of slides, each given as the XML inside its `p:spTree`, listed
    in `order` (indexes into `slides`; by default as given), and the parts `extra`."""
    listed = range(len(slides)) if order is None else order
    parts: dict[str, bytes | str] = {
        "_rels/.rels": _rels(("rId1", "officeDocument", "ppt/presentation.xml")),
        "ppt/presentation.xml": f"<p:presentation {_P} {_R}><p:sldIdLst>"
        + "".join(f'<p:sldId id="{256 + i}" r:id="rId{i + 1}"/>' for i in listed)
        + "</p:sldIdLst></p:presentation>",
        "ppt/_rels/presentation.xml.rels": _rels(
            *((f"rId{i + 1}", "slide", f"slides/slide{i + 1}.xml") for i in range(len(slides)))
        ),
    }
    for i, tree in enumerate(slides, start=1):
        parts[f"ppt/slides/slide{i}.xml"] = (
            f"<p:sld {_P} {_A} {_R}><p:cSld><p:spTree>{tree}</p:spTree></p:cSld></p:sld>"
        )
    parts.update(extra or {})
    return zip_package(parts)


def text_shape(text: str, placeholder: str = "", y: int = 0) -> str:
    """A PowerPoint text shape at height `y`, optionally a placeholder (`title`, ...)."""
    ph = f'<p:ph type="{placeholder}"/>' if placeholder else ""
    return (
        f'<p:sp><p:nvSpPr><p:cNvPr id="1" name="s"/><p:cNvSpPr/><p:nvPr>{ph}</p:nvPr></p:nvSpPr>'
        f'<p:spPr><a:xfrm><a:off x="0" y="{y}"/></a:xfrm></p:spPr>'
        f"<p:txBody><a:p><a:r><a:t>{text}</a:t></a:r></a:p></p:txBody></p:sp>"
    )


PPTX = pptx_file(
    [text_shape("Body below", y=900) + text_shape("Roadmap", "title", 100), text_shape("Thanks")]
)

_ODF_NS = (
    'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
    'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
    'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
    'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" '
    'xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0" '
    'xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0" '
    'xmlns:xlink="http://www.w3.org/1999/xlink"'
)


def odf_file(kind: str, body: str, prolog: str = "") -> bytes:
    """An OpenDocument package (`text` or `presentation`) whose body holds `body`;
    `prolog` goes before the content's root element (a DTD, say)."""
    content = (
        f"{prolog}<office:document-content {_ODF_NS}><office:body><office:{kind}>{body}"
        f"</office:{kind}></office:body></office:document-content>"
    )
    return zip_package(
        {"mimetype": f"application/vnd.oasis.opendocument.{kind}", "content.xml": content}
    )


ODT = odf_file(
    "text",
    '<text:h text:outline-level="1">Minutes</text:h><text:p>Present: all.</text:p>'
    "<text:list><text:list-item><text:p>Budget</text:p></text:list-item></text:list>",
)
ODP = odf_file(
    "presentation",
    '<draw:page><draw:frame presentation:class="title" svg:y="1cm"><draw:text-box>'
    "<text:p>Plan</text:p></draw:text-box></draw:frame></draw:page>",
)


def epub_file(chapters: list[str]) -> bytes:
    """An EPUB whose spine is `chapters`, each the body of an XHTML document."""
    manifest = "".join(
        f'<item id="c{i}" href="c{i}.xhtml" media-type="application/xhtml+xml"/>'
        for i in range(len(chapters))
    )
    spine = "".join(f'<itemref idref="c{i}"/>' for i in range(len(chapters)))
    parts: dict[str, bytes | str] = {
        "mimetype": "application/epub+zip",
        "META-INF/container.xml": '<container xmlns="urn:oasis:names:tc:opendocument:xmlns:'
        'container"><rootfiles><rootfile full-path="OEBPS/book.opf"/></rootfiles></container>',
        "OEBPS/book.opf": '<package xmlns="http://www.idpf.org/2007/opf" xmlns:dc="http://purl.'
        f'org/dc/elements/1.1/"><metadata><dc:title>Sample</dc:title></metadata>'
        f"<manifest>{manifest}</manifest><spine>{spine}</spine></package>",
    }
    for i, body in enumerate(chapters):
        parts[f"OEBPS/c{i}.xhtml"] = (
            f'<html xmlns="http://www.w3.org/1999/xhtml"><body>{body}</body></html>'
        )
    return zip_package(parts)


EPUB = epub_file(["<h1>One</h1><p>It begins.</p>", "<h1>Two</h1><p>It ends.</p>"])


def _legacy() -> dict[str, bytes]:
    from indexer.formats.office.ole_samples import DOC, PPT

    return {"doc": DOC, "ppt": PPT}


OFFICE_SAMPLES: dict[str, bytes] = {
    "docx": DOCX,
    "pptx": PPTX,
    "odt": ODT,
    "odp": ODP,
    "epub": EPUB,
    **_legacy(),
}
"""One small valid sample per office kind, keyed by extension."""
