"""Every reason a document is not plainly `ok`: a stable code, its status, a sentence.

A document record's `reason` is one of the codes of `REASONS` (a script matches it) and
its `reason_text` the code's sentence, with the detail of the case (a compression
method, a parser's message). Extractors and the pipeline say why in their own words
(`Extracted.error`, `Extracted.skipped`, a walk entry's `skip`): `code` or `code:
detail` with a code declared here, or an extractor's own phrasing that `_LEGACY` maps;
`explain` turns either into the code and the sentence, and `status_of` gives the
status the code stands for. `docs/reasons.md` lists them all (a test compares it with
`reasons_markdown()`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["REASONS", "Reason", "explain", "reasons_markdown", "status_of"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Reason:
    """One reason code: the status it gives, what it means and what to do about it."""

    code: str
    status: str
    """`empty`, `failed`, `skipped` or `degraded`."""
    text: str
    """The sentence of `reason_text`; the detail of the case follows it."""
    action: str
    """What a user can do about it (docs/reasons.md)."""


def _r(code: str, status: str, text: str, action: str) -> Reason:
    return Reason(code=code, status=status, text=text, action=action)


_NOTHING = "Nothing: there is no text to index."
_LIMIT = "Raise the limit in `[archive]` (configs/default.toml) if the file is wanted."

REASONS: tuple[Reason, ...] = (
    # empty: there was nothing to read
    _r("blank", "empty", "The file is empty or holds only whitespace.", _NOTHING),
    _r("no_text", "empty", "The document holds no text (a blank page, a drawing, no cells).",
       _NOTHING),
    # degraded: read, but not all of it, or not as its format
    _r("pages_unread", "degraded", "Some pages could not be read; the others are indexed.",
       "Check the listed pages (`metadata.failed_pages`); a newer PDF may read."),
    _r("partial", "degraded", "Part of the document could not be read or was cut; the rest "
       "is indexed.", "See `metadata.notes`; raise `max_sheet_cells` (`[extract]`) if a "
       "sheet was cut."),
    _r("not_parsed", "degraded", "Some or all of the content did not parse as its format; "
       "that part is indexed as plain text.", "Check the file: it is malformed or misnamed."),
    # failed: there was content and it could not be read
    _r("encrypted", "failed", "The file is encrypted (a password is required).",
       "Index a decrypted copy."),
    _r("corrupt", "failed", "The file is damaged and could not be read.",
       "Replace it with an intact copy."),
    _r("wrong_format", "failed", "The content is not the format its name says.",
       "Rename the file to its real type, or remove it."),
    _r("timeout", "failed", "Reading the file took longer than the timeout; its worker was "
       "killed.", "Raise `--timeout` if the file is wanted."),
    _r("crashed", "failed", "The parser crashed on the file (its worker died).",
       "Report the file; a newer parser may read it."),
    _r("out_of_memory", "failed", "Reading the file needed more memory than a worker may "
       "use.", "Raise `--max-memory` if the file is wanted."),
    _r("ocr_failed", "failed", "OCR failed on the scanned pages.",
       "See the detail; check the OCR install (docs/ocr.md)."),
    _r("image_too_large", "failed", "The image is too large to OCR.",
       "Scale the image down to read it."),
    _r("refused", "failed", "The file would unpack past the container limits (a ZIP bomb?); "
       "it was not unpacked.", "Nothing, if it is hostile; else check the file."),
    _r("unreadable", "failed", "The file (or folder, or mailbox message) could not be read.",
       "Check its permissions and the disk."),
    _r("extractor_error", "failed", "The extractor raised an error.",
       "Report the file with the detail: this is a bug."),
    # skipped: passed over, on purpose; the sentence says why
    _r("ocr_off", "skipped", "The document is a scan (pictures of text) and OCR is off.",
       "Run with `--ocr auto` to read it."),
    _r("ocr_not_installed", "skipped", "The document is a scan (pictures of text) and no OCR "
       "engine is installed.", "Install Tesseract (docs/ocr.md) and run again."),
    _r("ocr_language_missing", "skipped", "The document is a scan (pictures of text) and a "
       "language pack `[ocr] ocr_language` names is not installed.",
       "Install the pack (`scripts/install-ocr CONFIG`, or `tesseract-ocr-<lang>`) and run "
       "again."),
    _r("image_too_small", "skipped", "The image is too small to hold readable text.", _NOTHING),
    _r("unsupported_image", "skipped", "The document holds only pictures in formats OCR "
       "cannot read.", "Convert the pictures (to PNG) to read them."),
    _r("unsupported_format", "skipped", "The file is in a format no extractor here reads.",
       "Convert it to a format listed by `indexer capabilities`."),
    _r("no_extractor", "skipped", "No extractor reads this content type.",
       "Add a plugin extractor for it (docs/architecture.md, Extending) if it is wanted."),
    _r("binary", "skipped", "The file is binary data, not a document.", _NOTHING),
    _r("unsupported_archive", "skipped", "The archive format (7z, rar) is not read here.",
       "Unpack it with another tool, then index the folder."),
    _r("unsupported_compression", "skipped", "The archive member is compressed with a method "
       "no reader here supports.", "Unpack the archive with another tool, then index it."),
    _r("excluded", "skipped", "The include/exclude globs leave the file out.",
       "Change the globs if it is wanted."),
    _r("ignored_directory", "skipped", "The directory is a `.git`, `node_modules` or "
       "`__pycache__` one.", _NOTHING),
    _r("maildir_tmp", "skipped", "The directory is a Maildir's `tmp`, which holds mail "
       "still being delivered.", _NOTHING),
    _r("virtualenv", "skipped", "The directory is a Python virtualenv (it holds "
       "`pyvenv.cfg`).", _NOTHING),
    _r("directory_symlink", "skipped", "The path is a symlink to a directory, which the "
       "walk never follows.", "Index the target folder itself if it is wanted."),
    _r("hidden", "skipped", "The file is hidden (its name starts with a dot).",
       "Set `skip_hidden = false` (`[walk]`) to index them."),
    _r("too_large", "skipped", "The file is larger than the size limit.",
       "Raise `max_file_bytes` (`[walk]`; `[archive]` limits for a member)."),
    _r("depth_limit", "skipped", "The container is nested deeper than the depth limit.",
       _LIMIT),
    _r("member_limit", "skipped", "The archive holds more members than the limit.", _LIMIT),
    _r("unpacked_limit", "skipped", "Unpacking would pass the limit on unpacked bytes.", _LIMIT),
    _r("compression_ratio", "skipped", "The member is compressed more than the ratio limit "
       "allows (a ZIP bomb?).", _LIMIT),
    _r("unsafe_name", "skipped", "The member's name is unsafe (absolute, `..` or a NUL).",
       "Nothing: the member is never unpacked."),
    _r("link", "skipped", "The member is a link, not a file.", _NOTHING),
    _r("not_regular_file", "skipped", "The path is not a regular file (a device, a FIFO).",
       _NOTHING),
    _r("symlink_loop", "skipped", "The symlink resolves to itself.", "Fix the link."),
    _r("dangling_symlink", "skipped", "The symlink's target does not exist.", "Fix the link."),
    _r("symlink_outside_source", "skipped", "The symlink points outside SOURCE.",
       "Index the target's folder itself if it is wanted."),
    _r("vanished", "skipped", "The file was removed while the run read the folder.",
       "Nothing: the next run sees the folder as it is."),
)  # fmt: skip
"""Every reason code, in the order docs/reasons.md lists them."""

BY_CODE = {reason.code: reason for reason in REASONS}

_LEGACY: tuple[tuple[str, str], ...] = (
    # the phrasings extractors and the pool use, by prefix (longest first where they nest)
    ("no text layer (OCR not installed", "ocr_not_installed"),
    ("no text layer (OCR language", "ocr_language_missing"),
    ("no text layer (OCR failed", "ocr_failed"),
    ("no text layer", "no_text"),
    ("no text: only pictures", "no_text"),  # refined by `_PICTURES`
    ("no text found by OCR", "no_text"),
    ("no text", "no_text"),
    ("no pages", "no_text"),
    ("encrypted", "encrypted"),
    ("damaged", "corrupt"),
    ("corrupt image", "corrupt"),
    ("not a readable image", "corrupt"),
    ("mislabelled", "wrong_format"),
    ("unrecognised", "wrong_format"),
    ("response is not a PDF", "wrong_format"),
    ("not a zip, tar or compressed file", "wrong_format"),
    ("legacy binary Word format", "unsupported_format"),
    ("exception in", "extractor_error"),
    ("error", "extractor_error"),
    ("OCR failed", "ocr_failed"),
    ("OCR is off", "ocr_off"),
    ("OCR not installed", "ocr_not_installed"),
    ("OCR language", "ocr_language_missing"),
    ("image too small", "image_too_small"),
    ("image too large", "image_too_large"),
    ("no extractor for application/x-unreadable-attachment", "unreadable"),
    ("no extractor for", "no_extractor"),
)
_PICTURES = (("OCR is off", "ocr_off"), ("OCR not installed", "ocr_not_installed"),
             ("none in a format OCR reads", "unsupported_image"))  # fmt: skip


def code_of(raw: str, unknown: str = "extractor_error") -> str:
    """The reason code that `raw` (a code, `code: detail` or an older phrasing) stands for;
    `unknown` for words no rule knows (a plugin's own)."""
    head = raw.split(":", 1)[0].strip()
    if head in BY_CODE:
        return head
    for prefix, code in _LEGACY:
        if raw.startswith(prefix):
            if prefix == "no text: only pictures":
                return next((c for words, c in _PICTURES if words in raw), code)
            return code
    return unknown


def status_of(raw: str, unknown: str = "failed") -> str:
    """The status the reason `raw` gives a document (`unknown` for words no rule knows)."""
    code = code_of(raw, "")
    return BY_CODE[code].status if code else unknown


def explain(
    status: str, raw: str | None, metadata: dict[str, Any] | None = None
) -> tuple[str | None, str | None]:
    """The `reason` code and `reason_text` sentence of a record with `status`, from the
    `raw` reason the extraction gave; `(None, None)` for an `ok` one. A degraded or empty
    document without one gets the code its `metadata` shows (failed pages, notes)."""
    if status == "ok":
        return None, None
    if raw is None:
        code = _unexplained(status, metadata or {})
        detail = _notes(metadata or {}) if code == "partial" else ""
    else:
        code = code_of(raw)
        detail = _detail(raw, code)
    text = BY_CODE[code].text
    return code, f"{text[:-1]}: {detail}." if detail else text


def _unexplained(status: str, metadata: dict[str, Any]) -> str:
    if status == "empty":
        return "blank"
    if status == "degraded":
        if metadata.get("failed_pages"):
            return "pages_unread"
        return "partial" if metadata.get("notes") else "not_parsed"
    return "extractor_error" if status == "failed" else "unsupported_format"


def _detail(raw: str, code: str) -> str:
    """What `raw` says beyond its code: after `code:` (or an older phrasing's colon), or
    what its parentheses hold; nothing when it is the code or phrase alone."""
    head, sep, rest = raw.partition(":")
    if sep and (head.strip() == code or "(" not in head):
        return rest.strip().rstrip(".")
    opened = raw.find("(")
    if opened >= 0 and raw.endswith(")"):
        return raw[opened + 1 : -1].strip()
    if raw.startswith(_FOR):  # "no extractor for <content type>"
        return raw[len(_FOR) :].strip()
    return ""


_FOR = "no extractor for"


def _notes(metadata: dict[str, Any]) -> str:
    notes = metadata.get("notes")
    return "; ".join(str(n) for n in notes) if isinstance(notes, list) else ""


def reasons_markdown() -> str:
    """The table of docs/reasons.md: every code, its status, its sentence and what to do."""
    rows = [f"| `{r.code}` | {r.status} | {r.text} | {r.action} |" for r in REASONS]
    return "\n".join(["| reason | status | reason_text | what to do |", "|---|---|---|---|", *rows])
