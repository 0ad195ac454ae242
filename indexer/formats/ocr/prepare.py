"""A page made ready for the engine: blank pages caught, small text enlarged.

Tesseract reads letters about 20-30 pixels tall; a screenshot or a page image at 72 dpi
has text lines 6-10 pixels tall and reads at word F1 0.03-0.6, the same page enlarged
reads at 0.8-0.98. `prepare` evens out the paper's light (`flatten`: a photo lit from
one side), measures the height of the page's text lines (`measure`) and enlarges a page
whose lines are under `_ENLARGE_BELOW` pixels until they are `TARGET_LINE` (lines of 14
px and more read better as they are); it never shrinks one (the callers already bring a
page down to their resolution and pixel budget).

The measure: the page is split into dark and light by Otsu's threshold (the smaller side
is the ink, so white on black reads as well as black on white), cut into vertical strips
narrow enough that a tilted line stays level across one, and in each strip the runs of
rows holding ink are the text lines. Their height, as a median weighted by the ink in
each run, is the line height: specks of dust weigh next to nothing, and rules (rows
inked nearly across the strip) are left out. A page with no ink
runs, or whose two sides differ by less than `MIN_CONTRAST` grey levels (a blank page,
a JPEG of one), cannot hold text and never reaches the engine.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PIL.Image import Image

__all__ = ["MIN_CONTRAST", "TARGET_LINE", "Measure", "Prepared", "measure", "prepare"]

TARGET_LINE = 24
"""Text lines are enlarged to about this many pixels (ascender to descender)."""
MIN_CONTRAST = 32
"""A page whose ink and paper differ by fewer grey levels than this holds no text."""
_ENLARGE_BELOW = 14
"""Lines at least this tall are read as they are."""
_MAX_SCALE = 8.0
_STRIPS = 16
_MIN_STRIP = 32
_ROW_INK = 3
"""A strip's row holds ink when its mean over the ink mask passes this (of 255): 1.2%."""
_LIGHT_CELLS = 48
"""The paper's light is estimated on a copy this many pixels on its short side."""
_UNEVEN = 40
"""Paper whose light varies by more grey levels than this is evened out."""
_RULE_INK = 200
"""A run with a row this inked (78% of the strip) is a rule or a bar, not a text line."""
_MEASURE_PIXELS = 4_000_000
"""Larger pages are measured on a reduced copy (their lines are tall enough for it)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Measure:
    """What `measure` found on a page."""

    line_height: int
    """The text lines' height in pixels; 0 when the page has no ink."""
    contrast: int
    """Grey levels between the mean ink and the mean paper."""

    @property
    def blank(self) -> bool:
        """True when the page cannot hold text."""
        return self.line_height == 0 or self.contrast < MIN_CONTRAST


@dataclass(frozen=True, slots=True, kw_only=True)
class Prepared:
    """A page ready for the engine, at `dpi` (0: unknown)."""

    image: Image
    dpi: int


def prepare(grey: Image, dpi: int, max_pixels: int) -> Prepared | None:
    """Return `grey` (8-bit) evenly lit and enlarged so its text lines are about
    `TARGET_LINE` pixels tall, within `max_pixels`, and its dpi scaled alike; None when it
    cannot hold text."""
    from PIL import Image as Pil

    grey = flatten(grey)
    found = measure(grey)
    if found.blank:
        return None
    if found.line_height >= _ENLARGE_BELOW:
        return Prepared(image=grey, dpi=dpi)
    budget = (max_pixels / max(1, grey.width * grey.height)) ** 0.5
    scale = min(TARGET_LINE / found.line_height, _MAX_SCALE, budget)
    if scale <= 1.0:
        return Prepared(image=grey, dpi=dpi)
    size = (round(grey.width * scale), round(grey.height * scale))
    enlarged = grey.resize(size, Pil.Resampling.BICUBIC)
    return Prepared(image=enlarged, dpi=round(dpi * scale))


def flatten(grey: Image) -> Image:
    """Return `grey` with its paper made evenly light, when it is lit unevenly (a photo
    of a page, lighter by the window): the paper's brightness, estimated on a reduced copy
    where the letters vanish, is taken out. An evenly lit page is returned as it is."""
    from PIL import Image as Pil
    from PIL import ImageChops, ImageFilter

    factor = max(1, min(grey.size) // _LIGHT_CELLS)
    small = grey.reduce(factor) if factor > 1 else grey
    paper = small.filter(ImageFilter.MaxFilter(5)).filter(ImageFilter.GaussianBlur(2))
    levels = [n for n, count in enumerate(paper.histogram()) if count]
    darkest, lightest = levels[0], levels[-1]
    if lightest - darkest < _UNEVEN:
        return grey
    if _median(small) < 128:  # a dark ground (light letters): its paper is not the light
        return grey
    shade = ImageChops.invert(paper).resize(grey.size, Pil.Resampling.BILINEAR)
    return ImageChops.add(grey, shade, offset=-(255 - lightest))


def _median(image: Image) -> int:
    histogram, half, seen = image.histogram(), image.width * image.height / 2, 0
    for level, count in enumerate(histogram):
        seen += count
        if seen >= half:
            return level
    return 255


def measure(grey: Image) -> Measure:
    """Return the height of the text lines of `grey` (8-bit) and its contrast."""
    from PIL import Image as Pil

    reduce = max(1, int((grey.width * grey.height / _MEASURE_PIXELS) ** 0.5))
    page = grey.reduce(reduce) if reduce > 1 else grey
    histogram = page.histogram()
    threshold = _otsu(histogram)
    dark, light = histogram[: threshold + 1], histogram[threshold + 1 :]
    if not sum(dark) or not sum(light):
        return Measure(line_height=0, contrast=0)
    contrast = round(_mean(light, threshold + 1) - _mean(dark, 0))
    table = [255 if v <= threshold else 0 for v in range(256)]
    if sum(dark) > sum(light):  # light letters on a dark ground
        table = [255 - v for v in table]
    ink = page.point(table)
    width, height = ink.size
    strip = max(_MIN_STRIP, width // _STRIPS)
    runs: list[tuple[int, int]] = []
    for left in range(0, width, strip):
        rows = ink.crop((left, 0, min(width, left + strip), height))
        runs += _runs(rows.resize((1, height), Pil.Resampling.BOX).tobytes())
    return Measure(line_height=_weighted_median(runs) * reduce, contrast=contrast)


def _runs(profile: bytes) -> list[tuple[int, int]]:
    """(height, ink) of each run of at least two rows holding ink, rules left out."""
    out, length, mass, peak = [], 0, 0, 0
    for value in (*profile, 0):
        if value > _ROW_INK:
            length, mass, peak = length + 1, mass + value, max(peak, value)
            continue
        if length >= 2 and peak <= _RULE_INK:
            out.append((length, mass))
        length, mass, peak = 0, 0, 0
    return out


def _weighted_median(runs: list[tuple[int, int]]) -> int:
    total = sum(mass for _, mass in runs)
    seen = 0
    for length, mass in sorted(runs):
        seen += mass
        if 2 * seen >= total:
            return length
    return 0


def _otsu(histogram: list[int]) -> int:
    """The grey level that best splits `histogram` into two classes (Otsu's method)."""
    total = sum(histogram)
    weighted = sum(level * count for level, count in enumerate(histogram))
    below = below_sum = 0
    best, threshold = -1.0, 127
    for level, count in enumerate(histogram):
        below += count
        below_sum += level * count
        above = total - below
        if not below or not above:
            continue
        spread = below * above * (below_sum / below - (weighted - below_sum) / above) ** 2
        if spread > best:
            best, threshold = spread, level
    return threshold


def _mean(counts: list[int], first: int) -> float:
    return sum((first + i) * c for i, c in enumerate(counts)) / max(1, sum(counts))
