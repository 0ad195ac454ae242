"""The Tesseract engine: its command-line program, one thread, one page on stdin.

The page goes in as a PGM image that Pillow wrote, never as the document's own bytes:
given anything but an image, `tesseract stdin` reads the input as a list of file names.
It answers in TSV (a row per word, with its confidence), from which the text is laid
out again as Tesseract's plain-text output lays it: words of a line joined by a space,
lines of a paragraph by a newline, paragraphs by a blank line. With the `osd` model
installed the page segmentation detects orientation first (`--psm 1`), so a page
scanned sideways or upside down is read right side up.
"""

from __future__ import annotations

import functools
import io
import os
import shutil
import subprocess
from dataclasses import dataclass
from typing import TYPE_CHECKING

from indexer.formats.ocr.engine import OcrError, Reading

if TYPE_CHECKING:
    from PIL.Image import Image

__all__ = ["Installed", "Tesseract", "installed", "languages"]

_PROBE_TIMEOUT = 30.0
# Page segmentation 1: automatic layout after orientation and script detection (OSD);
# 3 (the same without OSD) where the `osd` model is not installed.
_PSM_OSD, _PSM_PLAIN = "1", "3"
_WORD_LEVEL = "5"


@dataclass(frozen=True, slots=True)
class Installed:
    """Where the program is and which version it is."""

    binary: str
    version: str


@functools.cache
def installed() -> Installed | None:
    """Return the `tesseract` on PATH that answers `--version`, else None (cached)."""
    binary = shutil.which("tesseract")
    if binary is None:
        return None
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
    return Installed(binary=binary, version=lines[1])


@functools.cache
def languages(found: Installed) -> tuple[str, ...]:
    """Return the language models the installed Tesseract lists, sorted (cached)."""
    try:
        done = subprocess.run(
            [found.binary, "--list-langs"],
            capture_output=True,
            timeout=_PROBE_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return ()
    lines = done.stdout.decode("utf-8", "replace").splitlines()[1:]  # after "List of ..."
    return tuple(sorted(line.strip() for line in lines if line.strip()))


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
        psm = _PSM_OSD if "osd" in languages(self.installed) else _PSM_PLAIN
        command = [self.installed.binary, "stdin", "stdout", "-l", self.language, "--psm", psm]
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
        return _reading(done.stdout.decode("utf-8", "replace"))


def _reading(tsv: str) -> Reading:
    """The text and mean word confidence of Tesseract's TSV output."""
    paragraphs: dict[tuple[str, str], dict[str, list[str]]] = {}
    confidences: list[float] = []
    for row in tsv.splitlines()[1:]:  # after the header
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
