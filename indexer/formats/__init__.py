"""The built-in extractors, one module per format, registered like any plugin.

The specs name their functions lazily (`_Lazy`): the registry, cache keys and
capabilities need only names, versions and options, so a run that finds its tree
unchanged never imports the extractors and their parsers.
"""

from __future__ import annotations

import importlib
from typing import Any

from indexer._spec import ExtractorSpec

__all__ = ["ARCHIVE_EXTENSIONS", "BUILTIN_SPECS", "MAIL_DEPTH", "VERSIONS"]

VERSIONS = {
    "archive": "5", "csv": "2", "doc": "5", "docx": "4", "eml": "7", "epub": "3", "html": "2",
    "image": "3", "json": "2", "mbox": "1", "msg": "3", "odp": "3", "odt": "3", "pdf": "4",
    "ppt": "2", "pptx": "4", "pst": "1", "rtf": "1", "spreadsheet": "7", "text": "1",
    **{"calendar": "1", "emlx": "1", "mhtml": "1", "tnef": "1", "vcard": "1"},  # mail-ish
}  # fmt: skip
"""Each built-in's output version: bump it here when the extractor's output changes,
and incremental runs re-extract its documents. (Each module's `VERSION` reads it.)"""

_LIMIT = ("max_chunk_chars",)
_OCR = ("ocr_mode", "ocr_engine", "ocr_language", "ocr_dpi", "ocr_page_timeout", "ocr_max_pages")
ARCHIVE_EXTENSIONS = ("zip", "tar", "tgz", "tbz", "tbz2", "txz", "gz", "bz2", "xz")
_OFFICE_USES = {
    "doc": ("image",), "docx": ("image",), "epub": ("html", "image"), "odp": ("image",),
    "odt": ("image",), "ppt": (), "pptx": ("image",),
}  # fmt: skip
"""Other extractors an office one hands content to, whose upgrades count too: an e-book's
chapters are rendered by the html one, the pictures of Word, PowerPoint, OpenDocument
files and e-books are OCR'd by image's."""
_HOLDERS = ("doc", "docx", "odp", "odt", "ppt", "pptx")
"""Office kinds whose embedded objects are child documents (`office.holding`), as the
spreadsheet's are."""
IMAGE_EXTENSIONS = ("png", "jpg", "jpeg", "tif", "tiff", "bmp", "gif", "webp")
MAIL_DEPTH = 4
"""How deep messages in messages are followed (archives: `ContainerLimits.max_depth`)."""
_OOXML = "application/vnd.openxmlformats-officedocument."
_TYPES: dict[str, tuple[str, ...]] = {
    "archive": ("application/zip", "application/x-zip-compressed", "application/x-tar",
                "application/gzip", "application/x-gzip"),
    "csv": ("text/csv", "text/tab-separated-values"),
    "doc": ("application/msword",),
    "docx": (f"{_OOXML}wordprocessingml.document", f"{_OOXML}wordprocessingml.template",
             "application/vnd.ms-word.document.macroenabled.12"),
    "eml": ("message/rfc822", "message/global"),
    "epub": ("application/epub+zip",),
    "html": ("text/html", "application/xhtml+xml"),
    "image": ("image/png", "image/jpeg", "image/pjpeg", "image/tiff", "image/gif", "image/bmp",
              "image/x-ms-bmp", "image/webp"),
    "json": ("application/json", "application/x-ndjson"),
    "mbox": ("application/mbox",),
    "msg": ("application/vnd.ms-outlook",),
    "odp": ("application/vnd.oasis.opendocument.presentation",),
    "odt": ("application/vnd.oasis.opendocument.text",),
    "pdf": ("application/pdf",),
    "ppt": ("application/vnd.ms-powerpoint",),
    "pptx": (f"{_OOXML}presentationml.presentation", f"{_OOXML}presentationml.slideshow",
             "application/vnd.ms-powerpoint.presentation.macroenabled.12"),
    "rtf": ("application/rtf", "application/x-rtf", "text/rtf"),
    "spreadsheet": (f"{_OOXML}spreadsheetml.sheet",
                    "application/vnd.ms-excel.sheet.macroenabled.12",
                    "application/vnd.ms-excel.sheet.binary.macroenabled.12",
                    "application/vnd.ms-excel", "application/vnd.oasis.opendocument.spreadsheet"),
    "text": ("text/*", "message/delivery-status"),
    "tnef": ("application/ms-tnef", "application/vnd.ms-tnef"),
    "calendar": ("text/calendar", "text/x-vcalendar", "application/ics"),
    "vcard": ("text/vcard", "text/x-vcard", "text/directory"),
    "mhtml": ("multipart/related", "application/x-mimearchive", "message/x-mhtml"),
}  # fmt: skip
"""The MIME types each built-in reads: a mail's attachment no extension claims goes by them."""


class _Lazy:
    """A built-in extractor's function, imported on its first call; pickled by name."""

    __slots__ = ("_function", "module", "name")

    def __init__(self, module: str, name: str) -> None:
        self.module = module
        self.name = name
        self._function: Any = None

    def __call__(self, *args: Any) -> Any:
        function = self._function
        if function is None:
            function = self._function = getattr(importlib.import_module(self.module), self.name)
        return function(*args)

    def __reduce__(self) -> tuple[type[_Lazy], tuple[str, str]]:
        return _Lazy, (self.module, self.name)

    def __repr__(self) -> str:
        return f"<{self.module}.{self.name}>"

    def __eq__(self, other: object) -> bool:  # the same function, wherever unpickled
        if not isinstance(other, _Lazy):
            return NotImplemented
        return (self.module, self.name) == (other.module, other.name)

    def __hash__(self) -> int:
        return hash((self.module, self.name))


def _lazy(kind: str, name: str, module: str | None = None) -> Any:
    return _Lazy(f"indexer.formats.{module or kind}", name)


_MAIL_VERSION = f"{VERSIONS['eml']}+html.{VERSIONS['html']}+image.{VERSIONS['image']}"
"""What an `eml` reading of a mail depends on (see the eml spec); the formats that hand
their message to it add their own version."""

BUILTIN_SPECS = (
    ExtractorSpec(
        name="archive",
        kind="archive",
        extensions=ARCHIVE_EXTENSIONS,
        # image members became documents (OCR) rather than `binary` skips
        version=f"{VERSIONS['archive']}+image.{VERSIONS['image']}",
        extract=_lazy("archive", "extract"),
        mime_types=_TYPES["archive"],
        children=_lazy("archive", "children", module="archive.children"),
        folder=True,
        builtin=True,
        options_used=("containers", *_LIMIT),
    ),
    ExtractorSpec(
        name="csv",
        kind="csv",
        extensions=("csv", "tsv"),
        version=VERSIONS["csv"],
        extract=_lazy("csv", "extract"),
        chunker=_lazy("csv", "chunk"),
        mime_types=_TYPES["csv"],
        builtin=True,
        options_used=("rows_per_chunk", *_LIMIT),
    ),
    ExtractorSpec(
        name="mbox",
        kind="mbox",
        extensions=("mbox",),
        file_names=("mbox",),
        # read whole (an attached mbox, `indexer.extract`) its messages go to eml
        version=f"{VERSIONS['mbox']}+eml.{VERSIONS['eml']}",
        extract=_lazy("mbox", "extract"),
        lists=_lazy("mbox", "lists"),
        mime_types=_TYPES["mbox"],
        builtin=True,
        options_used=_LIMIT,
    ),
    ExtractorSpec(
        name="pst",
        kind="pst",
        extensions=("pst", "ost"),
        version=f"{VERSIONS['pst']}+eml.{VERSIONS['eml']}",
        extract=_lazy("pst", "extract", module="msg.listing"),
        lists=_lazy("pst", "lists", module="msg.listing"),
        isolated=True,  # libpff is C: a damaged mailbox read whole may crash it
        builtin=True,
        options_used=_LIMIT,
    ),
    ExtractorSpec(
        name="eml",
        kind="eml",
        extensions=("eml",),
        # html-only mails are rendered by the html extractor, so its upgrades count too;
        # which attachments become documents (images, with OCR) is part of a mail's output
        version=_MAIL_VERSION,
        extract=_lazy("eml", "extract"),
        chunker=_lazy("eml", "chunk"),
        mime_types=_TYPES["eml"],
        children=_lazy("eml", "children", module="eml.children"),
        max_depth=MAIL_DEPTH,
        builtin=True,
        options_used=("html_mail_main_content", "mail_keep_quotes", *_LIMIT),
    ),
    ExtractorSpec(
        name="emlx",
        kind="eml",  # an Apple Mail message: the records of the same message as `.eml`
        extensions=("emlx",),
        version=f"{VERSIONS['emlx']}+eml.{_MAIL_VERSION}",
        extract=_lazy("emlx", "extract"),
        chunker=_lazy("emlx", "chunk"),
        children=_lazy("emlx", "children"),
        max_depth=MAIL_DEPTH,
        builtin=True,
        options_used=("html_mail_main_content", *_LIMIT),
    ),
    ExtractorSpec(
        name="html",
        kind="html",
        extensions=("html", "htm", "xhtml"),
        version=VERSIONS["html"],
        extract=_lazy("html", "extract"),
        chunker=_lazy("html", "chunk"),
        mime_types=_TYPES["html"],
        builtin=True,
        options_used=("html_main_content", *_LIMIT),
    ),
    ExtractorSpec(
        name="image",
        kind="image",
        extensions=IMAGE_EXTENSIONS,
        version=VERSIONS["image"],
        extract=_lazy("image", "extract"),
        isolated=True,  # OCR runs a child process per page: a timeout and a memory cap
        mime_types=_TYPES["image"],
        builtin=True,
        options_used=(*_OCR, *_LIMIT),
    ),
    ExtractorSpec(
        name="json",
        kind="json",
        extensions=("json", "jsonl", "ndjson"),
        version=VERSIONS["json"],
        extract=_lazy("json", "extract"),
        chunker=_lazy("json", "chunk"),
        mime_types=_TYPES["json"],
        builtin=True,
        options_used=_LIMIT,
    ),
    ExtractorSpec(
        name="mhtml",
        kind="mhtml",
        extensions=("mhtml", "mht"),
        # the page is rendered by the html extractor; a page-less one read as a mail
        version=f"{VERSIONS['mhtml']}+html.{VERSIONS['html']}+eml.{_MAIL_VERSION}",
        extract=_lazy("mhtml", "extract"),
        chunker=_lazy("mhtml", "chunk"),
        mime_types=_TYPES["mhtml"],
        children=_lazy("mhtml", "children"),
        max_depth=MAIL_DEPTH,
        builtin=True,
        options_used=("html_main_content", "html_mail_main_content", *_LIMIT),
    ),
    ExtractorSpec(
        name="msg",
        kind="msg",
        extensions=("msg",),
        # like eml: html-only messages are rendered by the html extractor, RTF-only by rtf's,
        # images read
        version=f"{VERSIONS['msg']}+html.{VERSIONS['html']}+rtf.{VERSIONS['rtf']}"
        f"+image.{VERSIONS['image']}",
        extract=_lazy("msg", "extract"),
        mime_types=_TYPES["msg"],
        children=_lazy("msg", "children"),
        max_depth=MAIL_DEPTH,
        builtin=True,
        options_used=("html_mail_main_content", "mail_keep_quotes", *_LIMIT),
    ),
    ExtractorSpec(
        name="pdf",
        kind="pdf",
        extensions=("pdf",),
        version=VERSIONS["pdf"],
        extract=_lazy("pdf", "extract"),
        isolated=True,
        mime_types=_TYPES["pdf"],
        builtin=True,
        options_used=("pdf_engine", *_OCR, *_LIMIT),
    ),
    *(
        ExtractorSpec(
            name=kind,
            kind=kind,
            extensions=extensions,
            version=VERSIONS[kind] + "".join(f"+{k}.{VERSIONS[k]}" for k in _OFFICE_USES[kind]),
            extract=_lazy(kind, "extract", module=f"office.{kind}"),
            isolated=True,  # ZIP and OLE containers read by third-party parsers
            mime_types=_TYPES[kind],
            children=_lazy(kind, kind, module="office.holding") if kind in _HOLDERS else None,
            builtin=True,
            options_used=(
                *(("containers",) if kind in _HOLDERS else ()),
                *(_OCR if "image" in _OFFICE_USES[kind] else ()),
                *_LIMIT,
            ),
        )
        for kind, extensions in (
            ("doc", ("doc", "dot")),
            ("docx", ("docx", "docm", "dotx", "dotm")),
            ("epub", ("epub",)),
            ("odp", ("odp", "otp")),
            ("odt", ("odt", "ott")),
            ("ppt", ("ppt", "pps", "pot")),
            ("pptx", ("pptx", "pptm", "ppsx", "potx")),
        )
    ),
    ExtractorSpec(
        name="rtf",
        kind="rtf",
        extensions=("rtf",),
        version=VERSIONS["rtf"],
        extract=_lazy("rtf", "extract"),
        isolated=True,
        mime_types=_TYPES["rtf"],
        builtin=True,
        options_used=_LIMIT,
    ),
    ExtractorSpec(
        name="spreadsheet",
        kind="spreadsheet",
        extensions=("xlsx", "xlsm", "xlsb", "xls", "ods"),
        # an .xls that is really HTML or delimited text goes to those extractors; an
        # xlsx's pictures are OCR'd by the image one
        version=f"{VERSIONS['spreadsheet']}+html.{VERSIONS['html']}+csv.{VERSIONS['csv']}"
        f"+image.{VERSIONS['image']}",
        extract=_lazy("spreadsheet", "extract", module="sheets"),
        isolated=True,
        mime_types=_TYPES["spreadsheet"],
        children=_lazy("spreadsheet", "spreadsheet", module="office.holding"),
        builtin=True,
        options_used=("rows_per_chunk", "max_sheet_cells", "containers", *_OCR, *_LIMIT),
    ),
    ExtractorSpec(
        name="tnef",
        kind="tnef",
        extensions=("tnef",),
        # a saved winmail.dat; other .dat files (data dumps) stay the walk's to judge
        file_names=("winmail.dat",),
        version=f"{VERSIONS['tnef']}+eml.{_MAIL_VERSION}+rtf.{VERSIONS['rtf']}"
        f"+text.{VERSIONS['text']}",
        extract=_lazy("tnef", "extract"),
        mime_types=_TYPES["tnef"],
        children=_lazy("tnef", "children"),
        max_depth=MAIL_DEPTH,
        builtin=True,
        options_used=("html_mail_main_content", *_LIMIT),
    ),
    *(  # text formats of mail: a file that does not parse is read as the text it is
        ExtractorSpec(
            name=kind,
            kind=kind,
            extensions=extensions,
            version=f"{VERSIONS[kind]}+text.{VERSIONS['text']}",
            extract=_lazy(kind, "extract"),
            chunker=_lazy(kind, "chunk"),
            mime_types=_TYPES[kind],
            builtin=True,
            options_used=_LIMIT,
        )
        for kind, extensions in (("calendar", ("ics", "ifb", "vcs")), ("vcard", ("vcf", "vcard")))
    ),
    ExtractorSpec(
        name="text",
        kind="text",
        extensions=(),
        version=VERSIONS["text"],
        extract=_lazy("text", "extract"),
        chunker=_lazy("text", "chunk"),
        mime_types=_TYPES["text"],
        builtin=True,
        fallback=True,
        options_used=_LIMIT,
    ),
)
