"""The Tesseract engine, one thread, reading through one of three routes: the program's own
library (libtesseract, `capi.py`) loaded in the worker, when it loads and is the
program's version; else the command-line program with one page on stdin; or, for
`ocr_engine = "tesserocr"`, the library the tesserocr binding brings (`binding.py`).

The program loads its models for every page; a library, once a worker. The program gets
the page as a PGM image that Pillow wrote, never as the document's own bytes: given
anything but an image, `tesseract stdin` reads the input as a list of file names. All
answer in TSV (a row per word, with its confidence; the program and its library the
same bytes), from which the text is laid out again as Tesseract's plain-text output lays
it: words of a line joined by a space, lines of a paragraph by a newline, paragraphs by
a blank line.

A page is read with automatic layout (`--psm 3`). Only a page whose words read under
`LOW_CONFIDENCE` (not one without a word: a photograph) is read again with orientation
and script detection first (`--psm 1`, when the `osd` model is installed), and the
reading with the higher confidence is kept: a page scanned upside down reads at about
30 and right side up at about 95, while the detection costs as much as reading an
upright page, which nearly every page is.
"""

from __future__ import annotations

import functools
import io
import os
import shutil
import subprocess
from dataclasses import dataclass
from typing import TYPE_CHECKING

from indexer.formats.ocr import binding, capi, probe
from indexer.formats.ocr.engine import LOW_CONFIDENCE, OcrError, Reading

if TYPE_CHECKING:
    from PIL.Image import Image

__all__ = ["Installed", "Tesseract", "installed", "languages", "library", "tessdata"]

_PROBE_TIMEOUT = 30.0
# Page segmentation 3: automatic layout; 1: the same after orientation and script
# detection (OSD), for the pages 3 read badly, where the `osd` model is installed.
_PSM_PLAIN, _PSM_OSD = 3, 1
_WORD_LEVEL = "5"


@dataclass(frozen=True, slots=True)
class Installed:
    """Where the program is and which version reads: the program's, or the library's when
    it reads through the binding (`binding`)."""

    binary: str
    version: str
    binding: bool = False


@functools.cache
def installed() -> Installed | None:
    """Return the `tesseract` on PATH that answers `--version`, else None (cached, on
    disk too: `probe`)."""
    binary = shutil.which("tesseract")
    if binary is None:
        return None
    version = _answers(binary)["version"]
    return None if version is None else Installed(binary=binary, version=version)


def _version(binary: str) -> str | None:
    """What `binary --version` names (`5.3.0`), or None when it does not answer so."""
    try:
        done = subprocess.run(
            [binary, "--version"], capture_output=True, timeout=_PROBE_TIMEOUT, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    # Tesseract 3 printed its version on stderr; the first line is `tesseract X.Y.Z`.
    lines = (done.stdout or done.stderr).decode("utf-8", "replace").split()
    if done.returncode != 0 or len(lines) < 2 or lines[0] != "tesseract":
        return None
    return lines[1]


@functools.cache
def _answers(binary: str) -> probe.Answer:
    """The program's version and listing, asked once per change of it (`probe`)."""

    def ask() -> probe.Answer:
        folder, models = _list_langs(binary)
        return {"version": _version(binary), "folder": folder, "languages": list(models)}

    return probe.probed(binary, ask)


@functools.cache
def library() -> Installed | None:
    """Return Tesseract's library through the `tesserocr` binding, reading the models the
    program lists, else None (no binding, or no program to find the models by; cached)."""
    program, version = installed(), binding.version()
    if program is None or version is None or not tessdata(program):
        return None
    return Installed(binary=program.binary, version=version, binding=True)


def languages(found: Installed) -> tuple[str, ...]:
    """Return the language models the installed Tesseract lists, sorted (cached)."""
    return _listing(found.binary)[1]


def tessdata(found: Installed) -> str:
    """Return the folder of the models the program lists ("" when it names none)."""
    return _listing(found.binary)[0]


def _listing(binary: str) -> tuple[str, tuple[str, ...]]:
    """(the models' folder, the models) of `tesseract --list-langs` (cached)."""
    answers = _answers(binary)
    return str(answers["folder"]), tuple(answers["languages"])


def _list_langs(binary: str) -> tuple[str, tuple[str, ...]]:
    """Ask `binary --list-langs`: (the models' folder, the models, sorted)."""
    try:
        done = subprocess.run(
            [binary, "--list-langs"], capture_output=True, timeout=_PROBE_TIMEOUT, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return "", ()
    head, *lines = done.stdout.decode("utf-8", "replace").splitlines() or [""]
    # `List of available languages in "/usr/share/tesseract-ocr/5/tessdata/" (3):`
    folder = head.split('"')[1] if head.count('"') >= 2 else ""
    return folder, tuple(sorted(line.strip() for line in lines if line.strip()))


@dataclass(frozen=True, slots=True, kw_only=True)
class Tesseract:
    """Tesseract set up for one language setting and a per-page timeout."""

    installed: Installed
    language: str
    timeout: float

    @property
    def label(self) -> str:
        """`tesseract <version>`."""
        return f"tesseract {self.installed.version}"

    def recognize(self, image: Image, *, dpi: int) -> Reading:
        """Return what Tesseract reads in `image` (`dpi` 0: unknown); raises `OcrError`
        (timeout, missing language, crash)."""
        first = _reading(self._tsv(image, dpi, _PSM_PLAIN))
        # a page turned over still reads as words, badly; no word at all is a photo's
        doubtful = first.confidence is not None and first.confidence < LOW_CONFIDENCE
        if not doubtful or "osd" not in languages(self.installed):
            return first
        second = _reading(self._tsv(image, dpi, _PSM_OSD))
        return second if (second.confidence or -1.0) > (first.confidence or -1.0) else first

    def _tsv(self, image: Image, dpi: int, psm: int) -> str:
        """Tesseract's TSV rows (no header) for `image` read with segmentation `psm`."""
        if self.installed.binding:
            folder = tessdata(self.installed)
            return binding.tsv(
                image, tessdata=folder, language=self.language, psm=psm, dpi=dpi,
                timeout=self.timeout,
            )  # fmt: skip
        rows = capi.tsv(
            image, version=self.installed.version, tessdata=tessdata(self.installed),
            language=self.language, psm=psm, dpi=dpi, timeout=self.timeout,
        )  # fmt: skip
        return self.program_tsv(image, dpi, psm) if rows is None else rows

    def program_tsv(self, image: Image, dpi: int, psm: int) -> str:
        """The TSV rows (no header) of the program started on `image`, page on stdin."""
        command = [self.installed.binary, "stdin", "stdout", "-l", self.language]
        command += ["--psm", str(psm)]
        if dpi:  # else Tesseract estimates it from the text's height
            command += ["--dpi", str(dpi)]
        command.append("tsv")
        try:
            done = subprocess.run(
                command,
                input=_pgm(image),
                capture_output=True,
                timeout=self.timeout,
                env=_environment(),
                check=False,
            )
        except subprocess.TimeoutExpired:
            raise OcrError(f"OCR timeout after {self.timeout:g} s") from None
        except OSError as exc:
            raise OcrError(f"OCR engine did not start: {exc.strerror}") from None
        if done.returncode != 0:
            raise OcrError(_failure(done.returncode, done.stderr, self.language))
        return done.stdout.decode("utf-8", "replace").split("\n", 1)[-1]  # after the header


def _reading(tsv: str) -> Reading:
    """The text and mean word confidence of Tesseract's TSV rows (no header)."""
    paragraphs: dict[tuple[str, str], dict[str, list[str]]] = {}
    confidences: list[float] = []
    for row in tsv.splitlines():
        cells = row.split("\t")
        if len(cells) != 12 or cells[0] != _WORD_LEVEL or not cells[11].strip():
            continue
        _, _, block, par, line, _, _, _, _, _, conf, word = cells
        paragraphs.setdefault((block, par), {}).setdefault(line, []).append(word)
        if float(conf) >= 0:
            confidences.append(float(conf))
    text = "\n\n".join(
        "\n".join(" ".join(words) for words in lines.values()) for lines in paragraphs.values()
    )
    mean = round(sum(confidences) / len(confidences), 1) if confidences else None
    return Reading(text=text, confidence=mean)


def _pgm(image: Image) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format="PPM")  # greyscale: a binary PGM, no compression to undo
    return buffer.getvalue()


def _environment() -> dict[str, str]:
    # One thread: the pool runs pages in parallel already, and OpenMP's threads
    # would make the work (and its timing) depend on what else the machine runs.
    return {**os.environ, "OMP_THREAD_LIMIT": "1"}


def _failure(code: int, stderr: bytes, language: str) -> str:
    text = stderr.decode("utf-8", "replace")
    if "Failed loading language" in text or "couldn't load any languages" in text:
        return f"OCR language {language!r} not installed"
    if code < 0:
        return f"OCR engine killed by signal {-code}"
    return f"OCR engine failed (exit {code})"
