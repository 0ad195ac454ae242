"""A live progress line on a terminal; silence everywhere else (cron, pipes, --quiet).

The line is redrawn in place (carriage return, then erase to the end of the line) and
never wider than the terminal, measured at every redraw so a resize takes effect at
the next one. Counts are of walk files as they come back from the workers, not as the
walk-order writer reaches them; messages split out of a mailbox are counted apart.
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from typing import Any, TextIO

import anyio

from indexer.pipeline.output.records import FileOutcome
from indexer.pipeline.output.staged import Tally

_BAR = 20
_ERASE = "\r\x1b[K"
"""Back to the start of the line and erase it: a shorter line leaves nothing behind."""
_SLOW = 2.0
"""Seconds a worker may hold a batch before the line names it."""


class Progress:
    """Counts events from the engine and redraws one status line a few times a second.

    Events: `walked` (a count), `started` (paths given to a worker task), `arrived`
    (`FileOutcome`s back from a worker), `reading` / `read` (paths a worker process has
    started / finished on), `part` (a dask partition's `Tally`). `done` (the writer's
    walk-order outcomes) is not needed for the counts.
    """

    def __init__(self, stream: TextIO | None = None, *, estimate: int | None = None) -> None:
        self.stream = stream or sys.stderr
        self.total: int | None = None
        """The walk's entries, once it has ended (the engine's walk, counted as it goes)."""
        self.estimate = estimate
        """What the line shows as `~N` until then: the files of the previous output."""
        self.walked = 0
        self.done = 0
        """Walk files whose outcome came back (never counted past `total` on the line)."""
        self.children = 0
        """Documents inside walk files (mail messages, archive members, attachments):
        counted apart, never as files."""
        self.bytes = 0
        self.failed = 0
        self._started = time.monotonic()
        self._reading: dict[tuple[str, ...], list[float]] = {}
        """Batches a process holds: when each of their calls began (a batch of PDFs is
        several calls, on several processes)."""
        self._drawn = False

    def __call__(self, event: str, value: Any) -> None:
        """Engine callback; unknown events are ignored."""
        if event == "walked":
            self.walked += int(value)
        elif event == "arrived":
            for outcome in value:
                self._arrived(outcome)
        elif event == "reading":
            self._reading.setdefault(tuple(value), []).append(time.monotonic())
        elif event == "read":
            self._read(tuple(value))
        elif event == "part":
            self._part(value)

    def _arrived(self, outcome: FileOutcome) -> None:
        if outcome.whole is not None:
            self.done += int(outcome.whole.seg["files"])
            self.children += len(outcome.whole.seg["paths"]) - int(outcome.whole.seg["files"])
            return
        if outcome.in_archive:
            self.children += len(outcome.docs)
        else:
            self.done += 1
            self.children += len(outcome.docs) - 1
        self.bytes += outcome.bytes_read
        self.failed += sum(doc.status == "failed" for doc in outcome.docs)

    def _read(self, paths: tuple[str, ...]) -> None:
        calls = self._reading.get(paths)
        if calls:
            calls.pop(0)
            if not calls:
                del self._reading[paths]

    def _part(self, tally: Tally) -> None:
        self.done += tally.files
        self.children += tally.documents - tally.files
        self.bytes += tally.bytes_read
        self.failed += tally.by_status.get("failed", 0)

    async def run(self, interval: float = 0.25) -> None:
        """Redraw until cancelled; erase the line then."""
        try:
            while True:
                self.draw()
                await anyio.sleep(interval)
        finally:
            self.clear()

    def line(self, width: int) -> str:
        """The current status line, at most `width` characters: the parts that do not
        fit are left out, least useful first (`_KEEP`)."""
        now = time.monotonic()
        elapsed = max(now - self._started, 1e-6)
        total, mark = self.total, ""
        if total is None and self.estimate is not None and self.estimate > self.walked:
            total, mark = self.estimate, "~"
        done = self.done if total is None else min(self.done, total)
        shown = f"{done}/{max(self.walked, done)}+" if total is None else f"{done}/{mark}{total}"
        filled = int(_BAR * done / total) if total else 0
        parts = {"bar": f"[{'#' * filled}{'.' * (_BAR - filled)}]", "count": f"{shown} files"}
        if self.children:
            parts["members"] = f"+{self.children} members"
        if self.failed:
            parts["failed"] = f"{self.failed} failed"
        parts["mb"] = f"{self.bytes / 1e6:.1f} MB"
        rate = self.done / elapsed
        if total is not None and rate > 0:
            left = max(0, round((total - done) / rate))
            parts["eta"] = f"ETA {left // 60}:{left % 60:02d}"
        parts["rate"] = f"{rate:.0f} files/s"
        slow = self._slowest(now)
        if slow is not None:
            parts["slow"] = slow
        return _fit(parts, width)

    def _slowest(self, now: float) -> str | None:
        """What a worker process has been reading longest, when that is a while."""
        if not self._reading:
            return None
        paths, since = min(((p, calls[0]) for p, calls in self._reading.items()), key=_second)
        if now - since <= _SLOW:
            return None
        more = f" +{len(paths) - 1}" if len(paths) > 1 else ""
        return f"reading {paths[0]}{more} ({now - since:.0f}s)"

    def draw(self) -> None:
        """Write the status line over the previous one."""
        self.stream.write(_ERASE + self.line(_columns(self.stream) - 1))
        self.stream.flush()
        self._drawn = True

    def clear(self) -> None:
        """Erase the status line."""
        if self._drawn:
            self.stream.write(_ERASE)
            self.stream.flush()
            self._drawn = False


def _second(pair: tuple[tuple[str, ...], float]) -> float:
    return pair[1]


_KEEP = ("count", "slow", "eta", "failed", "members", "bar", "mb", "rate")
"""The line's parts, most worth keeping first, when the terminal is too narrow for all."""
_SLOW_MIN = 40
"""The slow note is shortened (from the left of its path) down to this many characters."""


def _fit(parts: dict[str, str], width: int) -> str:
    """`parts` (in display order) joined, leaving out the least worth keeping until the
    line fits `width`; the slow note takes the room left, shortened from its left."""
    kept = dict(parts)

    def length() -> int:
        sizes = [min(len(t), _SLOW_MIN) if k == "slow" else len(t) for k, t in kept.items()]
        return sum(sizes) + 2 * (len(sizes) - 1)

    for name in reversed(_KEEP):
        if length() <= width or len(kept) == 1:
            break
        kept.pop(name, None)
    slow = kept.get("slow")
    if slow is not None:
        room = width - (length() - min(len(slow), _SLOW_MIN))
        cut = "reading ..."  # the path's end names the file; its start is the folders
        kept["slow"] = slow if len(slow) <= room else cut + slow[len(slow) - room + len(cut) :]
    return "  ".join(kept.values())[:width]


def _columns(stream: TextIO) -> int:
    """The terminal's width now (asked at every redraw, so a resize shows at the next);
    `COLUMNS`, or 80, where the stream is no terminal."""
    try:
        return max(os.get_terminal_size(stream.fileno()).columns, 10)
    except (OSError, ValueError, AttributeError):
        return max(shutil.get_terminal_size().columns, 10)
